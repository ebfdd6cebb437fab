package mailbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"syscall"

	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testkit/smalldisk"
)

func record(id string) Record {
	return Record{Time: time.Now().UTC(), Status: StatusDelivered, Delivered: []string{"rev"}, Message: &Message{ID: id, From: "dev", To: []string{"rev"}, Title: "t", Priority: "normal", Type: "notification", Timestamp: time.Now().UTC()}}
}

func openLog(t *testing.T, path string) *LogWriter {
	t.Helper()
	w, err := OpenLogWriter(path, false)
	if err != nil {
		t.Fatalf("OpenLogWriter: %v", err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func appendRecord(t *testing.T, w *LogWriter, id string) Record {
	t.Helper()
	rec, err := w.Append(record(id))
	if err != nil {
		t.Fatalf("Append(%s): %v", id, err)
	}
	return rec
}

// appendBytes writes to the log behind the writer's back, as a crash or a
// hand edit would.
func appendBytes(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func seqsAndIDs(recs []Record) (seqs []int64, ids []string) {
	for _, r := range recs {
		seqs = append(seqs, r.Seq)
		ids = append(ids, r.Message.ID)
	}
	return seqs, ids
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
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the log: %v; want a 0600 file", err)
	}

	w = openLog(t, path)
	rec, ok := routed(t, w, "id-2")
	if !ok || rec.Seq != 2 || rec.Status != StatusDelivered || !slices.Equal(rec.Delivered, []string{"rev"}) {
		t.Errorf("Routed(id-2) after reopening = %+v, %v; want seq 2 delivered to rev", rec, ok)
	}
	if rec.Message == nil || rec.Message.From != "dev" || rec.Message.Content != "" || rec.Message.Title != "" {
		t.Errorf("Routed keeps %+v of the message; want its id and sender alone, not its body", rec.Message)
	}
	if _, ok := routed(t, w, "id-9"); ok {
		t.Errorf("Routed(id-9) found a message that was never logged")
	}
	if rec := appendRecord(t, w, "id-4"); rec.Seq != 4 {
		t.Errorf("Append after reopening gave seq %d; want 4", rec.Seq)
	}
	if rec, ok := routed(t, w, "id-4"); !ok || rec.Seq != 4 {
		t.Errorf("Routed(id-4) right after Append = %+v, %v", rec, ok)
	}
}

func TestLogCutsAHalfWrittenLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "messages.jsonl")
	w := openLog(t, path)
	appendRecord(t, w, "id-1")
	w.Close()
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Longer than the next record, so that writing over it is not enough.
	torn := `{"seq":2,"status":"delivered","notes":["` + strings.Repeat("x", 4096)
	appendBytes(t, path, torn)

	w = openLog(t, path)
	if _, ok := routed(t, w, ""); ok {
		t.Errorf("the torn line was indexed")
	}
	if rec := appendRecord(t, w, "id-2"); rec.Seq != 2 {
		t.Errorf("seq after a cut line = %d; want 2", rec.Seq)
	}
	w.Close()

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, whole) || bytes.Contains(data, []byte(torn)) {
		t.Errorf("the log after the cut:\n%s\nwant the first line kept and the torn one gone", data)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("the log has %d lines; want 2:\n%s", len(lines), data)
	}
	for i, line := range lines {
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil || rec.Seq != int64(i+1) {
			t.Errorf("line %d = %s (%v); want the record of seq %d", i+1, line, err, i+1)
		}
	}
}

func TestReadLogReturnsOnlyCompleteLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "messages.jsonl")
	w := openLog(t, path)
	appendRecord(t, w, "id-1")
	recs, afterFirst, err := ReadLog(path, 0)
	if err != nil || len(recs) != 1 {
		t.Fatalf("ReadLog(0) = %d records, %v; want 1", len(recs), err)
	}
	if fi, err := os.Stat(path); err != nil || afterFirst != fi.Size() {
		t.Errorf("ReadLog(0) returned offset %d; want the size of the log", afterFirst)
	}
	appendRecord(t, w, "id-2")
	appendRecord(t, w, "id-3")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// The master is writing the next line.
	appendBytes(t, path, `{"seq":4,"time":"2026-11-22T08:57:00Z","status":"deliv`)

	recs, next, err := ReadLog(path, afterFirst)
	if err != nil {
		t.Fatal(err)
	}
	if seqs, ids := seqsAndIDs(recs); !slices.Equal(seqs, []int64{2, 3}) || !slices.Equal(ids, []string{"id-2", "id-3"}) {
		t.Errorf("ReadLog from after the first line = seqs %v, ids %v; want 2, 3", seqs, ids)
	}
	if next != fi.Size() {
		t.Errorf("ReadLog returned offset %d; want %d, the end of the last complete line", next, fi.Size())
	}

	// The line is finished: the next read picks it up, and only it.
	appendBytes(t, path, `ered","delivered":["rev"],"message":{"id":"id-4","from":"dev","to":["rev"],"title":"t"}}`+"\n")
	recs, end, err := ReadLog(path, next)
	if err != nil {
		t.Fatal(err)
	}
	if seqs, ids := seqsAndIDs(recs); !slices.Equal(seqs, []int64{4}) || !slices.Equal(ids, []string{"id-4"}) {
		t.Errorf("ReadLog after the line was finished = seqs %v, ids %v; want 4", seqs, ids)
	}
	if recs, again, err := ReadLog(path, end); len(recs) != 0 || again != end || err != nil {
		t.Errorf("ReadLog at the end = %d records, offset %d → %d, %v; want nothing new", len(recs), end, again, err)
	}
}

func TestReadLogFromAnOffsetAndPastDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "messages.jsonl")
	w := openLog(t, path)
	appendRecord(t, w, "id-1")
	w.Close()
	appendBytes(t, path, "this line was damaged by hand\n{\"seq\":7}\n")
	w = openLog(t, path)
	if rec, ok := routed(t, w, "id-1"); !ok || rec.Seq != 1 {
		t.Errorf("Routed(id-1) past a damaged line = %+v, %v", rec, ok)
	}
	if rec := appendRecord(t, w, "id-2"); rec.Seq != 8 {
		// The record without a message still took seq 7.
		t.Errorf("seq after the damaged lines = %d; want 8", rec.Seq)
	}
	w.Close()

	recs, offset, err := ReadLog(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if seqs, ids := seqsAndIDs(recs); !slices.Equal(seqs, []int64{1, 8}) || !slices.Equal(ids, []string{"id-1", "id-2"}) {
		t.Errorf("ReadLog = seqs %v, ids %v; want the two records, the damaged lines skipped", seqs, ids)
	}
	more, next, err := ReadLog(path, offset)
	if len(more) != 0 || next != offset || err != nil {
		t.Errorf("ReadLog at the end = %d records, offset %d → %d, %v", len(more), offset, next, err)
	}
	missing, off, err := ReadLog(filepath.Join(t.TempDir(), "none"), 42)
	if missing != nil || off != 42 || err != nil {
		t.Errorf("ReadLog of a missing log = %v, %d, %v; want nothing, offset unchanged", missing, off, err)
	}
}

func TestInvolves(t *testing.T) {
	r := Record{Delivered: []string{"rev", "qa"}, Blocked: []Block{{To: "ops", Reason: "no"}}, Message: &Message{From: "dev", To: []string{"rev", "qa", "ops"}}}
	tests := []struct {
		agent string
		want  bool
	}{
		{"dev", true},   // the sender
		{"rev", true},   // a recipient
		{"qa", true},    // another recipient
		{"ops", false},  // named, but blocked: it never got the message
		{"boss", false}, // not named at all
		{"", false},
	}
	for _, tt := range tests {
		if got := r.Involves(tt.agent); got != tt.want {
			t.Errorf("Involves(%q) = %v; want %v", tt.agent, got, tt.want)
		}
	}
	blocked := Record{Status: StatusBlocked, Blocked: []Block{{To: "rev", Reason: "no"}}, Message: &Message{From: "dev"}}
	if !blocked.Involves("dev") || blocked.Involves("rev") {
		t.Errorf("a blocked message involves its sender only")
	}
	if (&Record{}).Involves("dev") {
		t.Errorf("a record without a message involves nobody")
	}
}

// TestLogTakesBackWhatAFullDiskCutShort: records appended on a disk that
// fills up are taken back, half a line included, so the log holds what the
// last sync made durable; once space returns the same batch is numbered as
// it would have been, with no gap and no record twice.
func TestLogTakesBackWhatAFullDiskCutShort(t *testing.T) {
	disk := smalldisk.Mount(t, 1<<20)
	path := filepath.Join(disk, "messages.jsonl")
	w := openLog(t, path)
	appendRecord(t, w, "before")

	free := smalldisk.Fill(t, disk)
	var failed error
	var tried []string
	for i := 0; failed == nil; i++ {
		rec := record(fmt.Sprintf("batch-%d", i))
		rec.Message.Title = strings.Repeat("t", 900)
		tried = append(tried, rec.Message.ID)
		_, failed = w.AppendUnsynced(rec)
	}
	if !errors.Is(failed, syscall.ENOSPC) {
		t.Fatalf("the append failed with %v; want ENOSPC", failed)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if recs, _, _ := ReadLog(path, 0); len(recs) != 1 || !bytes.HasSuffix(data, []byte("\n")) {
		t.Fatalf("after the failure the log has %d records and ends in %q; want the synced one alone, whole", len(recs), data[max(0, len(data)-20):])
	}
	for _, id := range tried {
		if _, ok := routed(t, w, id); ok {
			t.Fatalf("%s is still known as routed after it was taken back", id)
		}
	}

	free()
	for _, id := range tried {
		if _, err := w.AppendUnsynced(record(id)); err != nil {
			t.Fatalf("append %s once space returned: %v", id, err)
		}
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	recs, _, _ := ReadLog(path, 0)
	seqs, ids := seqsAndIDs(recs)
	if want := int64(len(tried) + 1); len(recs) != len(tried)+1 || seqs[len(seqs)-1] != want || ids[1] != "batch-0" {
		t.Errorf("the log has seqs %v for %v; want 1..%d, each once", seqs, ids, want)
	}
}

// routed is w.Routed for a test: a failed lookup ends it.
func routed(t *testing.T, w *LogWriter, id string) (Record, bool) {
	t.Helper()
	rec, ok, err := w.Routed(id)
	if err != nil {
		t.Fatal(err)
	}
	return rec, ok
}
