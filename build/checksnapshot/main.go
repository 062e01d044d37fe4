// Command checksnapshot loads the bundled snapshot (data.Files()) through
// rental.LoadCatalog and exits 1 with the loader's error when it is not valid, so bad
// data fails `make build` instead of a request. With a directory argument it checks
// that directory's *.json files instead (the same names as data/). With -go FILE it
// also writes the catalog as Go source (golit.go): make build runs it with
// core/rental/bundled_gen.go, the catalog the Worker starts with.
//
//	go run ./build/checksnapshot [-go FILE] [dir]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/data"
)

func main() {
	goOut := flag.String("go", "", "also write the catalog as Go source (package rental) to this file, when it differs")
	flag.Parse()
	files := data.Files()
	from := "the bundled snapshot (data/)"
	if flag.NArg() > 0 {
		var err error
		if files, err = data.ReadDir(flag.Arg(0)); err != nil {
			fmt.Fprintln(os.Stderr, "checksnapshot:", err)
			os.Exit(1)
		}
		from = flag.Arg(0)
	}
	cat, msg, err := check(files)
	if err != nil {
		fmt.Fprintf(os.Stderr, "checksnapshot: %s is not valid: %v\n", from, err)
		os.Exit(1)
	}
	fmt.Println("checksnapshot:", msg)
	if *goOut != "" {
		src, err := bundledSource(cat)
		if err != nil {
			fmt.Fprintln(os.Stderr, "checksnapshot:", err)
			os.Exit(1)
		}
		if old, _ := os.ReadFile(*goOut); !bytes.Equal(old, src) { // unchanged: the file's time stays
			if err := os.WriteFile(*goOut, src, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "checksnapshot:", err)
				os.Exit(1)
			}
			fmt.Println("checksnapshot: wrote", *goOut)
		}
	}
}

// check loads files through rental.LoadCatalog and summarises what it found.
func check(files map[string][]byte) (*rental.Catalog, string, error) {
	cat, err := rental.LoadCatalog(files)
	if err != nil {
		return nil, "", err
	}
	first, last := cat.CalendarRange()
	return cat, fmt.Sprintf("snapshot %s valid: %d depots, %d vehicles, rates %s to %s",
		cat.Version(), len(cat.Depots()), len(cat.Vehicles()), first, last), nil
}
