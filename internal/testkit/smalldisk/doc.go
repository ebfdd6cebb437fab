// Package smalldisk gives tests a disk that fills up: a tmpfs of a few
// megabytes mounted for the test, and a filler file that takes every free
// block until the test frees it. A full disk is then the real thing, ENOSPC
// from the kernel, for every write of every process.
package smalldisk
