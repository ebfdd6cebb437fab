package hublink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"switchboard/bulletin"
	"switchboard/hub"
	"switchboard/internal/safetext"
	"switchboard/master/link/errand"
)

// What each errand does on the hub, with the link's connection, for an
// agent of this host whose right to it the master checked.

// lockTries bounds the tries to take a lock that is released as it is
// read, and boardTries the compare-and-swap of the board, which an overseer
// of another host may be changing at the same moment.
const (
	lockTries  = 3
	boardTries = 5
)

// Do does errand e of agent on the hub, and says how it went; a link that
// has not joined the hub yet answers at once.
func (l *Link) Do(ctx context.Context, agent string, e *errand.Errand, exited func(string) bool) errand.Answer {
	conn := l.conn.Load()
	if conn == nil {
		return errand.Answer{Refused: errand.RefusedHubAway, Reason: "this host has not joined the hub yet"}
	}
	switch e.Kind {
	case errand.Lock:
		return lockOnHub(ctx, conn, agent, e.Resource)
	case errand.Unlock:
		return unlockOnHub(ctx, conn, agent, e.Resource, e.Revision)
	case errand.ForceUnlock:
		return forceOnHub(ctx, conn, e.Resource, exited)
	case errand.SetState:
		if err := conn.SetState(ctx, e.Key, e.Value); err != nil {
			return failed(err)
		}
		return errand.Answer{}
	case errand.ChangeBoard:
		return changeBoardOnHub(ctx, conn, bulletin.BoardChange{Status: e.Status, Phase: e.Phase, Warn: e.Warn, ClearWarnings: e.ClearWarnings, By: agent})
	}
	return errand.Answer{Refused: errand.RefusedInvalid, Reason: fmt.Sprintf("no errand of kind %q", e.Kind)}
}

// heldBy is the answer that someone else holds a lock.
func heldBy(resource, owner, host, then string) errand.Answer {
	return errand.Answer{Refused: errand.RefusedHeld, Holder: owner, Host: host,
		Reason: fmt.Sprintf("%s is held by %s on host %s%s", resource, safetext.Line(owner), safetext.Line(host), then)}
}

// lockOnHub takes the resource for agent, so that no agent of another host
// holds it at once. An agent that holds it already keeps it.
func lockOnHub(ctx context.Context, conn *hub.Conn, agent, resource string) errand.Answer {
	for range lockTries {
		l, err := conn.Lock(ctx, hub.ResourceLock(resource), agent)
		var held *hub.LockHeld
		switch {
		case errors.As(err, &held) && held.Owner == "":
			continue // released as it was read
		case errors.As(err, &held) && held.Owner == agent && held.Host == conn.Host():
			return errand.Answer{Holder: agent, Host: conn.Host()}
		case errors.As(err, &held):
			return heldBy(resource, held.Owner, held.Host, "")
		case err != nil:
			return failed(err)
		}
		return errand.Answer{Holder: agent, Host: conn.Host(), Revision: l.Revision}
	}
	return failed(fmt.Errorf("%s was taken and released %d times as it was being taken: try again", resource, lockTries))
}

// unlockOnHub releases the resource, when agent, of this host, holds it
// (the taking of revision, when not 0); a lock that is free, or that agent
// took again since, stays as it is.
func unlockOnHub(ctx context.Context, conn *hub.Conn, agent, resource string, revision uint64) errand.Answer {
	l, ok, err := conn.ReadLock(ctx, hub.ResourceLock(resource))
	switch {
	case err != nil:
		return failed(err)
	case !ok, revision != 0 && l.Revision != revision:
		return errand.Answer{}
	case l.Owner != agent || l.Host != conn.Host():
		return heldBy(resource, l.Owner, l.Host, ": only its holder may release it")
	}
	err = conn.Unlock(ctx, l)
	if err != nil && !errors.Is(err, hub.ErrLockLost) { // lost: released already
		return failed(err)
	}
	return errand.Answer{Holder: l.Owner, Host: l.Host}
}

// forceOnHub releases the resource whoever holds it, when the holder's
// host is gone, or the holder is an agent of this host that has exited.
func forceOnHub(ctx context.Context, conn *hub.Conn, resource string, exited func(string) bool) errand.Answer {
	var forced hub.Lock
	running := errors.New("running")
	err := conn.ForceUnlockIf(ctx, hub.ResourceLock(resource), func(l hub.Lock) error {
		forced = l
		if l.Host == conn.Host() && !exited(l.Owner) {
			return running
		}
		return nil
	})
	var held *hub.LockHeld
	switch {
	case errors.Is(err, running):
		return errand.Answer{Refused: errand.RefusedRight, Holder: forced.Owner, Host: forced.Host,
			Reason: fmt.Sprintf("%s is held by %s, which has not exited; ask it to unlock, or stop it first", resource, safetext.Line(forced.Owner))}
	case errors.As(err, &held):
		return errand.Answer{Refused: errand.RefusedRight, Holder: held.Owner, Host: held.Host,
			Reason: fmt.Sprintf("%s is held by %s on host %s, which is up: ask it to unlock", resource, safetext.Line(held.Owner), safetext.Line(held.Host))}
	case err != nil:
		return failed(err)
	}
	return errand.Answer{Holder: forced.Owner, Host: forced.Host}
}

// changeBoardOnHub changes the team's board on the hub by compare-and-swap,
// and answers with what it did and the board as it is since.
func changeBoardOnHub(ctx context.Context, conn *hub.Conn, c bulletin.BoardChange) errand.Answer {
	for range boardTries {
		var board bulletin.Board
		data, rev, err := conn.Get(ctx, bulletin.BoardKey)
		switch {
		case errors.Is(err, hub.ErrNotFound):
			rev = 0
		case err != nil:
			return failed(err)
		default:
			if err := json.Unmarshal(data, &board); err != nil {
				return failed(fmt.Errorf("read the team's board: %w", err))
			}
		}
		said, err := board.Apply(c, time.Now().UTC())
		if err != nil {
			return errand.Answer{Refused: errand.RefusedInvalid, Reason: err.Error()}
		}
		value, err := json.Marshal(board)
		if err != nil {
			return failed(err)
		}
		_, err = conn.Update(ctx, bulletin.BoardKey, value, rev)
		if errors.Is(err, hub.ErrRevisionChanged) {
			continue
		}
		if err != nil {
			return failed(err)
		}
		return errand.Answer{Said: said, Board: value}
	}
	return failed(fmt.Errorf("the team's board changed %d times while it was being changed: try again", boardTries))
}

// failed is the answer to an errand the hub did not do, for err: out of
// reach (nothing changed), or err itself.
func failed(err error) errand.Answer {
	if errors.Is(err, hub.ErrUnreachable) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, hub.ErrClosed) {
		return errand.Answer{Refused: errand.RefusedHubAway, Reason: err.Error()}
	}
	return errand.Answer{Refused: errand.RefusedFailed, Reason: err.Error()}
}
