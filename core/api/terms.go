package api

import (
	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/text"
)

// The rental terms in answers (docs/terms.md): GET /terms, each insurance plan's excess
// and bond, a quote's terms for its hire, a search's insurance options per vehicle
// (include=insurance) and the driver_age parameter.

// includeAccepted is what include takes, for messages.
const includeAccepted = "insurance"

func (s *Server) getTerms(c *call) *rental.Error {
	if e := c.checkParams(); e != nil {
		return e
	}
	if s.termsDoc.body == nil {
		s.termsDoc.set(appendTermsDoc(nil, s.cat))
	}
	s.static(c.req, c.w, s.termsDoc.body, s.termsDoc.etag)
	return nil
}

// driverAge reads driver_age: an integer from 16 to 99, or 0 when absent.
func (q *query) driverAge() (int, *rental.Error) {
	v, ok := q.get("driver_age")
	if !ok {
		return 0, nil
	}
	n, i := text.ScanDigits(v, rental.MaxDriverAge+1)
	if i != len(v) || n < rental.MinDriverAge || n > rental.MaxDriverAge {
		return 0, invalidGot("driver_age", "query parameter driver_age must be the driver's age in years, an integer from 16 to 99", "", v)
	}
	return int(n), nil
}

// includeInsurance reads include: "insurance" adds each vehicle's insuranceOptions;
// absent or empty adds nothing.
func (q *query) includeInsurance() (bool, *rental.Error) {
	v, ok := q.get("include")
	if !ok {
		return false, nil
	}
	if v != includeAccepted {
		return false, invalidGot("include", "query parameter include must be "+includeAccepted+" (each vehicle's insurance options with their all-in totals)", "", v)
	}
	return true, nil
}

// optionPart is one insurance plan of a vehicle, rendered for insuranceOptions up to
// the two numbers of a hire: {"id":N,"name":"...","excess":X,"bond":Y,"cost": (one copy
// an option, then its cost and total).
type optionPart struct {
	plan *rental.InsurancePlan
	head []byte
}

// buildOptionParts renders every vehicle's insurance options (by vehicle index; the
// vehicles of a class share one slice) and returns the most bytes optionsAt writes for
// one offer.
func buildOptionParts(cat *rental.Catalog) ([][]optionPart, int) {
	classes := cat.Classes()
	byClass := make([][]optionPart, len(classes))
	most := 0
	for ci := range classes {
		plans := cat.ClassInsurancePlans(ci)
		parts := make([]optionPart, len(plans))
		size := len(`,"insuranceOptions":[]}`)
		for k := range plans {
			p := &plans[k]
			h := jsonw.AppendInt(bytebuf.Put(nil, `{"id":`), p.ID)
			h = jsonw.AppendJSONString(bytebuf.Put(h, `,"name":`), p.Name)
			h = bytebuf.Put(appendPlanTerms(h, p), `,"cost":`)
			parts[k] = optionPart{plan: p, head: h}
			size += len(h) + len(optionTotal) + 2 + 2*jsonw.MaxMoney
		}
		byClass[ci] = parts
		most = max(most, size)
	}
	vs := cat.Vehicles()
	out := make([][]optionPart, len(vs))
	for i := range vs {
		for ci, c := range classes {
			if vs[i].Class == c {
				out[i] = byClass[ci]
			}
		}
	}
	return out, most
}

const optionTotal = `,"totalAmount":`

// optionsAt writes offer o's insurance options at buf[n:], n being where the offer's
// closing brace was: ,"insuranceOptions":[...]} (at most the room buildOptionParts
// returned). Each totalAmount is the quote's total for the vehicle with that plan and
// no accessories (rental.OptionTotal).
func optionsAt(buf []byte, n int, opts [][]optionPart, o *rental.Offer) int {
	n = bytebuf.PutAt(buf, n, `,"insuranceOptions":[`)
	if i := o.Index; i >= 0 && i < len(opts) {
		for k := range opts[i] {
			p := &opts[i][k]
			if k > 0 {
				n = bytebuf.ByteAt(buf, n, ',')
			}
			cost := rental.InsuranceCost(p.plan, o.Days)
			n = bytebuf.CopyAt(buf, n, p.head)
			n = jsonw.MoneyAt(buf, n, cost)
			n = bytebuf.PutAt(buf, n, optionTotal)
			n = jsonw.MoneyAt(buf, n, rental.OptionTotal(o.TotalCents, cost))
			n = bytebuf.ByteAt(buf, n, '}')
		}
	}
	return bytebuf.PutAt(buf, n, "]}")
}

// appendOptions appends offer o's insurance options after its fees (the calendar: the
// entry's closing brace is written after).
func (s *Server) appendOptions(b []byte, o *rental.Offer) []byte {
	b = bytebuf.Room(b, s.optionsMax)
	buf := b[:cap(b)]
	n := optionsAt(buf, len(b), s.optionParts, o)
	return buf[:n-1] // without the brace optionsAt closes the offer with
}

// hireTermsMax bounds what termsAt writes.
const hireTermsMax = 128 + 3*jsonw.MaxMoney + jsonw.MaxInt +
	rental.MaxCancellationTiers*(24+rental.DateLen+jsonw.MaxMoney) + 2*(24+rental.DateLen+jsonw.MaxMoney)

// termsAt writes a quote's terms member at buf[n:] (at most hireTermsMax bytes).
func (s *Server) termsAt(buf []byte, n int, t *rental.HireTerms) int {
	n = bytebuf.PutAt(buf, n, `,"terms":{"excess":`)
	n = jsonw.MoneyAt(buf, n, t.ExcessCents)
	n = bytebuf.PutAt(buf, n, `,"bond":`)
	n = jsonw.MoneyAt(buf, n, t.BondCents)
	n = bytebuf.PutAt(buf, n, `,"cancellation":[`)
	for i := 0; i < t.NTiers && i < len(t.Tiers); i++ {
		if i > 0 {
			n = bytebuf.ByteAt(buf, n, ',')
		}
		n = bytebuf.PutAt(buf, n, `{"until":"`)
		n = s.termDateAt(buf, n, t.Tiers[i].Until)
		n = bytebuf.PutAt(buf, n, `","fee":`)
		n = jsonw.MoneyAt(buf, n, t.Tiers[i].FeeCents)
		n = bytebuf.ByteAt(buf, n, '}')
	}
	n = bytebuf.PutAt(buf, n, `],"payment":[`)
	for i := 0; i < t.NPayments && i < len(t.Payments); i++ {
		if i > 0 {
			n = bytebuf.ByteAt(buf, n, ',')
		}
		n = bytebuf.PutAt(buf, n, `{"due":"`)
		n = s.termDateAt(buf, n, t.Payments[i].Due)
		n = bytebuf.PutAt(buf, n, `","amount":`)
		n = jsonw.MoneyAt(buf, n, t.Payments[i].AmountCents)
		n = bytebuf.ByteAt(buf, n, '}')
	}
	n = bytebuf.PutAt(buf, n, `],"minimumDriverAge":`)
	n = jsonw.IntAt(buf, n, int64(t.MinDriverAge))
	return bytebuf.ByteAt(buf, n, '}')
}

// maxDateTexts bounds the dates termDateAt keeps as text.
const maxDateTexts = 4096

// termDateAt writes d as Date.At does, from its text kept in s.dateTexts when d is a
// date of the season calendar: a quote's terms write up to ten dates, all from today to
// the pick-up date, and a copy costs far less than Date.At's civil conversion. A date's
// text is written on its first use.
func (s *Server) termDateAt(buf []byte, n int, d rental.Date) int {
	if s.dateTexts == nil {
		s.makeDateTexts()
	}
	if i := int(d) - int(s.datesFirst); i >= 0 && i < len(s.dateTexts) {
		p := &s.dateTexts[i]
		if p[0] == 0 {
			d.At(p[:], 0)
		}
		return bytebuf.BytesAt(buf, n, p[:])
	}
	return d.At(buf, n)
}

// makeDateTexts makes the (empty) texts of the season calendar's dates, at most
// maxDateTexts of them, on the first quote.
//
//go:noinline
func (s *Server) makeDateTexts() {
	first, last := s.cat.CalendarRange()
	s.datesFirst = first
	s.dateTexts = make([][rental.DateLen]byte, min(max(int(last)-int(first)+1, 1), maxDateTexts))
}

// appendPlanTerms appends an insurance plan's excess and bond (the insurance list).
func appendPlanTerms(b []byte, p *rental.InsurancePlan) []byte {
	b = bytebuf.Put(b, `,"excess":`)
	b = jsonw.AppendMoney(b, p.ExcessCents)
	b = bytebuf.Put(b, `,"bond":`)
	return jsonw.AppendMoney(b, p.BondCents)
}

// appendTermsDoc writes GET /terms: the terms of every hire, each plan's with the
// vehicle classes it is offered with.
func appendTermsDoc(b []byte, cat *rental.Catalog) []byte {
	t := cat.Terms()
	classes := cat.Classes()
	b = putMember(b, `{"currency":`, cat.Currency())
	b = putLit(b, `,"insurance":[`)
	ids, _ := cat.InsuranceIDs()
	written := 0
	for _, id := range ids {
		plan := planOf(cat, id, -1)
		if plan == nil {
			continue
		}
		if written > 0 {
			b = bytebuf.PutByte(b, ',')
		}
		written++
		b = putLit(b, `{"id":`)
		b = jsonw.AppendInt(b, plan.ID)
		b = putMember(b, `,"name":`, plan.Name)
		b = putLit(b, `,"vehicleClasses":[`)
		k := 0
		for ci, c := range classes {
			if planOf(cat, id, ci) != nil {
				if k > 0 {
					b = bytebuf.PutByte(b, ',')
				}
				k++
				b = jsonw.AppendJSONString(b, c)
			}
		}
		b = bytebuf.PutByte(b, ']')
		b = appendPlanTerms(b, plan)
		b = putMember(b, `,"covers":`, plan.Covers)
		b = putMember(b, `,"excludes":`, plan.Excludes)
		b = bytebuf.PutByte(b, '}')
	}
	b = putLit(b, `],"cancellation":[`)
	for i, r := range t.Cancellation {
		if i > 0 {
			b = bytebuf.PutByte(b, ',')
		}
		b = putLit(b, `{"minDaysBefore":`)
		b = jsonw.AppendInt(b, int64(r.MinDaysBefore))
		b = putLit(b, `,"percentOfTotal":`)
		b = jsonw.AppendInt(b, r.PercentOfTotal)
		b = putLit(b, `,"fixedFee":`)
		b = jsonw.AppendMoney(b, r.FixedFeeCents)
		b = bytebuf.PutByte(b, '}')
	}
	b = putLit(b, `],"payment":{"depositPercent":`)
	b = jsonw.AppendInt(b, t.Payment.DepositPercent)
	b = putLit(b, `,"balanceDaysBefore":`)
	b = jsonw.AppendInt(b, int64(t.Payment.BalanceDaysBefore))
	b = putLit(b, `,"cardSurchargePercent":`)
	b = jsonw.AppendMoney(b, t.Payment.CardSurchargeBasisPoints) // hundredths of a percent, as cents are of a dollar
	b = putLit(b, `},"drivers":{"minimumAge":[`)
	for ci, c := range classes {
		if ci > 0 {
			b = bytebuf.PutByte(b, ',')
		}
		b = putMember(b, `{"vehicleClass":`, c)
		b = putLit(b, `,"age":`)
		if ci < len(t.MinimumAge) {
			b = jsonw.AppendInt(b, int64(t.MinimumAge[ci]))
		} else {
			b = bytebuf.PutByte(b, '0')
		}
		b = bytebuf.PutByte(b, '}')
	}
	b = putMember(b, `],"licence":`, t.Licence)
	b = putLit(b, `},"includes":[`)
	for i, s := range t.Includes {
		if i > 0 {
			b = bytebuf.PutByte(b, ',')
		}
		b = jsonw.AppendJSONString(b, s)
	}
	return putLit(b, "]}")
}

// planOf returns insurance plan id as vehicle class ci offers it (any class's for
// ci < 0), or nil. No append: the bundled catalog's parts are rendered at compile
// time (jsonw.grow says why).
func planOf(cat *rental.Catalog, id int64, ci int) *rental.InsurancePlan {
	for c := range cat.Classes() {
		if ci >= 0 && c != ci {
			continue
		}
		plans := cat.ClassInsurancePlans(c)
		for k := range plans {
			if plans[k].ID == id {
				return &plans[k]
			}
		}
	}
	return nil
}

// termsParams reads a search's driver_age (into c.filter) and include.
func (c *call) termsParams() *rental.Error {
	var e *rental.Error
	if c.filter.DriverAge, e = c.q.driverAge(); e != nil {
		return e
	}
	c.driverAge = c.filter.DriverAge
	c.withOptions, e = c.q.includeInsurance()
	return e
}

// optionsRoom is the most bytes the options of one offer of search c take.
//
//go:inline
func (s *Server) optionsRoom(c *call) int {
	if c.withOptions {
		return s.optionsMax
	}
	return 0
}

// putLit and putMember are bytebuf.Put and jsonw.AppendMember as calls: the GET /terms
// document is rendered once per Server, and each inlined Put is ~50 bytes of module.
//
//go:noinline
func putLit(b []byte, s string) []byte { return bytebuf.Put(b, s) }

//go:noinline
func putMember(b []byte, raw, s string) []byte { return jsonw.AppendMember(b, raw, s) }
