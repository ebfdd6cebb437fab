// Package web is the overseer's view of a team in a browser (switchboard
// web): the desk's snapshot of the team (desk.Snapshot, the console's too)
// served as JSON, a page that draws it, and a stream of server-sent events
// that tells the page when to look again. Its actions are the console's,
// each a verb of the desk; it links no terminal UI.
//
// It is local-only and safe by default: it answers to localhost and
// loopback addresses alone (a page of another site cannot reach it through
// a name that resolves here); every call of the API carries the token made
// at each start in its Authorization header (401 without), never in a
// cookie, which the browser would send to every server of the host
// whatever its port, nor in an address a server sees; a state-changing
// request from another origin is refused (403); and the page runs no
// inline script and loads nothing from the network.
package web
