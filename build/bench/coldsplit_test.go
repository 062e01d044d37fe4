package main

import "testing"

func TestQuartiles(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want string
	}{
		{[]float64{5, 1, 4, 2, 3}, "3.0 [2.0, 4.0]"},
		{[]float64{9, 1, 8, 2, 7, 3, 6, 4, 5}, "5.0 [3.0, 7.0]"},
		{[]float64{2.25}, "2.2 [2.2, 2.2]"},
	} {
		if got := quartiles(c.in); got != c.want {
			t.Errorf("quartiles(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
