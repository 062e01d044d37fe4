package wire

// ParseInt and ParseBool read what strconv.ParseInt(s, 10, 64) and strconv.ParseBool
// read, with the same results, but answer ok instead of an error. Hand-written because
// strconv's wrappers build a *NumError by comparing the error they got with ErrSyntax,
// ErrRange, ... (strconv.toError), and under TinyGo an interface comparison links
// internal/reflectlite: ~12 KB of the module for four call sites (the config's vars, the
// snapshot's integers, jsonv's Bool), each of which only needs to know whether the text
// was valid. TestParseIntMatchesStrconv holds them to strconv.

// ParseInt returns the decimal integer s (an optional sign, then digits), and false
// when s is not one or does not fit an int64. The digits are ScanDigits'.
func ParseInt(s string) (int64, bool) {
	neg := s != "" && s[0] == '-'
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if neg && s == "9223372036854775808" { // -(1<<63): its magnitude is no int64
		return -1 << 63, true
	}
	n, ok := Digits(s, 1<<63-1)
	if !ok {
		return 0, false
	}
	if neg {
		return -n, true
	}
	return n, true
}

// Unhex returns the value of the hexadecimal digit c, or -1.
func Unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
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
