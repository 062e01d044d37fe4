package api

import (
	_ "embed"
	"encoding/binary"
	"strings"

	"github.com/pierrec/lz4/v4"

	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/wire"
)

// openAPIPacked is the OpenAPI 3.1 document of the API (GET {base}/openapi.json):
// openapi.json, which is indented for review, as build/openapimin compacts and packs it:
// its length (u32, little-endian), then one LZ4 block. Strings may hold placeholders
// {{NAME}} for configured values (see openAPIValue); renderOpenAPI fills them once per
// Server. Packed, the module carries ~15 KB for the document's 64 KB: every byte of the
// module is copied and decoded when an isolate loads it, and the document is read only
// on an isolate's first GET /openapi.json (issue 16: ~2 ms off every first answer).
//
//go:embed openapi.lz4
var openAPIPacked []byte

// openAPISource unpacks openAPIPacked: the compact document, ~64 KB, made anew on
// each call (one per Server: renderOpenAPI keeps only what it renders).
// pierrec/lz4's block decoder checks every offset and length against src and dst;
// TestOpenAPIPackedMatchesSource holds the packed bytes to openapi.json, so a failure
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
	src := wire.BytesString(openAPISource())
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
					s := wire.AppendJSONString(nil, v)
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
		return string(wire.AppendInt(nil, cfg.RateLimit)), true
	case "RATE_WINDOW":
		return string(wire.AppendInt(nil, cfg.RateWindowSeconds)), true
	case "STATIC_MAX_AGE":
		return string(wire.AppendInt(nil, cfg.StaticMaxAge)), true
	case "SEARCH_MAX_AGE":
		return string(wire.AppendInt(nil, cfg.SearchMaxAge)), true
	case "QUOTE_TTL":
		return string(wire.AppendInt(nil, cfg.QuoteTTLSeconds)), true
	}
	return "", false
}

func (s *Server) getOpenAPI(req *wire.Request, w *wire.Response, pathParam string, nowMs int64) *rental.Error {
	if e := s.checkParams(); e != nil {
		return e
	}
	s.docs()
	s.static(req, w, s.openapi.body, s.openapi.etag)
	return nil
}
