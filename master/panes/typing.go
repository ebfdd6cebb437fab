package panes

import (
	"context"
	"fmt"
	"strings"
	"time"

	"switchboard/conversation"
	"switchboard/internal/tmux"
	"switchboard/internal/watch"
	"switchboard/lifecycle"
	"switchboard/profile"
)

// typing is what is to be typed into one pane.
type typing struct {
	agent string
	view  *view
	items []announcement
	// idle: the agent was idle when the job was taken; a busy one is only
	// handed notices through its client's inbox, or interrupted.
	idle bool
	// inbox: its notices go to its client's inbox first.
	inbox bool
}

// takeTyping takes what waits for an agent when it may be typed now: an
// interrupt at once, notices when it is idle and its pane is ready. Each
// pane has one typist at a time. Called with p.mu held; it does no I/O.
func (p *Panes) takeTyping(name string, v *view, now time.Time) *typing {
	if v.typing || len(v.pending) == 0 || v.state.State == conversation.Exited {
		return nil
	}
	interrupting := false
	for _, a := range v.pending {
		interrupting = interrupting || a.interrupt
	}
	holding := limitHolds(v, now) || v.overBudget
	if !interrupting && holding {
		return nil // its notices wait for its limit, or its budget
	}
	// A limited client past LimitRetry sits at its prompt as an idle one.
	idle := (v.state.State == conversation.Idle || v.state.State == conversation.Limited) && v.ready
	if !interrupting && !idle && !v.inbox {
		return nil // a busy agent hears at its next checkpoint, or when idle
	}
	job := &typing{agent: name, view: v, items: v.pending, idle: idle, inbox: v.inbox}
	v.pending, v.typing = nil, true
	if holding { // the interrupts go; the notices wait still
		var interrupts, held []announcement
		for _, a := range job.items {
			if a.interrupt {
				interrupts = append(interrupts, a)
			} else {
				held = append(held, a)
			}
		}
		job.items, v.pending = interrupts, held
	}
	return job
}

// startTyping types a job in a goroutine of its own, the pane's typist until
// it is done.
func (p *Panes) startTyping(ctx context.Context, c *tmux.Client, job *typing) {
	p.typingWG.Add(1)
	go func() {
		defer p.typingWG.Done()
		if items := p.stillUnread(job.agent, job.items); len(items) > 0 {
			p.deliverToPane(ctx, c, job, items)
		}
		p.mu.Lock()
		job.view.typing = false
		p.mu.Unlock()
		p.Wake() // what came for it while it was typed
	}()
}

// stillUnread drops announcements of messages the agent has read meanwhile:
// nobody is told of mail they already have.
func (p *Panes) stillUnread(agent string, items []announcement) []announcement {
	var out []announcement
	for _, a := range items {
		if p.store.IsUnread(agent, a.file) {
			out = append(out, a)
		}
	}
	return out
}

// deliverToPane hands the announcements to the agent's client through its
// inbox, or types (for a shell, displays) them.
func (p *Panes) deliverToPane(ctx context.Context, c *tmux.Client, job *typing, items []announcement) {
	agent, seat := job.agent, job.view.seat
	var interrupts, notices []announcement
	for _, a := range items {
		if a.interrupt {
			interrupts = append(interrupts, a)
		} else {
			notices = append(notices, a)
		}
	}
	shell := seat.Kind == profile.KindShell
	for _, a := range interrupts {
		line := interruptLine(a, p.displayName)
		if shell {
			// The display lasts seconds; the border keeps it until the
			// person has read the message.
			text := fmt.Sprintf("INTERRUPT from %s: %s (switchboard read %s)", p.displayName(a.from), tmux.Sanitize(a.title), a.id)
			p.mu.Lock()
			p.viewOf(agent).alert = &alert{file: a.file, text: text}
			p.mu.Unlock()
			p.display(ctx, c, seat.Pane, line)
			p.logf("#%d interrupt for %s shown on its screen and border (a shell is never typed at)", a.seq, agent)
			p.record(agent, conversation.ChannelScreen, []announcement{a})
			p.Wake()
			continue
		}
		if err := c.Interrupt(ctx, seat.Pane); err != nil {
			p.logf("#%d cannot interrupt %s: %v", a.seq, agent, err)
			continue
		}
		// Claude Code runs no hook when its turn is cut short by ESC, so
		// what its hooks said last (busy) is over: until its next hook
		// speaks, the agent is interrupted, and then its screen decides.
		st := conversation.State{State: conversation.Interrupted, Since: p.now().UTC(), Source: conversation.SourcePane, Detail: "ESC from " + a.from}
		if err := p.book.SetState(agent, st); err != nil {
			p.logf("cannot write the state of %s: %v", agent, err)
		}
		p.mu.Lock()
		p.viewOf(agent).state = st
		p.mu.Unlock()
		// Typed even when a hook showed it: it says why the turn stopped.
		p.report(ctx, c, agent, seat, []announcement{a}, p.claim(agent, []announcement{a}), conversation.ChannelInterrupt, line)
	}
	if len(notices) == 0 {
		return
	}
	if shell {
		// A person reads the display for a few seconds; the prompt hook
		// lists the message too, so it is not claimed as shown.
		p.display(ctx, c, seat.Pane, noticeLine(notices, p.displayName))
		p.logf("%s notice shown to %s on its screen (a shell is never typed at)", strings.Join(announcedSeqs(notices), " "), agent)
		p.record(agent, conversation.ChannelScreen, notices)
		return
	}
	if job.inbox {
		notices = p.handOver(ctx, agent, seat.Pane, notices)
	}
	if len(notices) > 0 && !job.idle {
		// Not handed over to a busy agent: typed once it is idle.
		p.requeue(agent, notices)
		return
	}
	if notices = p.claim(agent, notices); len(notices) == 0 {
		return // handed over, or its hooks showed them already
	}
	p.report(ctx, c, agent, seat, notices, notices, conversation.ChannelTyped, noticeLine(notices, p.displayName))
}

// claim records announcements as shown to the agent before they are typed,
// so that its hooks do not show them again, and drops those its hooks have
// shown already: a message enters the conversation once.
func (p *Panes) claim(agent string, items []announcement) []announcement {
	taken, err := p.book.ClaimTyped(agent, files(items))
	if err != nil {
		p.logf("cannot record what %s was shown: %v", agent, err)
		return items
	}
	return dropFiles(items, taken)
}

// files are the delivered file names of announcements.
func files(items []announcement) []string {
	names := make([]string, len(items))
	for i, a := range items {
		names[i] = a.file
	}
	return names
}

// announcedSeqs names announcements by their seq in the audit log; switchboard's
// own notices (BLOCKED, rejected) are not in it.
func announcedSeqs(items []announcement) []string {
	seqs := make([]string, len(items))
	for i, a := range items {
		seqs[i] = fmt.Sprintf("#%d", a.seq)
		if a.seq == 0 {
			seqs[i] = "(switchboard's)"
		}
	}
	return seqs
}

// report types the line that announces items (channel: typed, or an
// interrupt) and logs what became of it; when it was not submitted, the
// messages claimed for it are given back to the hooks.
func (p *Panes) report(ctx context.Context, c *tmux.Client, agent string, seat *lifecycle.Seat, items, claimed []announcement, channel, line string) {
	prefix := ""
	if channel == conversation.ChannelInterrupt {
		prefix = "interrupted with ESC, then"
	}
	began := p.now().UTC()
	opts := p.typeOptions(seat.Kind)
	typed, err := c.SendLine(ctx, seat.Pane, line, opts)
	confirmed := false
	if err == nil && hookedKinds[seat.Kind] {
		confirmed, typed, err = p.confirmByHook(ctx, c, agent, seat.Pane, typed, began, opts)
	}
	if err != nil && len(claimed) > 0 {
		if ferr := p.book.ForgetShown(agent, files(claimed)); ferr != nil {
			p.logf("cannot record what %s was shown: %v", agent, ferr)
		}
	}
	seqs := announcedSeqs(items)
	what := strings.TrimSpace(prefix + " notice")
	if err == nil {
		p.record(agent, channel, items)
	}
	switch {
	case err != nil:
		p.logf("%s %s for %s NOT submitted: %v", strings.Join(seqs, " "), what, agent, err)
	case confirmed && typed.Enters > 1:
		p.logf("%s %s typed to %s and submitted (its hook confirmed, after %d Enter presses)", strings.Join(seqs, " "), what, agent, typed.Enters)
	case confirmed:
		p.logf("%s %s typed to %s and submitted (its hook confirmed)", strings.Join(seqs, " "), what, agent)
	case typed.Verified:
		p.logf("%s %s typed to %s and submitted (verified)", strings.Join(seqs, " "), what, agent)
	default:
		p.logf("%s %s typed to %s; Enter sent, not verifiable (the program does not echo)", strings.Join(seqs, " "), what, agent)
	}
}

// settleOf is, by kind of client, the least wait between a paste and its
// Enter: Gemini CLI 0.61.0 draws a paste at once, and takes an Enter that
// follows within about that long as part of it.
var settleOf = map[string]time.Duration{profile.KindGemini: 150 * time.Millisecond}

// typeOptions are how notices are typed for a kind of client.
func (p *Panes) typeOptions(kind string) tmux.TypeOptions {
	opts := p.typer
	if settle, ok := settleOf[kind]; ok && opts.Settle == 0 {
		opts.Settle = settle
	}
	return opts
}

// DefaultHookConfirm is how long a hooked agent's prompt hook gets to say
// that a typed line reached the agent, before the line is submitted again.
const DefaultHookConfirm = 3 * time.Second

// hookedKinds are the kinds of agent whose prompt hook runs when a typed
// line is submitted, so that their hook can confirm it.
var hookedKinds = map[string]bool{profile.KindClaude: true, profile.KindCodex: true, profile.KindGemini: true}

// confirmByHook checks a line typed into an agent client with a prompt
// hook. Its screen cannot say whether the line was taken: Gemini CLI's
// input box is not where the cursor is, and an Enter read as a newline
// (Codex CLI was seen to, on a busy machine) moves the cursor off the line
// just as a submit does. The prompt hook can, by writing the
// agent's state. When no hook speaks in time the line is submitted again
// (see Resubmit), twice at most: a client that ran its start-up hook may
// not read its input yet. A line the screen saw leave and no hook
// confirmed is reported as the screen saw it.
func (p *Panes) confirmByHook(ctx context.Context, c *tmux.Client, agent, pane string, typed tmux.Typed, since time.Time, opts tmux.TypeOptions) (bool, tmux.Typed, error) {
	for try := 0; ; try++ {
		if p.heardSince(ctx, agent, since) {
			return true, typed, nil
		}
		if try == 2 {
			if typed.Verified {
				return false, typed, nil // the screen's word stands: the line left
			}
			return false, typed, fmt.Errorf("no hook of %s ran after %d Enter presses: %w", agent, typed.Enters, tmux.ErrNotSubmitted)
		}
		var err error
		if typed, err = c.Resubmit(ctx, pane, typed, opts); err != nil {
			return false, typed, err
		}
	}
}

// heardSince waits up to hookWait for the agent's prompt hook to say,
// after since, that a prompt was taken: it marks the agent busy. Another
// hook that ran meanwhile (a start-up hook running late marks it idle)
// says nothing of the line.
func (p *Panes) heardSince(ctx context.Context, agent string, since time.Time) bool {
	return watch.Until(ctx, 50*time.Millisecond, p.hookWait, func() bool {
		st, ok, _ := p.book.State(agent)
		return ok && st.Source == conversation.SourceHook && st.Since.After(since) && st.State == conversation.Busy
	})
}

func (p *Panes) display(ctx context.Context, c *tmux.Client, pane, line string) {
	if err := c.Display(ctx, pane, line, 8*time.Second); err != nil {
		p.logf("cannot show a notice on %s: %v", pane, err)
	}
}

func (p *Panes) displayName(agent string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.session != nil {
		if seat, ok := p.session.Agents[agent]; ok && seat.DisplayName != "" {
			return seat.DisplayName
		}
	}
	return profile.DisplayName(agent)
}
