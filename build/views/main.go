// Command views makes the MCP Apps views (core/views) from their one source: each view
// is one self-contained HTML document, the shared styles (src/view.css) and code
// (src/render.js, src/view.js) inline, the view named by body's data-view. It writes
// them packed into core/views/views.lz4, which the module embeds and build/site copies
// from. It fails when a document passes its size budget.
//
//	go run ./build/views [-src core/views/src] [-out core/views/views.lz4]
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"html"
	"os"
	"path/filepath"

	"github.com/campervan/agent-api/core/views"
	"github.com/pierrec/lz4/v4"
)

// maxRaw is a document's size budget (the MCP Apps hosts' frames load it whole).
const maxRaw = 150 << 10

func main() {
	src := flag.String("src", "core/views/src", "the views' source")
	out := flag.String("out", "core/views/views.lz4", "the pack to write")
	flag.Parse()
	docs, err := Documents(*src)
	if err != nil {
		fail(err)
	}
	packed, err := pack(docs)
	if err != nil {
		fail(err)
	}
	if old, err := os.ReadFile(*out); err == nil && bytes.Equal(old, packed) {
		return
	}
	if err := os.WriteFile(*out, packed, 0o644); err != nil {
		fail(err)
	}
}

// Documents returns each view's HTML document.
func Documents(src string) ([][]byte, error) {
	read := func(name string) (string, error) {
		b, err := os.ReadFile(filepath.Join(src, name))
		return string(b), err
	}
	css, err := read("view.css")
	if err != nil {
		return nil, err
	}
	js := ""
	for _, f := range []string{"render.js", "view.js"} {
		s, err := read(f)
		if err != nil {
			return nil, err
		}
		js += s
	}
	if bytes.Contains([]byte(js), []byte("</script")) || bytes.Contains([]byte(css), []byte("</style")) {
		return nil, fmt.Errorf("%s: the code may not hold </script or </style", src)
	}
	var docs [][]byte
	for _, v := range views.All {
		d := "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">" +
			"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">" +
			"<title>" + html.EscapeString(v.Title) + "</title><style>\n" + css + "</style></head>\n" +
			"<body data-view=\"" + v.Name + "\"><button id=\"expand\" class=\"ghost\" hidden>Full screen</button><main id=\"main\" aria-live=\"polite\"><p class=\"sub\">Waiting for the result…</p></main>" +
			"<p id=\"status\" class=\"err\" role=\"alert\"></p>\n<script>\n" + js + "</script></body></html>\n"
		if len(d) > maxRaw {
			return nil, fmt.Errorf("view %s: %d bytes, more than %d", v.Name, len(d), maxRaw)
		}
		docs = append(docs, []byte(d))
	}
	return docs, nil
}

// pack returns the documents' lengths and the documents as one LZ4 block, checked by
// unpacking it again.
func pack(docs [][]byte) ([]byte, error) {
	var p []byte
	var all []byte
	for _, d := range docs {
		p = binary.LittleEndian.AppendUint32(p, uint32(len(d)))
		all = append(all, d...)
	}
	c := lz4.CompressorHC{Level: lz4.Level9}
	block := make([]byte, lz4.CompressBlockBound(len(all)))
	n, err := c.CompressBlock(all, block)
	if err != nil || n == 0 {
		return nil, fmt.Errorf("lz4: %d bytes from %d: %v", n, len(all), err)
	}
	p = append(p, block[:n]...)
	for i, d := range views.Unpack(p) {
		if !bytes.Equal(d, docs[i]) {
			return nil, fmt.Errorf("lz4: the pack does not unpack to the documents")
		}
	}
	return p, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "views:", err)
	os.Exit(1)
}
