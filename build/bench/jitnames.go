package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// -jit-names: where the project's own JIT code and builtins spend a request on
// workerd, by function. With -instructions, both workerds run with V8's
// --perf-basic-prof, which writes /tmp/perf-<pid>.map (the start, size and name of
// every piece of code V8 generates: the glue's functions by their minified names and
// source positions, builtins, Liftoff's wasm functions); callgrind names code without
// symbols by its address, so each such function's self cost is charged to the map's
// name that covers it. TurboFan's wasm code is not in the map (V8 does not log it
// there): it stays one line, "wasm (TurboFan, unnamed)". Diagnosis only: the flag
// makes V8 log each compile, which is not what runs at the edge. Unlike
// build/bench/calls.mjs under node, it charges the glue's loops to the functions that
// run them in workerd.
var jitNamesFlag = "--perf-basic-prof"

// jitReport returns the top JIT functions of a callgrind dump of process pid over
// counted requests, as lines "instructions name".
func jitReport(text []byte, pid string, counted int, top int) ([]string, error) {
	type ent struct {
		start, size uint64
		name        string
	}
	f, err := os.Open("/tmp/perf-" + pid + ".map")
	if err != nil {
		return nil, fmt.Errorf("-jit-names: %v", err)
	}
	defer f.Close()
	var ents []ent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		p := strings.SplitN(sc.Text(), " ", 3)
		if len(p) != 3 {
			continue
		}
		a, err1 := strconv.ParseUint(p[0], 16, 64)
		s, err2 := strconv.ParseUint(p[1], 16, 64)
		if err1 == nil && err2 == nil {
			ents = append(ents, ent{a, s, p[2]})
		}
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].start < ents[j].start })
	lookup := func(a uint64) string {
		i := sort.Search(len(ents), func(i int) bool { return ents[i].start > a }) - 1
		if i >= 0 && a < ents[i].start+ents[i].size {
			return tierSuffix.ReplaceAllString(ents[i].name, "")
		}
		return "wasm (TurboFan, unnamed)"
	}
	byName := map[string]float64{}
	for fn, v := range selfCosts(text) {
		switch {
		case jitAddr.MatchString(fn):
			a, _ := strconv.ParseUint(fn[2:], 16, 64)
			byName[lookup(a)] += v / float64(counted)
		case strings.HasPrefix(fn, "Builtins_"):
			byName[fn] += v / float64(counted)
		}
	}
	type row struct {
		name string
		v    float64
	}
	var rows []row
	var total float64
	for k, v := range byName {
		rows = append(rows, row{k, v})
		total += v
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].v > rows[j].v })
	out := []string{fmt.Sprintf("%.0f JIT code and builtins in all", total)}
	for i := 0; i < len(rows) && i < top; i++ {
		out = append(out, fmt.Sprintf("%.0f %s", rows[i].v, rows[i].name))
	}
	return out, nil
}

var (
	jitAddr    = regexp.MustCompile(`^0x[0-9a-f]+$`)
	tierSuffix = regexp.MustCompile(`-\d+-(turbofan|liftoff)$`)
)

// jitReports holds jitReport's lines by servedCount's tag (endpoint-side).
var jitReports = map[string][]string{}
