package hub

import (
	"errors"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// No host publishes into the team's streams: it asks the hub, which writes
// on its behalf (TeamService.Serve), with the headers the hub chooses and
// no other. JetStream acts on headers any publisher may set (a roll-up,
// expectations, a time to live, a message id), and in a cluster one of
// them, an expected last message id that does not match, stops every
// replicated stream of nats-server 2.15 for good. The hub writes only to
// the keys and subjects that are the asking host's, which it knows from
// the subject of the request: only that host may publish there.

// A write is a request to the hub, on names.writeRequest(host), saying
// what to write in headers, and what in its data.
const (
	writeOp       = "Sb-Op"       // writeMail, writePut, writeCreate, writeUpdate or writeDelete
	writeBucket   = "Sb-Bucket"   // the bucket of a key
	writeKey      = "Sb-Key"      // the key
	writeRevision = "Sb-Revision" // the revision an update or a delete expects; in an answer, the one written
	writeToHost   = "Sb-To-Host"  // of a copy: the host of its recipient
	writeTo       = "Sb-To"       // of a copy: its recipient
	writeError    = "Sb-Error"    // in an answer: one of the write errors, the reason in the data
	writeDup      = "Sb-Duplicate"
)

const (
	writeMail   = "mail"
	writePut    = "put"
	writeCreate = "create"
	writeUpdate = "update"
	writeDelete = "delete"
)

// The write errors an answer names.
const (
	errWriteExists   = "exists"    // the key exists, or not at the revision expected
	errWriteNotFound = "not-found" // the key has no value
	errWriteDenied   = "denied"    // not the host's to write
	errWriteBad      = "bad"       // a request that does not read
	errWriteFailed   = "failed"    // the hub could not write it
)

// mayWrite reports whether host may write key of bucket: its own keys of
// the presence and claims, any key of the team's rules, locks and shared
// values.
func (n names) mayWrite(host, bucket, key string) bool {
	if !validKey(key) {
		return false
	}
	switch bucket {
	case n.presence():
		agent, ok := strings.CutPrefix(key, host+".")
		return ok && validName(agent)
	case n.claims():
		parts := strings.Split(key, ".")
		return len(parts) == 3 && (parts[0] == kindHeld || parts[0] == kindLeft) && validName(parts[1]) && parts[2] == host
	case n.rules(), n.locks(), n.shared():
		return true
	}
	return false
}

// validKey reports whether key is a key of a bucket, within maxKey.
func validKey(key string) bool {
	if key == "" || len(key) > maxKey || strings.HasPrefix(key, ".") || strings.HasSuffix(key, ".") || strings.Contains(key, "..") {
		return false
	}
	for _, r := range key {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', strings.ContainsRune("-_=/.", r):
		default:
			return false
		}
	}
	return true
}

// answerWrite answers a write: the revision written, or the error.
func answerWrite(m *nats.Msg, rev uint64, duplicate bool, err error) {
	a := nats.NewMsg(m.Reply)
	switch {
	case err == nil:
		a.Header.Set(writeRevision, strconv.FormatUint(rev, 10))
		if duplicate {
			a.Header.Set(writeDup, "true")
		}
	default:
		var refused writeRefused
		code := errWriteFailed
		switch {
		case errors.As(err, &refused):
			code = string(refused)
		case errors.Is(err, jetstream.ErrKeyExists), isWrongLastSequence(err):
			code = errWriteExists
		case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
			code = errWriteNotFound
		}
		a.Header.Set(writeError, code)
		a.Data = []byte(err.Error())
	}
	_ = m.RespondMsg(a)
}

// writeRefused is a write the hub refuses, by its code.
type writeRefused string

func (e writeRefused) Error() string { return string(e) }

// isWrongLastSequence reports JetStream's refusal of a write whose
// expected revision is not the key's.
func isWrongLastSequence(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}

// writeErr is the error a write's answer names, as the jetstream
// package's own, so that a caller tells them apart as it would.
func writeErr(answer *nats.Msg) error {
	code := answer.Header.Get(writeError)
	reason := string(answer.Data)
	switch code {
	case "":
		return nil
	case errWriteExists:
		return jetstream.ErrKeyExists
	case errWriteNotFound:
		return jetstream.ErrKeyNotFound
	case errWriteDenied:
		return ErrDenied
	}
	return errors.New("the hub did not write it: " + reason)
}
