package main

import (
	"cmp"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"switchboard/internal/profiling"
	"switchboard/mailbox"
	"switchboard/workspace"
)

// hubGiven are the flags that join a team across machines, as given.
type hubGiven struct {
	workspace.HubSettings
	credentials string // a file of the credentials a NATS server gave this host
}

// hubFlags are the flags that join a team across machines.
func hubFlags(f *pflag.FlagSet, given *hubGiven) {
	s := &given.HubSettings
	f.StringVar(&s.URL, "hub", "", "join a team across machines through the hub at this URL (kept for later starts); its password in "+workspace.HubPasswordEnv+", not on the command line")
	f.StringVar(&s.Host, "host", "", "this host's name in the team across machines (with --hub)")
	f.StringVar(&s.Team, "team", "", "the team's name on the hub (with --hub; default: main)")
	f.StringVar(&s.CA, "hub-ca", "", "a PEM file of the authority of the hub's TLS certificate, when the system does not trust it (with --hub)")
	f.StringVar(&given.credentials, "hub-creds", "", "a NATS credentials file, or a user's nkey seed, that a NATS server of your own gave this host, when the URL has no password (with --hub; kept for later starts)")
}

// hubSettings keeps the hub settings given, or reads those kept before.
// The host's password comes from the URL, from HubPasswordEnv (cleared at
// once, so that nothing this process starts inherits it), or from the
// settings kept for the same host of the same hub. given reports that it
// came in the URL, where every process of the machine can read it, or in
// the environment, where every process of the user's can (the process's
// environment as it started, whatever it unsets): a process that stays on
// drops it from both (dropHubPassword).
func hubSettings(ws *workspace.Workspace, flags hubGiven) (s workspace.HubSettings, given bool, err error) {
	s = flags.HubSettings
	envPassword, fromEnv := os.LookupEnv(workspace.HubPasswordEnv)
	os.Unsetenv(workspace.HubPasswordEnv)
	if s.URL == "" {
		if s.Host != "" || s.Team != "" || s.CA != "" || flags.credentials != "" || fromEnv {
			return s, false, usageError("--host, --team, --hub-ca, --hub-creds and %s go with --hub URL: the hub to join", workspace.HubPasswordEnv)
		}
		kept, _, err := ws.Hub()
		return kept, false, err
	}
	if s.Host == "" {
		return s, false, usageError("--hub needs --host NAME: this host's name in the team, as the hub's line for it says")
	}
	if err := mailbox.ValidateAgentName(s.Host); err != nil {
		return s, false, usageError("--host %q: a host's name is lowercase letters, digits, _ and - (%v)", s.Host, err)
	}
	urls, hasPassword, err := hubURLs(s.URL)
	if err != nil {
		return s, false, err
	}
	kept, ok, _ := ws.Hub()
	sameHost := ok && kept.Host == s.Host
	switch {
	case hasPassword:
		given = true
	case fromEnv && envPassword != "":
		given = true
		for _, u := range urls {
			u.User = url.UserPassword(s.Host, envPassword)
		}
		s.URL = joinURLs(urls)
	case sameHost && withoutPassword(kept.URL) == withoutPassword(s.URL):
		// The same host joining the same hub again keeps its password.
		s.URL = kept.URL
	}
	if sameHost {
		// The same host joining again keeps the authority and the
		// credentials it was given.
		s.CA = cmp.Or(s.CA, kept.CA)
		if flags.credentials == "" {
			s.Credentials = kept.Credentials
		}
	}
	if s.CA != "" {
		abs, err := filepath.Abs(s.CA)
		if err != nil {
			return s, false, err
		}
		if _, err := os.Stat(abs); err != nil {
			return s, false, usageError("--hub-ca %s: %v", s.CA, err)
		}
		s.CA = abs
	}
	if flags.credentials != "" {
		data, err := os.ReadFile(flags.credentials)
		if err != nil {
			return s, false, usageError("--hub-creds %s: %v", flags.credentials, err)
		}
		if !hasUserSeed(data) {
			return s, false, usageError("--hub-creds %s is neither a NATS credentials file nor a user's nkey seed: give the file the server's operator (or switchboard hub config --nkeys) made for host %s", flags.credentials, s.Host)
		}
		s.Credentials = string(data)
	}
	return s, given, ws.SetHub(s)
}

// hubURLs parses a hub URL, or a cluster's list of them, comma-separated,
// and reports whether any carries a password.
func hubURLs(raw string) ([]*url.URL, bool, error) {
	var out []*url.URL
	password := false
	for _, one := range strings.Split(raw, ",") {
		u, err := url.Parse(strings.TrimSpace(one))
		if err != nil || u.Host == "" {
			// The parser's error quotes the URL, password included.
			return nil, false, usageError("--hub: a URL like nats://hub.example.com:4222 (a cluster's, comma-separated), its password in %s", workspace.HubPasswordEnv)
		}
		if _, ok := u.User.Password(); ok {
			password = true
		}
		out = append(out, u)
	}
	return out, password, nil
}

func joinURLs(urls []*url.URL) string {
	parts := make([]string, len(urls))
	for i, u := range urls {
		parts[i] = u.String()
	}
	return strings.Join(parts, ",")
}

// withoutPassword is a hub URL (or list) with no credentials in it: the
// same hub, whoever joins it, and what may be shown.
func withoutPassword(raw string) string {
	urls, _, err := hubURLs(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	for _, u := range urls {
		u.User = nil
	}
	return joinURLs(urls)
}

// dropHubPassword starts this program again in its own place with the
// same arguments but the hub URL's password, and without HubPasswordEnv
// (unset already): the password stays only in the kept settings, and
// neither the process list nor the process's environment shows it. It
// returns only when it cannot.
func dropHubPassword(hubURL string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this program to drop the hub's password from its arguments: %w", err)
	}
	args := make([]string, len(os.Args))
	clean := withoutPassword(hubURL)
	for i, a := range os.Args {
		args[i] = strings.ReplaceAll(a, hubURL, clean)
	}
	profiling.Discard()
	return syscall.Exec(exe, args, os.Environ())
}

// hasUserSeed tells whether data hold a line that is a user's nkey seed,
// as a credentials file and a seed file do. (The hub's program checks the
// rest when the master joins: this one links no NATS.)
func hasUserSeed(data []byte) bool {
	for line := range strings.Lines(string(data)) {
		if strings.HasPrefix(strings.TrimSpace(line), "SU") {
			return true
		}
	}
	return false
}
