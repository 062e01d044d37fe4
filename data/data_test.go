package data

import (
	"bytes"
	"testing"

	"github.com/tidwall/gjson"
)

func TestFilesAreValidJSON(t *testing.T) {
	files := Files()
	if len(files) != 8 {
		t.Fatalf("Files() has %d files, want 8", len(files))
	}
	for name, b := range files {
		if len(b) == 0 || !gjson.ValidBytes(b) {
			t.Errorf("%s: empty or not valid JSON", name)
		}
	}
}

func TestReadDirIsFiles(t *testing.T) {
	got, err := ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	want := Files()
	if len(got) != len(want) {
		t.Fatalf("ReadDir(.) has %d files, Files() %d", len(got), len(want))
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s: ReadDir differs from the embedded file", name)
		}
	}
	if _, err := ReadDir(t.TempDir()); err == nil {
		t.Error("ReadDir of an empty directory: no error")
	}
}
