package mailbox

import (
	"slices"
	"testing"
)

func TestReplyCarriesTheConversationAndTheChosenOption(t *testing.T) {
	req := &Message{ID: "req-1", From: "developer_agent", Title: "May I merge?", Type: TypeRequest}
	req.SetOptions([]string{"yes", "no"})
	if got := req.Options(); !slices.Equal(got, []string{"yes", "no"}) {
		t.Fatalf("options = %q", got)
	}
	reply := req.Reply("", "no")
	if reply.To[0] != "developer_agent" || reply.Title != "Re: May I merge?" || reply.CorrelationID != "req-1" ||
		reply.InReplyTo != "req-1" || reply.Type != TypeResponse || reply.Content != "no" || reply.Answer() != "no" {
		t.Errorf("reply = %+v; want a response to the sender, in its conversation, answering no", reply)
	}
	again := reply.Reply("thanks", "")
	if again.Title != "Re: May I merge?" || again.CorrelationID != "req-1" || again.Answer() != "thanks" {
		t.Errorf("a reply to the reply = %+v; want the same title and conversation", again)
	}
	if got := (&Message{Title: "Only a title"}).Answer(); got != "Only a title" {
		t.Errorf("answer of a bare message = %q", got)
	}
}
