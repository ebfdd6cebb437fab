package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"switchboard/hub"
	"switchboard/internal/safetext"
	"switchboard/mailbox"

	"github.com/spf13/cobra"
)

type hubOptions struct {
	listen string
	dir    string
	team   string
	hosts  []string
	tlsCrt string
	tlsKey string
}

func newHubCmd(io *streams, g *globals) *cobra.Command {
	opts := &hubOptions{}
	cmd := &cobra.Command{
		Use:   "hub [--listen ADDR] [--dir DIR] [--host NAME]... [--team T]",
		Short: "Run the hub that joins masters on several machines into one team",
		Long: `Run an embedded NATS server with JetStream, in the foreground, that the
masters of one team join from every host (switchboard master --hub URL --host
NAME). Its first line of output is the URL the first --host joins with, its
credentials in it; the next lines are the command each host runs. Every host
has credentials of its own, derived from a secret kept in DIR, so the URLs
stay valid when the hub starts again on the same DIR, and a host may send
only as the agents it runs.

Mail for an agent of another host waits on the hub (on disk, in DIR) until
that host takes it. With the hub away, each host's own mail goes on, and mail
for other hosts waits on its host's disk, in order, until the hub is back.

The hub listens on loopback unless --listen says otherwise. On another
address, without --tls-cert and --tls-key, mail and passwords cross the
network in clear text, and the hub says so. Users with a NATS cluster of
their own (JetStream on) skip this and give the masters its URL.`,
		Example: `  switchboard hub --host laptop --host gpu
  switchboard hub --listen 0.0.0.0:4222 --dir /var/lib/switchboard-hub --host laptop --host gpu --tls-cert hub.crt --tls-key hub.key`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runHub(cmd.Context(), io, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.listen, "listen", "127.0.0.1:4222", "the address masters connect to")
	f.StringVar(&opts.dir, "dir", "", "where the hub keeps its messages and secret (default: switchboard/hub in your data folder)")
	f.StringArrayVar(&opts.hosts, "host", nil, "a host of the team, to print its URL (repeatable; default: this machine)")
	f.StringVar(&opts.team, "team", "", "the team's name on the hub (default: main)")
	f.StringVar(&opts.tlsCrt, "tls-cert", "", "a PEM certificate: the hub speaks TLS only")
	f.StringVar(&opts.tlsKey, "tls-key", "", "the PEM key of --tls-cert")
	return cmd
}

func runHub(ctx context.Context, io *streams, opts *hubOptions) error {
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
			return usageError("--host %q: a host's name is lowercase letters, digits, _ and - (%v)", h, err)
		}
	}
	srv, err := hub.Start(ctx, hub.ServerConfig{Listen: opts.listen, Dir: dir, Team: opts.team, TLSCert: opts.tlsCrt, TLSKey: opts.tlsKey})
	if err != nil {
		return fmt.Errorf("start the hub: %w", err)
	}
	defer srv.Close()
	fmt.Fprintln(io.out, reachable(srv.URL(hosts[0])))
	for _, h := range hosts {
		team := ""
		if opts.team != "" {
			team = " --team " + safetext.ShellWord(opts.team)
		}
		if opts.tlsCrt != "" {
			// A certificate of the hub's own: each host needs a copy of it.
			team += " --hub-ca " + safetext.ShellWord(opts.tlsCrt)
		}
		fmt.Fprintf(io.out, "on %s, in its workspace: switchboard up --hub %s --host %s%s\n", h, safetext.ShellWord(reachable(srv.URL(h))), h, team)
	}
	for _, w := range srv.Warnings() {
		fmt.Fprintf(io.errOut, "warning: %s\n", w)
	}
	if host, _, err := net.SplitHostPort(srv.Addr()); err == nil && net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(io.errOut, "note: the hub listens on loopback, so only masters of this machine reach it; for other machines, give --listen an address of this one, like --listen 0.0.0.0:4222 (with --tls-cert and --tls-key)\n")
	}
	fmt.Fprintf(io.errOut, "hub running on %s with its files in %s; stop it with Ctrl-C\n", srv.Addr(), dir)
	<-ctx.Done()
	return nil
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

// reachable is a hub URL with an address other machines can use in place
// of one that means "every address of this machine" (0.0.0.0, ::).
func reachable(hubURL string) string {
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
