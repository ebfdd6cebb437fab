package hub

import (
	"fmt"
	"strings"

	"switchboard/mailbox"
)

// validName is the pattern of agent names. A name that passes is one
// subject token and one key token, so it can never reach into another
// host's subjects or keys.
func validName(name string) bool { return mailbox.WellFormedName(name) }

func checkName(kind, name string) error {
	if !validName(name) {
		return fmt.Errorf("%w: %s name %q: use 1-63 lowercase letters, digits, _ or -, starting with a letter or digit", ErrBadName, kind, name)
	}
	return nil
}

// names derives every subject, stream and bucket of one team, so that the
// server's permissions and the client's requests cannot drift apart.
type names struct{ team string }

func (n names) stream() string { return "SB_" + n.team }

// mail is the subject of one copy: the recipient's host, whose consumer
// alone takes it; the publishing host, under whose name alone the server
// lets it publish; the recipient.
func (n names) mail(toHost, fromHost, to string) string {
	return "sb." + n.team + ".mail." + toHost + "." + fromHost + "." + to
}

func (n names) mailAll() string { return "sb." + n.team + ".mail.>" }

// mailFor is the filter of host's consumer: the copies addressed to it.
func (n names) mailFor(host string) string { return "sb." + n.team + ".mail." + host + ".>" }

// parseMail returns the host a mail subject addresses, the publishing host
// and the recipient.
func (n names) parseMail(subject string) (toHost, fromHost, to string, ok bool) {
	rest, found := strings.CutPrefix(subject, "sb."+n.team+".mail.")
	if !found {
		return "", "", "", false
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 || !validName(parts[0]) || !validName(parts[1]) || !validName(parts[2]) {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

// The buckets of a team. Presence keys are "<host>.<agent>"; heartbeat keys
// are "<host>" and expire by the bucket's age limit; claim keys are
// "held.<agent>.<host>" and "left.<agent>.<host>" (claims.go).
func (n names) presence() string  { return "SB_" + n.team + "_presence" }
func (n names) claims() string    { return "SB_" + n.team + "_claims" }
func (n names) heartbeat() string { return "SB_" + n.team + "_hosts" }
func (n names) rules() string     { return "SB_" + n.team + "_rules" }
func (n names) locks() string     { return "SB_" + n.team + "_locks" }
func (n names) shared() string    { return "SB_" + n.team + "_shared" }

func (n names) buckets() []string {
	return []string{n.presence(), n.heartbeat(), n.claims(), n.rules(), n.locks(), n.shared()}
}

// kvStream is the stream behind a bucket; kvSubject the subject of its key.
func kvStream(bucket string) string       { return "KV_" + bucket }
func kvSubject(bucket, key string) string { return "$KV." + bucket + "." + key }

// inboxPrefix is where a host's replies arrive. Each host may subscribe only
// under its own prefix, so no host can read another's pulled mail or replies.
func inboxPrefix(host string) string { return "_INBOX_" + host }
