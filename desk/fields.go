package desk

import (
	"fmt"
	"strings"

	"switchboard/mailbox"
)

// A Field is one input an agent gives to Send, Reply or Ask, declared here
// once for both front ends: the command's flag and the MCP tool's input are
// named after it and show its help, so that the two say the same.
type Field struct {
	// Name is the field's name, its words joined by "-", as a flag has it.
	Name string
	// Help says what the field is, in no front end's syntax: how a list or
	// standard input is given is each front end's to add.
	Help string
	// Default is the value taken when the field is left out, when there is
	// one to show; "" for none.
	Default string
}

// Flag is the field's name as a command's flag, like requires-response.
func (f Field) Flag() string { return f.Name }

// Property is the field's name in a tool's JSON input, like
// requires_response.
func (f Field) Property() string { return strings.ReplaceAll(f.Name, "-", "_") }

// priorityField is the same for every message an agent writes.
var priorityField = Field{Name: "priority", Help: oneOf(mailbox.Priorities()), Default: mailbox.PriorityNormal}

// SendFields are the fields of a message sent with Send.
var SendFields = struct {
	To, Title, Content, Priority, Type, RequiresResponse, CorrelationID, ReplyTo Field
}{
	To:               Field{Name: "to", Help: "the recipients, by agent name, or " + mailbox.Broadcast + " alone for every other agent"},
	Title:            Field{Name: "title", Help: fmt.Sprintf("one line saying what the message is about, up to %d characters", mailbox.MaxTitleLength)},
	Content:          Field{Name: "content", Help: "the body"},
	Priority:         priorityField,
	Type:             Field{Name: "type", Help: oneOf(mailbox.Types()), Default: mailbox.TypeNotification},
	RequiresResponse: Field{Name: "requires-response", Help: "ask the recipient to answer"},
	CorrelationID:    Field{Name: "correlation-id", Help: "ties a request to its replies"},
	ReplyTo:          Field{Name: "reply-to", Help: "the id of the message this answers"},
}

// ReplyFields are the fields of an answer given with Reply, besides the id
// of the message it answers.
var ReplyFields = struct {
	Content, Title, Priority, Option, Again Field
}{
	Content:  Field{Name: "content", Help: "the answer"},
	Title:    Field{Name: "title", Help: `the title (default "Re: <title of the message>")`},
	Priority: priorityField,
	Option:   Field{Name: "option", Help: "the chosen answer, for a request that lists options"},
	Again:    Field{Name: "again", Help: "answer a message you have answered already"},
}

// AskFields are the fields of a question asked with Ask, besides how long
// to wait for its answer.
var AskFields = struct {
	To, Title, Content, Options, Priority, Forward Field
}{
	To:       Field{Name: "to", Help: "the agent to ask (left out, a spawned agent asks its parent)"},
	Title:    Field{Name: "title", Help: "the question, in one line (left out when forwarding: the request's own)"},
	Content:  Field{Name: "content", Help: "details"},
	Options:  Field{Name: "options", Help: "the answers accepted, like yes and no"},
	Priority: priorityField,
	Forward:  Field{Name: "forward", Help: "the id of a request in your inbox you cannot decide: it is asked in turn (of the agent named to ask, else your parent, else the person) and answered with what comes back"},
}

// oneOf says a choice among values: "a, b or c".
func oneOf(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}
