package rules

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"switchboard/mailbox"
)

// FuzzParse feeds the rules loader any file. It never panics; a refusal is
// a *rules.Error naming the file; and rules it accepts keep their word:
// every forbidden pair is blocked, whatever the allow lists say, and
// deciding, routing a broadcast, linting and drawing the graph all work.
func FuzzParse(f *testing.F) {
	defaultTeam, err := os.ReadFile(filepath.Join("..", "profile", "defaultteam", FileName))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(defaultTeam)
	for _, seed := range []string{
		"allowed_interactions:\n  a:\n    can_send_to: [\"*\"]\n    can_receive_from: [\"*\"]\n  b:\n    can_send_to: [a]\n    can_receive_from: [a]\nforbidden_interactions:\n  - from: a\n    to: b\n    reason: no\n",
		"allowed_interactions:\n  a: {}\noversight: [a]\ninterrupts: [a]\n",
		"allowed_interactions:\n  a:\n    can_send_to: [b, b, \"*\"]\n  b: {can_receive_from: [\"*\"]}\nforbidden_interactions:\n  - {from: \"*\", to: b}\n",
		"allowed_interactions: &x\n  a: *x\n",
		"allowed_interactions:\n  a:\n    can_send_to: [b]\n  a: {}\n",
		"{allowed_interactions: {a: {can_send_to: [operator]}}, oversight: [operator]}",
		"", "- a\n", "allowed_interactions:\n  a: [\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse("rules.yaml", data)
		if err != nil {
			var rerr *Error
			if !errors.As(err, &rerr) || !strings.HasPrefix(err.Error(), "rules.yaml") {
				t.Fatalf("a refusal that does not name the file: %v", err)
			}
			return
		}
		agents := append(r.Agents(), mailbox.Operator, "stranger")
		for _, from := range agents {
			for _, to := range agents {
				d := r.Decide(from, to)
				if d.Allowed && forbiddenPair(r, from, to) {
					t.Fatalf("%s → %s is allowed, though a forbidden entry names the pair", from, to)
				}
				if !d.Allowed && d.Reason == "" {
					t.Fatalf("%s → %s is blocked without a reason", from, to)
				}
			}
			route := r.Route(from, &mailbox.Message{To: []string{"*"}})
			for _, to := range route.Delivered {
				if forbiddenPair(r, from, to) {
					t.Fatalf("a broadcast from %s reaches %s, whom a forbidden entry keeps it from", from, to)
				}
			}
		}
		r.Warnings()
		r.Graph()
		r.Overseers()
	})
}

// forbiddenPair reports whether a forbidden entry names from and to, by
// name or by the wildcard.
func forbiddenPair(r *Rules, from, to string) bool {
	for _, f := range r.Forbidden {
		if (f.From == from || f.From == Wildcard) && (f.To == to || f.To == Wildcard) {
			return true
		}
	}
	return false
}
