package hubcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/pflag"

	"switchboard/hub"
	"switchboard/hub/embedded"
	"switchboard/mailbox"
)

// prepareUsage is the help of switchboard hub prepare.
const prepareUsage = `Usage: switchboard hub prepare --nats URL --secret FILE --host NAME... [--team T] [--replicas N] [--hub-ca FILE]

Make the team's stream and buckets, and each host's mail consumer, on a NATS
server that switchboard hub config configured (its line gives the flags); it
makes those of an earlier version what they must be now. Running it again
changes nothing else. A host added later needs a new configuration, then this
again with it among the --host flags.

Flags:
`

// runPrepare makes a team's stream, buckets and consumers on a NATS server
// that no switchboard-hub runs, as the user of switchboard's own work.
func runPrepare(args []string, stdout, stderr io.Writer) int {
	f := pflag.NewFlagSet("switchboard hub prepare", pflag.ContinueOnError)
	f.SetOutput(stderr)
	f.Usage = func() {
		fmt.Fprint(stderr, prepareUsage)
		f.PrintDefaults()
	}
	server := f.String("nats", "", "the server's URL")
	secretFile := f.String("secret", "", "the secret hub config derived the passwords from")
	var hosts []string
	f.StringArrayVar(&hosts, "host", nil, "a host of the team, to make its mail consumer (repeatable)")
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
		fmt.Fprintln(stderr, "switchboard hub prepare: give the server's URL with --nats, and the other flags, as switchboard hub config printed them")
		return exitUsage
	}
	for _, h := range hosts {
		if err := mailbox.ValidateAgentName(h); err != nil {
			fmt.Fprintf(stderr, "switchboard hub prepare: --host %q: a host's name is lowercase letters, digits, _ and - (%v)\n", h, err)
			return exitUsage
		}
	}
	options := []nats.Option{nats.Name("switchboard hub prepare"), nats.Timeout(10 * time.Second)}
	if u, err := url.Parse(*server); err != nil || u.User == nil {
		if *secretFile == "" {
			fmt.Fprintln(stderr, "switchboard hub prepare: give --secret, the file hub config derived the passwords from")
			return exitUsage
		}
		secret, err := embedded.LoadSecret(*secretFile)
		if err != nil {
			fmt.Fprintf(stderr, "switchboard hub prepare: %v\n", err)
			return exitError
		}
		options = append(options, nats.UserInfo(adminName, secret.AdminPassword()))
	}
	if *ca != "" {
		options = append(options, nats.RootCAs(*ca))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nc, err := nats.Connect(*server, options...)
	if err != nil {
		fmt.Fprintf(stderr, "switchboard hub prepare: connect: %v; check that the server runs with the configuration switchboard hub config wrote, and that --secret is the one it used\n", err)
		return exitError
	}
	defer nc.Close()
	svc := hub.TeamService{Team: *team, Replicas: *replicas}
	if err := svc.Prepare(ctx, nc); err != nil {
		fmt.Fprintf(stderr, "switchboard hub prepare: %v\n", err)
		return exitError
	}
	if err := svc.PrepareHosts(ctx, nc, hosts); err != nil {
		fmt.Fprintf(stderr, "switchboard hub prepare: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "the team's stream and buckets, and the mail consumers of %d hosts, are on the server: its hosts may join\n", len(hosts))
	return exitOK
}
