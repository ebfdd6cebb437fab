// Package bulletin owns the team's global bulletin,
// mailboxes/global_bulletin/status.json (a workspace's is Of(ws)): the system status and phase set by
// the overseers, warnings, shared resources held by agents (locks), a
// key/value shared state, and a summary of every agent kept by the master.
//
// Every change is a read-modify-write under an exclusive flock, published by
// an atomic rename; readers never lock, and never see half a document.
package bulletin
