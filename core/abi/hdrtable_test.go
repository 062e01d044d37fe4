package abi

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/bytebuf"
)

// TestInternedExpandsToEncode: over a long run of responses whose headers repeat, vary
// and collide (more distinct pairs than slots, some longer than a slot), the shell's
// expansion of every interned answer is byte for byte the plain form, and repeats cross
// as hits.
func TestInternedExpandsToEncode(t *testing.T) {
	var w Response
	var tab HeaderTable
	var c HeaderCache
	g := rand.New(rand.NewPCG(1, 2))
	hits, entries := 0, 0
	// fixed blocks (sent as hits while their slots hold), one of them made anew now and
	// then at the same address; and a block that is changed in place (never fixed)
	fixedBlocks := []Headers{
		NewHeaders("x-content-type-options", "nosniff", "access-control-allow-origin", "*"),
		NewHeaders("vary", "accept", "x-one", "1", "x-two", "2"),
	}
	var changing Headers
	for i := 0; i < 5000; i++ {
		w.Reset()
		w.Status = 200 + g.IntN(300)
		if g.IntN(50) == 0 {
			fixedBlocks[1] = NewHeaders("vary", "accept", "x-one", strconv.Itoa(g.IntN(5)), "x-two", "2")
		}
		if g.IntN(4) > 0 {
			w.SetHeaders(&fixedBlocks[g.IntN(2)])
		}
		if g.IntN(3) == 0 {
			changing.Reset()
			changing.AddInt("x-changing", int64(g.IntN(3)))
			w.SetHeaders(&changing)
		}
		w.SetHeader("content-type", "application/json; charset=utf-8")
		w.SetHeader(":route", []string{"/depots", "/quotes", "/vehicles/availability"}[g.IntN(3)])
		w.SetHeaderInt("x-ratelimit-remaining", int64(g.IntN(400))) // 400 values: more than the slots
		w.SetHeaderInt("x-ratelimit-reset", int64(g.IntN(60)))
		if g.IntN(10) == 0 {
			w.SetHeader("link", strings.Repeat("x", maxSlotPair+g.IntN(3)-1)) // around the slot size
		}
		if g.IntN(2) == 0 {
			w.SetHeader("etag", `"`+strconv.Itoa(g.IntN(1000))+`"`)
		}
		w.Body = append(w.Body, strconv.Itoa(i)...)
		want := append([]byte(nil), w.Encode()...)
		in := w.EncodeInterned(&tab)
		for off, n := 12, 0; n < w.nhdr; n++ { // count the hits
			entries++
			kind := in[off+2]
			off += 4
			if kind == entryHit {
				hits++
				continue
			}
			_, next, _ := ReadField(in, off)
			_, off, _ = ReadField(in, next)
		}
		got, err := c.Expand(in)
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			dg, _ := DecodeResponse(got)
			dw, _ := DecodeResponse(want)
			t.Fatalf("response %d: expanded\n%+v\nwant\n%+v", i, dg, dw)
		}
	}
	if hits < entries/2 {
		t.Errorf("%d hits of %d entries: the repeated headers should mostly hit", hits, entries)
	}
	t.Logf("%d of %d header entries crossed as hits", hits, entries)
}

func TestInternedSecondAnswerIsAllHits(t *testing.T) {
	var w Response
	var tab HeaderTable
	long := strings.Repeat("y", 300)
	fill := func() []byte {
		w.Reset()
		w.Status = 200
		w.SetHeader("content-type", "application/json")
		w.SetHeaderInt("x-ratelimit-remaining", 99)
		w.SetHeader("link", long) // a literal every time
		w.Body = append(w.Body, "[1,2,3]"...)
		return w.EncodeInterned(&tab)
	}
	first := append([]byte(nil), fill()...)
	second := fill()
	if len(second) >= len(first) {
		t.Fatalf("the repeat is %d bytes, the first %d", len(second), len(first))
	}
	kinds := []byte{second[14], second[18], second[22]}
	if !bytes.Equal(kinds, []byte{entryHit, entryHit, entryLiteral}) {
		t.Errorf("entry kinds of the repeat %v, want hit, hit, literal", kinds)
	}
	if n := testing.AllocsPerRun(100, func() { fill() }); n != 0 {
		t.Errorf("encoding an interned response allocates %v times", n)
	}
}

func TestExpandRejectsMalformed(t *testing.T) {
	var w Response
	var tab HeaderTable
	w.SetHeader("a", "b")
	w.Body = append(w.Body, "body"...)
	good := append([]byte(nil), w.EncodeInterned(&tab)...)
	hit := append([]byte(nil), w.EncodeInterned(&tab)...)
	for name, buf := range map[string][]byte{
		"short":        good[:8],
		"truncated":    good[:len(good)-1],
		"hit on empty": hit,
		"slot range":   append(append([]byte(nil), good[:12]...), append([]byte{200, 0, 1, 0}, good[16:]...)...),
		"kind":         append(append([]byte(nil), good[:14]...), append([]byte{7, 0}, good[16:]...)...),
	} {
		var c HeaderCache
		if _, err := c.Expand(buf); err == nil {
			t.Errorf("%s: Expand accepted %x", name, buf)
		}
	}
	var c HeaderCache
	if _, err := c.Expand(good); err != nil {
		t.Errorf("the good one: %v", err)
	}
}

// TestInternedRealHeadersAllHit: the headers of a real answer (the depots list's), sent
// again, all cross as hits: none of them evicts another.
func TestInternedRealHeadersAllHit(t *testing.T) {
	var w Response
	var tab HeaderTable
	fill := func() []byte {
		w.Reset()
		w.Status = 200
		for _, h := range [][2]string{{"x-inventory-version", "bundled-1d9ff7108f93a98f"}, {":route", "/depots"},
			{"x-ratelimit-limit", "100"}, {"x-ratelimit-remaining", "99"}, {"x-ratelimit-reset", "41"},
			{"ratelimit-policy", `"default";q=100;w=60`}, {"ratelimit", `"default";r=99;t=41`},
			{"content-type", "application/json; charset=utf-8"}, {"cache-control", "public, max-age=300"},
			{"etag", `"5bda5edc8396ccda"`}, {"access-control-allow-origin", "*"},
			{"access-control-expose-headers", "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, Retry-After, ETag, X-Inventory-Version"},
			{"x-content-type-options", "nosniff"}} {
			w.SetHeader(h[0], h[1])
		}
		return w.EncodeInterned(&tab)
	}
	fill()
	out := fill()
	for i, off := 0, 12; i < w.nhdr; i, off = i+1, off+4 {
		if out[off+2] != entryHit {
			t.Errorf("header %d crossed again as kind %d, want a hit", i, out[off+2])
		}
	}
	// the second answer stored nothing, but the first did: only the third on is marked
	if out[7]&(sameHeaders>>8) != 0 {
		t.Error("the second answer is marked sameHeaders; the first stored pairs")
	}
	if out = fill(); out[7]&(sameHeaders>>8) == 0 {
		t.Error("the third answer, all hits after one of all hits, is not marked sameHeaders")
	}
}

// TestInternedSameHeaders: sameHeaders marks an answer whose headers are the previous
// answer's, and only that one: a header that differs, a pair stored in the previous
// answer, a literal, or another order each leave it off. HeaderCache.Expand fails on a
// mark whose headers differ from the previous expansion.
func TestInternedSameHeaders(t *testing.T) {
	var w Response
	var tab HeaderTable
	var c HeaderCache
	block := NewHeaders("content-type", "application/json", "x-content-type-options", "nosniff")
	answer := func(etag string, swap bool, literal bool) bool {
		w.Reset()
		w.Status = 200
		if swap {
			w.SetHeader("etag", etag)
			w.SetHeaders(&block)
		} else {
			w.SetHeaders(&block)
			w.SetHeader("etag", etag)
		}
		if literal {
			w.SetHeader("link", strings.Repeat("l", maxSlotPair))
		}
		w.Body = append(w.Body, "{}"...)
		want := append([]byte(nil), w.Encode()...)
		in := w.EncodeInterned(&tab)
		got, err := c.Expand(in)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("expanded %q, %v; want %q", got, err, want)
		}
		return binary.LittleEndian.Uint16(in[6:])&sameHeaders != 0
	}
	for i, tc := range []struct {
		etag          string
		swap, literal bool
		same          bool
	}{
		{`"a"`, false, false, false}, // stores
		{`"a"`, false, false, false}, // hits, after stores
		{`"a"`, false, false, true},
		{`"a"`, false, false, true},
		{`"b"`, false, false, false}, // the etag stored
		{`"a"`, false, false, false}, // hits, but other than the previous, which stored
		{`"b"`, false, false, false}, // hits, but another etag than the previous
		{`"b"`, false, false, true},
		{`"b"`, true, false, false}, // another order
		{`"b"`, true, false, true},
		{`"b"`, true, true, false},  // a literal
		{`"b"`, true, true, false},  // a literal again
		{`"b"`, true, false, false}, // one header fewer
		{`"b"`, true, false, true},
	} {
		if got := answer(tc.etag, tc.swap, tc.literal); got != tc.same {
			t.Errorf("answer %d (%+v): sameHeaders %v", i, tc, got)
		}
	}
	// a mark on other headers than the previous answer's is refused by Expand
	answer(`"a"`, false, false)
	in := append([]byte(nil), w.EncodeInterned(&tab)...)
	answer(`"b"`, false, false)
	answer(`"b"`, false, false)
	binary.LittleEndian.PutUint16(in[6:], binary.LittleEndian.Uint16(in[6:])|sameHeaders)
	if _, err := c.Expand(in); err == nil {
		t.Error("Expand took a sameHeaders mark on other headers than the previous answer's")
	}
}

// TestInternedBodyStaysInPlace: once the body has its place, the interned answer is
// the headers written before it, not a copy of it; an answer whose headers do not fit
// the room (the first, sending long pairs) or whose body outgrew its place is copied,
// and both expand to the same plain form.
func TestInternedBodyStaysInPlace(t *testing.T) {
	var w Response
	var tab HeaderTable
	var cache HeaderCache
	fill := func(body, value string) []byte {
		w.Reset()
		w.Status = 200
		w.SetHeader("content-type", "application/json")
		w.SetHeader("x-long", value)
		w.Body = bytebuf.Put(w.Body, body)
		return w.EncodeInterned(&tab)
	}
	check := func(out []byte, body string, inPlace bool) {
		t.Helper()
		plain, err := cache.Expand(out)
		if err != nil {
			t.Fatal(err)
		}
		d, err := DecodeResponse(plain)
		if err != nil || string(d.Body) != body || d.Header("content-type") != "application/json" {
			t.Fatalf("expanded: %v %q %v", err, d.Body, d.Headers)
		}
		if got := &out[len(out)-len(body)] == &w.Body[0]; got != inPlace {
			t.Fatalf("body in place: %v, want %v", got, inPlace)
		}
	}
	big := strings.Repeat("x", 5000)
	check(fill(big, strings.Repeat("v", 200)), big, false) // no place yet: copied
	check(fill(big, strings.Repeat("v", 200)), big, true)
	check(fill(big, strings.Repeat("w", 1100)), big, false) // headers longer than the room
	huge := strings.Repeat("z", 20000)
	check(fill(huge, "a"), huge, false) // outgrew its place
	check(fill(huge, "a"), huge, true)
	check(fill("[]", "a"), "[]", true)
}

// TestInternedFixedBlockSkipsCompare: a fixed block whose slots have not changed goes as
// hits without its bytes compared (the module's copy of a slot is made wrong here, which
// the compare would see), and one whose slot was replaced goes again as stores.
func TestInternedFixedBlockSkipsCompare(t *testing.T) {
	var w Response
	var tab HeaderTable
	var c HeaderCache
	block := NewHeaders("content-type", "application/json", "x-content-type-options", "nosniff")
	answer := func() (kinds []byte) {
		w.Reset()
		w.Status = 200
		w.SetHeader("x-first", "1")
		w.SetHeaders(&block)
		w.Body = append(w.Body, "{}"...)
		want := append([]byte(nil), w.Encode()...)
		in := w.EncodeInterned(&tab)
		for off, n := 12, 0; n < w.nhdr; n++ {
			kinds = append(kinds, in[off+2])
			off += 4
			if in[off-2] != entryHit {
				_, next, _ := ReadField(in, off)
				_, off, _ = ReadField(in, next)
			}
		}
		got, err := c.Expand(in)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("expanded %q, %v; want %q", got, err, want)
		}
		return kinds
	}
	if k := answer(); string(k) != string([]byte{entryStore, entryStore, entryStore}) {
		t.Fatalf("first answer: kinds %v, want three stores", k)
	}
	slot := int(tab.last[1])
	tab.data[slot*maxSlotPair+8] ^= 0x20 // the module's copy only: a compare would now miss
	if k := answer(); string(k) != string([]byte{entryHit, entryHit, entryHit}) {
		t.Fatalf("second answer: kinds %v, want three hits", k)
	}
	tab.gen[slot]++ // as if another pair had replaced it: now the bytes are compared
	if k := answer(); string(k) != string([]byte{entryHit, entryStore, entryHit}) {
		t.Fatalf("after its slot changed: kinds %v, want the block's first pair (whose copy is wrong) stored again", k)
	}
	if k := answer(); string(k) != string([]byte{entryHit, entryHit, entryHit}) {
		t.Fatalf("then: kinds %v, want three hits", k)
	}
	// changed in place (Add, or Reset and refilled as the rate-limit block is), the block
	// is compared again: the wrong copy is seen and its pair stored, the new one too
	slot = int(tab.last[1])
	tab.data[slot*maxSlotPair+8] ^= 0x20
	block.Add("x-more", []byte("1"))
	if k := answer(); string(k) != string([]byte{entryHit, entryStore, entryHit, entryStore}) {
		t.Fatalf("after Add: kinds %v, want the wrong copy and the new pair stored", k)
	}
	if k := answer(); string(k) != string([]byte{entryHit, entryHit, entryHit, entryHit}) {
		t.Fatalf("then: kinds %v, want four hits", k)
	}
	slot = int(tab.last[1])
	tab.data[slot*maxSlotPair+8] ^= 0x20
	block.Reset()
	block.Add("content-type", []byte("application/json"))
	block.Add("x-content-type-options", []byte("nosniff"))
	block.Add("x-more", []byte("1"))
	if k := answer(); string(k) != string([]byte{entryHit, entryStore, entryHit, entryHit}) {
		t.Fatalf("after Reset: kinds %v, want the wrong copy stored", k)
	}
	// another block's first pair takes the next entry of the table's blocks: each
	// keeps its own, and the first still goes as hits
	other := NewHeaders("x-other", "2")
	w.Reset()
	w.Status = 200
	w.SetHeaders(&other)
	w.EncodeInterned(&tab)
	if other.at == block.at {
		t.Fatalf("two blocks share entry %d", other.at)
	}
	if k := answer(); string(k) != string([]byte{entryHit, entryHit, entryHit, entryHit}) {
		t.Fatalf("after another block: kinds %v, want four hits", k)
	}
}
