// Package switchboard holds the default team, the workspace at the root of
// this repository, so that the binary can write it anywhere with
// `switchboard init`. The program itself lives in cmd/switchboard.
package switchboard
