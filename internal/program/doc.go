// Package program is what the three programs of switchboard (switchboard,
// switchboard-hub and switchboard-link) share of a command line: one exit
// code for each kind of failure, the error that carries it, and the running
// of a tree of cobra commands that maps a command's error to its line on
// standard error and its exit code in one place. It knows no noun of the
// design: each program says which of its errors are which.
package program
