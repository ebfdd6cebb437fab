package hub

import (
	"errors"
	"testing"
	"time"
)

// TestForceUnlockReleasesOnlyTheLockItRead: a lock released and taken again
// by another between ForceUnlock's read and its release stays taken; one
// only released meanwhile is free, which is what forcing wanted.
func TestForceUnlockReleasesOnlyTheLockItRead(t *testing.T) {
	s := startHub(t, t.TempDir())
	b := join(t, s, "b", "bob")
	c := join(t, s, "c", "carol")
	ctx := ctxFor(t, 20*time.Second)
	name := ResourceLock("db migrations")

	// bob, of this host, holds it; this host forces it (its holder exited),
	// and between the read and the release bob lets go and carol takes it.
	taken, err := b.Lock(ctx, name, "bob")
	if err != nil {
		t.Fatal(err)
	}
	var carols Lock
	forceRead = func(string) {
		forceRead = nil
		if err := b.Unlock(ctx, taken); err != nil {
			t.Errorf("bob's release: %v", err)
		}
		if carols, err = c.Lock(ctx, name, "carol"); err != nil {
			t.Errorf("carol's lock: %v", err)
		}
	}
	t.Cleanup(func() { forceRead = nil })
	if err := b.ForceUnlock(ctx, name); !errors.Is(err, ErrRevisionChanged) {
		t.Errorf("forcing a lock taken again meanwhile: %v; want it refused as changed", err)
	}
	if l, ok, err := b.ReadLock(ctx, name); err != nil || !ok || l.Owner != "carol" || l.Host != "c" || l.Revision != carols.Revision {
		t.Fatalf("the lock after the force: %+v, %v, %v; want carol's, untouched", l, ok, err)
	}

	// carol lets go while c forces its own lock: free is what it wanted.
	forceRead = func(string) {
		forceRead = nil
		if err := c.Unlock(ctx, carols); err != nil {
			t.Errorf("carol's release: %v", err)
		}
	}
	if err := c.ForceUnlock(ctx, name); err != nil {
		t.Errorf("forcing a lock released meanwhile: %v; want no error", err)
	}
	if l, ok, err := c.ReadLock(ctx, name); err != nil || ok {
		t.Errorf("the lock after: %+v, %v, %v; want it free", l, ok, err)
	}
}

// TestAResourceOfAnyNameHasALock: names of spaces, slashes and dots are
// locks of their own.
func TestAResourceOfAnyNameHasALock(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice")
	ctx := ctxFor(t, 10*time.Second)
	for _, resource := range []string{"db migrations", "src/main.go", "..", "ünïcode"} {
		if _, err := a.Lock(ctx, ResourceLock(resource), "alice"); err != nil {
			t.Errorf("lock of %q: %v", resource, err)
		}
	}
	if _, err := a.Lock(ctx, ResourceLock("src/main.go"), "alice"); err == nil {
		t.Error("a resource taken twice")
	}
}

// TestForceUnlockIfAsksFirst: a lock its caller may not force is left as
// it is, with the caller's reason.
func TestForceUnlockIfAsksFirst(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice")
	ctx := ctxFor(t, 10*time.Second)
	name := ResourceLock("main")
	if _, err := a.Lock(ctx, name, "alice"); err != nil {
		t.Fatal(err)
	}
	stillRunning := errors.New("alice has not exited")
	var asked Lock
	err := a.ForceUnlockIf(ctx, name, func(l Lock) error { asked = l; return stillRunning })
	if !errors.Is(err, stillRunning) || asked.Owner != "alice" || asked.Host != "a" {
		t.Errorf("ForceUnlockIf = %v, asked about %+v; want the refusal, asked about alice's lock", err, asked)
	}
	if _, ok, _ := a.ReadLock(ctx, name); !ok {
		t.Error("a lock its caller refused to force was released")
	}
	if err := a.ForceUnlockIf(ctx, name, func(Lock) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := a.ReadLock(ctx, name); ok {
		t.Error("a lock its caller let force stayed")
	}
}
