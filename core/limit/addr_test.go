package limit

import (
	"encoding/binary"
	"math/rand"
	"net/netip"
	"strings"
	"testing"
)

func TestClientOf(t *testing.T) {
	v4 := func(a, b, c, d byte) Key {
		return Key{0, 0xffff<<32 | uint64(a)<<24 | uint64(b)<<16 | uint64(c)<<8 | uint64(d)}
	}
	v6 := func(hi uint64) Key { return Key{hi, 0} }
	cases := []struct {
		in   string
		want Key
		text string
	}{
		{"203.0.113.7", v4(203, 0, 113, 7), "203.0.113.7"},
		{"::ffff:203.0.113.7", v4(203, 0, 113, 7), "203.0.113.7"},
		{"0.0.0.0", v4(0, 0, 0, 0), "0.0.0.0"},
		{"2001:db8::1", v6(0x20010db800000000), "2001:db8::/64"},
		{"2001:DB8::1", v6(0x20010db800000000), "2001:db8::/64"},
		{"2001:0db8:0000:0000:ffff:ffff:ffff:ffff", v6(0x20010db800000000), "2001:db8::/64"},
		{"2001:db8:0:1::1", v6(0x20010db800000001), "2001:db8:0:1::/64"},
		{"2001:db8:0:1:2:3:4.5.6.7", v6(0x20010db800000001), "2001:db8:0:1::/64"},
		{"::1", v6(0), "::/64"},
		{"", Shared, "unknown"},
		{"unknown", Shared, "unknown"},
		{"1.2.3", Shared, "unknown"},
		{"1.2.3.4.5", Shared, "unknown"},
		{"01.2.3.4", Shared, "unknown"},
		{" 1.2.3.4", Shared, "unknown"},
		{"256.1.1.1", Shared, "unknown"},
		{"fe80::1%eth0", Shared, "unknown"},
		{"2001:db8::/64", Shared, "unknown"},
		{"2001:db8::1, 2001:db8::2", Shared, "unknown"},
		{strings.Repeat("1", 1000), Shared, "unknown"},
		{"2001:db8::g", Shared, "unknown"},
	}
	for _, c := range cases {
		got := ClientOf(c.in)
		if got != c.want {
			t.Errorf("ClientOf(%q) = %x, want %x", c.in, got, c.want)
		}
		if text := string(appendClient(nil, got)); text != c.text {
			t.Errorf("ClientOf(%q) reads %q in KV keys, want %q", c.in, text, c.text)
		}
		if back, ok := parseClient(c.text); !ok || back != got {
			t.Errorf("parseClient(%q) = %x %v, want %x", c.text, back, ok, got)
		}
	}
	for _, bad := range []string{"", "x", "2001:db8::1", "2001:db8::1/48", "1.2.3.4/64", "::ffff:1.2.3.4/64", "::ffff:1.2.3.4"} {
		if k, ok := parseClient(bad); ok {
			t.Errorf("parseClient(%q) = %x, want not ok", bad, k)
		}
	}
}

func TestClientOfAllocatesNothing(t *testing.T) {
	for _, h := range []string{"203.0.113.7", "2001:db8::1", ""} {
		if n := testing.AllocsPerRun(100, func() { ClientOf(h) }); n != 0 {
			t.Errorf("ClientOf(%q): %v allocations", h, n)
		}
	}
}

// refClientOf is ClientOf by net/netip: the reference the hand-written parser must match.
func refClientOf(h string) Key {
	a, err := netip.ParseAddr(h)
	if err != nil || a.Zone() != "" {
		return Shared
	}
	a = a.Unmap()
	if a.Is4() {
		b := a.As4()
		return Key{0, 0xffff<<32 | uint64(binary.BigEndian.Uint32(b[:]))}
	}
	b := a.As16()
	return Key{binary.BigEndian.Uint64(b[:8]), 0}
}

// refText is the KV text of k by net/netip.
func refText(k Key) string {
	if k == Shared {
		return "unknown"
	}
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], k.Hi)
	binary.BigEndian.PutUint64(b[8:], k.Lo)
	if k.Hi == 0 && k.Lo>>32 == 0xffff {
		return netip.AddrFrom16(b).Unmap().String()
	}
	return netip.PrefixFrom(netip.AddrFrom16(b), 64).String()
}

func checkClientOf(t *testing.T, h string) {
	got, want := ClientOf(h), refClientOf(h)
	if got != want {
		t.Fatalf("ClientOf(%q) = %x, net/netip says %x", h, got, want)
	}
	text := string(appendClient(nil, got))
	if text != refText(got) {
		t.Fatalf("KV text of %q = %q, net/netip says %q", h, text, refText(got))
	}
	if back, ok := parseClient(text); !ok || back != got {
		t.Fatalf("parseClient(%q) = %x %v, want %x", text, back, ok, got)
	}
}

// TestClientOfMatchesNetip: random addresses in many spellings, and their mutations.
func TestClientOfMatchesNetip(t *testing.T) {
	rnd := rand.New(rand.NewSource(2))
	for i := 0; i < 200_000; i++ {
		var b [16]byte
		rnd.Read(b[:])
		for j := range b { // many zero bytes: runs of zero groups
			if rnd.Intn(3) == 0 {
				b[j] = 0
			}
		}
		a := netip.AddrFrom16(b)
		if rnd.Intn(4) == 0 {
			a = netip.AddrFrom4([4]byte(b[:4]))
		}
		forms := []string{a.String(), a.StringExpanded(), strings.ToUpper(a.String())}
		if a.Is6() {
			forms = append(forms, netip.AddrFrom16(b).String()[:0]+a.StringExpanded()[:30]+netip.AddrFrom4([4]byte(b[12:])).String())
		} else {
			forms = append(forms, "::ffff:"+a.String(), "::FFFF:"+a.String())
		}
		for _, f := range forms {
			checkClientOf(t, f)
			m := []byte(f) // one mutation: a byte changed, dropped or doubled
			switch p := rnd.Intn(len(m)); rnd.Intn(3) {
			case 0:
				m[p] = "0123456789abcdefABCDEF:.%x /"[rnd.Intn(28)]
			case 1:
				m = append(m[:p], m[p+1:]...)
			case 2:
				m = append(m[:p+1], m[p:]...)
			}
			checkClientOf(t, string(m))
		}
	}
}

func FuzzClientOf(f *testing.F) {
	for _, s := range []string{"1.2.3.4", "::", "::1", "1::", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6::8",
		"1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8", "1:2:3:4:5:6:1.2.3.4", "1::1.2.3.4", "::1.2.3.4",
		"1.2.3.04", "fe80::1%eth0", "1:2:3:4:5:6:7:1.2.3.4", "12345::", "1:::2", ":1::", "1::2::3", "0.0.0.0", "255.255.255.256"} {
		f.Add(s)
	}
	f.Fuzz(checkClientOf)
}

func BenchmarkClientOfIPv6(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ClientOf("2001:db8:85a3:8d3:1319:8a2e:370:7348")
	}
}

// TestParseIPFullForm holds parseIP to net/netip on all 16 bytes for addresses written
// in full (parseV6Full's fast path, whose errors fall back to parseV6) and for each
// with one byte changed, in upper and lower case.
func TestParseIPFullForm(t *testing.T) {
	rnd := rand.New(rand.NewSource(7))
	for i := 0; i < 100_000; i++ {
		var b [16]byte
		rnd.Read(b[:])
		s := netip.AddrFrom16(b).StringExpanded()
		if rnd.Intn(2) == 0 {
			s = strings.ToUpper(s)
		}
		m := []byte(s)
		m[rnd.Intn(len(m))] = "0123456789abcdefABCDEFgG:.% "[rnd.Intn(28)]
		for _, f := range []string{s, string(m)} {
			got, ok := parseIP(f)
			a, err := netip.ParseAddr(f)
			if ok != (err == nil && a.Zone() == "") || (ok && got != a.As16()) {
				t.Fatalf("parseIP(%q) = %x %v, net/netip %v %v", f, got, ok, a, err)
			}
		}
	}
}

// TestParseV6FullEveryByte holds parseIP and ClientOf to net/netip for full-form
// addresses with each of their 39 bytes replaced by every byte value in turn: a wrong
// range in hexPair's tests, a carry between its bytes or a colon not checked shows here.
func TestParseV6FullEveryByte(t *testing.T) {
	rnd := rand.New(rand.NewSource(30))
	for i := 0; i < 24; i++ {
		var b [16]byte
		rnd.Read(b[:])
		s := netip.AddrFrom16(b).StringExpanded()
		if i%2 == 1 {
			s = strings.ToUpper(s)
		}
		if hi, lo, ok := parseV6Full(s); !ok || hi != binary.BigEndian.Uint64(b[:8]) || lo != binary.BigEndian.Uint64(b[8:]) {
			t.Fatalf("parseV6Full(%q) = %x %x %v", s, hi, lo, ok)
		}
		m := []byte(s)
		for pos := range m {
			for c := 0; c < 256; c++ {
				m[pos] = byte(c)
				f := string(m)
				got, ok := parseIP(f)
				a, err := netip.ParseAddr(f)
				if ok != (err == nil && a.Zone() == "") || (ok && got != a.As16()) {
					t.Fatalf("parseIP(%q) = %x %v, net/netip %v %v", f, got, ok, a, err)
				}
				if k, want := ClientOf(f), refClientOf(f); k != want {
					t.Fatalf("ClientOf(%q) = %x, net/netip says %x", f, k, want)
				}
			}
			m[pos] = s[pos]
		}
	}
}
