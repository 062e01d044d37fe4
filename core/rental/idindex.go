package rental

import "slices"

// idIndex finds an id's position in a list sorted by id (the depots, the vehicles).
// It is not a map: under TinyGo a map lookup hashes and compares the key through
// runtime calls, and a map literal is built entry by entry at instance start, where
// the Catalog's generated literal (bundled_gen.go) holds an idIndex as it is. The
// bundled snapshot's ids run 1..n, so a lookup is a subtraction and one compare; other
// ids are found by binary search.
type idIndex struct {
	ids   []int64 // ascending, distinct
	dense bool    // ids[i] == ids[0]+i for every i
}

// newIDIndex returns the index of ids, which must be ascending and distinct.
func newIDIndex(ids []int64) idIndex {
	x := idIndex{ids: ids, dense: true}
	for i := range ids {
		if ids[i] != ids[0]+int64(i) {
			x.dense = false
			break
		}
	}
	return x
}

// find returns the position of id and whether it is there.
//
//go:inline
func (x *idIndex) find(id int64) (int32, bool) {
	i := x.index(id)
	return i, i >= 0
}

// index returns the position of id, or -1: find's one result (TinyGo returns two
// results through memory, and find is small enough to be inlined where it is called).
func (x *idIndex) index(id int64) int32 {
	if x.dense {
		if len(x.ids) == 0 {
			return -1
		}
		i := uint64(id - x.ids[0])
		if i < uint64(len(x.ids)) && id >= x.ids[0] { // id >= ids[0]: no wrap-around from a far negative id
			return int32(i)
		}
		return -1
	}
	lo, hi := 0, len(x.ids)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.ids[m] < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(x.ids) && x.ids[lo] == id {
		return int32(lo)
	}
	return -1
}

// idNames is the name of every id of a list (the accessories, the insurance plans),
// for messages about an id a vehicle does not offer. Like idIndex, it is a literal in
// bundled_gen.go rather than a map built at every instance start.
type idNames struct {
	idx   idIndex
	names []string // names[i] is the name of idx.ids[i]
}

// newIDNames returns the names of m's ids.
func newIDNames(m map[int64]string) idNames {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = m[id]
	}
	return idNames{idx: newIDIndex(ids), names: names}
}

// name returns the name of id and whether id is there.
func (x *idNames) name(id int64) (string, bool) {
	i, ok := x.idx.find(id)
	if !ok {
		return "", false
	}
	return x.names[i], true
}
