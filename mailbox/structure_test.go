package mailbox

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRefusesWhatDecodingWouldChange(t *testing.T) {
	for _, tt := range []struct {
		name, file, says string
	}{
		{"not UTF-8", "{\"to\":\"rev\",\"title\":\"caf\xe9\"}", "not valid UTF-8"},
		{"two to", `{"to":"rev","title":"hi","to":"master_agent"}`, `field "to" is given twice`},
		{"two from", `{"from":"dev","to":"rev","title":"hi","from":"master_agent"}`, `field "from" is given twice`},
		{"deep", `{"to":"*","title":"n","x":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`, "nests arrays or objects 33 deep"},
	} {
		_, err := Parse([]byte(tt.file))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: %v; want it refused: %s", tt.name, err, tt.says)
		}
	}
	// Twice the same key inside an extra field is the agent's own business.
	if _, err := Parse([]byte(`{"to":"rev","title":"hi","x":{"a":1,"a":2}}`)); err != nil {
		t.Errorf("a nested repeated key: %v; want it kept", err)
	}
}

// TestNestingDoesNotMultiplyTheWrittenSize: extra fields are written as they
// came, so what an agent nests as deep as allowed costs what it sent.
func TestNestingDoesNotMultiplyTheWrittenSize(t *testing.T) {
	file := `{"to":"*","title":"n","x":` + strings.Repeat("[", 30) + strings.Repeat("1,", 20000) + "1" + strings.Repeat("]", 30) + `}`
	m, err := Parse([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	m.From, m.ID = "dev", "01a20000-0000-7000-8000-000000000001"
	data, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > len(file)+1024 {
		t.Errorf("a %d-byte file is written as %d bytes", len(file), len(data))
	}
	back, err := Parse(data)
	if err != nil || string(back.Extra["x"]) != string(m.Extra["x"]) {
		t.Errorf("the written copy does not read back the same: %v", err)
	}
}
