package mailbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Limits on a message, from the design contract.
const (
	MaxFileSize    = 1 << 20   // a message file is at most 1 MiB
	MaxContentSize = 256 << 10 // content is at most 256 KiB
	MaxTitleLength = 200       // characters
)

// Broadcast is the recipient that stands for every known agent but the sender.
const Broadcast = "*"

// Priorities.
const (
	PriorityUrgent = "urgent"
	PriorityNormal = "normal"
	PriorityLow    = "low"
)

// Types.
const (
	TypeInstruction  = "instruction"
	TypeQuery        = "query"
	TypeRequest      = "request"
	TypeResponse     = "response"
	TypeNotification = "notification"
	TypeStatus       = "status"
	TypeInterrupt    = "interrupt"
)

var (
	priorities = []string{PriorityUrgent, PriorityNormal, PriorityLow}
	types      = []string{TypeInstruction, TypeQuery, TypeRequest, TypeResponse, TypeNotification, TypeStatus, TypeInterrupt}
)

// Priorities are the priorities a message may have, most pressing first.
func Priorities() []string { return slices.Clone(priorities) }

// Types are the types a message may have.
func Types() []string { return slices.Clone(types) }

// ErrInvalid is wrapped by every validation error.
var ErrInvalid = errors.New("invalid message")

// ErrIncomplete is wrapped, with ErrInvalid, when a file is empty or not
// whole JSON: it may still be being written.
var ErrIncomplete = errors.New("not whole JSON")

// Message is one message between agents. Fields the contract does not name
// are kept in Extra and written back unchanged.
type Message struct {
	ID               string    `json:"id"`
	Timestamp        time.Time `json:"timestamp"`
	From             string    `json:"from"`
	To               []string  `json:"to"`
	Title            string    `json:"title"`
	Priority         string    `json:"priority"`
	Type             string    `json:"type"`
	Content          string    `json:"content,omitempty"`
	RequiresResponse bool      `json:"requires_response,omitempty"`
	CorrelationID    string    `json:"correlation_id,omitempty"`
	InReplyTo        string    `json:"in_reply_to,omitempty"`

	// Seq and DeliveredAt are added by the master to each delivered copy.
	Seq         int64     `json:"seq,omitempty"`
	DeliveredAt time.Time `json:"delivered_at,omitzero"`
	// Via is the host whose master routed a copy that came across the hub
	// from another host (Seq is then that master's); empty for a copy
	// routed here. The master sets it: a sender's is dropped.
	Via string `json:"via,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// knownFields are the keys Message decodes itself; anything else goes to Extra.
var knownFields = map[string]bool{
	"id": true, "timestamp": true, "from": true, "to": true, "title": true,
	"priority": true, "type": true, "content": true, "requires_response": true,
	"correlation_id": true, "in_reply_to": true, "seq": true, "delivered_at": true, "via": true,
}

// wireMessage is the JSON shape as written by agents: "to" may be a single
// string and the timestamp may be missing.
type wireMessage struct {
	ID               string          `json:"id"`
	Timestamp        string          `json:"timestamp"`
	From             string          `json:"from"`
	To               json.RawMessage `json:"to"`
	Title            *string         `json:"title"`
	Priority         string          `json:"priority"`
	Type             string          `json:"type"`
	Content          string          `json:"content"`
	RequiresResponse bool            `json:"requires_response"`
	CorrelationID    string          `json:"correlation_id"`
	InReplyTo        string          `json:"in_reply_to"`
	Seq              int64           `json:"seq"`
	DeliveredAt      string          `json:"delivered_at"`
	Via              string          `json:"via"`
}

// Parse decodes a message file. It checks the JSON shape and field types;
// Validate checks the values.
func Parse(data []byte) (*Message, error) {
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%w: file is %d bytes, the limit is %d", ErrInvalid, len(data), MaxFileSize)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%w: file is empty (%w)", ErrInvalid, ErrIncomplete)
	}
	if err := CheckStructure(data); err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, fmt.Errorf("%w: not a JSON object: %w (%w)", ErrInvalid, err, ErrIncomplete)
		}
		return nil, fmt.Errorf("%w: not a JSON object: %w", ErrInvalid, err)
	}
	// Go matches JSON keys to fields regardless of case, by Unicode case
	// folding: a "FROM" or a "ſeq" (long s) beside "from" or "seq" could
	// decide a field. Only exact keys may name a field.
	for k := range raw {
		if knownFields[k] {
			continue
		}
		for field := range knownFields {
			if strings.EqualFold(k, field) {
				return nil, fmt.Errorf("%w: field %q differs from %q only in case; write it as %q", ErrInvalid, k, field, field)
			}
		}
	}
	var w wireMessage
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, describeJSONError(err))
	}
	m := &Message{
		ID: w.ID, From: w.From, Priority: w.Priority, Type: w.Type,
		Content: w.Content, RequiresResponse: w.RequiresResponse,
		CorrelationID: w.CorrelationID, InReplyTo: w.InReplyTo, Seq: w.Seq, Via: w.Via,
	}
	if w.Title != nil {
		m.Title = *w.Title
	}
	to, err := parseRecipients(w.To)
	if err != nil {
		return nil, err
	}
	m.To = to
	if w.Timestamp != "" {
		ts, err := time.Parse(time.RFC3339Nano, w.Timestamp)
		if err != nil {
			return nil, fmt.Errorf("%w: timestamp %q is not RFC 3339 (example: 2026-11-22T08:57:00.123Z)", ErrInvalid, w.Timestamp)
		}
		if y := ts.UTC().Year(); y < 1 || y > 9999 {
			return nil, fmt.Errorf("%w: timestamp %q is outside the years 1 to 9999 in UTC", ErrInvalid, w.Timestamp)
		}
		m.Timestamp = ts.UTC()
	}
	if w.DeliveredAt != "" {
		ts, err := time.Parse(time.RFC3339Nano, w.DeliveredAt)
		if err == nil && (ts.UTC().Year() < 1 || ts.UTC().Year() > 9999) {
			err = errors.New("outside the years 1 to 9999")
		}
		if err != nil {
			return nil, fmt.Errorf("%w: delivered_at %q is not RFC 3339", ErrInvalid, w.DeliveredAt)
		}
		m.DeliveredAt = ts.UTC()
	}
	for k, v := range raw {
		if !knownFields[k] {
			if m.Extra == nil {
				m.Extra = make(map[string]json.RawMessage)
			}
			m.Extra[k] = v
		}
	}
	return m, nil
}

func parseRecipients(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("%w: \"to\" must be an agent name or a list of agent names", ErrInvalid)
	}
	return many, nil
}

func describeJSONError(err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return fmt.Errorf("field %q must be a %s, not a JSON %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	}
	return err
}

func jsonKind(goKind string) string {
	switch goKind {
	case "bool":
		return "boolean"
	case "int64":
		return "number"
	default:
		return goKind
	}
}

// Validate checks every field against the contract. It expects Normalize to
// have filled the defaults.
func (m *Message) Validate() error {
	if m.ID == "" {
		return fmt.Errorf("%w: id is missing", ErrInvalid)
	}
	if _, err := uuid.Parse(m.ID); err != nil || len(m.ID) != 36 {
		return fmt.Errorf("%w: id %q is not a UUID (leave it out and one is made)", ErrInvalid, m.ID)
	}
	if m.Timestamp.IsZero() {
		return fmt.Errorf("%w: timestamp is missing", ErrInvalid)
	}
	if err := ValidateAgentName(m.From); err != nil {
		return fmt.Errorf("%w: from: %w", ErrInvalid, err)
	}
	if len(m.To) == 0 {
		return fmt.Errorf("%w: \"to\" is missing: name at least one agent, or \"*\" for everyone", ErrInvalid)
	}
	seen := make(map[string]bool, len(m.To))
	for _, to := range m.To {
		if to == Broadcast {
			if len(m.To) > 1 {
				return fmt.Errorf("%w: \"*\" must be the only recipient", ErrInvalid)
			}
			continue
		}
		if err := ValidateAgentName(to); err != nil {
			return fmt.Errorf("%w: to: %w", ErrInvalid, err)
		}
		if seen[to] {
			return fmt.Errorf("%w: recipient %q is named twice", ErrInvalid, to)
		}
		seen[to] = true
	}
	if err := validateTitle(m.Title); err != nil {
		return err
	}
	if !slices.Contains(priorities, m.Priority) {
		return fmt.Errorf("%w: priority %q is not one of %s", ErrInvalid, m.Priority, strings.Join(priorities, ", "))
	}
	if !slices.Contains(types, m.Type) {
		return fmt.Errorf("%w: type %q is not one of %s", ErrInvalid, m.Type, strings.Join(types, ", "))
	}
	if len(m.Content) > MaxContentSize {
		return fmt.Errorf("%w: content is %d bytes, the limit is %d; put large material in a file and name it", ErrInvalid, len(m.Content), MaxContentSize)
	}
	if !utf8.ValidString(m.Content) {
		return fmt.Errorf("%w: content is not valid UTF-8", ErrInvalid)
	}
	// The copy in each inbox must still be a file its recipient can read.
	// Extra fields are written as they came, compacted (see Encode).
	size := encodedSize(m.Content) + encodedSize(m.Title) + 4096
	for k, v := range m.Extra {
		size += encodedSize(k) + len(v) + 8
	}
	if size > MaxFileSize {
		return fmt.Errorf("%w: the message would be about %d bytes once written, over the %d-byte limit; shorten the content (control characters take 6 bytes each)", ErrInvalid, size, MaxFileSize)
	}
	return nil
}

func validateTitle(title string) error {
	switch n := utf8.RuneCountInString(title); {
	case strings.TrimSpace(title) == "":
		return fmt.Errorf("%w: title is missing", ErrInvalid)
	case n > MaxTitleLength:
		return fmt.Errorf("%w: title is %d characters, the limit is %d; put the rest in the content", ErrInvalid, n, MaxTitleLength)
	case strings.ContainsAny(title, "\r\n"):
		return fmt.Errorf("%w: title must be one line", ErrInvalid)
	case !utf8.ValidString(title):
		return fmt.Errorf("%w: title is not valid UTF-8", ErrInvalid)
	}
	return nil
}

// Normalize fills what a sender may leave out: id, timestamp, priority and
// type. It reports whether it changed anything.
func (m *Message) Normalize(now time.Time) bool {
	changed := false
	if m.ID == "" {
		m.ID = NewID()
		changed = true
	} else if u, err := uuid.Parse(m.ID); err == nil && u.String() != m.ID {
		m.ID = u.String()
		changed = true
	}
	if m.Timestamp.IsZero() {
		m.Timestamp = now.UTC()
		changed = true
	}
	if m.Priority == "" {
		m.Priority = PriorityNormal
		changed = true
	}
	if m.Type == "" {
		m.Type = TypeNotification
		changed = true
	}
	return changed
}

// IsBroadcast reports whether the message is addressed to everyone.
func (m *Message) IsBroadcast() bool {
	return len(m.To) == 1 && m.To[0] == Broadcast
}

// NewID returns a fresh UUIDv7, which sorts by creation time.
func NewID() string {
	return uuid.Must(uuid.NewV7()).String()
}

// MarshalJSON writes the known fields in a fixed order, then Extra. It
// does not escape <, > and &: a message is not HTML, and escaping would
// triple the size of some content.
func (m *Message) MarshalJSON() ([]byte, error) {
	type plain Message
	known, err := marshalPlain((*plain)(m))
	if err != nil {
		return nil, err
	}
	if len(m.Extra) == 0 {
		return known, nil
	}
	extra, err := marshalPlain(m.Extra)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(known)+len(extra))
	out = append(out, known[:len(known)-1]...)
	out = append(out, ',')
	out = append(out, extra[1:]...)
	return out, nil
}

func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// encodedSize is how many bytes s takes inside a JSON string.
func encodedSize(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t' || r == '\b' || r == '\f':
			n += 2
		case r < 0x20 || r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += utf8.RuneLen(r)
		}
	}
	return n
}

// UnmarshalJSON is Parse for code that decodes messages inside other JSON.
func (m *Message) UnmarshalJSON(data []byte) error {
	parsed, err := Parse(data)
	if err != nil {
		return err
	}
	*m = *parsed
	return nil
}

// Encode returns the message as JSON with a trailing newline, the form in
// which it is written to disk: its fields indented, one a line, and each
// extra field on one line as it came, compacted. Indenting what an agent
// nests deep would multiply its size with every level.
func (m *Message) Encode() ([]byte, error) {
	type plain Message
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode((*plain)(m)); err != nil {
		return nil, fmt.Errorf("encode message %s: %w", m.ID, err)
	}
	if len(m.Extra) == 0 {
		return b.Bytes(), nil
	}
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n}\n"))
	for _, k := range slices.Sorted(maps.Keys(m.Extra)) {
		key, err := marshalPlain(k)
		if err != nil {
			return nil, fmt.Errorf("encode message %s: %w", m.ID, err)
		}
		var value bytes.Buffer
		if err := json.Compact(&value, m.Extra[k]); err != nil {
			return nil, fmt.Errorf("encode message %s: field %s: %w", m.ID, key, err)
		}
		out = append(out, ",\n  "...)
		out = append(out, key...)
		out = append(out, ": "...)
		out = append(out, value.Bytes()...)
	}
	return append(out, "\n}\n"...), nil
}

// ClipTitle makes s a valid title: one line, at most MaxTitleLength
// characters, cut with an ellipsis.
func ClipTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= MaxTitleLength {
		return s
	}
	return string([]rune(s)[:MaxTitleLength-1]) + "…"
}

// FitsLine reports whether text is one line of at most MaxTitleLength
// characters: what every agent is shown before each prompt (a lock's name
// and reason, a phase, a warning).
func FitsLine(text string) bool {
	return utf8.RuneCountInString(text) <= MaxTitleLength && !strings.ContainsAny(text, "\r\n")
}
