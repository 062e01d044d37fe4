package data

import (
	"testing"

	"github.com/tidwall/gjson"
)

func TestFilesAreValidJSON(t *testing.T) {
	files := Files()
	if len(files) != 7 {
		t.Fatalf("Files() has %d files, want 7", len(files))
	}
	for name, b := range files {
		if len(b) == 0 || !gjson.ValidBytes(b) {
			t.Errorf("%s: empty or not valid JSON", name)
		}
	}
}
