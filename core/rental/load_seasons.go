package rental

// Loading seasons.json: the seasons and the season calendar.

import (
	"fmt"
	"strings"

	"github.com/campervan/agent-api/core/jsonv"
)

func (c *Catalog) loadSeasons(root jsonv.Result) error {
	const file = "seasons.json"
	if !root.IsObject() {
		return fmt.Errorf("%s: must be a JSON object", file)
	}
	if err := c.loadSeasonNames(file, root); err != nil {
		return err
	}
	if err := c.loadCalendar(file, root); err != nil {
		return err
	}
	c.calDays = len(c.seasonOf)
	c.countSeasonDays()
	return nil
}

// loadSeasonNames reads the seasons' names into c.seasonNames.
func (c *Catalog) loadSeasonNames(file string, root jsonv.Result) error {
	ss, err := records(file, root, "seasons")
	if err != nil {
		return err
	}
	if len(ss) == 0 || len(ss) > maxSeasons {
		return rec{file: file, idx: -1}.fail("seasons", "must list 1 to %d seasons", maxSeasons)
	}
	for i, e := range ss {
		r := rec{file: file, list: "seasons", idx: i}
		name, err := r.str(e, "name")
		if err != nil {
			return err
		}
		if !plainName(name) {
			return r.fail("name", "must use only a-z, 0-9, '_' and '-' (got %q)", name)
		}
		if c.seasonIndex(name) >= 0 {
			return r.fail("name", "duplicate season %q", name)
		}
		c.seasonNames = append(c.seasonNames, name)
	}
	return nil
}

// loadCalendar reads the calendar's periods, contiguous and in order, into c.calStart
// and c.seasonOf (the season of each day).
func (c *Catalog) loadCalendar(file string, root jsonv.Result) error {
	cal, err := records(file, root, "calendar")
	if err != nil {
		return err
	}
	if len(cal) == 0 {
		return rec{file: file, idx: -1}.fail("calendar", "must list at least one period")
	}
	var next Date
	for i, e := range cal {
		r := rec{file: file, list: "calendar", idx: i}
		from, to, s, err := c.calendarPeriod(r, e)
		if err != nil {
			return err
		}
		if i == 0 {
			c.calStart = from
		} else if from != next {
			return r.fail("from", "must be %s, the day after the previous period ends (periods must be contiguous and in order)", next)
		}
		if to < from {
			return r.fail("to", "must not be before \"from\" (%s)", from)
		}
		if int(to)-int(c.calStart)+1 > maxCalendarDays {
			return r.fail("to", "the calendar may span at most %d days", maxCalendarDays)
		}
		for d := from; d <= to; d++ {
			c.seasonOf = append(c.seasonOf, uint8(s))
		}
		next = to + 1
	}
	return nil
}

// calendarPeriod reads one period of the calendar: its first and last days and the
// index of its season.
func (c *Catalog) calendarPeriod(r rec, e jsonv.Result) (from, to Date, season int, err error) {
	if from, err = r.date(e, "from"); err != nil {
		return
	}
	if to, err = r.date(e, "to"); err != nil {
		return
	}
	sn, err := r.str(e, "season")
	if err != nil {
		return
	}
	if season = c.seasonIndex(sn); season < 0 {
		err = r.fail("season", "unknown season %q; seasons are %s", sn, strings.Join(c.seasonNames, ", "))
	}
	return
}

// countSeasonDays fills c.seasonPre: per season, the number of its days before each
// day of the calendar.
func (c *Catalog) countSeasonDays() {
	k := len(c.seasonNames)
	c.seasonPre = make([]int32, k*(c.calDays+1))
	for s := 0; s < k; s++ {
		row := c.seasonPre[s*(c.calDays+1) : (s+1)*(c.calDays+1)]
		for i, x := range c.seasonOf {
			row[i+1] = row[i]
			if int(x) == s {
				row[i+1]++
			}
		}
	}
}
