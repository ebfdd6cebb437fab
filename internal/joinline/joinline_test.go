package joinline

import "testing"

func TestALineReadsBackAsItWasWritten(t *testing.T) {
	for _, l := range []Line{
		{Host: "gpu", URL: "nats://hub.example.com:4222", Password: "a'b c$d"},
		{Host: "laptop", URL: "tls://n1:4222,tls://n2:4222", Password: "x", More: []string{"--team", "blue", "--hub-ca", "/etc/hub ca.pem"}},
		{Host: "gpu", URL: "nats://hub:4222", More: []string{"--hub-creds", "/etc/nats/gpu.nk"}},
	} {
		text := l.String()
		got, ok := Parse(text)
		if !ok || got.Host != l.Host || got.URL != l.URL || got.Password != l.Password || len(got.More) != len(l.More) {
			t.Fatalf("%q read back as %+v (ok %v), want %+v", text, got, ok, l)
		}
		for i := range l.More {
			if got.More[i] != l.More[i] {
				t.Fatalf("%q read back with %q, want %q", text, got.More, l.More)
			}
		}
	}
	if _, ok := Parse("hub running on 127.0.0.1:4222"); ok {
		t.Fatal("a line that is no join line was read as one")
	}
}

func TestTheURLWithThePasswordNamesTheHostInEveryNode(t *testing.T) {
	l := Line{Host: "gpu", URL: "nats://n1:4222,nats://n2:4222", Password: "p/w"}
	if got, want := l.URLWithPassword(), "nats://gpu:p%2Fw@n1:4222,nats://gpu:p%2Fw@n2:4222"; got != want {
		t.Fatalf("URL %s, want %s", got, want)
	}
}
