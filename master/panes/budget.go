package panes

import (
	"time"
)

// An agent whose profile sets a budget is checked when a turn of its ends
// (it turns idle): once its client has spent more today than the budget
// allows, its notices are held (interrupts aside), and it is told to the
// master (Config.BudgetChanged), which marks it over budget and tells its
// parent, the overseers and the person. While it is over, it is checked
// again at most every budgetRecheck, so that a budget raised in its
// profile, or a new day, lets its notices go.
const budgetRecheck = 10 * time.Second

// budgetCheck is an agent to check.
type budgetCheck struct{ agent string }

// takeBudgetCheck decides under the lock whether to check the agent now:
// a turn of its just ended, or it is over and was not checked lately.
func (p *Panes) takeBudgetCheck(name string, v *view, turnEnded bool, now time.Time) *budgetCheck {
	if p.budget == nil || v.budgetChecking || !hookedKinds[v.seat.Kind] {
		return nil
	}
	if !turnEnded && !(v.overBudget && now.Sub(v.budgetAt) >= budgetRecheck) {
		return nil
	}
	v.budgetChecking, v.budgetAt = true, now
	return &budgetCheck{agent: name}
}

// checkBudget runs a check in a goroutine of its own: the transcripts are
// read outside the lock.
func (p *Panes) checkBudget(c *budgetCheck) {
	p.typingWG.Add(1)
	go func() {
		defer p.typingWG.Done()
		over, detail, err := p.budget(c.agent)
		if err != nil {
			p.logf("cannot check the budget of %s: %v", c.agent, err)
		}
		p.mu.Lock()
		v := p.viewOf(c.agent)
		v.budgetChecking = false
		changed := err == nil && over != v.overBudget
		if err == nil {
			v.overBudget = over
		}
		p.mu.Unlock()
		if changed {
			if p.budgetChanged != nil {
				p.budgetChanged(c.agent, over, detail)
			}
			p.Wake() // its held notices may go
		}
	}()
}
