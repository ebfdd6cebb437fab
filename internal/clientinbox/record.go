package clientinbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"switchboard/internal/atomicfile"
)

// Record is what an agent's client said of its session when it started,
// through its start-up hook: which session it is, where its conversation
// is kept, and where the client keeps its sessions. The session is found
// by this record alone, never by "the latest in this folder", so that no
// agent is sent another's session.
type Record struct {
	SessionID  string `json:"session_id"`
	Transcript string `json:"transcript_path,omitempty"`
	ConfigDir  string `json:"config_dir,omitempty"`
}

// Write replaces the record at path, staging it in tmpDir (its folder when
// ""). It is not synced: a lost record is written again when the client
// next starts.
func (r Record) Write(path, tmpDir string) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'), atomicfile.Options{TmpDir: tmpDir})
}

// ReadRecord reads the record at path; ok is false when there is none.
func ReadRecord(path string) (r Record, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return Record{}, false, fmt.Errorf("read %s: %w", path, err)
	}
	return r, r.SessionID != "", nil
}

// Session is the live session the record names.
func (r Record) Session() (Session, error) { return Find(r.ConfigDir, r.SessionID) }

// AddTranscript adds a transcript to the list at path (one path a line),
// unless it is there already: every conversation an agent had, for what
// its client spent.
func AddTranscript(path, transcript string) error {
	if transcript == "" || strings.ContainsAny(transcript, "\n\r") {
		return nil
	}
	if slices.Contains(Transcripts(path), transcript) {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(transcript + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Transcripts lists the transcripts at path.
func Transcripts(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var list []string
	for _, line := range strings.Split(string(data), "\n") {
		if line != "" {
			list = append(list, line)
		}
	}
	return list
}
