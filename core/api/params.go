package api

import (
	"math/bits"
	"strings"

	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/text"
)

// Limits on what a request may carry; each is named in the 400 that enforces it.
const (
	maxTargetLen   = 4096 // bytes of path and query
	maxParams      = 16   // query parameters
	maxAccessories = 20   // ids in accessory_ids (a repeated id counts each time)
	maxID          = 1<<31 - 1
)

type param struct {
	key, val string
	used     bool
}

// query is a parsed query string: at most maxParams pairs, percent-decoded.
type query struct {
	p    [maxParams]param
	n    int
	next int    // where get starts looking: after the pair it found last
	buf  []byte // decoded bytes; strings alias it
	seen uint64 // a bit for each key added (keyBit): add scans for a repeat only on a set bit
}

// parse splits raw ("a=1&b=2") into q. Repeated keys are an error naming the key.
// One pass over raw finds each pair's '&', its first '=' and whether it has a '%' or
// '+' to decode, rather than a scan for each. It reads eight bytes at a time and stops
// only at those four bytes (queryStops): each byte load in wasm is a bounds check.
func (q *query) parse(raw string) *rental.Error {
	q.n, q.next, q.seen = 0, 0, 0
	q.buf = q.buf[:0]
	start, eq, esc := 0, -1, false
	for i := 0; i < len(raw); i++ {
		if i+8 <= len(raw) {
			m := queryStops(bytebuf.Load64(raw, i))
			if m == 0 {
				i += 7 // and the loop's i++: the next eight
				continue
			}
			i += bits.TrailingZeros64(m) >> 3 // the first of them (queryStops)
		}
		switch raw[i] {
		case '&':
			if i > start {
				if e := q.add(raw[start:i], eq-start, esc); e != nil {
					return e
				}
			}
			start, eq, esc = i+1, -1, false
		case '=':
			if eq < 0 {
				eq = i
			}
		case '%', '+':
			esc = true
		}
	}
	if len(raw) > start {
		return q.add(raw[start:], eq-start, esc)
	}
	return nil
}

// queryStops returns a word with the high bit set in the byte of x (eight bytes of a
// query, the first in the low byte) that is the first '&', '=', '%' or '+' among them,
// and 0 when there is none. Bytes after the first may be marked wrongly (a borrow
// carries from a byte that matched), so only the lowest mark counts: the classic
// "has a zero byte" test ((v - 0x01..) & ^v & 0x80..) over x xor each of the four.
func queryStops(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	a, e, p, s := x^('&'*ones), x^('='*ones), x^('%'*ones), x^('+'*ones)
	return ((a-ones)&^a | (e-ones)&^e | (p-ones)&^p | (s-ones)&^s) & highs
}

// add adds one pair, its '=' at eq (negative: none); esc says it has something to
// decode.
func (q *query) add(pair string, eq int, esc bool) *rental.Error {
	key, val := pair, ""
	if eq >= 0 {
		key, val = pair[:eq], pair[eq+1:]
	}
	if esc {
		var ok bool
		if key, ok = q.unescape(key); !ok {
			return pairError(pairBadKeyEscape, "")
		}
		if val, ok = q.unescape(val); !ok {
			return pairError(pairBadValueEscape, key)
		}
	}
	if key == "" {
		return pairError(pairNoName, "")
	}
	// A repeat is looked for among the keys before only when one of them had the same
	// bit (keyBit): the operations' own keys have bits of their own, so a request that
	// repeats none scans nothing.
	bit := keyBit(key)
	if q.seen&bit != 0 {
		for i := 0; i < q.n; i++ {
			// the lengths first, here: keys mostly differ in length, and Same is a call
			if k := q.p[i].key; len(k) == len(key) && text.Same(k, key) {
				return pairError(pairRepeated, key)
			}
		}
	}
	q.seen |= bit
	if q.n == maxParams {
		return pairError(pairTooMany, "")
	}
	q.p[q.n] = param{key: key, val: val}
	q.n++
	return nil
}

// keyBit is a bit of 64 chosen by a (non-empty) key's length and first byte: distinct
// for the keys of each operation (TestKeyBitsDistinct), so that add's scan for a
// repeated key runs only when one may be there.
func keyBit(key string) uint64 {
	return 1 << ((uint(len(key)) + 3*uint(key[0])) & 63)
}

// What is wrong with a query pair (pairError).
const (
	pairBadKeyEscape = iota
	pairBadValueEscape
	pairNoName
	pairRepeated
	pairTooMany
)

// pairError is the error of a query pair. The messages of the parameter checks are
// built out of line (here and in invalidGot, idError, dateParamError): V8 compiles a
// function whole on its first call, and every isolate's first search calls add,
// parseID, parseDateParam and filter, so their error paths stay out of them.
//
//go:noinline
func pairError(what int, key string) *rental.Error {
	switch what {
	case pairBadKeyEscape:
		return rental.InvalidCode(rental.CodeInvalidRequest, "query", "the query string has a malformed percent-escape in a parameter name")
	case pairBadValueEscape:
		if key == "" {
			return rental.InvalidCode(rental.CodeInvalidRequest, "query", "the query string has a malformed percent-escape in a parameter without a name")
		}
		return rental.Invalid(key, "query parameter "+text.Clean(key)+" has a malformed percent-escape")
	case pairNoName:
		return rental.InvalidCode(rental.CodeInvalidRequest, "query", "the query string has a parameter without a name (\"=...\"); give name=value pairs")
	case pairRepeated:
		return rental.InvalidCode(rental.CodeRepeatedParameter, key, "query parameter "+text.Clean(key)+" is given more than once; give it once")
	}
	return rental.InvalidCode(rental.CodeTooMany, "query", "too many query parameters (the limit is 16)")
}

// invalidGot is the error of a parameter whose value v is not accepted: msg1+msg2
// (what the parameter takes), then ", got " and v quoted.
//
//go:noinline
func invalidGot(param, msg1, msg2, v string) *rental.Error {
	return rental.Invalid(param, msg1+msg2+", got "+text.QuoteClean(v))
}

// missing is the error of a required parameter that is not given; what says where
// its values come from.
//
//go:noinline
func missing(key, what string) *rental.Error {
	return rental.InvalidCode(rental.CodeMissingParameter, key, "missing required query parameter "+key+" ("+what+")")
}

// unescape decodes %XX and '+'; strings without either are returned as they are.
func (q *query) unescape(s string) (string, bool) {
	need := false
	for i := 0; i < len(s); i++ {
		if s[i] == '%' || s[i] == '+' {
			need = true
			break
		}
	}
	if !need {
		return s, true
	}
	start := len(q.buf)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '+':
			c = ' '
		case '%':
			if i+2 >= len(s) || text.Unhex(s[i+1]) < 0 || text.Unhex(s[i+2]) < 0 {
				return "", false
			}
			c = byte(text.Unhex(s[i+1])<<4 | text.Unhex(s[i+2]))
			i += 2
		}
		q.buf = append(q.buf, c)
	}
	return text.BytesString(q.buf[start:]), true
}

// get returns the value of key and whether it was given, and marks it used. An
// empty value ("key=" or "key") counts as absent, for every parameter alike: a
// required one is then missing, an optional one takes its default. It looks from the
// pair after the one it found last, round to the start (keys are unique: add refuses a
// repeated one): a client that sends the parameters in the order the operation reads
// them, as the OpenAPI document and the examples list them, has each found at the
// first compare instead of after all those before it.
//
//go:inline
func (q *query) get(key string) (string, bool) {
	n, i := q.n, q.next
	for c := 0; c < n; c++ {
		if i >= n {
			i = 0
		}
		if k := q.p[i].key; len(k) == len(key) && text.Same(k, key) {
			q.p[i].used = true
			q.next = i + 1
			return q.p[i].val, q.p[i].val != ""
		}
		i++
	}
	return "", false
}

// unknown returns an error for the first parameter no getter asked for.
func (q *query) unknown(accepted string) *rental.Error {
	for i := 0; i < q.n; i++ {
		if !q.p[i].used {
			k := q.p[i].key
			if accepted == "" {
				return rental.InvalidCode(rental.CodeUnknownParameter, k, "unknown query parameter "+text.QuoteClean(k)+"; this operation takes no query parameters")
			}
			return rental.InvalidCode(rental.CodeUnknownParameter, k, "unknown query parameter "+text.QuoteClean(k)+"; this operation accepts "+accepted)
		}
	}
	return nil
}

// requiredID reads a required positive integer parameter of the current operation; a
// missing one's message says where its values come from (hint).
func (s *Server) requiredID(c *call, key string) (int64, *rental.Error) {
	v, ok := c.q.get(key)
	if !ok {
		return 0, missing(key, s.hint(c, key))
	}
	return parseID(key, "query parameter ", v)
}

// optionalID reads an optional positive integer parameter; absent or empty gives 0.
func (q *query) optionalID(key string) (int64, *rental.Error) {
	v, ok := q.get(key)
	if !ok {
		return 0, nil
	}
	return parseID(key, "query parameter ", v)
}

// parseID parses a positive integer id in 1..maxID; kind+param names the input in
// messages ("query parameter " + "vehicle_id"). The two are joined only on an error: a
// concatenation on every call would be a heap allocation per parameter.
//
//go:inline
func parseID(param, kind, v string) (int64, *rental.Error) {
	n, i := text.ScanDigits(v, maxID)
	if i == len(v) && n > 0 {
		return n, nil
	}
	return 0, idError(param, kind, v, i)
}

// idError is parseID's error; i is where the digits stopped.
//
//go:noinline
func idError(param, kind, v string, i int) *rental.Error {
	what := kind + param
	switch {
	case v == "":
		return rental.Invalid(param, what+" is empty; it must be a positive integer")
	case i < len(v) && (v[i] < '0' || v[i] > '9'):
		return rental.Invalid(param, what+" must be a positive integer, got "+text.QuoteClean(v))
	case i < len(v):
		return rental.Invalid(param, what+" is out of range: ids are 1 to 2147483647, got "+text.QuoteClean(v))
	}
	return rental.Invalid(param, what+" must be a positive integer (1 or more), got "+text.QuoteClean(v))
}

// requiredDate reads a required YYYY-MM-DD parameter.
func (q *query) requiredDate(key string) (rental.Date, *rental.Error) {
	d, _, e := q.requiredDateText(key)
	return d, e
}

// requiredDateText is requiredDate with the parameter's text: when the date is valid,
// the text is how Date.At writes it (ParseDate takes YYYY-MM-DD alone).
func (q *query) requiredDateText(key string) (rental.Date, string, *rental.Error) {
	v, ok := q.get(key)
	if !ok {
		return 0, "", missing(key, "a date, YYYY-MM-DD")
	}
	d, e := parseDateParam(key, v)
	return d, v, e
}

// parseDateParam tells a wrong format from an impossible date.
func parseDateParam(key, v string) (rental.Date, *rental.Error) {
	if d, ok := rental.ParseDate(v); ok {
		return d, nil
	}
	return 0, dateParamError(key, v)
}

// dateParamError is parseDateParam's error: a wrong format or an impossible date.
//
//go:noinline
func dateParamError(key, v string) *rental.Error {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' || !allDigits(v[0:4]) || !allDigits(v[5:7]) || !allDigits(v[8:10]) {
		return rental.Invalid(key, "query parameter "+key+" must be a date in the form YYYY-MM-DD, got "+text.QuoteClean(v))
	}
	return rental.Invalid(key, "query parameter "+key+" is not a real calendar date, got "+text.QuoteClean(v))
}

func allDigits(s string) bool {
	_, i := text.ScanDigits(s, 1<<62)
	return i == len(s)
}

// parsePicks reads accessory_ids ("3,5,3": a repeated id is one more of it) into dst.
// An empty value means no accessories.
func parsePicks(v string, dst []rental.Pick) ([]rental.Pick, *rental.Error) {
	dst = dst[:0]
	if v == "" {
		return dst, nil
	}
	count := 0
	for {
		var item string
		if i := strings.IndexByte(v, ','); i >= 0 {
			item, v = v[:i], v[i+1:]
			if v == "" {
				return dst, rental.Invalid("accessory_ids", "accessory_ids ends with a comma; give comma-separated accessory ids such as 3,5,5")
			}
		} else {
			item, v = v, ""
		}
		count++
		if count > maxAccessories {
			return dst, rental.InvalidCode(rental.CodeTooMany, "accessory_ids", "accessory_ids lists more than 20 ids (the limit, repeated ids included)")
		}
		id, err := parseID("accessory_ids", "each id in ", item)
		if err != nil {
			if item == "" {
				err.Message = "accessory_ids has an empty entry; give comma-separated accessory ids such as 3,5,5"
			}
			return dst, err
		}
		merged := false
		for i := range dst {
			if dst[i].ID == id {
				dst[i].Quantity++
				merged = true
				break
			}
		}
		if !merged {
			dst = bytebuf.Push(dst, rental.Pick{ID: id, Quantity: 1})
		}
		if v == "" {
			break
		}
	}
	return dst, nil
}

// The accepted values of the search filters and of sort.
const (
	maxBerths = 20 // vehicles.json's bound on berths
	// maxTotalCents bounds max_total (NZ$10,000,000): more digits are a 400, not an overflow.
	maxTotalCents = 1_000_000_000
	sortAccepted  = "price, -price or berths"
)

// sortOrder is the order of availability results.
type sortOrder uint8

const (
	sortNone      sortOrder = iota // by vehicle id, as without sort
	sortPrice                      // totalAmount ascending, then vehicle id
	sortPriceDesc                  // totalAmount descending, then vehicle id
	sortBerths                     // berths ascending, then totalAmount, then vehicle id
)

// filter reads the optional filters of a search (min_berths, transmission, class,
// max_total); classes are the catalog's class codes.
func (q *query) filter(f *rental.Filter, classes []string, classList string) *rental.Error {
	*f = rental.Filter{}
	if v, ok := q.get("min_berths"); ok {
		n, i := text.ScanDigits(v, 1<<20)
		if i != len(v) || n < 1 || n > maxBerths {
			return invalidGot("min_berths", "query parameter min_berths must be an integer from 1 to 20", "", v)
		}
		f.MinBerths = int(n)
	}
	if v, ok := q.get("transmission"); ok {
		for _, t := range rental.Transmissions {
			if v == t {
				f.Transmission = t
			}
		}
		if f.Transmission == "" {
			return invalidGot("transmission", "query parameter transmission must be manual or automatic", "", v)
		}
	}
	if v, ok := q.get("class"); ok {
		for _, c := range classes {
			if v == c {
				f.Class = c
			}
		}
		if f.Class == "" {
			return invalidGot("class", "query parameter class must be one of ", classList, v)
		}
	}
	if v, ok := q.get("max_total"); ok {
		c, ok := parseAmount(v)
		if !ok {
			return invalidGot("max_total", "query parameter max_total must be an amount in NZD greater than 0, with at most two decimals (such as 1600 or 1599.50)", "", v)
		}
		f.MaxTotalCents = c
	}
	return nil
}

// parseAmount reads a positive NZD amount with at most two decimals ("1600", "1599.5",
// "1599.50") as cents, up to maxTotalCents.
func parseAmount(v string) (int64, bool) {
	whole, i := text.ScanDigits(v, maxTotalCents/100+1)
	if i == 0 || whole > maxTotalCents/100 {
		return 0, false
	}
	cents := whole * 100
	if i < len(v) {
		frac := v[i:]
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 3 || !allDigits(frac[1:]) {
			return 0, false
		}
		f := int64(frac[1]-'0') * 10
		if len(frac) == 3 {
			f += int64(frac[2] - '0')
		}
		cents += f
	}
	if cents <= 0 || cents > maxTotalCents {
		return 0, false
	}
	return cents, true
}

// sortParam reads sort.
func (q *query) sortParam() (sortOrder, *rental.Error) {
	v, ok := q.get("sort")
	if !ok {
		return sortNone, nil
	}
	switch v {
	case "price":
		return sortPrice, nil
	case "-price":
		return sortPriceDesc, nil
	case "berths":
		return sortBerths, nil
	}
	return sortNone, rental.Invalid("sort", "query parameter sort must be "+sortAccepted+", got "+text.QuoteClean(v))
}
