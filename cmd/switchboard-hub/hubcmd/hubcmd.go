package hubcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"switchboard/hub"
	"switchboard/hub/embedded"
	"switchboard/internal/joinline"
	"switchboard/internal/program"
	"switchboard/mailbox"
)

// hubLong is the help of switchboard-hub, which `switchboard hub --help`
// prints too.
const hubLong = `Run an embedded NATS server with JetStream, in the foreground, that the
masters of one team join from every host (switchboard up --hub URL --host
NAME). Its first line of output is the URL the first --host joins with, its
credentials in it; the next lines are the command each host runs, its
password in the environment rather than on the command line, where every
process of the machine could read it. Every host has credentials of its own,
derived from a secret kept in DIR, so the URLs stay valid when the hub starts
again on the same DIR, and a host may send only as the agents it runs: each
host is in an account of its own on the hub, which reaches the team's stream
and buckets only through the subjects that are that host's.

Mail for an agent of another host waits on the hub (on disk, in DIR) until
that host takes it. With the hub away, each host's own mail goes on, and mail
for other hosts waits on its host's disk, in order, until the hub is back.

The hub listens on loopback unless --listen says otherwise. On another
address, without --tls-cert and --tls-key, mail and passwords cross the
network in clear text, and the hub says so. The nodes of a cluster (--cluster)
know each other by a password derived from the secret (copy hub.secret to
every node before it first starts), and with --tls-cert speak TLS to each
other too, unless --clear-routes.

The hub is the program switchboard-hub, which go install ./cmd/... puts
beside switchboard; switchboard hub runs it with the same arguments. Besides
the hub, it writes the configuration of a NATS server of one's own (config),
and serves a team there (serve; prepare makes its streams once).`

type options struct {
	listen, dir, team, tlsCrt, tlsKey, tlsCA, cluster, name string
	hosts, peers                                            []string
	replicas                                                int
	clearRoutes                                             bool
}

// Main runs switchboard-hub with args (the program's name left out) and
// returns its exit code; it stops on SIGINT or SIGTERM.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, args, stdout, stderr)
}

// Run is Main until ctx ends, rather than a signal.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return program.Run(ctx, newHubCmd(ctx, stdout, stderr), "switchboard", args, stdout, stderr)
}

func newHubCmd(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	opts := &options{}
	cmd := &cobra.Command{
		Use:   "hub [--listen ADDR] [--dir DIR] [--host NAME]... [--team T] [--tls-cert F --tls-key F [--tls-ca F]] [--cluster ADDR --peer URL... [--clear-routes]]",
		Short: "Run the hub that joins masters on several machines into one team",
		Long:  hubLong,
		Example: `  switchboard hub --host laptop --host gpu
  switchboard hub --listen 0.0.0.0:4222 --dir /var/lib/switchboard-hub --host laptop --host gpu --tls-cert hub.crt --tls-key hub.key
  switchboard hub --listen 0.0.0.0:4222 --tls-cert hub.crt --tls-key hub.key --cluster 0.0.0.0:6222 --peer nats://n2:6222 --peer nats://n3:6222`,
		Args: program.NoArgs,
		RunE: func(*cobra.Command, []string) error { return run(ctx, stdout, stderr, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.listen, "listen", "127.0.0.1:4222", "the address masters connect to")
	f.StringVar(&opts.dir, "dir", "", "where the hub keeps its messages and secret (default: switchboard/hub in your data folder)")
	f.StringArrayVar(&opts.hosts, "host", nil, "a host of the team, to print its URL (repeatable; default: this machine)")
	f.StringVar(&opts.team, "team", "", "the team's name on the hub (default: main)")
	f.StringVar(&opts.tlsCrt, "tls-cert", "", "a PEM certificate: the hub speaks TLS only, to hosts and to the other nodes of its cluster (each checks the other's, both ways: the certificate must allow client authentication too)")
	f.StringVar(&opts.tlsKey, "tls-key", "", "the PEM key of --tls-cert")
	f.StringVar(&opts.tlsCA, "tls-ca", "", "a PEM file of the authority the nodes of a cluster check each other's certificates with (default: --tls-cert itself)")
	f.BoolVar(&opts.clearRoutes, "clear-routes", false, "let the nodes of a cluster talk in clear text although hosts speak TLS (a private network of their own)")
	f.StringVar(&opts.cluster, "cluster", "", "the address this node listens on for the other nodes of a cluster of hubs")
	f.StringArrayVar(&opts.peers, "peer", nil, "the cluster URL of another node, like nats://h2:6222 (repeatable, with --cluster)")
	f.StringVar(&opts.name, "name", "", "this node's name in its cluster (default: from its address)")
	f.IntVar(&opts.replicas, "replicas", 0, "how many nodes keep the team's mail (default: 3 with --cluster, else 1)")
	cmd.AddCommand(newConfigCmd(stdout, stderr), newStockCmd(ctx, "prepare", prepareHelp, stdout), newStockCmd(ctx, "serve", serveHelp, stdout))
	program.WithVersion(cmd, "switchboard-hub", stdout)
	return cmd
}

// usageError is a mistake in the command line: exit 2.
func usageError(msg string) error { return program.Usage("%s", msg) }

func run(ctx context.Context, stdout, stderr io.Writer, opts *options) error {
	if (opts.tlsCrt == "") != (opts.tlsKey == "") {
		return usageError("--tls-cert and --tls-key go together: give both, or neither")
	}
	dir := opts.dir
	if dir == "" {
		data, err := dataDir()
		if err != nil {
			return fmt.Errorf("%w; give the hub a folder with --dir", err)
		}
		dir = filepath.Join(data, "switchboard", "hub")
	}
	hosts := opts.hosts
	if len(hosts) == 0 {
		hosts = []string{thisHost()}
	}
	for _, h := range hosts {
		if err := mailbox.ValidateAgentName(h); err != nil {
			return usageError(fmt.Sprintf("--host %q: a host's name is lowercase letters, digits, _ and - (%v)", h, err))
		}
	}
	if (opts.cluster == "") != (len(opts.peers) == 0) {
		return usageError("--cluster and --peer go together: a node of a cluster listens for its peers and knows them")
	}
	replicas := opts.replicas
	if replicas == 0 && opts.cluster != "" {
		replicas = 3
	}
	if opts.clearRoutes && (opts.cluster == "" || opts.tlsCrt == "") {
		return usageError("--clear-routes lets a cluster's nodes talk in clear text beside hosts that speak TLS: it goes with --cluster and --tls-cert")
	}
	srv, err := embedded.Start(ctx, embedded.Config{Listen: opts.listen, Dir: dir, TLSCert: opts.tlsCrt, TLSKey: opts.tlsKey, TLSCA: opts.tlsCA,
		Cluster: opts.cluster, Peers: opts.peers, Name: opts.name, ClearRoutes: opts.clearRoutes,
		Service: hub.TeamService{Team: opts.team, Replicas: replicas}})
	if err != nil {
		return fmt.Errorf("start the hub: %w", err)
	}
	defer srv.Close()
	fmt.Fprintln(stdout, reachable(srv.URL(hosts[0])))
	for _, h := range hosts {
		var more []string
		if opts.team != "" {
			more = append(more, "--team", opts.team)
		}
		if opts.tlsCrt != "" {
			// A certificate of the hub's own: each host needs a copy of it.
			more = append(more, "--hub-ca", opts.tlsCrt)
		}
		hubURL, password := splitPassword(reachable(srv.URL(h)))
		fmt.Fprintln(stdout, joinline.Line{Host: h, URL: hubURL, Password: password, More: more})
	}
	for _, w := range srv.Warnings() {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if host, _, err := net.SplitHostPort(srv.Addr()); err == nil && net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(stderr, "note: the hub listens on loopback, so only masters of this machine reach it; for other machines, give --listen an address of this one, like --listen 0.0.0.0:4222 (with --tls-cert and --tls-key)\n")
	}
	if opts.cluster != "" {
		fmt.Fprintf(stderr, "note: every node of the cluster keeps the same secret: copy %s to the folder of the other nodes before they first start\n", filepath.Join(dir, "hub.secret"))
	}
	fmt.Fprintf(stderr, "hub running on %s with its files in %s; stop it with Ctrl-C\n", srv.Addr(), dir)
	<-ctx.Done()
	return nil
}

// splitPassword parts a hub URL (or a cluster's list of them) from the
// password in it.
func splitPassword(hubURLs string) (withoutPassword, password string) {
	urls := strings.Split(hubURLs, ",")
	for i, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			continue
		}
		if p, ok := u.User.Password(); ok {
			password = p
		}
		u.User = nil
		urls[i] = u.String()
	}
	return strings.Join(urls, ","), password
}

// dataDir is where a user's programs keep their data.
func dataDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("no home folder to keep the hub's files in")
	}
	return filepath.Join(home, ".local", "share"), nil
}

// thisHost is this machine's name as a host name of the team.
func thisHost() string {
	name, _ := os.Hostname()
	name, _, _ = strings.Cut(strings.ToLower(name), ".")
	name = regexp.MustCompile(`[^a-z0-9_-]+`).ReplaceAllString(name, "-")
	if name == "" || mailbox.ValidateAgentName(name) != nil {
		return "host-1"
	}
	return name
}

// reachable is a hub URL (or a list of them, comma-separated) with an
// address other machines can use in place of one that means "every address
// of this machine" (0.0.0.0, ::).
func reachable(hubURLs string) string {
	urls := strings.Split(hubURLs, ",")
	for i, u := range urls {
		urls[i] = reachableOne(u)
	}
	return strings.Join(urls, ",")
}

func reachableOne(hubURL string) string {
	u, err := url.Parse(hubURL)
	if err != nil {
		return hubURL
	}
	ip := net.ParseIP(u.Hostname())
	if ip == nil || !ip.IsUnspecified() {
		return hubURL
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			u.Host = net.JoinHostPort(n.IP.String(), u.Port())
			return u.String()
		}
	}
	if name, err := os.Hostname(); err == nil {
		u.Host = net.JoinHostPort(name, u.Port())
	}
	return u.String()
}
