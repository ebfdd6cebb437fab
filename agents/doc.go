// Package agents owns agent profiles (agents/<name>.yaml): loading,
// validation and the expansion of ${workspaceRoot}, ${cwd}, ${HOME}, ${USER}
// and ${agent}; and the default team embedded in the binary, which
// `switchboard init` writes into a new workspace.
//
// The profiles of the default team sit in this package's folder because the
// root of the repository is itself a workspace: its agents/ folder holds both
// this package and the team's profiles.
package agents
