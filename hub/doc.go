// Package hub carries mail, presence, locks and shared values between the
// masters of one team on several hosts, through NATS with JetStream.
//
// Start runs an embedded hub; Join connects one host's master to it (or to
// any NATS server with JetStream). A copy of a routed message is published by
// the sender's master to sb.<team>.mail.<host>.<recipient> with the message
// id "<id>/<recipient>", so a re-publish after a crash is dropped by the
// stream's duplicate window. The recipient's master takes its agents' mail
// with a durable pull consumer named after its host and acknowledges a copy
// only after its handler stored it; a crash before the ack delivers it again.
// The stream is a work queue: an acknowledged copy leaves the hub, and a copy
// for an agent whose host is away waits (up to 30 days). The hub delivers an
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
// The hub keeps a random secret in its folder (hub.secret, mode 0600, made
// on first start and reused, so a restarted hub keeps every URL valid). A
// host's password is an HMAC of its name under that secret; Server.URL gives
// the URL a host joins with. Any host name of the agent-name charset is
// accepted with its own password; a wrong password is refused at connect.
//
// # What a host may do
//
// The hub gives each connection the permissions of its host name, for the
// hub's team only. A host may:
//   - publish mail only on sb.<team>.mail.<its name>.>, so the publishing host
//     of every copy is known for certain from its subject;
//   - write presence only under its own keys (<its name>.<agent>) and its own
//     heartbeat key;
//   - write any key of the team's rules, locks and shared buckets;
//   - read any key of the team's buckets;
//   - create the team's stream and buckets (a create with another
//     configuration is refused by the server, so it cannot change them), and
//     read their configuration and state;
//   - create, update, read, pull from and acknowledge only the durable
//     consumer named after itself;
//   - subscribe only under its own reply prefix (_INBOX_<its name>), so it
//     cannot read the replies or pulled mail of another host.
//
// A host may not publish under another host's name, write another host's
// presence or heartbeat, touch another host's consumer, delete or purge
// messages through the JetStream API, change or delete a stream, or use any
// other subject.
//
// The receiving side checks that the publishing host claims the sender in
// presence (CheckSender, done by Receive): a host can send only as its own
// agents, and as the person at it (Person). An agent its host lets go is
// marked gone rather than forgotten, so that what it sent before still
// arrives, and another host may claim it.
//
// # What a compromised host can still do
//
// Be clear about the limits. A host that runs hostile code with its own
// credentials can:
//   - read all of the team's mail: the filter of its own consumer is in the
//     request body, which subject permissions cannot see, so it can filter on
//     any agent; on a work-queue stream that also takes those copies away from
//     their recipients (or the server refuses it, when the recipient's host
//     consumer already holds the agent);
//   - send mail as any agent it claims, and claim any agent name that no other
//     host holds;
//   - overwrite the team's rules record, take, release or force-release any
//     lock, and overwrite any shared value;
//   - fill the stream and buckets up to the server's limits;
//   - on a new hub, before any honest host joined, create the team's stream
//     and buckets with a configuration of its choosing.
//
// It cannot impersonate another host's sending or presence, nor read another
// host's replies. Revoking a host means a new secret: remove hub.secret and
// hand every host its new URL.
//
// # Transport
//
// Without TLS, mail and passwords travel in clear text: Server.Warnings says
// so when the hub listens on a non-loopback address. ServerConfig.TLSCert and
// TLSKey make the hub speak TLS only; JoinConfig.RootCAs names the authority
// of a certificate the system does not trust.
//
// # Presence
//
// A key's time to live can be set only when the key is created, so presence
// does not use one: each agent has a lasting key <host>.<agent> with its
// state, and each host has a key in a heartbeat bucket whose age limit is
// three beats; the host puts it on every beat. A host whose key expired is
// unreachable, and Team shows its agents so. An agent spawned at run time
// carries its profile and parent there, so that every host's rules know it.
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
