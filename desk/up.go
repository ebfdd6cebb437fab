package desk

import (
	"context"
	"fmt"
	"slices"
	"time"

	"switchboard/internal/tmux"
	"switchboard/internal/watch"
	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/workspace"
)

// UpRequest is how Up brings the team up.
type UpRequest struct {
	// Client is the team's tmux server; Session its session's name.
	Client  *tmux.Client
	Session string
	// Binary is the switchboard program the master and the panes run.
	Binary string
	// Windows are the team's windows besides its agents and its master
	// (the console, the web view).
	Windows []lifecycle.Window
	// Hub is this host's place in a team across machines, if any: it
	// starts the agents this host runs.
	Hub workspace.HubSettings
	// Fresh starts every client on a new conversation; NoMCP leaves the
	// MCP server out of the clients.
	Fresh, NoMCP bool
	// Waiting, when set, is told that another up is bringing the team up,
	// and by which process, before Up waits for it.
	Waiting func(pid int)
	// Told, when set, is told what Up finds as it finds it (the team up
	// already, a master to start again), before it waits on it.
	Told func(news string)
}

// tell passes news to req.Told, if set.
func (req UpRequest) tell(format string, args ...any) {
	if req.Told != nil {
		req.Told(fmt.Sprintf(format, args...))
	}
}

// Started is what Up did; Up's error may come with one, whose notes say
// what it noticed before it failed.
type Started struct {
	// AlreadyUp is set when the team ran: Up only made sure its master
	// runs (UpRequest.Told says whether it had to start it).
	AlreadyUp bool
	// Session is where the team runs; Notes what Up noticed of its agents
	// (a program missing, say); EarlyExits the agents whose programs ended
	// as they started (the rest run).
	Session    *lifecycle.Session
	Notes      []string
	EarlyExits []lifecycle.Exited
	Took       time.Duration

	lock *lifecycle.UpLock
}

// Release lets another up go on: call it once the team's windows are all
// made (the team is up) or the team is given up. Up's error releases it.
func (s *Started) Release() {
	if s != nil && s.lock != nil {
		s.lock.Release()
	}
}

// MasterEndedError is a master that ended as it started: what it printed,
// and whether Up stopped the team for it (a team without its master
// routes nothing: none is left half up).
type MasterEndedError struct {
	Exit        lifecycle.MasterExit
	TeamStopped bool
}

func (e *MasterEndedError) Error() string {
	status := "ended"
	if e.Exit.Status != nil {
		status = fmt.Sprintf("exited with status %d", *e.Exit.Status)
	}
	return "the master " + status + " as it started"
}

// ErrMasterNotStarted is a master that neither took its workspace nor
// ended within masterStartLimit: it is stuck.
var ErrMasterNotStarted = fmt.Errorf("the master did not start within %s", masterStartLimit)

// Up brings the team up in tmux, every agent the rules name (of this host,
// in a team across machines) in a pane, with the master; when the team is
// up already, it makes sure the master runs. One Up at a time in a
// workspace: another waits for it (ErrUpBusy after upLockWait). The
// operator and the oversight agents may; anyone else gets a *RightError,
// and the overseers are told of the attempt.
func (d *Desk) Up(ctx context.Context, req UpRequest) (*Started, error) {
	if err := d.MayBringUp(); err != nil {
		return nil, err
	}
	if d.rules == nil || d.whyNoRules != nil {
		return nil, d.noRules() // the team is the rules': they must load
	}
	if err := d.ws.MakeMailboxes(); err != nil {
		return nil, err
	}
	lock, err := lifecycle.LockUp(ctx, d.ws, upLockWait, req.Waiting)
	if err != nil {
		return nil, err
	}
	started := &Started{lock: lock}
	ok := false
	defer func() {
		if !ok {
			lock.Release()
		}
	}()
	up, err := req.Client.HasSession(ctx, req.Session)
	if err != nil {
		return nil, err
	}
	if up {
		started.AlreadyUp = true
		req.tell("the team is already up in tmux session %q", req.Session)
		if _, running := d.ws.MasterRunning(); !running {
			req.tell("the master was not running: starting it in the master window")
			if err := req.Client.RespawnPane(ctx, tmux.Window(req.Session, lifecycle.MasterWindow), d.ws.Binary(), "master"); err != nil {
				return nil, fmt.Errorf("restart the master: %w", err)
			}
			if err := d.waitForMaster(ctx, req, false); err != nil {
				return nil, err
			}
		}
		ok = true
		return started, nil
	}
	masterCmd := []string{"master"}
	if pid, running := d.ws.MasterRunning(); running {
		masterCmd = []string{"log", "--follow"}
		req.tell("using the master already running (pid %d)", pid)
	}
	names, err := d.hosted(req.Hub)
	if err != nil {
		return nil, err
	}
	var wirer lifecycle.Wirer
	if d.wiring != nil {
		wirer = d.wiring(d.ws, req.NoMCP)
	}
	start := time.Now()
	session, notes, err := lifecycle.Up(ctx, lifecycle.UpOptions{
		Workspace: d.ws, Names: names, Client: req.Client, Session: req.Session,
		Binary: req.Binary, Master: masterCmd, Windows: req.Windows,
		Wirer: wirer, Fresh: req.Fresh, NoMCP: req.NoMCP,
	})
	if err != nil {
		return nil, err
	}
	started.Session, started.Notes = session, notes
	if err := d.waitForMaster(ctx, req, true); err != nil {
		return started, err // with its notes: what the master lacked may be among them
	}
	if started.EarlyExits, err = lifecycle.EarlyExits(ctx, req.Client, session, earlyExitGrace); err != nil {
		return nil, err
	}
	started.Took = time.Since(start)
	ok = true
	return started, nil
}

// MayBringUp refuses, before anything is made, one who may not bring the
// team up (Up), and tells the overseers of the attempt.
func (d *Desk) MayBringUp() error { return d.mayRunTheTeam("bring the team up") }

// mayRunTheTeam refuses, as Down does, to anyone but the operator and the
// oversight agents.
func (d *Desk) mayRunTheTeam(doing string) error {
	if d.agent == mailbox.Operator {
		return nil
	}
	if d.rules == nil {
		return &RightError{Msg: fmt.Sprintf("%v; with rules that do not load, only the person at the keyboard may %s", d.noRules(), doing), Err: d.noRules()}
	}
	if !d.rules.IsOverseer(d.agent) {
		ReportAttempt(d.ws.Store, d.rules, d.agent, "tried to "+doing, "")
		return &RightError{Msg: fmt.Sprintf("%s may not %s: only oversight agents (%s) and the person at the keyboard may (the attempt is logged)", d.agent, doing, d.rules.OversightNames())}
	}
	return nil
}

// hosted are the agents Up starts: all the rules name, or, in a team
// across machines, those this host runs.
func (d *Desk) hosted(s workspace.HubSettings) ([]string, error) {
	if s.URL == "" {
		return d.rules.Agents(), nil
	}
	hosted, err := profile.Hosted(d.ws)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(d.rules.Agents(), func(name string) bool { return !hosted[name] }), nil
}

// upLockWait is how long Up waits for another up in the same workspace to
// bring the team up: a few seconds at most, unless that one is stuck.
const upLockWait = time.Minute

// earlyExitGrace is how long after its pane started an agent's program is
// watched by Up: one that ends within it did not start (a typo in its
// command, a bad flag).
const earlyExitGrace = 500 * time.Millisecond

// masterStartLimit is how long Up waits for a master that has neither
// taken its workspace's lock nor ended: one that does neither is stuck.
const masterStartLimit = 10 * time.Second

// exitStatusGrace is how long a dead pane may go without its exit status
// before its program is said to have ended, its status unknown: tmux may
// see the pane dead a while before it has the status, and never has one
// for a program ended by a signal.
const exitStatusGrace = 2 * time.Second

// waitForMaster waits until the master of the session's master window
// runs. One that ended as it started (a program missing, a workspace it
// refuses) is a *MasterEndedError at once, rather than after
// masterStartLimit; with stopTeam, the team is stopped first.
func (d *Desk) waitForMaster(ctx context.Context, req UpRequest, stopTeam bool) error {
	var ended *lifecycle.MasterExit
	var deadSince time.Time
	looks := 0
	settled := func() bool {
		if _, running := d.ws.MasterRunning(); running {
			return true
		}
		// The lock is a file; the window's state costs a tmux call, asked
		// every fifth look.
		if looks++; looks%5 != 1 {
			return false
		}
		exit, dead, err := lifecycle.MasterEnded(ctx, req.Client, req.Session)
		if err != nil || !dead {
			return false
		}
		if deadSince.IsZero() {
			deadSince = time.Now()
		}
		if exit.Status == nil && time.Since(deadSince) < exitStatusGrace {
			return false
		}
		ended = &exit
		return true
	}
	switch {
	case watch.Until(ctx, 20*time.Millisecond, masterStartLimit, settled):
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		return ErrMasterNotStarted
	}
	if ended == nil {
		return nil
	}
	if stopTeam {
		lifecycle.StopTeam(context.WithoutCancel(ctx), req.Client)
	}
	return &MasterEndedError{Exit: *ended, TeamStopped: stopTeam}
}
