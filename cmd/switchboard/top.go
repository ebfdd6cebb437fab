package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"

	"switchboard/bulletin"
	"switchboard/desk"
	"switchboard/internal/clientusage"
	"switchboard/internal/desktop"
	"switchboard/internal/tmux"
	"switchboard/internal/watch"
	"switchboard/mailbox"
	"switchboard/rules"
	"switchboard/view/console"
)

type topOptions struct {
	noNotify bool
	once     bool
	width    int
}

// topTick is how often the console looks at a folder it cannot watch (no
// inotify, or not made yet); watched folders wake it only when they change.
const topTick = 2 * time.Minute

func newTopCmd(io *streams, g *globals) *cobra.Command {
	opts := &topOptions{}
	cmd := &cobra.Command{
		Use:   "top [--no-notify] [--once [--width N] [--json]]",
		Short: "The team at a glance, live: who needs you, the questions waiting, the log; act from there",
		Long: `A full-screen view of the team that follows it as it changes: each agent in
the tree under its parent, those that need you first (? asks you a permission
question, ! at a prompt or idle with urgent mail, ● busy, ○ idle, ‖ interrupted,
✗ exited), its unread and urgent mail, its task, its last message in and out,
the locks it holds; the questions waiting for an answer; and the log.

Keys: tab moves between the panels, ↑↓ within one, enter opens a message
whole. On the agent chosen: g goes to its pane (when the console runs in the
team's tmux, as up opens it), i interrupts, c cancels (it and its helpers), x
closes a spawned agent, s sends it a message; on a question for you: a allows,
d denies, A always, N never (r answers a question that is not a permission
prompt). The cursor stays on the agent chosen as the team re-sorts; when it
leaves, the console says so and the keys act on no one until you choose again. In the log: b shows the blocked alone, f the agent's
alone. q quits. Each action is the command's: the rules decide it alike.

When an agent comes to need you, the console rings: the terminal's bell, in
tmux a message on the status line, and a desktop notification where
notify-send is installed (--no-notify: none of them).
--once prints one frame and exits, for a script or a glance: every agent and
every column, without the cursor or the keys; --once --json prints it as JSON.`,
		Example: `  switchboard top
  switchboard top --once --width 100
  switchboard top --no-notify`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTop(cmd.Context(), io, g, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.noNotify, "no-notify", false, "ring no bell and send no desktop notification")
	f.BoolVar(&opts.once, "once", false, "print one frame and exit")
	f.IntVar(&opts.width, "width", 0, "the frame's width with --once; narrower than the columns, it hides the last (default: every column)")
	return cmd
}

func runTop(ctx context.Context, io *streams, g *globals, opts *topOptions) error {
	ws, rulesErr, err := openReading(g)
	if err != nil {
		return err
	}
	warnBrokenRules(io, ws, rulesErr)
	team := newWatchedTeam(g, ws)
	defer team.folders.Close()
	cfg := console.Config{Read: team.read, Act: team.act, Changes: team.folders.C, MayClose: team.act.MayClose}
	if !opts.noNotify {
		cfg.Ring = ring(io)
	}
	if opts.once && g.json {
		s, err := team.read(ctx)
		if err != nil {
			return err
		}
		return writeJSON(io.out, s)
	}
	m := console.New(cfg)
	if opts.once {
		// A frame for a script is as wide as its columns, not as the
		// terminal: a column cut would be lost to what reads it.
		frame, err := m.Frame(ctx, opts.width)
		if err != nil {
			return err
		}
		fmt.Fprintln(io.out, frame)
		return nil
	}
	if g.json {
		return usageError("--json goes with --once: `switchboard top --once --json` prints the team as the console sees it")
	}
	in, inFile := io.in.(*os.File)
	out, outFile := io.out.(*os.File)
	if !io.terminal || !inFile || !outFile || !isTerminal(out) {
		return usageError("top needs a terminal; for a script, `switchboard top --once` prints one frame, and `switchboard agents --json` the team")
	}
	// The console draws when what it shows changed, and at rest not at all.
	err = console.Run(ctx, m, in, out)
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// watchedTeam is the team as the console and the web view see it: a look
// and an action each open the desk anew (the rules change as helpers are
// spawned and closed), and the workspace's folders are watched, those of
// new agents added as they appear.
type watchedTeam struct {
	folders *watch.Folders
	act     deskActions
	read    func(ctx context.Context) (*desk.Snapshot, error)
	graph   func() (rules.Graph, error)
}

func newWatchedTeam(g *globals, ws *caller) *watchedTeam {
	reading := func() (*caller, error) {
		c, _, err := openReading(g)
		return c, err
	}
	open := func() (*desk.Desk, error) {
		c, err := reading()
		if err != nil {
			return nil, err
		}
		return c.desk(), nil
	}
	act := deskActions{open: open, reading: reading}
	folders := watch.NewFolders(topTick, ws.root, ws.store.Dir, filepath.Dir(ws.store.LogPath()), filepath.Dir(bulletin.Of(ws.folder).Path()))
	graph := func() (rules.Graph, error) {
		d, err := open()
		if err != nil {
			return rules.Graph{}, err
		}
		return d.Graph()
	}
	// What each agent spent today, shown beside it: each look reads only
	// the transcripts written to since the last.
	spent := new(clientusage.Cache)
	return &watchedTeam{folders: folders, act: act, graph: graph, read: func(ctx context.Context) (*desk.Snapshot, error) {
		d, err := open()
		if err != nil {
			return nil, err
		}
		s, err := d.Snapshot(ctx, desk.DefaultLogTail)
		if err != nil {
			return nil, err
		}
		today, _ := usageSince("today", s.At)
		d.AddUsage(s, today, spent)
		for _, a := range s.Agents {
			folders.Add(ws.store.AgentDir(a.Name), ws.store.InboxDir(a.Name))
		}
		return s, nil
	}}
}

// ring tells the person that an agent needs them: the terminal's bell; in
// tmux, a message on the status line of every client of the session; and a
// desktop notification where notify-send is installed.
func ring(io *streams) func(text string) {
	here, inTmux := tmux.EnclosingServer(nil)
	notifier, notifies := desktop.FindNotifier()
	return func(text string) {
		fmt.Fprint(io.out, "\a")
		ctx := context.Background()
		if inTmux {
			_ = here.ShowMessage(ctx, text, 5*time.Second)
		}
		if notifies {
			_ = notifier.Notify(ctx, "switchboard", text)
		}
	}
}

// deskActions are the actions of the console and of the web view, each a
// desk verb as the one who runs them.
type deskActions struct {
	open    func() (*desk.Desk, error)
	reading func() (*caller, error) // the rules and who runs the console, for MayClose
}

// MayClose says why the one who runs the console cannot close agent, nil
// when they can: the console asks to confirm only a close that can
// happen. It is the check desk.Close makes before it touches anything, on
// the same rules and with the desk's errors; desk.Close makes it again,
// and decides. (The desk has no check of its own to call: when it has,
// this is that call.)
func (a deskActions) MayClose(agent string) error {
	c, err := a.reading()
	if err != nil {
		return err
	}
	r := c.rules
	switch {
	case r == nil && c.rulesErr != nil:
		return fmt.Errorf("%w: %w", desk.ErrNoRules, c.rulesErr)
	case r == nil:
		return desk.ErrNoRules
	}
	_, spawned := r.Parent(agent)
	switch {
	case !spawned && !r.Knows(agent):
		return desk.NotAnAgent(r, agent)
	case !spawned:
		return fmt.Errorf("%s %w, so it cannot be closed alone: the team is stopped as a whole", agent, desk.ErrNotSpawned)
	case !r.MayClose(c.agent, agent):
		return &desk.RightError{Msg: fmt.Sprintf("%s may not close %s: only its ancestors and the overseers may", c.agent, agent)}
	}
	return nil
}

func (a deskActions) Answer(id, option string) error {
	d, err := a.open()
	if err != nil {
		return err
	}
	_, err = d.Reply(desk.ReplyRequest{ID: id, Option: option, Content: option})
	return err
}

func (a deskActions) Interrupt(agent, reason string) error {
	d, err := a.open()
	if err != nil {
		return err
	}
	_, err = d.Interrupt(agent, reason)
	return err
}

func (a deskActions) Cancel(agent, reason string) error {
	d, err := a.open()
	if err != nil {
		return err
	}
	_, err = d.Cancel(agent, reason)
	return err
}

func (a deskActions) Close(agent string) error {
	d, err := a.open()
	if err != nil {
		return err
	}
	// The console never discards: a worktree that holds work stays.
	_, err = d.Close(context.Background(), agent, false)
	return err
}

// Jump shows the agent's pane in the tmux the console runs in: the team's,
// when up opened the console.
func (a deskActions) Jump(agent string) error {
	here, inTmux := tmux.EnclosingServer(nil)
	if !inTmux {
		return errors.New("the console runs outside tmux: attach to the team (switchboard attach) and run it there")
	}
	d, err := a.open()
	if err != nil {
		return err
	}
	team, err := d.Team(context.Background())
	if err != nil {
		return err
	}
	for _, m := range team {
		if m.Name == agent && m.Pane != "" {
			if err := here.ShowPane(context.Background(), m.Pane); err != nil {
				return fmt.Errorf("go to %s's pane: %w", agent, err)
			}
			return nil
		}
	}
	return fmt.Errorf("%s has no pane: the team is not up", agent)
}

func (a deskActions) Send(to, title, content string) error {
	d, err := a.open()
	if err != nil {
		return err
	}
	_, err = d.Send(&mailbox.Message{To: []string{to}, Title: title, Content: content})
	return err
}
