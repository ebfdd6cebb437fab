package hubcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/pflag"

	"switchboard/hub"
)

// runPrepare makes a team's stream and buckets on a NATS server that no
// switchboard-hub runs, with the user of switchboard's own work.
func runPrepare(args []string, stdout, stderr io.Writer) int {
	f := pflag.NewFlagSet("switchboard hub prepare", pflag.ContinueOnError)
	f.SetOutput(stderr)
	f.Usage = func() {
		fmt.Fprint(stderr, "Usage: switchboard hub prepare --nats URL [--team T] [--replicas N] [--hub-ca FILE]\n\n"+
			"Make the team's stream and buckets on a NATS server that switchboard hub config\n"+
			"configured (its line gives the URL); running it again changes nothing.\n\nFlags:\n")
		f.PrintDefaults()
	}
	server := f.String("nats", "", "the server's URL, with the switchboard-admin user's password in it")
	team := f.String("team", "", "the team's name (default: main)")
	replicas := f.Int("replicas", 1, "how many nodes of a cluster keep the stream and buckets")
	ca := f.String("hub-ca", "", "a PEM file of the authority of the server's TLS certificate")
	if err := f.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "switchboard hub prepare: %v; switchboard hub prepare --help says how\n", err)
		return exitUsage
	}
	if *server == "" || f.NArg() > 0 {
		fmt.Fprintln(stderr, "switchboard hub prepare: give the server's URL with --nats, as switchboard hub config printed it")
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	options := []nats.Option{nats.Name("switchboard hub prepare"), nats.Timeout(10 * time.Second)}
	if *ca != "" {
		options = append(options, nats.RootCAs(*ca))
	}
	nc, err := nats.Connect(*server, options...)
	if err != nil {
		fmt.Fprintf(stderr, "switchboard hub prepare: connect: %v; check that the server runs with the configuration switchboard hub config wrote\n", err)
		return exitError
	}
	defer nc.Close()
	if err := (hub.TeamService{Team: *team, Replicas: *replicas}).Prepare(ctx, nc); err != nil {
		fmt.Fprintf(stderr, "switchboard hub prepare: %v\n", err)
		return exitError
	}
	fmt.Fprintln(stdout, "the team's stream and buckets are on the server: its hosts may join")
	return exitOK
}
