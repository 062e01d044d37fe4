package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"testing"

	"github.com/campervan/agent-api/core/views"
)

// TestGeneratedViews: core/views/views.lz4 holds exactly the documents src/ makes now (a
// changed source without go generate fails here), each within its size budget.
func TestGeneratedViews(t *testing.T) {
	docs, err := Documents("../../core/views/src")
	if err != nil {
		t.Fatal(err)
	}
	packed, err := os.ReadFile("../../core/views/views.lz4")
	if err != nil {
		t.Fatal(err)
	}
	got := views.Unpack(packed)
	for i, v := range views.All {
		if !bytes.Equal(got[i], docs[i]) || !bytes.Equal(views.HTML(i), docs[i]) {
			t.Errorf("view %s: views.lz4 is not what core/views/src makes: run go generate ./core/views", v.Name)
		}
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, 9)
		w.Write(docs[i])
		w.Close()
		t.Logf("view %s: %d bytes, %d gzipped", v.Name, len(docs[i]), z.Len())
		if len(docs[i]) > 150<<10 || z.Len() > 60<<10 {
			t.Errorf("view %s: %d bytes (%d gzipped), over 150 KB (60 KB)", v.Name, len(docs[i]), z.Len())
		}
		code := bytes.ReplaceAll(docs[i], []byte(`"http://www.w3.org/2000/svg"`), nil) // a namespace name, not a URL fetched
		for _, bad := range []string{"http://", "https://", "eval(", "new Function", "src=", "@import", "url("} {
			if bytes.Contains(code, []byte(bad)) {
				t.Errorf("view %s holds %q: a view loads nothing from elsewhere and evaluates no strings", v.Name, bad)
			}
		}
	}
}
