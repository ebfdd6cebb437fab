// Package pidlock is a lock one process at a time holds on a file, with its
// pid written in it for those who find it taken. The lock is a flock, which
// the kernel drops when its holder dies, so a crashed holder leaves nothing
// to clean up. The file is opened without following a link: a lock file
// someone replaced by a link to another file is refused, not written
// through.
package pidlock
