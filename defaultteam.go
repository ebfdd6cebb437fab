package switchboard

import "embed"

// DefaultTeam is the rules file and the agent profiles of the default team,
// as they stand at the root of the repository.
//
//go:embed communication_rules.yaml agents/*.yaml
var DefaultTeam embed.FS
