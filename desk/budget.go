package desk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"switchboard/internal/atomicfile"
	"switchboard/profile"
)

// StateOverBudget is the state of an agent whose client spent its day's
// budget: its notices are held until the budget is raised or a new day
// begins.
const StateOverBudget = "over budget"

// OverBudget reports whether the agent's client has spent more today than
// its profile's budget allows, and says how much of what.
func (d *Desk) OverBudget(agent string, now time.Time) (over bool, detail string, err error) {
	team, _, err := profile.Team(d.ws, []string{agent})
	if err != nil || len(team) != 1 || team[0].Budget == nil {
		return false, "", err
	}
	b := team[0].Budget
	y, m, day := now.Date()
	rows, err := d.usageOf([]string{agent}, time.Date(y, m, day, 0, 0, 0, 0, now.Location()), nil)
	if err != nil || len(rows) == 0 {
		return false, "", err
	}
	u := rows[0]
	tokens := u.Tokens.In + u.Tokens.Out
	var spent []string
	if b.TokensPerDay > 0 && tokens > b.TokensPerDay {
		spent = append(spent, fmt.Sprintf("%d tokens of %d today", tokens, b.TokensPerDay))
	}
	if b.USDPerDay > 0 && u.Cost > b.USDPerDay {
		spent = append(spent, fmt.Sprintf("$%.2f of $%.2f today", u.Cost, b.USDPerDay))
	}
	return len(spent) > 0, strings.Join(spent, ", "), nil
}

// MarkOverBudget records, or with detail "" forgets, that the agent is
// over its budget, for agents, the console and the web view.
func (d *Desk) MarkOverBudget(agent, detail string) error {
	path := d.book().BudgetPath(agent)
	if detail == "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	return atomicfile.WriteFile(path, []byte(detail+"\n"), atomicfile.Options{TmpDir: d.store().TmpDir(agent)})
}

// overBudgetMark is what the agent's mark says; "" when it has none.
func (d *Desk) overBudgetMark(agent string) string {
	data, err := os.ReadFile(d.book().BudgetPath(agent))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}
