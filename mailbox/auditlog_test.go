package mailbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func record(id string) Record {
	return Record{Time: time.Now().UTC(), Status: StatusDelivered, Delivered: []string{"rev"}, Message: &Message{ID: id, From: "dev", To: []string{"rev"}, Title: "t", Priority: "normal", Type: "notification", Timestamp: time.Now().UTC()}}
}

func TestLogNumbersAndResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log", "messages.jsonl")
	w, err := OpenLogWriter(path, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"id-1", "id-2", "id-3"} {
		rec, err := w.Append(record(id))
		if err != nil || rec.Seq != int64(i+1) {
			t.Fatalf("Append #%d = seq %d, %v", i+1, rec.Seq, err)
		}
	}
	w.Close()

	w, err = OpenLogWriter(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if rec, ok := w.Routed("id-2"); !ok || rec.Seq != 2 {
		t.Errorf("Routed(id-2) after reopening = %+v, %v", rec, ok)
	}
	if rec, _ := w.Append(record("id-4")); rec.Seq != 4 {
		t.Errorf("Append after reopening gave seq %d; want 4", rec.Seq)
	}
}

func TestLogCutsAHalfWrittenLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "messages.jsonl")
	w, _ := OpenLogWriter(path, false)
	w.Append(record("id-1"))
	w.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq":2,"time":"2026-11-22T`)
	f.Close()

	w, err := OpenLogWriter(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if rec, _ := w.Append(record("id-2")); rec.Seq != 2 {
		t.Errorf("seq after a cut line = %d; want 2", rec.Seq)
	}
	w.Close()
	recs, _, err := ReadLog(path, 0)
	if err != nil || len(recs) != 2 || recs[1].Message.ID != "id-2" {
		t.Errorf("ReadLog = %d records, %v; want id-1 and id-2 on their own lines", len(recs), err)
	}
}

func TestReadLogFromAnOffsetAndPastDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "messages.jsonl")
	w, _ := OpenLogWriter(path, false)
	w.Append(record("id-1"))
	w.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("this line was damaged by hand\n")
	f.Close()
	w, _ = OpenLogWriter(path, false)
	w.Append(record("id-2"))
	w.Close()

	recs, offset, err := ReadLog(path, 0)
	if err != nil || len(recs) != 2 {
		t.Fatalf("ReadLog = %d records, %v; want 2 with the damaged line skipped", len(recs), err)
	}
	more, next, _ := ReadLog(path, offset)
	if len(more) != 0 || next != offset {
		t.Errorf("ReadLog at the end = %d records, offset %d → %d", len(more), offset, next)
	}
	if missing, _, err := ReadLog(filepath.Join(t.TempDir(), "none"), 0); missing != nil || err != nil {
		t.Errorf("ReadLog of a missing log = %v, %v", missing, err)
	}
}

func TestInvolves(t *testing.T) {
	r := Record{Delivered: []string{"rev"}, Blocked: []Block{{To: "qa", Reason: "no"}}, Message: &Message{From: "dev"}}
	for agent, want := range map[string]bool{"dev": true, "rev": true, "qa": false, "boss": false} {
		if got := r.Involves(agent); got != want {
			t.Errorf("Involves(%s) = %v; want %v", agent, got, want)
		}
	}
}
