package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestFilesFinishedTogetherAreSyncedOnceAndPublishedWhole: FinishAll syncs
// each durable file once; publishing them after syncs none again, and each
// holds what was written. A file whose sync fails is reported, and left to
// Cleanup.
func TestFilesFinishedTogetherAreSyncedOnceAndPublishedWhole(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	var mu sync.Mutex
	synced := make(map[string]int)
	failing := "" // the name of the temporary file whose sync fails
	hook := func(path string) error {
		mu.Lock()
		defer mu.Unlock()
		if filepath.Base(path) == failing {
			return errors.New("an input/output error, for the test")
		}
		synced[path]++
		return nil
	}
	var files []*File
	for i := range 6 {
		f, err := Create(filepath.Join(dir, fmt.Sprintf("%d.json", i)), Options{TmpDir: tmp, Durable: true, NoDirSync: true, Hook: hook})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Cleanup()
		if _, err := fmt.Fprintf(f, "message %d", i); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	failing = filepath.Base(files[2].Name())
	errs := FinishAll(files)
	for i, f := range files {
		if (errs[i] != nil) != (i == 2) {
			t.Errorf("file %d: %v", i, errs[i])
		}
		if i == 2 {
			continue
		}
		if err := f.CloseAtomicallyPublish(); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.json", i))); string(data) != fmt.Sprintf("message %d", i) {
			t.Errorf("file %d holds %q", i, data)
		}
	}
	files[2].Cleanup()
	if len(synced) != 5 {
		t.Errorf("%d files synced; want the 5 whose sync went through", len(synced))
	}
	for path, n := range synced {
		if n != 1 {
			t.Errorf("%s synced %d times; want once", path, n)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporaries left: %v", left)
	}
}
