package hub

import (
	"context"
	"encoding/json"
	"fmt"
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
func leaderGet(ctx context.Context, nc *nats.Conn, bucket, key string) (jetstream.KeyValueEntry, error) {
	req, err := json.Marshal(struct {
		LastFor string `json:"last_by_subj"`
	}{kvSubject(bucket, key)})
	if err != nil {
		return nil, err
	}
	msg, err := nc.RequestWithContext(ctx, "$JS.API.STREAM.MSG.GET."+kvStream(bucket), req)
	if err != nil {
		return nil, err
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
		return nil, fmt.Errorf("read %s of bucket %s: %w", key, bucket, err)
	}
	switch {
	case resp.Error != nil && resp.Error.Code == 404:
		return nil, jetstream.ErrKeyNotFound
	case resp.Error != nil:
		return nil, fmt.Errorf("read %s of bucket %s: %s", key, bucket, resp.Error.Description)
	case resp.Message == nil:
		return nil, fmt.Errorf("read %s of bucket %s: an answer without a message", key, bucket)
	}
	op := jetstream.KeyValuePut
	if len(resp.Message.Hdrs) > 0 {
		h, err := nats.DecodeHeadersMsg(resp.Message.Hdrs)
		if err != nil {
			return nil, fmt.Errorf("read %s of bucket %s: %w", key, bucket, err)
		}
		switch strings.ToUpper(h.Get("KV-Operation")) {
		case "DEL":
			op = jetstream.KeyValueDelete
		case "PURGE":
			op = jetstream.KeyValuePurge
		}
	}
	if op != jetstream.KeyValuePut {
		return nil, jetstream.ErrKeyNotFound
	}
	return leaderEntry{bucket: bucket, key: key, value: resp.Message.Data, rev: resp.Message.Seq, created: resp.Message.Time}, nil
}

// leaderEntry is an entry of a bucket read from its leader.
type leaderEntry struct {
	bucket, key string
	value       []byte
	rev         uint64
	created     time.Time
}

func (e leaderEntry) Bucket() string                  { return e.bucket }
func (e leaderEntry) Key() string                     { return e.key }
func (e leaderEntry) Value() []byte                   { return e.value }
func (e leaderEntry) Revision() uint64                { return e.rev }
func (e leaderEntry) Created() time.Time              { return e.created }
func (e leaderEntry) Delta() uint64                   { return 0 }
func (e leaderEntry) Operation() jetstream.KeyValueOp { return jetstream.KeyValuePut }
