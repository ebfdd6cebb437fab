package linkcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"switchboard/hub"
	"switchboard/master"
	"switchboard/master/hublink"
	"switchboard/workspace"
)

// runMaster runs the master of the workspace at --root with a link to the
// hub its settings name, until SIGINT or SIGTERM.
func runMaster(args []string, stderr io.Writer) int {
	f := pflag.NewFlagSet("switchboard-link master", pflag.ContinueOnError)
	f.SetOutput(stderr)
	root := f.String("root", "", "the workspace")
	if err := f.Parse(args); err != nil || *root == "" || f.NArg() > 0 {
		fmt.Fprintln(stderr, "switchboard-link master: run switchboard master, which runs this with the workspace's root and options")
		return exitUsage
	}
	opts, err := master.TakeOver() // not the agents' business: out of the environment
	switch {
	case errors.Is(err, master.ErrNoOptions):
		fmt.Fprintln(stderr, "switchboard-link master: run switchboard master, which runs this with the workspace's root and options")
		return exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "switchboard-link master: %v: are switchboard and switchboard-link of the same build? go install ./cmd/... installs them together\n", err)
		return exitUsage
	}
	ws := workspace.New(*root)
	settings, joined, err := ws.Hub()
	if err == nil && !joined {
		err = errors.New("this workspace joins no hub: run switchboard master")
	}
	if err != nil {
		fmt.Fprintf(stderr, "switchboard master: %v\n", err)
		return exitError
	}
	opts.Log, opts.Link = stderr, hublink.New(settings)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := master.New(*root, opts).Run(ctx); err != nil {
		fmt.Fprintf(stderr, "switchboard master: %v\n", err)
		return exitError
	}
	return exitOK
}

// runCheck says whether the hub takes the credentials of the workspace at
// --root: doctor asks.
func runCheck(args []string, stdout, stderr io.Writer) int {
	f := pflag.NewFlagSet("switchboard-link check", pflag.ContinueOnError)
	f.SetOutput(stderr)
	root := f.String("root", "", "the workspace")
	if err := f.Parse(args); err != nil || *root == "" || f.NArg() > 0 {
		fmt.Fprintln(stderr, "switchboard-link check: run switchboard doctor, which runs this with the workspace's root")
		return exitUsage
	}
	ws := workspace.New(*root)
	s, joined, err := ws.Hub()
	if err == nil && !joined {
		err = errors.New("this workspace joins no hub")
	}
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var c *hub.Conn
		if c, err = hub.Dial(ctx, s.URL, hub.JoinConfig{Team: s.Team, Host: s.Host, RootCAs: s.CA, Credentials: []byte(s.Credentials)}); err == nil {
			c.Close()
		}
	}
	if err != nil {
		fmt.Fprintln(stdout, err)
		return exitError
	}
	fmt.Fprintf(stdout, "host %s reaches the hub\n", s.Host)
	return exitOK
}
