package hubcmd

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"switchboard/hub"
	"switchboard/hub/embedded"
	"switchboard/internal/program"
	"switchboard/mailbox"
)

// On a stock nats-server that switchboard hub config configured, the
// team's side runs as a program of its own beside the server: serve makes
// the team's stream and buckets, then writes on the hosts' behalf (no host
// publishes into the team's streams itself) and makes each host's mail
// consumer when it asks, until stopped; prepare does the making once, for
// scripts.

const (
	serveHelp = `Serve a team on a NATS server that switchboard hub config configured (its line
gives the flags), until Ctrl-C or SIGTERM: make the team's stream and buckets
(those of an earlier version made what they must be now), then write on each
host's behalf, which is the only way mail and keys reach the team's streams,
and make a host's mail consumer when it asks. Run one beside each server (or
node of a cluster): hosts reach whichever runs. Hosts cannot send without it.`
	prepareHelp = `Make the team's stream and buckets, and the mail consumers of the hosts named,
on a NATS server that switchboard hub config configured, once; running it
again changes nothing else. Hosts also need switchboard hub serve running, which
does this too.`
)

type stockOptions struct {
	server, secret, team, ca string
	hosts                    []string
	replicas                 int
}

// newStockCmd is prepare or serve.
func newStockCmd(ctx context.Context, verb, help string, stdout io.Writer) *cobra.Command {
	o := &stockOptions{}
	short := map[string]string{
		"prepare": "Make a team's stream and buckets on a NATS server of your own, once",
		"serve":   "Serve a team on a NATS server of your own, beside it",
	}[verb]
	cmd := &cobra.Command{
		Use:   verb + " --nats URL --secret FILE [--host NAME]... [--team T] [--replicas N] [--hub-ca FILE]",
		Short: short,
		Long:  help,
		Args:  program.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := o.check(); err != nil {
				return err
			}
			return o.run(ctx, verb, stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.server, "nats", "", "the server's URL")
	f.StringVar(&o.secret, "secret", "", "the secret hub config derived the passwords from")
	f.StringArrayVar(&o.hosts, "host", nil, "a host of the team, to make its mail consumer now (repeatable)")
	f.StringVar(&o.team, "team", "", "the team's name (default: main)")
	f.IntVar(&o.replicas, "replicas", 1, "how many nodes of a cluster keep the stream and buckets")
	f.StringVar(&o.ca, "hub-ca", "", "a PEM file of the authority of the server's TLS certificate")
	return cmd
}

// check refuses the flags of prepare and serve that cannot reach a server.
func (o *stockOptions) check() error {
	if o.server == "" {
		return usageError("give the server's URL with --nats, and the other flags, as switchboard hub config printed them")
	}
	for _, h := range o.hosts {
		if err := mailbox.ValidateAgentName(h); err != nil {
			return usageError(fmt.Sprintf("--host %q: a host's name is lowercase letters, digits, _ and - (%v)", h, err))
		}
	}
	if u, err := url.Parse(o.server); (err != nil || u.User == nil) && o.secret == "" {
		return usageError("give --secret, the file hub config derived the passwords from")
	}
	return nil
}

// connect connects as the user of switchboard's own work, by the password
// the secret derives for it (or the one in the URL).
func (o *stockOptions) connect(name string) (*nats.Conn, error) {
	options := []nats.Option{nats.Name(name), nats.Timeout(10 * time.Second), nats.MaxReconnects(-1)}
	if u, err := url.Parse(o.server); err != nil || u.User == nil {
		secret, err := embedded.LoadSecret(o.secret)
		if err != nil {
			return nil, err
		}
		options = append(options, nats.UserInfo(adminName, secret.AdminPassword()))
	}
	if o.ca != "" {
		options = append(options, nats.RootCAs(o.ca))
	}
	nc, err := nats.Connect(o.server, options...)
	if err != nil {
		return nil, fmt.Errorf("connect: %w; check that the server runs with the configuration switchboard hub config wrote, and that --secret is the one it used", err)
	}
	return nc, nil
}

// prepare makes the team's streams, buckets and the consumers of the hosts
// named.
func (o *stockOptions) prepare(ctx context.Context, nc *nats.Conn) error {
	svc := hub.TeamService{Team: o.team, Replicas: o.replicas}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := svc.Prepare(ctx, nc); err != nil {
		return err
	}
	return svc.PrepareHosts(ctx, nc, o.hosts)
}

// run prepares the team on the server, and for serve answers its hosts
// until ctx ends.
func (o *stockOptions) run(ctx context.Context, verb string, stdout io.Writer) error {
	nc, err := o.connect("switchboard hub " + verb)
	if err != nil {
		return err
	}
	defer nc.Close()
	if err := o.prepare(ctx, nc); err != nil {
		return err
	}
	if verb == "prepare" {
		fmt.Fprintf(stdout, "the team's stream and buckets, and the mail consumers of %d hosts, are on the server; hosts join once switchboard hub serve runs\n", len(o.hosts))
		return nil
	}
	if err := (hub.TeamService{Team: o.team, Replicas: o.replicas}).Serve(nc); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "serving the team on %s: its hosts may join; stop with Ctrl-C\n", withoutCredentials(o.server))
	<-ctx.Done()
	return nil
}

// withoutCredentials is a server's URL as it may be shown.
func withoutCredentials(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the server"
	}
	u.User = nil
	return u.String()
}
