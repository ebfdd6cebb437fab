package yamlsyntax

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestExplainPointsAtTheLineThatIsWrong(t *testing.T) {
	tests := []struct {
		name, text string
		line       int
		msg        string
	}{
		{"a key indented too far, far below its block", "a:\n  b: 1\n  c: 2\n\n# more\nd:\n  x: 1\n e: 4\n", 8, "did not find expected key: this line's indentation does not match"},
		{"a key indented one space short", "a:\n  b:\n    c: 1\n   d: 2\n", 4, "did not find expected key"},
		{"a list item's key short", "a:\n  - b: 1\n   c: 2\n", 3, "did not find expected '-' indicator: this line's indentation does not match the list above it"},
		{"a tab", "a:\n\tb: 1\n", 2, "a tab or a stray character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc yaml.Node
			err := yaml.Unmarshal([]byte(tt.text), &doc)
			if err == nil {
				t.Fatal("the text parses")
			}
			line, msg, ok := Explain([]byte(tt.text), err)
			if !ok || line != tt.line || !strings.Contains(msg, tt.msg) {
				t.Errorf("Explain = %d, %q, %v; want line %d with %q (yaml said %v)", line, msg, ok, tt.line, tt.msg, err)
			}
		})
	}
}
