// Package rules owns communication_rules.yaml: strict loading with file and
// line in every error, and Decide, which says whether one agent may send to
// another and why not. LoadTeam loads a team's rules from its workspace:
// the file, each name in it checked against the profiles in agents/, and
// the agents spawned at run time, of this host and, in a team across
// machines, of the others.
//
// A sender F may reach a recipient T when F's can_send_to names T or "*", T's
// can_receive_from names F or "*", and no forbidden entry matches. Forbidden
// entries override every allow. The operator may talk with everyone unless
// the rules name it.
package rules
