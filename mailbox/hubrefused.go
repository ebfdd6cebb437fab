package mailbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"switchboard/internal/atomicfile"
	"switchboard/internal/safetext"
)

// HubRefused keeps a note of each copy from another host that this host's
// master refused, with its reason: one file each in .hub/refused/, the
// newest RefusedKept of them, and how many each host had refused in
// counts.json. The hub forgets a refused copy; this is what is left of it.
type HubRefused struct {
	dir     string
	stage   string
	durable bool

	mu   sync.Mutex
	kept int // notes written since the folder was last pruned
}

// RefusedCopy is the note of one refused copy.
type RefusedCopy struct {
	ID        string    `json:"id"`
	Host      string    `json:"host"` // that published it
	From      string    `json:"from"`
	To        string    `json:"to"`
	Reason    string    `json:"reason"`
	Published time.Time `json:"published,omitzero"` // by the hub's clock
	Refused   time.Time `json:"refused"`
	// Body is the copy as it came, shown as printable text and cut to
	// RefusedBodyMax bytes (Clipped).
	Body    string `json:"body,omitempty"`
	Clipped bool   `json:"clipped,omitempty"`
}

// RefusedCount is how many copies one host had refused, and the last.
type RefusedCount struct {
	Copies     int       `json:"copies"`
	Last       time.Time `json:"last"`
	LastReason string    `json:"last_reason"`
}

// Bounds of what is kept of refused copies: a host that floods, or sends
// names of megabytes, cannot fill this host's disk. A note keeps each name
// (id, hosts, agents) to refusedNameMax characters and its reason to
// refusedReasonMax, each shown once as printable text: a note is a few
// KiB at most, RefusedNoteMax.
const (
	RefusedKept      = 1000
	RefusedBodyMax   = 2 << 10
	RefusedNoteMax   = 8 << 10
	refusedNameMax   = 128
	refusedReasonMax = 512
)

// HubRefused is the store's note of refused copies; a dot name is never an
// agent's.
func (s *Store) HubRefused() *HubRefused {
	return &HubRefused{dir: filepath.Join(s.Dir, ".hub", "refused"), stage: s.Stage, durable: s.Durable}
}

// Dir is the folder of the notes.
func (r *HubRefused) Dir() string { return r.dir }

func (r *HubRefused) countsPath() string { return filepath.Join(r.dir, "counts.json") }

// Keep writes the note of a refused copy and counts it, once: a copy the
// hub delivers again (its refusal did not reach the hub) is not counted
// twice. It reports whether the note is new.
func (r *HubRefused) Keep(c RefusedCopy, body []byte) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return false, fmt.Errorf("refused copies: %w", err)
	}
	name := refusedName(c) // of the copy's own names, before they are cut
	c.bound(body)
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return false, err
	}
	opts := atomicfile.Options{Durable: r.durable}
	if r.stage != "" {
		opts.TmpDir = r.stage
	}
	err = atomicfile.Publish(filepath.Join(r.dir, name), append(data, '\n'), opts)
	if errors.Is(err, ErrExists) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("refused copies: note of %s from host %s: %w", c.ID, c.Host, err)
	}
	counts, err := r.Counts()
	if err != nil {
		return true, err
	}
	n := counts[c.Host]
	n.Copies++
	n.Last, n.LastReason = c.Refused, c.Reason
	counts[c.Host] = n
	data, err = json.MarshalIndent(counts, "", "  ")
	if err != nil {
		return true, err
	}
	if err := atomicfile.WriteFile(r.countsPath(), append(data, '\n'), opts); err != nil {
		return true, fmt.Errorf("refused copies: counts: %w", err)
	}
	if r.kept++; r.kept >= RefusedKept/10 {
		r.kept = 0
		r.prune()
	}
	return true, nil
}

// bound cuts the note's names, reason and body to their bounds, each
// shown once as printable text.
func (c *RefusedCopy) bound(body []byte) {
	for _, name := range []*string{&c.ID, &c.Host, &c.From, &c.To} {
		*name = safetext.Short(*name, refusedNameMax)
	}
	c.Reason = safetext.Short(c.Reason, refusedReasonMax)
	text := safetext.Text(strings.ToValidUTF8(string(body), "\uFFFD"))
	if len(text) > RefusedBodyMax {
		cut := RefusedBodyMax
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut-- // whole characters only
		}
		text, c.Clipped = text[:cut], true
	}
	c.Body = text
}

// refusedName names a note by what it is about, so that the same copy
// refused twice has one note; the id is a hash, as a hostile host chooses
// it.
func refusedName(c RefusedCopy) string {
	sum := sha256.Sum256([]byte(c.Host + "\x00" + c.ID + "\x00" + c.To))
	return "copy-" + hex.EncodeToString(sum[:12]) + ".json"
}

// prune removes the oldest notes beyond RefusedKept.
func (r *HubRefused) prune() {
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return
	}
	type note struct {
		name string
		at   time.Time
	}
	var notes []note
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "copy-") {
			continue
		}
		if fi, err := e.Info(); err == nil {
			notes = append(notes, note{e.Name(), fi.ModTime()})
		}
	}
	if len(notes) <= RefusedKept {
		return
	}
	slices.SortFunc(notes, func(a, b note) int { return a.at.Compare(b.at) })
	for _, n := range notes[:len(notes)-RefusedKept] {
		_ = os.Remove(filepath.Join(r.dir, n.name))
	}
}

// Counts is how many copies each host had refused here; none is no file.
func (r *HubRefused) Counts() (map[string]RefusedCount, error) {
	counts := make(map[string]RefusedCount)
	data, err := os.ReadFile(r.countsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return counts, nil
	}
	if err != nil {
		return nil, fmt.Errorf("refused copies: %w", err)
	}
	if err := json.Unmarshal(data, &counts); err != nil {
		return nil, fmt.Errorf("refused copies: %s: %w", r.countsPath(), err)
	}
	return counts, nil
}

// Newest returns up to n notes, newest first.
func (r *HubRefused) Newest(n int) ([]RefusedCopy, error) {
	entries, err := os.ReadDir(r.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("refused copies: %w", err)
	}
	var out []RefusedCopy
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "copy-") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(r.dir, e.Name()))
		if err != nil {
			continue // pruned meanwhile
		}
		var c RefusedCopy
		if json.Unmarshal(data, &c) == nil {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b RefusedCopy) int { return b.Refused.Compare(a.Refused) })
	return out[:min(n, len(out))], nil
}
