package mailbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"switchboard/internal/atomicfile"
)

// HubOutbox holds the copies routed here for agents on other hosts until
// the hub has them: one file each, named by the record's seq, the
// recipient and the message's id, so that they leave in the order they
// were routed, a copy routed again after a crash finds its file and is not
// written twice, and a file planted under a name to come cannot take a
// real copy's place (its id is not known before it is routed).
type HubOutbox struct {
	dir     string
	stage   string
	durable bool
}

// HubCopy is one copy waiting in the HubOutbox.
type HubCopy struct {
	Path    string
	Seq     int64
	To      string
	Message *Message
}

// HubOutbox is the store's outbox towards the hub; a dot name is never an
// agent's.
func (s *Store) HubOutbox() *HubOutbox {
	return &HubOutbox{dir: filepath.Join(s.Dir, ".hub", "outbox"), stage: s.Stage, durable: s.Durable}
}

// Dir is the folder of the waiting copies.
func (o *HubOutbox) Dir() string { return o.dir }

func (o *HubOutbox) name(seq int64, to, id string) string {
	return fmt.Sprintf("%020d-%s-%s.json", seq, to, id)
}

// Put writes m, the copy of record seq for to, unless it is there already;
// it reports whether it wrote it. The folder is synced by Sync.
func (o *HubOutbox) Put(seq int64, to string, m *Message) (bool, error) {
	if err := os.MkdirAll(o.dir, 0o700); err != nil {
		return false, fmt.Errorf("hub outbox: %w", err)
	}
	data, err := m.Encode()
	if err != nil {
		return false, err
	}
	opts := atomicfile.Options{Durable: o.durable, NoDirSync: true}
	if o.stage != "" {
		opts.TmpDir = o.stage
	}
	err = atomicfile.Publish(filepath.Join(o.dir, o.name(seq, to, m.ID)), data, opts)
	if errors.Is(err, ErrExists) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("hub outbox: copy of #%d for %s: %w", seq, to, err)
	}
	return true, nil
}

// Sync makes the copies put so far survive a power cut.
func (o *HubOutbox) Sync() error {
	if !o.durable {
		return nil
	}
	return atomicfile.SyncDir(o.dir)
}

// Waiting returns up to n copies, oldest first. A file that does not read
// as a copy (its name or its text) is skipped and reported in bad, to be
// looked at by a person; one that could not be read stops the listing
// there, with the error.
func (o *HubOutbox) Waiting(n int) (copies []HubCopy, bad []string, err error) {
	entries, err := os.ReadDir(o.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("hub outbox: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	for _, name := range names {
		if len(copies) == n {
			break
		}
		path := filepath.Join(o.dir, name)
		seqText, rest, ok := strings.Cut(strings.TrimSuffix(name, ".json"), "-")
		seq, err := strconv.ParseInt(seqText, 10, 64)
		m, loadErr := Load(path)
		if loadErr != nil && !errors.Is(loadErr, ErrInvalid) {
			return copies, bad, fmt.Errorf("hub outbox: %w", loadErr)
		}
		var to string
		if ok && err == nil && loadErr == nil {
			to, ok = strings.CutSuffix(rest, "-"+m.ID)
		}
		if !ok || err != nil || loadErr != nil || to == "" {
			bad = append(bad, path)
			continue
		}
		copies = append(copies, HubCopy{Path: path, Seq: seq, To: to, Message: m})
	}
	return copies, bad, nil
}

// Refuse moves a file (of Waiting's copies or bad ones) that is not a copy
// the master routed out of the way, into .hub/unsent/ beside the outbox,
// for a person to look at; it returns where it went.
func (o *HubOutbox) Refuse(path string) (string, error) {
	dir := filepath.Join(filepath.Dir(o.dir), "unsent")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("hub outbox: %w", err)
	}
	to := filepath.Join(dir, filepath.Base(path))
	if err := os.Rename(path, to); err != nil {
		return "", fmt.Errorf("hub outbox: %w", err)
	}
	return to, nil
}

// Recipients lists, by the seq of their record, the recipients whose copies
// still wait for the hub, from the files' names alone.
func (o *HubOutbox) Recipients() (map[int64][]string, error) {
	entries, err := os.ReadDir(o.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hub outbox: %w", err)
	}
	out := make(map[int64][]string)
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || strings.HasPrefix(name, ".") {
			continue
		}
		seqText, rest, ok := strings.Cut(name, "-")
		seq, err := strconv.ParseInt(seqText, 10, 64)
		// The id, last, is a UUID: its dashes are the last four.
		parts := strings.Split(rest, "-")
		if !ok || err != nil || len(parts) < 6 {
			continue
		}
		out[seq] = append(out[seq], strings.Join(parts[:len(parts)-5], "-"))
	}
	return out, nil
}

// Done removes a copy the hub has.
func (o *HubOutbox) Done(c HubCopy) error {
	if err := os.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("hub outbox: %w", err)
	}
	return nil
}
