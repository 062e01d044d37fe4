package api

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"strings"

	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/pierrec/lz4/v4"

	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/text"
)

// The API's description of itself: the index (GET {base}/) and the OpenAPI document
// (GET {base}/openapi.json), each rendered on first use with the inventory serving.

func (s *Server) getIndex(c *call) *rental.Error {
	if e := c.checkParams(); e != nil {
		return e
	}
	s.checkFeedStale(c.now)
	idx := s.index()
	s.static(c.req, c.w, idx.body, idx.etag)
	return nil
}

// index returns the index (GET {base}/), rendering it on first use and after the
// inventory changed: most isolates never serve it.
func (s *Server) index() *cached {
	if s.indexDoc.body == nil {
		s.buildIndex()
	}
	return &s.indexDoc
}

// buildIndex renders the index (GET {base}/) with the inventory serving.
func (s *Server) buildIndex() {
	b := appendIndex(nil, s.cfg.BasePath)
	if s.catErr == nil && len(b) > 0 && b[len(b)-1] == '}' {
		b = bytebuf.PutByte(s.appendFeedInfo(appendInventoryInfo(bytebuf.Put(b[:len(b)-1], `,"inventory":`), s.cat.Inventory())), '}')
	}
	s.indexDoc.set(b)
}

// appendIndex writes the index: what the API is, its document and its operations
// (those that are MCP tools: the ones an agent calls).
func appendIndex(b []byte, base string) []byte {
	b = append(b, `{"name":"Campervan rental agent API","version":"1.0.0","description":"Read-only discovery and pricing of New Zealand campervan hires: list depots, search available vehicles, list a vehicle's accessories and insurance plans, then get a price quote, and check a quote by its signed id before checkout. Nothing is booked through this API; quotes carry a checkoutUrl for the website.","openapi":`...)
	b = jsonw.AppendJSONString(b, base+"/openapi.json")
	b = append(b, `,"operations":[`...)
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendJSONString(b, "GET "+base+t.Path)
	}
	return append(b, "]}"...)
}

func (s *Server) getOpenAPI(c *call) *rental.Error {
	if e := c.checkParams(); e != nil {
		return e
	}
	s.docs()
	s.static(c.req, c.w, s.openapi.body, s.openapi.etag)
	return nil
}

// docs builds the OpenAPI document on the first request that needs it (the document
// itself, or the MCP tools derived from it), not in NewServer: every isolate pays
// NewServer before its first answer, and most never serve either.
func (s *Server) docs() {
	if s.openapi.body == nil {
		s.openapi.set(s.withInventoryInfo(renderOpenAPI(&s.cfg)))
	}
}

// withInventoryInfo inserts info.x-inventory (the inventory serving) into the rendered
// OpenAPI document.
func (s *Server) withInventoryInfo(doc []byte) []byte {
	const at = `"info":{`
	i := bytes.Index(doc, []byte(at))
	if s.catErr != nil || i < 0 {
		return doc
	}
	i += len(at)
	out := make([]byte, 0, len(doc)+256)
	out = bytebuf.PutBytes(out, doc[:i])
	out = bytebuf.PutByte(appendInventoryInfo(bytebuf.Put(out, `"x-inventory":`), s.cat.Inventory()), ',')
	return bytebuf.PutBytes(out, doc[i:])
}

// appendInventoryInfo writes what the index and the OpenAPI document say of inv.
func appendInventoryInfo(b []byte, inv *rental.Inventory) []byte {
	b = jsonw.AppendMember(b, `{"version":`, inv.Version())
	b = bytebuf.Put(b, `,"asOf":`)
	if inv.AsOf() == "" {
		b = bytebuf.Put(b, "null")
	} else {
		b = jsonw.AppendJSONString(b, inv.AsOf())
	}
	b = bytebuf.Put(b, `,"bookings":`)
	b = jsonw.AppendInt(b, int64(inv.Bookings()))
	b = bytebuf.Put(b, `,"bookedOutSpans":`)
	b = jsonw.AppendInt(b, int64(inv.Spans()))
	b = jsonw.AppendMember(b, `,"source":`, inv.Source())
	return bytebuf.PutByte(b, '}')
}

// openAPIPacked is the OpenAPI 3.1 document of the API (GET {base}/openapi.json):
// openapi.json, which is indented for review, as build/openapimin compacts and packs it:
// its length (u32, little-endian), then one LZ4 block. Strings may hold placeholders
// {{NAME}} for configured values (see openAPIValue); renderOpenAPI fills them once per
// Server. Packed, because every byte of the module is copied and decoded when an
// isolate loads it, and the document is read only on an isolate's first
// GET /openapi.json.
//
//go:embed openapi.lz4
var openAPIPacked []byte

// openAPISource unpacks openAPIPacked: the compact document, ~64 KB, made anew on
// each call (one per Server: renderOpenAPI keeps only what it renders).
// pierrec/lz4's block decoder checks every offset and length against src and dst;
// TestGeneratedOpenAPIPacked holds the packed bytes to openapi.json, so a failure
// here is a build that skipped build/openapimin, not anything a request can cause.
func openAPISource() []byte {
	if len(openAPIPacked) < 4 {
		panic("core/api/openapi.lz4 is not a packed document: run go run ./build/openapimin")
	}
	doc := make([]byte, binary.LittleEndian.Uint32(openAPIPacked))
	if n, err := lz4.UncompressBlock(openAPIPacked[4:], doc); err != nil || n != len(doc) {
		panic("core/api/openapi.lz4 does not unpack: run go run ./build/openapimin")
	}
	return doc
}

// renderOpenAPI returns the served document for cfg: the source without whitespace
// outside strings and with each {{NAME}} inside a string replaced by its value
// (JSON-escaped). An unknown name is kept as it is.
func renderOpenAPI(cfg *Config) []byte {
	src := text.BytesString(openAPISource())
	b := make([]byte, 0, len(src))
	in := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !in {
			switch c {
			case ' ', '\t', '\n', '\r':
				continue
			case '"':
				in = true
			}
			b = append(b, c)
			continue
		}
		switch {
		case c == '\\' && i+1 < len(src):
			b = append(b, c, src[i+1])
			i++
			continue
		case c == '"':
			in = false
		case c == '{' && i+1 < len(src) && src[i+1] == '{':
			if end := strings.Index(src[i+2:], "}}"); end >= 0 {
				if v, ok := openAPIValue(cfg, src[i+2:i+2+end]); ok {
					s := jsonw.AppendJSONString(nil, v)
					b = append(b, s[1:len(s)-1]...)
					i += 2 + end + 1
					continue
				}
			}
		}
		b = append(b, c)
	}
	return b
}

// openAPIValue returns the configured value a placeholder stands for.
func openAPIValue(cfg *Config, name string) (string, bool) {
	switch name {
	case "BASE_PATH":
		return cfg.BasePath, true
	case "SERVER_URL": // a server URL must not be empty
		if cfg.BasePath == "" {
			return "/", true
		}
		return cfg.BasePath, true
	case "WEB_URL":
		return cfg.WebURL, true
	case "RATE_LIMIT":
		return string(jsonw.AppendInt(nil, cfg.RateLimit)), true
	case "RATE_WINDOW":
		return string(jsonw.AppendInt(nil, cfg.RateWindowSeconds)), true
	case "STATIC_MAX_AGE":
		return string(jsonw.AppendInt(nil, cfg.StaticMaxAge)), true
	case "SEARCH_MAX_AGE":
		return string(jsonw.AppendInt(nil, cfg.SearchMaxAge)), true
	case "QUOTE_TTL":
		return string(jsonw.AppendInt(nil, cfg.QuoteTTLSeconds)), true
	}
	return "", false
}
