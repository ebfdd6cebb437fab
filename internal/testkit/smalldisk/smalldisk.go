package smalldisk

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes on a new folder of the test's own and
// returns it; the test's cleanup unmounts it. Mounting needs root, or a user
// and mount namespace of one's own: where neither is at hand the test is
// skipped, saying how to run it.
func Mount(t testing.TB, size int64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.FormatInt(size, 10)+",mode=0700", "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("cannot mount a small tmpfs to fill up (%v: %s); run the tests as root, or under `unshare -Urm`", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("unmount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// Fill writes a new file in dir until the disk has no block left and
// returns a function that frees them again.
func Fill(t testing.TB, dir string) (free func()) {
	t.Helper()
	f, err := os.CreateTemp(dir, "filler-")
	if err != nil {
		t.Fatal(err)
	}
	path := f.Name()
	defer f.Close()
	block := make([]byte, 64<<10)
	for len(block) > 0 {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			block = block[:len(block)/2] // the last blocks, a smaller write at a time
		}
	}
	return func() {
		if err := os.Remove(path); err != nil {
			t.Errorf("free the disk: %v", err)
		}
	}
}
