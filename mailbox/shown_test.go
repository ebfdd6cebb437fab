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
	s.Add("c_normal", "a_normal")
	if got := s.Unshown(inbox); !slices.Equal(got, []string{"d_low"}) {
		t.Errorf("unshown after a, b and c were shown = %q", got)
	}
	s.Whole = "stamp"
	back := decodeShown(s.encode())
	if back.Whole != s.Whole || !slices.Equal(back.Names, s.Names) {
		t.Errorf("round trip %+v became %+v", s, back)
	}
	if old := decodeShown([]byte("20261124T000000.000000000Z_normal_x.json\n")); len(old.Names) != 0 || old.Whole != "" {
		t.Errorf("a record of the older form read as %+v; want nothing shown", old)
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
			// A hook shows the whole inbox; the master, the messages it
			// announces.
			claim, whole := names[i%2:], ""
			if i%3 == 0 {
				claim, whole = names, "stamp"
			}
			taken, err := store.ClaimShown("dev", claim, whole)
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
