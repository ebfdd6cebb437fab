package desk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"switchboard/bulletin"
	"switchboard/hub"
)

// boardTries bounds the compare-and-swap of the board on the hub, which an
// overseer of another host may be changing at the same moment.
const boardTries = 5

// changeBoardOnHub changes the team's board on the hub, when the workspace
// joins one, by compare-and-swap; joined is false when it joins none.
func (d *Desk) changeBoardOnHub(c bulletin.BoardChange) (said []string, board bulletin.Board, joined bool, err error) {
	joined, err = d.onHub(func(ctx context.Context, conn *hub.Conn) error {
		for range boardTries {
			var rev uint64
			board = bulletin.Board{}
			data, r, err := conn.Get(ctx, bulletin.BoardKey)
			switch {
			case errors.Is(err, hub.ErrNotFound):
			case err != nil:
				return err
			default:
				if err := json.Unmarshal(data, &board); err != nil {
					return fmt.Errorf("read the team's board: %w", err)
				}
				rev = r
			}
			if said, err = board.Apply(c, time.Now().UTC()); err != nil {
				return err
			}
			value, err := json.Marshal(board)
			if err != nil {
				return err
			}
			_, err = conn.Update(ctx, bulletin.BoardKey, value, rev)
			if !errors.Is(err, hub.ErrRevisionChanged) {
				return err
			}
		}
		return fmt.Errorf("the team's board changed %d times while it was being changed: try again", boardTries)
	})
	return said, board, joined, err
}
