package lifecycle

import (
	"bytes"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"switchboard/conversation"
	"switchboard/internal/clientinbox"
	"switchboard/internal/clientusage"
	"switchboard/mailbox"
	"switchboard/profile"
)

// When the team comes up again (after down, a reboot, or the master's
// restart of a client), each agent's client goes on with the conversation
// it had: the session its start-up hook recorded for that agent
// (mailboxes/<agent>/client.json), never "the latest in this folder". The
// record is believed only when the session's transcript is that agent's:
// it holds the identity card switchboard gave that agent. A record written
// by hand to name another agent's session, or a helper's parent's, is not.

// resumingKinds are the kinds of client that go on with a conversation by
// its id: Claude Code and Gemini CLI (--resume ID), Codex CLI (resume ID).
var resumingKinds = map[string]bool{profile.KindClaude: true, profile.KindCodex: true, profile.KindGemini: true}

// cardScan is how much of a transcript is read for the identity card,
// which comes with the conversation's first start.
const cardScan = 1 << 20

// resumable is the conversation the agent's client goes on with; "" for a
// new one.
func resumable(store *mailbox.Store, p *profile.Profile) string {
	if p.Fresh || !resumingKinds[p.Kind] {
		return ""
	}
	rec, ok, err := clientinbox.ReadRecord(conversation.Of(store).ClientRecordPath(p.Name))
	if err != nil || !ok || rec.Transcript == "" {
		return ""
	}
	if !OwnSession(rec, p.Name) {
		return ""
	}
	return rec.SessionID
}

// OwnSession reports whether a client record, which the agent writes and
// may fill with anything, names the agent's own session: an id (a UUID,
// nothing a flag could be made of), the client's own file of that session
// as its transcript, and in it the identity card switchboard gave the
// agent (a teammate's session, named with its id and file, holds the
// teammate's card).
func OwnSession(rec clientinbox.Record, agent string) bool {
	return sessionID.MatchString(rec.SessionID) && namedFor(filepath.Base(rec.Transcript), rec.SessionID) &&
		holdsCard(rec.Transcript, agent)
}

// namedFor reports whether a transcript's file name is the one its client
// gives the session id: Claude Code's <id>.jsonl, Codex CLI's
// rollout-<time>-<id>.jsonl, Gemini CLI's session-<time>-<first eight of
// id>.jsonl (which holds the whole id, checked with the card).
func namedFor(name, id string) bool {
	return strings.HasSuffix(name, id+".jsonl") ||
		strings.HasPrefix(name, "session-") && strings.HasSuffix(name, "-"+id[:8]+".jsonl")
}

// sessionID is the form of a session id the clients give: a UUID.
var sessionID = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// holdsCard reports whether the first identity card in the transcript is
// the one switchboard's start-up hook gave the agent: its hook puts it at
// the start of the session, before anything a teammate can write there (a
// message's title or body, shown or typed, may carry another agent's
// card's words).
func holdsCard(path, agent string) bool {
	f, err := clientusage.OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, cardScan))
	if err != nil {
		return false
	}
	return firstCard(head) == agent
}

// cardTail ends every agent's card (CardMark).
const cardTail = "), one agent of a team"

// firstCard is the agent the first card in text names; "" when none does.
func firstCard(text []byte) string {
	end := bytes.Index(text, []byte(cardTail))
	if end < 0 {
		return ""
	}
	start := bytes.LastIndexByte(text[:end], '(')
	if start < 0 {
		return ""
	}
	return string(text[start+1 : end])
}

// CardMark is the words of the identity card that name the agent, as its
// start-up hook writes them.
func CardMark(agent string) string { return "(" + agent + cardTail }
