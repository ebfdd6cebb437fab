// Package atomicfile writes files that readers see whole or not at all: the
// data goes to a temporary file on the same filesystem, is synced when the
// write must survive a power cut, and takes its name in one step, by rename
// (replacing what was there) or by link (never replacing: the exactly-once
// publish of a message depends on it); then the folder is synced. In the
// spirit of google/renameio, with the no-clobber publish added. A batch of
// files is synced together (FinishAll, SyncDirs), which costs a disk little
// more than syncing one.
package atomicfile
