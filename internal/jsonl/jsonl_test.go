package jsonl

import (
	"os"
	"path/filepath"
	"testing"
)

func TestValuesAreAppendedALineEach(t *testing.T) {
	path := filepath.Join(t.TempDir(), "record.jsonl")
	if err := Append(path, map[string]int{"seq": 1}, true); err != nil {
		t.Fatal(err)
	}
	if err := AppendAll(path, []any{map[string]int{"seq": 2}, "three"}, false); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if want := "{\"seq\":1}\n{\"seq\":2}\n\"three\"\n"; err != nil || string(data) != want {
		t.Errorf("the record holds %q, %v; want %q", data, err, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the record: %v; want a file private to the user", err)
	}
}

// TestALinkInTheRecordsPlaceIsNotFollowed: a link someone put where the
// record goes is refused, and what it points at is left as it was.
func TestALinkInTheRecordsPlaceIsNotFollowed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, []byte("kept\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "record.jsonl")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, 1, false); err == nil {
		t.Error("a value was appended through a link")
	}
	if data, _ := os.ReadFile(target); string(data) != "kept\n" {
		t.Errorf("the file the link points at now holds %q", data)
	}
}
