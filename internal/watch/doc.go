// Package watch waits for things on disk to change: Folders merges
// fsnotify's events on some folders into wake-ups, and runs a timer only
// for a folder inotify cannot watch (none here, not made yet, removed), so
// that what follows a team at rest sleeps; Await looks at a condition after
// each change of some folders; Until looks at one until it holds or a time
// limit passes.
package watch
