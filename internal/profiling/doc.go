// Package profiling writes a CPU profile of the whole run of a program
// when its environment asks for one: SWITCHBOARD_CPU_PROFILE names a
// folder, where each process writes <program>-<pid>.pprof as it ends.
// The bench sets it to see where the hub's time and the masters' goes
// (go tool pprof reads the files); nothing else does.
package profiling
