// Package hub carries mail, presence, locks and shared values between the
// masters of one team on several hosts, through NATS with JetStream.
//
// Join connects one host's master to a hub: one that serves TeamService (the
// program switchboard-hub runs one, with package hub/embedded), or any NATS
// server with JetStream. The package links no server: every program of
// switchboard that talks to a hub links it. A copy of a routed message is
// published by the sender's master to
// sb.<team>.mail.<recipient's host>.<sender's host>.<recipient>, with the
// message id "<id>/<recipient>", so a re-publish after a crash is dropped by
// the stream's duplicate window. The recipient's host is the one that holds
// the recipient (claims.go); a copy for an agent no host holds waits with its
// sender (ErrNoHolder), and one for an agent that moved to another host
// after it was sent is refused where it arrives. Each host's master takes
// the copies addressed to it with a durable pull consumer named after its
// host and acknowledges a copy only after its handler stored it; a crash
// before the ack delivers it again. The stream is a work queue: an
// acknowledged copy leaves the hub, and a copy for a host that is away
// waits (up to 30 days). The hub delivers an
// unacknowledged copy again after 5 s; Receive tells it that a copy whose
// handler is still running is in progress. The duplicate window is 10
// minutes, and it forgets, across a hub restart, the ids of copies already
// acknowledged: a copy whose publish failed and was retried may then arrive
// twice, which the recipient's no-clobber inbox absorbs. The hub syncs each
// copy to its disk before it acknowledges it (a power cut loses none), and
// takes copies of up to 4 MiB. PublishAll sends a backlog before it waits
// for the hub's answers, and ReceiveBatch hands over the copies that arrived
// together, so that a recipient syncs its disk once for them.
//
// # Credentials
//
// An embedded hub gives each host a password of its own (see hub/embedded),
// and each connection the permissions TeamService gives its host name.
//
// # What a host may do
//
// The hub makes the team's stream and buckets itself when it starts, with a
// connection of its own inside its process (TeamService.Prepare). A host
// may:
//   - publish mail, to any host, only under its own name
//     (sb.<team>.mail.*.<its name>.>), so the publishing host of every copy
//     is known for certain from its subject;
//   - write presence, claims and its heartbeat only under its own keys
//     (<its name>.<agent>, held.<agent>.<its name>, left.<agent>.<its name>,
//     <its name>);
//   - write any key of the team's rules, locks and shared buckets;
//   - read any key of the team's buckets, and the configuration and state of
//     the team's streams;
//   - make, read, pull from and acknowledge only the durable consumer named
//     after itself, with the filter of the copies addressed to it and no
//     other: the filter is in the subject of the request that makes it,
//     which the server checks against the request (nats-server 2.9 or
//     newer);
//   - subscribe only under its own reply prefix (_INBOX_<its name>), so it
//     cannot read the replies or pulled mail of another host.
//
// A host may not publish under another host's name, write another host's
// presence, claims or heartbeat, make or change another consumer, make,
// change, purge or delete any stream, delete messages through the
// JetStream API, or use any other subject. Each bucket bounds its values (4 KiB; the rules
// and a shared value 1 MiB).
//
// # What a receiving host checks
//
// Which host runs an agent is decided by the hub's order of claims
// (claims.go): of the claims held at a moment, the one the hub stored first.
// Receive takes a copy only from the host that held its sender when the hub
// stored the copy, by the hub's clock: not from a host that claims another
// host's agent later, nor from one that let the agent go before it sent. A
// copy from Person is the person at the publishing host, whom the receiving
// master tells apart from its own operator. Every other copy is handed over
// with Refused set, and terminated on the hub once the handler has noted it:
// a copy that cannot be placed never comes back to hold up the ones behind
// it. What a claim says of a helper's origin (profile, parent) is for the
// receiving master to judge under its rules.
//
// # What a compromised host can still do
//
// A host that runs hostile code with its own credentials can send as the
// agents it holds, within the rules, and the hub's order of claims limits
// those to the names no other host claimed first. Besides, it can:
//   - claim an agent name that no host holds yet (one whose host never
//     joined), and send as it until that host joins and is refused it;
//   - take, release or force any lock, and overwrite any shared value and
//     the team's board, within the buckets' bounds (every host bounds and
//     escapes the board it shows);
//   - overwrite the team's rules record, so that a host joining while it is
//     up is refused; no host's routing changes, as each routes by its own
//     file;
//   - read the team's claims, presence, locks and shared values, and see
//     which recipients have copies waiting, and from which hosts (the
//     stream's subjects), not their content;
//   - fill the stream and buckets up to the server's limits.
//
// It cannot send as an agent another host holds, nor as the person of
// another host; it cannot read, take or block another host's mail; it
// cannot change another host's rules, presence or consumer. Revoking a host
// means a new secret: remove hub.secret and hand every host its new URL.
//
// # Transport
//
// Without TLS, mail and passwords travel in clear text: an embedded hub says
// so when the hub listens on a non-loopback address. Its Config.TLSCert and
// TLSKey make the hub speak TLS only; JoinConfig.RootCAs names the authority
// of a certificate the system does not trust.
//
// # Presence
//
// A key's time to live can be set only when the key is created, so presence
// does not use one: each agent has a lasting key <host>.<agent> with its
// state, and each host has a key in a heartbeat bucket whose age limit is
// three beats; the host puts it on every beat, while it can take its mail
// (a host that cannot says why, JoinConfig.Trouble, and lets its beat
// lapse). A host whose key expired is unreachable, and Team shows its agents
// so. An agent spawned at run time carries its profile and parent in its
// claim (Origin), so that every host's rules can place it.
//
// # Rules
//
// The first host to join stores the team's rules; a host whose rules differ
// is refused while another host is up. A team with no other host up takes
// the rules of the first to join: that is how a team changes its rules.
//
// Dial connects for a short look (doctor's check that the hub takes the
// host's credentials) without taking the host's place. A command's errands
// (a lock, a shared value, the board) do not dial: only a host's master
// holds its credentials, and does them with its own connection.
//
// The package never prints and never exits; its errors say what to do next.
package hub
