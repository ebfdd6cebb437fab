package hub

import (
	"context"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// bucket is one of the team's buckets as a host has it: read directly from
// the hub, written by the hub on the host's behalf (writes.go).
type bucket struct {
	c    *Conn
	kv   jetstream.KeyValue
	name string
}

// Get returns the newest value of key.
func (b *bucket) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	return b.kv.Get(ctx, key)
}

// Put sets key to value, and returns its revision.
func (b *bucket) Put(ctx context.Context, key string, value []byte) (uint64, error) {
	return b.write(ctx, writePut, key, value, 0)
}

// Create sets key to value only if key has none; jetstream.ErrKeyExists
// otherwise.
func (b *bucket) Create(ctx context.Context, key string, value []byte) (uint64, error) {
	return b.write(ctx, writeCreate, key, value, 0)
}

// Update sets key to value only if its revision is still revision;
// jetstream.ErrKeyExists otherwise.
func (b *bucket) Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error) {
	return b.write(ctx, writeUpdate, key, value, revision)
}

// Delete deletes key; when revision is not 0, only if its revision is
// still revision (jetstream.ErrKeyExists otherwise).
func (b *bucket) Delete(ctx context.Context, key string, revision uint64) error {
	_, err := b.write(ctx, writeDelete, key, nil, revision)
	return err
}

func (b *bucket) write(ctx context.Context, op, key string, value []byte, revision uint64) (uint64, error) {
	if !validKey(key) {
		return 0, jetstream.ErrInvalidKey
	}
	m := nats.NewMsg(b.c.names.writeRequest(b.c.host))
	m.Header.Set(writeOp, op)
	m.Header.Set(writeBucket, b.name)
	m.Header.Set(writeKey, key)
	if revision > 0 {
		m.Header.Set(writeRevision, strconv.FormatUint(revision, 10))
	}
	m.Data = value
	answer, err := b.c.nc.RequestMsgWithContext(ctx, m)
	if err != nil {
		return 0, err
	}
	if err := writeErr(answer); err != nil {
		return 0, err
	}
	return strconv.ParseUint(answer.Header.Get(writeRevision), 10, 64)
}
