package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"switchboard/conversation"
	"switchboard/desk"
	"switchboard/internal/safetext"
	"switchboard/internal/tmux"
	"switchboard/internal/watch"
	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/rules"
	"switchboard/workspace"
)

// director plays the demo: it narrates in its own pane and types each
// command into the pane of the agent that runs it, as a person would.
type director struct {
	ctx     context.Context
	out     io.Writer
	store   *mailbox.Store
	session *lifecycle.Session
	client  *tmux.Client
	pause   time.Duration
	root    string
	pane    string // the narration's own pane, where the person is the operator; "" when unknown
}

func (d *director) play() error {
	d.say("switchboard demo: four agents, each a shell in its own pane. Watch the panes; every command typed here you can type yourself.")
	for _, name := range []string{"master_agent", "developer_agent", "reviewer_agent", "tester_agent"} {
		if err := d.waitIdle(name, time.Time{}); err != nil {
			return err
		}
	}
	d.rest()

	d.step(1, "The normal flow: the developer asks the reviewer for a review.")
	d.run("developer_agent", `switchboard send --to reviewer_agent --title "Code review request for login feature" --type request --content "Please review auth.go"`)
	review := d.idOf("reviewer_agent", "Code review request for login feature")
	d.run("reviewer_agent", "switchboard inbox")
	d.run("reviewer_agent", "switchboard read "+short(review))
	d.run("reviewer_agent", "switchboard reply "+short(review)+` --content "Looks good; add a test for expired tokens"`)
	d.say("The developer hands the change to the tester.")
	d.run("developer_agent", `switchboard send --to tester_agent --title "Please test the login feature" --type instruction`)

	d.step(2, "A direct message: the master agent tells the developer what comes next.")
	d.run("master_agent", `switchboard send --to developer_agent --title "Password reset is next" --type instruction`)

	d.step(3, "The forbidden attempt: the tester writes straight to the reviewer. The rules refuse it (exit 3), and tell the tester why.")
	d.run("tester_agent", `switchboard send --to reviewer_agent --title "Found a bug in the login form"`)
	d.idOf("tester_agent", "BLOCKED: tester_agent → reviewer_agent")
	d.run("tester_agent", "switchboard inbox")
	d.say("The notice says: go through the developer. The tester does, and the developer passes it on.")
	d.run("tester_agent", `switchboard send --to developer_agent --title "Found a bug in the login form" --content "Empty passwords are accepted"`)
	d.idOf("developer_agent", "Found a bug in the login form")
	d.run("developer_agent", `switchboard send --to reviewer_agent --title "Bug from testing: empty passwords accepted" --content "Fixing it now"`)
	d.run("developer_agent", `switchboard send --to tester_agent --title "Thanks: fixing empty passwords" --type response`)

	d.step(4, "Oversight: the master agent reads the log, and messages 5 to 8 in full.")
	d.run("master_agent", "switchboard log")
	d.run("master_agent", "switchboard show 5-8")

	d.step(5, "An interrupt: the master agent stops the developer. A shell is never typed at: the notice shows on its screen and at its next prompt.")
	d.run("master_agent", `switchboard interrupt developer_agent --reason "Stop: the build on main is red"`)
	d.run("developer_agent", "switchboard inbox")

	d.step(6, "A question that needs an answer: the developer asks the master agent and waits; deny is the safe answer if none comes.")
	asked := time.Now()
	d.type_("developer_agent", `switchboard ask --to master_agent --title "May I merge the login feature?" --options yes,no --timeout 5m`)
	question := d.idOf("master_agent", "May I merge the login feature?")
	d.run("master_agent", "switchboard reply "+short(question)+" --option yes")
	if err := d.waitIdle("developer_agent", asked); err != nil {
		return err
	}

	d.step(7, "The console: switchboard top, in its own window, shows the team and who needs you. The developer asks you; watch the demo answer it there for you, with the console's keys (Tab, r, the option, Enter): keep your hands off until it has.")
	asked = time.Now()
	d.type_("developer_agent", `switchboard ask --to operator --title "May I deploy to staging?" --options yes,no --timeout 5m`)
	d.idOf(mailbox.Operator, "May I deploy to staging?")
	d.answerInConsole("yes")
	if err := d.waitIdle("developer_agent", asked); err != nil {
		return err
	}
	if err := d.ctx.Err(); err != nil {
		return err
	}
	return d.summary()
}

// answerInConsole shows the console, answers the question waiting there
// from its keyboard, and comes back to the agents.
func (d *director) answerInConsole(answer string) {
	if d.ctx.Err() != nil {
		return
	}
	panes, err := d.client.ListPanes(d.ctx)
	if err != nil {
		d.say(fmt.Sprintf("cannot find the console: %v", err))
		return
	}
	console := ""
	for _, p := range panes {
		if p.Session == d.session.Name && p.Window == "console" {
			console = p.ID
		}
	}
	if console == "" {
		d.say("there is no console window (up --no-console): answering as with switchboard reply instead")
		ws := workspace.New(d.root)
		r, err := rules.LoadTeam(ws)
		if err == nil {
			_, err = desk.New(ws, r, mailbox.Operator).Reply(desk.ReplyRequest{ID: d.idOf(mailbox.Operator, "May I deploy to staging?"), Option: answer})
		}
		if err != nil {
			d.say(fmt.Sprintf("cannot answer: %v", err))
		}
		return
	}
	_ = d.client.SelectWindow(d.ctx, tmux.Window(d.session.Name, "console"))
	if !watch.Until(d.ctx, 50*time.Millisecond, 30*time.Second, func() bool {
		screen, _ := d.client.History(d.ctx, console)
		return strings.Contains(screen, "QUESTIONS WAITING") && strings.Contains(screen, "May I deploy to staging?")
	}) {
		d.say("the console did not show the question within 30s")
		return
	}
	d.rest()
	for _, keys := range [][]string{{"Tab"}, {"r"}, {"-l", answer}, {"Enter"}} {
		if err := d.client.SendKeys(d.ctx, console, keys...); err != nil {
			d.say(fmt.Sprintf("cannot press %v in the console: %v", keys, err))
			return
		}
		d.rest()
	}
	d.idOf("developer_agent", "Re: May I deploy to staging?")
	d.rest()
	_ = d.client.SelectWindow(d.ctx, tmux.Window(d.session.Name, "agents"))
}

func (d *director) summary() error {
	recs, _, err := mailbox.ReadLog(d.store.LogPath(), 0)
	if err != nil {
		return err
	}
	blocked := 0
	for _, r := range recs {
		if r.Status == mailbox.StatusBlocked {
			blocked++
		}
	}
	d.say(fmt.Sprintf("Done: %d messages, every one in the log: %d delivered, %d blocked by the rules.", len(recs), len(recs)-blocked, blocked))
	// What follows is typed here, as the operator: in an agent's pane the
	// same commands act as that agent, and the ask below would be the
	// developer writing to itself.
	where := "Try next, in this pane, where you are the operator (the keyboard is here now):"
	if err := d.takeKeyboard(); err != nil {
		where = "Try next, in this pane, where you are the operator (to type here, press Ctrl-b then the down arrow until this pane is outlined):"
	}
	stop := runnable(fmt.Sprintf("The workspace is %s; stop the team and delete it with `switchboard down --purge --root %s`", d.root, safetext.ShellWord(d.root)), workspace.New(d.root).Binary())
	fmt.Fprintf(d.out, `
%s
  switchboard log                         every message, numbered
  switchboard rules explain tester_agent reviewer_agent
  switchboard ask --to developer_agent --title "Ready?" --options yes,no   (answer in the developer's pane: switchboard reply ID --option yes)
  switchboard spawn --profile reviewer_agent --task "Review auth.go"       (then: switchboard wait reviewer_agent-1)
  switchboard rules graph
%s
`, where, stop)
	return nil
}

// takeKeyboard makes the narration's pane, and its window, the ones the
// person types into: the demo typed into the agents' panes, and tmux left
// the keyboard in one of them.
func (d *director) takeKeyboard() error {
	if d.pane == "" {
		return errors.New("the narration's pane is not known")
	}
	return d.client.SelectPane(d.ctx, d.pane)
}

func (d *director) say(text string) {
	fmt.Fprintf(d.out, "%s %s\n", time.Now().Format("15:04:05"), text)
}

func (d *director) step(n int, text string) {
	d.rest()
	fmt.Fprintln(d.out)
	d.say(fmt.Sprintf("%d/%d %s", n, demoSteps, text))
}

// demoSteps is how many steps the demo plays.
const demoSteps = 7

func (d *director) rest() { _ = watch.Sleep(d.ctx, d.pause) } // stopped: the next steps type nothing

// run types a command into the agent's pane and waits until its prompt is
// back.
func (d *director) run(agent, command string) {
	typed := time.Now()
	d.type_(agent, command)
	if err := d.waitIdle(agent, typed); err != nil {
		d.say(err.Error())
	}
	d.rest()
}

// type_ types a command line into the agent's pane, as a person would,
// out of copy mode first, where keys would be taken as its commands.
func (d *director) type_(agent, command string) {
	if d.ctx.Err() != nil {
		return // stopped: type nothing more
	}
	seat, ok := d.session.Agents[agent]
	if !ok {
		d.say(agent + " has no pane")
		return
	}
	if err := d.client.TypeCommand(d.ctx, seat.Pane, command); err != nil {
		d.say(fmt.Sprintf("cannot type into %s: %v", agent, err))
	}
}

// waitIdle waits until the agent's prompt hook says it is idle again after
// since; a shell without hooks gets a fixed time.
func (d *director) waitIdle(agent string, since time.Time) error {
	began := time.Now()
	back := watch.Until(d.ctx, 50*time.Millisecond, 30*time.Second, func() bool {
		st, ok, _ := conversation.Of(d.store).State(agent)
		if ok && st.Source == conversation.SourceHook {
			return st.State == conversation.Idle && st.Since.After(since)
		}
		return time.Since(began) > 3*time.Second // no hooks in this shell: its prompt cannot be seen
	})
	switch {
	case d.ctx.Err() != nil:
		return d.ctx.Err()
	case !back:
		return fmt.Errorf("%s did not come back to its prompt within 30s", agent)
	}
	return nil
}

// idOf waits for a message with the title (or a title starting with it)
// in the agent's inbox and returns its id.
func (d *director) idOf(agent, title string) string {
	var id string
	found := watch.Until(d.ctx, 50*time.Millisecond, 30*time.Second, func() bool {
		entries, _ := d.store.List(agent, mailbox.All)
		for i := len(entries) - 1; i >= 0; i-- {
			if m, err := mailbox.Load(entries[i].Path); err == nil && strings.HasPrefix(m.Title, title) {
				id = m.ID
				return true
			}
		}
		return false
	})
	if !found && d.ctx.Err() == nil {
		d.say(fmt.Sprintf("%q never reached %s", title, agent))
	}
	return id
}

// short is the id prefix a person would type.
func short(id string) string {
	if len(id) > 13 {
		return id[:13]
	}
	return id
}
