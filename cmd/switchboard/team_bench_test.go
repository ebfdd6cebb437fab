package main

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/bench"
	"switchboard/conversation"
	"switchboard/internal/tmux"
	"switchboard/mailbox"
)

// These benchmarks need tmux and run only with -bench, for example
//   go test -run '^$' -bench Team -benchtime 20x ./cmd/switchboard

// BenchmarkTeamNoticeLatency measures the time from a message landing in an
// outbox to its notice being typed, submitted and seen in an idle pane. Most
// of it is the deliberate pause between paste and Enter.
func BenchmarkTeamNoticeLatency(b *testing.B) {
	tm := newTeam(b)
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
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
			return st.State == conversation.Idle && st.Since.After(settled)
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

// BenchmarkTeamAtRest is bench.RunTeam under go test: a team of 100 shells
// at rest in tmux, with the CPU of the master and of the tmux server, the
// master's memory, and a notice to one more agent, each beside its floor.
//
//	go test -run '^$' -bench TeamAtRest -benchtime 1x ./cmd/switchboard
func BenchmarkTeamAtRest(b *testing.B) {
	if !tmux.Installed() {
		b.Skip("tmux is not installed")
	}
	bin, err := exec.LookPath("switchboard")
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		res, err := bench.RunTeam(context.Background(), bench.TeamConfig{Binary: bin, Idle: 30 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(res.MasterRest, "master-%cpu")
		b.ReportMetric(res.TmuxRest, "tmux-%cpu")
		b.ReportMetric(res.TmuxRestBare, "tmux-floor-%cpu")
		b.ReportMetric(float64(res.MasterRSS)/(1<<20), "master-MiB")
		b.ReportMetric(float64(res.Notice)/float64(time.Millisecond), "notice-ms")
		b.ReportMetric(float64(res.NoticeFloor)/float64(time.Millisecond), "notice-floor-ms")
		b.ReportMetric(float64(res.Up)/float64(time.Millisecond), "up-ms")
		b.ReportMetric(float64(res.UpFloor)/float64(time.Millisecond), "up-floor-ms")
	}
}
