package clientinbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

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
