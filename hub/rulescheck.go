package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"switchboard/internal/watch"
)

// rulesKey is the key under which the first master to join stores the
// team's rules.
const rulesKey = "team"

type storedRules struct {
	Digest string `json:"digest"`
	Text   []byte `json:"text"`
	Host   string `json:"host"`
}

// RulesMismatch is the refusal to join a team whose rules differ from this
// host's: every master must route by the same rules.
type RulesMismatch struct {
	// Host stored the team's rules; Digest is theirs, OurDigest this host's.
	Host, Digest, OurDigest string
	// Line is the first line that differs (1-based), Theirs and Ours its
	// text on each side; Line is 0 when the texts are equal or unknown.
	Line         int
	Theirs, Ours string
}

func (e *RulesMismatch) Error() string {
	where := "the texts are the same but the digests differ"
	if e.Line > 0 {
		where = fmt.Sprintf("first difference at line %d: the team's has %q, this host's has %q", e.Line, e.Theirs, e.Ours)
	}
	return fmt.Sprintf("hub: this host's rules (digest %.12s) differ from the team's (digest %.12s, stored by host %s): %s; make the rules file the same on every host, then join again "+
		"(to change the team's rules, stop every host's master: the first to join again sets them)",
		e.OurDigest, e.Digest, e.Host, where)
}

// rulesLag bounds how long a node of a cluster of hubs may lag behind the
// write of the team's rules, before a host that found them stored takes
// their absence as an error.
const rulesLag = 2 * time.Second

// checkRules stores this host's rules when the team has none, or when no
// other host is up, and refuses them when the team's differ.
func (c *Conn) checkRules(ctx context.Context, digest string, text []byte) error {
	ctx, cancel := c.linked(ctx)
	defer cancel()
	ours, err := json.Marshal(storedRules{Digest: digest, Text: text, Host: c.host})
	if err != nil {
		return err
	}
	_, err = c.rules.Create(ctx, rulesKey, ours)
	if err == nil {
		return nil
	}
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return c.explain(ctx, err, "store the team's rules")
	}
	// Read from any node of a cluster of hubs: one that has not applied the
	// write of the host that made the key a moment ago says there is none,
	// and is asked again, for a moment.
	var entry jetstream.KeyValueEntry
	watch.Until(ctx, 20*time.Millisecond, rulesLag, func() bool {
		entry, err = c.rules.Get(ctx, rulesKey)
		return !errors.Is(err, jetstream.ErrKeyNotFound)
	})
	if err != nil {
		return c.explain(ctx, err, "read the team's rules")
	}
	var theirs storedRules
	if err := json.Unmarshal(entry.Value(), &theirs); err != nil {
		return fmt.Errorf("read the team's rules: %w", err)
	}
	if theirs.Digest == digest {
		return nil
	}
	// A team with no other host up takes the rules of the first to join:
	// that is how a team changes its rules, every master stopped first.
	live, err := c.reachableNow(ctx)
	if err != nil {
		return c.explain(ctx, err, "read which hosts are reachable")
	}
	delete(live, c.host)
	if len(live) == 0 {
		if _, err := c.rules.Update(ctx, rulesKey, ours, entry.Revision()); err == nil {
			return nil
		} else if !errors.Is(err, jetstream.ErrKeyExists) && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return c.explain(ctx, err, "store the team's rules")
		}
		// Another host stored its rules meanwhile: compare with those.
		return c.checkRules(ctx, digest, text)
	}
	m := &RulesMismatch{Host: theirs.Host, Digest: theirs.Digest, OurDigest: digest}
	m.Line, m.Theirs, m.Ours = firstDifference(theirs.Text, text)
	return m
}

// firstDifference finds the first line where a and b differ; a missing line
// reads as "(end of file)".
func firstDifference(a, b []byte) (line int, lineA, lineB string) {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < max(len(la), len(lb)); i++ {
		x, y := "(end of file)", "(end of file)"
		if i < len(la) {
			x = string(la[i])
		}
		if i < len(lb) {
			y = string(lb[i])
		}
		if x != y {
			return i + 1, x, y
		}
	}
	return 0, "", ""
}
