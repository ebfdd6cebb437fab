//go:build !linux

package mailbox

import "io/fs"

// inodeAndChange is empty where the stat fields differ by system: the
// modification time and size stamp the folder alone.
func inodeAndChange(fs.FileInfo) string { return "" }
