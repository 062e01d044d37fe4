package api

import (
	_ "embed"
	"strings"

	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/wire"
)

// openAPISource is the OpenAPI 3.1 document of the API (GET {base}/openapi.json):
// openapi.json, which is indented for review, as build/openapimin compacts it (the
// module carries ~19 KB less). Strings may hold placeholders {{NAME}} for configured
// values (see openAPIDocument); renderOpenAPI fills them once per Server.
//
//go:embed openapi.min.json
var openAPISource string

// renderOpenAPI returns the served document for cfg: the source without whitespace
// outside strings and with each {{NAME}} inside a string replaced by its value
// (JSON-escaped). An unknown name is kept as it is.
func renderOpenAPI(cfg *Config) []byte {
	src := openAPISource
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
