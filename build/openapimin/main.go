// Command openapimin writes core/api/openapi.min.json, the OpenAPI document the module
// embeds: core/api/openapi.json (indented for review) with the whitespace outside its
// strings removed by encoding/json's Compact. The served document never had that
// whitespace (api.renderOpenAPI drops it), so the module need not carry it: ~19 KB of
// a ~380 KB module, and every byte of the module is copied and decoded when an isolate
// loads it (issue 16). `make build` runs it; TestOpenAPIMinMatchesSource fails when the
// two files disagree.
//
//	go run ./build/openapimin [-src core/api/openapi.json] [-out core/api/openapi.min.json]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
)

func main() {
	src := flag.String("src", "core/api/openapi.json", "the indented document")
	out := flag.String("out", "core/api/openapi.min.json", "the compact document to write")
	flag.Parse()
	in, err := os.ReadFile(*src)
	if err != nil {
		fail(err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, in); err != nil {
		fail(fmt.Errorf("%s: %v", *src, err))
	}
	b.WriteByte('\n')
	if old, err := os.ReadFile(*out); err == nil && bytes.Equal(old, b.Bytes()) {
		return // unchanged: keep the file's time, so make does not rebuild for nothing
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "openapimin:", err)
	os.Exit(1)
}
