// Package embedded runs the hub's NATS server, with JetStream, inside a
// switchboard program: the program `switchboard-hub`, and tests. It gives
// each host one credential, an HMAC of its name under a secret kept in its
// folder (hub.secret, 0600, made on first start and reused, so a restarted
// hub keeps every URL valid), speaks TLS when given a certificate, and
// takes from a Service what each host may do (a grant: each host in an
// account of its own, importing only its own subjects from the hub's
// account, which holds the team's streams), what to make before any host
// connects, and what to answer while it runs, through a connection of its
// own inside the process. The nodes of a cluster know each other by a
// password derived from the secret, and with a certificate speak TLS to
// each other too.
//
// The package does not import package hub, which every program of
// switchboard that talks to a hub links: the server, with its timers and
// its size, is linked only by the programs that run one. Package hub's
// TeamService is the Service of a team.
//
// Without TLS, mail and passwords travel in clear text: Server.Warnings
// says so when the hub listens on a non-loopback address.
//
// The package never prints and never exits; its errors say what to do next.
package embedded
