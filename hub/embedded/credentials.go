package embedded

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"

	natsserver "github.com/nats-io/nats-server/v2/server"

	"switchboard/hub/grant"
	"switchboard/mailbox"
)

// SecretFile is the file, in a hub's folder, of its key, from which every
// host's password derives.
const SecretFile = "hub.secret"

// Secret is a hub's key: every credential the hub hands out derives from
// it, so that a hub started again keeps every host's URL valid, and the
// nodes of a cluster, and the configuration of a stock server written with
// the same key, hand out the same ones.
type Secret []byte

// LoadSecret reads the key kept at path, creating it (0600) the first time,
// so that a restarted hub keeps every URL it handed out valid.
func LoadSecret(path string) (Secret, error) {
	secret, err := os.ReadFile(path)
	if err == nil {
		if len(secret) < 32 {
			return nil, fmt.Errorf("hub secret %s is shorter than 32 bytes: remove it to make a new one (every host then needs its new credentials)", path)
		}
		return secret, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read hub secret: %w", err)
	}
	secret = make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("make hub secret: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Another hub on the same folder won the race; use its key.
		return LoadSecret(path)
	}
	if err != nil {
		return nil, fmt.Errorf("create hub secret: %w", err)
	}
	if _, err := f.Write(secret); err != nil {
		f.Close()
		return nil, fmt.Errorf("write hub secret: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("sync hub secret: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("close hub secret: %w", err)
	}
	return secret, nil
}

// HostPassword is a host's password: an HMAC of its name under the key.
func (s Secret) HostPassword(host string) string { return s.derive("switchboard host\x00" + host) }

// RoutePassword is what the nodes of a cluster of hubs present to each
// other.
func (s Secret) RoutePassword() string { return s.HostPassword("\x00route") }

// AdminPassword is the password of the user of switchboard's own work on a
// stock server (an embedded hub's own connection has a password of each
// start's, which never leaves its process).
func (s Secret) AdminPassword() string { return s.derive("switchboard admin") }

// HostSeed is the raw seed of a host's nkey, for a stock server that knows
// hosts by their nkeys.
func (s Secret) HostSeed(host string) []byte {
	mac := hmac.New(sha256.New, s)
	mac.Write([]byte("switchboard nkey\x00" + host))
	return mac.Sum(nil)
}

func (s Secret) derive(what string) string {
	mac := hmac.New(sha256.New, s)
	mac.Write([]byte(what))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// randomPassword is the password of the hub's own connection: made at each
// start, it never leaves the process.
func randomPassword() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make the hub's own password: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// adminUser is the hub's own connection; no host name can be it.
const adminUser = "_hub"

// hostAuth accepts any valid host name whose password matches, and puts
// the connection in that host's account, with the subjects of its grant;
// and the hub's own connection, in the hub's account, with every
// permission.
type hostAuth struct {
	secret  Secret
	service Service
	admin   string
	server  *natsserver.Server // set before the server starts

	mu       sync.Mutex
	accounts map[string]*natsserver.Account // each host's, by name
}

// Check implements natsserver.Authentication.
func (a *hostAuth) Check(c natsserver.ClientAuthentication) bool {
	if c.Kind() != natsserver.CLIENT {
		return false
	}
	opts := c.GetOpts()
	if opts != nil && opts.Username == adminUser && a.admin != "" && hmac.Equal([]byte(a.admin), []byte(opts.Password)) {
		c.RegisterUser(&natsserver.User{Username: adminUser, Account: a.server.GlobalAccount()})
		return true
	}
	if opts == nil || !mailbox.WellFormedName(opts.Username) {
		return false
	}
	want := a.secret.HostPassword(opts.Username)
	if !hmac.Equal([]byte(want), []byte(opts.Password)) {
		return false
	}
	acc, err := a.accountOf(opts.Username)
	if err != nil {
		return false
	}
	g := a.service.Grant(opts.Username)
	c.RegisterUser(&natsserver.User{
		Username: opts.Username,
		Account:  acc,
		Permissions: &natsserver.Permissions{
			Publish:   &natsserver.SubjectPermission{Allow: g.Publish()},
			Subscribe: &natsserver.SubjectPermission{Allow: g.Subscribe()},
		},
	})
	return true
}

// accountOf is host's account, made with its grant's imports the first
// time host connects.
func (a *hostAuth) accountOf(host string) (*natsserver.Account, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if acc, ok := a.accounts[host]; ok {
		return acc, nil
	}
	acc, err := a.server.RegisterAccount(hostAccount(host))
	if err != nil {
		return nil, err
	}
	hub := a.server.GlobalAccount()
	g := a.service.Grant(host)
	for _, im := range g.Imports {
		if err := acc.AddServiceImport(hub, im.Local, im.Team); err != nil {
			return nil, fmt.Errorf("import %s for host %s: %w", im.Team, host, err)
		}
	}
	for _, f := range g.Feeds {
		if err := acc.AddStreamImport(hub, f, ""); err != nil {
			return nil, fmt.Errorf("import %s for host %s: %w", f, host, err)
		}
	}
	a.accounts[host] = acc
	return acc, nil
}

// hostAccount is the name of host's account.
func hostAccount(host string) string { return "host-" + host }

// export offers, in the hub's account, what the hosts' accounts import.
func export(hub *natsserver.Account, e grant.Exports) error {
	for _, sub := range e.Services {
		rt := natsserver.Singleton
		if slices.Contains(e.Streamed, sub) {
			rt = natsserver.Streamed
		}
		if err := hub.AddServiceExportWithResponse(sub, rt, nil); err != nil {
			return fmt.Errorf("%w: export %s: %w", ErrBadConfig, sub, err)
		}
	}
	for _, sub := range e.Streams {
		if err := hub.AddStreamExport(sub, nil); err != nil {
			return fmt.Errorf("%w: export %s: %w", ErrBadConfig, sub, err)
		}
	}
	return nil
}
