package hub

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
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
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
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
