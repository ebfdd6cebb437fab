// Package bench measures how fast messages are routed on this machine: the
// latency from a sender's outbox to a recipient's inbox at a steady rate, and
// the throughput of a burst, for the real master (run as a subprocess of the
// switchboard binary) and, side by side, for a floor: a minimal in-process
// relay that reads, parses and re-publishes each file and does nothing else.
// The floor is what the filesystem and fsnotify cost here, measured in the
// same run under the same conditions; the master's numbers are read against
// it.
//
// Each run gets its own temporary workspace in which every agent may write to
// every other. Messages are posted as `switchboard send` posts them (the same
// bytes and name, a temporary file linked into the outbox), and a message is
// delivered when an fsnotify watch on the recipient's inbox sees its file
// appear. Its latency runs from just before the link to that moment.
//
// The sender never fsyncs, in any variant: its own durability is the
// sender's cost, not routing's.
//
// RunHooks measures something else: the wall time, from fork/exec to exit,
// of the commands the agents' hooks run before every prompt and after every
// tool call, with thousands of messages unread, beside that of /bin/true run
// in the same turns, which is what starting any process costs here.
//
// A Suite is a whole run as a person asks for it: the parts to run and the
// numbers of each, taken as given. Its Check is the one place that says
// what a run cannot take, as an *OptionError naming the option in words
// that the command's flags are named after; Run runs the parts asked for.
//
// The package never prints except to the progress writer it is given, and
// hands back a Result; the command formats it.
package bench
