package abi

import (
	"bytes"
	"math"
	"reflect"
	"strconv"
	"testing"
)

func TestRequestRoundTrip(t *testing.T) {
	in := Request{Method: "GET", Target: "/api/agent/quotes?vehicle_id=5",
		Headers: []Header{{"cf-connecting-ip", "203.0.113.9"}, {"if-none-match", `"abc"`}},
		Body:    []byte("{}")}
	var out Request
	if err := DecodeRequest(EncodeRequest(nil, &in), &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("DecodeRequest(EncodeRequest(%+v)) = %+v", in, out)
	}
	if got := out.Header("if-none-match"); got != `"abc"` {
		t.Errorf("Header(if-none-match) = %q", got)
	}
}

// The glue passes request.url whole; DecodeRequest keeps its path and query.
func TestDecodeRequestTargetOfURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://api.example.com/api/agent/quotes?vehicle_id=5&x=a://b", "/api/agent/quotes?vehicle_id=5&x=a://b"},
		{"http://127.0.0.1:8787/api/agent/depots", "/api/agent/depots"},
		{"http://[::1]:8787/", "/"},
		{"http://host", "/"},
		{"https://h/a//b:c", "/a//b:c"},
		{"/api/agent/depots?u=http://x/", "/api/agent/depots?u=http://x/"},
		{"*", "*"},
		{"", ""},
		{"mailto:x", "mailto:x"},
		{"a:/b", "a:/b"},
		{"https://campervan-agent-api.example.workers.dev/api/agent/depots", "/api/agent/depots"},
		{"http://abcdefg/x", "/x"},        // the host's '/' at the 8th byte after "//"
		{"http://abcdefgh/x", "/x"},       // at the 9th: the second word
		{"http://abcdefghijklmnopq", "/"}, // a long host without a path
	} {
		var out Request
		if err := DecodeRequest(EncodeRequest(nil, &Request{Method: "GET", Target: c.in}), &out); err != nil {
			t.Fatal(err)
		}
		if out.Target != c.want {
			t.Errorf("target of %q = %q, want %q", c.in, out.Target, c.want)
		}
	}
}

func TestDecodeRequestRejectsTruncated(t *testing.T) {
	full := EncodeRequest(nil, &Request{Method: "GET", Target: "/x", Headers: []Header{{"a", "b"}}})
	for n := 0; n < len(full); n++ {
		var r Request
		if err := DecodeRequest(full[:n], &r); err == nil {
			t.Errorf("DecodeRequest of the first %d of %d bytes: no error", n, len(full))
		}
	}
	// A length field pointing past the end.
	bad := []byte{0xff, 0xff, 0xff, 0xff, 'G'}
	var r Request
	if err := DecodeRequest(bad, &r); err == nil {
		t.Error("DecodeRequest with a huge length: no error")
	}
}

func TestResponseEncodeDecode(t *testing.T) {
	var w Response
	for round := 0; round < 2; round++ { // the second round reuses the buffers
		w.Reset()
		w.Status = 201 + round
		w.SetHeader("content-type", "application/json")
		w.SetHeaderInt("x-n", -42)
		w.SetHeader("etag", `"e"`)
		w.Body = append(w.Body, `{"ok":true}`...)
		d, err := DecodeResponse(w.Encode())
		if err != nil {
			t.Fatal(err)
		}
		want := DecodedResponse{Status: 201 + round, Body: []byte(`{"ok":true}`),
			Headers: []Header{{"content-type", "application/json"}, {"x-n", "-42"}, {"etag", `"e"`}}}
		if !reflect.DeepEqual(d, want) {
			t.Errorf("round %d: decoded %+v, want %+v", round, d, want)
		}
	}
}

func TestResponseEncodeAllocatesNothingOnceGrown(t *testing.T) {
	var w Response
	fill := func() {
		w.Reset()
		w.Status = 200
		w.SetHeader("content-type", "application/json")
		w.SetHeaderInt("x-ratelimit-remaining", 99)
		w.Body = append(w.Body, "[1,2,3]"...)
		w.Encode()
	}
	fill()
	if n := testing.AllocsPerRun(100, fill); n != 0 {
		t.Errorf("building and encoding a response allocates %v times", n)
	}
}

// TestSetHeadersMatchesSetHeader: a pre-encoded block adds the same headers, in the
// same order, as SetHeader one by one.
func TestSetHeadersMatchesSetHeader(t *testing.T) {
	h := NewHeaders("content-type", "application/json", "x-a", "", "x-long", string(make([]byte, 300)))
	var a, b Response
	for _, w := range []*Response{&a, &b} {
		w.Reset()
		w.Status = 200
		w.SetHeader(":route", "/x")
	}
	a.SetHeaders(&h)
	b.SetHeader("content-type", "application/json")
	b.SetHeader("x-a", "")
	b.SetHeader("x-long", string(make([]byte, 300)))
	for _, w := range []*Response{&a, &b} {
		w.SetHeaderInt("x-n", 7)
	}
	if !bytes.Equal(a.Encode(), b.Encode()) {
		t.Fatalf("SetHeaders: %q, SetHeader: %q", a.Encode(), b.Encode())
	}
}

// TestAppendDecimal: a header's number is strconv's decimal form, appended after what
// the buffer holds, at every digit count and at both ends of int64.
func TestAppendDecimal(t *testing.T) {
	vs := []int64{0, 1, 9, 10, 99, 100, 60, 1000, -1, -10, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for p := int64(1); p > 0 && p < math.MaxInt64/10; p *= 10 {
		vs = append(vs, p-1, p, p+1, -p)
	}
	for _, v := range vs {
		for _, room := range []int{0, 32} {
			b := append(make([]byte, 0, 3+room), "h: "...)
			if got, want := string(appendDecimal(b, v)), "h: "+strconv.FormatInt(v, 10); got != want {
				t.Fatalf("appendDecimal(%d), room %d = %q, want %q", v, room, got, want)
			}
		}
	}
}
