package master

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/bulletin"
	"switchboard/internal/testkit/smalldisk"
	"switchboard/mailbox"
	"switchboard/workspace"
)

// stash writes a message from agent where the disk has room for it now,
// and returns a function that puts it in the agent's outbox later, a rename
// that needs no room: a message sent while the disk is full.
func stash(t *testing.T, h *harness, agent, title string) (send func()) {
	t.Helper()
	m := &mailbox.Message{From: agent, To: []string{"reviewer_agent"}, Title: title}
	m.Normalize(time.Now())
	data, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(h.root, title+".stash")
	writeFile(t, path, string(data))
	return func() {
		t.Helper()
		if err := os.MkdirAll(h.store.OutboxDir(agent), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path, filepath.Join(h.store.OutboxDir(agent), title+".json")); err != nil {
			t.Fatal(err)
		}
	}
}

func (h *harness) bulletin() *bulletin.Bulletin {
	h.t.Helper()
	b, err := bulletin.Of(workspace.New(h.root)).Read()
	if err != nil {
		h.t.Fatal(err)
	}
	return b
}

// TestAFullDiskPausesRoutingAndLosesNothing: the disk fills while the
// master runs, first under the audit log's next record, then again after
// the master gave up its reserve to mark the bulletin. The master stays up,
// the bulletin says degraded and why, and once the disk is freed both
// messages are delivered and logged once each, and the bulletin is as
// before.
func TestAFullDiskPausesRoutingAndLosesNothing(t *testing.T) {
	h := newHarnessIn(t, smalldisk.Mount(t, 4<<20))
	// The log ends on a block boundary, so its next record needs a new block.
	if err := os.MkdirAll(filepath.Dir(h.store.LogPath()), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, h.store.LogPath(), strings.Repeat("x", 4095)+"\n")
	stop := h.start(Options{})
	first := stash(t, h, "developer_agent", "first")
	second := stash(t, h, "developer_agent", "second")

	freeFirst := smalldisk.Fill(t, h.root)
	first()
	h.waitFor("the bulletin to say degraded", func() bool {
		b := h.bulletin()
		return b.SystemStatus == bulletin.StatusDegraded && len(b.Warnings) == 1 && strings.Contains(b.Warnings[0].Text, "the disk is full")
	})
	freeSecond := smalldisk.Fill(t, h.root) // the reserve's room, taken too
	second()

	freeFirst()
	freeSecond()
	got := h.waitInbox("reviewer_agent", 2)
	h.waitFor("the master to resume", func() bool { return strings.Contains(h.log.String(), "routing resumed") })
	if len(got) != 2 {
		t.Errorf("the reviewer has %d messages; want the 2 sent", len(got))
	}
	recs := h.records()
	if seqs, _ := seqsOf(recs); len(recs) != 2 || seqs[0] != 1 || seqs[1] != 2 {
		t.Errorf("the log has seqs %v; want 1 and 2, once each", seqs)
	}
	if b := h.bulletin(); b.SystemStatus != bulletin.DefaultStatus || len(b.Warnings) != 0 {
		t.Errorf("after the pause the bulletin says %q with warnings %v; want it as before", b.SystemStatus, b.Warnings)
	}
	if err := stop(); err != nil {
		t.Errorf("the master stopped with %v; want it up through the full disk", err)
	}
}

// TestAMasterStartsOnAFullDisk: a master started on a disk with no block
// left waits, saying why, and routes what was waiting once there is room.
func TestAMasterStartsOnAFullDisk(t *testing.T) {
	h := newHarnessIn(t, smalldisk.Mount(t, 2<<20))
	send := stash(t, h, "developer_agent", "waiting")
	free := smalldisk.Fill(t, h.root)
	send()
	stop := h.run(Options{})
	h.waitFor("the master to say the disk is full", func() bool {
		return strings.Contains(h.log.String(), "the disk is full")
	})
	free()
	h.waitInbox("reviewer_agent", 1)
	if err := stop(); err != nil {
		t.Errorf("the master stopped with %v", err)
	}
}

func seqsOf(recs []mailbox.Record) (seqs []int64, ids []string) {
	for _, r := range recs {
		seqs = append(seqs, r.Seq)
		ids = append(ids, r.Message.ID)
	}
	return seqs, ids
}
