// Command checkmodule checks the built Worker against the platform's limits, so that a
// catalog too large for them fails `make build` rather than the deploy or the isolate:
//
//   - the script size: the module and the glue gzipped, against the Workers plan's limit
//     (-plan free: 3 MiB, paid: 10 MiB; both count the compressed upload);
//   - the isolate's memory (128 MB on both plans): the glue renews an instance when its
//     memory reaches the renewal threshold (INSTANCE_MEMORY_MIB of wrangler.toml, else
//     the glue's RENEW_MIB, and never below twice the module's initial memory). TinyGo
//     grows the memory by doubling it, so an instance is renewed at the first of its
//     initial memory's doublings at or past the threshold, and the fresh instance lives
//     beside it while it takes over: that size + the initial memory must fit, and so
//     must that + the scheduled pull's (a Cron Trigger may run in an isolate that
//     serves): the instance it builds a feed in (the initial memory + the heap the glue
//     reserves, HEAP_PER_FEED_BYTE a byte of feed) and the feed's bytes in JS, at
//     FEED_MAX_BYTES (wrangler.toml, else the glue's MAX_BYTES).
//
// It prints one line of the figures when the bundle is within both, else each limit
// passed and by how much, and exits 1. `make build` runs it:
//
//	go run ./build/checkmodule [-plan free|paid] [-wasm build/app.wasm] [-glue build/worker.mjs]
package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
)

const (
	mib       = 1 << 20
	pageBytes = 65536
	// isolateBytes is the memory of one isolate (Workers limits: 128 MB on both plans).
	isolateBytes = 128 * mib
)

// scriptLimits are the Workers plans' limits on the compressed upload.
var scriptLimits = map[string]int{"free": 3 * mib, "paid": 10 * mib}

func main() {
	plan := flag.String("plan", "free", "the Workers plan whose script size limit applies: free (3 MiB) or paid (10 MiB)")
	wasmPath := flag.String("wasm", "build/app.wasm", "the module")
	gluePath := flag.String("glue", "build/worker.mjs", "the glue (bundled)")
	instancePath := flag.String("instance", "worker/glue/instance.mjs", "the glue's source that sets RENEW_MIB")
	scheduledPath := flag.String("scheduled", "worker/glue/scheduled.mjs", "the glue's source that sets MAX_BYTES and HEAP_PER_FEED_BYTE")
	wranglerPath := flag.String("wrangler", "wrangler.toml", "the Worker's config ([vars] INSTANCE_MEMORY_MIB)")
	flag.Parse()
	b, err := readBundle(*wasmPath, *gluePath, *instancePath, *wranglerPath)
	if err == nil {
		b.feedMax, b.feedFrom, b.heapPerFeedByte, err = pullMemory(*scheduledPath, *wranglerPath)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "checkmodule:", err)
		os.Exit(1)
	}
	summary, problems := check(b, *plan)
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, "checkmodule:", p)
		}
		os.Exit(1)
	}
	fmt.Println("checkmodule:", summary)
}

// bundle is what the limits are checked on.
type bundle struct {
	wasmName, glueName string
	wasm, glue         int // bytes
	gzipped            int // the two gzipped together
	initial            int // the module's initial memory, bytes
	data               int // bytes of its data segments
	renewMiB           int // the glue's renewal threshold before the floor of twice the initial memory
	renewFrom          string
	feedMax            int     // the scheduled pull's largest feed, bytes (0: no pull counted)
	feedFrom           string  // where feedMax comes from
	heapPerFeedByte    float64 // the heap the glue reserves for the build, a byte of feed
}

func readBundle(wasmPath, gluePath, instancePath, wranglerPath string) (bundle, error) {
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		return bundle{}, err
	}
	glue, err := os.ReadFile(gluePath)
	if err != nil {
		return bundle{}, err
	}
	pages, data, err := memoryOf(wasm)
	if err != nil {
		return bundle{}, fmt.Errorf("%s: %v", wasmPath, err)
	}
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.DefaultCompression)
	w.Write(glue)
	w.Write(wasm)
	w.Close()
	b := bundle{wasmName: wasmPath, glueName: gluePath, wasm: len(wasm), glue: len(glue), gzipped: z.Len(),
		initial: pages * pageBytes, data: data}
	b.renewMiB, b.renewFrom, err = renewThreshold(instancePath, wranglerPath)
	return b, err
}

// renewThreshold returns the memory (MiB) at which the glue renews an instance, as the
// glue takes it: INSTANCE_MEMORY_MIB from wrangler.toml's [vars] when it is a number
// from 4 to 1024, else RENEW_MIB.
func renewThreshold(instancePath, wranglerPath string) (int, string, error) {
	src, err := os.ReadFile(instancePath)
	if err != nil {
		return 0, "", err
	}
	m := regexp.MustCompile(`const RENEW_MIB = (\d+);`).FindSubmatch(src)
	if m == nil {
		return 0, "", fmt.Errorf("%s: no RENEW_MIB", instancePath)
	}
	n, _ := strconv.Atoi(string(m[1]))
	from := "the glue's RENEW_MIB"
	toml, err := os.ReadFile(wranglerPath)
	if err != nil {
		return 0, "", err
	}
	if v, ok := wranglerVar(string(toml), "INSTANCE_MEMORY_MIB"); ok {
		if x, err := strconv.ParseFloat(v, 64); err == nil && x >= 4 && x <= 1024 {
			n, from = int(x), "INSTANCE_MEMORY_MIB"
		}
	}
	return n, from, nil
}

// pullMemory returns the scheduled pull's largest feed as the glue takes it
// (FEED_MAX_BYTES from wrangler.toml's [vars] when it is a positive number, else
// scheduled.mjs's MAX_BYTES) and the heap the glue reserves for its build a byte of feed
// (HEAP_PER_FEED_BYTE).
func pullMemory(scheduledPath, wranglerPath string) (int, string, float64, error) {
	src, err := os.ReadFile(scheduledPath)
	if err != nil {
		return 0, "", 0, err
	}
	mb := regexp.MustCompile(`const MAX_BYTES = (\d+)(?: << (\d+))?;`).FindSubmatch(src)
	hb := regexp.MustCompile(`const HEAP_PER_FEED_BYTE = ([\d.]+);`).FindSubmatch(src)
	if mb == nil || hb == nil {
		return 0, "", 0, fmt.Errorf("%s: no MAX_BYTES or HEAP_PER_FEED_BYTE", scheduledPath)
	}
	n, _ := strconv.Atoi(string(mb[1]))
	if len(mb[2]) > 0 {
		shift, _ := strconv.Atoi(string(mb[2]))
		n <<= shift
	}
	heap, _ := strconv.ParseFloat(string(hb[1]), 64)
	from := "the glue's MAX_BYTES"
	toml, err := os.ReadFile(wranglerPath)
	if err != nil {
		return 0, "", 0, err
	}
	if v, ok := wranglerVar(string(toml), "FEED_MAX_BYTES"); ok {
		if x, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && x > 0 && x < 1<<40 {
			n, from = int(math.Ceil(x)), "FEED_MAX_BYTES"
		}
	}
	return n, from, heap, nil
}

// wranglerVar returns a var of a wrangler.toml's [vars] (NAME = "value" lines).
func wranglerVar(toml, name string) (string, bool) {
	line := regexp.MustCompile(`^([A-Z_][A-Z0-9_]*)\s*=\s*"([^"]*)"`)
	in := false
	for _, l := range strings.Split(toml, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[") {
			in = l == "[vars]"
			continue
		}
		if m := line.FindStringSubmatch(l); in && m != nil && m[1] == name {
			return m[2], true
		}
	}
	return "", false
}

// check returns the bundle's figures, and one message for each limit it passes.
func check(b bundle, plan string) (string, []string) {
	limit, ok := scriptLimits[plan]
	if !ok {
		return "", []string{fmt.Sprintf("-plan is free or paid, not %q", plan)}
	}
	var problems []string
	if b.gzipped > limit {
		msg := fmt.Sprintf("script size: %s + %s are %s gzipped, %s over the Workers %s plan's limit of %s (compressed)",
			b.wasmName, b.glueName, bytesText(b.gzipped), overText(b.gzipped, limit), plan, bytesText(limit))
		if plan == "free" {
			msg += fmt.Sprintf("; on the Paid plan (limit %s): make build WORKERS_PLAN=paid", bytesText(scriptLimits["paid"]))
		}
		problems = append(problems, msg+"; or a smaller catalog (data/)")
	}
	threshold, why := b.renewMiB*mib, b.renewFrom
	if 2*b.initial > threshold {
		threshold, why = 2*b.initial, "twice the initial memory"
	}
	renew := b.initial
	for renew < threshold {
		renew *= 2
	}
	peak := renew + b.initial
	if peak > isolateBytes {
		problems = append(problems, fmt.Sprintf("isolate memory: the module starts at %s of memory and the glue renews an instance at %s (the first doubling of it at or past %s, %s); "+
			"with the fresh instance beside the old one while it takes over, %s, %s over the isolate's limit of %s: a smaller catalog (data/), or a lower INSTANCE_MEMORY_MIB",
			bytesText(b.initial), bytesText(renew), bytesText(threshold), why, bytesText(peak), overText(peak, isolateBytes), bytesText(isolateBytes)))
	}
	// The scheduled pull beside the serving instance at its most: the build's instance
	// (the initial memory and the reserve, grown in whole pages) and the feed in JS.
	pullInstance := b.initial + (int(math.Ceil(b.heapPerFeedByte*float64(b.feedMax)))+pageBytes-1)/pageBytes*pageBytes
	withPull := peak + pullInstance + b.feedMax
	if b.feedMax > 0 && withPull > isolateBytes {
		problems = append(problems, fmt.Sprintf("isolate memory during the scheduled pull: a feed of up to %s (%s) is built in an instance of %s, which with the feed's bytes in JS and the serving instance at its most (%s) comes to %s, %s over the isolate's limit of %s: a lower FEED_MAX_BYTES (or INSTANCE_MEMORY_MIB)",
			bytesText(b.feedMax), b.feedFrom, bytesText(pullInstance), bytesText(peak), bytesText(withPull), overText(withPull, isolateBytes), bytesText(isolateBytes)))
	}
	summary := fmt.Sprintf("%s + %s: %d bytes gzipped, %.1f%% of the Workers %s plan's %d MiB; memory: initial %.2f MiB (%d bytes of data segments), renewed at %.2f MiB (threshold %.2f MiB, %s), at most %.2f MiB of the isolate's %d MiB",
		b.wasmName, b.glueName, b.gzipped, 100*float64(b.gzipped)/float64(limit), plan, limit/mib,
		float64(b.initial)/mib, b.data, float64(renew)/mib, float64(threshold)/mib, why, float64(peak)/mib, isolateBytes/mib)
	if b.feedMax > 0 {
		summary += fmt.Sprintf("; the scheduled pull of a feed of up to %.2f MiB (%s): its instance %.2f MiB, %.2f MiB with the feed and the serving instance", float64(b.feedMax)/mib, b.feedFrom, float64(pullInstance)/mib, float64(withPull)/mib)
	}
	if plan != "free" && b.gzipped > scriptLimits["free"] {
		summary += fmt.Sprintf("; the script is over the Free plan's %d MiB: it deploys on the Paid plan only", scriptLimits["free"]/mib)
	}
	return summary, problems
}

// bytesText writes n bytes in MiB (or KiB below one MiB) with the exact count.
func bytesText(n int) string {
	if n >= mib {
		return fmt.Sprintf("%.2f MiB (%d bytes)", float64(n)/mib, n)
	}
	return fmt.Sprintf("%.1f KiB (%d bytes)", float64(n)/1024, n)
}

// overText is how far n is past limit: bytes and percent.
func overText(n, limit int) string {
	return fmt.Sprintf("%d bytes (%.1f%%)", n-limit, 100*float64(n-limit)/float64(limit))
}

// memoryOf reads a wasm module's memory section (the initial pages of its one memory)
// and the total size of its data segments.
func memoryOf(wasm []byte) (pages, data int, err error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return 0, 0, errors.New("not a wasm module")
	}
	r := reader{b: wasm, at: 8}
	pages = -1
	for r.at < len(r.b) {
		id := r.byte()
		size := r.uleb()
		end := r.at + size
		if r.err != nil || end > len(r.b) {
			return 0, 0, errors.New("truncated section")
		}
		switch id {
		case 5: // memory: vec(limits)
			if r.uleb() != 1 {
				return 0, 0, errors.New("not one memory")
			}
			r.byte() // flags: with or without a maximum
			pages = r.uleb()
		case 11: // data: vec(segment)
			for n := r.uleb(); n > 0 && r.err == nil; n-- {
				switch r.uleb() {
				case 0: // active, memory 0: offset expression, bytes
					r.skipExpr()
				case 1: // passive: bytes
				case 2: // active, memory index: index, offset expression, bytes
					r.uleb()
					r.skipExpr()
				default:
					return 0, 0, errors.New("unknown data segment kind")
				}
				l := r.uleb()
				data += l
				r.at += l
			}
		}
		if r.err != nil {
			return 0, 0, r.err
		}
		r.at = end
	}
	if pages < 0 {
		return 0, 0, errors.New("no memory section")
	}
	return pages, data, nil
}

type reader struct {
	b   []byte
	at  int
	err error
}

func (r *reader) byte() byte {
	if r.at >= len(r.b) {
		r.err = errors.New("truncated")
		return 0
	}
	r.at++
	return r.b[r.at-1]
}

func (r *reader) uleb() int {
	n, shift := 0, 0
	for {
		c := r.byte()
		if r.err != nil || shift > 28 {
			r.err = errors.New("bad LEB128")
			return 0
		}
		n |= int(c&0x7f) << shift
		if c < 0x80 {
			return n
		}
		shift += 7
	}
}

// skipExpr skips a constant expression up to its end opcode (0x0b); the data segments'
// offsets are i32.const n or global.get i.
func (r *reader) skipExpr() {
	for r.err == nil {
		switch op := r.byte(); op {
		case 0x0b:
			return
		case 0x41, 0x23: // i32.const (signed LEB128), global.get
			for r.byte() >= 0x80 && r.err == nil {
			}
		default:
			r.err = fmt.Errorf("offset expression with opcode 0x%02x", op)
		}
	}
}
