package master

import (
	"encoding/json"
	"fmt"
	"os"
)

// The master of a host of a team across machines runs in a program of its
// own (switchboard-link), which links NATS: switchboard parses and checks
// the command line, and hands the options it made over to that program in
// its environment, as JSON under OptionsEnv.

// OptionsEnv is the variable that carries the options over.
const OptionsEnv = "SWITCHBOARD_MASTER_OPTIONS"

// ErrNoOptions is a program started without the options handed over.
var ErrNoOptions = fmt.Errorf("no options were handed over in %s", OptionsEnv)

// HandOver is the environment entry that carries the options over. What a
// program of its own sets (Log, Link) does not cross.
func (o Options) HandOver() (string, error) {
	data, err := json.Marshal(o)
	if err != nil {
		return "", fmt.Errorf("hand the master's options over: %w", err)
	}
	return OptionsEnv + "=" + string(data), nil
}

// TakeOver reads the options handed over, and takes them out of the
// environment, which the agents' panes inherit.
func TakeOver() (Options, error) {
	data, ok := os.LookupEnv(OptionsEnv)
	os.Unsetenv(OptionsEnv)
	if !ok || data == "" {
		return Options{}, ErrNoOptions
	}
	var o Options
	if err := json.Unmarshal([]byte(data), &o); err != nil {
		return Options{}, fmt.Errorf("the options handed over do not read: %w", err)
	}
	return o, nil
}
