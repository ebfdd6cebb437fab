package master

import (
	"fmt"
	"strings"

	"switchboard/rules"
)

// maxChangedPairs is how many changed pairs a report of new rules lists.
const maxChangedPairs = 20

// reportRulesChange tells the overseers that the rules file changed and was
// loaded, and which pairs of agents it opened or closed: an agent that can
// write the file can rewrite its own lanes, and this makes it seen.
func (m *Master) reportRulesChange(before, after *rules.Rules, version string) {
	var opened, closed []string
	for _, from := range after.Agents() {
		for _, to := range after.Agents() {
			if from == to || !before.Knows(from) || !before.Knows(to) {
				continue
			}
			was, is := before.Decide(from, to).Allowed, after.Decide(from, to).Allowed
			switch {
			case is && !was:
				opened = append(opened, from+" → "+to)
			case was && !is:
				closed = append(closed, from+" → "+to)
			}
		}
	}
	var added []string
	for _, a := range after.Agents() {
		if !before.Knows(a) {
			added = append(added, a)
		}
	}
	if len(opened)+len(closed)+len(added) == 0 {
		return // reworded, reordered: no lane changed
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s was changed and loaded.\n", after.Path)
	list := func(what string, pairs []string) {
		if len(pairs) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s:\n", what)
		for i, p := range pairs {
			if i == maxChangedPairs {
				fmt.Fprintf(&b, "  and %d more\n", len(pairs)-i)
				break
			}
			fmt.Fprintf(&b, "  %s\n", p)
		}
	}
	list("Now allowed", opened)
	list("Now blocked", closed)
	list("New agents", added)
	b.WriteString("\nIf no one of you meant it, an agent may have edited the file: `switchboard rules explain FROM TO` shows what decides a pair.\n")
	var parts []string
	for _, c := range []struct {
		n         int
		one, many string
	}{{len(opened), "pair opened", "pairs opened"}, {len(closed), "pair closed", "pairs closed"}, {len(added), "agent added", "agents added"}} {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.one)
		case c.n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.many))
		}
	}
	title := "RULES CHANGED: " + strings.Join(parts, ", ")
	if len(opened) == 1 && len(closed)+len(added) == 0 {
		title = "RULES CHANGED: " + opened[0] + " is now allowed"
	}
	if len(opened)+len(added) > 0 {
		// More may pass than before: every agent's hook shows it.
		m.warnOnBulletin(title + " (" + m.ws.RulesPath() + " was edited)")
	}
	told := m.tellOverseers("rules/"+version, title, b.String(), m.now().UTC())
	m.logf("%s; told %s", title, strings.Join(told, ", "))
}
