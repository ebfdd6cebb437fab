package hub

import (
	"bytes"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// A host joins a NATS server of its operator's with the credentials that
// server gave it, besides a name and password in the URL: a credentials
// file (a user's JWT and nkey seed, as nsc writes it, for a server of
// accounts run by an operator), or a user's nkey seed alone (a user of the
// server's configuration by its public key, as hub config writes with
// nkeys). JoinConfig.Credentials holds either file's contents.

// ErrBadCredentials is credentials that are neither a credentials file
// nor a user's nkey seed.
var ErrBadCredentials = fmt.Errorf("%w: the credentials are neither a NATS credentials file (a user JWT and its seed) nor a user's nkey seed (a line beginning SU)", ErrBadConfig)

// credentialsOption is how the connection presents data: nothing for
// none.
func credentialsOption(data []byte) (nats.Option, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	kp, err := nkeys.ParseDecoratedUserNKey(data)
	if err != nil {
		return nil, fmt.Errorf("%w (%w)", ErrBadCredentials, err)
	}
	seed, err := kp.Seed()
	if err != nil {
		return nil, fmt.Errorf("%w (%w)", ErrBadCredentials, err)
	}
	if bytes.Contains(data, []byte("BEGIN NATS USER JWT")) {
		jwt, err := nkeys.ParseDecoratedJWT(data)
		if err != nil {
			return nil, fmt.Errorf("%w (%w)", ErrBadCredentials, err)
		}
		return nats.UserJWTAndSeed(jwt, string(seed)), nil
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return nil, fmt.Errorf("%w (%w)", ErrBadCredentials, err)
	}
	return nats.Nkey(pub, kp.Sign), nil
}
