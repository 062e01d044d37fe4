package api

import (
	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/text"
)

// The catalog's lists: the depots (GET /depots) and a vehicle's extras, its
// accessories and insurance plans (GET /vehicles/{vehicleId}/accessories and
// /insurance-types), with their cost for a period when given its dates.

func (s *Server) getDepots(c *call) *rental.Error {
	if e := c.checkParams(); e != nil {
		return e
	}
	s.static(c.req, c.w, s.depots.body, s.depots.etag)
	return nil
}

// appendDepots writes the Depot array of the spec.
func appendDepots(b []byte, depots []rental.Depot) []byte {
	b = bytebuf.PutByte(b, '[')
	for i := range depots {
		d := &depots[i]
		if i > 0 {
			b = bytebuf.PutByte(b, ',')
		}
		b = bytebuf.Put(b, `{"id":`)
		b = jsonw.AppendInt(b, d.ID)
		b = jsonw.AppendMember(b, `,"name":`, d.Name)
		b = bytebuf.Put(b, `,"pickup_times":`)
		b = appendSlots(b, d.PickupTimes)
		b = bytebuf.Put(b, `,"drop_off_times":`)
		b = appendSlots(b, d.DropOffTimes)
		b = jsonw.AppendMember(b, `,"opening_hours_description":`, d.OpeningHours)
		b = bytebuf.PutByte(b, '}')
	}
	return bytebuf.PutByte(b, ']')
}

func appendSlots(b []byte, slots []rental.TimeSlot) []byte {
	b = bytebuf.PutByte(b, '[')
	for i, t := range slots {
		if i > 0 {
			b = bytebuf.PutByte(b, ',')
		}
		b = jsonw.AppendMember(b, `{"time":`, t.Time)
		b = jsonw.AppendMember(b, `,"day":`, t.Day)
		b = bytebuf.PutByte(b, '}')
	}
	return bytebuf.PutByte(b, ']')
}

func (s *Server) getAccessories(c *call) *rental.Error {
	return s.getExtras(c, true)
}

func (s *Server) getInsurance(c *call) *rental.Error {
	return s.getExtras(c, false)
}

// getExtras answers accessories and insurance-types. Without dates the lists are
// static (cacheable, ETag); with both dates each item also carries its cost.
func (s *Server) getExtras(c *call, accessories bool) *rental.Error {
	w := c.w
	id, e := parseID(c.op.pathParam, "path parameter ", c.pathParam)
	if e != nil {
		return e
	}
	pick, hasPick := c.q.get("pick_up_date")
	drop, hasDrop := c.q.get("drop_off_date")
	if e = s.pageParams(c, defaultLimit, maxLimit, s.catSeed); e != nil {
		return e
	}
	if e = c.checkParams(); e != nil {
		return e
	}
	v := s.cat.Vehicle(id)
	if v == nil {
		return rental.InvalidCode(rental.CodeUnknownID, "vehicleId", "path parameter vehicleId: vehicle "+string(jsonw.AppendInt(nil, id))+" does not exist; vehicle ids come from GET "+s.cfg.BasePath+"/vehicles/availability")
	}
	days := 0
	if hasPick || hasDrop {
		if days, e = s.extrasDays(pick, drop, hasPick, hasDrop, c.now); e != nil {
			return e
		}
	}
	n := len(s.cat.InsurancePlans(v))
	if accessories {
		n = len(s.cat.Accessories(v))
	}
	off, end, e := c.pageRange(n)
	if e != nil {
		return e
	}
	b := bytebuf.PutByte(c.extrasBody[:0], '[')
	if accessories {
		b, end = s.appendAccessories(c, b, s.cat.Accessories(v)[:end], off, days)
	} else {
		b, end = s.appendPlans(c, b, s.cat.InsurancePlans(v)[:end], off, days)
	}
	b = bytebuf.PutByte(b, ']')
	c.extrasBody = b
	c.pageDone(end, n, s.catSeed)
	if days > 0 {
		w.Status = 200
		s.common(w, cacheSearch)
		w.Body = bytebuf.PutBytes(w.Body, b)
	} else {
		// the ETag of the body: it covers the page (the next page's URL follows from
		// the query and the catalog, as the body does)
		c.extrasETag = appendETag(c.extrasETag[:0], b)
		s.static(c.req, w, b, text.BytesString(c.extrasETag))
	}
	s.setLink(c)
	return nil
}

// extrasDays reads the optional dates of an extras list: both or neither, with the
// hire-date rules of searches and quotes (those that need no depot); it returns the
// hire's days.
func (s *Server) extrasDays(pick, drop string, hasPick, hasDrop bool, nowMs int64) (int, *rental.Error) {
	if !hasPick {
		return 0, rental.InvalidCode(rental.CodeMissingParameter, "pick_up_date", "missing query parameter pick_up_date: give pick_up_date and drop_off_date together, or neither")
	}
	if !hasDrop {
		return 0, rental.InvalidCode(rental.CodeMissingParameter, "drop_off_date", "missing query parameter drop_off_date: give pick_up_date and drop_off_date together, or neither")
	}
	p, e := parseDateParam("pick_up_date", pick)
	if e != nil {
		return 0, e
	}
	d, e := parseDateParam("drop_off_date", drop)
	if e != nil {
		return 0, e
	}
	if e = s.cat.CheckHireDates(p, d, s.nzToday(nowMs)); e != nil {
		return 0, e
	}
	return int(d-p) + 1, nil
}

// appendAccessories appends the accessories as[off:] (their cost for a hire of days
// days, when dated), up to the page's byte budget; it returns where the page ends.
func (s *Server) appendAccessories(c *call, b []byte, as []rental.Accessory, off, days int) ([]byte, int) {
	start := len(b)
	for i := off; i < len(as); i++ {
		a := &as[i]
		if i > off && c.pg.bytes > 0 && len(b)-start >= c.pg.bytes {
			return b, i
		}
		b = appendExtraHead(b, i-off, a.ID, a.Name, a.PriceCents)
		if a.PerDay {
			b = bytebuf.Put(b, `,"priceUnit":"day"`)
		} else {
			b = bytebuf.Put(b, `,"priceUnit":"hire"`)
		}
		if a.MaxChargeCents > 0 {
			b = bytebuf.Put(b, `,"maxCharge":`)
			b = jsonw.AppendMoney(b, a.MaxChargeCents)
		}
		b = bytebuf.Put(b, `,"maxQuantity":`)
		b = jsonw.AppendInt(b, int64(a.MaxQuantity))
		b = appendExtraTail(b, days, rental.AccessoryCost(a, days, 1))
	}
	return b, len(as)
}

// appendPlans is appendAccessories for insurance plans.
func (s *Server) appendPlans(c *call, b []byte, ps []rental.InsurancePlan, off, days int) ([]byte, int) {
	start := len(b)
	for i := off; i < len(ps); i++ {
		p := &ps[i]
		if i > off && c.pg.bytes > 0 && len(b)-start >= c.pg.bytes {
			return b, i
		}
		b = appendExtraHead(b, i-off, p.ID, p.Name, p.PriceCents)
		b = bytebuf.Put(b, `,"priceUnit":"day"`)
		if p.MaxDays > 0 {
			b = bytebuf.Put(b, `,"maxChargedDays":`)
			b = jsonw.AppendInt(b, int64(p.MaxDays))
		}
		b = appendPlanTerms(b, p)
		b = appendExtraTail(b, days, rental.InsuranceCost(p, days))
	}
	return b, len(ps)
}

// appendExtraHead opens item i of an accessory or insurance list: id, name, price.
func appendExtraHead(b []byte, i int, id int64, name string, priceCents int64) []byte {
	if i > 0 {
		b = bytebuf.PutByte(b, ',')
	}
	b = bytebuf.Put(b, `{"id":`)
	b = jsonw.AppendInt(b, id)
	b = jsonw.AppendMember(b, `,"name":`, name)
	b = bytebuf.Put(b, `,"price":`)
	return jsonw.AppendMoney(b, priceCents)
}

// appendExtraTail closes an item: its cost for a hire of days days, when dated.
func appendExtraTail(b []byte, days int, costCents int64) []byte {
	if days > 0 {
		b = bytebuf.Put(b, `,"cost":`)
		b = jsonw.AppendMoney(b, costCents)
	}
	return bytebuf.PutByte(b, '}')
}
