package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var fast = TypeOptions{Pause: time.Millisecond, Check: 20 * time.Millisecond, Retries: 2}

func TestSendLineRetriesEnterThenReportsFailure(t *testing.T) {
	stub := NewStubRunner(t)
	c := NewClient("test", stub)
	stub.Expect(
		StubCall{Match: "display-message -p -t %3 #{cursor_y}", Output: "4 0\n"},
		StubCall{Match: "capture-pane -p -J -t %3 -S 0 -E 4", Output: "> \n"},
		StubCall{Match: "capture-pane -p -J -t %3", Output: "> \n"},
		StubCall{Match: "load-buffer -b switchboard-3-1 - ; if-shell -F -t %3 #{pane_dead}"},
	)
	// The text shows on the input line and never leaves, Enter after Enter.
	for range 40 {
		stub.Expect(StubCall{Match: "display-message -p -t %3 #{cursor_y}", Output: "4 0\n"},
			StubCall{Match: "capture-pane -p -J -t %3 -S 0 -E 4", Output: "> hello there\n"})
	}
	stub.Expect(StubCall{Match: "send-keys -t %3 Enter"}, StubCall{Match: "send-keys -t %3 Enter"}, StubCall{Match: "send-keys -t %3 Enter"})

	typed, err := c.SendLine(context.Background(), "%3", "hello there", fast)
	if !errors.Is(err, ErrNotSubmitted) || typed.Enters != 3 || typed.Verified {
		t.Errorf("SendLine = %+v, %v; want ErrNotSubmitted after 3 Enters", typed, err)
	}
	useAll(stub)
}

func TestSendLineLeavesCopyModeFirst(t *testing.T) {
	stub := NewStubRunner(t)
	c := NewClient("test", stub)
	stub.Expect(
		StubCall{Match: "display-message -p -t %1 #{cursor_y}", Output: "0 1\n"},
		StubCall{Match: "capture-pane -p -J -t %1 -S 0 -E 0", Output: "\n"},
		StubCall{Match: "send-keys -t %1 -X cancel"},
		StubCall{Match: "capture-pane -p -J -t %1", Output: "\n"},
		StubCall{Match: "paste-buffer"},
		StubCall{Match: "display-message -p -t %1 #{cursor_y}", Output: "0 0\n"},
		StubCall{Match: "capture-pane -p -J -t %1 -S 0 -E 0", Output: "$ hi\n"},
		StubCall{Match: "send-keys -t %1 Enter"},
		StubCall{Match: "display-message -p -t %1 #{cursor_y}", Output: "1 0\n"},
		StubCall{Match: "capture-pane -p -J -t %1 -S 0 -E 1", Output: "$ hi\n$ \n"},
	)
	typed, err := c.SendLine(context.Background(), "%1", "hi", fast)
	if err != nil || !typed.Verified || typed.Enters != 1 {
		t.Errorf("SendLine = %+v, %v; want verified with one Enter", typed, err)
	}
}

func TestSendLineToAProgramThatDoesNotEcho(t *testing.T) {
	stub := NewStubRunner(t)
	c := NewClient("test", stub)
	stub.Expect(
		StubCall{Match: "display-message", Output: "0 0\n"},
		StubCall{Match: "capture-pane", Output: "\n"},
		StubCall{Match: "capture-pane", Output: "\n"},
		StubCall{Match: "paste-buffer"},
	)
	// It is looked for at once and once more when the pause has passed:
	// the screen never shows it.
	for range 2 {
		stub.Expect(
			StubCall{Match: "display-message", Output: "0 0\n"},
			StubCall{Match: "capture-pane", Output: "\n"},
			StubCall{Match: "capture-pane", Output: "\n"},
		)
	}
	stub.Expect(StubCall{Match: "send-keys -t %2 Enter"})
	typed, err := c.SendLine(context.Background(), "%2", "quiet", fast)
	if err != nil || typed.Verified || typed.Enters != 1 {
		t.Errorf("SendLine = %+v, %v; want one Enter, unverified, no error", typed, err)
	}
}

// Gemini CLI draws its input box near the bottom, away from the cursor:
// the paste showing there is enough for Enter, long before the pause.
func TestSendLineEntersWhenTheInputBoxShowsThePaste(t *testing.T) {
	stub := NewStubRunner(t)
	c := NewClient("test", stub)
	box := func(text string) string {
		return "Tips for getting started\n\n╭────────────────────────────╮\n│ > " + text + " │\n╰────────────────────────────╯\n~/project   gemini-2.5-pro\n"
	}
	stub.Expect(
		StubCall{Match: "display-message -p -t %4 #{cursor_y}", Output: "0 0\n"},
		StubCall{Match: "capture-pane -p -J -t %4 -S 0 -E 0", Output: "Tips for getting started\n"},
		StubCall{Match: "capture-pane -p -J -t %4", Output: box("Type your message")},
		StubCall{Match: "paste-buffer"},
		StubCall{Match: "display-message -p -t %4 #{cursor_y}", Output: "0 0\n"},
		StubCall{Match: "capture-pane -p -J -t %4 -S 0 -E 0", Output: "Tips for getting started\n"},
		StubCall{Match: "capture-pane -p -J -t %4", Output: box("[FROM: Tester Agent] tests pass")},
		StubCall{Match: "display-message -p -t %4 #{cursor_y}", Output: "0 0\n"},
		StubCall{Match: "capture-pane -p -J -t %4 -S 0 -E 0", Output: "Tips for getting started\n"},
		StubCall{Match: "send-keys -t %4 Enter"},
	)
	began := time.Now()
	typed, err := c.SendLine(context.Background(), "%4", "[FROM: Tester Agent] tests pass", TypeOptions{Pause: 5 * time.Second})
	if err != nil || typed.Enters != 1 || typed.Verified {
		t.Errorf("SendLine = %+v, %v; want one Enter, unverified (the cursor's line never held it), no error", typed, err)
	}
	if took := time.Since(began); took > 2500*time.Millisecond {
		t.Errorf("SendLine took %v with the paste showing in the input box; want Enter at once, not after the 5s pause", took)
	}
}

// A program that takes an Enter too soon after a paste as part of it gets
// its Enter no sooner than Settle, even when it drew the paste at once.
func TestSendLineWaitsToSettleBeforeEnter(t *testing.T) {
	stub := NewStubRunner(t)
	c := NewClient("test", stub)
	stub.Expect(
		StubCall{Match: "display-message -p -t %4 #{cursor_y}", Output: "0 0\n"},
		StubCall{Match: "capture-pane -p -J -t %4 -S 0 -E 0", Output: "> \n"},
		StubCall{Match: "capture-pane -p -J -t %4", Output: "> \n"},
		StubCall{Match: "paste-buffer"},
		StubCall{Match: "display-message -p -t %4 #{cursor_y}", Output: "0 0\n"},
		StubCall{Match: "capture-pane -p -J -t %4 -S 0 -E 0", Output: "> tests pass\n"},
		StubCall{Match: "send-keys -t %4 Enter"},
		StubCall{Match: "display-message -p -t %4 #{cursor_y}", Output: "1 0\n"},
		StubCall{Match: "capture-pane -p -J -t %4 -S 0 -E 1", Output: "> tests pass\n> \n"},
	)
	began := time.Now()
	typed, err := c.SendLine(context.Background(), "%4", "tests pass", TypeOptions{Pause: 5 * time.Second, Settle: 300 * time.Millisecond})
	if err != nil || !typed.Verified {
		t.Fatalf("SendLine = %+v, %v", typed, err)
	}
	if took := time.Since(began); took < 300*time.Millisecond {
		t.Errorf("Enter came %v after the paste; want no sooner than the 300ms settle", took)
	}
}

// An earlier copy of the same line on screen is not the paste: Enter waits
// for one more copy to show.
func TestSendLineWaitsForANewCopyOfTheLine(t *testing.T) {
	stub := NewStubRunner(t)
	c := NewClient("test", stub)
	const notice = "[FROM: Tester Agent] tests pass"
	screen := func(box string) string {
		return "│ " + notice + " │\n\n╭──────╮\n│ > " + box + " │\n╰──────╯\n"
	}
	look := func(bottom string) []StubCall {
		return []StubCall{
			{Match: "display-message -p -t %5 #{cursor_y}", Output: "0 0\n"},
			{Match: "capture-pane -p -J -t %5 -S 0 -E 0", Output: "\n"},
			{Match: "capture-pane -p -J -t %5", Output: bottom},
		}
	}
	stub.Expect(look(screen(""))...)
	stub.Expect(StubCall{Match: "paste-buffer"})
	stub.Expect(look(screen(""))...) // not drawn yet: no Enter
	stub.Expect(look(screen(notice))...)
	stub.Expect(look(screen(notice))[:2]...) // the input line, read again
	stub.Expect(StubCall{Match: "send-keys -t %5 Enter"})
	typed, err := c.SendLine(context.Background(), "%5", notice, TypeOptions{Pause: 5 * time.Second})
	if err != nil || typed.Enters != 1 {
		t.Errorf("SendLine = %+v, %v; want one Enter once the paste showed", typed, err)
	}
}

// A plain reader echoes the paste at once: Enter follows it then, not after
// the pause, and the line is submitted.
func TestSendLinePressesEnterOnceThePasteShows(t *testing.T) {
	cmd, out := recorder(t)
	c, pane := newServer(t, cmd...)
	waitForCommand(t, c, pane, "cat")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := c.ConnectControl(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	notice := "[FROM: Developer Agent] Code review request for login feature (switchboard read 01a2050f)"
	began := time.Now()
	typed, err := c.SendLine(ctx, pane, notice, TypeOptions{Pause: 5 * time.Second})
	took := time.Since(began)
	if err != nil || !typed.Verified || typed.Enters != 1 {
		t.Fatalf("SendLine = %+v, %v; want verified with one Enter", typed, err)
	}
	if took > 2500*time.Millisecond {
		t.Errorf("the line took %v to be submitted; want Enter as soon as it showed, not after the 5s pause", took)
	}
	waitForFile(t, out, notice+"\n")
}

func TestSendLineRefusesEmptyText(t *testing.T) {
	c := NewClient("test", NewStubRunner(t))
	if _, err := c.SendLine(context.Background(), "%1", "\x1b\n\r", fast); err == nil {
		t.Errorf("typing only control characters succeeded; want an error and no tmux call")
	}
}

// useAll marks the extra polling answers of a stub as used: how many polls
// fit in the check window depends on timing, not on behaviour.
func useAll(s *StubRunner) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.calls {
		s.calls[i].used = true
	}
}

// A pane closed while a line is typed into it is said to have gone away.
func TestAPaneThatWentAwayIsSaidSo(t *testing.T) {
	stub := NewStubRunner(t)
	stub.Expect(StubCall{Match: "display-message -p -t %23", Output: " \n"})
	_, _, err := NewClient("s", stub).inputLine(context.Background(), "%23")
	if !errors.Is(err, ErrNoPane) || !strings.Contains(err.Error(), "pane %23 went away") {
		t.Errorf("a gone pane's cursor: %v", err)
	}
}

// BenchmarkSendLine types a notice into every one of 10 and 50 idle panes at
// once, each running a plain reader, with Enter after the whole fixed pause
// (as SendLine did) and as soon as the paste shows. It reports medians: the
// ms from the call to the first byte of the paste showing in the pane (the
// paste follows one look at the pane), and the ms from there to the pane
// echoing Enter, as a read-only control client hears them.
func BenchmarkSendLine(b *testing.B) {
	for _, n := range []int{10, 50} {
		b.Run(fmt.Sprintf("panes=%d", n), func(b *testing.B) {
			c, panes := readerPanes(b, n)
			heard := hearEchoes(b, c, "bench")
			ctx, cancel := context.WithCancel(context.Background())
			b.Cleanup(cancel)
			if err := c.ConnectControl(ctx, "bench"); err != nil {
				b.Fatal(err)
			}
			for _, way := range []struct {
				name string
				opts TypeOptions
			}{
				{"enter=after-pause", TypeOptions{fixedPause: true}},
				{"enter=when-shown", TypeOptions{}},
			} {
				b.Run(way.name, func(b *testing.B) {
					var shown, entered []float64
					for i := 0; i < b.N; i++ {
						heard.reset()
						began := make([]time.Time, len(panes))
						var wg sync.WaitGroup
						for j, pane := range panes {
							wg.Go(func() {
								notice := fmt.Sprintf("[FROM: Developer Agent] Review request %d (switchboard read %s-%d)", i, way.name, j)
								began[j] = time.Now()
								typed, err := c.SendLine(ctx, pane, notice, way.opts)
								if err != nil || !typed.Verified || typed.Enters != 1 {
									b.Errorf("SendLine into %s = %+v, %v; want verified with one Enter", pane, typed, err)
								}
							})
						}
						wg.Wait()
						for j, pane := range panes {
							first, enter := heard.await(b, pane, began[j])
							shown = append(shown, ms(first.Sub(began[j])))
							entered = append(entered, ms(enter.Sub(first)))
						}
					}
					b.ReportMetric(median(shown), "shown-ms-p50")
					b.ReportMetric(median(entered), "enter-ms-p50")
				})
			}
		})
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// readerPanes starts a private server with a session "bench" of n windows,
// each running cat, and waits until every one reads its terminal.
func readerPanes(b *testing.B, n int) (*Client, []string) {
	b.Helper()
	if !Installed() {
		b.Skip("tmux is not installed: install it (apt-get install -y tmux) to run the benchmark")
	}
	b.Setenv("TMUX", "")
	ctx := context.Background()
	c := NewClient(fmt.Sprintf("sbbench-%d-%d", os.Getpid(), serverSeq.Add(1)), nil)
	reader := PaneSpec{Dir: b.TempDir(), Command: []string{"sh", "-c", "exec cat > /dev/null"}}
	first, err := c.NewSession(ctx, "bench", "w0", 120, 40, reader)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.KillServer(context.Background()) })
	panes := []string{first}
	for i := 1; i < n; i++ {
		id, err := c.NewWindow(ctx, "bench", fmt.Sprintf("w%d", i), reader)
		if err != nil {
			b.Fatal(err)
		}
		panes = append(panes, id)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		list, err := c.ListPanes(ctx)
		if err != nil {
			b.Fatal(err)
		}
		reading := 0
		for _, p := range list {
			if p.Command == "cat" {
				reading++
			}
		}
		if reading == n {
			return c, panes
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d panes run cat", reading, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// echoes records, for each pane of a session, when it printed and whether
// what it printed held a newline (a reader's terminal echoing Enter), as a
// read-only control client hears it.
type echoes struct {
	mu    sync.Mutex
	heard map[string][]echo
}

type echo struct {
	at      time.Time
	newline bool
}

func hearEchoes(b *testing.B, c *Client, session string) *echoes {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	client, err := attachControl(ctx, ExecRunner{}, c.Socket(), session, "ignore-size,read-only")
	if err != nil {
		cancel()
		b.Fatal(err)
	}
	e := &echoes{heard: make(map[string][]echo)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			line, err := client.out.ReadString('\n')
			if err != nil {
				return
			}
			rest, ok := strings.CutPrefix(line, "%output ")
			if !ok {
				continue
			}
			pane, data, _ := strings.Cut(rest, " ")
			// tmux writes a control character as its octal escape.
			heard := echo{at: time.Now(), newline: strings.Contains(data, `\012`)}
			e.mu.Lock()
			e.heard[pane] = append(e.heard[pane], heard)
			e.mu.Unlock()
		}
	}()
	b.Cleanup(func() {
		client.stdin.Close()
		cancel()
		<-done
		client.cmd.Wait()
	})
	return e
}

func (e *echoes) reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	clear(e.heard)
}

// await returns when pane first printed after since, and when it first
// printed a newline after that, waiting a few seconds at most.
func (e *echoes) await(b *testing.B, pane string, since time.Time) (first, enter time.Time) {
	b.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		e.mu.Lock()
		for _, h := range e.heard[pane] {
			if h.at.Before(since) {
				continue
			}
			if first.IsZero() {
				first = h.at
			}
			if h.newline {
				enter = h.at
				break
			}
		}
		e.mu.Unlock()
		if !enter.IsZero() {
			return first, enter
		}
		if time.Now().After(deadline) {
			b.Fatalf("pane %s never echoed the line and its Enter", pane)
		}
		first = time.Time{}
		time.Sleep(10 * time.Millisecond)
	}
}
