package hubcmd

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nats-io/nkeys"
	"github.com/spf13/pflag"
	"golang.org/x/crypto/bcrypt"

	"switchboard/hub"
	"switchboard/internal/safetext"
	"switchboard/mailbox"
)

// configUsage is the help of switchboard hub config.
const configUsage = `Usage: switchboard hub config --host NAME... [--listen ADDR] [--advertise HOST] [--store DIR] [--team T] [--cluster ADDR --peer URL... --name N] [--nkeys] [--out FILE]

Write the configuration of a stock nats-server (2.9 or newer) that serves a
team, for those who run NATS themselves: a user for each host, with the
permissions an embedded hub gives it, a user for switchboard's own work,
JetStream, and, with --cluster, this node's place in a cluster. Passwords
are kept in the file as bcrypt hashes and printed once, in the lines that
follow: the one that makes the team's stream and buckets on the server
(switchboard hub prepare, once the server runs), and the one each host
joins with. With --nkeys each host is a user by its nkey instead of a
password: its seed is written beside the file (HOST.nk, mode 0600), to be
copied to that host, which joins with --hub-creds HOST.nk.

Examples:
  switchboard hub config --host laptop --host gpu --advertise nats.example.com --out /etc/nats/switchboard.conf
  switchboard hub config --host laptop --host gpu --cluster 0.0.0.0:6222 --peer nats://n2:6222 --peer nats://n3:6222 --name n1
  switchboard hub config --host laptop --host gpu --nkeys --out /etc/nats/switchboard.conf

Flags:
`

type configOptions struct {
	hosts, peers                                       []string
	listen, advertise, store, team, cluster, name, out string
	nkeys                                              bool
}

// adminName is the user of switchboard's own work on a stock server: it
// makes the team's stream and buckets.
const adminName = "switchboard-admin"

func runConfig(args []string, stdout, stderr io.Writer) int {
	opts := &configOptions{}
	f := pflag.NewFlagSet("switchboard hub config", pflag.ContinueOnError)
	f.SetOutput(stderr)
	f.Usage = func() {
		fmt.Fprint(stderr, configUsage)
		f.PrintDefaults()
	}
	f.StringArrayVar(&opts.hosts, "host", nil, "a host of the team (repeatable; one at least)")
	f.StringVar(&opts.listen, "listen", "0.0.0.0:4222", "the address the server listens on for hosts")
	f.StringVar(&opts.advertise, "advertise", "", "the name hosts reach the server by (default: this machine's)")
	f.StringVar(&opts.store, "store", "/var/lib/nats/switchboard", "the server's JetStream folder")
	f.StringVar(&opts.team, "team", "", "the team's name (default: main)")
	f.StringVar(&opts.cluster, "cluster", "", "the address this node listens on for the other nodes of a cluster")
	f.StringArrayVar(&opts.peers, "peer", nil, "the cluster URL of another node, like nats://n2:6222 (repeatable, with --cluster)")
	f.StringVar(&opts.name, "name", "", "this node's name in its cluster (with --cluster)")
	f.StringVar(&opts.out, "out", "nats-server.conf", "the file to write; an existing one is not replaced")
	f.BoolVar(&opts.nkeys, "nkeys", false, "make each host a user by an nkey, its seed written beside the file, instead of a password")
	if err := f.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "switchboard hub config: %v; switchboard hub config --help says how\n", err)
		return exitUsage
	}
	if err := writeConfig(stdout, opts); err != nil {
		fmt.Fprintf(stderr, "switchboard hub config: %v\n", err)
		var usage usageError
		if errors.As(err, &usage) {
			return exitUsage
		}
		return exitError
	}
	return exitOK
}

func writeConfig(stdout io.Writer, opts *configOptions) error {
	if len(opts.hosts) == 0 {
		return usageError("give the team's hosts, each with --host NAME")
	}
	for _, h := range opts.hosts {
		if err := mailbox.ValidateAgentName(h); err != nil {
			return usageError(fmt.Sprintf("--host %q: a host's name is lowercase letters, digits, _ and - (%v)", h, err))
		}
	}
	if (opts.cluster == "") != (len(opts.peers) == 0) || (opts.cluster == "") != (opts.name == "") {
		return usageError("--cluster, --peer and --name go together: a node of a cluster listens, knows its peers and has a name")
	}
	_, port, err := net.SplitHostPort(opts.listen)
	if err != nil {
		return usageError(fmt.Sprintf("--listen %q: %v", opts.listen, err))
	}
	server := opts.advertise
	if server == "" {
		server = thisHost()
	}
	svc := hub.TeamService{Team: opts.team}
	var c strings.Builder
	fmt.Fprintf(&c, "# nats-server configuration for the switchboard team %q, written by switchboard hub config.\n", cmpOr(opts.team, "main"))
	fmt.Fprintf(&c, "# Start the server with it, then make the team's stream and buckets once with switchboard hub prepare.\n")
	fmt.Fprintf(&c, "listen: %s\n", quote(opts.listen))
	fmt.Fprintf(&c, "max_payload: %d\n", 4<<20)
	fmt.Fprintf(&c, "jetstream {\n  store_dir: %s\n}\n", quote(opts.store))
	if opts.cluster != "" {
		fmt.Fprintf(&c, "server_name: %s\n", quote(opts.name))
		fmt.Fprintf(&c, "cluster {\n  name: \"switchboard\"\n  listen: %s\n  routes: [%s]\n}\n", quote(opts.cluster), quoteAll(opts.peers))
	}
	lines := make(map[string]string)
	fmt.Fprintf(&c, "authorization {\n  users: [\n")
	adminPassword, err := newPassword()
	if err != nil {
		return err
	}
	if err := user(&c, adminName, adminPassword, nil, nil); err != nil {
		return err
	}
	seeds := make(map[string][]byte) // by the file each goes to, with --nkeys
	for _, h := range opts.hosts {
		pub, sub := svc.Permissions(h)
		if opts.nkeys {
			key, seed, err := newUserKey()
			if err != nil {
				return err
			}
			nkeyUser(&c, key, pub, sub)
			path := filepath.Join(filepath.Dir(opts.out), h+".nk")
			seeds[path] = seed
			lines[h] = safetext.ShellWord((&url.URL{Scheme: "nats", Host: net.JoinHostPort(server, port)}).String()) + " --hub-creds " + safetext.ShellWord(path)
			continue
		}
		pw, err := newPassword()
		if err != nil {
			return err
		}
		if err := user(&c, h, pw, pub, sub); err != nil {
			return err
		}
		lines[h] = safetext.ShellWord(serverURL(h, pw, server, port))
	}
	fmt.Fprintf(&c, "  ]\n}\n")
	for _, path := range append([]string{opts.out}, slices.Sorted(maps.Keys(seeds))...) {
		if _, err := os.Lstat(path); err == nil {
			return usageError(fmt.Sprintf("%s exists: give --out another file, or remove it (passwords and seeds are made once, and not printed again)", path))
		}
	}
	if err := writeNew(opts.out, []byte(c.String()), "its passwords are not printed again"); err != nil {
		return err
	}
	for _, path := range slices.Sorted(maps.Keys(seeds)) {
		if err := writeNew(path, seeds[path], "a seed is made once"); err != nil {
			return err
		}
	}
	team := ""
	if opts.team != "" {
		team = " --team " + safetext.ShellWord(opts.team)
	}
	replicas := ""
	if opts.cluster != "" {
		replicas = " --replicas 3"
	}
	fmt.Fprintf(stdout, "wrote %s (mode 0600: it holds the password hashes); start nats-server -c %s, then, once:\n", opts.out, safetext.ShellWord(opts.out))
	if opts.nkeys {
		defer fmt.Fprintf(stdout, "each host's nkey seed is in %s: copy it to that host only (it is the host's password), where the line above reads it\n",
			filepath.Join(filepath.Dir(opts.out), "HOST.nk"))
	}
	fmt.Fprintf(stdout, "  switchboard hub prepare --nats %s%s%s\n", safetext.ShellWord(serverURL(adminName, adminPassword, server, port)), team, replicas)
	for _, h := range opts.hosts {
		fmt.Fprintf(stdout, "on %s, in its workspace: switchboard up --hub %s --host %s%s\n", h, lines[h], h, team)
	}
	return nil
}

// user writes one user of the configuration, its password hashed, and its
// permissions (none: every permission).
func user(w io.Writer, name, password string, pub, sub []string) error {
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return fmt.Errorf("hash the password of %s: %w", name, err)
	}
	fmt.Fprintf(w, "    {user: %s, password: %s", quote(name), quote(string(hash)))
	if pub != nil {
		fmt.Fprintf(w, ", permissions: {publish: {allow: [%s]}, subscribe: {allow: [%s]}}", quoteAll(pub), quoteAll(sub))
	}
	fmt.Fprintf(w, "}\n")
	return nil
}

// writeNew writes a file that must not exist, readable by its owner alone;
// an existing one is a usage error that says why it is kept.
func writeNew(path string, data []byte, why string) error {
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return usageError(fmt.Sprintf("%s exists: give --out another file, or remove it (%s)", path, why))
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

// newUserKey is a user's nkey: its public key, for the configuration, and
// its seed, for the host.
func newUserKey() (key string, seed []byte, err error) {
	kp, err := nkeys.CreateUser()
	if err != nil {
		return "", nil, fmt.Errorf("make an nkey: %w", err)
	}
	if key, err = kp.PublicKey(); err != nil {
		return "", nil, err
	}
	if seed, err = kp.Seed(); err != nil {
		return "", nil, err
	}
	return key, append(seed, '\n'), nil
}

// nkeyUser writes one user of the configuration by its nkey, with its
// permissions.
func nkeyUser(w io.Writer, key string, pub, sub []string) {
	fmt.Fprintf(w, "    {nkey: %s, permissions: {publish: {allow: [%s]}, subscribe: {allow: [%s]}}}\n", quote(key), quoteAll(pub), quoteAll(sub))
}

// newPassword is a random password for a user of the server.
func newPassword() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a password: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// serverURL is the URL user joins the server with.
func serverURL(user, password, server, port string) string {
	u := url.URL{Scheme: "nats", User: url.UserPassword(user, password), Host: net.JoinHostPort(server, port)}
	return u.String()
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
