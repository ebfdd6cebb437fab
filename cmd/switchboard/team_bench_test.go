package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/mailbox"
	"switchboard/workspace"
)

// These benchmarks need tmux and run only with -bench, for example
//   go test -run '^$' -bench Team -benchtime 20x ./cmd/switchboard

// BenchmarkTeamNoticeLatency measures the time from a message landing in an
// outbox to its notice being typed, submitted and seen in an idle pane. Most
// of it is the deliberate pause between paste and Enter.
func BenchmarkTeamNoticeLatency(b *testing.B) {
	tm := newTeam(b)
	tm.must("up", "-d", "--socket", tm.socket)
	tm.waitIdle("developer_agent", "reviewer_agent")
	store := mailbox.NewStore(tm.root)
	store.Durable = false
	var times []time.Duration
	b.ResetTimer()
	var settled time.Time
	for i := range b.N {
		// Idle since after the previous notice: the pane has settled.
		tm.waitFor("the reviewer to settle", func() bool {
			st := tm.state("reviewer_agent")
			return st.State == mailbox.StateIdle && st.Since.After(settled)
		})
		before := len(tm.received("reviewer_agent"))
		msg := &mailbox.Message{From: "developer_agent", To: []string{"reviewer_agent"}, Title: fmt.Sprintf("bench %d", i)}
		msg.Normalize(time.Now())
		start := time.Now()
		if _, err := store.Post("developer_agent", msg); err != nil {
			b.Fatal(err)
		}
		tm.waitFor("the notice", func() bool { return strings.Contains(tm.received("reviewer_agent")[before:], msg.ID) })
		times = append(times, time.Since(start))
		settled = time.Now()
		// Read it, so that no notice of old mail is pending.
		tm.must("read", msg.ID, "--as", "reviewer_agent")
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-p50")
	b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "ms-max")
}

// BenchmarkTeamUp20 measures `up -d` of 20 agents until every pane runs
// its program.
func BenchmarkTeamUp20(b *testing.B) {
	for range b.N {
		b.StopTimer()
		tm := bigTeam(b, 20)
		b.StartTimer()
		start := time.Now()
		tm.must("up", "-d", "--socket", tm.socket)
		tm.waitFor("every pane to run", func() bool {
			for i := range 20 {
				if tm.state(fmt.Sprintf("a%02d", i)).State == "" {
					return false
				}
			}
			return true
		})
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms-up")
		b.StopTimer()
		tm.must("down")
		b.StartTimer()
	}
}

// BenchmarkTeamIdleCPU50 measures the master's processor time, with the
// tmux clients it starts, while 50 idle agents sit in their panes for a
// minute.
func BenchmarkTeamIdleCPU50(b *testing.B) {
	for range b.N {
		tm := bigTeam(b, 50)
		tm.must("up", "-d", "--socket", tm.socket)
		tm.waitFor("50 idle agents", func() bool {
			for i := range 50 {
				if tm.state(fmt.Sprintf("a%02d", i)).State != mailbox.StateIdle {
					return false
				}
			}
			return true
		})
		pid, _ := os.ReadFile(workspace.New(tm.root).MasterLock())
		stat := "/proc/" + strings.TrimSpace(string(pid)) + "/stat"
		before := cpuTicks(b, stat)
		time.Sleep(time.Minute)
		after := cpuTicks(b, stat)
		b.ReportMetric(float64(after-before)/60, "%-of-a-core")
		tm.must("down")
	}
}

// bigTeam is a workspace of n generic agents, all allowed to talk.
func bigTeam(b *testing.B, n int) *team {
	tm := newTeam(b)
	os.RemoveAll(filepath.Join(tm.root, "agents"))
	os.MkdirAll(filepath.Join(tm.root, "agents"), 0o755)
	var rules strings.Builder
	rules.WriteString("allowed_interactions:\n")
	for i := range n {
		name := fmt.Sprintf("a%02d", i)
		fmt.Fprintf(&rules, "  %s: {can_send_to: [\"*\"], can_receive_from: [\"*\"]}\n", name)
		writeTestFile(b, filepath.Join(tm.root, "agents", name+".yaml"), "kind: generic\ncommand: [\"sh\", \"-c\", \"exec cat > /dev/null\"]\n")
	}
	writeTestFile(b, filepath.Join(tm.root, "communication_rules.yaml"), rules.String())
	return tm
}

// cpuTicks is utime+stime+cutime+cstime of a process, in 1/100 s: its own
// time and that of the children it has waited for (its tmux calls).
func cpuTicks(b *testing.B, stat string) int64 {
	data, err := os.ReadFile(stat)
	if err != nil {
		b.Fatal(err)
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	var total int64
	for _, f := range fields[11:15] {
		var n int64
		fmt.Sscan(f, &n)
		total += n
	}
	return total
}
