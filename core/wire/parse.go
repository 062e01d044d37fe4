package wire

// ParseInt and ParseBool read what strconv.ParseInt(s, 10, 64) and strconv.ParseBool
// read, with the same results, but answer ok instead of an error. Hand-written because
// strconv's wrappers build a *NumError by comparing the error they got with ErrSyntax,
// ErrRange, ... (strconv.toError), and under TinyGo an interface comparison links
// internal/reflectlite: ~12 KB of the module for four call sites (the config's vars, the
// snapshot's integers, jsonv's Bool), each of which only needs to know whether the text
// was valid. TestParseIntMatchesStrconv holds them to strconv.

// ParseInt returns the decimal integer s (an optional sign, then digits), and false
// when s is not one or does not fit an int64.
func ParseInt(s string) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (1<<63)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
		if n > 1<<63 {
			return 0, false
		}
	}
	if neg {
		return -int64(n), true // -(1<<63) wraps to itself: math.MinInt64
	}
	if n == 1<<63 {
		return 0, false
	}
	return int64(n), true
}

// ParseBool returns the boolean s spells as strconv.ParseBool reads it (1, t, T, TRUE,
// true, True, 0, f, F, FALSE, false, False), and false for anything else.
func ParseBool(s string) (value, ok bool) {
	switch s {
	case "1", "t", "T", "TRUE", "true", "True":
		return true, true
	case "0", "f", "F", "FALSE", "false", "False":
		return false, true
	}
	return false, false
}
