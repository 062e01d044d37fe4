package docdrift

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const root = "../.."

// docs returns the documents checked, by path from the root, and their text.
func docs(t *testing.T) map[string]string {
	t.Helper()
	names := []string{"README.md", "RATIONALE.md", "BENCHMARKS.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(more) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	for _, m := range more {
		names = append(names, filepath.ToSlash(strings.TrimPrefix(m, root+string(filepath.Separator))))
	}
	out := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(root, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = string(b)
	}
	return out
}

// walk calls fn with the path from the root of every file of the tree's own (not node_modules, .git or build output).
func walk(t *testing.T, fn func(path string)) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			switch rel {
			case "node_modules", ".git", "build/out", "build/dist", "build/go-worker", ".wrangler", "build/bench/out":
				return filepath.SkipDir
			}
			return nil
		}
		fn(rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDocsNameExistingTests: every TestX, FuzzX and BenchmarkX the documents name is a
// function of a _test.go file.
func TestDocsNameExistingTests(t *testing.T) {
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)[A-Z0-9_]\w*)\(`)
	have := map[string]bool{}
	walk(t, func(p string) {
		if !strings.HasSuffix(p, "_test.go") {
			return
		}
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			have[m[1]] = true
		}
	})
	if len(have) < 50 {
		t.Fatalf("found only %d test functions: the walk is wrong", len(have))
	}
	named := regexp.MustCompile(`\b((?:Test|Fuzz|Benchmark)[A-Z0-9]\w*)\b`)
	checked := 0
	for doc, text := range docs(t) {
		for _, m := range named.FindAllStringSubmatchIndex(text, -1) {
			name := text[m[2]:m[3]]
			// A -run or -bench pattern names a prefix or a regexp, not a function.
			if j := m[3]; j < len(text) && (text[j] == '|' || text[j] == '$' || text[j] == '*') || m[2] > 0 && strings.ContainsAny(text[m[2]-1:m[2]], "^|(") {
				continue
			}
			checked++
			if !have[name] {
				t.Errorf("%s names %s, which no _test.go file declares", doc, name)
			}
		}
	}
	t.Logf("%d names of tests checked", checked)
	if checked == 0 {
		t.Fatal("the documents name no test: the pattern is wrong")
	}
}

// generated are the paths that builds and runs write (git-ignored): the documents name
// them, a clean checkout does not have them.
var generated = regexp.MustCompile(`^(build/(out|dist|go-worker|bench/out)(/|$)|build/[^/]*\.(wasm|mjs|mjs\.map)$|\.dev\.vars$|\.wrangler(/|$))`)

// TestDocsNameExistingPaths: every path of the tree the documents name, in backquotes
// or as a relative link, exists (a glob matches something).
func TestDocsNameExistingPaths(t *testing.T) {
	tops := map[string]bool{}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		tops[e.Name()] = true
	}
	code := regexp.MustCompile("`([^`\\s]+)`")
	link := regexp.MustCompile(`\]\(([^)#\s]+)(?:#[^)]*)?\)`)
	checked := 0
	var missing []string
	for doc, text := range docs(t) {
		var cands []string
		inPackage := map[string]bool{} // named as a package's folder: "each package's `testdata/fuzz/`"
		for _, m := range code.FindAllStringSubmatchIndex(text, -1) {
			c := text[m[2]:m[3]]
			cands = append(cands, c)
			if strings.HasSuffix(text[:m[0]], "package's ") {
				inPackage[c] = true
			}
		}
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			if !strings.Contains(m[1], "://") {
				// a link is relative to the document's folder
				cands = append(cands, filepath.ToSlash(filepath.Join(filepath.Dir(doc), m[1])))
			}
		}
		for _, c := range cands {
			pkg := inPackage[c]
			c = strings.TrimSuffix(strings.TrimPrefix(c, "./"), ":")
			first, _, nested := strings.Cut(c, "/")
			// A path of the tree: it starts at one of the root's entries and has a folder
			// or is one of the root's files; not a URL path, a flag or a pattern.
			if !tops[first] && !pkg || !nested && !strings.Contains(c, ".") && c != "Makefile" {
				continue
			}
			if strings.ContainsAny(c, "<>{}$=?&,") || strings.Contains(c, "...") || generated.MatchString(c) {
				continue
			}
			// A folder named with a trailing slash, a Go package path with ./... dropped.
			c = strings.TrimSuffix(c, "/")
			checked++
			matches, _ := filepath.Glob(filepath.Join(root, c))
			if pkg {
				matches, _ = filepath.Glob(filepath.Join(root, "*", "*", c))
			}
			if len(matches) == 0 {
				missing = append(missing, doc+": "+c)
			}
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("%s does not exist", m)
	}
	t.Logf("%d paths checked", checked)
	if checked < 20 {
		t.Fatalf("only %d paths checked: the pattern is wrong", checked)
	}
}
