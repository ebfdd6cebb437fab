// Package grant describes what one host may do on a hub, in the terms a
// NATS server takes: the team's stream and buckets live in an account of
// the team's own, and each host in an account of its own, which reaches
// the team's only through imports of the subjects that are the host's.
//
// Whatever the server publishes on a host's behalf (the answer to a
// request, sent to any reply subject the host names) lands in the host's
// own account, where it reaches the team only as the host's own publish
// would. A host in the team's account could, by naming another host's
// subject as the reply of a request, make the server store there what it
// chose; in its own account it cannot.
//
// The package links no server: the hub's programs, which run one, and the
// configuration a stock server is given are both made from a Grant.
package grant
