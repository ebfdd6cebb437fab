package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"switchboard/desk"
	"switchboard/internal/safetext"
	"switchboard/internal/tmux"
	"switchboard/internal/watch"
	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/workspace"
)

type upOptions struct {
	root      string // set for --demo and --root, whose workspace need not be the current folder: the hints name it
	detach    bool
	session   string
	socket    string
	init      bool
	demo      bool
	demoDir   string
	demoPause time.Duration
	noMCP     bool
	fresh     bool
	noConsole bool
	web       bool
	hub       hubGiven
}

func newUpCmd(io *streams, g *globals) *cobra.Command {
	opts := &upOptions{}
	cmd := &cobra.Command{
		Use:   "up [-d] [--session S] [--socket L] [--no-console] [--web] [--no-mcp] [--fresh]",
		Short: "Start the master and the team in tmux, one pane per agent, and attach",
		Long: `Start the master and a tmux session on a private server: an "agents" window with
one pane per agent of the rules (tiled; more windows for large teams), a
"master" window showing every routed message, and a "console" window, the one
in view, running switchboard top (--no-console leaves it out); --web adds a
"web" window serving the same view to a browser, and prints its address. Each pane's border shows the
agent's name, state and unread mail. An agent whose program is not installed
runs your shell instead, and says so in its pane. Claude Code gets
switchboard's tools over MCP (switchboard mcp), allowed without a prompt,
beside the shell commands; --no-mcp leaves them out.

Detach with Ctrl-b d; come back with switchboard attach; stop with switchboard
down (mail is kept). up when the team runs just attaches; up after down, or
after the tmux server died, brings every agent back with its unread mail, and
each Claude Code or Codex CLI agent on the conversation it had (the session
its start-up hook recorded for it; --fresh, or fresh: true in a profile,
starts anew).`,
		Example: `  switchboard up --init                # write the default team here first, if this folder has no team
  switchboard up -d                    # start without attaching
  switchboard up --demo                # watch a demo team at work, in a new folder
  switchboard up -d --fresh            # every agent on a new conversation
  switchboard up --session review --socket review-team`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runUp(cmd.Context(), io, g, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&opts.detach, "detach", "d", false, "do not attach to the session")
	f.StringVar(&opts.session, "session", lifecycle.DefaultSessionName, "tmux session name")
	f.StringVar(&opts.socket, "socket", "", "tmux server socket name (default: one per workspace)")
	f.BoolVar(&opts.noConsole, "no-console", false, "start no console window (switchboard top)")
	f.BoolVar(&opts.web, "web", false, "serve the team's view to a browser too (switchboard web), and print its address")
	f.BoolVar(&opts.init, "init", false, "write the default team here first (as switchboard init does) when this folder, and none above it, holds a team")
	f.BoolVar(&opts.demo, "demo", false, "start the default team, every agent a shell, in a new folder, and play the demo in it")
	f.StringVar(&opts.demoDir, "demo-dir", "", "the folder for --demo (default: a new temporary folder)")
	f.DurationVar(&opts.demoPause, "demo-pause", DefaultDemoPause, "time between the demo's steps")
	f.BoolVar(&opts.fresh, "fresh", false, "start every agent's client on a new conversation, not on the one it had")
	f.BoolVar(&opts.noMCP, "no-mcp", false, "leave the MCP server out of the agent clients: they use switchboard's shell commands alone")
	hubFlags(f, &opts.hub)
	return cmd
}

func runUp(ctx context.Context, io *streams, g *globals, opts *upOptions) error {
	if !tmux.Installed() {
		return errors.New("tmux is not installed: install it (apt-get install tmux, or brew install tmux) and run up again")
	}
	if opts.demo {
		dir, err := prepareDemo(opts.demoDir)
		if err != nil {
			return err
		}
		fmt.Fprintf(io.out, "demo workspace: %s\n", dir)
		opts.root = dir
		g = &globals{root: dir, as: mailbox.Operator, json: g.json}
	}
	if opts.init {
		if err := initIfNone(io, g); err != nil {
			return err
		}
	}
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	if g.root != "" && opts.root == "" {
		opts.root = ws.root
	}
	if err := programsInstalled(ws, opts.hub); err != nil {
		return err
	}
	if opts.socket == "" {
		opts.socket = lifecycle.DefaultSocket(ws.root)
	}
	client := tmux.NewClient(opts.socket, nil)
	// Refused before anything is made: the hub's settings among them.
	if err := ws.desk().MayBringUp(); err != nil {
		return upError(err, opts)
	}
	settings, passwordGiven, err := hubSettings(ws.folder, opts.hub)
	if err != nil {
		return err
	}
	if passwordGiven {
		// up stays on, attached, for as long as the team runs: neither
		// its arguments nor its environment may hold the password, now
		// kept.
		return dropHubPassword(opts.hub.URL)
	}
	binary, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the switchboard binary: %w", err)
	}
	var windows []lifecycle.Window
	if opts.web {
		os.Remove(webURLFile(ws)) // an address of a web view that did not end cleanly
		windows = append(windows, lifecycle.Window{Name: "web", Args: []string{"web"}})
	}
	if !opts.noConsole {
		windows = append(windows, lifecycle.Window{Name: "console", Args: []string{"top"}, InView: true})
	}
	started, err := ws.desk().Up(ctx, desk.UpRequest{
		Client: client, Session: opts.session, Binary: binary, Windows: windows,
		Hub: settings, Fresh: opts.fresh, NoMCP: opts.noMCP,
		Waiting: func(pid int) {
			by := ""
			if pid > 0 {
				by = fmt.Sprintf(" (pid %d)", pid)
			}
			fmt.Fprintf(io.out, "another switchboard up%s is bringing the team up: waiting for it\n", by)
		},
		Told: func(news string) { fmt.Fprintln(io.out, news) },
	})
	if started != nil {
		for _, note := range started.Notes {
			fmt.Fprintf(io.out, "note: %s\n", note)
		}
	}
	if err != nil {
		return upError(err, opts)
	}
	defer started.Release()
	if started.AlreadyUp {
		started.Release()
		return attachOrHint(io, opts, ws.folder)
	}
	fmt.Fprintf(io.out, "team up in %s: %d agents in tmux session %q (socket %s), workspace %s\n", started.Took.Round(time.Millisecond), len(started.Session.Agents), opts.session, opts.socket, ws.root)
	reportEarlyExits(io, ws, started.EarlyExits)
	if opts.web {
		reportWebURL(ctx, io, ws, opts)
	}
	if opts.demo {
		if err := startDirector(ctx, client, opts.session, ws.root, opts.demoPause); err != nil {
			return err
		}
		fmt.Fprintf(io.out, "the demo plays in the agents window; it takes about a minute\n")
	}
	// The team is up, every window made: another up may attach to it, and
	// the master connects to tmux as a control client (see UpUnderWay).
	started.Release()
	return attachOrHint(io, opts, ws.folder)
}

// reportWebURL prints the address of the web view the team's web window
// serves, once it serves.
func reportWebURL(ctx context.Context, io *streams, ws *caller, opts *upOptions) {
	var url []byte
	if watch.Until(ctx, 50*time.Millisecond, 10*time.Second, func() bool {
		url, _ = os.ReadFile(webURLFile(ws))
		return len(url) > 0
	}) {
		fmt.Fprintf(io.out, "web view: %s", url)
		return
	}
	fmt.Fprintln(io.out, runnable(fmt.Sprintf("the web view did not start: look at its window (`switchboard attach%s`, then Ctrl-b w and choose web)", rootFlag(opts)), ws.folder.Binary()))
}

// reportEarlyExits tells the person which agents' programs ended at once,
// what they printed, and where to fix them; the rest of the team runs.
func reportEarlyExits(io *streams, ws *caller, exited []lifecycle.Exited) {
	for _, e := range exited {
		status := "was ended by a signal"
		if e.Status != nil {
			status = fmt.Sprintf("exited with status %d", *e.Status)
		}
		fmt.Fprintf(io.errOut, "%s %s as it started; it printed:\n", e.Agent, status)
		if len(e.Output) == 0 {
			fmt.Fprintln(io.errOut, "    (nothing)")
		}
		for _, line := range e.Output {
			fmt.Fprintf(io.errOut, "    %s\n", line)
		}
		where := "its command"
		if profile := ws.folder.ProfilePath(e.Agent); statOK(profile) {
			where = "the command in " + relativeTo(ws.root, profile)
		}
		fmt.Fprintln(io.errOut, runnable(fmt.Sprintf("  fix %s, then restart the team with `switchboard down` and `switchboard up`; the other agents run", where), ws.folder.Binary()))
	}
}

func statOK(path string) bool { _, err := os.Stat(path); return err == nil }

// upError is what Up's failure says to the person at the keyboard: what
// became of a master that ended as it started, or where to look at one
// that did not start.
func upError(err error, opts *upOptions) error {
	attach := fmt.Sprintf("`switchboard attach%s`, then Ctrl-b w and choose master", rootFlag(opts))
	var ended *desk.MasterEndedError
	switch {
	case errors.Is(err, desk.ErrNoRight):
		return refusedError(fmt.Errorf("%w; outside the team's panes, run `switchboard up --as operator`", err))
	case errors.Is(err, lifecycle.ErrUpBusy):
		return refusedError(err) // held by a lock: exit 3
	case errors.Is(err, desk.ErrMasterNotStarted):
		return fmt.Errorf("%w: look at its window (%s)", err, attach)
	case errors.As(err, &ended):
		then := "and the agents run on without it (its window: " + attach + ")"
		if ended.TeamStopped {
			then = "so up stopped the team: nothing is left running"
		}
		printed := "    (nothing)"
		if len(ended.Exit.Output) > 0 {
			printed = "    " + strings.Join(ended.Exit.Output, "\n    ")
		}
		return fmt.Errorf("%w, %s; it printed:\n%s", err, then, printed)
	}
	return err
}

// programsInstalled checks, before up makes anything, that the programs
// the team runs besides switchboard are installed: the master of a host
// of a team across machines is switchboard-link. A team whose master
// already runs needs none.
func programsInstalled(ws *caller, given hubGiven) error {
	if _, running := ws.masterRunning(); running {
		return nil
	}
	if given.URL == "" {
		if _, joined, err := ws.folder.Hub(); err != nil || !joined {
			return nil // joins no hub, or its settings say why they cannot be read, later
		}
	}
	if _, err := findProgram(linkProgram); err != nil {
		return fmt.Errorf("nothing was started: this workspace joins a team across machines, whose master is a program of its own, and %w", err)
	}
	return nil
}

// rootFlag is the --root a hint gives for a workspace that need not be
// the current folder's: a demo's, or one given with --root.
func rootFlag(opts *upOptions) string {
	if opts.root == "" {
		return ""
	}
	return " --root " + safetext.ShellWord(opts.root)
}

func attachOrHint(io *streams, opts *upOptions, ws *workspace.Workspace) error {
	staged := ws.Binary()
	root := rootFlag(opts)
	stop := fmt.Sprintf("stop with `switchboard down%s`", root)
	if opts.demo {
		stop = fmt.Sprintf("stop it and delete its folder with `switchboard down --purge%s`", root)
	}
	if opts.detach || !io.terminal {
		fmt.Fprintln(io.out, runnable(fmt.Sprintf("attach with `switchboard attach%s` (detach again with Ctrl-b d); %s", root, stop), staged))
		return nil
	}
	if err := attach(io, opts.socket, opts.session, ws); err != nil {
		return err
	}
	// Detached from a demo that runs on: how to end it, in the words of
	// this terminal, where switchboard may not be on the PATH.
	if up, _ := tmux.NewClient(opts.socket, nil).HasSession(context.Background(), opts.session); up && opts.demo {
		fmt.Fprintln(io.out, runnable("the demo runs on: "+stop, staged))
	}
	return nil
}

// attach hands the terminal to tmux until the person detaches.
// A session stopped while attached (switchboard down from elsewhere) ends
// the attachment with an error status; that is a normal end, and the person
// is told what became of the team's folder.
func attach(io *streams, socket, session string, ws *workspace.Workspace) error {
	client := tmux.NewClient(socket, nil)
	cmd := client.AttachCommand(session)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = io.in, io.out, io.errOut
	if err := cmd.Run(); err != nil {
		if up, _ := client.HasSession(context.Background(), session); !up {
			fmt.Fprintln(io.errOut, afterStop(ws))
			return nil
		}
		return fmt.Errorf("tmux could not attach this terminal to session %q; what it said is above", session)
	}
	return nil
}

// afterStop says what became of the team's folder when its session ended
// under the person attached to it: kept with its mail, or deleted (down
// --purge moves it out of sight before it stops the session).
func afterStop(ws *workspace.Workspace) string {
	if _, err := os.Stat(ws.Root); errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("the team was stopped and its folder %s deleted", ws.Root)
	}
	return fmt.Sprintf("the team was stopped; mail is kept in %s", ws.Store.Dir)
}
