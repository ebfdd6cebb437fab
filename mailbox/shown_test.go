package mailbox

import (
	"slices"
	"sync"
	"testing"
)

func TestShownTracksMessagesShownOutOfOrder(t *testing.T) {
	inbox := []string{"a_normal", "b_urgent", "c_normal", "d_low"}
	var s Shown
	s.Add("b_urgent")
	if got := s.Unshown(inbox); !slices.Equal(got, []string{"a_normal", "c_normal", "d_low"}) {
		t.Errorf("unshown after b was shown = %q", got)
	}
	s.Advance("c_normal")
	if len(s.Also) != 0 {
		t.Errorf("also = %q after advancing past it; want empty", s.Also)
	}
	if got := s.Unshown(inbox); !slices.Equal(got, []string{"d_low"}) {
		t.Errorf("unshown after advancing to c = %q", got)
	}
	s.Add("a_normal") // behind the mark: nothing to add
	if len(s.Also) != 0 {
		t.Errorf("also = %q; a name behind the mark was added", s.Also)
	}
	back := decodeShown(s.encode())
	if back.Upto != s.Upto || !slices.Equal(back.Also, s.Also) {
		t.Errorf("round trip %+v became %+v", s, back)
	}
}

func TestClaimShownGivesEachMessageToOneChannel(t *testing.T) {
	store := NewStore(t.TempDir())
	if err := store.Ensure("dev"); err != nil {
		t.Fatal(err)
	}
	names := []string{"1_normal", "2_normal", "3_urgent", "4_normal", "5_low"}
	// Several channels (the master, hooks) race to show the same mail.
	var mu sync.Mutex
	count := map[string]int{}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// A hook shows the whole inbox (and so everything up to its
			// newest); the master, the messages it announces.
			claim, upto := names[i%2:], ""
			if i%3 == 0 {
				claim, upto = names, names[len(names)-1]
			}
			taken, err := store.ClaimShown("dev", claim, upto)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			for _, n := range claim {
				if !slices.Contains(taken, n) {
					count[n]++
				}
			}
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	for _, n := range names {
		if count[n] != 1 {
			t.Errorf("%s was claimed %d times; want once", n, count[n])
		}
	}
	if err := store.ResetShown("dev"); err != nil {
		t.Fatal(err)
	}
	if got := store.ReadShown("dev").Unshown(names); !slices.Equal(got, names) {
		t.Errorf("after a reset, unshown = %q; want everything", got)
	}
	// A notice that could not be typed gives its messages back.
	if _, err := store.ClaimShown("dev", names[3:], ""); err != nil {
		t.Fatal(err)
	}
	if err := store.ForgetShown("dev", []string{"5_low"}); err != nil {
		t.Fatal(err)
	}
	if taken, _ := store.ClaimShown("dev", names, ""); !slices.Equal(taken, []string{"4_normal"}) {
		t.Errorf("after 4_normal was shown and 5_low given back, a claim found %q shown already; want 4_normal alone", taken)
	}
}
