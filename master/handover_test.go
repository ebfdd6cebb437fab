package master

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// The options switchboard master made cross to switchboard-link whole, and
// leave the environment the agents' panes inherit.
func TestTheOptionsHandedOverAreTakenOverWhole(t *testing.T) {
	sent := Options{Poll: time.Second, Settle: 3 * time.Second, Reconcile: time.Minute, NoFsync: true}
	handed, err := sent.HandOver()
	if err != nil {
		t.Fatal(err)
	}
	name, value, _ := strings.Cut(handed, "=")
	t.Setenv(name, value)
	got, err := TakeOver()
	if err != nil || got.Poll != sent.Poll || got.Settle != sent.Settle || got.Reconcile != sent.Reconcile || !got.NoFsync {
		t.Errorf("took over %+v, %v; want %+v", got, err, sent)
	}
	if _, left := os.LookupEnv(OptionsEnv); left {
		t.Errorf("%s is still in the environment", OptionsEnv)
	}
	if _, err := TakeOver(); !errors.Is(err, ErrNoOptions) {
		t.Errorf("taking over again: %v; want ErrNoOptions", err)
	}
	t.Setenv(OptionsEnv, "{not json")
	if _, err := TakeOver(); err == nil || errors.Is(err, ErrNoOptions) {
		t.Errorf("options that do not read: %v; want an error saying so", err)
	}
}
