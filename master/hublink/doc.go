// Package hublink is a master's link to the hub of a team across machines:
// the link.Link the program switchboard-link hands its master. It joins the
// hub as this host, claims the agents whose profiles are in this
// workspace's agents/ folder (and those spawned here), and keeps four
// things going until the master stops:
//
//   - the forwarder publishes the copies the master put in the outbox
//     towards the hub (mailboxes/.hub/outbox/), in order, and removes each
//     once the hub has it;
//   - the receiver hands the master the copies the hub has for this host's
//     agents, as they come, and settles each with the hub by what the
//     master made of it: delivered and synced, refused for good, or to try
//     again later;
//   - presence tells the hub this host's agents and their states each beat,
//     keeps the whole team in mailboxes/.hub/team.json for the commands,
//     judges the helpers other hosts announced under this host's rules,
//     and copies the team's shared state and board into this host's
//     bulletin;
//   - Do runs the commands' errands (locks, shared values, the board) with
//     the link's connection, the only one that holds the host's
//     credentials.
//
// The package never prints and never exits; the master's log hears it.
package hublink
