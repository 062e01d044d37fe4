// Command openapimin writes core/api/openapi.lz4, the OpenAPI document the module
// embeds: core/api/openapi.json (indented for review) with the whitespace outside its
// strings removed by encoding/json's Compact, then packed as one LZ4 block
// (github.com/pierrec/lz4's high-compression block encoder) behind its length (4 bytes,
// little-endian). The module unpacks it on the first GET /openapi.json
// (api.openAPISource). An isolate's start pays for every byte of the module (workerd
// copies it, V8 decodes it), and the packed document is about a quarter of the text
// (BENCHMARKS.md). `make build` runs it; TestGeneratedOpenAPIPacked fails when the packed document is not openapi.json
// compacted.
//
//	go run ./build/openapimin [-src core/api/openapi.json] [-out core/api/openapi.lz4]
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/pierrec/lz4/v4"
)

func main() {
	src := flag.String("src", "core/api/openapi.json", "the indented document")
	out := flag.String("out", "core/api/openapi.lz4", "the packed compact document to write")
	flag.Parse()
	in, err := os.ReadFile(*src)
	if err != nil {
		fail(err)
	}
	var doc bytes.Buffer
	if err := json.Compact(&doc, in); err != nil {
		fail(fmt.Errorf("%s: %v", *src, err))
	}
	packed, err := pack(doc.Bytes())
	if err != nil {
		fail(err)
	}
	if old, err := os.ReadFile(*out); err == nil && bytes.Equal(old, packed) {
		return // unchanged: keep the file's time, so make does not rebuild for nothing
	}
	if err := os.WriteFile(*out, packed, 0o644); err != nil {
		fail(err)
	}
}

// pack returns doc's length (u32, little-endian) and doc as one LZ4 block, checked by
// unpacking it again.
func pack(doc []byte) ([]byte, error) {
	c := lz4.CompressorHC{Level: lz4.Level9}
	block := make([]byte, lz4.CompressBlockBound(len(doc)))
	n, err := c.CompressBlock(doc, block)
	if err != nil || n == 0 {
		return nil, fmt.Errorf("lz4: %d bytes from %d: %v", n, len(doc), err)
	}
	packed := binary.LittleEndian.AppendUint32(nil, uint32(len(doc)))
	packed = append(packed, block[:n]...)
	back := make([]byte, len(doc))
	if m, err := lz4.UncompressBlock(packed[4:], back); err != nil || m != len(doc) || !bytes.Equal(back, doc) {
		return nil, fmt.Errorf("lz4: the packed document does not unpack to itself (%d of %d bytes: %v)", m, len(doc), err)
	}
	return packed, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "openapimin:", err)
	os.Exit(1)
}
