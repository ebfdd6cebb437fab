package rules

import (
	"errors"
	"fmt"

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
func Parse(path string, data []byte) (*Rules, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError(path, data, err)
	}
	p := parser{path: path}
	r := &Rules{Path: path, Allowed: make(map[string]*Allow)}
	if len(doc.Content) == 0 {
		return nil, p.fail(0, "the file is empty: it must define allowed_interactions")
	}
	root := doc.Content[0]
	if err := p.mapping(root, "the rules file", func(key, value *yaml.Node) error {
		switch key.Value {
		case "allowed_interactions":
			return p.allowed(value, r)
		case "forbidden_interactions":
			return p.forbidden(value, r)
		case "oversight":
			names, err := p.names(value, "oversight", false)
			r.Oversight = names
			return err
		case "interrupts":
			names, err := p.names(value, "interrupts", false)
			if names == nil && !(value.Kind == yaml.ScalarNode && value.Tag == "!!null") {
				names = []Name{} // an explicit empty list: nobody but the operator
			}
			r.Interrupts = names
			return err
		default:
			return p.fail(key.Line, "unknown key %q (known: allowed_interactions, forbidden_interactions, oversight, interrupts)", key.Value)
		}
	}); err != nil {
		return nil, err
	}
	if len(r.Allowed) == 0 {
		return nil, p.fail(root.Line, "allowed_interactions is missing or empty: name at least one agent")
	}
	return r, nil
}

type parser struct{ path string }

func (p parser) fail(line int, format string, args ...any) error {
	return &Error{Path: p.path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p parser) mapping(n *yaml.Node, what string, each func(key, value *yaml.Node) error) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return p.fail(n.Line, "%s must be a mapping of keys to values", what)
	}
	seen := make(map[string]int)
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i]
		if first, dup := seen[key.Value]; dup {
			return p.fail(key.Line, "%q is repeated in %s (first at line %d): merge the two", key.Value, what, first)
		}
		seen[key.Value] = key.Line
		if err := each(key, n.Content[i+1]); err != nil {
			return err
		}
	}
	return nil
}

func (p parser) allowed(n *yaml.Node, r *Rules) error {
	return p.mapping(n, "allowed_interactions", func(key, value *yaml.Node) error {
		if err := mailbox.ValidateAgentName(key.Value); err != nil {
			return p.fail(key.Line, "%v", err)
		}
		a := &Allow{Line: key.Line}
		err := p.mapping(value, "the entry of "+key.Value, func(k, v *yaml.Node) error {
			var err error
			switch k.Value {
			case "can_send_to":
				a.CanSendTo, err = p.names(v, key.Value+".can_send_to", true)
			case "can_receive_from":
				a.CanReceiveFrom, err = p.names(v, key.Value+".can_receive_from", true)
			default:
				err = p.fail(k.Line, "unknown key %q in the entry of %s (known: can_send_to, can_receive_from)", k.Value, key.Value)
			}
			return err
		})
		r.Allowed[key.Value] = a
		return err
	})
}

func (p parser) forbidden(n *yaml.Node, r *Rules) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return p.fail(n.Line, "forbidden_interactions must be a list of {from, to, reason}")
	}
	for _, item := range n.Content {
		f := Forbidden{Line: item.Line}
		err := p.mapping(item, "a forbidden entry", func(k, v *yaml.Node) error {
			if v.Kind != yaml.ScalarNode {
				return p.fail(v.Line, "%s must be a single value", k.Value)
			}
			switch k.Value {
			case "from":
				f.From, f.fromLine = v.Value, v.Line
			case "to":
				f.To, f.toLine = v.Value, v.Line
			case "reason":
				f.Reason = v.Value
			default:
				return p.fail(k.Line, "unknown key %q in a forbidden entry (known: from, to, reason)", k.Value)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, end := range []struct{ field, value string }{{"from", f.From}, {"to", f.To}} {
			if end.value == "" {
				return p.fail(item.Line, "forbidden entry has no %q", end.field)
			}
			if end.value != Wildcard {
				if err := mailbox.ValidateAgentName(end.value); err != nil {
					return p.fail(item.Line, "forbidden entry %s: %v", end.field, err)
				}
			}
		}
		r.Forbidden = append(r.Forbidden, f)
	}
	return nil
}

// names reads a list of agent names; a single name is accepted as a list of one.
func (p parser) names(n *yaml.Node, what string, wildcard bool) ([]Name, error) {
	var items []*yaml.Node
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return nil, nil
	case n.Kind == yaml.ScalarNode:
		items = []*yaml.Node{n}
	case n.Kind == yaml.SequenceNode:
		items = n.Content
	default:
		return nil, p.fail(n.Line, "%s must be a list of agent names", what)
	}
	names := make([]Name, 0, len(items))
	for _, item := range items {
		if item.Kind != yaml.ScalarNode {
			return nil, p.fail(item.Line, "%s must be a list of agent names", what)
		}
		if item.Value == Wildcard {
			if !wildcard {
				return nil, p.fail(item.Line, "%s must name agents; \"*\" is not allowed here", what)
			}
		} else if err := mailbox.ValidateAgentName(item.Value); err != nil {
			return nil, p.fail(item.Line, "%s: %v", what, err)
		}
		names = append(names, Name{Value: item.Value, Line: item.Line})
	}
	return names, nil
}
