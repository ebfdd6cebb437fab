package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"switchboard/desk"
	"switchboard/internal/safetext"

	"github.com/spf13/cobra"
)

func newStateCmd(io *streams, g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Shared key/value state in the bulletin (JSON values)",
		Example: `  switchboard state set api_version '"v2"'
  switchboard state set build '{"status": "green", "commit": "4f3a379"}'
  switchboard state get build
  switchboard state list`,
	}
	set := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Set a key to a JSON value (a bare word is taken as a string)",
		Args:  args(2, 2),
		RunE: func(cmd *cobra.Command, a []string) error {
			ws, err := openWorkspace(g)
			if err != nil {
				return err
			}
			value, err := stateValue(a[1])
			if err != nil {
				return err
			}
			if err := ws.desk().SetState(a[0], value); err != nil {
				return err
			}
			fmt.Fprintf(io.out, "%s = %s\n", safetext.Line(a[0]), compactJSON(value))
			return nil
		},
	}
	get := &cobra.Command{
		Use:   "get KEY",
		Short: "Print a key's JSON value",
		Args:  args(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			ws, rulesErr, err := openReading(g)
			if err != nil {
				return err
			}
			warnBrokenRules(io, ws, rulesErr)
			v, err := ws.desk().State(a[0])
			if errors.Is(err, desk.ErrNoSuchKey) {
				return fmt.Errorf("%w; `switchboard state list` lists the keys", err)
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(io.out, compactJSON(v))
			return nil
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "Print every key and value",
		Args:  args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, rulesErr, err := openReading(g)
			if err != nil {
				return err
			}
			warnBrokenRules(io, ws, rulesErr)
			state, err := ws.desk().StateList()
			if err != nil {
				return err
			}
			if g.json {
				return writeJSON(io.out, state)
			}
			for _, k := range slices.Sorted(maps.Keys(state)) {
				fmt.Fprintf(io.out, "%s = %s\n", safetext.Line(k), compactJSON(state[k]))
			}
			return nil
		},
	}
	cmd.AddCommand(set, get, list)
	return cmd
}

// compactJSON prints a stored value on one line, however it was indented,
// escaped: any agent may set one, and a JSON string may hold characters a
// terminal acts on or that reorder the line.
func compactJSON(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return safetext.Line(string(v))
	}
	return safetext.Line(b.String())
}

// stateValue reads a value given to state set: JSON, or a bare word taken
// as a string. Text that starts as a JSON object, list or string does but
// does not parse is a mistake, not a string.
func stateValue(text string) (json.RawMessage, error) {
	value := json.RawMessage(text)
	if json.Valid(value) {
		return value, nil
	}
	if trimmed := strings.TrimSpace(text); trimmed != "" && strings.ContainsRune(`{["`, rune(trimmed[0])) {
		var v any
		err := json.Unmarshal(value, &v)
		return nil, usageError("%q is not valid JSON (%v); quote a string for the shell as '\"%s\"'", text, err, strings.Trim(text, `"`))
	}
	quoted, _ := json.Marshal(text)
	return quoted, nil
}
