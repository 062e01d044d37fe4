package text

// ParseInt and ParseBool read what strconv.ParseInt(s, 10, 64) and strconv.ParseBool
// read, with the same results, but answer ok instead of an error: strconv's wrappers
// compare errors as interfaces, which under TinyGo links internal/reflectlite into the
// module, and every caller only needs to know whether the text was valid.
// TestParseIntMatchesStrconv holds them to strconv.

// ParseInt returns the decimal integer s (an optional sign, then digits), and false
// when s is not one or does not fit an int64.
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

// ScanDigits reads the ASCII digits at the start of s while their value stays at
// most max, and returns that value and how many bytes it read: i == len(s) when s
// is all digits within max; otherwise s[i] is the first non-digit, or the digit
// that would have exceeded max. It is the one digit scanner of core.
//
//go:inline
func ScanDigits(s string, max int64) (n int64, i int) {
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return n, i
		}
		d := int64(c - '0')
		if d > max || n > (max-d)/10 { // n*10+d > max, asked without computing n*10 (it may overflow)
			return n, i
		}
		n = n*10 + d
	}
	return n, i
}

// Digits returns the value of s when s is a non-empty run of ASCII digits of value
// at most max.
//
//go:inline
func Digits(s string, max int64) (int64, bool) {
	n, i := ScanDigits(s, max)
	return n, i == len(s) && s != ""
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

// FloorDiv returns a/b rounded towards negative infinity (b != 0).
func FloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
