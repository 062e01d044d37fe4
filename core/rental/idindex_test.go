package rental

import "testing"

func TestIDIndex(t *testing.T) {
	cases := []struct {
		name  string
		ids   []int64
		dense bool
	}{
		{"empty", nil, true},
		{"one", []int64{7}, true},
		{"dense from 1", []int64{1, 2, 3, 4, 5, 6, 7}, true},
		{"dense from 100", []int64{100, 101, 102}, true},
		{"gap", []int64{1, 2, 4, 8, 9}, false},
		{"sparse, large", []int64{3, 1 << 40, 1<<53 - 1}, false},
		{"negative and dense", []int64{-2, -1, 0, 1}, true},
	}
	probes := []int64{-1 << 63, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 99, 100, 102, 103, 1 << 40, 1<<53 - 1, 1 << 62, 1<<63 - 1}
	for _, c := range cases {
		x := newIDIndex(c.ids)
		if x.dense != c.dense {
			t.Errorf("%s: dense %v, want %v", c.name, x.dense, c.dense)
		}
		for _, id := range append(probes, c.ids...) {
			want, wantOK := int32(0), false
			for i, v := range c.ids { // the map this index replaced, by hand
				if v == id {
					want, wantOK = int32(i), true
				}
			}
			got, ok := x.find(id)
			if ok != wantOK || (ok && got != want) {
				t.Errorf("%s: find(%d) = %d, %v; want %d, %v", c.name, id, got, ok, want, wantOK)
			}
		}
	}
}

// TestBundledIndexes holds the generated catalog's indexes to its lists.
func TestBundledIndexes(t *testing.T) {
	c := Bundled()
	for i := range c.depots {
		if j, ok := c.depotIdx.find(c.depots[i].ID); !ok || int(j) != i {
			t.Errorf("depot %d: index %d, %v; want %d", c.depots[i].ID, j, ok, i)
		}
	}
	for i := range c.vehicles {
		if j, ok := c.vehicleIdx.find(c.vehicles[i].ID); !ok || int(j) != i {
			t.Errorf("vehicle %d: index %d, %v; want %d", c.vehicles[i].ID, j, ok, i)
		}
	}
	if len(c.depotIdx.ids) != len(c.depots) || len(c.vehicleIdx.ids) != len(c.vehicles) {
		t.Errorf("index lengths %d, %d; lists %d, %d", len(c.depotIdx.ids), len(c.vehicleIdx.ids), len(c.depots), len(c.vehicles))
	}
	if _, ok := c.depotIdx.find(0); ok {
		t.Error("depot 0 found")
	}
}

func TestIDNames(t *testing.T) {
	m := map[int64]string{33: "c", 21: "a", 22: "b", 1 << 40: "far"}
	x := newIDNames(m)
	for id, want := range m {
		if got, ok := x.name(id); !ok || got != want {
			t.Errorf("name(%d) = %q, %v; want %q", id, got, ok, want)
		}
	}
	for _, id := range []int64{0, 20, 23, 34, -21, 1<<40 + 1} {
		if got, ok := x.name(id); ok {
			t.Errorf("name(%d) = %q, want absent", id, got)
		}
	}
	empty := newIDNames(nil)
	if got, ok := empty.name(1); ok {
		t.Errorf("empty: name(1) = %q", got)
	}
	// The bundled catalog's names, as its extras list them.
	c := Bundled()
	if got, ok := c.insuranceIDs.name(33); !ok || got != "Zero excess (NZ$0 excess)" {
		t.Errorf("bundled insurance 33: %q, %v", got, ok)
	}
}
