package hub

import (
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nkeys"
)

// TestCredentialsAreASeedOrACredentialsFile: a user's nkey seed and a
// credentials file (as nsc writes one) are taken; anything else, an
// account's seed among them, is refused as bad configuration, which stops
// a master at its start.
func TestCredentialsAreASeedOrACredentialsFile(t *testing.T) {
	user, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := user.Seed()
	account, err := nkeys.CreateAccount()
	if err != nil {
		t.Fatal(err)
	}
	accountSeed, _ := account.Seed()
	creds := fmt.Sprintf("-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.c2ln\n------END NATS USER JWT------\n\n"+
		"************************* IMPORTANT *************************\nNKEY Seed printed below can be used to sign and prove identity.\n\n"+
		"-----BEGIN USER NKEY SEED-----\n%s\n------END USER NKEY SEED------\n", seed)
	for name, data := range map[string]string{"a seed": string(seed) + "\n", "a credentials file": creds} {
		if opt, err := credentialsOption([]byte(data)); err != nil || opt == nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, data := range map[string]string{"an account's seed": string(accountSeed), "a password": "hunter2", "a configuration": "authorization { users: [] }"} {
		if _, err := credentialsOption([]byte(data)); !errors.Is(err, ErrBadConfig) {
			t.Errorf("%s: %v; want it refused", name, err)
		}
	}
	if opt, err := credentialsOption(nil); opt != nil || err != nil {
		t.Errorf("no credentials: %v, %v", opt, err)
	}
}
