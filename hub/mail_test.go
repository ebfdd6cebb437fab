package hub

import (
	"testing"
	"time"
)

func TestOneCopyCrossesHosts(t *testing.T) {
	s := startHub(t, t.TempDir())
	a := join(t, s, "a", "alice")
	b := join(t, s, "b", "bob")
	got := receiveInto(t, b, nil)
	if err := a.Publish(ctxFor(t, 5*time.Second), Copy{ID: "m1", To: "bob", From: "alice", Body: []byte("hi")}); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-got:
		want := Delivered{ID: "m1", To: "bob", From: "alice", Host: "a", Body: []byte("hi")}
		if d.ID != want.ID || d.To != want.To || d.From != want.From || d.Host != want.Host || string(d.Body) != "hi" {
			t.Fatalf("delivered %+v, want %+v", d, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the copy did not arrive within 10s")
	}
}
