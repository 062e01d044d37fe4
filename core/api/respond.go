package api

import (
	"strings"

	"github.com/campervan/agent-api/core/limit"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/wire"
)

const (
	ctJSON    = "application/json; charset=utf-8"
	exposed   = "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, Retry-After, ETag, X-Inventory-Version"
	quoteNote = "All amounts are in New Zealand dollars (NZD), converted exactly from the reservation system's integer cents; totalAmount is the sum of the four fees in priceBreakdown; gstIncluded is the 15% GST it contains (totalAmount x 3/23, rounded half up to the cent). A quote is not a booking: complete it at checkoutUrl before expiresAt."
)

// common sets the headers every JSON response carries, with the Cache-Control of its
// class: one block (answerHeaders.common).
//
//go:inline
func (s *Server) common(w *wire.Response, c cacheClass) {
	w.SetHeaders(&s.headers.common[c])
}

// answerHeaders are the header blocks of a Server's answers, encoded once: the
// module's header table sends a block it has sent before as hits without comparing
// its bytes (core/wire/hdrtable.go).
type answerHeaders struct {
	common      [nCacheClasses]wire.Headers // Content-Type, nosniff, CORS, Cache-Control
	notModified [nCacheClasses]wire.Headers // a 304's: common's without Content-Type
	inventory   wire.Headers                // X-Inventory-Version (setInvVersion)
}

// makeAnswerHeaders encodes the blocks of each cache class, whose Cache-Control is
// cacheControl[class].
func makeAnswerHeaders(h *answerHeaders, cacheControl *[nCacheClasses]string) {
	for c, cc := range cacheControl {
		h.common[c] = wire.NewHeaders("content-type", ctJSON, "x-content-type-options", "nosniff",
			"access-control-allow-origin", "*", "access-control-expose-headers", exposed, "cache-control", cc)
		h.notModified[c] = wire.NewHeaders("x-content-type-options", "nosniff",
			"access-control-allow-origin", "*", "access-control-expose-headers", exposed, "cache-control", cc)
	}
}

// ErrorStatus returns the HTTP status for an error kind.
func ErrorStatus(k rental.Kind) int {
	switch k {
	case rental.KindInvalid:
		return 400
	case rental.KindNotFound:
		return 404
	case rental.KindMethod:
		return 405
	case rental.KindUnavailable:
		return 503
	}
	return 500
}

// errInternal is what a client is told of an internal error (a bug); the error itself
// is logged.
var errInternal = &rental.Error{Kind: rental.KindInternal, Message: "internal error; it has been logged"}

// fail writes e as the Error body with the status of its kind. An internal error is
// logged, and the body says only that there was one.
func (s *Server) fail(w *wire.Response, req *wire.Request, e *rental.Error) {
	if e.Kind == rental.KindInternal && e != errInternal {
		if s.logf != nil {
			s.logf(string(wire.AppendJSONString([]byte(`{"level":"error","msg":`), "internal error: "+e.Message)) + "}")
		}
		e = errInternal
	}
	w.Status = ErrorStatus(e.Kind)
	s.common(w, cacheNone)
	if req.Method == "HEAD" {
		return
	}
	b := wire.Put(w.Body, `{"error":`)
	b = wire.AppendJSONString(b, e.Message)
	b = wire.Put(b, `,"code":"`)
	b = wire.Put(b, e.DefaultCode())
	b = wire.PutByte(b, '"')
	if isParam(e.Param) {
		b = wire.AppendMember(b, `,"param":`, wire.Clean(e.Param))
	}
	if len(s.sugg) > 0 {
		b = wire.Put(b, `,"suggestions":[`)
		for i := range s.sugg {
			if i > 0 {
				b = wire.PutByte(b, ',')
			}
			b = wire.AppendMember(b, `{"url":`, wire.BytesString(s.sugg[i].url))
			b = wire.AppendMember(b, `,"reason":`, s.sugg[i].reason)
			b = wire.PutByte(b, '}')
		}
		b = wire.PutByte(b, ']')
	}
	w.Body = wire.PutByte(b, '}')
}

// isParam reports whether an Error's Param names a parameter a client gave (not the
// path, the method or the URL as a whole).
func isParam(p string) bool {
	switch p {
	case "", "path", "method", "url", "query":
		return false
	}
	return true
}

// tooMany writes the 429: text/plain, as the spec says.
//
//go:noinline
func (s *Server) tooMany(w *wire.Response, v limit.Verdict) {
	w.Status = 429
	w.SetHeader("content-type", "text/plain; charset=utf-8")
	w.SetHeader("x-content-type-options", "nosniff")
	w.SetHeader("access-control-allow-origin", "*")
	w.SetHeader("access-control-expose-headers", exposed)
	w.SetHeader("cache-control", "no-store")
	w.SetHeaderInt("retry-after", v.Reset)
	w.Body = wire.Put(w.Body, "Too many requests: the limit is ")
	w.Body = wire.AppendInt(w.Body, v.Limit)
	w.Body = wire.Put(w.Body, " requests per ")
	w.Body = wire.AppendInt(w.Body, s.cfg.RateWindowSeconds)
	w.Body = wire.Put(w.Body, " seconds per client. Retry in ")
	w.Body = wire.AppendInt(w.Body, v.Reset)
	w.Body = wire.Put(w.Body, " seconds.\n")
}

// preflight answers a CORS preflight: any origin may GET.
func (s *Server) preflight(req *wire.Request, w *wire.Response) {
	w.Status = 204
	w.SetHeader("x-content-type-options", "nosniff")
	w.SetHeader("access-control-allow-origin", "*")
	w.SetHeader("access-control-allow-methods", "GET, HEAD, OPTIONS")
	w.SetHeader("access-control-allow-headers", "If-None-Match, Content-Type, Accept")
	w.SetHeader("access-control-max-age", "86400")
	w.SetHeader("allow", "GET, HEAD, OPTIONS")
	w.SetHeader("cache-control", "public, max-age=86400")
}

// cached is a response body computed once, with its strong ETag.
type cached struct {
	body []byte
	etag string
}

func (c *cached) set(body []byte) {
	c.body = body
	c.etag = string(appendETag(nil, body))
}

// appendETag appends a strong ETag of body: its FNV-64a hash in hex, quoted.
func appendETag(b, body []byte) []byte {
	b = wire.PutByte(b, '"')
	b = wire.AppendHex64(b, wire.FNV64a(wire.FNVOffset, wire.BytesString(body)))
	return wire.PutByte(b, '"')
}

// notModified reports whether If-None-Match matches etag (weak comparison, RFC 9110).
func notModified(req *wire.Request, etag string) bool {
	inm := req.Header("if-none-match")
	for len(inm) > 0 {
		for len(inm) > 0 && (inm[0] == ' ' || inm[0] == ',' || inm[0] == '\t') {
			inm = inm[1:]
		}
		if len(inm) == 0 {
			break
		}
		if inm[0] == '*' {
			return true
		}
		if len(inm) > 2 && inm[0] == 'W' && inm[1] == '/' {
			inm = inm[2:]
		}
		end := strings.IndexByte(inm, ',')
		if end < 0 {
			end = len(inm)
		}
		tag := inm[:end]
		for len(tag) > 0 && (tag[len(tag)-1] == ' ' || tag[len(tag)-1] == '\t') {
			tag = tag[:len(tag)-1]
		}
		if tag == etag {
			return true
		}
		inm = inm[end:]
	}
	return false
}

// static writes a cacheable body with its ETag, or a 304 when the client has it. A 304
// carries no Content-Type (RFC 9110 15.4.5: it has no content; a validating proxy
// answered 500 to one that had).
func (s *Server) static(req *wire.Request, w *wire.Response, body []byte, etag string) {
	if notModified(req, etag) {
		s.notModifiedAnswer(w, cacheStatic, etag)
		return
	}
	s.common(w, cacheStatic)
	w.SetHeader("etag", etag)
	w.Status = 200
	w.Body = wire.PutBytes(w.Body, body)
}

// notModifiedAnswer writes a 304: the headers of the 200 but no Content-Type, no body.
func (s *Server) notModifiedAnswer(w *wire.Response, c cacheClass, etag string) {
	w.Status = 304
	w.SetHeaders(&s.headers.notModified[c])
	w.SetHeader("etag", etag)
}
