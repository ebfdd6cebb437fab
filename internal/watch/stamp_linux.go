package watch

import (
	"io/fs"
	"strconv"
	"syscall"
)

// inodeAndChange adds to a stamp what Linux tells beyond the modification
// time and size: a file or folder replaced by another, or changed in a way
// that set its modification time back, stamps differently.
func inodeAndChange(info fs.FileInfo) string {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return " " + strconv.FormatUint(st.Ino, 10) + " " + strconv.FormatInt(st.Ctim.Nano(), 10)
}
