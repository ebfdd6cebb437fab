package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The claims of an agent are read from the leader of their bucket, never
// from another node of a cluster of hubs: a node that has not yet applied
// the claim this host made a moment ago, or another host's earlier one,
// would tell a host that no one, or the wrong one, holds an agent. A
// bucket's values are otherwise read from any node (direct gets), which
// the jetstream package does for every bucket made for them.

// leaderGet returns the newest entry of key in bucket as the leader of the
// bucket's stream holds it; jetstream.ErrKeyNotFound when there is none or
// it was deleted.
func leaderGet(ctx context.Context, nc *nats.Conn, n names, bucket, key string) (jetstream.KeyValueEntry, error) {
	e, err := leaderLast(ctx, nc, n, bucket, key)
	if err != nil {
		return nil, err
	}
	if e.op != jetstream.KeyValuePut {
		return nil, jetstream.ErrKeyNotFound
	}
	return e, nil
}

// leaderLast returns the newest message of key in bucket as the leader of
// the bucket's stream holds it, a deletion among them;
// jetstream.ErrKeyNotFound when the key has none.
func leaderLast(ctx context.Context, nc *nats.Conn, n names, bucket, key string) (storedEntry, error) {
	req, err := json.Marshal(struct {
		LastFor string `json:"last_by_subj"`
	}{kvSubject(bucket, key)})
	if err != nil {
		return storedEntry{}, err
	}
	msg, err := nc.RequestWithContext(ctx, n.apiLocal(jsAPI+"STREAM.MSG.GET."+kvStream(bucket)), req)
	if err != nil {
		return storedEntry{}, err
	}
	var resp struct {
		Message *struct {
			Seq  uint64    `json:"seq"`
			Hdrs []byte    `json:"hdrs"`
			Data []byte    `json:"data"`
			Time time.Time `json:"time"`
		} `json:"message"`
		Error *struct {
			Code        int    `json:"code"`
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg.Data, &resp); err != nil {
		return storedEntry{}, fmt.Errorf("read %s of bucket %s: %w", key, bucket, err)
	}
	switch {
	case resp.Error != nil && resp.Error.Code == 404:
		return storedEntry{}, jetstream.ErrKeyNotFound
	case resp.Error != nil:
		return storedEntry{}, fmt.Errorf("read %s of bucket %s: %s", key, bucket, resp.Error.Description)
	case resp.Message == nil:
		return storedEntry{}, fmt.Errorf("read %s of bucket %s: an answer without a message", key, bucket)
	}
	var h nats.Header
	if len(resp.Message.Hdrs) > 0 {
		if h, err = nats.DecodeHeadersMsg(resp.Message.Hdrs); err != nil {
			return storedEntry{}, fmt.Errorf("read %s of bucket %s: %w", key, bucket, err)
		}
	}
	return storedEntry{bucket: bucket, key: key, value: resp.Message.Data, rev: resp.Message.Seq, created: resp.Message.Time, op: operation(h)}, nil
}

// directLast is leaderLast for a stream kept by one node, read directly
// from it rather than through the API.
func directLast(ctx context.Context, nc *nats.Conn, n names, bucket, key string) (storedEntry, error) {
	msg, err := nc.RequestWithContext(ctx, n.apiLocal(jsAPI+"DIRECT.GET."+kvStream(bucket)+"."+kvSubject(bucket, key)), nil)
	if err != nil {
		return storedEntry{}, err
	}
	switch status := msg.Header.Get("Status"); status {
	case "":
	case "404":
		return storedEntry{}, jetstream.ErrKeyNotFound
	default:
		return storedEntry{}, fmt.Errorf("read %s of bucket %s: status %s %s", key, bucket, status, msg.Header.Get("Description"))
	}
	rev, err := strconv.ParseUint(msg.Header.Get(jetstream.SequenceHeader), 10, 64)
	if err != nil {
		return storedEntry{}, fmt.Errorf("read %s of bucket %s: no revision in the answer", key, bucket)
	}
	created, err := time.Parse(time.RFC3339Nano, msg.Header.Get(jetstream.TimeStampHeaer))
	if err != nil {
		// When the hub stored a claim orders it: a server that does not
		// say it here does on the API.
		return leaderLast(ctx, nc, n, bucket, key)
	}
	return storedEntry{bucket: bucket, key: key, value: msg.Data, rev: rev, created: created, op: operation(msg.Header)}, nil
}

// operation is what a bucket's message does to its key, by its headers.
func operation(h nats.Header) jetstream.KeyValueOp {
	switch strings.ToUpper(h.Get("KV-Operation")) {
	case "DEL":
		return jetstream.KeyValueDelete
	case "PURGE":
		return jetstream.KeyValuePurge
	}
	return jetstream.KeyValuePut
}

// storedEntry is a message of a bucket as the hub stored it.
type storedEntry struct {
	bucket, key string
	value       []byte
	rev         uint64
	created     time.Time
	op          jetstream.KeyValueOp
}

func (e storedEntry) Bucket() string                  { return e.bucket }
func (e storedEntry) Key() string                     { return e.key }
func (e storedEntry) Value() []byte                   { return e.value }
func (e storedEntry) Revision() uint64                { return e.rev }
func (e storedEntry) Created() time.Time              { return e.created }
func (e storedEntry) Delta() uint64                   { return 0 }
func (e storedEntry) Operation() jetstream.KeyValueOp { return e.op }
