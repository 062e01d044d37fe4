//go:build !wasip1

package main

import (
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/api"
)

// httpHandler adapts api.Server to net/http for the standard-Go builds. core is not
// safe for concurrent use (in a Worker isolate requests reach the module one at a
// time), so calls are serialised.
type httpHandler struct {
	mu   sync.Mutex
	s    *api.Server
	req  abi.Request
	resp abi.Response
}

func (h *httpHandler) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.req.Method = r.Method
	h.req.Target = r.URL.RequestURI()
	if r.RequestURI != "" && strings.HasPrefix(r.RequestURI, "/") {
		h.req.Target = r.RequestURI
	}
	h.req.Headers = h.req.Headers[:0]
	for _, name := range api.RequestHeaders {
		// Values, joined: syumai's bridge gives a list header (If-None-Match: a, b) as
		// several values, and Get would see only the first.
		h.req.Headers = append(h.req.Headers, abi.Header{Name: name, Value: strings.Join(r.Header.Values(name), ", ")})
	}
	h.req.Body = nil
	if r.Body != nil && r.Method != "GET" && r.Method != "HEAD" {
		h.req.Body, _ = io.ReadAll(io.LimitReader(r.Body, 1<<20))
	}
	h.s.Handle(&h.req, &h.resp)
	d, err := abi.DecodeResponse(h.resp.Encode())
	if err != nil {
		http.Error(rw, `{"error":"internal error"}`, 500)
		return
	}
	hdr := rw.Header()
	for _, x := range d.Headers {
		if !strings.HasPrefix(x.Name, ":") {
			hdr[http.CanonicalHeaderKey(x.Name)] = append(hdr[http.CanonicalHeaderKey(x.Name)], x.Value)
		}
	}
	rw.WriteHeader(d.Status)
	if d.Status != 204 && d.Status != 304 && r.Method != "HEAD" {
		rw.Write(d.Body)
	}
}
