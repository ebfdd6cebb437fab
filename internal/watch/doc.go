// Package watch waits for things on disk to change: Folders merges
// fsnotify's events on some folders into wake-ups, with a slow tick as the
// safety net where events are lost or inotify is unavailable, and Until
// looks at a condition until it holds or a time limit passes.
package watch
