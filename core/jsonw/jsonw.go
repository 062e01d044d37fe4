// Package jsonw writes the JSON of answers: appenders (AppendJSONString, AppendMember,
// AppendInt, AppendMoney), which grow their buffer when it is short, and cursor
// writers (JSONStringAt, IntAt, MoneyAt), which write at an index into room made
// beforehand and never allocate. The byte-buffer primitives under them (Put, PutAt,
// Room, ...) are package bytebuf's. Money stays int64 cents until it is written here.
package jsonw

import (
	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/text"
)

// The appenders are hand-written: under TinyGo, encoding/json uses reflection (large
// and slow), and strconv.AppendInt and AppendQuote allocate on every call. Every one
// appends to b and returns it, allocating only when b grows.

// AppendJSONString appends s as a JSON string (quoted, escaped). Invalid UTF-8 bytes
// are kept as they are in the input: every string written comes from the validated
// snapshot or from the API's own messages, and client input is cleaned by text.Clean
// first.
func AppendJSONString(b []byte, s string) []byte {
	b = bytebuf.PutByte(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
			continue
		}
		b = bytebuf.Put(b, s[start:i])
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default: // control characters and <, >, & (safe to embed in HTML)
			b = append(b, '\\', 'u', '0', '0', text.HexDigits[c>>4], text.HexDigits[c&0xf])
		}
		start = i + 1
	}
	return bytebuf.PutByte(bytebuf.Put(b, s[start:]), '"')
}

// AppendMember appends raw JSON text (such as `,"name":`) and s as a JSON string.
func AppendMember(b []byte, raw, s string) []byte { return AppendJSONString(bytebuf.Put(b, raw), s) }

// AppendInt appends the decimal form of n. Values that fit 32 bits (all ids, counts,
// days and most amounts) take a path of 32-bit divisions, two digits at a time, which
// in wasm is much cheaper than the 64-bit loop.
func AppendInt(b []byte, n int64) []byte {
	if n >= 0 && n <= 1<<32-1 {
		return appendUint32(b, uint32(n))
	}
	b = bytebuf.Room(b, MaxInt)
	return b[:int64At(b[:cap(b)], len(b), n)]
}

func appendUint32(b []byte, n uint32) []byte {
	b = bytebuf.Room(b, 10)
	return b[:uint32At(b[:cap(b)], len(b), n)]
}

// AppendMoney appends cents as a JSON number of NZD with at most two decimals and no
// trailing zeros (12345 -> 123.45, 12000 -> 120, 12050 -> 120.5). It writes the digits
// itself; TestAppendMoneyMatchesDecimal proves it equal to shopspring/decimal's
// rendering (decimal.New(cents, -2).String()), which is the definition: exact
// decimal arithmetic, never float64.
func AppendMoney(b []byte, cents int64) []byte {
	if cents < 0 {
		b = bytebuf.PutByte(b, '-')
		if cents == -cents { // math.MinInt64: its whole dollars and cents, apart
			return bytebuf.Put(b, "92233720368547758.08")
		}
		cents = -cents
	}
	b = AppendInt(b, cents/100)
	frac := cents % 100
	if frac == 0 {
		return b
	}
	b = bytebuf.PutByte(b, '.')
	b = bytebuf.PutByte(b, byte('0'+frac/10))
	if frac%10 != 0 {
		b = bytebuf.PutByte(b, byte('0'+frac%10))
	}
	return b
}
