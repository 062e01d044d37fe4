package text

import (
	"strconv"
	"unicode/utf8"
)

// Sprintf is fmt.Sprintf for the verbs the domain's messages use: %s (a string, an
// error or a String method), %d (any integer type), %q (a string, quoted as
// strconv.Quote does), %% and explicit argument indexes (%[2]s). Anything else is
// written as fmt writes a bad verb, "%!v(...)"; TestSprintfMatchesFmt holds it to fmt.
// fmt itself would add tens of KB to the TinyGo module, paid at every cold start.
func Sprintf(format string, args ...any) string {
	b := make([]byte, 0, len(format)+16*len(args))
	n := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		if i+1 == len(format) {
			b = append(b, "%!(NOVERB)"...)
			continue
		}
		i++
		// An explicit argument index, %[n]d: the n-th argument (1-based), then the next.
		if format[i] == '[' {
			j := i + 1
			k := 0
			for j < len(format) && format[j] >= '0' && format[j] <= '9' && k < 1000 {
				k = k*10 + int(format[j]-'0')
				j++
			}
			if j+1 < len(format) && format[j] == ']' && k >= 1 {
				n = k - 1
				i = j + 1
			} else {
				b = append(b, "%!(BADINDEX)"...)
				continue
			}
		}
		verb := format[i]
		if verb == '%' {
			b = append(b, '%')
			continue
		}
		if n >= len(args) {
			b = append(b, "%!"...)
			b = append(b, verb)
			b = append(b, "(MISSING)"...)
			continue
		}
		b = appendArg(b, verb, args[n])
		n++
	}
	return string(b)
}

func appendArg(b []byte, verb byte, a any) []byte {
	switch verb {
	case 's', 'q':
		var s string
		switch v := a.(type) {
		case string:
			s = v
		case error:
			s = v.Error()
		case interface{ String() string }:
			s = v.String()
		default:
			return badVerb(b, verb)
		}
		if verb == 'q' {
			return strconv.AppendQuote(b, s)
		}
		return append(b, s...)
	case 'd':
		if neg, mag, ok := integer(a); ok {
			if neg {
				b = append(b, '-')
			}
			return strconv.AppendUint(b, mag, 10)
		}
	}
	return badVerb(b, verb)
}

// integer returns a as a sign and a magnitude, for every integer type.
func integer(a any) (neg bool, mag uint64, ok bool) {
	var i int64
	switch v := a.(type) {
	case int:
		i = int64(v)
	case int8:
		i = int64(v)
	case int16:
		i = int64(v)
	case int32:
		i = int64(v)
	case int64:
		i = v
	case uint:
		return false, uint64(v), true
	case uint8:
		return false, uint64(v), true
	case uint16:
		return false, uint64(v), true
	case uint32:
		return false, uint64(v), true
	case uint64:
		return false, v, true
	default:
		return false, 0, false
	}
	if i < 0 {
		return true, uint64(-(i + 1)) + 1, true // -(i+1) fits for the smallest int64 too
	}
	return false, uint64(i), true
}

func badVerb(b []byte, verb byte) []byte {
	b = append(b, "%!"...)
	b = append(b, verb)
	return append(b, "(?)"...)
}

// errorString is the error Errorf returns.
type errorString string

func (e errorString) Error() string { return string(e) }

// Errorf is Sprintf as an error (no %w: the domain's errors wrap nothing).
func Errorf(format string, args ...any) error { return errorString(Sprintf(format, args...)) }

// maxEcho is how many runes of client input an error message echoes.
const maxEcho = 40

// QuoteClean returns client input for an error message: Clean, in double quotes.
// JSON escaping happens when the message is written.
func QuoteClean(s string) string { return `"` + Clean(s) + `"` }

// Clean returns client input for an error message: cut to 40 runes, control
// characters and invalid UTF-8 replaced by '?'.
func Clean(s string) string {
	out := make([]byte, 0, len(s))
	n := 0
	for i := 0; i < len(s); {
		if n == maxEcho {
			out = append(out, "..."...)
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || r < 0x20 || r == 0x7f {
			r = '?'
		}
		out = utf8.AppendRune(out, r)
		i += size
		n++
	}
	return string(out)
}
