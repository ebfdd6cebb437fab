package mailbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"switchboard/internal/atomicfile"
)

// The life of a file in an agent's outbox: Pending lists it, OpenPending
// reads it as the message it posts (or refuses it), and it leaves by
// MarkSent once routed, or by Reject and then Rejection.Finish when it is
// not a valid message.

// Pending lists the message files waiting in the agent's outbox, by path:
// names ending in .json, dot names (files still being written) aside. An
// outbox that went away is made again, empty.
func (s *Store) Pending(agent string) ([]string, error) {
	messages, _, err := s.Outbox(agent)
	return messages, err
}

// Outbox lists what waits in the agent's outbox, by path, with one look at
// the folder: the message files (as Pending) and the errands (see package
// errand), folders and dot names aside. An outbox that went away is made again,
// empty.
func (s *Store) Outbox(agent string) (messages, errands []string, err error) {
	dir := s.OutboxDir(agent)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, s.Ensure(agent)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read outbox of %s: %w", agent, err)
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "."):
		case strings.HasSuffix(name, ".json"):
			messages = append(messages, filepath.Join(dir, name))
		case IsErrandName(name) && !e.IsDir():
			errands = append(errands, filepath.Join(dir, name))
		}
	}
	return messages, errands, nil
}

// ErrandSuffix ends the name of an errand a command leaves in an outbox
// for the master to do on the hub (see package errand).
const ErrandSuffix = ".errand"

// IsErrandName reports whether an outbox file's name is an errand's.
func IsErrandName(name string) bool {
	return strings.HasSuffix(name, ErrandSuffix) && !strings.HasPrefix(name, ".")
}

// ErrandID is the id of the errand at path: its file's name without
// .errand, which names its answer.
func ErrandID(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ErrandSuffix)
}

// Refusal is why an outbox file was refused without being read.
type Refusal string

func (r Refusal) Error() string { return string(r) }

// Unsettled is an outbox file that is not whole JSON yet: it may still be
// being written. Stamp changes when the file does.
type Unsettled struct {
	Stamp string
	Err   error // why it is not a message, wrapping ErrIncomplete
}

func (u *Unsettled) Error() string { return u.Err.Error() }
func (u *Unsettled) Unwrap() error { return u.Err }

// OpenPending reads the file at path in the agent's outbox as the message
// the agent posts: its sender filled in when left out, its id and time too
// (written back to the file before anything of it is delivered, so that a
// master restarted after a crash finds the same message). It returns an
// error wrapping fs.ErrNotExist when the file went meanwhile, an
// *Unsettled one when it may be half-written, and a Refusal, which says
// why, when it is not a valid message of this agent.
func (s *Store) OpenPending(agent, path string, now time.Time) (*Message, error) {
	data, stamp, err := ReadPending(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	msg, err := Parse(data)
	if errors.Is(err, ErrIncomplete) {
		return nil, &Unsettled{Stamp: stamp, Err: err}
	}
	if err != nil {
		return nil, Refusal(err.Error())
	}
	if msg.From == "" {
		msg.From = agent
	}
	if msg.From != agent {
		return nil, Refusal(fmt.Sprintf("spoofed sender: \"from\" is %q, but the message was posted in the outbox of %s", msg.From, agent))
	}
	normalized := msg.Normalize(now)
	if msg.Via != "" {
		// Only a master says which host a copy came from.
		msg.Via, normalized = "", true
	}
	if err := msg.Validate(); err != nil {
		return nil, Refusal(err.Error())
	}
	if normalized {
		if err := s.fixPending(agent, path, msg); err != nil {
			return nil, fmt.Errorf("fill in the id of %s: %w", path, err)
		}
	}
	return msg, nil
}

// ReadPending reads a file an agent dropped in its outbox, and a stamp that
// changes when the file does. Symbolic links, anything but a regular file,
// and files over limit bytes are refused unread (a Refusal). The file is
// opened so that one swapped for a link or a pipe after the check can
// neither redirect nor block the read.
func ReadPending(path string, limit int64) (data []byte, stamp string, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, "", err
	}
	if err := checkPending(fi, limit); err != nil {
		return nil, "", err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, "", Refusal("refused unread: it is a symbolic link; write the file itself into the outbox")
	case errors.Is(err, fs.ErrPermission):
		return nil, "", Refusal("refused unread: the master may not read it; write files it can read (mode 0600 or wider)")
	case err != nil:
		return nil, "", err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, "", err
	}
	if err := checkPending(fi, limit); err != nil {
		return nil, "", err
	}
	data, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, "", err
	}
	if int64(len(data)) > limit {
		return nil, "", Refusal(fmt.Sprintf("refused unread: the file is over the limit of %d bytes", limit))
	}
	return data, fmt.Sprintf("%d/%d", fi.Size(), fi.ModTime().UnixNano()), nil
}

func checkPending(fi fs.FileInfo, limit int64) error {
	switch mode := fi.Mode(); {
	case mode&fs.ModeSymlink != 0:
		return Refusal("refused unread: it is a symbolic link; write the file itself into the outbox")
	case !mode.IsRegular():
		return Refusal(fmt.Sprintf("refused unread: it is %s, not a file; write the file itself into the outbox", kindOf(mode)))
	case fi.Size() > limit:
		return Refusal(fmt.Sprintf("refused unread: the file is %d bytes, over the limit of %d", fi.Size(), limit))
	}
	return nil
}

// kindOf names what a directory entry that is not a regular file is.
func kindOf(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a folder"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// MarkSent moves a routed outbox file to sent/, under name (its delivered
// name). Unsynced: a move lost to a crash is made again by the next pass,
// which finds the message logged already.
func (s *Store) MarkSent(agent, path, name string) error {
	err := atomicfile.Move(path, filepath.Join(s.SentDir(agent), name), false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // moved by an earlier pass
	}
	return err
}

// Rejection is an outbox file on its way to rejected/: its reason is
// written beside its new place, and Finish moves it there.
type Rejection struct {
	Name    string    // the name the agent gave it
	Path    string    // where it lies in rejected/ once moved
	Size    int64     // as it was found
	ModTime time.Time // as it was found
	from    string
}

// Reject starts moving an invalid file out of the agent's outbox: it picks
// a name in rejected/ that is free (the file's own, else with its time
// added) and writes the reason into <name>.error there. Finish moves the
// file; in between, the caller tells the sender, so that a crash repeats
// the telling rather than losing it.
func (s *Store) Reject(agent, path, reason string) (*Rejection, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	target := filepath.Join(s.RejectedDir(agent), rejectedName(name, ""))
	if _, err := os.Lstat(target); err == nil {
		target = filepath.Join(s.RejectedDir(agent), rejectedName(name, fmt.Sprintf(".%d", fi.ModTime().UnixNano())))
	}
	opts := atomicfile.Options{TmpDir: s.StageFor(agent), Durable: s.Durable}
	if err := atomicfile.WriteFile(target+".error", []byte(reason+"\n"), opts); err != nil {
		return nil, fmt.Errorf("reject %s: %w", name, err)
	}
	return &Rejection{Name: name, Path: target, Size: fi.Size(), ModTime: fi.ModTime(), from: path}, nil
}

// maxName is the longest file name most filesystems take.
const maxName = 255

// rejectedName is the name of a rejected file in rejected/: its own, with
// suffix added, when that and the reason's name beside it (<name>.error)
// fit; else a short name derived from it.
func rejectedName(name, suffix string) string {
	base := strings.TrimSuffix(name, ".json") + suffix + ".json"
	if len(base)+len(".error") <= maxName {
		return base
	}
	sum := sha256.Sum256([]byte(name))
	return "long-name-" + hex.EncodeToString(sum[:8]) + suffix + ".json"
}

// Finish moves the rejected file to its place in rejected/.
func (r *Rejection) Finish() error {
	return atomicfile.Move(r.from, r.Path, false)
}

// SweepTemporaries removes the temporary files of the agent's mailbox older
// than cutoff: writers that died between writing and publishing left them.
func (s *Store) SweepTemporaries(agent string, cutoff time.Time) {
	for _, dir := range []string{s.TmpDir(agent), s.OutboxDir(agent)} {
		sweep(dir, cutoff)
	}
}

// SweepStage removes what writes into the master's stage folder left,
// older than cutoff.
func (s *Store) SweepStage(cutoff time.Time) {
	if s.Stage != "" {
		sweep(s.Stage, cutoff)
	}
}

// sweep removes the temporary files in dir older than cutoff.
func sweep(dir string, cutoff time.Time) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && strings.HasPrefix(e.Name(), ".tmp-") && info.ModTime().Before(cutoff) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// IsUnread reports whether the agent's inbox still holds the delivered file
// name unread.
func (s *Store) IsUnread(agent, name string) bool {
	_, err := os.Lstat(s.UnreadPath(agent, name))
	return err == nil
}

// fixPending writes back an outbox file whose message had fields filled in.
func (s *Store) fixPending(agent, path string, m *Message) error {
	data, err := m.Encode()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, atomicfile.Options{TmpDir: s.StageFor(agent), Durable: s.Durable})
}
