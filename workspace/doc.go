// Package workspace owns the layout of a team's folder: where the rules,
// the profiles and the mailboxes are, and where in mailboxes/ the team keeps
// its registries (spawned agents, the tmux session), its bulletin, the
// master's lock, the staged binary and each agent's generated wiring. It
// names what lies there, and builds on nothing of the team but its
// mailboxes: the packages that own a file's contents open it by the name
// it gives (rules.LoadTeam, bulletin.Of, approvals.Of), and no package
// joins a name onto its folders. The messages themselves, inside each agent's mailbox, are the
// business of package mailbox, whose Store it hands out.
//
// One file of a workspace lies outside it: a host's settings in a team
// across machines (HubFile), which hold its password for the hub, in the
// user's config folder, where no agent is given a view and no commit of
// the workspace finds them.
package workspace
