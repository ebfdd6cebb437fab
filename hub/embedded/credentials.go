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
	"path/filepath"

	natsserver "github.com/nats-io/nats-server/v2/server"

	"switchboard/mailbox"
)

// secretFile holds the hub's key, from which every host's password derives.
const secretFile = "hub.secret"

// loadSecret reads the hub's key from dir, creating it (0600) on first start,
// so that a restarted hub keeps every URL it handed out valid.
func loadSecret(dir string) ([]byte, error) {
	path := filepath.Join(dir, secretFile)
	secret, err := os.ReadFile(path)
	if err == nil {
		if len(secret) < 32 {
			return nil, fmt.Errorf("hub secret %s is shorter than 32 bytes: remove it to make a new one (every host then needs its new URL)", path)
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
		return loadSecret(dir)
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

// password is a host's password: an HMAC of its name under the hub's key.
func password(secret []byte, host string) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("switchboard host\x00" + host))
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

// hostAuth accepts any valid host name whose password matches, and gives the
// connection the permissions of that host alone; and the hub's own
// connection, with every permission.
type hostAuth struct {
	secret  []byte
	service Service
	admin   string
}

// Check implements natsserver.Authentication.
func (a *hostAuth) Check(c natsserver.ClientAuthentication) bool {
	if c.Kind() != natsserver.CLIENT {
		return false
	}
	opts := c.GetOpts()
	if opts != nil && opts.Username == adminUser && a.admin != "" && hmac.Equal([]byte(a.admin), []byte(opts.Password)) {
		c.RegisterUser(&natsserver.User{Username: adminUser})
		return true
	}
	if opts == nil || !mailbox.WellFormedName(opts.Username) {
		return false
	}
	want := password(a.secret, opts.Username)
	if !hmac.Equal([]byte(want), []byte(opts.Password)) {
		return false
	}
	pub, sub := a.service.Permissions(opts.Username)
	c.RegisterUser(&natsserver.User{
		Username: opts.Username,
		Permissions: &natsserver.Permissions{
			Publish:   &natsserver.SubjectPermission{Allow: pub},
			Subscribe: &natsserver.SubjectPermission{Allow: sub},
		},
	})
	return true
}
