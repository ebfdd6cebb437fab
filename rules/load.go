package rules

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"gopkg.in/yaml.v3"

	"switchboard/internal/yamlsyntax"
	"switchboard/mailbox"
)

// Error is a problem in a rules file, with where it is.
type Error = yamlsyntax.Error

// ErrNoRules is a rules file that is not there.
var ErrNoRules = errors.New("no rules file")

// missingError is a rules file not found: both ErrNoRules and the cause.
type missingError struct {
	path string
	err  error
}

func (e *missingError) Error() string   { return ErrNoRules.Error() + " at " + e.path }
func (e *missingError) Unwrap() []error { return []error{ErrNoRules, e.err} }

// Missing is the error of a rules file not found at path: it is
// ErrNoRules, and err.
func Missing(path string, err error) error { return &missingError{path: path, err: err} }

// Load reads and validates a rules file.
func Load(path string) (*Rules, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse validates the contents of a rules file; path is used in errors.
// Every mistake it finds is returned at once, in the order of their lines:
// each is an *Error (errors.As finds the first); a file that is not YAML
// has one.
func Parse(path string, data []byte) (*Rules, error) {
	r, problems := parse(path, data)
	if len(problems) > 0 {
		return nil, joinProblems(problems)
	}
	return r, nil
}

// parse reads what it can of a rules file, and notes every mistake on the
// way; the rules are nil when the file is not YAML.
func parse(path string, data []byte) (*Rules, []*Error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, []*Error{syntaxError(path, data, err)}
	}
	p := &parser{path: path}
	r := &Rules{Path: path, Allowed: make(map[string]*Allow)}
	if len(doc.Content) == 0 {
		p.fail(0, "the file is empty: it must define allowed_interactions")
		return r, p.problems
	}
	root := doc.Content[0]
	entries := 0 // of allowed_interactions, valid or not; -1 when it is no mapping
	p.mapping(root, "the rules file", func(key, value *yaml.Node) {
		switch key.Value {
		case "allowed_interactions":
			before := len(p.problems)
			if entries = p.allowed(value, r); entries == 0 && len(p.problems) > before {
				entries = -1 // not a mapping: said so already
			}
		case "forbidden_interactions":
			p.forbidden(value, r)
		case "oversight":
			r.Oversight = p.names(value, "oversight", false)
		case "interrupts":
			names := p.names(value, "interrupts", false)
			if names == nil && !(value.Kind == yaml.ScalarNode && value.Tag == "!!null") {
				names = []Name{} // an explicit empty list: nobody but the operator
			}
			r.Interrupts = names
		default:
			p.fail(key.Line, "unknown key %q (known: allowed_interactions, forbidden_interactions, oversight, interrupts)", key.Value)
		}
	})
	if entries == 0 {
		p.fail(root.Line, "allowed_interactions is missing or empty: name at least one agent")
	}
	return r, p.problems
}

// joinProblems is one error of every problem, in the order of their lines,
// one to a line.
func joinProblems(problems []*Error) error {
	slices.SortStableFunc(problems, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = p
	}
	return errors.Join(errs...)
}

// parser notes the mistakes of one rules file as it reads on: a file with
// two is told both at once, not one per try.
type parser struct {
	path     string
	problems []*Error
}

// fail notes a mistake at line (0 when no line is known).
func (p *parser) fail(line int, format string, args ...any) {
	p.problems = append(p.problems, &Error{Path: p.path, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// mapping calls each with every key of n and its value; a key repeated is
// noted and left out.
func (p *parser) mapping(n *yaml.Node, what string, each func(key, value *yaml.Node)) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if n.Kind != yaml.MappingNode {
		p.fail(n.Line, "%s must be a mapping of keys to values", what)
		return
	}
	seen := make(map[string]int)
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i]
		if first, dup := seen[key.Value]; dup {
			p.fail(key.Line, "%q is repeated in %s (first at line %d): merge the two", key.Value, what, first)
			continue
		}
		seen[key.Value] = key.Line
		each(key, n.Content[i+1])
	}
}

// allowed reads allowed_interactions into r, and returns how many entries
// it has, valid or not.
func (p *parser) allowed(n *yaml.Node, r *Rules) int {
	entries := 0
	p.mapping(n, "allowed_interactions", func(key, value *yaml.Node) {
		entries++
		if err := mailbox.ValidateAgentName(key.Value); err != nil {
			p.fail(key.Line, "%v", err)
			return
		}
		a := &Allow{Line: key.Line}
		p.mapping(value, "the entry of "+key.Value, func(k, v *yaml.Node) {
			switch k.Value {
			case "can_send_to":
				a.CanSendTo = p.names(v, key.Value+".can_send_to", true)
			case "can_receive_from":
				a.CanReceiveFrom = p.names(v, key.Value+".can_receive_from", true)
			default:
				p.fail(k.Line, "unknown key %q in the entry of %s (known: can_send_to, can_receive_from)", k.Value, key.Value)
			}
		})
		r.Allowed[key.Value] = a
	})
	return entries
}

func (p *parser) forbidden(n *yaml.Node, r *Rules) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if n.Kind != yaml.SequenceNode {
		p.fail(n.Line, "forbidden_interactions must be a list of {from, to, reason}")
		return
	}
	for _, item := range n.Content {
		before := len(p.problems)
		f := Forbidden{Line: item.Line}
		p.mapping(item, "a forbidden entry", func(k, v *yaml.Node) {
			if v.Kind != yaml.ScalarNode {
				p.fail(v.Line, "%s must be a single value", k.Value)
				return
			}
			switch k.Value {
			case "from":
				f.From, f.fromLine = v.Value, v.Line
			case "to":
				f.To, f.toLine = v.Value, v.Line
			case "reason":
				f.Reason = v.Value
			default:
				p.fail(k.Line, "unknown key %q in a forbidden entry (known: from, to, reason)", k.Value)
			}
		})
		if len(p.problems) > before {
			continue // an end left out because it was written wrong is said once
		}
		valid := true
		for _, end := range []struct{ field, value string }{{"from", f.From}, {"to", f.To}} {
			switch {
			case end.value == "":
				p.fail(item.Line, "forbidden entry has no %q", end.field)
				valid = false
			case end.value != Wildcard:
				if err := mailbox.ValidateAgentName(end.value); err != nil {
					p.fail(item.Line, "forbidden entry %s: %v", end.field, err)
					valid = false
				}
			}
		}
		if valid {
			r.Forbidden = append(r.Forbidden, f)
		}
	}
}

// names reads a list of agent names; a single name is accepted as a list
// of one. A name written wrong is noted and left out.
func (p *parser) names(n *yaml.Node, what string, wildcard bool) []Name {
	var items []*yaml.Node
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return nil
	case n.Kind == yaml.ScalarNode:
		items = []*yaml.Node{n}
	case n.Kind == yaml.SequenceNode:
		items = n.Content
	default:
		p.fail(n.Line, "%s must be a list of agent names", what)
		return nil
	}
	names := make([]Name, 0, len(items))
	for _, item := range items {
		switch {
		case item.Kind != yaml.ScalarNode:
			p.fail(item.Line, "%s must be a list of agent names", what)
		case item.Value == Wildcard && !wildcard:
			p.fail(item.Line, "%s must name agents; \"*\" is not allowed here", what)
		case item.Value == Wildcard:
			names = append(names, Name{Value: item.Value, Line: item.Line})
		default:
			if err := mailbox.ValidateAgentName(item.Value); err != nil {
				p.fail(item.Line, "%s: %v", what, err)
				continue
			}
			names = append(names, Name{Value: item.Value, Line: item.Line})
		}
	}
	return names
}
