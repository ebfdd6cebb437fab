// Package release says which release of switchboard a program is: the
// release number, kept here as a constant, and the commit and date it was
// built from. Every program of switchboard (switchboard, switchboard-hub,
// switchboard-link) answers --version with the same line:
//
//	switchboard 0.9.0 (commit 24bab75, 2026-11-28)
//
// The commit and date come from what the Go toolchain stamps into a binary
// built in a git checkout (go build, go install); a build without that
// information (outside a checkout, or with -buildvcs=false) takes them from
// the linker:
//
//	go build -ldflags "-X switchboard/internal/release.commit=24bab75 -X switchboard/internal/release.date=2026-11-28" ./cmd/...
//
// and says "unknown" for what neither gave.
package release
