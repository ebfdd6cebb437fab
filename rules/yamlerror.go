package rules

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// maxScannedLines bounds the search for the line a syntax error is on.
const maxScannedLines = 5000

// syntaxError turns a YAML syntax error into an Error on the line that is
// wrong. yaml.v3 reports some errors (a key indented wrongly) at the line
// where the enclosing block began, which may be far above; the first
// prefix of the file that fails the same way ends at the line that is
// wrong.
func syntaxError(path string, data []byte, err error) *Error {
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return &Error{Path: path, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	line, _ := strconv.Atoi(m[1])
	msg := m[2]
	if lines := bytes.SplitAfter(data, []byte("\n")); len(lines) <= maxScannedLines {
		var prefix []byte
		for i, l := range lines {
			prefix = append(prefix, l...)
			var doc yaml.Node
			if perr := yaml.Unmarshal(prefix, &doc); perr != nil && strings.HasSuffix(perr.Error(), ": "+msg) {
				line = i + 1
				break
			}
		}
	}
	if hint := syntaxHints[msg]; hint != "" {
		msg += ": " + hint
	}
	return &Error{Path: path, Line: line, Msg: msg}
}

// syntaxHints say in plain words what the parser's most common complaints
// mean in a rules file.
var syntaxHints = map[string]string{
	"did not find expected key":                      "this line's indentation does not match the lines above it (indent with spaces, two per level)",
	"did not find expected '-' indicator":            "this line's indentation does not match the list above it (indent with spaces, two per level)",
	"mapping values are not allowed in this context": "a colon where a value was expected: quote the value, or start a new line for the next key",
	"found character that cannot start any token":    "a tab or a stray character: indent with spaces and quote values that start with @, ` or %",
}
