package text

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
