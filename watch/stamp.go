package watch

import (
	"io/fs"
	"os"
	"strconv"
)

// Stamp identifies a version of a file or folder: its modification time and
// size and, where the system tells them, its inode and change time (which
// only the kernel sets). A file changed in any way stamps differently,
// with the rare exception of a change within the clock's resolution on a
// system without change times.
func Stamp(info fs.FileInfo) string {
	return strconv.FormatInt(info.ModTime().UnixNano(), 10) + " " + strconv.FormatInt(info.Size(), 10) + inodeAndChange(info)
}

// FileStamp is the Stamp of the file at path, "" when it cannot be read.
func FileStamp(path string) string {
	info, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return Stamp(info)
}
