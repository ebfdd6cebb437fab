package rules

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// describe writes a graph compactly: nodes with their marks, then edges,
// "a -> b" allowed and "a -x b: reason" forbidden.
func describe(g Graph) (nodes, edges []string) {
	for _, n := range g.Nodes {
		s := n.Name
		if n.Overseer {
			s += " +oversight"
		}
		if n.Interrupts {
			s += " +interrupts"
		}
		if n.Parent != "" {
			s += " <" + n.Parent
		}
		nodes = append(nodes, s)
	}
	for _, e := range g.Edges {
		if e.Allowed {
			edges = append(edges, e.From+" -> "+e.To)
		} else {
			edges = append(edges, fmt.Sprintf("%s -x %s: %s", e.From, e.To, e.Reason))
		}
	}
	return nodes, edges
}

func TestGraph(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		spawned map[string]Spawned
		nodes   []string
		edges   []string
	}{
		{
			name: "an allow one way is one edge; a missing allow is none",
			yaml: `allowed_interactions:
  a: {can_send_to: [b]}
  b: {can_receive_from: [a]}
  c: {can_send_to: [a]}
`,
			nodes: []string{"a", "b", "c"},
			edges: []string{"a -> b"},
		},
		{
			name: "a forbidden entry is an edge with its reason, an allowed pair or not",
			yaml: `allowed_interactions:
  a: {can_send_to: [b], can_receive_from: [b]}
  b: {can_send_to: [a], can_receive_from: [a]}
  c: {}
forbidden_interactions:
  - {from: b, to: a, reason: "Say \"please\" first"}
  - {from: c, to: a}
`,
			nodes: []string{"a", "b", "c"},
			edges: []string{"a -> b", "b -x a: Say \"please\" first", "c -x a: c may not send to a"},
		},
		{
			name: "wildcards in allows and in forbidden entries",
			yaml: `allowed_interactions:
  hub: {can_send_to: ["*"], can_receive_from: ["*"]}
  a: {can_send_to: [hub, quiet], can_receive_from: [hub]}
  quiet: {can_send_to: [hub], can_receive_from: ["*"]}
forbidden_interactions:
  - {from: "*", to: quiet, reason: "quiet hours"}
oversight: [hub]
`,
			nodes: []string{"a", "hub +oversight +interrupts", "quiet"},
			edges: []string{
				"a -> hub", "a -x quiet: quiet hours",
				"hub -> a", "hub -x quiet: quiet hours",
				"quiet -> hub",
			},
		},
		{
			name: "the operator is left out when the rules do not name it",
			yaml: `allowed_interactions:
  a: {can_send_to: [b], can_receive_from: [b]}
  b: {can_send_to: [a], can_receive_from: [a]}
forbidden_interactions:
  - {from: "*", to: b, reason: "b is busy"}
`,
			nodes: []string{"a", "b"},
			edges: []string{"a -x b: b is busy", "b -> a"},
		},
		{
			name: "the operator is drawn when the rules name it, with only its rights",
			yaml: `allowed_interactions:
  operator: {can_send_to: [a], can_receive_from: ["*"]}
  a: {can_send_to: [operator], can_receive_from: [operator]}
  b: {can_send_to: [operator]}
interrupts: [a]
`,
			nodes: []string{"a +interrupts", "b", "operator"},
			edges: []string{"a -> operator", "b -> operator", "operator -> a"},
		},
		{
			name: "an explicit empty interrupts list leaves overseers without the right",
			yaml: `allowed_interactions:
  a: {can_send_to: ["*"], can_receive_from: ["*"]}
oversight: [a]
interrupts: []
`,
			nodes: []string{"a +oversight"},
		},
		{
			name: "a spawned agent takes its profile's allows and talks with its parent",
			yaml: `allowed_interactions:
  lead: {can_send_to: [worker], can_receive_from: [worker]}
  worker: {can_send_to: [lead], can_receive_from: [lead]}
  other: {}
`,
			spawned: map[string]Spawned{"w1": {Profile: "worker", Parent: "other"}},
			nodes:   []string{"lead", "other", "w1 <other", "worker"},
			edges: []string{
				"lead -> w1", "lead -> worker",
				"other -> w1",
				"w1 -> lead", "w1 -> other",
				"worker -> lead",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse("r.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if tt.spawned != nil {
				r = r.WithSpawned(tt.spawned)
			}
			nodes, edges := describe(r.Graph())
			if !slices.Equal(nodes, tt.nodes) {
				t.Errorf("nodes:\n  %s\nwant:\n  %s", strings.Join(nodes, "\n  "), strings.Join(tt.nodes, "\n  "))
			}
			if !slices.Equal(edges, tt.edges) {
				t.Errorf("edges:\n  %s\nwant:\n  %s", strings.Join(edges, "\n  "), strings.Join(tt.edges, "\n  "))
			}
		})
	}
}

func TestRenderEscapes(t *testing.T) {
	g := Graph{
		Nodes: []Node{{Name: "a"}, {Name: "b"}},
		Edges: []Edge{{From: "a", To: "b", Reason: "say \"hi\" <b>#1</b> & a\\N `x`\nnext"}},
	}
	tests := []struct {
		format, got, want string
	}{
		{"dot", g.Dot(), `"a" -> "b" [label="say \"hi\" <b>#1</b> & a\\N ` + "`x`" + `\nnext", style=dashed, color=red, fontcolor=red];`},
		{"mermaid", g.Mermaid(), `n0 -.->|"say #quot;hi#quot; #lt;b#gt;#35;1#lt;/b#gt; #amp; a\N #96;x#96; next"| n1`},
	}
	for _, tt := range tests {
		if !strings.Contains(tt.got, tt.want+"\n") {
			t.Errorf("%s output:\n%s\nwant a line:\n%s", tt.format, tt.got, tt.want)
		}
	}
}

func TestRenderMarksAndStyles(t *testing.T) {
	g := Graph{Nodes: []Node{
		{Name: "boss", Overseer: true, Interrupts: true},
		{Name: "kid", Parent: "boss"},
		{Name: "end"}, // a Mermaid keyword: ids are generated, so it is only a label
	}, Edges: []Edge{
		{From: "boss", To: "end", Allowed: true},
		{From: "boss", To: "kid", Allowed: true},
		{From: "end", To: "kid", Reason: "no"},
		{From: "kid", To: "boss", Allowed: true},
	}}
	mermaid := g.Mermaid()
	for _, want := range []string{
		`n0["boss<br/>👁 oversight, ⚡ interrupts"]`,
		`n1["kid<br/>spawned by boss"]`,
		`n2["end"]`,
		"n0 --> n2",
		"n0 <--> n1",
		`n2 -.->|"no"| n1`,
		"linkStyle 2 stroke:#d00,color:#d00",
		"class n0 oversight",
		"class n0 interrupts",
		"class n1 spawned",
	} {
		if !strings.Contains(mermaid, "    "+want+"\n") {
			t.Errorf("mermaid output:\n%s\nwant a line %q", mermaid, want)
		}
	}
	dot := g.Dot()
	for _, want := range []string{
		`"boss" [label="boss\noversight, interrupts", fillcolor="#e8f0fe", color="#1a56db", penwidth=3, style="rounded,filled"];`,
		`"kid" [label="kid\nspawned by boss", style="rounded,dashed"];`,
		`"end";`,
		`"boss" -> "end";`,
		`"boss" -> "kid" [dir=both];`,
		`"end" -> "kid" [label="no", style=dashed, color=red, fontcolor=red];`,
	} {
		if !strings.Contains(dot, "    "+want+"\n") {
			t.Errorf("dot output:\n%s\nwant a line %q", dot, want)
		}
	}
}

// The default team's drawings are kept as golden files, so a change to the
// team or to the renderers shows in review; go test -update rewrites them.
func TestGraphOfTheDefaultTeam(t *testing.T) {
	g := defaultTeam(t).Graph()
	for _, tt := range []struct{ file, got string }{
		{"default_team.mmd", g.Mermaid()},
		{"default_team.dot", g.Dot()},
	} {
		path := filepath.Join("testdata", tt.file)
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tt.got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./rules -run TestGraphOfTheDefaultTeam -update to write it)", err)
		}
		if tt.got != string(want) {
			t.Errorf("%s differs; got:\n%s\nwant:\n%s", path, tt.got, want)
		}
	}
}
