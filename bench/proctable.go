package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"switchboard/internal/watch"
)

// procTable is every process of the machine at one moment, by pid.
type procTable map[int]procStat

// readProcs reads the stat of every process; one that ends meanwhile is
// left out.
func readProcs() (procTable, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list the processes: %w", err)
	}
	t := make(procTable, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readProcStat(pid); err == nil {
			t[pid] = st
		}
	}
	return t, nil
}

// sharpen reads anew, to the nanosecond, the CPU time of the pids that
// ran so far: the scheduler's count of each of their threads
// (/proc/<pid>/task/*/schedstat), with the time of the children they
// waited for. /proc/<pid>/stat counts in ticks of 10 ms, too coarse for a
// process that wakes for some microseconds a minute: an idle MCP server's
// target is 7 ms a minute. Where the scheduler does not say, the ticks
// stay.
func (t procTable) sharpen(pids []int) {
	for _, pid := range pids {
		st, ok := t[pid]
		if !ok {
			continue
		}
		if ran, err := threadsRunTime(pid); err == nil {
			st.cpu = ran + st.waited
			t[pid] = st
		}
	}
}

// preciseCPUTime is the CPU time of one process to the nanosecond, as
// sharpen reads it, or in ticks where the scheduler does not say.
func preciseCPUTime(pid int) (time.Duration, error) {
	t := procTable{}
	st, err := readProcStat(pid)
	if err != nil {
		return 0, err
	}
	t[pid] = st
	t.sharpen([]int{pid})
	return t[pid].cpu, nil
}

// threadsRunTime is the time the threads of a process have run so far.
func threadsRunTime(pid int) (time.Duration, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var sum time.Duration
	for _, task := range tasks {
		data, err := os.ReadFile(filepath.Join(dir, task.Name(), "schedstat"))
		if err != nil {
			return 0, err
		}
		ran, _, _ := strings.Cut(string(data), " ")
		ns, err := strconv.ParseInt(ran, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s/%s/schedstat: %w", dir, task.Name(), err)
		}
		sum += time.Duration(ns)
	}
	return sum, nil
}

// tree is the roots found in the table and every descendant of them.
func (t procTable) tree(roots ...int) []int {
	children := make(map[int][]int)
	for pid, st := range t {
		children[st.parent] = append(children[st.parent], pid)
	}
	var out []int
	seen := make(map[int]bool)
	todo := slices.Clone(roots) // a stack: its pushes must not write over the caller's roots
	for len(todo) > 0 {
		pid := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if _, ok := t[pid]; !ok || seen[pid] {
			continue
		}
		seen[pid] = true
		out = append(out, pid)
		todo = append(todo, children[pid]...)
	}
	return out
}

// part is processes whose CPU a window sums: the roots, and every
// descendant of theirs unless alone.
type part struct {
	roots []int
	alone bool
}

// pids are the part's processes in the table.
func (t procTable) pids(p part) []int {
	if !p.alone {
		return t.tree(p.roots...)
	}
	var in []int
	for _, pid := range p.roots {
		if _, ok := t[pid]; ok {
			in = append(in, pid)
		}
	}
	return in
}

// cpu is the CPU time the part's processes used so far, with that of the
// children they waited for.
func (t procTable) cpu(p part) time.Duration {
	var sum time.Duration
	for _, pid := range t.pids(p) {
		sum += t[pid].cpu
	}
	return sum
}

// cpuBetween is the CPU time the part used from before to after: a
// process that ended between is counted by the parent that waited for it,
// when the parent is of the part.
func cpuBetween(before, after procTable, p part) time.Duration {
	return after.cpu(p) - before.cpu(p)
}

// partsCPU is the CPU each part used over window, in percent of one core,
// and how many processes the parts held at its end.
func partsCPU(ctx context.Context, window time.Duration, parts ...part) ([]float64, int, error) {
	sample := func() (procTable, error) {
		t, err := readProcs()
		if err != nil {
			return nil, err
		}
		for _, p := range parts {
			t.sharpen(t.pids(p))
		}
		return t, nil
	}
	before, err := sample()
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	if err := watch.Sleep(ctx, window); err != nil {
		return nil, 0, err
	}
	after, err := sample()
	if err != nil {
		return nil, 0, err
	}
	elapsed := time.Since(start)
	out := make([]float64, len(parts))
	held := make(map[int]bool)
	for i, p := range parts {
		out[i] = 100 * float64(cpuBetween(before, after, p)) / float64(elapsed)
		for _, pid := range after.pids(p) {
			held[pid] = true
		}
	}
	return out, len(held), nil
}
