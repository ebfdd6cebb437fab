package master

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"switchboard/bulletin"
	"switchboard/conversation"
	"switchboard/internal/tmux"
	"switchboard/mailbox"
	"switchboard/master/link"
	"switchboard/master/panes"
	"switchboard/rules"
	"switchboard/workspace"
)

// Options tune a master. The zero value is a durable master on fsnotify.
type Options struct {
	// Poll, when set, replaces fsnotify with a scan of every outbox at this
	// interval, for filesystems without inotify.
	Poll time.Duration
	// Settle is how long a file that is not yet valid JSON must stay
	// unchanged before it is rejected; until then it may be half-written.
	Settle time.Duration
	// RulesSettle is how long a new version of the rules file must stay
	// unchanged, and read alike at both ends, before it is loaded: a file
	// written in place is never loaded half-written.
	RulesSettle time.Duration
	// Reconcile is the interval of the full scan that backs up fsnotify.
	Reconcile time.Duration
	// NoFsync skips fsync; a kill still loses nothing, a power cut may.
	NoFsync bool
	// Log receives one line per routed message and every problem.
	Log io.Writer `json:"-"`
	// PaneTick is how often the panes of a team in tmux are looked at.
	PaneTick time.Duration
	// Typing tunes how notices are typed into panes.
	Typing tmux.TypeOptions
	// CommandsByProcess runs each tmux command in a process of its own,
	// as before the master kept a control connection to the session: what
	// the environment variable CommandsByProcessEnv set to "process" asks
	// of the master command.
	CommandsByProcess bool
	// Link, when set, joins the master to a team across machines: this
	// host runs the agents whose profiles are in its workspace, and mail
	// for the others goes through the link (package hublink makes one).
	Link link.Link `json:"-"`
}

// CommandsByProcessEnv is the environment variable that, set to "process",
// asks the master command for CommandsByProcess: a way back should a tmux
// misread the control connection.
const CommandsByProcessEnv = "SWITCHBOARD_TMUX_COMMANDS"

// Defaults for Options.
const (
	DefaultSettle      = 2 * time.Second
	DefaultRulesSettle = 500 * time.Millisecond
	DefaultReconcile   = 30 * time.Second
)

// Master routes the messages of one workspace.
type Master struct {
	say   *slog.Logger // the master's own lines, for the person at its window
	root  string
	ws    *workspace.Workspace
	opts  Options
	store *mailbox.Store
	log   *mailbox.LogWriter
	rules *rules.Rules
	// shared is rules as other goroutines read them (the panes' callbacks):
	// set with rules, which the master's own loop alone uses.
	shared atomic.Pointer[rules.Rules]
	// started is when Run began.
	started time.Time
	// rulesFile is the rules file as the master follows it: the version in
	// force, and a newer one waiting to stand still.
	rulesFile rulesFile
	now       func() time.Time

	watched   map[string]bool      // agents whose outbox is known
	unsettled map[string]unsettled // outbox files that are not yet valid JSON, by path
	// quiet are the outboxes last found with nothing to route, by agent,
	// under the folder's stamp then: the reconcile scan lists none of
	// them again while its stamp stays. The loop's alone.
	quiet map[string]string
	// temporariesSwept is when temporaries were last swept. The loop's alone.
	temporariesSwept time.Time

	work  workQueue
	panes *panes.Panes
	watch *watcher // the filesystem's events; set once Run starts watching

	retryWait     map[string]time.Duration // the last wait before a retry, by agent; used by the loop alone
	pause         pause
	known         map[uint64]fileID   // mailbox files checked (vouched for, or reported), by knownKey, as they were then
	sweep         inboxSweep          // the check of every inbox file under way
	link          link.Link           // nil unless the master joins a team across machines
	toldOfLink    map[string]bool     // keys of the link's notices told; the loop's alone
	refusedCopies *mailbox.HubRefused // notes of the copies from other hosts refused here; set by startLink
	errands       errandDesk          // the commands' errands on the hub, under way and answered
	// fromPanes carries what the panes' goroutines ask of the master's
	// loop (telling overseers of a crash loop, a limit, a budget), which
	// owns the state that telling touches.
	fromPanes chan func()
	// notified are the events the person was told of (notifyPerson).
	notifiedMu sync.Mutex
	notified   map[string]bool
}

// New prepares a master for the workspace at root. Run starts it.
func New(root string, opts Options) *Master {
	if opts.Settle <= 0 {
		opts.Settle = DefaultSettle
	}
	if opts.Reconcile <= 0 {
		opts.Reconcile = DefaultReconcile
	}
	if opts.RulesSettle <= 0 {
		opts.RulesSettle = DefaultRulesSettle
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	ws := workspace.New(root)
	ws.Store.Durable = !opts.NoFsync
	return &Master{
		say:           slog.New(newLineHandler(opts.Log)),
		root:          root,
		ws:            ws,
		opts:          opts,
		store:         ws.Store,
		now:           time.Now,
		watched:       make(map[string]bool),
		unsettled:     make(map[string]unsettled),
		quiet:         make(map[string]string),
		work:          newWorkQueue(),
		retryWait:     make(map[string]time.Duration),
		known:         make(map[uint64]fileID),
		link:          opts.Link,
		toldOfLink:    make(map[string]bool),
		notified:      make(map[string]bool),
		fromPanes:     make(chan func(), 64),
		refusedCopies: ws.Store.HubRefused(),
	}
}

// Run holds the workspace lock and routes until ctx is done. It returns an
// error only when it cannot start; a bad message never stops it, and a full
// disk pauses it until there is room again.
func (m *Master) Run(ctx context.Context) error {
	m.started = m.now()
	if err := m.loadRulesAtStart(); err != nil {
		return err
	}
	var lk *workspace.MasterLock
	err := m.untilRoom(ctx, func() (err error) {
		if err = m.unlink(mailbox.Operator); err == nil {
			err = m.store.Ensure(mailbox.Operator)
		}
		if err == nil {
			err = bulletin.Of(m.ws).Ensure()
		}
		if err == nil {
			// The master's temporary files go to a folder of its own,
			// which no agent can point elsewhere.
			err = m.store.UseStage()
		}
		if err == nil {
			lk, err = m.ws.LockMaster()
		}
		return err
	})
	if err != nil || lk == nil {
		return err
	}
	defer lk.Release()
	err = m.untilRoom(ctx, func() (err error) {
		m.log, err = mailbox.OpenLogWriter(m.store.LogPath(), m.store.Durable)
		if err == nil {
			m.log.Hook = m.store.Hook
		}
		return err
	})
	if err != nil || m.log == nil {
		return err
	}
	defer m.log.Close()
	m.keepLoadedRules()
	m.adoptDegraded()
	if err := m.keepReserve(); err != nil && !diskFull(err) {
		m.logf("%v; a full disk will leave the bulletin as it is", err)
	}

	m.panes = panes.New(panes.Config{ // before the watch, whose events wake it
		Workspace: m.ws, Now: m.now, Logf: m.logf, Started: m.started, Tick: m.opts.PaneTick,
		Typing: m.opts.Typing, Polled: m.opts.Poll > 0, CommandsByProcess: m.opts.CommandsByProcess,
		Restart: m.restartClient,
		CrashLoop: func(agent, why string, lines []string) {
			m.onLoop("a crash loop of "+agent, func() { m.crashLoop(agent, why, lines) })
		},
		Limited: func(agent string, st conversation.State) {
			m.onLoop("the limit of "+agent, func() { m.limited(agent, st) })
		},
		Budget: m.overBudget,
		BudgetChanged: func(agent string, over bool, detail string) {
			m.onLoop("the budget of "+agent, func() { m.budgetChanged(agent, over, detail) })
		},
	})
	if m.watch, err = m.startWatching(ctx); err != nil {
		return err
	}
	defer m.watch.close()
	waitErrands, err := m.startErrands(ctx)
	if err != nil {
		return err
	}
	defer waitErrands()
	panesCtx, stopPanes := context.WithCancel(ctx)
	panesDone := make(chan struct{})
	go func() { defer close(panesDone); m.panes.Run(panesCtx) }()
	defer func() { stopPanes(); <-panesDone }()
	if err := m.untilRoom(ctx, m.syncAgents); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return nil
	}
	m.settleRulesAtStart(ctx)
	if m.link != nil {
		stop, err := m.startLink(ctx)
		if err != nil {
			return err
		}
		defer stop()
	}
	m.adoptOldNotices()
	m.work.markInboxes()
	m.logf("master running for %d agents and the operator in %s (pid %d)", m.rules.AgentCount(), m.root, os.Getpid())
	return m.loop(ctx)
}

func (m *Master) loop(ctx context.Context) error {
	reconcile := time.NewTicker(m.opts.Reconcile)
	defer reconcile.Stop()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	retry := time.NewTimer(pauseRetry) // runs only while routing is paused
	retry.Stop()
	defer retry.Stop()
	retrying := false
	for {
		settled, swept := false, false
		select {
		case <-ctx.Done():
			m.logf("master stopped")
			return nil
		case <-m.work.ready:
		case <-reconcile.C:
			m.work.markAll()
			// A state file whose event was lost, or whose folder could
			// not be watched, reaches the other hosts of the team.
			m.statesChanged()
			// Files put there that no event told of (with --poll, none
			// does; a write through another link or a mapping, or an
			// overflow, loses one) are found by their change times, a
			// chunk each tick.
			m.startSweep(false)
			swept = true
			if m.now().Sub(m.temporariesSwept) >= temporariesEvery {
				m.sweepTemporaries()
				m.temporariesSwept = m.now()
			}
			m.sweepAnswers()
		case <-settle.C:
			settled = true
		case <-retry.C:
			retrying = false
			m.work.markAll()
		case a := <-m.linkArrivals():
			m.takeFromLink(a)
			continue
		case n := <-m.linkNotes():
			m.tellOfLink(n)
			continue
		case do := <-m.fromPanes:
			do()
			continue
		}
		dirty, rulesChanged, all := m.work.take()
		if rulesChanged {
			m.reloadRules()
			// A reload marks every outbox; what was taken before stays due.
			// A change of the rules file marked meanwhile stays for the
			// next turn.
			more, moreAll := m.work.takeOutboxes()
			maps.Copy(dirty, more)
			all = all || moreAll
		}
		if all {
			dirty = maps.Clone(m.watched)
		}
		if settled {
			for _, u := range m.unsettled {
				dirty[u.agent] = true
			}
		}
		logErr := m.routePass(slices.Sorted(maps.Keys(dirty)))
		arrived, sweepAll := m.work.takeArrivals()
		if sweepAll {
			m.startSweep(true)
		}
		if m.sweep.hurry || swept {
			if m.sweepNext(arrived) {
				m.work.signal() // the next chunk after what came meanwhile
			}
		}
		m.checkInboxes(arrived)
		m.afterPass(all, logErr)
		if m.paused() && !retrying {
			retry.Reset(pauseRetry)
			retrying = true
		}
		if next, ok := m.nextSettleCheck(); ok {
			settle.Reset(time.Until(next))
		}
	}
}

// syncAgents makes mailboxes for every agent of the rules that runs on this
// host and watches their outboxes; it is run at start and after each
// reload. In a team across machines, the agents of other hosts have no
// mailbox here: their mail goes to the link.
func (m *Master) syncAgents() error {
	here, err := m.hostedHere()
	if err != nil {
		return err
	}
	var hosted []string
	for _, agent := range m.rules.Agents() {
		if !here(agent) {
			continue
		}
		hosted = append(hosted, agent)
		if m.watched[agent] {
			continue
		}
		// A link put in the place of a folder is replaced before anything
		// is made in it: the master follows none.
		if err := m.unlink(agent); err != nil {
			return err
		}
		if err := m.store.Ensure(agent); err != nil {
			return err
		}
		if err := m.watch.add(m.store.OutboxDir(agent), agent); err != nil {
			return err
		}
		if err := m.watch.addInbox(agent, m.store.InboxDir(agent), m.store.ReadDir(agent)); err != nil {
			m.logf("%v; files put there by hand are reported when the inboxes are checked next", err)
		}
		if err := m.watch.addHome(agent, m.store.AgentDir(agent)); err != nil {
			m.logf("%v; its state is looked at every %s", err, panes.RestTick)
		}
		m.watched[agent] = true
	}
	m.panes.SetTeam(hosted) // the panes of this host's agents: no other has one here
	m.work.markAll()
	return nil
}

// logf says one line in the master's log.
func (m *Master) logf(format string, args ...any) {
	m.say.Info(fmt.Sprintf(format, args...))
}
