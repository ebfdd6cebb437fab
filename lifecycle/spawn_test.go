package lifecycle

import (
	"slices"
	"testing"

	"switchboard/workspace"
)

func TestDescendantsComeLeavesFirst(t *testing.T) {
	spawned := map[string]workspace.Spawned{
		"a":   {Parent: "lead"},
		"a-1": {Parent: "a"},
		"a-2": {Parent: "a"},
		"b":   {Parent: "lead"},
		"x":   {Parent: "y"}, // parents that loop end the walk
		"y":   {Parent: "x"},
	}
	if got := Descendants(spawned, "lead"); !slices.Equal(got, []string{"a-1", "a-2", "a", "b"}) {
		t.Errorf("descendants of lead = %q; want each agent after its own helpers", got)
	}
	if got := Descendants(spawned, "x"); !slices.Equal(got, []string{"y"}) {
		t.Errorf("descendants in a loop = %q", got)
	}
}

func TestTaskTitleIsTheFirstLineClipped(t *testing.T) {
	if got := TaskTitle("  Review auth.go\nthen the tests"); got != "Task: Review auth.go" {
		t.Errorf("title = %q", got)
	}
}
