package clientusage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"time"
)

// TurnEnd is how a turn of Codex CLI ended, as its session log says: Codex
// runs no end-of-turn hook for a turn that ended on an error, so the log is
// the only word of it.
type TurnEnd struct {
	Time time.Time
	// Failed: the turn ended on an error; Limited: the account's (its
	// usage limit, its login), which a turn taken again will not mend.
	Failed, Limited bool
	// Why is what the client said of the error (its reset time, when it
	// gave one).
	Why string
}

// codexLimits are the errors Codex names for a turn its account could not
// pay for or was not let through, with the words the agent's state gives.
var codexLimits = map[string]string{
	"usage_limit_exceeded": "usage limit reached",
	"unauthorized":         "not logged in",
}

// codexTurnEnd is the part of a Codex session log line read for a turn's
// end.
type codexTurnEnd struct {
	Timestamp time.Time `json:"timestamp"`
	Payload   struct {
		Type  string `json:"type"`
		Error *struct {
			Message string `json:"message"`
			Info    any    `json:"codex_error_info"`
		} `json:"error"`
	} `json:"payload"`
}

// LastTurnEnd reads Codex CLI's session log from *from on and returns the
// last turn's end written there (ok false when none was), moving *from
// past the whole lines read: the next call reads only what came since. A
// log not there yet has nothing to say.
func LastTurnEnd(path string, from *int64) (end TurnEnd, ok bool, err error) {
	f, err := OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return TurnEnd{}, false, nil
	}
	if err != nil {
		return TurnEnd{}, false, err
	}
	defer f.Close()
	if _, err := f.Seek(*from, io.SeekStart); err != nil {
		return TurnEnd{}, false, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, n, err := readLine(r)
		if errors.Is(err, io.EOF) {
			return end, ok, nil // a line not ended yet is read whole next time
		}
		if err != nil {
			return end, ok, err
		}
		*from += n
		if !bytes.Contains(line, []byte(`"task_complete"`)) {
			continue
		}
		var c codexTurnEnd
		if json.Unmarshal(line, &c) != nil || c.Payload.Type != "task_complete" {
			continue
		}
		end, ok = TurnEnd{Time: c.Timestamp}, true
		if e := c.Payload.Error; e != nil {
			end.Failed, end.Why = true, e.Message
			if what, limited := codexLimits[errorKind(e.Info)]; limited {
				end.Limited, end.Why = true, what+": "+e.Message
			}
		}
	}
}

// errorKind is the name of Codex's error: a bare word, or the one key of
// an object for an error that carries details.
func errorKind(info any) string {
	switch v := info.(type) {
	case string:
		return v
	case map[string]any:
		for k := range v {
			return k
		}
	}
	return ""
}
