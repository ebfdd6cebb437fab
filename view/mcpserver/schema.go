package mcpserver

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"switchboard/desk"
)

// inputSchema is the schema of a tool's input In, as the SDK would infer
// it, with the properties of fields described as desk declares them for the
// commands' flags too, and their defaults said. Its other properties keep
// the descriptions of their jsonschema tags.
func inputSchema[In any](fields ...desk.Field) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: the schema of %T: %v", *new(In), err))
	}
	for _, f := range fields {
		p, ok := s.Properties[f.Property()]
		if !ok {
			panic(fmt.Sprintf("mcpserver: %T has no input %q", *new(In), f.Property()))
		}
		p.Description = f.Help
		if f.Default != "" {
			p.Description += " (default " + f.Default + ")"
		}
	}
	return s
}
