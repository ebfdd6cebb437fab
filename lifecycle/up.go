package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"switchboard/conversation"
	"switchboard/internal/atomicfile"
	"switchboard/internal/safetext"
	"switchboard/internal/tmux"
	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/workspace"
)

// UpOptions say how to put a team on screen.
type UpOptions struct {
	Workspace *workspace.Workspace
	Names     []string // the agents of the rules
	Client    *tmux.Client
	Session   string
	// Binary is the switchboard executable; it is copied into the mailboxes
	// folder so that panes find it even when the original goes away (as the
	// binary of `go run` does).
	Binary string
	// Master is what the master window runs, after the switchboard binary:
	// ["master"], or ["log", "--follow"] when a master already runs.
	Master []string
	// Windows are more windows of the team, each running the switchboard
	// binary with its arguments: the console, the web view.
	Windows   []Window
	PerWindow int // panes in one agents window; more make another window
	// Wirer, when set, wires each agent's hooks into its launch.
	Wirer Wirer
	// Fresh starts every client on a new conversation, not on the one its
	// agent had (see resumable).
	Fresh bool
	// NoMCP is said in the session: the Wirer leaves the MCP server out.
	NoMCP bool
}

// Window is one more window of the team: its name, the arguments of the
// switchboard binary it runs, and whether it is the one in view.
type Window struct {
	Name   string
	Args   []string
	InView bool
}

// Up starts the team in a new tmux session: one pane per agent in tiled
// "agents" windows, and a "master" window. It returns the session, which it
// has also saved, and notes for the person (such as programs not installed).
// A team it could not finish is stopped. The caller holds the UpLock.
func Up(ctx context.Context, opts UpOptions) (session *Session, notes []string, err error) {
	if opts.PerWindow <= 0 {
		opts.PerWindow = 6
	}
	ws := opts.Workspace
	team, unnamed, err := profile.Team(ws, opts.Names)
	if err != nil {
		return nil, nil, err
	}
	if len(team) == 0 {
		return nil, nil, fmt.Errorf("the rules name no agents to start")
	}
	for _, name := range unnamed {
		notes = append(notes, fmt.Sprintf("agents/%s has a profile but no entry in the rules, so it was not started: give it one under allowed_interactions in communication_rules.yaml to start it with the team", name))
	}
	store := ws.Store
	if err := StageBinary(ws, opts.Binary); err != nil {
		return nil, nil, err
	}
	spawned, err := ws.Spawned()
	if err != nil {
		return nil, nil, err
	}
	session = &Session{Socket: opts.Client.Socket(), Name: opts.Session, Started: time.Now().UTC(), Agents: make(map[string]*Seat), NoMCP: opts.NoMCP}
	vars := profile.DefaultVars(ws.Root)
	made := false // the session, which a failure stops
	defer func() {
		if err != nil && made {
			StopTeam(context.WithoutCancel(ctx), opts.Client)
		}
	}()

	var window string
	for i, p := range team {
		if err := store.Ensure(p.Name); err != nil {
			return nil, nil, err
		}
		resume := ""
		if !opts.Fresh {
			resume = resumable(store, p)
		}
		if err := newConversation(store, p.Name, resume != ""); err != nil {
			return nil, nil, err
		}
		spec, launch, err := paneFor(ctx, p, vars, ws, opts.Wirer, spawned[p.Name], resume)
		if err != nil {
			return nil, nil, err
		}
		if launch.Note != "" {
			notes = append(notes, launch.Note)
		}
		var pane string
		switch {
		case i == 0:
			window = "agents"
			pane, err = opts.Client.NewSession(ctx, opts.Session, window, 240, 60, spec)
			if err != nil {
				return nil, nil, fmt.Errorf("start tmux session %q for %s: %w", opts.Session, p.Name, err)
			}
			made = true
			err = personEnv(ctx, opts.Client, opts.Session, ws)
		case i%opts.PerWindow == 0:
			window = fmt.Sprintf("agents-%d", i/opts.PerWindow+1)
			pane, err = opts.Client.NewWindow(ctx, opts.Session, window, spec)
		default:
			pane, err = opts.Client.SplitWindow(ctx, tmux.Window(opts.Session, window), spec)
			if err == nil {
				err = opts.Client.SelectLayout(ctx, tmux.Window(opts.Session, window), "tiled")
			}
		}
		if err != nil {
			return nil, nil, fmt.Errorf("start %s: %w", p.Name, err)
		}
		session.Agents[p.Name] = &Seat{Pane: pane, Kind: launch.Kind, DisplayName: p.DisplayName, Parent: spawned[p.Name].Parent}
	}
	if err := decorate(ctx, opts.Client, session); err != nil {
		return nil, nil, err
	}
	if err := notePIDs(ctx, opts.Client, session.Agents); err != nil {
		return nil, nil, err
	}
	if session.ServerPID, err = opts.Client.ServerPID(ctx); err != nil {
		return nil, nil, err
	}
	if err := SaveSession(ws, session); err != nil {
		return nil, nil, err
	}
	for _, w := range opts.Windows {
		command := append([]string{ws.Binary()}, w.Args...)
		pane, err := opts.Client.NewWindow(ctx, opts.Session, w.Name, tmux.PaneSpec{Dir: ws.Root, Env: paneEnv(nil, ws, mailbox.Operator), Command: command})
		if err == nil {
			err = opts.Client.SetLabels(ctx, tmux.Labels{Title: map[string]string{pane: "switchboard " + strings.Join(w.Args, " ")}})
		}
		if err == nil && w.InView {
			err = opts.Client.SelectWindow(ctx, tmux.Window(opts.Session, w.Name))
		}
		if err != nil {
			return nil, nil, fmt.Errorf("start the %s window: %w", w.Name, err)
		}
	}
	// The session is saved before the master starts, so that it never
	// reads the one of the team's last life; its window comes last, so that
	// no window is made while it connects to tmux (see UpUnderWay).
	if len(opts.Master) > 0 {
		command := append([]string{ws.Binary()}, opts.Master...)
		pane, err := opts.Client.NewWindow(ctx, opts.Session, MasterWindow, tmux.PaneSpec{Dir: ws.Root, Env: paneEnv(nil, ws, mailbox.Operator), Command: command})
		if err == nil {
			err = opts.Client.SetLabels(ctx, tmux.Labels{Title: map[string]string{pane: "switchboard " + strings.Join(opts.Master, " ")}})
		}
		if err != nil {
			return nil, nil, fmt.Errorf("start the master window: %w", err)
		}
	}
	return session, notes, nil
}

// newConversation readies an agent's records for a pane started: a name
// used before may have "exited" or "idle" on record from its last life,
// and a new conversation has been shown nothing (one resumed keeps what it
// was shown, and its client's record). Written before the pane starts, so
// that its first hook has the last word.
func newConversation(store *mailbox.Store, agent string, resumed bool) error {
	book := conversation.Of(store)
	if err := book.SetState(agent, conversation.State{State: conversation.Starting, Since: time.Now().UTC(), Source: conversation.SourcePane}); err != nil {
		return err
	}
	if resumed {
		return nil
	}
	if err := os.Remove(book.ClientRecordPath(agent)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return book.ResetShown(agent)
}

// Wirer fits an agent's launch with its hooks, given the switchboard binary
// the hooks run (package hooks does it, by kind of agent).
type Wirer interface {
	Wire(binary string, p *profile.Profile, launch profile.Launch) (profile.Launch, error)
}

// paneFor builds the pane of one agent (spawned is its registration, when
// it was spawned), in its worktree when it has one.
func paneFor(ctx context.Context, p *profile.Profile, vars profile.Vars, ws *workspace.Workspace, wirer Wirer, spawned workspace.Spawned, resume string) (tmux.PaneSpec, profile.Launch, error) {
	expanded, err := p.Expand(vars)
	if err != nil {
		return tmux.PaneSpec{}, profile.Launch{}, err
	}
	launch := expanded.Launch(nil)
	launch.Resume = resume
	if wirer != nil {
		if launch, err = wirer.Wire(ws.Binary(), expanded, launch); err != nil {
			return tmux.PaneSpec{}, profile.Launch{}, fmt.Errorf("wire the hooks of %s: %w", p.Name, err)
		}
	}
	dir := expanded.Cwd
	if dir == "" {
		dir = ws.Root
	}
	if expanded.Worktree {
		if dir, err = treeDir(ctx, expanded, ws, spawned.Parent, spawned.Worktree); err != nil {
			return tmux.PaneSpec{}, profile.Launch{}, err
		}
	}
	env := paneEnv(expanded.Env, ws, p.Name)
	for k, v := range launch.Env {
		env[k] = v
	}
	if launch.Note != "" {
		env["SWITCHBOARD_NOTE"] = launch.Note
	}
	return tmux.PaneSpec{Dir: dir, Env: env, Command: append(paneStart, launch.Command...)}, launch, nil
}

// paneStart runs before every agent's program. tmux gives a new pane the
// PATH of the client that asked for it, whatever -e says, so the folder of
// the switchboard binary is put first here; and it says in the pane why a
// shell runs instead of the agent's program, when that is so.
var paneStart = []string{"/bin/sh", "-c",
	`PATH="$SWITCHBOARD_BIN:$PATH"; export PATH
[ -n "$SWITCHBOARD_NOTE" ] && printf '%s\n\n' "$SWITCHBOARD_NOTE"
exec "$@"`, "switchboard-pane"}

// personEnv readies the windows a person opens in the session: the
// workspace known and switchboard on the PATH (tmux gives a new window the
// PATH of the client that opens it, so the window's shell puts it first),
// but no agent's name, so that the person acts as the operator there.
func personEnv(ctx context.Context, c *tmux.Client, session string, ws *workspace.Workspace) error {
	if err := c.SetSessionEnv(ctx, session, "SWITCHBOARD_ROOT", ws.Root); err != nil {
		return err
	}
	shell := `PATH=` + safetext.ShellWord(ws.BinDir()) + `:"$PATH"; export PATH; exec "${SHELL:-/bin/sh}"`
	return c.SetSessionOption(ctx, session, "default-command", shell)
}

func paneEnv(profileEnv map[string]string, ws *workspace.Workspace, agent string) map[string]string {
	env := make(map[string]string, len(profileEnv)+3)
	for k, v := range profileEnv {
		env[k] = v
	}
	env["SWITCHBOARD_ROOT"] = ws.Root
	env["SWITCHBOARD_AGENT"] = agent
	env["SWITCHBOARD_BIN"] = ws.BinDir()
	return env
}

// decorate sets the pane borders and the status line, which the master keeps
// current: each border shows the agent's name, state and unread counts.
func decorate(ctx context.Context, c *tmux.Client, s *Session) error {
	if err := c.ShowLabels(ctx); err != nil {
		return err
	}
	labels := tmux.Labels{Agent: map[string]string{}, Title: map[string]string{}}
	for name, seat := range s.Agents {
		labels.Agent[seat.Pane], labels.Title[seat.Pane] = name, startingTitle(seat)
	}
	return c.SetLabels(ctx, labels)
}

// startingTitle is the border of a pane whose agent is starting.
func startingTitle(seat *Seat) string { return seat.DisplayName + " · starting" }

// StageBinary copies the switchboard binary into the workspace (its
// Binary), whose folder goes first on every pane's PATH: a copy that
// outlives the binary of `go run`. The programs of switchboard that speak
// NATS go with it when they sit beside the binary: the master of a host of
// a team across machines runs in one (LinkProgram). A copy staged before
// with an earlier binary, that this binary has none beside it to replace,
// is removed: a master would take it, of another build, over the one the
// PATH finds.
func StageBinary(ws *workspace.Workspace, binary string) error {
	if binary == "" {
		return nil // staged before
	}
	if err := os.MkdirAll(ws.BinDir(), 0o700); err != nil {
		return fmt.Errorf("stage switchboard binary: %w", err)
	}
	if err := stageProgram(binary, ws.Binary()); err != nil {
		return err
	}
	for _, name := range []string{HubProgram, LinkProgram} {
		companion := filepath.Join(filepath.Dir(binary), name)
		if _, err := os.Stat(companion); err != nil {
			if err := os.Remove(filepath.Join(ws.BinDir(), name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove the staged %s of an earlier build: %w", name, err)
			}
			continue
		}
		if err := stageProgram(companion, filepath.Join(ws.BinDir(), name)); err != nil {
			return err
		}
	}
	return nil
}

// The programs of switchboard that speak NATS: the hub's, and the master's
// of a host of a team across machines.
const (
	HubProgram  = "switchboard-hub"
	LinkProgram = "switchboard-link"
)

// stageProgram copies the program at src to dst, in place of what is there.
func stageProgram(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("stage %s: %w", filepath.Base(src), err)
	}
	defer in.Close()
	// The new copy replaces the name; processes running the old one keep
	// its file, which goes when they end.
	out, err := atomicfile.Create(dst, atomicfile.Options{})
	if err != nil {
		return fmt.Errorf("stage %s: %w", filepath.Base(src), err)
	}
	defer out.Cleanup()
	if _, err := io.Copy(out, in); err != nil {
		return fmt.Errorf("stage %s: %w", filepath.Base(src), err)
	}
	if err := out.Chmod(0o700); err != nil {
		return fmt.Errorf("stage %s: %w", filepath.Base(src), err)
	}
	if err := out.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("stage %s: %w", filepath.Base(src), err)
	}
	return nil
}
