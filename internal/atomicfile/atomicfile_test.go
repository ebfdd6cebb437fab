package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestPublishNeverReplacesAndLeavesNoTemporaries(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	path := filepath.Join(dir, "m.json")
	durable := Options{TmpDir: tmp, Durable: true}
	if err := Publish(path, []byte("first"), durable); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := Publish(path, []byte("second"), durable); !errors.Is(err, ErrExists) {
			t.Errorf("Publish over a taken name = %v; want ErrExists", err)
		}
	}
	if data, _ := os.ReadFile(path); string(data) != "first" {
		t.Errorf("the file now holds %q; Publish must never replace", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("published file mode %v; want 0600", fi.Mode().Perm())
	}
	if err := WriteFile(path, []byte("third"), Options{TmpDir: tmp}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "third" {
		t.Errorf("WriteFile left %q", data)
	}
	for _, d := range []string{tmp, dir} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if e.Name() != "m.json" {
				t.Errorf("%s left behind in %s", e.Name(), d)
			}
		}
	}
}

func TestCleanupAfterAFailedWriteLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "bin"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half"))
	if err := f.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	if err := f.Cleanup(); err != nil {
		t.Errorf("a second Cleanup = %v; want nothing to do", err)
	}
}
