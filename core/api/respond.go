package api

import (
	"strings"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/limit"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/text"
)

const (
	ctJSON  = "application/json; charset=utf-8"
	exposed = "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, Retry-After, ETag, X-Inventory-Version, Link"
)

// common sets the headers every JSON response carries, with the Cache-Control of its
// class: one block (answerHeaders.common).
//
//go:inline
func (s *Server) common(w *abi.Response, c cacheClass) {
	w.SetHeaders(&s.headers.common[c])
}

// answerHeaders are the header blocks of a Server's answers, encoded once: the
// module's header table sends a block it has sent before as hits without comparing
// its bytes.
type answerHeaders struct {
	common      [nCacheClasses]abi.Headers // Content-Type, nosniff, CORS, Cache-Control
	notModified [nCacheClasses]abi.Headers // a 304's: common's without Content-Type
	inventory   abi.Headers                // X-Inventory-Version (setInvVersion)
}

// makeAnswerHeaders encodes the blocks of each cache class, whose Cache-Control is
// cacheControl[class].
func makeAnswerHeaders(h *answerHeaders, cacheControl *[nCacheClasses]string) {
	for c, cc := range cacheControl {
		h.common[c] = abi.NewHeaders("content-type", ctJSON, "x-content-type-options", "nosniff",
			"access-control-allow-origin", "*", "access-control-expose-headers", exposed, "cache-control", cc)
		h.notModified[c] = abi.NewHeaders("x-content-type-options", "nosniff",
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
	case rental.KindUnavailable:
		return 503
	}
	return 500
}

// errInternal is what a client is told of an internal error (a bug); the error itself
// is logged.
var errInternal = &rental.Error{Kind: rental.KindInternal, Message: "internal error; it has been logged"}

// fail writes e as the Error body with the status of its kind, and the suggestions c
// gathered. An internal error is logged, and the body says only that there was one.
func (s *Server) fail(c *call, e *rental.Error) {
	if e.Kind == rental.KindInternal && e != errInternal {
		if s.logf != nil {
			s.logf(string(jsonw.AppendJSONString([]byte(`{"level":"error","msg":`), "internal error: "+e.Message)) + "}")
		}
		e = errInternal
	}
	s.errorAnswer(c, ErrorStatus(e.Kind), e.DefaultCode(), e.Param, e.Message)
}

// codeMethodNotAllowed is the code of the API's own 405, beside the domain's codes
// (rental's Code constants); the 429's is tooMany's.
const codeMethodNotAllowed = "method_not_allowed"

// notAllowed answers 405 to a method the route does not answer, with the methods it
// does (allow) and why (msg, which names the method).
//
//go:noinline
func (s *Server) notAllowed(c *call, allow, msg string) {
	c.w.SetHeader("allow", allow)
	s.errorAnswer(c, 405, codeMethodNotAllowed, "method", msg)
}

// errorAnswer writes an Error body (message msg, code, the parameter concerned) with
// status, and the suggestions c gathered.
func (s *Server) errorAnswer(c *call, status int, code, param, msg string) {
	w := c.w
	w.Status = status
	s.common(w, cacheNone)
	if c.req.Method == "HEAD" {
		return
	}
	b := bytebuf.Put(w.Body, `{"error":`)
	b = jsonw.AppendJSONString(b, msg)
	b = bytebuf.Put(b, `,"code":"`)
	b = bytebuf.Put(b, code)
	b = bytebuf.PutByte(b, '"')
	if isParam(param) {
		b = jsonw.AppendMember(b, `,"param":`, text.Clean(param))
	}
	if len(c.sugg) > 0 {
		b = bytebuf.Put(b, `,"suggestions":[`)
		for i := range c.sugg {
			if i > 0 {
				b = bytebuf.PutByte(b, ',')
			}
			b = jsonw.AppendMember(b, `{"url":`, text.BytesString(c.sugg[i].url))
			b = jsonw.AppendMember(b, `,"reason":`, c.sugg[i].reason)
			b = bytebuf.PutByte(b, '}')
		}
		b = bytebuf.PutByte(b, ']')
	}
	w.Body = bytebuf.PutByte(b, '}')
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

// tooMany writes the 429: text/plain, as the spec says. Its code, rate_limited, is
// documented in the OpenAPI Error schema and never written.
//
//go:noinline
func (s *Server) tooMany(w *abi.Response, v limit.Verdict) {
	w.Status = 429
	w.SetHeader("content-type", "text/plain; charset=utf-8")
	w.SetHeader("x-content-type-options", "nosniff")
	w.SetHeader("access-control-allow-origin", "*")
	w.SetHeader("access-control-expose-headers", exposed)
	w.SetHeader("cache-control", "no-store")
	w.SetHeaderInt("retry-after", v.Reset)
	w.Body = bytebuf.Put(w.Body, "Too many requests: the limit is ")
	w.Body = jsonw.AppendInt(w.Body, v.Limit)
	w.Body = bytebuf.Put(w.Body, " requests per ")
	w.Body = jsonw.AppendInt(w.Body, s.cfg.RateWindowSeconds)
	w.Body = bytebuf.Put(w.Body, tooManyWho[v.Kind])
	w.Body = bytebuf.Put(w.Body, ". Retry in ")
	w.Body = jsonw.AppendInt(w.Body, v.Reset)
	w.Body = bytebuf.Put(w.Body, " seconds.\n")
}

// tooManyWho names, in a 429's text, who the exhausted bucket counts (by limit.Kind).
var tooManyWho = [...]string{limit.Address: " seconds per client", limit.Partner: " seconds for this partner key", limit.Agent: " seconds for this agent"}

// preflight answers a CORS preflight: any origin may GET.
func (s *Server) preflight(req *abi.Request, w *abi.Response) {
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
	b = bytebuf.PutByte(b, '"')
	b = text.AppendHex64(b, text.FNV64a(text.FNVOffset, text.BytesString(body)))
	return bytebuf.PutByte(b, '"')
}

// notModified reports whether If-None-Match matches etag (weak comparison, RFC 9110).
func notModified(req *abi.Request, etag string) bool {
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
// carries no Content-Type (RFC 9110 15.4.5: it has no content).
func (s *Server) static(req *abi.Request, w *abi.Response, body []byte, etag string) {
	if notModified(req, etag) {
		s.notModifiedAnswer(w, cacheStatic, etag)
		return
	}
	s.common(w, cacheStatic)
	w.SetHeader("etag", etag)
	w.Status = 200
	w.Body = bytebuf.PutBytes(w.Body, body)
}

// notModifiedAnswer writes a 304: the headers of the 200 but no Content-Type, no body.
func (s *Server) notModifiedAnswer(w *abi.Response, c cacheClass, etag string) {
	w.Status = 304
	w.SetHeaders(&s.headers.notModified[c])
	w.SetHeader("etag", etag)
}
