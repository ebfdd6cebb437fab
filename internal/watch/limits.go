package watch

import (
	"os"
	"strconv"
	"strings"
)

// InotifyLimits are the kernel's limits on inotify for each user: how many
// folders may be watched, and how many watchers may be open. ok is false
// where the kernel does not say (not Linux).
func InotifyLimits() (watches, instances int, ok bool) {
	read := func(name string) (int, bool) {
		data, err := os.ReadFile("/proc/sys/fs/inotify/" + name)
		if err != nil {
			return 0, false
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(data)))
		return n, err == nil
	}
	watches, okW := read("max_user_watches")
	instances, okI := read("max_user_instances")
	return watches, instances, okW && okI
}
