package hubcmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/nats-io/nkeys"
	"github.com/spf13/cobra"
	"golang.org/x/crypto/bcrypt"

	"switchboard/hub"
	"switchboard/hub/embedded"
	"switchboard/hub/grant"
	"switchboard/internal/joinline"
	"switchboard/internal/program"
	"switchboard/internal/safetext"
	"switchboard/mailbox"
)

// configLong is the help of switchboard hub config.
const configLong = `Write the configuration of a stock nats-server (2.9 or newer) that serves a
team, for those who run NATS themselves: an account for the team's stream and
buckets with a user for switchboard's own work, and an account for each host
that reaches the team's only through the subjects that are that host's, as an
embedded hub does; JetStream; TLS; and, with --cluster, this node's place in a
cluster, its routes authenticated (and over TLS with --tls-cert).

Every password derives from a secret (--secret, made the first time, 0600):
run hub config with the same secret, and the same --host list, for every node
of a cluster, and copy the secret to them as you would a password. The file
keeps bcrypt hashes; the lines printed after it serve the team beside the
server (switchboard hub serve: it makes the team's stream and buckets, and
writes on the hosts' behalf), and join each host, its password in the
environment, never on a command line. With --nkeys each host is a user by its nkey instead: its seed is
written beside the file (HOST.nk, mode 0600), to be copied to that host, which
joins with --hub-creds HOST.nk.`

type configOptions struct {
	hosts, peers                                       []string
	listen, advertise, store, team, cluster, name, out string
	secret, tlsCert, tlsKey, tlsCA                     string
	nkeys, clearRoutes                                 bool
}

// Account and user names of the configuration.
const (
	// adminName is the user of switchboard's own work on a stock server:
	// it makes the team's stream, buckets and consumers.
	adminName = "switchboard-admin"
	// teamAccount holds the team's stream and buckets.
	teamAccount = "switchboard"
	// routeUser is the name the nodes of a cluster know each other by, as
	// an embedded hub's nodes do.
	routeUser = "_route"
)

// hostAccount is the account of host.
func hostAccount(host string) string { return "host-" + host }

func newConfigCmd(stdout, stderr io.Writer) *cobra.Command {
	opts := &configOptions{}
	cmd := &cobra.Command{
		Use:   "config --host NAME... [--listen ADDR] [--advertise HOST] [--store DIR] [--team T] [--secret FILE] [--tls-cert F --tls-key F [--tls-ca F]] [--cluster ADDR --peer URL... --name N [--clear-routes]] [--nkeys] [--out FILE]",
		Short: "Write the configuration of a NATS server of your own that serves a team",
		Long:  configLong,
		Example: `  switchboard hub config --host laptop --host gpu --advertise nats.example.com --out /etc/nats/switchboard.conf
  switchboard hub config --host laptop --host gpu --tls-cert hub.crt --tls-key hub.key --cluster 0.0.0.0:6222 --peer nats://n2:6222 --peer nats://n3:6222 --name n1
  switchboard hub config --host laptop --host gpu --nkeys --out /etc/nats/switchboard.conf`,
		Args: program.NoArgs,
		RunE: func(*cobra.Command, []string) error { return writeConfig(stdout, stderr, opts) },
	}
	f := cmd.Flags()
	f.StringArrayVar(&opts.hosts, "host", nil, "a host of the team (repeatable; one at least)")
	f.StringVar(&opts.listen, "listen", "0.0.0.0:4222", "the address the server listens on for hosts")
	f.StringVar(&opts.advertise, "advertise", "", "the name hosts reach the server by (default: this machine's)")
	f.StringVar(&opts.store, "store", "/var/lib/nats/switchboard", "the server's JetStream folder")
	f.StringVar(&opts.team, "team", "", "the team's name (default: main)")
	f.StringVar(&opts.secret, "secret", "", "the file of the secret every password derives from, made when missing (default: hub.secret beside --out)")
	f.StringVar(&opts.tlsCert, "tls-cert", "", "a PEM certificate: the server speaks TLS to hosts, and to the other nodes of its cluster (each checks the other's, both ways: the certificate must allow client authentication too)")
	f.StringVar(&opts.tlsKey, "tls-key", "", "the PEM key of --tls-cert")
	f.StringVar(&opts.tlsCA, "tls-ca", "", "a PEM file of the authority the nodes of a cluster check each other's certificates with (default: --tls-cert itself, for one certificate on every node)")
	f.StringVar(&opts.cluster, "cluster", "", "the address this node listens on for the other nodes of a cluster")
	f.StringArrayVar(&opts.peers, "peer", nil, "the cluster URL of another node, like nats://n2:6222 (repeatable, with --cluster)")
	f.StringVar(&opts.name, "name", "", "this node's name in its cluster (with --cluster)")
	f.BoolVar(&opts.clearRoutes, "clear-routes", false, "let the nodes of a cluster talk in clear text although hosts speak TLS (a private network of their own)")
	f.StringVar(&opts.out, "out", "nats-server.conf", "the file to write; an existing one is not replaced")
	f.BoolVar(&opts.nkeys, "nkeys", false, "make each host a user by an nkey, its seed written beside the file, instead of a password")
	return cmd
}

func (o *configOptions) check() error {
	if len(o.hosts) == 0 {
		return usageError("give the team's hosts, each with --host NAME")
	}
	for _, h := range o.hosts {
		if err := mailbox.ValidateAgentName(h); err != nil {
			return usageError(fmt.Sprintf("--host %q: a host's name is lowercase letters, digits, _ and - (%v)", h, err))
		}
	}
	if (o.cluster == "") != (len(o.peers) == 0) || (o.cluster == "") != (o.name == "") {
		return usageError("--cluster, --peer and --name go together: a node of a cluster listens, knows its peers and has a name")
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return usageError("--tls-cert and --tls-key go together: give both, or neither")
	}
	if o.tlsCA != "" && o.tlsCert == "" {
		return usageError("--tls-ca is the authority of the nodes' certificates: it goes with --tls-cert")
	}
	if o.clearRoutes && (o.cluster == "" || o.tlsCert == "") {
		return usageError("--clear-routes lets a cluster's nodes talk in clear text beside hosts that speak TLS: it goes with --cluster and --tls-cert")
	}
	if _, _, err := net.SplitHostPort(o.listen); err != nil {
		return usageError(fmt.Sprintf("--listen %q: %v", o.listen, err))
	}
	for _, p := range o.peers {
		if u, err := url.Parse(p); err != nil || u.Host == "" || u.User != nil {
			return usageError(fmt.Sprintf("--peer %q is not a URL like nats://n2:6222 (without credentials: the nodes' password derives from the secret)", p))
		}
	}
	return nil
}

func writeConfig(stdout, stderr io.Writer, o *configOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	var err error
	for _, path := range []*string{&o.tlsCert, &o.tlsKey, &o.tlsCA, &o.out} {
		if *path != "" {
			if *path, err = filepath.Abs(*path); err != nil {
				return err
			}
		}
	}
	if o.secret == "" {
		o.secret = filepath.Join(filepath.Dir(o.out), embedded.SecretFile)
	}
	if _, err := os.Lstat(o.out); err == nil {
		return usageError(fmt.Sprintf("%s exists: give --out another file, or remove it", o.out))
	}
	secret, err := embedded.LoadSecret(o.secret)
	if err != nil {
		return err
	}
	svc := hub.TeamService{Team: o.team}
	c := &confWriter{}
	c.line("# nats-server configuration for the switchboard team %q, written by switchboard hub config.", cmpOr(o.team, "main"))
	c.line("# Start the server with it, and switchboard hub serve beside it: the team's side, which makes its stream and buckets and writes for the hosts.")
	c.line("listen: %s", quote(o.listen))
	c.line("max_payload: %d", 4<<20)
	c.line("jetstream {\n  store_dir: %s\n}", quote(o.store))
	if o.tlsCert != "" {
		c.line("tls {\n  cert_file: %s\n  key_file: %s\n}", quote(o.tlsCert), quote(o.tlsKey))
	}
	if o.cluster != "" {
		o.writeCluster(c, secret)
	}
	c.line("accounts {")
	if err := writeTeamAccount(c, svc.Exports(), secret); err != nil {
		return err
	}
	seeds := make(map[string][]byte) // by the file each goes to, with --nkeys
	for _, h := range o.hosts {
		path, seed, err := writeHostAccount(c, svc.Grant(h), h, secret, o)
		if err != nil {
			return err
		}
		if path != "" {
			seeds[path] = seed
		}
	}
	c.line("}")
	if err := writeNew(o.out, []byte(c.String()), "give --out another file, or remove it"); err != nil {
		return err
	}
	for path, seed := range seeds {
		if err := writeSeed(path, seed); err != nil {
			return err
		}
	}
	o.printLines(stdout, stderr)
	return nil
}

// writeCluster writes this node's place in its cluster: routes that
// present, and ask for, the password the secret derives for them, over
// TLS when hosts speak it.
func (o *configOptions) writeCluster(c *confWriter, secret embedded.Secret) {
	routes := make([]string, len(o.peers))
	for i, p := range o.peers {
		u, _ := url.Parse(p) // checked
		u.User = url.UserPassword(routeUser, secret.RoutePassword())
		routes[i] = u.String()
	}
	c.line("server_name: %s", quote(o.name))
	c.line("cluster {\n  name: \"switchboard\"\n  listen: %s\n  authorization {\n    user: %s\n    password: %s\n  }\n  routes: [%s]",
		quote(o.cluster), quote(routeUser), quote(secret.RoutePassword()), quoteAll(routes))
	if o.tlsCert != "" && !o.clearRoutes {
		c.line("  tls {\n    cert_file: %s\n    key_file: %s\n    ca_file: %s\n  }", quote(o.tlsCert), quote(o.tlsKey), quote(cmpOr(o.tlsCA, o.tlsCert)))
	}
	c.line("}")
}

// writeTeamAccount writes the team's account: JetStream, switchboard's
// own user, and what it offers the hosts' accounts.
func writeTeamAccount(c *confWriter, e grant.Exports, secret embedded.Secret) error {
	hash, err := bcrypt.GenerateFromPassword([]byte(secret.AdminPassword()), bcrypt.DefaultCost)
	if err != nil {
		return fmt.Errorf("hash the password of %s: %w", adminName, err)
	}
	c.line("  %s: {\n    jetstream: enabled", quote(teamAccount))
	c.line("    users: [{user: %s, password: %s}]", quote(adminName), quote(string(hash)))
	c.line("    exports: [")
	for _, sub := range e.Services {
		response := ""
		for _, st := range e.Streamed {
			if st == sub {
				response = ", response: \"stream\""
			}
		}
		c.line("      {service: %s%s}", quote(sub), response)
	}
	for _, sub := range e.Streams {
		c.line("      {stream: %s}", quote(sub))
	}
	c.line("    ]\n  }")
	return nil
}

// writeHostAccount writes host's account: its user, by password or by
// nkey (whose seed it returns, with the file it goes to), allowed only the
// subjects of its grant, and the imports that carry them to the team's
// account.
func writeHostAccount(c *confWriter, g grant.Grant, host string, secret embedded.Secret, o *configOptions) (seedPath string, seed []byte, err error) {
	perms := fmt.Sprintf("permissions: {publish: {allow: [%s]}, subscribe: {allow: [%s]}}", quoteAll(g.Publish()), quoteAll(g.Subscribe()))
	c.line("  %s: {", quote(hostAccount(host)))
	if o.nkeys {
		kp, err := nkeys.FromRawSeed(nkeys.PrefixByteUser, secret.HostSeed(host))
		if err != nil {
			return "", nil, fmt.Errorf("make the nkey of host %s: %w", host, err)
		}
		key, err := kp.PublicKey()
		if err != nil {
			return "", nil, err
		}
		if seed, err = kp.Seed(); err != nil {
			return "", nil, err
		}
		c.line("    users: [{nkey: %s, %s}]", quote(key), perms)
		seedPath = filepath.Join(filepath.Dir(o.out), host+".nk")
	} else {
		hash, err := bcrypt.GenerateFromPassword([]byte(secret.HostPassword(host)), bcrypt.DefaultCost)
		if err != nil {
			return "", nil, fmt.Errorf("hash the password of %s: %w", host, err)
		}
		c.line("    users: [{user: %s, password: %s, %s}]", quote(host), quote(string(hash)), perms)
	}
	c.line("    imports: [")
	for _, im := range g.Imports {
		c.line("      {service: {account: %s, subject: %s}, to: %s}", quote(teamAccount), quote(im.Team), quote(im.Local))
	}
	for _, f := range g.Feeds {
		c.line("      {stream: {account: %s, subject: %s}}", quote(teamAccount), quote(f))
	}
	c.line("    ]\n  }")
	return seedPath, seed, nil
}

// printLines prints what to run next: the server, hub serve beside it, and
// each host's join line, its password in the environment.
func (o *configOptions) printLines(stdout, stderr io.Writer) {
	secret, _ := embedded.LoadSecret(o.secret) // read a moment ago
	server := cmpOr(o.advertise, thisHost())
	_, port, _ := net.SplitHostPort(o.listen)
	scheme, ca := "nats", ""
	if o.tlsCert != "" {
		scheme, ca = "tls", cmpOr(o.tlsCA, o.tlsCert)
	}
	hubURL := (&url.URL{Scheme: scheme, Host: net.JoinHostPort(server, port)}).String()
	team, replicas := "", ""
	if o.team != "" {
		team = " --team " + safetext.ShellWord(o.team)
	}
	if o.cluster != "" {
		replicas = " --replicas 3"
	}
	fmt.Fprintf(stdout, "wrote %s (mode 0600: it holds the password hashes); start nats-server -c %s, then, beside it, for as long as it runs:\n", o.out, safetext.ShellWord(o.out))
	caFlag := ""
	if ca != "" {
		caFlag = " --hub-ca " + safetext.ShellWord(ca)
	}
	fmt.Fprintf(stdout, "  switchboard hub serve --nats %s --secret %s%s%s%s\n", safetext.ShellWord(hubURL), safetext.ShellWord(o.secret), team, replicas, caFlag)
	for _, h := range o.hosts {
		l := joinline.Line{Host: h, URL: hubURL}
		if o.team != "" {
			l.More = append(l.More, "--team", o.team)
		}
		if ca != "" {
			l.More = append(l.More, "--hub-ca", ca)
		}
		if o.nkeys {
			l.More = append(l.More, "--hub-creds", filepath.Join(filepath.Dir(o.out), h+".nk"))
		} else {
			l.Password = secret.HostPassword(h)
		}
		fmt.Fprintln(stdout, l)
	}
	if o.nkeys {
		fmt.Fprintf(stdout, "each host's nkey seed is in %s: copy it to that host only (it is the host's password), where the line above reads it\n",
			filepath.Join(filepath.Dir(o.out), "HOST.nk"))
	}
	fmt.Fprintf(stderr, "note: every password derives from %s: keep it as you would a password; a node of the same cluster, configured with it and the same hosts, hands out the same ones\n", o.secret)
	if o.clearRoutes {
		fmt.Fprintf(stderr, "warning: the nodes of this cluster talk in clear text (--clear-routes): every host's mail crosses between them readable\n")
	}
}

// confWriter builds the configuration's text.
type confWriter struct{ strings.Builder }

func (c *confWriter) line(format string, args ...any) {
	fmt.Fprintf(c, format+"\n", args...)
}

// writeNew writes a file that must not exist, readable by its owner alone;
// an existing one is a usage error that says what to do.
func writeNew(path string, data []byte, hint string) error {
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return usageError(fmt.Sprintf("%s exists: %s", path, hint))
	}
	if err != nil {
		return err
	}
	if _, err := file.Write(data); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}

// writeSeed writes a host's nkey seed, unless the file holds it already:
// the seed derives from the secret, so a second run writes the same.
func writeSeed(path string, seed []byte) error {
	if old, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(old)) == string(seed) {
		return nil
	}
	return writeNew(path, append(seed, '\n'), "it holds another seed: remove it, or give --out another folder")
}

// quote writes s as a string of the configuration's syntax, whose double
// quoted strings take JSON's escapes (but not \u003e for >, which JSON's
// encoder writes for HTML's sake).
func quote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

func quoteAll(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quote(s)
	}
	return strings.Join(out, ", ")
}

func cmpOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
