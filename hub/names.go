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

// maxKey bounds a key of the team's buckets, in bytes. A key is a token of
// a subject, and a subject past the server's control line (4 KiB) is
// answered with an error and the connection closed: a name an agent chose
// must never cut its host off the team.
const maxKey = 2 << 10

// checkKey refuses a key over maxKey.
func checkKey(what, key string) error {
	if len(key) > maxKey {
		return fmt.Errorf("%w: %s of %d bytes, over the hub's bound of %d: use a shorter one", ErrBadName, what, len(key), maxKey)
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

// The buckets of a team. Presence keys are "<host>.<agent>"; claim keys are
// "held.<agent>.<host>" and "left.<agent>.<host>" (claims.go).
func (n names) presence() string { return "SB_" + n.team + "_presence" }
func (n names) claims() string   { return "SB_" + n.team + "_claims" }
func (n names) rules() string    { return "SB_" + n.team + "_rules" }
func (n names) locks() string    { return "SB_" + n.team + "_locks" }
func (n names) shared() string   { return "SB_" + n.team + "_shared" }

func (n names) buckets() []string {
	return []string{n.presence(), n.claims(), n.rules(), n.locks(), n.shared()}
}

// retiredHeartbeats is the bucket of the hosts' beats of earlier versions,
// which beat by a message now (reach.go).
func (n names) retiredHeartbeats() string { return "SB_" + n.team + "_hosts" }

// kvStream is the stream behind a bucket; kvSubject the subject of its key.
func kvStream(bucket string) string       { return "KV_" + bucket }
func kvSubject(bucket, key string) string { return "$KV." + bucket + "." + key }

// api is the prefix under which a host reaches the team's JetStream API,
// in its own account: the server carries each request to the team's
// account ($JS.API), and only the requests the host's grant names.
func (n names) api() string { return "sb." + n.team + ".js" }

// apiLocal is the subject, in a host's account, of the team's API subject
// subject ($JS.API.X or any other of the team's account, as $KV.B.K).
func (n names) apiLocal(subject string) string {
	if rest, ok := strings.CutPrefix(subject, jsAPI); ok {
		return n.api() + "." + rest
	}
	return n.api() + "." + subject
}

// jsAPI is the prefix of JetStream's API in the team's account.
const jsAPI = "$JS.API."

// feed is where the hub tells of each change to bucket, once it is stored
// (the bucket's stream republishes it): no host may publish there, so
// what a host hears on it is what the hub holds. feedAll is every
// bucket's.
func (n names) feed(bucket string) string { return "sb." + n.team + ".feed." + bucket }
func (n names) feedAll() string           { return "sb." + n.team + ".feed.>" }

// beat is where host says it is up; reachRequest where it asks who else
// is; feedReach where the hub tells the team that host came or went
// (reach.go).
func (n names) beat(host string) string         { return "sb." + n.team + ".hub.beat." + host }
func (n names) reachRequest(host string) string { return "sb." + n.team + ".hub.reach." + host }
func (n names) feedReach(host string) string    { return n.feed("reach") + "." + host }

// writeRequest is where host asks the hub to write (writes.go).
func (n names) writeRequest(host string) string { return "sb." + n.team + ".hub.write." + host }

// consumerRequest is where host asks the hub to make its mail consumer.
func (n names) consumerRequest(host string) string { return "sb." + n.team + ".hub.consumer." + host }

// inboxPrefix is where a host's replies arrive. Each host may subscribe only
// under its own prefix, so no host can read another's pulled mail or replies.
func inboxPrefix(host string) string { return "_INBOX_" + host }
