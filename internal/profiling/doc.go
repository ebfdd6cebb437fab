// Package profiling writes a CPU profile of the whole run of a program
// when its environment asks for one: SWITCHBOARD_CPU_PROFILE names a
// folder, where each process writes <program>-<pid>.pprof as it ends.
// SWITCHBOARD_CPU_PROFILE_AFTER delays the start and
// SWITCHBOARD_CPU_PROFILE_FOR bounds the profile, to see a quiet part of a
// run (a team at rest) alone. The bench's processes
// inherit both, to see where the hub's time and the masters' goes (go tool
// pprof reads the files).
package profiling
