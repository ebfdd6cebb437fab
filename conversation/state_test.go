package conversation

import (
	"testing"
	"time"

	"switchboard/mailbox"
)

func TestStateFile(t *testing.T) {
	b := Of(mailbox.NewStore(t.TempDir()))
	if _, ok, err := b.State("dev"); ok || err != nil {
		t.Errorf("State with no file = %v, %v", ok, err)
	}
	if b.HasExited("dev") {
		t.Errorf("an agent with no state file has exited")
	}
	status := 3
	want := State{State: Exited, Since: time.Now().UTC().Truncate(time.Second), Source: SourcePane, ExitStatus: &status}
	if err := b.SetState("dev", want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := b.State("dev")
	if !ok || err != nil || got.State != want.State || *got.ExitStatus != 3 {
		t.Errorf("State = %+v, %v, %v", got, ok, err)
	}
	if !b.HasExited("dev") {
		t.Errorf("an agent whose state says exited has not exited")
	}
	if err := b.SetState("dev", State{State: "sleeping"}); err == nil {
		t.Errorf("SetState accepted an unknown state")
	}
}
