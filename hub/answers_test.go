package hub

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestBatchesPublishedAtOnceEachHearTheirOwnAnswers: several backlogs of
// one host cross at the same moment on its one subscription of answers;
// each is told of its own copies, every copy arrives once, and no batch is
// left waiting on the subscription after.
func TestBatchesPublishedAtOnceEachHearTheirOwnAnswers(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice")
	b := join(t, s, "b", "bob")
	got := receiveInto(t, b, nil)
	const batches, each = 4, 25
	var wg sync.WaitGroup
	errs := make([]error, batches)
	for k := range batches {
		wg.Go(func() {
			copies := make([]Copy, each)
			for i := range copies {
				copies[i] = Copy{ID: fmt.Sprintf("batch%d-%d", k, i), From: "alice", To: "bob", Body: []byte(fmt.Sprintf("%d/%d", k, i))}
			}
			stored, err := a.PublishAll(ctxFor(t, 30*time.Second), copies)
			if err == nil && stored != each {
				err = fmt.Errorf("%d of %d stored", stored, each)
			}
			errs[k] = err
		})
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Errorf("batch %d: %v", k, err)
		}
	}
	seen := make(map[string]int)
	deadline := time.After(30 * time.Second)
	for len(seen) < batches*each {
		select {
		case d := <-got:
			seen[d.ID]++
		case <-deadline:
			t.Fatalf("%d of %d copies arrived", len(seen), batches*each)
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s arrived %d times", id, n)
		}
	}
	a.answers.mu.Lock()
	left := len(a.answers.waiting)
	a.answers.mu.Unlock()
	if left != 0 {
		t.Errorf("%d batches still wait on the subscription of answers after every PublishAll returned", left)
	}
}
