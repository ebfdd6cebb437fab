// Package profile owns agent profiles (agents/<name>.yaml): loading,
// validation and the expansion of ${workspaceRoot}, ${cwd}, ${HOME}, ${USER}
// and ${agent}; the launch of a profile (its program, or a shell when that
// is not installed); the profiles of a team, spawned agents included; and
// the default team embedded in the binary, which `switchboard init` writes
// into a new workspace.
package profile
