package hub_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"switchboard/hub"
	"switchboard/hub/embedded"
)

// Two hosts of one team: a's master publishes a copy for bob, b's master
// receives it.
func Example() {
	dir, _ := os.MkdirTemp("", "hub")
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	s, err := embedded.Start(ctx, embedded.Config{Dir: dir, Service: hub.TeamService{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	rules := []byte("the team's rules\n")
	a, err := hub.Join(ctx, s.URL("a"), hub.JoinConfig{Agents: []string{"alice"}, RulesText: rules})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	b, err := hub.Join(ctx, s.URL("b"), hub.JoinConfig{Agents: []string{"bob"}, RulesText: rules})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()

	if err := a.Publish(ctx, hub.Copy{ID: "m1", To: "bob", From: "alice", Body: []byte("hello")}); err != nil {
		fmt.Println(err)
		return
	}
	rctx, stop := context.WithCancel(ctx)
	_ = b.Receive(rctx, func(_ context.Context, d hub.Delivered) error {
		fmt.Printf("%s from %s on host %s to %s: %s\n", d.ID, d.From, d.Host, d.To, d.Body)
		stop()
		return nil
	})
	// Output: m1 from alice on host a to bob: hello
}
