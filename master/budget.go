package master

import (
	"fmt"
	"slices"

	"switchboard/desk"
	"switchboard/mailbox"
)

// overBudget reports whether the agent's client spent more today than its
// profile's budget allows.
func (m *Master) overBudget(agent string) (bool, string, error) {
	d := desk.New(m.ws, m.shared.Load(), mailbox.Operator)
	over, detail, err := d.OverBudget(agent, m.now())
	if err == nil && !over {
		// A mark left from before (a master started again, a new day)
		// goes with the check that finds it within its budget.
		if err := d.MarkOverBudget(agent, ""); err != nil {
			m.logf("cannot mark %s's budget: %v", agent, err)
		}
	}
	return over, detail, err
}

// budgetChanged marks an agent over its budget, or back within it, for
// agents, the console and the web view; going over tells its parent, the
// overseers and the person, once a day.
func (m *Master) budgetChanged(agent string, over bool, detail string) {
	mark := ""
	if over {
		mark = detail
	}
	if err := desk.New(m.ws, m.shared.Load(), mailbox.Operator).MarkOverBudget(agent, mark); err != nil {
		m.logf("cannot mark %s's budget: %v", agent, err)
	}
	if !over {
		m.logf("%s is within its budget again: its notices go", agent)
		return
	}
	m.logf("%s is over its budget (%s): its notices are held", agent, detail)
	at := m.now().UTC()
	// Once a day: the budget's own, since local midnight.
	key := fmt.Sprintf("over-budget/%s/%s", agent, m.now().Format("2006-01-02"))
	title := fmt.Sprintf("OVER BUDGET: %s: %s", agent, detail)
	content := fmt.Sprintf("%s's client has spent %s, more than its profile's budget allows. Its notices are held until the budget is raised (budget: in agents/%s.yaml) or a new day begins; its pane is yours meanwhile (switchboard attach).\n", agent, detail, agent)
	recipients := m.overseersHere()
	if parent, ok := m.shared.Load().Parent(agent); ok && !slices.Contains(recipients, parent) && !m.remote(parent) {
		recipients = append(recipients, parent)
	}
	m.tell(recipients, key, title, content, at)
	m.notifyPerson(key, title, content)
}
