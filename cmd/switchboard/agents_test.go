package main

import (
	"strings"
	"testing"
)

// TestTheTreeDrawsSiblingsAndTheirChildren: every child but the last hangs
// on ├─, and what lies below it on its │.
func TestTheTreeDrawsSiblingsAndTheirChildren(t *testing.T) {
	rows := asTree([]agentRow{
		{Name: "dev"}, {Name: "h1", Parent: "dev"}, {Name: "h2", Parent: "dev"}, {Name: "h1a", Parent: "h1"}, {Name: "rev"},
	})
	var got []string
	for _, r := range rows {
		got = append(got, r.branch+r.Name)
	}
	want := []string{"dev", "├─ h1", "│  └─ h1a", "└─ h2", "rev"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
