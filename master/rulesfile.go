package master

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"switchboard/bulletin"
	"switchboard/internal/watch"
	"switchboard/rules"
)

// Rules come only from a whole file. An editor that writes the file in
// place (vim with backupcopy=yes, cat > file) leaves it empty, then
// half-written, for a moment: loaded then, a half file may lack the
// forbidden entries that follow, and let forbidden mail through. So a new
// version of the file is loaded only once it has stood unchanged for the
// settle time (Options.RulesSettle) and two reads, one at each end of it,
// agree; until then the master routes by the rules in force. A version
// that does not load is refused, and the overseers and the bulletin are
// told, once for each version. The registry of spawned agents, which
// switchboard itself writes whole, takes effect at once, under the rules
// file in force.
//
// The master keeps a copy of the file it routes by (the workspace's
// LoadedRulesPath): commands that only read go on from it while the file
// is broken, and a master started while the file is being written starts
// from it.

// rulesFile is the rules file as the master follows it. It is used by the
// master's loop alone.
type rulesFile struct {
	loaded     []byte // the content the rules in force came from
	loadedFrom string // the file it was read from: the rules file, or the kept copy
	spawned    string // the stamp of the registry of spawned agents in force

	// A newer version, read at since with this stamp, that has not stood
	// still long enough yet; readErr is why it could not be read, if so.
	waiting bool
	pending []byte
	readErr error
	stamp   string
	since   time.Time

	refused string // the hash of the version refused last: told once
}

// loadRulesAtStart loads the rules the master starts with: the file's,
// unless it differs from the copy the last master kept (it was edited while
// no master ran, or is being written now); then the kept copy's, until
// settleRulesAtStart has seen the file stand still.
func (m *Master) loadRulesAtStart() error {
	f := &m.rulesFile
	f.spawned = m.spawnedStamp()
	data, err := rules.ReadFile(m.ws.RulesPath())
	if kept, ok := m.ws.ReadLoadedRules(); ok && (err != nil || !bytes.Equal(data, kept)) {
		if r, kerr := rules.ParseTeam(m.ws, m.ws.LoadedRulesPath(), kept); kerr == nil {
			m.rules, f.loaded, f.loadedFrom = r, kept, m.ws.LoadedRulesPath()
			m.shared.Store(r)
			return nil
		}
	}
	if err != nil {
		return err
	}
	r, err := rules.ParseTeam(m.ws, m.ws.RulesPath(), data)
	if err != nil {
		return err
	}
	m.rules, f.loaded, f.loadedFrom = r, data, m.ws.RulesPath()
	m.shared.Store(r)
	return nil
}

// settleRulesAtStart, before anything is routed, loads a rules file that
// changed while no master ran, once it has stood still for the settle
// time: the person who edited the rules and started the master has them in
// force at once, and a file being written as the master starts is not
// loaded half-written. A file that does not stand still, or does not load,
// is left to the reload, which refuses or loads it in time.
func (m *Master) settleRulesAtStart(ctx context.Context) {
	f := &m.rulesFile
	stamp := watch.FileStamp(m.ws.RulesPath())
	data, err := rules.ReadFile(m.ws.RulesPath())
	if err == nil && bytes.Equal(data, f.loaded) {
		return
	}
	defer m.work.markRules()
	if err != nil || watch.Sleep(ctx, m.opts.RulesSettle) != nil {
		return
	}
	again, err := rules.ReadFile(m.ws.RulesPath())
	if err != nil || !bytes.Equal(again, data) || watch.FileStamp(m.ws.RulesPath()) != stamp {
		return
	}
	if _, err := rules.ParseTeam(m.ws, m.ws.RulesPath(), data); err == nil {
		m.applyRules(data, m.spawnedStamp(), true)
	}
}

// keepLoadedRules records the rules file in force for the commands that
// read while the file is broken, and for the next master.
func (m *Master) keepLoadedRules() {
	if kept, ok := m.ws.ReadLoadedRules(); ok && bytes.Equal(kept, m.rulesFile.loaded) {
		return
	}
	if err := m.ws.KeepLoadedRules(m.rulesFile.loaded); err != nil {
		m.logf("%v; commands cannot fall back on these rules while the file is broken", err)
		m.noteFull(err)
	}
}

// spawnedStamp stamps the registries of spawned agents: this host's, and
// the one of the agents other hosts spawned.
func (m *Master) spawnedStamp() string {
	return watch.FileStamp(m.ws.SpawnedFile()) + "+" + watch.FileStamp(m.ws.HubSpawnedFile())
}

// reloadRules follows a change of the rules file or of the registries of
// spawned agents.
func (m *Master) reloadRules() {
	f := &m.rulesFile
	spawned := m.spawnedStamp()
	stamp := watch.FileStamp(m.ws.RulesPath())
	data, readErr := rules.ReadFile(m.ws.RulesPath())
	if readErr == nil && bytes.Equal(data, f.loaded) {
		f.waiting = false // an edit undone, or an event that changed nothing
		m.rulesAccepted()
		if spawned != f.spawned {
			m.applyRules(f.loaded, spawned, false)
		}
		return
	}
	now := time.Now()
	if !f.waiting || stamp != f.stamp || !bytes.Equal(data, f.pending) || (readErr == nil) != (f.readErr == nil) {
		// A new version, perhaps half-written: look again once it could
		// have stood still for the settle time. Helpers spawned meanwhile
		// join under the rules in force.
		f.waiting, f.pending, f.readErr, f.stamp, f.since = true, data, readErr, stamp, now
		time.AfterFunc(m.opts.RulesSettle, m.work.markRules)
		if spawned != f.spawned {
			m.applyRules(f.loaded, spawned, false)
		}
		return
	}
	if wait := m.opts.RulesSettle - now.Sub(f.since); wait > 0 {
		time.AfterFunc(wait, m.work.markRules)
		return
	}
	// Unchanged for the settle time, and read alike at both ends: whole.
	f.waiting = false
	if readErr != nil {
		m.refuseRules(data, readErr)
		return
	}
	m.applyRules(data, spawned, true)
}

// applyRules makes the rules from data (the rules file's contents) and the
// registry of spawned agents the rules in force, when they load; with
// fileChanged, data is a new version of the file.
func (m *Master) applyRules(data []byte, spawned string, fileChanged bool) {
	f := &m.rulesFile
	path := f.loadedFrom
	if fileChanged {
		path = m.ws.RulesPath()
	}
	r, err := rules.ParseTeam(m.ws, path, data)
	if err != nil {
		if fileChanged {
			m.refuseRules(data, err)
		} else {
			m.logf("the registry of spawned agents did not load, keeping the team as it was: %v", err)
		}
		return
	}
	before, old := len(m.watched), m.rules
	m.rules, f.spawned = r, spawned
	m.shared.Store(r)
	if fileChanged {
		f.loaded, f.loadedFrom = data, path
		m.keepLoadedRules()
		m.rulesAccepted()
	}
	if err := m.syncAgents(); err != nil {
		m.logf("rules reloaded, but a new mailbox failed: %v", err)
		return
	}
	m.logf("rules reloaded: %d agents and the operator (%d new)", r.AgentCount(), len(m.watched)-before)
	if fileChanged {
		m.reportRulesChange(old, r, hashOf(data))
	}
}

// refuseRules keeps the rules in force against a version of the file that
// does not load, and tells the master's log, the overseers and the
// bulletin, once for each version.
func (m *Master) refuseRules(data []byte, why error) {
	hash := hashOf(data)
	if hash == m.rulesFile.refused {
		return
	}
	m.rulesFile.refused = hash
	m.logf("rules not reloaded, keeping the old ones: %v", why)
	title := "RULES REFUSED: " + rules.FileName + " does not load; the old rules stay"
	content := fmt.Sprintf("A new version of %s does not load:\n  %v\n\n"+
		"The master routes by the rules it had until a version that loads has stood unchanged for %s.\n"+
		"Commands that only read (log, show, inbox, read, agents, status) go on from the rules in force; send and up refuse until it is fixed.\n"+
		"`switchboard rules check` says what is wrong, and when it is fixed.\n", m.ws.RulesPath(), strings.ReplaceAll(why.Error(), "\n", "\n  "), m.opts.RulesSettle)
	told := m.tellOverseers("rules-refused/"+hash, title, content, m.now().UTC())
	m.warnOnBulletin(fmt.Sprintf("rules refused, the old ones stay: %v", why))
	if len(told) > 0 {
		m.logf("%s; told %s", title, strings.Join(told, ", "))
	}
}

// rulesAccepted takes back the bulletin's warning of a refused version,
// once a version loads, or the file is back to the one in force.
func (m *Master) rulesAccepted() {
	if m.rulesFile.refused == "" {
		return
	}
	m.rulesFile.refused = ""
	m.clearBulletinWarning()
}

// warnOnBulletin puts switchboard's warning about the rules on the
// bulletin, where every agent's hook shows it.
func (m *Master) warnOnBulletin(text string) {
	err := bulletin.Of(m.ws).Update(func(b *bulletin.Bulletin) error {
		b.SetSystemWarning(bulletin.TopicRules, text, m.now().UTC())
		return nil
	})
	if err != nil {
		m.logf("cannot warn on the bulletin: %v", err)
		m.noteFull(err)
	}
}

// clearBulletinWarning takes switchboard's warning about the rules off the
// bulletin.
func (m *Master) clearBulletinWarning() {
	err := bulletin.Of(m.ws).Update(func(b *bulletin.Bulletin) error {
		b.ClearSystemWarning(bulletin.TopicRules)
		return nil
	})
	if err != nil {
		m.logf("cannot update the bulletin: %v", err)
		m.noteFull(err)
	}
}

// hashOf names a version of a file by its content.
func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}
