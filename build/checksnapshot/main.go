// Command checksnapshot loads the bundled snapshot (data.Files()) through
// rental.LoadCatalog and exits 1 with the loader's error when it is not valid, so bad
// data fails `make build` instead of a request. With a directory argument it checks
// that directory's *.json files instead (the same names as data/).
//
//	go run ./build/checksnapshot [dir]
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/data"
)

func main() {
	files := data.Files()
	from := "the bundled snapshot (data/)"
	if len(os.Args) > 1 {
		var err error
		if files, err = readDir(os.Args[1]); err != nil {
			fmt.Fprintln(os.Stderr, "checksnapshot:", err)
			os.Exit(1)
		}
		from = os.Args[1]
	}
	msg, err := check(files)
	if err != nil {
		fmt.Fprintf(os.Stderr, "checksnapshot: %s is not valid: %v\n", from, err)
		os.Exit(1)
	}
	fmt.Println("checksnapshot:", msg)
}

// check loads files as the Worker does and summarises what it found.
func check(files map[string][]byte) (string, error) {
	cat, err := rental.LoadCatalog(files)
	if err != nil {
		return "", err
	}
	first, last := cat.CalendarRange()
	return fmt.Sprintf("snapshot %s valid: %d depots, %d vehicles, rates %s to %s",
		cat.Version(), len(cat.Depots()), len(cat.Vehicles()), first, last), nil
}

// readDir reads every *.json file of dir by base name.
func readDir(dir string) (map[string][]byte, error) {
	ms, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("%s has no *.json files", dir)
	}
	files := map[string][]byte{}
	for _, m := range ms {
		b, err := os.ReadFile(m)
		if err != nil {
			return nil, err
		}
		files[filepath.Base(m)] = b
	}
	return files, nil
}
