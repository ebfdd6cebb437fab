package mailbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"switchboard/internal/atomicfile"
)

// BenchmarkDurableSteps times, one at a time, the steps the master takes for
// one durable message routed alone (as at a steady rate, where each pass
// holds one message), then the same steps for each message of a burst's
// batch, beside the floor's two (a copy written and synced, its folder
// synced): where a message's time goes.
//
//	go test -run '^$' -bench DurableSteps ./mailbox
func BenchmarkDurableSteps(b *testing.B) {
	s := &Store{Dir: b.TempDir(), Durable: true}
	for _, a := range []string{"dev", "rev"} {
		if err := s.Ensure(a); err != nil {
			b.Fatal(err)
		}
	}
	w, err := OpenLogWriter(s.LogPath(), true)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	msg := func(i int) *Message {
		m := &Message{From: "dev", To: []string{"rev"}, Title: fmt.Sprintf("step %d", i), Content: "a few words of content"}
		m.Normalize(time.Now())
		m.DeliveredAt = time.Now()
		return m
	}
	posted := func(b *testing.B) []string {
		b.StopTimer()
		defer b.StartTimer()
		paths := make([]string, b.N)
		for i := range paths {
			name, err := s.Post("dev", msg(i))
			if err != nil {
				b.Fatal(err)
			}
			paths[i] = filepath.Join(s.OutboxDir("dev"), name)
		}
		return paths
	}
	published := 0
	b.Run("read and parse the outbox file", func(b *testing.B) {
		paths := posted(b)
		for i := range b.N {
			data, _, err := ReadPending(paths[i], MaxFileSize)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Parse(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("log append and sync", func(b *testing.B) {
		for i := range b.N {
			if _, err := w.Append(Record{Time: time.Now(), Status: StatusDelivered, Delivered: []string{"rev"}, Message: msg(i)}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("copy written and synced", func(b *testing.B) {
		for i := range b.N {
			if _, err := s.DeliverUnsynced("rev", msg(i)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("inbox folder synced", func(b *testing.B) {
		for range b.N {
			if err := s.SyncInboxes([]string{"rev"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("moved to sent, unsynced", func(b *testing.B) {
		paths := posted(b)
		for i := range b.N {
			if err := s.MarkSent("dev", paths[i], filepath.Base(paths[i])); err != nil {
				b.Fatal(err)
			}
		}
	})
	// A burst's batch: what each of batch messages costs when their records
	// share a log sync, and their copies are synced together (Delivery).
	const batch = 64
	b.Run(fmt.Sprintf("batch of %d: log appends and one sync, per record", batch), func(b *testing.B) {
		for i := range b.N {
			if _, err := w.AppendUnsynced(Record{Time: time.Now(), Status: StatusDelivered, Delivered: []string{"rev"}, Message: msg(i)}); err != nil {
				b.Fatal(err)
			}
			if (i+1)%batch == 0 || i == b.N-1 {
				if err := w.Sync(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run(fmt.Sprintf("batch of %d: copies written, synced together, named, folder synced once, per copy", batch), func(b *testing.B) {
		d := s.NewDelivery()
		for i := range b.N {
			d.AddFresh("rev", msg(i))
			if (i+1)%batch == 0 || i == b.N-1 {
				d.Publish()
				d = s.NewDelivery()
			}
		}
	})
	b.Run("floor: a copy published, file and folder synced", func(b *testing.B) {
		dir := filepath.Join(s.Dir, "floor")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			b.Fatal(err)
		}
		data, _ := msg(0).Encode()
		for range b.N {
			published++ // b.N grows from run to run: names are never reused
			if err := atomicfile.Publish(filepath.Join(dir, fmt.Sprintf("%d.json", published)), data, atomicfile.Options{TmpDir: dir, Durable: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
