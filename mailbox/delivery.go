package mailbox

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"switchboard/internal/atomicfile"
)

// A Delivery puts copies of messages in inboxes as one batch, and makes
// them durable together rather than one after another: Add writes each
// copy to a temporary file; Sync makes the temporary files durable, side by
// side; Publish gives each copy its name in its inbox, never replacing a
// file there, and syncs each folder a copy is in once. A copy found there
// already (delivered by an earlier pass, whose folder sync failed or was cut
// short by a crash) has its folder synced too: once Publish returns, every
// copy without an error is in its inbox for good, and its message may leave
// the outbox. A caller that gives up the delivery calls Discard.
//
// Between Sync and Publish the caller makes durable whatever must be
// before a copy is seen (the record the copy's name derives from): until
// Publish no copy has a name anyone can see.
type Delivery struct {
	s      *Store
	copies []*Copy
	open   []*Copy // written, not yet synced and closed
}

// Copy is one message's copy for one agent in a Delivery.
type Copy struct {
	Agent string
	Msg   *Message
	// Name is the copy's file name in the agent's inbox (or read/, once
	// read), from Msg.DeliveredAt, Msg.Priority and Msg.ID.
	Name string
	// Written says the copy was written by this delivery, not found there
	// from an earlier one.
	Written bool
	// Err is why the copy is not in its inbox for good; nil once Publish
	// put it there.
	Err  error
	dir  string           // the folder it lies in, once published or found
	file *atomicfile.File // its temporary file, until published
	// sum is the sha256 of what was written: a batch keeps the sums of
	// its copies, not their bytes.
	sum  [sha256.Size]byte
	size int
}

// Holds reports whether data is what the delivery wrote for the copy, for
// a caller that checks the file found under its name later. It is false
// for a copy found there.
func (c *Copy) Holds(data []byte) bool {
	return c.Written && len(data) == c.size && sha256.Sum256(data) == c.sum
}

// openMost bounds the temporary files a Delivery holds open: past it, Add
// syncs and closes those it holds, so that a batch of broadcasts to a large
// team does not run out of file descriptors.
const openMost = 128

// NewDelivery starts a batch of copies.
func (s *Store) NewDelivery() *Delivery { return &Delivery{s: s} }

// Add writes the copy of m for agent to a temporary file, unless the
// agent's inbox, or its read/ folder, holds it already. An error is kept
// in the copy's Err.
func (d *Delivery) Add(agent string, m *Message) *Copy {
	c := &Copy{Agent: agent, Msg: m, Name: FileName(m.DeliveredAt, m.Priority, m.ID)}
	d.copies = append(d.copies, c)
	// The inbox is looked at before read/: a file moves only from the
	// first to the second, so one of the two looks sees it.
	for _, dir := range []string{d.s.InboxDir(agent), d.s.ReadDir(agent)} {
		if _, err := os.Lstat(filepath.Join(dir, c.Name)); err == nil {
			c.dir = dir
			return c
		}
	}
	d.write(c)
	return c
}

// AddFresh is Add for a copy no earlier delivery can have put there: its
// message's DeliveredAt was given just now, and its name derives from it.
// It does not look for the copy first; should a file have its name all the
// same, Publish takes it for the copy, as Add would.
func (d *Delivery) AddFresh(agent string, m *Message) *Copy {
	c := &Copy{Agent: agent, Msg: m, Name: FileName(m.DeliveredAt, m.Priority, m.ID)}
	d.copies = append(d.copies, c)
	d.write(c)
	return c
}

// write writes a copy to a temporary file.
func (d *Delivery) write(c *Copy) {
	agent, m := c.Agent, c.Msg
	data, err := m.Encode()
	if err == nil {
		c.file, err = d.create(agent, c.Name)
	}
	if err == nil {
		if _, err = c.file.Write(data); err != nil {
			c.file.Cleanup()
			c.file = nil
		}
	}
	if err != nil {
		c.Err = fmt.Errorf("deliver %s to %s: %w", m.ID, agent, err)
		return
	}
	c.sum, c.size = sha256.Sum256(data), len(data)
	// The data goes on its way to the disk now, while the batch is
	// prepared: the sync that follows finds it written.
	c.file.StartWriteback()
	d.open = append(d.open, c)
	if len(d.open) >= openMost {
		d.Sync()
	}
}

// create starts the temporary file of a copy named name for agent; a
// mailbox that went away meanwhile is made again first.
func (d *Delivery) create(agent, name string) (*atomicfile.File, error) {
	opts := atomicfile.Options{TmpDir: d.s.StageFor(agent), Durable: d.s.Durable, NoDirSync: true, Hook: d.s.Hook}
	f, err := atomicfile.Create(d.s.UnreadPath(agent, name), opts)
	if errors.Is(err, fs.ErrNotExist) {
		if err = d.s.Ensure(agent); err == nil {
			f, err = atomicfile.Create(d.s.UnreadPath(agent, name), opts)
		}
	}
	return f, err
}

// Sync makes the temporary files written so far durable, when the store
// is, and closes them.
func (d *Delivery) Sync() {
	files := make([]*atomicfile.File, len(d.open))
	for i, c := range d.open {
		files[i] = c.file
	}
	for i, err := range atomicfile.FinishAll(files) {
		if err != nil {
			c := d.open[i]
			c.Err = fmt.Errorf("deliver %s to %s: %w", c.Msg.ID, c.Agent, err)
			c.file.Cleanup()
			c.file = nil
		}
	}
	d.open = d.open[:0]
}

// Publish syncs what Sync has not yet, gives each copy written its name in
// its inbox, and syncs every folder a copy is in, each once.
func (d *Delivery) Publish() {
	d.Sync()
	for _, c := range d.copies {
		if c.file == nil || c.Err != nil {
			continue
		}
		err := c.file.CloseAtomicallyPublish()
		c.file = nil
		switch {
		case err == nil:
			c.Written, c.dir = true, d.s.InboxDir(c.Agent)
		case errors.Is(err, ErrExists):
			c.dir = d.s.InboxDir(c.Agent) // put there meanwhile: synced like one found
		case errors.Is(err, fs.ErrNotExist):
			// The inbox went away since Add looked: made again, and the
			// copy written again, one at a time.
			if c.Written, err = d.s.DeliverUnsynced(c.Agent, c.Msg); err != nil {
				c.Err = err
			} else {
				c.dir = d.s.InboxDir(c.Agent)
			}
		default:
			c.Err = fmt.Errorf("deliver %s to %s: %w", c.Msg.ID, c.Agent, err)
		}
	}
	if !d.s.Durable {
		return
	}
	var dirs []string
	seen := make(map[string]bool)
	for _, c := range d.copies {
		if c.Err == nil && c.dir != "" && !seen[c.dir] {
			seen[c.dir] = true
			dirs = append(dirs, c.dir)
		}
	}
	failed := make(map[string]error)
	for i, err := range atomicfile.SyncDirs(dirs, d.s.Hook) {
		if err != nil {
			failed[dirs[i]] = err
		}
	}
	// Every copy in a folder that failed shares its error, word for word:
	// a caller tells it once.
	for _, c := range d.copies {
		if err := failed[c.dir]; err != nil && c.Err == nil {
			c.Err = err
		}
	}
}

// Discard removes the temporary files of the copies not published.
func (d *Delivery) Discard() {
	for _, c := range d.copies {
		if c.file != nil {
			c.file.Cleanup()
			c.file = nil
		}
	}
	d.open = d.open[:0]
}
