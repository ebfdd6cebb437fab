package mailbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"switchboard/internal/atomicfile"
)

// Folder names inside an agent's mailbox.
const (
	inboxDir    = "inbox"
	readDir     = "read"
	outboxDir   = "outbox"
	sentDir     = "sent"
	rejectedDir = "rejected"
	tmpDir      = "tmp"
)

// ErrNotFound is returned when no message matches an id.
var ErrNotFound = errors.New("no such message")

// ErrAmbiguousID ends the error of an id prefix that starts the ids of
// more than one message.
var ErrAmbiguousID = errors.New("give more of the id")

// Store is the mailboxes folder of a workspace. Durable makes every write
// fsync its file and folder; turning it off is for benchmarks and tests.
// Stage, when set, is where the store's atomic writes into mailboxes put
// their temporary files, instead of each agent's tmp/ folder: the master
// sets it to a folder of its own, so that no agent can point where the
// master writes. Hook, when set, hears of every sync of a delivery into an
// inbox (see atomicfile.SyncHook).
type Store struct {
	Dir     string
	Durable bool
	Stage   string
	Hook    atomicfile.SyncHook
}

// StageDir is the master's folder for temporary files (see Store.Stage).
func (s *Store) StageDir() string { return filepath.Join(s.Dir, ".stage") }

// UseStage makes the store's writes into mailboxes put their temporary
// files in the master's own folder (StageDir), made now.
func (s *Store) UseStage() error {
	dir := s.StageDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("make the folder for temporary files: %w", err)
	}
	s.Stage = dir
	return nil
}

// StageFor is where a write into agent's mailbox puts its temporary file.
func (s *Store) StageFor(agent string) string {
	if s.Stage != "" {
		return s.Stage
	}
	return s.TmpDir(agent)
}

// NewStore returns the store under a workspace's mailboxes folder.
func NewStore(workspace string) *Store {
	return &Store{Dir: filepath.Join(workspace, "mailboxes"), Durable: true}
}

// AgentDir is the agent's mailbox.
func (s *Store) AgentDir(agent string) string { return filepath.Join(s.Dir, agent) }

// InboxDir holds the agent's unread messages.
func (s *Store) InboxDir(agent string) string { return filepath.Join(s.Dir, agent, inboxDir) }

// UnreadPath is where the agent's unread message delivered under name lies.
func (s *Store) UnreadPath(agent, name string) string {
	return filepath.Join(s.InboxDir(agent), name)
}

// ReadDir holds the messages the agent has read.
func (s *Store) ReadDir(agent string) string { return filepath.Join(s.Dir, agent, inboxDir, readDir) }

// OutboxDir is the agent's drop zone, watched by the master.
func (s *Store) OutboxDir(agent string) string { return filepath.Join(s.Dir, agent, outboxDir) }

// SentDir holds the agent's routed messages.
func (s *Store) SentDir(agent string) string { return filepath.Join(s.Dir, agent, outboxDir, sentDir) }

// RejectedDir holds the agent's invalid messages, each with a .error file.
func (s *Store) RejectedDir(agent string) string {
	return filepath.Join(s.Dir, agent, outboxDir, rejectedDir)
}

// TmpDir holds temporary files of atomic writes into the agent's mailbox.
func (s *Store) TmpDir(agent string) string { return filepath.Join(s.Dir, agent, tmpDir) }

// LogPath is the audit log.
func (s *Store) LogPath() string { return filepath.Join(s.Dir, "log", "messages.jsonl") }

// ReservePath is the file of room the master keeps beside the log, to give
// back when the disk fills up.
func (s *Store) ReservePath() string { return filepath.Join(s.Dir, "log", "reserve") }

// Ensure creates the mailboxes folder, the log folder and the folders of one
// agent's mailbox, all private to the user.
func (s *Store) Ensure(agent string) error {
	if err := ValidateAgentName(agent); err != nil {
		return err
	}
	for _, dir := range []string{s.Dir, filepath.Dir(s.LogPath())} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create mailbox of %s: %w", agent, err)
		}
	}
	// The agent's own folders are made one by one, and none through a link
	// an agent put in their place: Unlink replaces such links.
	for _, dir := range s.agentDirs(agent) {
		if err := mkdirNoFollow(dir); err != nil {
			return fmt.Errorf("create mailbox of %s: %w", agent, err)
		}
	}
	return nil
}

// agentDirs are an agent's mailbox folders, each after the folder it is in.
func (s *Store) agentDirs(agent string) []string {
	return []string{s.AgentDir(agent), s.InboxDir(agent), s.ReadDir(agent), s.OutboxDir(agent), s.SentDir(agent), s.RejectedDir(agent), s.TmpDir(agent)}
}

// ErrLinkedFolder is a mailbox folder that is a symbolic link: no one
// writes through it.
var ErrLinkedFolder = errors.New("a link in the place of a mailbox folder")

// mkdirNoFollow makes the folder dir, whose parent exists, unless it is
// there; it refuses a link in its place.
func mkdirNoFollow(dir string) error {
	err := os.Mkdir(dir, 0o700)
	if err == nil || !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s: %w", dir, ErrLinkedFolder)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a folder", dir)
	}
	return nil
}

// Unlink replaces each of the agent's mailbox folders that is a symbolic
// link by a folder, and returns the links it removed with where they
// pointed. The master writes and moves files in these folders on an agent's
// say-so; through a link they would land wherever the agent pointed it.
// (A process that can swap a folder for a link between this check and the
// master's next step still can: an agent in a container gets each folder as
// a mount of its own, which it cannot swap.)
func (s *Store) Unlink(agent string) (removed []string, err error) {
	if err := ValidateAgentName(agent); err != nil {
		return nil, err
	}
	for _, dir := range s.agentDirs(agent) {
		fi, err := os.Lstat(dir)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		target, _ := os.Readlink(dir)
		if err := os.Remove(dir); err != nil {
			return removed, fmt.Errorf("remove the link %s: %w", dir, err)
		}
		removed = append(removed, dir+" → "+target)
	}
	if len(removed) > 0 {
		return removed, s.Ensure(agent)
	}
	return nil, nil
}

// Post drops a message into the agent's outbox, where the master picks it up.
// It returns the file name.
func (s *Store) Post(agent string, m *Message) (string, error) {
	if err := s.Ensure(agent); err != nil {
		return "", err
	}
	data, err := m.Encode()
	if err != nil {
		return "", err
	}
	name := FileName(m.Timestamp, m.Priority, m.ID)
	// The temporary file is made in the outbox itself, where its dot name
	// keeps it from the master: an outbox given to a contained agent as a
	// mount of its own is then all it needs to post.
	if err := atomicfile.Publish(filepath.Join(s.OutboxDir(agent), name), data, atomicfile.Options{TmpDir: s.OutboxDir(agent), Durable: s.Durable}); err != nil {
		return "", err
	}
	return name, nil
}

// Deliver writes a copy of m into the agent's inbox under the name given by
// m.DeliveredAt, m.Priority and m.ID. Delivering the same copy again is a
// no-op, also after the agent has read it: delivered reports whether this call
// wrote it. When durable, the inbox folder is synced too.
func (s *Store) Deliver(agent string, m *Message) (delivered bool, err error) {
	delivered, err = s.DeliverUnsynced(agent, m)
	if delivered && s.Durable {
		err = s.Hook.SyncDir(s.InboxDir(agent))
	}
	return delivered, err
}

// DeliverUnsynced is Deliver without the sync of the inbox folder, for a
// caller that delivers a batch and syncs each folder once (SyncDir). A
// mailbox that went away meanwhile is made again first.
func (s *Store) DeliverUnsynced(agent string, m *Message) (delivered bool, err error) {
	delivered, err = s.deliverUnsynced(agent, m)
	if errors.Is(err, fs.ErrNotExist) {
		if err = s.Ensure(agent); err == nil {
			delivered, err = s.deliverUnsynced(agent, m)
		}
	}
	return delivered, err
}

func (s *Store) deliverUnsynced(agent string, m *Message) (delivered bool, err error) {
	name := FileName(m.DeliveredAt, m.Priority, m.ID)
	// The inbox is checked before read/: a file moves only from the first to
	// the second, so one of the two checks sees it.
	for _, dir := range []string{s.InboxDir(agent), s.ReadDir(agent)} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return false, nil
		}
	}
	data, err := m.Encode()
	if err != nil {
		return false, err
	}
	err = atomicfile.Publish(s.UnreadPath(agent, name), data, atomicfile.Options{TmpDir: s.StageFor(agent), Durable: s.Durable, NoDirSync: true, Hook: s.Hook})
	if errors.Is(err, ErrExists) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("deliver %s to %s: %w", m.ID, agent, err)
	}
	return true, nil
}

// Box selects the unread messages, the read ones, or both.
type Box int

const (
	Unread Box = 1 << iota
	Read
	All = Unread | Read
)

// Entry is a delivered file in an inbox.
type Entry struct {
	FileInfo
	Path string
	Read bool
}

// List returns the agent's delivered messages, oldest first, from names only.
func (s *Store) List(agent string, box Box) ([]Entry, error) {
	var entries []Entry
	if box&Read != 0 {
		read, err := listDir(s.ReadDir(agent), true)
		if err != nil {
			return nil, err
		}
		entries = append(entries, read...)
	}
	if box&Unread != 0 {
		unread, err := listDir(s.InboxDir(agent), false)
		if err != nil {
			return nil, err
		}
		entries = append(entries, unread...)
	}
	slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return entries, nil
}

func listDir(dir string, read bool) ([]Entry, error) {
	dirEntries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	entries := make([]Entry, 0, len(dirEntries))
	for _, e := range dirEntries {
		if !e.Type().IsRegular() {
			continue
		}
		if info, ok := ParseFileName(e.Name()); ok {
			entries = append(entries, Entry{FileInfo: info, Path: filepath.Join(dir, e.Name()), Read: read})
		}
	}
	return entries, nil
}

// Find returns the agent's delivered message whose id is id or starts with
// it. A prefix that matches more than one message is an error.
func (s *Store) Find(agent, id string) (Entry, error) {
	entries, err := s.List(agent, All)
	if err != nil {
		return Entry{}, err
	}
	var found []Entry
	for _, e := range entries {
		if e.ID == id {
			return e, nil
		}
		if id != "" && strings.HasPrefix(e.ID, id) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return Entry{}, fmt.Errorf("%w %q in the mailbox of %s", ErrNotFound, id, agent)
	case 1:
		return found[0], nil
	default:
		return Entry{}, fmt.Errorf("id prefix %q matches %d messages of %s; %w", id, len(found), agent, ErrAmbiguousID)
	}
}

// Load reads and parses a message file.
func Load(path string) (*Message, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open message: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	m, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return m, nil
}

// MarkRead moves an unread message to the read folder. A message already
// read stays where it is.
func (s *Store) MarkRead(agent string, e Entry) (Entry, error) {
	if e.Read {
		return e, nil
	}
	to := filepath.Join(s.ReadDir(agent), e.Name)
	if err := atomicfile.Move(e.Path, to, s.Durable); err != nil {
		// Read meanwhile by another command of the same agent: done.
		if _, statErr := os.Stat(to); !errors.Is(err, fs.ErrNotExist) || statErr != nil {
			return e, fmt.Errorf("mark %s read: %w", e.ID, err)
		}
	}
	e.Path, e.Read = to, true
	return e, nil
}

// Counts returns the agent's unread and urgent unread messages from the
// file names alone: no file is opened, no name parsed, nothing sorted, so
// that hooks can call it before every prompt with thousands unread.
func (s *Store) Counts(agent string) (unread, urgent int, err error) {
	names, err := s.UnreadNames(agent)
	if err != nil {
		return 0, 0, err
	}
	unread, urgent = CountNames(names)
	return unread, urgent, nil
}

// UnreadNames lists the names in the agent's inbox, unsorted: the cheapest
// look at it, for callers that count or filter names themselves.
func (s *Store) UnreadNames(agent string) ([]string, error) {
	dir, err := os.Open(s.InboxDir(agent))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list mail of %s: %w", agent, err)
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list mail of %s: %w", agent, err)
	}
	return names, nil
}

// CountNames counts the delivered messages among names, and the urgent ones.
func CountNames(names []string) (messages, urgent int) {
	for _, name := range names {
		if !isDeliveredName(name) {
			continue
		}
		messages++
		if strings.HasPrefix(name[len(fileTimeLayout)+1:], PriorityUrgent+"_") {
			urgent++
		}
	}
	return messages, urgent
}

// ErrExists is returned when a message's file name is taken already: it was
// posted or delivered before.
var ErrExists = atomicfile.ErrExists

// SyncInboxes makes the deliveries of DeliverUnsynced to these agents
// durable, one folder sync each. It does nothing when the store is not
// durable.
func (s *Store) SyncInboxes(agents []string) error {
	if !s.Durable {
		return nil
	}
	for _, agent := range agents {
		if err := s.Hook.SyncDir(s.InboxDir(agent)); err != nil {
			return err
		}
	}
	return nil
}

// LoadUnread reads the agent's unread message delivered under name.
func (s *Store) LoadUnread(agent, name string) (*Message, error) {
	return Load(s.UnreadPath(agent, name))
}
