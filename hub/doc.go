// Package hub carries mail, presence, locks and shared values between the
// masters of one team on several hosts, through NATS with JetStream.
//
// Join connects one host's master to a hub: one that serves TeamService (the
// program switchboard-hub runs one, with package hub/embedded), or a NATS
// server with JetStream that switchboard hub config configured, beside
// which switchboard hub serve runs TeamService. The package links no
// server: every program of switchboard that talks to a hub links it. A copy
// of a routed message is published by the hub, at the sender's master's
// request, to sb.<team>.mail.<recipient's host>.<sender's host>.<recipient>,
// with the message id "<sender's host>/<id>/<recipient>", so a re-publish
// after a crash is dropped by the stream's duplicate window. The recipient's host is the one that holds
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
// An embedded hub gives each host a password of its own (see hub/embedded);
// a stock server, the password or nkey hub config derives for it from the
// team's secret. Either puts each connection in the host's own account,
// with the grant TeamService gives its host name (package grant).
//
// # What a host may do
//
// The team's stream and buckets live in an account of the team's own (the
// server's global account, on an embedded hub), which the hub's own
// connection uses. Each host is in an account of its own, which reaches the
// team's only through imports of the subjects that are that host's, and
// may publish to nothing else: whatever the server sends on a host's behalf,
// the answer to a request with any reply subject the host names, lands in
// the host's own account. A host may:
//   - ask the hub to write (sb.<team>.hub.write.<its name>, writes.go):
//     mail to any host, under its own name, and the keys that are its own
//     (presence <its name>.<agent>, claims held.<agent>.<its name> and
//     left.<agent>.<its name>) or the team's (any key of the rules, locks
//     and shared values). The hub writes with the headers it chooses and
//     no other, and gives each copy the id <host>/<id>/<recipient> by
//     which the stream drops a re-publish;
//   - beat (sb.<team>.hub.beat.<its name>), and ask which hosts the hub
//     hears beat (sb.<team>.hub.reach.<its name>);
//   - ask the hub to make its mail consumer (sb.<team>.hub.consumer.<its
//     name>): durable, named after it, taking the copies addressed to it;
//   - read its consumer's state, pull from it, and acknowledge, nak or
//     terminate what it delivered;
//   - read the configuration and state of the team's streams, and any key
//     of the team's buckets (direct gets; the claims, states and shared
//     values also from their streams' leaders);
//   - hear the team's feed (sb.<team>.feed.>), on which each bucket of
//     claims, states and shared values tells what it stored, as it stores
//     it, and the hub tells which hosts came and went
//     (sb.<team>.feed.reach.<host>); no host may publish there;
//   - subscribe under its own reply prefix (_INBOX_<its name>), and to the
//     feed.
//
// Every stream and bucket refuses roll-ups, and refuses to purge or delete
// messages through the API, whoever asks; a master refuses to join a hub
// whose streams would not (ErrUnsafeHub). Each bucket bounds its values (4
// KiB; the rules and a shared value 1 MiB), and the hub a key (2 KiB).
//
// What each of JetStream's API verbs lets a host do, with its own
// credentials, whatever it sends: INFO, STREAM.INFO of the team's streams,
// DIRECT.GET and STREAM.MSG.GET of the buckets: read, as above (the mail
// stream's subjects say which recipients have copies waiting, and from
// which hosts, not what they say); CONSUMER.INFO and CONSUMER.MSG.NEXT of
// its own consumer: read and pull its own mail, the pulled copies going to
// its own account whatever reply it names; every other verb (STREAM.CREATE,
// UPDATE, DELETE, PURGE, MSG.DELETE, SNAPSHOT, RESTORE, LIST, NAMES,
// LEADER.STEPDOWN, PEER.REMOVE, PEER.EVACUATE, CANCEL_MOVE;
// CONSUMER.CREATE, DURABLE.CREATE, DELETE, LIST, NAMES, PAUSE, RESET,
// UNPIN, LEADER.STEPDOWN, PEER.REMOVE, PEER.EVACUATE, and the others'
// consumers' INFO and MSG.NEXT; ACCOUNT.PURGE, ACCOUNT.STREAM.MOVE,
// META.LEADER.STEPDOWN, META.RESCUE, SERVER.REMOVE, SERVER.EVACUATE;
// acknowledgements of other consumers), under JetStream's own prefix or
// under the host's: refused, as a subject the host may not publish to.
//
// What each header JetStream acts on lets a host do: none reaches a stream,
// as no host publishes into one. On its requests to the hub, the hub reads
// its own headers (Sb-Op, Sb-Bucket, Sb-Key, Sb-Revision, Sb-To-Host,
// Sb-To, Sb-Id, Sb-From) and passes no other: Nats-Rollup (which on a
// bucket purges every key), Nats-Expected-Stream, -Last-Sequence,
// -Last-Subject-Sequence(-Subject) and -Last-Msg-Id (the last of which, not
// matching, stops every replicated stream of nats-server 2.15 for good),
// Nats-Msg-Id (by which one host could have another's copy dropped as a
// duplicate, had it the id first), Nats-TTL, Nats-Incr, Nats-Schedule and
// its kin, Nats-Batch-*, KV-Operation, Nats-Marker-Reason,
// Nats-Required-Api-Level, and the tracing headers (Nats-Trace-Dest, which
// would have the server publish where the host says) do nothing. The test
// of a hostile host (hostile_test.go) sends every verb and every header,
// with replies into other hosts' subjects, on an embedded hub, a cluster of
// three and a stock nats-server 2.9, and checks that nothing of another
// host changed and none of its mail was read.
//
// # What a receiving host checks
//
// Which host runs an agent is decided by the hub's order of claims
// (claims.go): of the claims held at a moment, the one the hub stored first.
// Receive takes a copy only from the host that held its sender when the hub
// stored the copy, by the hub's clock: not from a host that claims another
// host's agent later, nor from one that let the agent go before it sent. It
// checks against its view of the team (feed.go) only once the view holds
// every claim the hub stored before the copies it took, and else reads the
// claims from the hub. A copy from Person is the person at the publishing host, whom the receiving
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
// cannot change another host's keys, consumer or rules, nor stop the
// team's streams. Revoking a host means a new secret: remove hub.secret
// and hand every host its new credentials.
//
// # Transport
//
// Without TLS, mail and passwords travel in clear text: an embedded hub says
// so when the hub listens on a non-loopback address. Its Config.TLSCert and
// TLSKey make the hub speak TLS only, to hosts and, in a cluster, between
// nodes too, which check each other's certificates both ways (unless
// Config.ClearRoutes, which the hub warns of); the nodes know each other by
// a password derived from the secret they share. JoinConfig.RootCAs names
// the authority of a certificate the system does not trust.
//
// # Presence
//
// Each agent has a lasting key <host>.<agent> with its state. Each host
// beats, while it can take its mail (a host that cannot says why,
// JoinConfig.Trouble, and lets its beat lapse): a message to the hub that
// nothing stores and no cluster replicates. Each node of the hub notes
// when it last heard each host, and tells the team on the feed when a host
// is first heard and when one was not heard for three beats (reach.go); a
// host asks once who is up, then follows the feed. A host not heard for
// three beats is unreachable, and Team shows its agents so. An agent spawned at run time carries its profile and parent in its
// claim (Origin), so that every host's rules can place it. A connection
// the server ends for good (Conn.Lost) is not mended by NATS's reconnects:
// its owner closes the Conn and joins again.
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
