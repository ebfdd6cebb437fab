package main

import (
	"strings"
	"testing"

	"switchboard/desk"
)

// TestTheTreeDrawsSiblingsAndTheirChildren: every child but the last hangs
// on ├─, and what lies below it on its │.
func TestTheTreeDrawsSiblingsAndTheirChildren(t *testing.T) {
	row := func(name, parent string) agentRow { return agentRow{Member: desk.Member{Name: name, Parent: parent}} }
	rows := asTree([]agentRow{row("dev", ""), row("h1", "dev"), row("h2", "dev"), row("h1a", "h1"), row("rev", "")}, nil)
	var got []string
	for _, r := range rows {
		got = append(got, r.branch+r.Name)
	}
	want := []string{"dev", "├─ h1", "│  └─ h1a", "└─ h2", "rev"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
