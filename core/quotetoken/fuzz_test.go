package quotetoken

import (
	"bytes"
	"encoding/base64"
	"slices"
	"testing"
)

// FuzzVerify: any string is refused or accepted without a panic; an accepted one is
// the very token Sign writes for what it decoded to (one spelling per quote).
func FuzzVerify(f *testing.F) {
	k := mustKeys(f, TestKeys)
	q := example()
	f.Add(string(k.Sign(nil, &q)))
	f.Add("")
	f.Add("AQE")
	f.Add("AQECA7uiAQsFIQIBAgICjKQUrLQLv4CEjtgGiA4BAgMEBQYHCK-ISz7ECXO7fcr5n-zoQlM=")
	f.Fuzz(func(t *testing.T, tok string) {
		var got Quote
		r := k.Verify(tok, &got)
		if r > BadPayload {
			t.Fatalf("result %d", r)
		}
		if r == OK {
			if again := string(k.Sign(nil, &got)); again != tok {
				t.Fatalf("accepted %q, which re-signs as %q", tok, again)
			}
		}
	})
}

// FuzzDecode: the payload decoder on any bytes (behind the MAC in Verify, so only
// reachable here): no panic, and what it accepts re-encodes to the same bytes.
func FuzzDecode(f *testing.F) {
	q := example()
	q.KeyID = 1
	f.Add(appendPayload(nil, &q))
	f.Add([]byte{1, 1})
	f.Add([]byte{1, 1, 0x80, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		var got Quote
		if !decodePayload(b, &got) {
			return
		}
		if again := appendPayload(nil, &got); !bytes.Equal(again, b) {
			t.Fatalf("decoded %x re-encodes as %x", b, again)
		}
	})
}

// FuzzRoundTrip: every quote within the bounds signs and verifies back to itself, and
// its token is at most MaxLen characters when its ids and dates are below 2^21.
func FuzzRoundTrip(f *testing.F) {
	k := mustKeys(f, TestKeys)
	f.Add(int64(2), int64(3), int64(20795), uint16(11), int64(5), int64(33), []byte{1, 2, 2, 2}, int64(332300), uint32(7), int64(1795392000), uint32(1800), uint64(1))
	f.Fuzz(func(t *testing.T, pick, drop, day int64, days uint16, vehicle, insurance int64, lines []byte, total int64, inv uint32, issued int64, ttl uint32, nonce uint64) {
		in := func(v, min, max int64) int64 {
			if v < min || v > max {
				return min + (v&0x7fffffffffffffff)%(max-min+1)
			}
			return v
		}
		q := Quote{PickUpDepot: in(pick, 1, maxID), DropOffDepot: in(drop, 1, maxID), PickUp: in(day, 0, maxDays),
			VehicleID: in(vehicle, 1, maxID), InsuranceID: in(insurance, 0, maxID), TotalCents: in(total, 0, maxCents),
			Inventory: inv, IssuedAt: in(issued, 0, maxUnix)}
		q.DropOff = q.PickUp + int64(days)
		q.ExpiresAt = q.IssuedAt + int64(ttl)
		for i := 0; i+1 < len(lines) && q.NLines < MaxLines; i += 2 {
			q.Lines[q.NLines] = Line{ID: 1 + int64(lines[i]), Quantity: 1 + int64(lines[i+1]%20)}
			q.NLines++
		}
		for i := range q.Nonce {
			q.Nonce[i] = byte(nonce >> (8 * i))
		}
		tok := string(k.Sign(nil, &q))
		var got Quote
		if r := k.Verify(tok, &got); r != OK && len(tok) <= MaxLen {
			t.Fatalf("%+v: %q refused: %v", q, tok, r)
		} else if r == OK && got != q {
			t.Fatalf("signed %+v, verified %+v", q, got)
		}
		if q.PickUpDepot < 1<<21 && q.DropOffDepot < 1<<21 && q.VehicleID < 1<<21 && q.InsuranceID < 1<<21 && q.DropOff < 1<<21 && len(tok) > MaxLen {
			t.Fatalf("%d characters: %+v", len(tok), q)
		}
		if _, err := base64.RawURLEncoding.DecodeString(tok); err != nil {
			t.Fatalf("not base64url: %q", tok)
		}
	})
}

// FuzzVerify found it: encoding/base64 skips '\r' and '\n', so an id with a line break
// inside was accepted as the id without it.
func TestRegressionVerifyLineBreak(t *testing.T) {
	k := mustKeys(t, TestKeys)
	q := example()
	tok := string(k.Sign(nil, &q))
	var got Quote
	for _, bad := range []string{tok[:11] + "\r" + tok[11:], tok[:11] + "\n" + tok[11:], tok + "\n", "\r\n" + tok} {
		if r := k.Verify(bad, &got); r != Malformed {
			t.Errorf("%q: %v, want Malformed", bad, r)
		}
	}
}

// appendPayload appends the signed fields of q (docs/quote-token.md) to b: payloadAt
// after making room.
func appendPayload(b []byte, q *Quote) []byte {
	n := len(b)
	b = slices.Grow(b, maxPayload)
	return b[:payloadAt(b[:cap(b)], n, q)]
}
