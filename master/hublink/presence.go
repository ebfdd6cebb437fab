package hublink

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"switchboard/bulletin"
	"switchboard/conversation"
	"switchboard/hub"
	"switchboard/rules"
	"switchboard/workspace"
)

// present keeps this host's agents and their states on the hub, and the
// whole team, as the hub shows it, in the workspace for the commands that
// list the team; it looks every beat, and at once when asked (lookNow).
func (l *Link) present(ctx context.Context, conn *hub.Conn) {
	tick := time.NewTicker(hub.Heartbeat)
	defer tick.Stop()
	announced := make(map[string]string) // the states the hub has, by agent
	var readStates time.Time
	for {
		l.claimHosted(ctx, conn)
		// The states are read when the master saw one change, and else
		// only as often as statesAgain, in case an event was lost.
		if l.statesDue.Swap(false) || unannounced(conn.Agents(), announced) || time.Since(readStates) >= statesAgain {
			readStates = time.Now()
			l.announce(ctx, conn, announced)
		}
		if members, err := conn.Team(ctx); err == nil {
			l.writeTeam(ctx, conn, members)
		}
		if values, err := conn.Values(ctx); err == nil && l.mirrorDue(values) {
			l.mirrorState(values)
			l.mirrorBoard(values[bulletin.BoardKey])
		}
		select {
		case <-ctx.Done():
			l.leave(conn)
			return
		case <-tick.C:
		case <-l.look:
		case <-conn.Changed():
		}
	}
}

// unannounced reports whether one of agents has no state the hub has:
// just claimed, or told of before a failure.
func unannounced(agents []string, announced map[string]string) bool {
	for _, a := range agents {
		if _, ok := announced[a]; !ok {
			return true
		}
	}
	return false
}

// statesAgain is how often presence reads the agents' states when the
// master saw none change.
const statesAgain = time.Minute

// leaveTimeout bounds the last word of a host that stops.
const leaveTimeout = 2 * time.Second

// leave tells the hub, as this host's master stops, that its agents left
// the team on purpose: the other hosts show them "left" at once, not as
// they were until the heartbeat lapses and then "unreachable". A host that
// lost the hub, or is killed, cannot say it: its agents go unreachable.
func (l *Link) leave(conn *hub.Conn) {
	if conn.LostErr() != nil {
		return
	}
	var states []hub.AgentState
	for _, a := range conn.Agents() {
		states = append(states, hub.AgentState{Agent: a, State: conversation.Left})
	}
	ctx, cancel := context.WithTimeout(context.Background(), leaveTimeout)
	defer cancel()
	if err := conn.Announce(ctx, states); err != nil {
		l.logf("cannot tell the hub that this host's agents left: %v", err)
	}
}

// announce tells the hub the states of this host's agents that changed
// since it last told it: a team at rest sends nothing but its heartbeat.
func (l *Link) announce(ctx context.Context, conn *hub.Conn, announced map[string]string) {
	var states []hub.AgentState
	book := conversation.Of(l.ws.Store)
	for _, a := range conn.Agents() {
		state, _ := l.states.Get(book.StatePath(a), func() (string, error) {
			if st, ok, _ := book.State(a); ok {
				return st.State, nil
			}
			return "down", nil
		})
		if was, ok := announced[a]; !ok || was != state {
			states = append(states, hub.AgentState{Agent: a, State: state})
		}
	}
	if len(states) == 0 {
		return
	}
	if err := conn.Announce(ctx, states); err != nil {
		if ctx.Err() == nil {
			l.logf("cannot tell the hub the states of this host's agents: %v", err)
		}
		clear(announced) // all again at the next beat
		return
	}
	for _, s := range states {
		announced[s.Agent] = s.State
	}
}

// claimHosted tells the hub which agents this host runs, when that
// changed: the agents of its profiles, and the helpers spawned here.
func (l *Link) claimHosted(ctx context.Context, conn *hub.Conn) {
	agents := slices.Sorted(maps.Keys(l.refresh(false)))
	if slices.Equal(agents, conn.Agents()) {
		return
	}
	if err := conn.SetAgents(ctx, agents, l.origins()); err != nil && ctx.Err() == nil {
		l.logf("cannot tell the hub this host's agents (%v): %v", agents, err)
	}
}

// mirrorAgain is how often the team's shared values are copied into this
// host's bulletin when they did not change: what a hand changed there is
// put right.
const mirrorAgain = time.Minute

// mirrorDue tells whether the shared values are to be copied into the
// bulletin: they changed since the last copy, or that is mirrorAgain old.
func (l *Link) mirrorDue(values map[string][]byte) bool {
	if maps.EqualFunc(values, l.mirrored, bytes.Equal) && time.Since(l.mirroredAt) < mirrorAgain {
		return false
	}
	l.mirrored, l.mirroredAt = values, time.Now()
	return true
}

// mirrorState copies the team's shared state, of the team's shared values,
// into this host's bulletin, which the agents' hooks show.
func (l *Link) mirrorState(values map[string][]byte) {
	shared := hub.StateOf(values)
	store := bulletin.Of(l.ws)
	local, err := store.ReadState()
	if err != nil {
		return
	}
	for key, value := range shared {
		if !json.Valid(value) || bytes.Equal(local[key], value) {
			continue
		}
		if err := store.SetState(key, value); err != nil {
			l.logf("cannot keep the shared value %q of the team here: %v", key, err)
		}
	}
}

// mirrorBoard copies the team's board (status, phase, the overseers'
// warnings) into this host's bulletin, when it changed.
func (l *Link) mirrorBoard(data []byte) {
	if data == nil {
		return // none set yet: the bulletin stays
	}
	var board bulletin.Board
	if json.Unmarshal(data, &board) != nil {
		return
	}
	store := bulletin.Of(l.ws)
	if b, err := store.Read(); err != nil || !b.WouldChange(board) {
		return
	}
	if err := store.Update(func(b *bulletin.Bulletin) error { b.SetBoard(board); return nil }); err != nil {
		l.logf("cannot show the team's board in this host's bulletin: %v", err)
	}
}

// writeTeam keeps the team as the hub shows it, with what this host makes
// of it: the helpers other hosts spawned that its rules take in (the rules
// reload when those change), how much mail waits unacknowledged, and why
// mail does not flow, if it does not.
func (l *Link) writeTeam(ctx context.Context, conn *hub.Conn, members []hub.Member) {
	team := workspace.HubTeam{Host: l.settings.Host}
	for _, m := range members {
		team.Members = append(team.Members, workspace.HubMember{Agent: m.Agent, Host: m.Host, State: m.State, Reachable: m.Reachable,
			Profile: m.Profile, Parent: m.Parent})
	}
	l.mu.Lock()
	team.Trouble = l.trouble
	l.mu.Unlock()
	team.Backlog, team.BacklogLimit = l.watchBacklog(ctx, conn)
	verdicts, judged := l.judge(team)
	if judged {
		team.Refused = verdicts.refused
	}
	// The team of a thousand agents is written when it changed, and else
	// only touched: readers take its age from the file (HubTeamFresh).
	if l.wroteTeam != nil && sameTeam(*l.wroteTeam, team) {
		if err := l.ws.TouchHubTeam(); err == nil {
			return
		}
	}
	if err := l.ws.WriteHubTeam(team); err != nil {
		l.wroteTeam = nil
		l.logf("cannot keep the team's hosts: %v", err)
		return
	}
	l.wroteTeam = &team
	if !judged {
		return
	}
	before, err := l.ws.HubSpawned()
	if err == nil && sameSpawned(before, verdicts.admitted) {
		return
	}
	if err := l.ws.WriteHubSpawned(verdicts.admitted); err != nil {
		l.logf("cannot keep the agents other hosts spawned: %v", err)
		return
	}
	l.env.RulesChanged()
}

// sameTeam reports whether two teams would be written alike.
func sameTeam(a, b workspace.HubTeam) bool {
	return a.Host == b.Host && a.Trouble == b.Trouble && a.Backlog == b.Backlog && a.BacklogLimit == b.BacklogLimit &&
		slices.Equal(a.Members, b.Members) && maps.Equal(a.Refused, b.Refused)
}

// judge decides on the helpers other hosts announced, under the rules file
// as it is (judged is false when it does not load: the last verdicts
// stand), and tells the overseers of each refused, once.
func (l *Link) judge(team workspace.HubTeam) (v spawnVerdicts, judged bool) {
	of := l.stamp(false)
	for _, m := range team.Members {
		if m.Host != team.Host && m.Profile != "" {
			of += "\x00" + m.Agent + "@" + m.Host + "/" + m.Profile + "/" + m.Parent
		}
	}
	if of == l.judgedOf {
		return l.verdicts, true
	}
	data, err := rules.ReadFile(l.ws.RulesPath())
	if err != nil {
		return v, false
	}
	file, err := rules.Parse(l.ws.RulesPath(), data)
	if err != nil {
		return v, false
	}
	local, err := l.ws.Spawned()
	if err != nil {
		return v, false
	}
	hosted := l.refresh(false)
	v = judgeSpawned(file, local, func(agent string) bool { return hosted[agent] }, team)
	l.verdicts, l.judgedOf = v, of
	l.mu.Lock()
	l.judged = maps.Clone(v.refused)
	l.mu.Unlock()
	hostOf := make(map[string]workspace.HubMember, len(team.Members))
	for _, m := range team.Members {
		hostOf[m.Agent] = m
	}
	for _, name := range v.refusedNames() {
		m := hostOf[name]
		l.note("hub-spawned/"+m.Host+"/"+name+"/"+m.Profile+"/"+m.Parent,
			fmt.Sprintf("REFUSED: host %s's helper %s", m.Host, name),
			fmt.Sprintf("Host %s announced %s, spawned from profile %s under %s. This host's rules do not take it in: %s.\n"+
				"Mail from %s is refused here, and nothing of this host's rules changes because of it. "+
				"If host %s did not mean it, it may be running code that is not its own.\n",
				m.Host, name, m.Profile, m.Parent, v.refused[name], name, m.Host))
	}
	return v, true
}

// backlogShare is the part of its limit of unacknowledged copies at which
// this host shows degraded: a little more, and the hub would hand it no
// more mail.
const backlogShare = 2

// watchBacklog reads how many copies the hub handed this host that it has
// not acknowledged, and marks the bulletin degraded while that nears the
// hub's limit.
func (l *Link) watchBacklog(ctx context.Context, conn *hub.Conn) (pending, limit int) {
	pending, limit, err := conn.Backlog(ctx)
	if err != nil {
		return 0, 0
	}
	near := limit > 0 && pending*backlogShare >= limit
	if l.backlogMarked != nil && *l.backlogMarked == near {
		return pending, limit // as the bulletin says already: not read again
	}
	store := bulletin.Of(l.ws)
	b, err := store.Read()
	if err != nil {
		return pending, limit
	}
	if near == b.DegradedFor(bulletin.TopicHub) {
		l.backlogMarked = &near
		return pending, limit
	}
	err = store.Update(func(b *bulletin.Bulletin) error {
		if near {
			l.backlogWas = b.Degrade(bulletin.TopicHub, fmt.Sprintf("%d copies from the hub wait unacknowledged on this host, of the %d the hub allows; `switchboard doctor` says more", pending, limit), time.Now().UTC())
		} else {
			b.Recover(bulletin.TopicHub, cmp.Or(l.backlogWas, bulletin.DefaultStatus))
		}
		return nil
	})
	if err != nil {
		l.logf("cannot mark the bulletin about the hub's backlog: %v", err)
		return pending, limit
	}
	l.backlogMarked = &near
	return pending, limit
}
