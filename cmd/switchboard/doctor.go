package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"switchboard/conversation"
	"switchboard/internal/safetext"
	"switchboard/internal/tmux"
	"switchboard/internal/watch"
	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/master"
	"switchboard/profile"
	"switchboard/rules"
	"switchboard/workspace"
)

// finding is one line of doctor: ok, a note (worth knowing, nothing
// broken), or something to fix, with what to do.
type finding struct {
	Check  string `json:"check"`
	Level  string `json:"level"` // ok, note or fix
	Detail string `json:"detail"`
}

const (
	levelOK   = "ok"
	levelNote = "note"
	levelFix  = "fix"
)

// versionTimeout bounds how long an agent client gets to say its version.
const versionTimeout = 5 * time.Second

// hookSilence is how long after up a client with hooks may stay silent
// before doctor says its hooks do not run.
const hookSilence = time.Minute

func newDoctorCmd(io *streams, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check what the team needs: tmux, the rules, each agent's program and hooks, the master",
		Long: `Check, one line each, what a team needs: tmux and its version, switchboard
on your PATH, the workspace and its rules, the master, the inotify limits, and
for each agent its program (with the version of Claude Code, Codex CLI or
Gemini CLI) and, while the team runs, whether its hooks report; in a team
across machines, whether the hub takes this host. Each line says
ok, note (worth knowing) or fix, with what to do. Exits 1 when something needs
fixing.`,
		Example: `  switchboard doctor
  switchboard doctor --json`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			findings := diagnose(cmd.Context(), g)
			staged := stagedHere(g)
			for i := range findings {
				findings[i].Detail = runnable(findings[i].Detail, staged)
			}
			if g.json {
				if err := writeJSON(io.out, findings); err != nil {
					return err
				}
			} else {
				for _, f := range findings {
					fmt.Fprintf(io.out, "%-4s  %-16s %s\n", f.Level, f.Check, f.Detail)
				}
			}
			for _, f := range findings {
				if f.Level == levelFix {
					return exitWith(exitError)
				}
			}
			return nil
		},
	}
}

// diagnose runs every check it can: a check that cannot run for want of an
// earlier one (no workspace, no rules) is left out.
func diagnose(ctx context.Context, g *globals) []finding {
	var out []finding
	add := func(check, level, format string, args ...any) {
		out = append(out, finding{Check: check, Level: level, Detail: fmt.Sprintf(format, args...)})
	}
	if v, err := tmux.Version(ctx); err != nil {
		add("tmux", levelFix, "not installed: install it (apt-get install tmux, or brew install tmux)")
	} else {
		add("tmux", levelOK, "%s", v)
	}
	if onPath, err := exec.LookPath("switchboard"); err != nil {
		add("switchboard", levelNote, "%s; not on your PATH: %s%s", version(), installHint(), goBinOnPath())
	} else {
		add("switchboard", levelOK, "%s (%s)", version(), onPath)
	}

	ws, err := findWorkspace(g)
	if err != nil {
		add("workspace", levelFix, "%v", withHint(err))
		return out
	}
	add("workspace", levelOK, "%s", ws.Root)
	r, rulesErr := rules.LoadTeam(ws)
	if rulesErr != nil {
		add("rules", levelFix, "%v", rulesErr)
	} else {
		detail := fmt.Sprintf("%s valid: %d agents and the operator", rules.FileName, r.AgentCount())
		if w := r.Warnings(); len(w) > 0 {
			add("rules", levelNote, "%s; warning: %s", detail, strings.Join(w, "; warning: "))
		} else {
			add("rules", levelOK, "%s", detail)
		}
		if loops := r.ParentLoops(); len(loops) > 0 {
			add("spawned", levelFix, "%s", parentLoopError(ws, loops))
		}
	}

	if hubFinding := checkHub(ctx, ws); hubFinding.Check != "" {
		out = append(out, hubFinding)
	}

	running := false
	if pid, ok := ws.MasterRunning(); ok {
		running = true
		add("master", levelOK, "running (pid %d)", pid)
	} else {
		add("master", levelNote, "not running: `switchboard up` starts it with the team")
	}
	if rulesErr != nil {
		return out // the agents are the rules' to name
	}
	if watches, instances, ok := watch.InotifyLimits(); ok {
		need := master.Watches(len(r.Agents()))
		if watches < need || instances < 8 {
			add("inotify", levelFix, "%d watches and %d instances per user; the master needs %d watches and a few instances: raise them (sudo sysctl fs.inotify.max_user_watches=%d fs.inotify.max_user_instances=128)", watches, instances, need, max(need*4, 8192))
		} else {
			add("inotify", levelOK, "%d watches and %d instances per user; the master needs %d watches", watches, instances, need)
		}
	}

	team, _, err := profile.Team(ws, r.Agents())
	if err != nil {
		add("profiles", levelFix, "%v", err)
		return out
	}
	session, up, _ := lifecycle.LoadSession(ws)
	vars := profile.DefaultVars(ws.Root)
	elsewhere := otherHosts(ws)
	for _, p := range team {
		if host, ok := elsewhere[p.Name]; ok {
			add(p.Name, levelOK, "%s", host)
			continue
		}
		level, detail := agentFinding(ctx, ws, p, vars, running && up, session)
		add(p.Name, level, "%s", detail)
	}
	if stray, err := lifecycle.StrayPanes(ctx, ws); err == nil {
		for _, p := range stray {
			add("panes", levelFix, "pane %s (window %q) runs %s, which the team does not list: `switchboard down` ends it with the team", p.ID, p.Window, p.Agent)
		}
	}
	return out
}

// otherHosts are the agents another host of a team across machines runs,
// with a word of where, for a workspace that joined a hub: this host's
// doctor checks none of their programs or hooks, which are not here.
func otherHosts(ws *workspace.Workspace) map[string]string {
	here, joined, err := ws.ReadHubHost()
	if err != nil || !joined {
		return nil
	}
	hosted, err := profile.Hosted(ws)
	if err != nil {
		return nil
	}
	where := make(map[string]string)
	team, _, _ := ws.ReadHubTeam()
	for _, m := range team.Members {
		if !hosted[m.Agent] && m.Host != "" && m.Host != here.Host {
			where[m.Agent] = "runs on host " + m.Host + ", not checked here"
		}
	}
	r, err := rules.LoadTeam(ws)
	if err != nil {
		return where
	}
	for _, agent := range r.Agents() {
		if _, ok := where[agent]; !ok && !hosted[agent] && agent != mailbox.Operator {
			where[agent] = "not one of this host's agents (its profile is on another host), not checked here"
		}
	}
	return where
}

// agentFinding checks one agent: its program, and while the team runs,
// whether its hooks report.
func agentFinding(ctx context.Context, ws *workspace.Workspace, p *profile.Profile, vars profile.Vars, teamUp bool, session *lifecycle.Session) (string, string) {
	expanded, err := p.Expand(vars)
	if err != nil {
		return levelFix, err.Error()
	}
	if len(expanded.Command) == 0 {
		return levelOK, "a shell, for a person"
	}
	program := expanded.Command[0]
	path, err := exec.LookPath(program)
	if err != nil {
		detail := fmt.Sprintf("%s is not installed, so up runs a shell for it", program)
		if pkg := profile.NpmPackage(expanded.Kind); pkg != "" && filepath.Base(program) == expanded.Kind {
			detail += "; install it with `npm install -g " + pkg + "`"
		} else if p.Path != "" {
			detail += "; fix the command in " + relativeTo(ws.Root, p.Path)
		}
		return levelNote, detail
	}
	detail := expanded.Kind + ": " + path
	if profile.NpmPackage(expanded.Kind) != "" {
		if v := programVersion(ctx, path); v != "" {
			detail = fmt.Sprintf("%s %s (%s)", expanded.Kind, v, path)
		}
	}
	if !teamUp {
		return levelOK, detail
	}
	st, ok, err := conversation.Of(ws.Store).State(p.Name)
	switch {
	case err != nil || !ok:
		return levelOK, detail
	case st.State == conversation.Exited:
		how := "exited"
		if st.ExitStatus != nil {
			how = fmt.Sprintf("exited with status %d", *st.ExitStatus)
		}
		fix := "look at its pane (`switchboard attach`)"
		if p.Path != "" {
			fix += ", fix the command in " + relativeTo(ws.Root, p.Path) + " if it is wrong, then `switchboard down` and `switchboard up`"
		}
		return levelFix, fmt.Sprintf("%s; its program %s: %s", detail, how, fix)
	case profile.NpmPackage(expanded.Kind) == "":
		return levelOK, detail
	case st.Source == conversation.SourceHook:
		return levelOK, fmt.Sprintf("%s; its hooks report: %s since %s", detail, st.State, st.Since.Local().Format("15:04:05"))
	case session != nil && time.Since(session.Started) > hookSilence:
		return levelFix, fmt.Sprintf("%s; no hook of it has reported since the team came up at %s: its client does not run the hooks switchboard wired (see `switchboard hooks install --kind %s --agent %s`)", detail, session.Started.Local().Format("15:04:05"), expanded.Kind, p.Name)
	}
	return levelOK, detail
}

// programVersion is the first line an agent client prints for --version,
// or "" when it says nothing in time.
func programVersion(ctx context.Context, path string) string {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

func relativeTo(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// checkHub says whether the hub of a team across machines takes this host's
// credentials, and which agents of the team it shows unreachable.
func checkHub(ctx context.Context, ws *workspace.Workspace) finding {
	s, joined, err := ws.Hub()
	stray := ""
	if _, serr := os.Lstat(ws.StrayHubFile()); serr == nil {
		stray = fmt.Sprintf("%s holds settings for a hub that this workspace does not join: they came with the folder, or from an earlier version, and are never used (a workspace joins a hub only by your own up --hub); remove it: rm %s",
			relativeTo(ws.Root, ws.StrayHubFile()), safetext.ShellWord(ws.StrayHubFile()))
	}
	switch {
	case err != nil:
		return finding{Check: "hub", Level: levelFix, Detail: err.Error()}
	case !joined && stray != "":
		return finding{Check: "hub", Level: levelNote, Detail: "this workspace joins no hub; " + stray}
	case !joined:
		return finding{}
	}
	// The credentials are tried by switchboard-link, the program that
	// speaks NATS, which the master of this host runs in too.
	program, err := findProgram(linkProgram)
	if err != nil {
		return finding{Check: "hub", Level: levelFix, Detail: fmt.Sprintf("host %s: its master is a program of its own, and %v", s.Host, err)}
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	said, err := exec.CommandContext(ctx, program, "check", "--root", ws.Root).Output()
	if err != nil {
		why := strings.TrimSpace(safetext.Text(string(said)))
		if why == "" {
			why = fmt.Sprintf("%s could not check: %v", program, err)
		}
		path, _ := ws.HubFile()
		return finding{Check: "hub", Level: levelFix, Detail: fmt.Sprintf("host %s: %s (its settings: %s)", s.Host, why, path)}
	}
	detail := fmt.Sprintf("host %s of team %s reaches the hub at %s", s.Host, cmp.Or(s.Team, "main"), withoutPassword(s.URL))
	level := levelOK
	if team, ok, _ := ws.ReadHubTeam(); ok {
		var fixes, notes []string
		if stray != "" {
			notes = append(notes, stray)
		}
		if team.Trouble != "" {
			fixes = append(fixes, "its master cannot take its mail: "+safetext.Line(team.Trouble))
		}
		if team.BacklogLimit > 0 && 2*team.Backlog >= team.BacklogLimit {
			fixes = append(fixes, fmt.Sprintf("degraded: %d copies from the hub wait unacknowledged, of the %d it allows before it hands this host no more (the master's window says why)", team.Backlog, team.BacklogLimit))
		}
		if team.Stale(time.Now()) {
			fixes = append(fixes, fmt.Sprintf("the master last heard from the hub at %s, %s ago: is it running, and can it reach the hub? (its window says why)",
				team.At.Local().Format("15:04:05"), time.Since(team.At).Round(time.Second)))
		}
		var away []string
		for _, m := range team.Members {
			if !m.Reachable {
				away = append(away, m.Agent+" on "+m.Host)
			}
		}
		if len(away) > 0 {
			notes = append(notes, "unreachable: "+strings.Join(away, ", "))
		}
		for _, name := range slices.Sorted(maps.Keys(team.Refused)) {
			notes = append(notes, fmt.Sprintf("helper %s of another host not taken in: %s", name, safetext.Line(team.Refused[name])))
		}
		if counts, err := ws.Store.HubRefused().Counts(); err == nil {
			for _, host := range slices.Sorted(maps.Keys(counts)) {
				c := counts[host]
				notes = append(notes, fmt.Sprintf("%d copies from host %s refused, the last at %s: %s (notes in %s)",
					c.Copies, safetext.Line(host), c.Last.Local().Format("2006-01-02 15:04"), safetext.Line(c.LastReason), relativeTo(ws.Root, ws.Store.HubRefused().Dir())))
			}
		}
		switch {
		case len(fixes) > 0:
			level = levelFix
		case len(notes) > 0:
			level = levelNote
		}
		for _, part := range append(fixes, notes...) {
			detail += "; " + part
		}
	}
	return finding{Check: "hub", Level: level, Detail: detail}
}
