package profiling

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// A program run with the variable writes its profile as it ends; one that
// becomes another program leaves none; a delay that is no duration is said.
func TestAProfileIsWrittenWhenAskedAndDroppedBeforeAnExec(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(Env, dir)
	if err := FromEnv("switchboard"); err != nil {
		t.Fatal(err)
	}
	Stop()
	written := filepath.Join(dir, "switchboard-"+strconv.Itoa(os.Getpid())+".pprof")
	if info, err := os.Stat(written); err != nil || info.Size() == 0 {
		t.Errorf("no profile written at %s: %v", written, err)
	}
	os.Remove(written)

	if err := FromEnv("switchboard"); err != nil {
		t.Fatal(err)
	}
	Discard()
	if _, err := os.Stat(written); !os.IsNotExist(err) {
		t.Errorf("the profile of a process that execs another is left at %s", written)
	}

	t.Setenv(EnvAfter, "soon")
	if err := FromEnv("switchboard"); err == nil {
		t.Errorf("%s=soon is taken; want an error naming it", EnvAfter)
	}
}
