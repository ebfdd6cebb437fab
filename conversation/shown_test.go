package conversation

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"switchboard/mailbox"
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

// TestUnshownOfNamesOutOfOrder: names given out of order are picked as
// well as sorted ones.
func TestUnshownOfNamesOutOfOrder(t *testing.T) {
	s := Shown{Names: []string{"b_urgent", "d_low"}}
	for _, c := range []struct{ names, want []string }{
		{[]string{"a_normal", "b_urgent", "c_normal", "d_low", "e_low"}, []string{"a_normal", "c_normal", "e_low"}},
		{[]string{"d_low", "e_low", "a_normal", "b_urgent"}, []string{"e_low", "a_normal"}},
		{nil, []string{}},
	} {
		if got := s.Unshown(c.names); !slices.Equal(got, c.want) {
			t.Errorf("Unshown(%q) = %q; want %q", c.names, got, c.want)
		}
	}
}

func TestClaimShownGivesEachMessageToOneChannel(t *testing.T) {
	store := mailbox.NewStore(t.TempDir())
	if err := store.Ensure("dev"); err != nil {
		t.Fatal(err)
	}
	b := Of(store)
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
			taken, err := b.ClaimShown("dev", claim, whole)
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
	if err := b.ResetShown("dev"); err != nil {
		t.Fatal(err)
	}
	if got := b.Shown("dev").Unshown(names); !slices.Equal(got, names) {
		t.Errorf("after a reset, unshown = %q; want everything", got)
	}
	// A notice that could not be typed gives its messages back.
	if _, err := b.ClaimShown("dev", names[3:], ""); err != nil {
		t.Fatal(err)
	}
	if err := b.ForgetShown("dev", []string{"5_low"}); err != nil {
		t.Fatal(err)
	}
	if taken, _ := b.ClaimShown("dev", names, ""); !slices.Equal(taken, []string{"4_normal"}) {
		t.Errorf("after 4_normal was shown and 5_low given back, a claim found %q shown already; want 4_normal alone", taken)
	}
}

// inboxOf delivers n messages to rev and settles its inbox; it returns
// the store, its book and the messages' names, sorted.
func inboxOf(t *testing.T, n int) (*mailbox.Store, *Book, []string) {
	t.Helper()
	s := mailbox.NewStore(t.TempDir())
	s.Durable = false
	base := time.Date(2026, 11, 22, 8, 57, 0, 0, time.UTC)
	names := make([]string, n)
	for i := range names {
		m := message(fmt.Sprintf("0193a7c2-0000-7000-8000-%012d", i), base.Add(time.Duration(i)*time.Millisecond))
		if _, err := s.Deliver("rev", m); err != nil {
			t.Fatal(err)
		}
		names[i] = mailbox.FileName(m.DeliveredAt, m.Priority, m.ID)
	}
	settle(t, s, "rev")
	return s, Of(s), names
}

func message(id string, at time.Time) *mailbox.Message {
	return &mailbox.Message{ID: id, Timestamp: at, DeliveredAt: at, From: "dev", To: []string{"rev"}, Title: "t " + id[len(id)-1:], Priority: mailbox.PriorityNormal, Type: mailbox.TypeNotification}
}

// settle makes the agent's inbox folder look untouched for a while, as an
// inbox index needs before it trusts its listing.
func settle(t *testing.T, s *mailbox.Store, agent string) {
	t.Helper()
	old := time.Now().Add(-10 * time.Second)
	if err := os.Chtimes(s.InboxDir(agent), old, old); err != nil {
		t.Fatal(err)
	}
}

// TestARecordOfTheOlderFormIsReadAndWrittenAnew: a record left by an older
// switchboard (form 2, the typed names last) tells what was shown and
// typed; the first change writes it in the current form, the typed names
// first, and what it told is kept.
func TestARecordOfTheOlderFormIsReadAndWrittenAnew(t *testing.T) {
	_, b, names := inboxOf(t, 3)
	old := "switchboard-shown 2 stamp-1\n" + names[0] + "\n" + names[2] + "\n>" + names[2] + "\n"
	if err := os.WriteFile(b.shownPath("rev"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if !b.ShownWhole("rev", "stamp-1") || b.ShownWhole("rev", "stamp-2") || b.ShownWhole("rev", "") {
		t.Errorf("the older record's stamp is not told from its first line")
	}
	sh := b.Shown("rev")
	if !slices.Equal(sh.Names, []string{names[0], names[2]}) || !slices.Equal(sh.Typed, names[2:]) || sh.Whole != "stamp-1" {
		t.Errorf("the older record read as %+v", sh)
	}
	taken, err := b.TakeTyped("rev")
	if err != nil || !slices.Equal(taken, names[2:]) {
		t.Errorf("TakeTyped = %q, %v; want the typed name of the older record", taken, err)
	}
	data, err := os.ReadFile(b.shownPath("rev"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "switchboard-shown 3 0 stamp-1\n" + names[0] + "\n" + names[2] + "\n"; string(data) != want {
		t.Errorf("the record was written\n%s\nwant\n%s", data, want)
	}
	if taken, _ := b.ClaimShown("rev", names, ""); !slices.Equal(taken, []string{names[0], names[2]}) {
		t.Errorf("after the record was written anew, a claim found %q shown; want %q", taken, []string{names[0], names[2]})
	}
}

// TestTheRecordIsReadWhereItNeedsToBe: a prompt's hook with nothing new
// reads the first line of the record, whatever its size: a record whose
// names past it cannot be read still says the inbox was shown whole, and
// that nothing typed waits, and is left as it was.
func TestTheRecordIsReadWhereItNeedsToBe(t *testing.T) {
	_, b, names := inboxOf(t, 2)
	if _, err := b.ClaimShown("rev", names, "stamp-1"); err != nil {
		t.Fatal(err)
	}
	record := "switchboard-shown 3 2 stamp-1\n" + names[0] + "\nnot\tread\x00\n"
	if err := os.WriteFile(b.shownPath("rev"), []byte(record), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(b.shownPath("rev") + ".lock"); err != nil {
		t.Fatal(err)
	}
	if !b.ShownWhole("rev", "stamp-1") {
		t.Errorf("the record's first line was not read")
	}
	if typed, err := b.TakeTyped("rev"); err != nil || len(typed) != 0 {
		t.Errorf("TakeTyped = %q, %v; want nothing", typed, err)
	}
	if data, _ := os.ReadFile(b.shownPath("rev")); string(data) != record {
		t.Errorf("taking nothing typed rewrote the record:\n%q", data)
	}
	if _, err := os.Stat(b.shownPath("rev") + ".lock"); err == nil {
		t.Errorf("taking nothing typed took the record's lock")
	}
}

// TestReadNamesAreDroppedOnceTheRecordDoubled: names no longer unread
// leave the record, but the inbox is listed for that only once the record
// holds twice the names it kept after the last time, not at every change.
func TestReadNamesAreDroppedOnceTheRecordDoubled(t *testing.T) {
	s, b, names := inboxOf(t, 5*pruneAt)
	read := func(name string) {
		t.Helper()
		entries, err := s.List("rev", mailbox.Unread)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name == name {
				if _, err := s.MarkRead("rev", e); err != nil {
					t.Fatal(err)
				}
			}
		}
		settle(t, s, "rev")
	}
	first := names[:2*pruneAt]
	if _, err := b.ClaimShown("rev", first, ""); err != nil {
		t.Fatal(err)
	}
	read(first[0])
	// The record holds more than pruneAt names, none kept before: the next
	// change drops the read one, and keeps the others.
	if _, err := b.ClaimShown("rev", names[len(first):len(first)+1], ""); err != nil {
		t.Fatal(err)
	}
	kept := len(first)
	if got := b.Shown("rev"); len(got.Names) != kept || got.Has(first[0]) {
		t.Fatalf("after the read name was dropped the record holds %d names; want %d", len(got.Names), kept)
	}
	// Another read name stays while the record grows to twice that.
	read(first[1])
	rest := names[len(first)+1:]
	for i := range rest {
		if _, err := b.ClaimShown("rev", rest[i:i+1], ""); err != nil {
			t.Fatal(err)
		}
		size := kept + i // the record before this claim
		got := b.Shown("rev")
		if dropped := !got.Has(first[1]); dropped != (size > 2*kept) {
			t.Fatalf("with %d names in the record, %d kept at the last pruning, the read name was dropped: %v", size, kept, dropped)
		}
		if size > 2*kept {
			return
		}
	}
	t.Fatalf("the record never doubled: %d names", kept+len(rest))
}

// TestTypedAndShownGoToOneChannelEach: the master types notices (its
// messages are kept for the prompt's hook) while hooks show the whole
// inbox and take what was typed, in many processes at once, on a record
// large enough to be pruned: each message is shown by one channel, and
// each typed one handed over by one hook, exactly once.
func TestTypedAndShownGoToOneChannelEach(t *testing.T) {
	s, b, names := inboxOf(t, 4*pruneAt)
	sum, err := s.InboxSummary("rev")
	if err != nil || sum.Stamp == "" {
		t.Fatalf("summary %+v, %v; want a settled inbox", sum, err)
	}
	var mu sync.Mutex
	shown, handed := map[string]int{}, map[string]int{}
	var typed []string
	count := func(into map[string]int, claimed, taken []string) {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range claimed {
			if !slices.Contains(taken, n) {
				into[n]++
			}
		}
	}
	take := func() {
		got, err := b.TakeTyped("rev")
		if err != nil {
			t.Error(err)
		}
		count(handed, got, nil)
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(2)
		go func() { // the master, a notice of a few messages at a time
			defer wg.Done()
			for j := i; j+3 <= len(names); j += 7 {
				claim := names[j : j+3]
				taken, err := b.ClaimTyped("rev", claim)
				if err != nil {
					t.Error(err)
				}
				count(shown, claim, taken)
				mu.Lock()
				for _, n := range claim {
					if !slices.Contains(taken, n) {
						typed = append(typed, n)
					}
				}
				mu.Unlock()
			}
		}()
		go func() { // a hook, at each prompt
			defer wg.Done()
			for j := 0; j < 20; j++ {
				take()
				claim := names[(i*j)%len(names):]
				if j%5 == 4 {
					claim = names
				}
				taken, err := b.ClaimShown("rev", claim, sum.Stamp)
				if err != nil {
					t.Error(err)
				}
				count(shown, claim, taken)
			}
		}()
	}
	wg.Wait()
	take() // the next prompt
	for _, n := range names {
		if shown[n] != 1 {
			t.Errorf("%s was shown %d times; want once", n, shown[n])
		}
	}
	for _, n := range typed {
		if handed[n] != 1 {
			t.Errorf("%s, typed, was handed over %d times; want once", n, handed[n])
		}
	}
	if len(handed) != len(typed) {
		t.Errorf("%d messages handed over; %d were typed", len(handed), len(typed))
	}
}
