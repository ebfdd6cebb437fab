package master

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"switchboard/bulletin"
	"switchboard/internal/watch"
)

// Routing pauses, and never stops, when the disk is full or the audit log
// cannot be written: the master marks the bulletin degraded with the reason,
// tries every outbox again each pauseRetry, and resumes once a pass goes
// through and the disk has room again. The audit log takes back what it
// could not make durable, so nothing is lost and nothing is logged twice.
const pauseRetry = time.Second

// reserveSize is the room the master keeps in a file of its own and gives
// up when the disk fills, so that it can still write the bulletin and its
// notices on a disk that has no block left.
const reserveSize = 256 << 10

// pause is why routing is paused; reason is empty while it runs. It is used
// by the master's loop alone.
type pause struct {
	reason  string
	marked  bool   // the bulletin says degraded
	was     string // the bulletin's system status before
	trouble error  // the first full-disk error of the pass under way
}

// diskFull reports whether err comes of a disk, or a quota, with no room.
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// paused reports whether routing is paused.
func (m *Master) paused() bool { return m.pause.reason != "" }

// noteFull remembers a full-disk error met during a pass: the pass ends in a
// pause. Other errors are the caller's to report.
func (m *Master) noteFull(err error) {
	if diskFull(err) && m.pause.trouble == nil {
		m.pause.trouble = err
	}
}

// afterPass pauses routing when the pass failed to log or met a full disk,
// and resumes it after a pass over every outbox that did neither.
func (m *Master) afterPass(all bool, logErr error) {
	trouble := m.pause.trouble
	m.pause.trouble = nil
	switch {
	case logErr != nil:
		m.pauseRouting(logErr)
	case trouble != nil:
		m.pauseRouting(trouble)
	case m.paused() && all:
		m.resumeRouting()
	}
}

// pauseRouting says why routing is paused, once per reason, and marks the
// bulletin degraded, giving up the reserve to make room for that.
func (m *Master) pauseRouting(err error) {
	reason, short := "routing paused: "+err.Error(), "routing paused: "+err.Error()
	if diskFull(err) {
		reason = "routing paused, the disk is full: " + err.Error()
		short = "routing paused: the disk is full; messages wait in the outboxes until there is room"
	}
	if reason != m.pause.reason {
		m.logf("%s; trying again every %s, nothing is lost", reason, pauseRetry)
		m.pause.reason = reason
	}
	if m.pause.marked {
		return
	}
	m.freeReserve()
	err = bulletin.Of(m.ws).Update(func(b *bulletin.Bulletin) error {
		m.pause.was = b.Degrade(bulletin.TopicDisk, short, m.now().UTC())
		return nil
	})
	if err != nil {
		m.logf("cannot mark the bulletin degraded: %v; will try again", err)
		return
	}
	m.pause.marked = true
}

// resumeRouting ends a pause once the disk has room for the reserve again,
// and takes the degraded mark off the bulletin.
func (m *Master) resumeRouting() {
	if err := m.keepReserve(); diskFull(err) {
		return // routing went through, but the disk is about full still
	}
	if m.pause.marked {
		err := bulletin.Of(m.ws).Update(func(b *bulletin.Bulletin) error {
			b.Recover(bulletin.TopicDisk, m.pause.was)
			return nil
		})
		if err != nil {
			m.logf("cannot take the degraded mark off the bulletin: %v; will try again", err)
			return
		}
		m.pause.marked = false
	}
	m.logf("routing resumed")
	m.pause.reason = ""
}

// adoptDegraded takes over a degraded mark a master that died left on the
// bulletin, so that the first pass that goes through takes it off.
func (m *Master) adoptDegraded() {
	if m.pause.marked {
		return // this master marked it, while it waited for room to start
	}
	b, err := bulletin.Of(m.ws).Read()
	if err != nil || !b.DegradedFor(bulletin.TopicDisk) {
		return
	}
	m.pause = pause{reason: "left degraded by an earlier master", marked: true, was: bulletin.DefaultStatus}
}

// keepReserve makes the reserve when it is missing or short.
func (m *Master) keepReserve() error {
	path := m.store.ReservePath()
	if fi, err := os.Stat(path); err == nil && fi.Size() == reserveSize {
		return nil
	}
	err := os.WriteFile(path, make([]byte, reserveSize), 0o600)
	if err != nil {
		os.Remove(path) // a short reserve holds what it got; give it back
		return fmt.Errorf("keep %d KiB in reserve: %w", reserveSize>>10, err)
	}
	return nil
}

// freeReserve gives the reserve up.
func (m *Master) freeReserve() {
	if err := os.Remove(m.store.ReservePath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		m.logf("cannot free the reserve: %v", err)
	}
}

// untilRoom runs a step of the start until it does not fail of a full disk,
// pausing meanwhile and trying again each pauseRetry. It returns the step's
// other errors, and nil when ctx ends first.
func (m *Master) untilRoom(ctx context.Context, step func() error) error {
	for {
		err := step()
		if !diskFull(err) {
			return err
		}
		m.pauseRouting(err)
		if watch.Sleep(ctx, pauseRetry) != nil {
			return nil
		}
	}
}
