package mailbox

import (
	"io/fs"
	"strconv"
	"syscall"
)

// inodeAndChange adds to a folder's stamp what Linux tells beyond its
// modification time: a folder replaced by another, or changed in a way
// that left the time alone, stamps differently.
func inodeAndChange(info fs.FileInfo) string {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return " " + strconv.FormatUint(st.Ino, 10) + " " + strconv.FormatInt(st.Ctim.Nano(), 10)
}
