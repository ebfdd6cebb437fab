package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"switchboard/internal/watch"
	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/workspace"
)

// HistoryConfig says how long a history the master is started on.
type HistoryConfig struct {
	Binary     string        // the switchboard binary
	Records    int           // records in the log (DefaultHistoryRecords when 0)
	InboxFiles int           // unread copies in the inboxes (DefaultHistoryInboxFiles when 0, none when negative)
	Agents     int           // the team (DefaultHistoryAgents when 0)
	Rest       time.Duration // how long the master at rest is watched (DefaultHistoryRest when 0)
	Dir        string        // where the workspaces are made (the system's temporary folder when "")
	Progress   io.Writer     // where progress goes; nil for nowhere
}

// Defaults of the history run: a team that has worked for months.
const (
	DefaultHistoryRecords    = 1_000_000
	DefaultHistoryInboxFiles = 100_000
	DefaultHistoryAgents     = 100
	DefaultHistoryRest       = 60 * time.Second
)

// historySettle is how long the master runs before its rest is measured
// (at most as long as the rest itself): its first sweeps of old files run
// meanwhile, beside routing.
const historySettle = 40 * time.Second

// MasterOnHistory is one master started on a workspace: the time until it
// said it runs, the time a message posted a second after that took to
// reach its inbox, its memory then and at rest, and its CPU at rest.
type MasterOnHistory struct {
	Start    time.Duration `json:"start_ns"`
	Delivery time.Duration `json:"delivery_ns"`
	RSS      int64         `json:"rss_bytes"`
	RestRSS  int64         `json:"rest_rss_bytes"`
	Rest     float64       `json:"rest_percent"`
}

// HistoryResult is the master started on a long history, beside the same
// team with none.
type HistoryResult struct {
	Records    int             `json:"records"`
	InboxFiles int             `json:"inbox_files"`
	Agents     int             `json:"agents"`
	Window     time.Duration   `json:"window_ns"`
	Empty      MasterOnHistory `json:"empty"`
	Long       MasterOnHistory `json:"long"`
}

// RunHistory makes a workspace whose log holds cfg.Records records and
// whose inboxes hold cfg.InboxFiles of their copies, unread, and starts
// the master on it and on the same team with an empty log: each is timed
// to its start and to a message posted a second later, and watched at
// rest.
func RunHistory(ctx context.Context, cfg HistoryConfig) (*HistoryResult, error) {
	cfg = cfg.withDefaults()
	res := &HistoryResult{Records: cfg.Records, InboxFiles: cfg.InboxFiles, Agents: cfg.Agents, Window: cfg.Rest}
	for _, long := range []bool{false, true} {
		dir, err := os.MkdirTemp(cfg.Dir, "switchboard-bench-history-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		team := &teamRun{cfg: TeamConfig{Agents: cfg.Agents}, root: dir}
		if err := team.write(profile.KindGeneric, bareShell); err != nil {
			return nil, err
		}
		got := &res.Empty
		if long {
			got = &res.Long
			fmt.Fprintf(cfg.Progress, "history: writing %d records and %d inbox files\n", cfg.Records, cfg.InboxFiles)
			if err := writeHistory(team, cfg.Records, cfg.InboxFiles); err != nil {
				return nil, err
			}
		}
		fmt.Fprintf(cfg.Progress, "history: the master on %d records, then at rest for %s\n", map[bool]int{true: cfg.Records}[long], cfg.Rest)
		if *got, err = masterOn(ctx, cfg, team); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func (cfg HistoryConfig) withDefaults() HistoryConfig {
	if cfg.Records <= 0 {
		cfg.Records = DefaultHistoryRecords
	}
	switch {
	case cfg.InboxFiles == 0:
		cfg.InboxFiles = DefaultHistoryInboxFiles
	case cfg.InboxFiles < 0:
		cfg.InboxFiles = 0
	}
	cfg.InboxFiles = min(cfg.InboxFiles, cfg.Records)
	if cfg.Agents <= 1 {
		cfg.Agents = DefaultHistoryAgents
	}
	if cfg.Rest <= 0 {
		cfg.Rest = DefaultHistoryRest
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	return cfg
}

// check checks the numbers a person gives, as given: a zero is no default,
// and no inbox files are none.
func (cfg HistoryConfig) check() error {
	switch {
	case cfg.Records < 1:
		return want("history records", "must be positive, like 1000000")
	case cfg.InboxFiles < 0:
		return want("history inbox files", "must be 0 or more")
	case cfg.Agents < 2:
		return want("history agents", "must be at least 2")
	case cfg.Rest <= 0:
		return want("history rest", "must be positive, like 60s")
	}
	return nil
}

// writeHistory appends records of messages between the team's agents, a
// minute apart and ending now, and delivers the last inboxFiles of them,
// as the master would have.
func writeHistory(team *teamRun, records, inboxFiles int) error {
	store := mailbox.NewStore(team.root)
	store.Durable = false
	if err := os.MkdirAll(filepath.Dir(store.LogPath()), 0o755); err != nil {
		return err
	}
	// A master's workspace has its record of notices from the first start:
	// without it, a master takes the workspace for one of an older version
	// and looks through every inbox for notices to record, once.
	if _, err := store.StartNoticeMarks(); err != nil {
		return err
	}
	w, err := mailbox.OpenLogWriter(store.LogPath(), false)
	if err != nil {
		return err
	}
	start := time.Now().Add(-time.Duration(records) * time.Minute)
	for i := 1; i <= records; i++ {
		from, to := team.name(i%team.cfg.Agents+1), team.name((i+1)%team.cfg.Agents+1)
		at := start.Add(time.Duration(i) * time.Minute)
		msg := &mailbox.Message{ID: mailbox.NewID(), From: from, To: []string{to}, Title: fmt.Sprintf("message %d", i), Content: "a message of long ago"}
		msg.Normalize(at)
		rec, err := w.AppendUnsynced(mailbox.Record{Time: at, Status: mailbox.StatusDelivered, Delivered: []string{to}, Hash: mailbox.Fingerprint(msg), Message: msg})
		if err != nil {
			w.Close()
			return err
		}
		if i > records-inboxFiles {
			copy := *msg
			copy.Seq, copy.DeliveredAt = rec.Seq, rec.Time
			if _, err := store.DeliverUnsynced(to, &copy); err != nil {
				w.Close()
				return err
			}
		}
	}
	return errors.Join(w.Sync(), w.Close())
}

// masterOn starts the master in the team's workspace and times it.
func masterOn(ctx context.Context, cfg HistoryConfig, team *teamRun) (MasterOnHistory, error) {
	var got MasterOnHistory
	cmd := exec.CommandContext(ctx, cfg.Binary, "master")
	cmd.Dir = team.root
	cmd.Env = append(os.Environ(), "SWITCHBOARD_ROOT="+team.root, "SWITCHBOARD_AGENT=", "TMUX=")
	out, err := cmd.StderrPipe()
	if err != nil {
		return got, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return got, fmt.Errorf("start the master: %w", err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	running := make(chan error, 1)
	go func() {
		lines := bufio.NewScanner(out)
		said := false
		for lines.Scan() {
			if !said && strings.Contains(lines.Text(), "master running") {
				said = true
				running <- nil
			}
		}
		if !said {
			running <- errors.New("the master ended before it said it runs")
		}
	}()
	select {
	case err := <-running:
		if err != nil {
			return got, err
		}
	case <-time.After(5 * time.Minute):
		return got, errors.New("the master did not say it runs within 5 minutes")
	}
	got.Start = time.Since(start)
	if err := watch.Sleep(ctx, time.Second); err != nil {
		return got, err
	}
	store := mailbox.NewStore(team.root)
	from, to := team.name(1), team.name(2)
	msg := &mailbox.Message{From: from, To: []string{to}, Title: "after the start"}
	msg.Normalize(time.Now())
	posted := time.Now()
	if _, err := store.Post(from, msg); err != nil {
		return got, err
	}
	if !watch.Until(ctx, 2*time.Millisecond, time.Minute, func() bool {
		names, _ := store.UnreadNames(to)
		return slices.ContainsFunc(names, func(name string) bool { return strings.HasSuffix(name, "_"+msg.ID+".json") })
	}) {
		return got, errors.New("the message posted after the start was not delivered within a minute")
	}
	got.Delivery = time.Since(posted)
	pid := cmd.Process.Pid
	if got.RSS, err = residentBytes(pid); err != nil {
		return got, err
	}
	if err := watch.Sleep(ctx, min(historySettle, cfg.Rest)); err != nil {
		return got, err
	}
	if _, ok := workspace.New(team.root).MasterRunning(); !ok {
		return got, errors.New("the master stopped")
	}
	cpu, err := cpuPercent(ctx, cfg.Rest, pid)
	if err != nil {
		return got, err
	}
	got.Rest = cpu[0]
	got.RestRSS, err = residentBytes(pid)
	return got, err
}
