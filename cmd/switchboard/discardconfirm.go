package main

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"switchboard/lifecycle/worktree"
)

// errNotConfirmed is a close --discard whose question was not answered yes.
var errNotConfirmed = errors.New("nothing was closed: type yes to throw the work away")

// confirmDiscard stands between close --discard and work nothing else
// holds (lost): at a terminal it says what would be lost and asks the
// person to type yes, as the console asks before it closes; where no one
// can answer (a script, an agent) it refuses, saying what would be lost
// and how to go ahead. Both refusals are exit 3: nothing was closed.
func confirmDiscard(io *streams, agent string, lost []*worktree.UnsavedError) error {
	if len(lost) == 0 {
		return nil
	}
	what := make([]string, len(lost))
	for i, l := range lost {
		what[i] = l.Error()
	}
	if !io.terminal {
		homes := make([]string, len(lost))
		for i, l := range lost {
			homes[i] = "`" + mergeHome(l) + "`"
		}
		return refusedError(fmt.Errorf("nothing was closed: --discard would throw away work nothing else holds: %s; bring it home with %s, or throw it away with `switchboard close %s --discard --yes`",
			strings.Join(what, "; "), strings.Join(homes, " and "), agent))
	}
	fmt.Fprintf(io.errOut, "--discard throws away work nothing else holds:\n")
	for _, w := range what {
		fmt.Fprintf(io.errOut, "  %s\n", w)
	}
	fmt.Fprintf(io.errOut, "close %s and throw it away? type yes: ", agent)
	answer, err := bufio.NewReader(io.in).ReadString('\n')
	if strings.TrimSpace(answer) == "yes" {
		return nil
	}
	if err != nil {
		fmt.Fprintln(io.errOut) // input ended on the question's line
	}
	return refusedError(errNotConfirmed)
}
