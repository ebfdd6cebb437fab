package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestRootHelpGroupsEveryCommand: the root's help shows its headings in
// order, starting where a newcomer starts, and every command it lists sits
// under a heading, none apart under "Additional Commands".
func TestRootHelpGroupsEveryCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"--help"}, &streams{in: strings.NewReader(""), out: &out, errOut: &errOut}); code != exitOK {
		t.Fatalf("--help: exit %d, %s", code, errOut.String())
	}
	help := out.String()
	for _, apart := range []string{"Available Commands:", "Additional Commands:"} {
		if strings.Contains(help, apart) {
			t.Errorf("the help lists commands under %q:\n%s", apart, help)
		}
	}
	// The headings, in order, and the commands under each.
	headings := []string{"Start and stop:", "Messages:", "Agents and helpers:", "Watch:", "The bulletin and shared state:", "Across machines:", "Rules and setup:"}
	under := make(map[string]string) // command → heading
	var seen []string
	heading := ""
	for _, line := range strings.Split(help, "\n") {
		switch {
		case slices.Contains(headings, line):
			heading = line
			seen = append(seen, line)
		case line == "" || !strings.HasPrefix(line, "  "):
			heading = ""
		case heading != "":
			under[strings.Fields(line)[0]] = heading
		}
	}
	if !slices.Equal(seen, headings) {
		t.Errorf("headings %q; want %q", seen, headings)
	}
	for _, want := range []struct{ command, heading string }{
		{"init", "Start and stop:"}, {"up", "Start and stop:"},
		{"send", "Messages:"}, {"inbox", "Messages:"},
		{"spawn", "Agents and helpers:"}, {"close", "Agents and helpers:"},
		{"top", "Watch:"}, {"hub", "Across machines:"}, {"rules", "Rules and setup:"},
		{"completion", "Rules and setup:"}, {"help", "Rules and setup:"},
	} {
		if got := under[want.command]; got != want.heading {
			t.Errorf("%s is under %q; want %q", want.command, got, want.heading)
		}
	}
	// Every command the help could list is under a heading.
	g := &globals{}
	for _, cmd := range newRootCmd(&streams{}, g).Commands() {
		if cmd.IsAvailableCommand() && under[cmd.Name()] == "" {
			t.Errorf("%s is under no heading of the help", cmd.Name())
		}
	}
}
