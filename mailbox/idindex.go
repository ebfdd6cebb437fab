package mailbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// An idIndex finds a logged message's record by the message's id without
// holding the log in memory: a hash table in a file beside the log
// (messages.ids), whose slots hold a hash of the id and the offset of the
// record's line, read with pread and written with pwrite. It is derived
// from the log alone: a lookup checks the line it points to, so a slot
// left by a record taken back, or by a damaged line, finds nothing; and
// the log's records past the header's indexedTo are indexed again at open,
// so an index that lost its last writes in a crash is made whole.
type idIndex struct {
	path      string
	durable   bool // synced at each checkpoint, as the log is at each sync
	file      *os.File
	slots     uint64
	count     uint64
	indexedTo int64 // every record before this offset is in the index, durably
}

// The index file: a header, then slots of idSlotSize bytes.
const (
	idIndexMagic   = "sbids01\n"
	idHeaderSize   = 32 // magic, slots, count, indexedTo
	idSlotSize     = 16 // the id's hash, the record's offset + 1 (0: empty)
	idInitialSlots = 1 << 12
)

// openIDIndex opens the index at path, or makes an empty one; an index
// that cannot be read as one is made anew, empty.
func openIDIndex(path string, durable bool) (*idIndex, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the index of logged ids: %w", err)
	}
	x := &idIndex{path: path, durable: durable, file: f}
	var head [idHeaderSize]byte
	_, err = f.ReadAt(head[:], 0)
	fi, statErr := f.Stat()
	if err == nil && statErr == nil && string(head[:8]) == idIndexMagic {
		x.slots = binary.LittleEndian.Uint64(head[8:])
		x.count = binary.LittleEndian.Uint64(head[16:])
		x.indexedTo = int64(binary.LittleEndian.Uint64(head[24:]))
		if x.slots > 0 && x.slots&(x.slots-1) == 0 && fi.Size() == idHeaderSize+int64(x.slots)*idSlotSize {
			return x, nil
		}
	}
	if err := x.reset(idInitialSlots); err != nil {
		f.Close()
		return nil, err
	}
	return x, nil
}

// reset empties the index, with slots slots.
func (x *idIndex) reset(slots uint64) error {
	if err := x.file.Truncate(0); err != nil {
		return fmt.Errorf("empty the index of logged ids: %w", err)
	}
	if err := x.file.Truncate(idHeaderSize + int64(slots)*idSlotSize); err != nil {
		return fmt.Errorf("size the index of logged ids: %w", err)
	}
	x.slots, x.count, x.indexedTo = slots, 0, 0
	return x.writeHeader()
}

func (x *idIndex) writeHeader() error {
	var head [idHeaderSize]byte
	copy(head[:], idIndexMagic)
	binary.LittleEndian.PutUint64(head[8:], x.slots)
	binary.LittleEndian.PutUint64(head[16:], x.count)
	binary.LittleEndian.PutUint64(head[24:], uint64(x.indexedTo))
	if _, err := x.file.WriteAt(head[:], 0); err != nil {
		return fmt.Errorf("write the index of logged ids: %w", err)
	}
	return nil
}

func (x *idIndex) Close() error { return x.file.Close() }

func idHash(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// slotAt reads slot i: the hash kept there and the offset (-1 when empty).
func (x *idIndex) slotAt(i uint64) (hash uint64, off int64, err error) {
	var slot [idSlotSize]byte
	if _, err := x.file.ReadAt(slot[:], idHeaderSize+int64(i)*idSlotSize); err != nil {
		return 0, 0, fmt.Errorf("read the index of logged ids: %w", err)
	}
	return binary.LittleEndian.Uint64(slot[:8]), int64(binary.LittleEndian.Uint64(slot[8:])) - 1, nil
}

// find returns the offset of the record of id, as is checks each candidate
// the index holds (the line at the offset is that id's record).
func (x *idIndex) find(id string, is func(off int64) bool) (int64, bool, error) {
	h := idHash(id)
	for i, n := h&(x.slots-1), uint64(0); n < x.slots; i, n = (i+1)&(x.slots-1), n+1 {
		hash, off, err := x.slotAt(i)
		if err != nil {
			return 0, false, err
		}
		if off < 0 {
			return 0, false, nil
		}
		if hash == h && is(off) {
			return off, true, nil
		}
	}
	return 0, false, nil
}

// add records that the line at off is the record of id; the same entry
// twice is kept once. The index doubles when half full, or when a probe
// grows long: the count kept in the header may miss entries written after
// the last checkpoint, and the doubling counts them again.
func (x *idIndex) add(id string, off int64) error {
	if (x.count+1)*2 > x.slots {
		if err := x.grow(); err != nil {
			return err
		}
	}
	added, err := x.put(idHash(id), off, maxProbe)
	if errors.Is(err, errLongProbe) {
		if err := x.grow(); err != nil {
			return err
		}
		added, err = x.put(idHash(id), off, maxProbe)
	}
	if added {
		x.count++
	}
	return err
}

// maxProbe is the longest probe add makes before the table is doubled;
// at half full, probes this long do not happen.
const maxProbe = 64

// errLongProbe is put's word that the table is too full around the entry.
var errLongProbe = errors.New("the index of logged ids is too full")

// put writes an entry into the first free slot of its probe, unless it is
// there already; a probe of limit slots finds none, errLongProbe.
func (x *idIndex) put(h uint64, off int64, limit uint64) (added bool, err error) {
	for i, n := h&(x.slots-1), uint64(0); n < min(limit, x.slots); i, n = (i+1)&(x.slots-1), n+1 {
		hash, at, err := x.slotAt(i)
		if err != nil {
			return false, err
		}
		if at == off && hash == h {
			return false, nil
		}
		if at < 0 {
			return true, x.writeSlot(i, h, off)
		}
	}
	return false, errLongProbe
}

// writeSlot writes an entry into slot i.
func (x *idIndex) writeSlot(i, h uint64, off int64) error {
	var slot [idSlotSize]byte
	binary.LittleEndian.PutUint64(slot[:8], h)
	binary.LittleEndian.PutUint64(slot[8:], uint64(off+1))
	if _, err := x.file.WriteAt(slot[:], idHeaderSize+int64(i)*idSlotSize); err != nil {
		return fmt.Errorf("write the index of logged ids: %w", err)
	}
	return nil
}

// grow moves the entries into a table twice as large, made beside the
// index and put in its place whole.
func (x *idIndex) grow() error {
	next := &idIndex{path: x.path, durable: x.durable}
	f, err := os.OpenFile(x.path+".new", os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("grow the index of logged ids: %w", err)
	}
	next.file = f
	fail := func(err error) error {
		f.Close()
		os.Remove(x.path + ".new")
		return fmt.Errorf("grow the index of logged ids: %w", err)
	}
	if err := next.reset(x.slots * 2); err != nil {
		return fail(err)
	}
	buf := make([]byte, 4096*idSlotSize)
	for start := uint64(0); start < x.slots; start += uint64(len(buf) / idSlotSize) {
		n, err := x.file.ReadAt(buf, idHeaderSize+int64(start)*idSlotSize)
		if err != nil && !errors.Is(err, io.EOF) {
			return fail(err)
		}
		for b := 0; b+idSlotSize <= n; b += idSlotSize {
			off := int64(binary.LittleEndian.Uint64(buf[b+8:])) - 1
			if off < 0 {
				continue
			}
			// The doubling must place every entry it moves: no bound.
			added, err := next.put(binary.LittleEndian.Uint64(buf[b:]), off, next.slots)
			if err != nil {
				return fail(err)
			}
			if added {
				next.count++
			}
		}
	}
	next.indexedTo = x.indexedTo
	if err := next.writeHeader(); err != nil {
		return fail(err)
	}
	if x.durable {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := os.Rename(x.path+".new", x.path); err != nil {
		return fail(err)
	}
	x.file.Close()
	*x = *next
	return nil
}

// checkpoint makes the entries durable (for a durable log; a log that is
// not synced loses its own last records in a power cut alike) and then
// records that every record before to is in them: an index whose writes
// after it were lost is made whole from there at the next open.
func (x *idIndex) checkpoint(to int64) error {
	if x.durable {
		if err := x.file.Sync(); err != nil {
			return fmt.Errorf("sync the index of logged ids: %w", err)
		}
	}
	x.indexedTo = to
	return x.writeHeader()
}
