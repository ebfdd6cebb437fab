package desk

import (
	"encoding/json"
	"fmt"

	"switchboard/bulletin"
	"switchboard/master/link/errand"
)

// changeBoardOnHub changes the team's board on the hub, when the workspace
// is a host of a team across machines; joined is false when it is not.
// The master changes it there by compare-and-swap, and answers with what
// the hub holds since.
func (d *Desk) changeBoardOnHub(c bulletin.BoardChange) (said []string, board bulletin.Board, joined bool, err error) {
	a, joined, err := d.onHub(errand.Errand{Kind: errand.ChangeBoard,
		Status: c.Status, Phase: c.Phase, Warn: c.Warn, ClearWarnings: c.ClearWarnings})
	if err != nil || !joined {
		return nil, board, joined, err
	}
	if err := json.Unmarshal(a.Board, &board); err != nil {
		return nil, board, true, fmt.Errorf("read the team's board the master answered with: %w", err)
	}
	return a.Said, board, true, nil
}
