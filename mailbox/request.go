package mailbox

import (
	"encoding/json"
	"strings"
)

// The fields of the ask protocol, kept among a message's extra fields: a
// request lists the answers it accepts, a response names the one it chose.
const (
	fieldOptions = "options"
	fieldOption  = "option"
)

// Options are the answers a request accepts, if it lists any. A malformed
// list accepts any answer.
func (m *Message) Options() []string {
	var options []string
	if raw, ok := m.Extra[fieldOptions]; ok {
		_ = json.Unmarshal(raw, &options)
	}
	return options
}

// SetOptions makes the message a request answered by one of options.
func (m *Message) SetOptions(options []string) {
	m.setExtra(fieldOptions, options)
}

// Answer is what a response answers: the option it chose, else its content,
// else its title.
func (m *Message) Answer() string {
	var option string
	if raw, ok := m.Extra[fieldOption]; ok && json.Unmarshal(raw, &option) == nil && option != "" {
		return option
	}
	if body := strings.TrimSpace(m.Content); body != "" {
		return body
	}
	return m.Title
}

// Reply is the response to m: to its sender, titled "Re: <title>", with
// m's correlation id (or m's id when it had none), in reply to m. A request
// with options is answered with option; its content, when empty, is the
// option too.
func (m *Message) Reply(content, option string) *Message {
	title := m.Title
	if !strings.HasPrefix(title, "Re: ") {
		title = "Re: " + title
	}
	correlation := m.CorrelationID
	if correlation == "" {
		correlation = m.ID
	}
	reply := &Message{
		To:            []string{m.From},
		Title:         ClipTitle(title),
		Content:       content,
		Type:          TypeResponse,
		CorrelationID: correlation,
		InReplyTo:     m.ID,
	}
	if option != "" {
		reply.setExtra(fieldOption, option)
		if strings.TrimSpace(reply.Content) == "" {
			reply.Content = option
		}
	}
	return reply
}

func (m *Message) setExtra(key string, v any) {
	raw, _ := json.Marshal(v) // strings, lists and structs of them always encode
	if m.Extra == nil {
		m.Extra = make(map[string]json.RawMessage)
	}
	m.Extra[key] = raw
}
