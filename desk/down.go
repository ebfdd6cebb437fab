package desk

import (
	"context"
	"errors"
	"time"

	"switchboard/internal/tmux"
	"switchboard/lifecycle"
)

// masterStopLimit is how long Down waits for the master to finish.
const masterStopLimit = 10 * time.Second

// Stopped is what Down stopped.
type Stopped struct {
	MasterPID int    `json:"master_pid,omitempty"` // 0 when no master ran
	Session   string `json:"session,omitempty"`    // "" when no session ran
}

// Down stops the team: the master, then the team's tmux session and every
// process its panes started; the mail stays. Oversight agents and the
// operator may; with rules that do not load, the operator alone. Anyone
// else gets a *RightError, and the overseers are told of the attempt.
// beforeSession, when not nil, runs between the two stops.
func (d *Desk) Down(ctx context.Context, beforeSession func()) (Stopped, error) {
	var stopped Stopped
	if err := d.mayRunTheTeam("stop the team"); err != nil {
		return stopped, err
	}
	pid, err := d.ws.StopMaster(ctx, masterStopLimit)
	stopped.MasterPID = pid
	if err != nil {
		return stopped, err // workspace.ErrMasterStillRunning, with the pid it could not stop
	}
	session, ok, err := lifecycle.LoadSession(d.ws)
	if err != nil {
		return stopped, err
	}
	if beforeSession != nil {
		beforeSession()
	}
	if !ok {
		return stopped, nil
	}
	client := tmux.NewClient(session.Socket, nil)
	if up, _ := client.HasSession(ctx, session.Name); up {
		if err := lifecycle.StopTeam(ctx, client); err != nil {
			var runErr *tmux.RunError
			if !errors.As(err, &runErr) { // a server that ends as it is stopped is stopped
				return stopped, err
			}
		}
		stopped.Session = session.Name
	}
	return stopped, nil
}
