package mailbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every record is found by its id as the index grows past its first size,
// after a reopen, and after the index is lost or loses its last writes.
func TestTheIDIndexFindsEveryRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "messages.jsonl")
	const n = 3*checkpointEvery + 123 // past checkpoints, and past the first table's half
	w, err := OpenLogWriter(path, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= checkpointEvery; i++ {
		if _, err := w.Append(record(fmt.Sprintf("id-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	// The index as a crash would leave it: durable up to here, the writes
	// after lost.
	saved, err := os.ReadFile(IDIndexPath(path))
	if err != nil {
		t.Fatal(err)
	}
	for i := checkpointEvery + 1; i <= n; i++ {
		if _, err := w.Append(record(fmt.Sprintf("id-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	everyOne := func(when string, w *LogWriter) {
		t.Helper()
		for i := 1; i <= n; i++ {
			rec, ok := routed(t, w, fmt.Sprintf("id-%d", i))
			if !ok || rec.Seq != int64(i) || rec.Message.ID != fmt.Sprintf("id-%d", i) {
				t.Fatalf("%s: id-%d found %v as %+v", when, i, ok, rec)
			}
		}
		if _, ok := routed(t, w, "id-never"); ok {
			t.Fatalf("%s: an id never logged was found", when)
		}
	}
	everyOne("as written", w)
	w.Close()
	reopen := func(when string) {
		t.Helper()
		w := openLog(t, path)
		everyOne(when, w)
		w.Close()
	}
	reopen("reopened")
	if err := os.WriteFile(IDIndexPath(path), saved, 0o600); err != nil {
		t.Fatal(err)
	}
	reopen("reopened with its last writes lost")
	if err := os.Remove(IDIndexPath(path)); err != nil {
		t.Fatal(err)
	}
	reopen("reopened without it")
	if err := os.WriteFile(IDIndexPath(path), []byte("not an index"), 0o600); err != nil {
		t.Fatal(err)
	}
	reopen("reopened with it damaged")
}

// An index of another, longer log is made anew: it finds nothing that
// is not in this one.
func TestAnIndexOfAnotherLogIsMadeAnew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "messages.jsonl")
	w := openLog(t, path)
	appendRecord(t, w, "id-1")
	appendRecord(t, w, "id-2")
	w.Close()
	if err := os.WriteFile(path, nil, 0o600); err != nil { // the log emptied by hand
		t.Fatal(err)
	}
	w = openLog(t, path)
	if _, ok := routed(t, w, "id-1"); ok {
		t.Error("a record of the emptied log was found")
	}
	if rec := appendRecord(t, w, "id-3"); rec.Seq != 1 {
		t.Errorf("first record of the emptied log: seq %d", rec.Seq)
	}
	if rec, ok := routed(t, w, "id-3"); !ok || rec.Seq != 1 {
		t.Errorf("id-3: %v %+v", ok, rec)
	}
}

// An index of another log as long is made anew too.
func TestAnIndexOfAReplacedLogIsMadeAnew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "messages.jsonl")
	w := openLog(t, path)
	appendRecord(t, w, "id-a")
	w.Close()
	other := filepath.Join(dir, "other.jsonl")
	w = openLog(t, other)
	appendRecord(t, w, "id-b")
	w.Close()
	if err := os.Rename(other, path); err != nil { // same length, other ids
		t.Fatal(err)
	}
	w = openLog(t, path)
	if rec, ok := routed(t, w, "id-b"); !ok || rec.Seq != 1 {
		t.Errorf("the record of the log put in place: %v %+v", ok, rec)
	}
	if _, ok := routed(t, w, "id-a"); ok {
		t.Error("a record of the log replaced was found")
	}
}

// A master killed again and again, its index never closed, leaves entries
// the index's count missed; the index still takes every record.
func TestAnIndexLeftUnclosedByKillsStillTakesRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "messages.jsonl")
	n := 0
	for range 6 {
		w, err := OpenLogWriter(path, false)
		if err != nil {
			t.Fatal(err)
		}
		for range checkpointEvery - 1 {
			n++
			if _, err := w.Append(record(fmt.Sprintf("id-%d", n))); err != nil {
				t.Fatal(err)
			}
		}
		// Killed: no Close, no checkpoint.
		w.file.Close()
		w.ids.file.Close()
	}
	w := openLog(t, path)
	for i := 1; i <= n; i++ {
		if rec, ok := routed(t, w, fmt.Sprintf("id-%d", i)); !ok || rec.Seq != int64(i) {
			t.Fatalf("id-%d: %v %+v", i, ok, rec)
		}
	}
}

// A log edited by hand, a record made longer, is indexed anew: every id
// after the edit is still found.
func TestAnEditedLogIsIndexedAnew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "messages.jsonl")
	w := openLog(t, path)
	for i := 1; i <= 5; i++ {
		appendRecord(t, w, fmt.Sprintf("id-%d", i))
	}
	w.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"id":"id-2"`, `"id":"id-2","x":"abc"`, 1)
	if edited == string(data) {
		t.Fatal("the edit changed nothing")
	}
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	w = openLog(t, path)
	for i := 1; i <= 5; i++ {
		if rec, ok := routed(t, w, fmt.Sprintf("id-%d", i)); !ok || rec.Seq != int64(i) {
			t.Errorf("id-%d after the edit: %v %+v", i, ok, rec)
		}
	}
}
