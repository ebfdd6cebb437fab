package hub

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"switchboard/hub/embedded"
)

// selfSigned writes a certificate for 127.0.0.1 and its key into dir.
func selfSigned(t *testing.T, dir string) (cert, key string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "hub"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	cert, key = filepath.Join(dir, "hub.crt"), filepath.Join(dir, "hub.key")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func TestMailCrossesATLSHub(t *testing.T) {
	certDir := t.TempDir()
	cert, key := selfSigned(t, certDir)
	s, err := embedded.Start(ctxFor(t, 10*time.Second), embedded.Config{Dir: t.TempDir(), TLSCert: cert, TLSKey: key, Service: TeamService{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if u := s.URL("a"); !strings.HasPrefix(u, "tls://") {
		t.Fatalf("URL %s of a TLS hub does not ask for TLS", u)
	}
	cfg := func(agent string) JoinConfig {
		return JoinConfig{Agents: []string{agent}, RulesText: []byte("r\n"), RootCAs: cert}
	}
	if _, err := joinWith(s, "x", JoinConfig{Agents: []string{"xavier"}}); err == nil {
		t.Fatal("joined a TLS hub without trusting its certificate")
	}
	a, err := joinWith(s, "a", cfg("alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := joinWith(s, "b", cfg("bob"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got := receiveInto(t, b, nil)
	if err := a.Publish(ctxFor(t, 5*time.Second), Copy{ID: "m1", To: "bob", From: "alice"}); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-got:
		if d.ID != "m1" {
			t.Fatalf("delivered %+v", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the copy did not cross the TLS hub within 10s")
	}
}

// TestTheNodesOfATLSHubSpeakTLSToEachOther: a cluster's routes carry every
// host's mail and the route password; with a certificate, the node asks
// for TLS on its cluster port as on its hosts' port, and a cluster of such
// nodes carries mail; told to, it talks in clear text between nodes, and
// says so.
func TestTheNodesOfATLSHubSpeakTLSToEachOther(t *testing.T) {
	cert, key := selfSigned(t, t.TempDir())
	secret := bytes.Repeat([]byte{9}, 32)
	ports := []int{freePort(t), freePort(t)}
	var nodes []*embedded.Server
	for i := range ports {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, embedded.SecretFile), secret, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := embedded.Start(ctxFor(t, 20*time.Second), embedded.Config{Dir: dir, TLSCert: cert, TLSKey: key, Service: TeamService{Replicas: 1},
			Cluster: "127.0.0.1:" + strconv.Itoa(ports[i]), Peers: []string{"nats://127.0.0.1:" + strconv.Itoa(ports[1-i])}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		nodes = append(nodes, s)
	}
	if clear, err, info := routeInfo(t, ports[0], cert, key); clear || err == nil || !strings.Contains(info, `"tls_required":true`) {
		t.Fatalf("the cluster port says something in clear text: %v; takes TLS without a certificate: %v; with one: %q; want TLS with a certificate alone", clear, err == nil, info)
	}
	// Mail crosses from a host of one node to a host of the other.
	join := func(i int, host, agent string) *Conn {
		var c *Conn
		waitFor(t, 60*time.Second, host+" joined", func() bool {
			var err error
			c, err = Join(ctxFor(t, 10*time.Second), strings.Split(nodes[i].URL(host), ",")[0], JoinConfig{Agents: []string{agent}, RulesText: []byte("r\n"), RootCAs: cert})
			return err == nil
		})
		t.Cleanup(func() { c.Close() })
		return c
	}
	a, b := join(0, "a", "alice"), join(1, "b", "bob")
	got := make(chan Delivered, 1)
	go func() {
		_ = b.Receive(ctxFor(t, 60*time.Second), func(_ context.Context, d Delivered) error {
			got <- d
			return nil
		})
	}()
	waitFor(t, 30*time.Second, "a copy across the nodes", func() bool {
		if err := a.Publish(ctxFor(t, 5*time.Second), Copy{ID: "m1", From: "alice", To: "bob"}); err != nil {
			return false
		}
		select {
		case <-got:
			return true
		case <-time.After(time.Second):
			return false
		}
	})

	clear, err := embedded.Start(ctxFor(t, 20*time.Second), embedded.Config{Dir: t.TempDir(), TLSCert: cert, TLSKey: key, Service: TeamService{},
		Cluster: "127.0.0.1:" + strconv.Itoa(freePort(t)), Peers: []string{"nats://127.0.0.1:1"}, ClearRoutes: true})
	if err != nil {
		t.Fatal(err)
	}
	defer clear.Close()
	if w := strings.Join(clear.Warnings(), " "); !strings.Contains(w, "clear text") {
		t.Fatalf("a node told to talk in clear text between nodes warns %q", w)
	}
}

// routeInfo is what a node's cluster port says to a connection in clear
// text, over TLS with no certificate (err), and over TLS with cert.
func routeInfo(t *testing.T, port int, cert, key string) (clear bool, err error, info string) {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	plain, derr := net.DialTimeout("tcp", addr, 5*time.Second)
	if derr != nil {
		t.Fatal(derr)
	}
	_ = plain.SetReadDeadline(time.Now().Add(time.Second))
	n, _ := plain.Read(make([]byte, 64))
	plain.Close()
	read := func(cfg *tls.Config) (string, error) {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, cfg)
		if err != nil {
			return "", err
		}
		defer conn.Close()
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		return bufio.NewReader(conn).ReadString('\n')
	}
	_, err = read(&tls.Config{InsecureSkipVerify: true})
	pair, lerr := tls.LoadX509KeyPair(cert, key)
	if lerr != nil {
		t.Fatal(lerr)
	}
	info, _ = read(&tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{pair}})
	return n > 0, err, info
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
