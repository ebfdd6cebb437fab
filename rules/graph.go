package rules

import (
	"fmt"
	"strings"

	"switchboard/mailbox"
)

// Graph is the team as the rules shape it: who may send to whom, and which
// sends a forbidden entry blocks. Pairs blocked only because no allow names
// them are left out: in most teams that is nearly every pair, and drawing
// them would bury the routes that exist.
type Graph struct {
	Nodes []Node `json:"nodes"` // sorted by name
	Edges []Edge `json:"edges"` // sorted by from, then to
}

// Node is one agent of the graph.
type Node struct {
	Name       string `json:"name"`
	Overseer   bool   `json:"overseer"`         // may read every message (IsOverseer)
	Interrupts bool   `json:"interrupts"`       // may interrupt others (MayInterrupt)
	Parent     string `json:"parent,omitempty"` // the agent that spawned it, if one did
}

// Edge is one direction between two agents: allowed, or blocked by a
// forbidden entry.
type Edge struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason,omitempty"` // why it is forbidden
	Line    int    `json:"line,omitempty"`   // the forbidden entry's line in the rules file
}

// Graph decides every ordered pair of distinct agents the rules name. The
// operator is drawn only when the rules name it: otherwise it may talk with
// everyone, and a node wired to every other would say nothing.
func (r *Rules) Graph() Graph {
	// Empty, not nil: JSON readers get [] for a team without edges.
	g := Graph{Nodes: []Node{}, Edges: []Edge{}}
	for _, name := range r.Agents() {
		if name == mailbox.Operator && !r.names(mailbox.Operator) {
			continue
		}
		parent, _ := r.Parent(name)
		g.Nodes = append(g.Nodes, Node{
			Name:       name,
			Overseer:   r.IsOverseer(name),
			Interrupts: r.MayInterrupt(name),
			Parent:     parent,
		})
	}
	for _, from := range g.Nodes {
		for _, to := range g.Nodes {
			if from.Name == to.Name {
				continue
			}
			d := r.Decide(from.Name, to.Name)
			if d.Allowed {
				g.Edges = append(g.Edges, Edge{From: d.From, To: d.To, Allowed: true})
				continue
			}
			// Decide puts forbidden entries first, so when one matches it is
			// what blocked the pair, and d.Reason is its reason (or the
			// generated one for an entry without a reason).
			if f, _, _, ok := r.forbiddenBy(from.Name, to.Name); ok {
				g.Edges = append(g.Edges, Edge{From: d.From, To: d.To, Reason: d.Reason, Line: f.Line})
			}
		}
	}
	return g
}

// link is one line of a drawing: an allowed pair may be drawn once with
// arrows at both ends, which halves the lines in the usual team where
// agents answer each other.
type link struct {
	from, to string
	both     bool   // allowed both ways
	reason   string // set on a forbidden link
}

// links orders the graph's edges for drawing: the allowed ones first, each
// pair once, then the forbidden ones.
func (g Graph) links() []link {
	allowed := make(map[[2]string]bool)
	for _, e := range g.Edges {
		if e.Allowed {
			allowed[[2]string{e.From, e.To}] = true
		}
	}
	var out, forbidden []link
	for _, e := range g.Edges {
		if !e.Allowed {
			forbidden = append(forbidden, link{from: e.From, to: e.To, reason: e.Reason})
			continue
		}
		back := allowed[[2]string{e.To, e.From}]
		if back && e.From > e.To {
			continue // drawn already, from the other end
		}
		out = append(out, link{from: e.From, to: e.To, both: back})
	}
	return append(out, forbidden...)
}

// marks lists what sets a node apart, for its label.
func (n Node) marks(oversight, interrupts string) []string {
	var marks []string
	if n.Overseer {
		marks = append(marks, oversight)
	}
	if n.Interrupts {
		marks = append(marks, interrupts)
	}
	if n.Parent != "" {
		marks = append(marks, "spawned by "+n.Parent)
	}
	return marks
}

// Mermaid draws the graph as a Mermaid flowchart, which GitHub, GitLab and
// many editors render in Markdown. Overseers and interrupters carry a mark
// in their label and a class; forbidden sends are dashed red arrows
// labelled with the reason.
func (g Graph) Mermaid() string {
	var b strings.Builder
	// The comment follows the header: older renderers expect the diagram's
	// type on the first line.
	b.WriteString("flowchart LR\n")
	b.WriteString("    %% switchboard rules graph: who may send to whom\n")
	// Node ids are generated: agent names such as "end" or "a--b" would be
	// read as Mermaid syntax.
	id := make(map[string]string, len(g.Nodes))
	classes := map[string][]string{}
	for i, n := range g.Nodes {
		id[n.Name] = fmt.Sprintf("n%d", i)
		label := mermaidText(n.Name)
		if marks := n.marks("👁 oversight", "⚡ interrupts"); len(marks) > 0 {
			label += "<br/>" + mermaidText(strings.Join(marks, ", "))
		}
		fmt.Fprintf(&b, "    %s[\"%s\"]\n", id[n.Name], label)
		if n.Overseer {
			classes["oversight"] = append(classes["oversight"], id[n.Name])
		}
		if n.Interrupts {
			classes["interrupts"] = append(classes["interrupts"], id[n.Name])
		}
		if n.Parent != "" {
			classes["spawned"] = append(classes["spawned"], id[n.Name])
		}
	}
	var red []string
	for i, l := range g.links() {
		switch {
		case l.reason != "":
			fmt.Fprintf(&b, "    %s -.->|\"%s\"| %s\n", id[l.from], mermaidText(l.reason), id[l.to])
			red = append(red, fmt.Sprint(i))
		case l.both:
			fmt.Fprintf(&b, "    %s <--> %s\n", id[l.from], id[l.to])
		default:
			fmt.Fprintf(&b, "    %s --> %s\n", id[l.from], id[l.to])
		}
	}
	if len(red) > 0 {
		fmt.Fprintf(&b, "    linkStyle %s stroke:#d00,color:#d00\n", strings.Join(red, ","))
	}
	// A node may be in several classes; each adds its own touch so that
	// they combine.
	for _, c := range []struct{ name, style string }{
		{"oversight", "fill:#e8f0fe,stroke:#1a56db"},
		{"interrupts", "stroke-width:3px"},
		{"spawned", "stroke-dasharray:4 3"},
	} {
		if ids := classes[c.name]; len(ids) > 0 {
			fmt.Fprintf(&b, "    classDef %s %s\n", c.name, c.style)
			fmt.Fprintf(&b, "    class %s %s\n", strings.Join(ids, ","), c.name)
		}
	}
	return b.String()
}

// mermaidText escapes text for a quoted Mermaid label. Mermaid has no
// backslash escapes: characters are written as entity codes, "#quot;", so
// "#" itself must be one too; "<", ">" and "&" would otherwise be read as
// HTML, and a leading backquote would start a Markdown string.
var mermaidText = strings.NewReplacer(
	"#", "#35;",
	`"`, "#quot;",
	"<", "#lt;",
	">", "#gt;",
	"&", "#amp;",
	"`", "#96;",
	"\r\n", " ",
	"\n", " ",
	"\r", " ",
	"\t", " ",
).Replace

// Dot draws the graph in Graphviz's dot language, for `dot -Tsvg`. The
// marks are words, not symbols: Graphviz's default fonts often lack emoji.
func (g Graph) Dot() string {
	var b strings.Builder
	b.WriteString("// switchboard rules graph: who may send to whom\n")
	b.WriteString("digraph team {\n")
	b.WriteString("    rankdir=LR;\n")
	b.WriteString("    node [shape=box, style=rounded, fontname=\"Helvetica\"];\n")
	b.WriteString("    edge [fontname=\"Helvetica\"];\n")
	for _, n := range g.Nodes {
		var attrs []string
		if marks := n.marks("oversight", "interrupts"); len(marks) > 0 {
			attrs = append(attrs, "label="+dotString(n.Name+"\n"+strings.Join(marks, ", ")))
		}
		style := []string{"rounded"}
		if n.Overseer {
			style = append(style, "filled")
			attrs = append(attrs, `fillcolor="#e8f0fe"`, `color="#1a56db"`)
		}
		if n.Interrupts {
			attrs = append(attrs, "penwidth=3")
		}
		if n.Parent != "" {
			style = append(style, "dashed")
		}
		if len(style) > 1 {
			attrs = append(attrs, "style="+dotString(strings.Join(style, ",")))
		}
		b.WriteString("    " + dotString(n.Name))
		if len(attrs) > 0 {
			b.WriteString(" [" + strings.Join(attrs, ", ") + "]")
		}
		b.WriteString(";\n")
	}
	for _, l := range g.links() {
		fmt.Fprintf(&b, "    %s -> %s", dotString(l.from), dotString(l.to))
		switch {
		case l.reason != "":
			fmt.Fprintf(&b, " [label=%s, style=dashed, color=red, fontcolor=red]", dotString(l.reason))
		case l.both:
			b.WriteString(" [dir=both]")
		}
		b.WriteString(";\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// dotString quotes text for dot. Inside quotes only \" is an escape of the
// language, but labels give \n, \N, \G and others a meaning, so a
// backslash is doubled to stay a backslash. Line breaks become \n, which
// a label shows as a line break.
func dotString(s string) string {
	return `"` + strings.NewReplacer(
		`\`, `\\`,
		`"`, `\"`,
		"\r\n", `\n`,
		"\n", `\n`,
		"\r", `\n`,
	).Replace(s) + `"`
}
