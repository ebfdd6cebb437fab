// Package embedded runs the hub's NATS server, with JetStream, inside a
// switchboard program: the program `switchboard-hub`, and tests. It gives
// each host one credential, an HMAC of its name under a secret kept in its
// folder (hub.secret, 0600, made on first start and reused, so a restarted
// hub keeps every URL valid), speaks TLS when given a certificate, and
// takes from a Service what each host may do and what to make before any
// host connects, which it makes through a connection of its own inside the
// process.
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
