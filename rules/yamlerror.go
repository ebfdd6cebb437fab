package rules

import (
	"strings"

	"switchboard/internal/yamlsyntax"
)

// syntaxError turns a YAML syntax error into an Error on the line that is
// wrong, saying what it means.
func syntaxError(path string, data []byte, err error) *Error {
	if line, msg, ok := yamlsyntax.Explain(data, err); ok {
		return &Error{Path: path, Line: line, Msg: msg}
	}
	return &Error{Path: path, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
}
