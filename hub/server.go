package hub

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ServerConfig describes an embedded hub.
type ServerConfig struct {
	// Listen is the address masters connect to; "127.0.0.1:0" when empty.
	Listen string
	// Dir holds JetStream's files and the hub's secret; required.
	Dir string
	// Team is the team this hub serves; "main" when empty. Every host's
	// permissions are scoped to it.
	Team string
	// TLSCert and TLSKey are PEM files; when both are set the hub speaks TLS
	// only and its URLs start with tls://.
	TLSCert, TLSKey string
	// Log, when set, hears what the hub could not do for its hosts (keep
	// their consumers). It must be safe for concurrent use.
	Log func(format string, args ...any)

	// beat is the hosts' heartbeat and ackWait the redelivery delay of
	// their consumers; tests shorten them.
	beat, ackWait time.Duration
}

// Server is an embedded NATS server with JetStream, serving one team.
type Server struct {
	ns       *server.Server
	addr     string
	secret   []byte
	names    names
	scheme   string
	warnings []string

	// admin is the hub's own connection, inside the process: it makes the
	// team's stream and buckets and keeps the hosts' consumers.
	admin      *nats.Conn
	stopKeeper context.CancelFunc
	keeperDone chan struct{}
}

// readyTimeout bounds how long Start waits for the server to listen.
const readyTimeout = 10 * time.Second

// maxPayload bounds a copy on the hub: four times the largest message file.
const maxPayload = 4 << 20

// Start runs an embedded hub with file storage under cfg.Dir. It returns
// once the hub accepts connections; ctx bounds that wait.
func Start(ctx context.Context, cfg ServerConfig) (*Server, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%w: the hub needs a folder for its storage and secret", ErrBadConfig)
	}
	if cfg.Team == "" {
		cfg.Team = "main"
	}
	if err := checkName("team", cfg.Team); err != nil {
		return nil, err
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	host, portText, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("%w: listen address %q: %w", ErrBadConfig, cfg.Listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("%w: listen port %q is not a number", ErrBadConfig, portText)
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("make hub folder: %w", err)
	}
	secret, err := loadSecret(cfg.Dir)
	if err != nil {
		return nil, err
	}
	adminPassword, err := randomPassword()
	if err != nil {
		return nil, err
	}
	if cfg.beat <= 0 {
		cfg.beat = Heartbeat
	}
	if cfg.ackWait <= 0 {
		cfg.ackWait = ackWait
	}
	if cfg.Log == nil {
		cfg.Log = func(string, ...any) {}
	}
	s := &Server{secret: secret, names: names{cfg.Team}, scheme: "nats"}
	if port == 0 {
		port = server.RANDOM_PORT // the server reads 0 as its default port
	}
	opts := &server.Options{
		ServerName:                 "switchboard-hub",
		Host:                       host,
		Port:                       port,
		JetStream:                  true,
		StoreDir:                   filepath.Join(cfg.Dir, "jetstream"),
		NoLog:                      true,
		NoSigs:                     true,
		CustomClientAuthentication: &hostAuth{secret: secret, names: s.names, admin: adminPassword},
		// A copy the hub took is on its disk, as a message a master
		// delivered is: a power cut loses neither.
		SyncAlways: true,
		// Room for a message of the largest size a mailbox takes, with
		// the fields its master adds.
		MaxPayload: maxPayload,
	}
	switch {
	case cfg.TLSCert != "" && cfg.TLSKey != "":
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: cfg.TLSCert, KeyFile: cfg.TLSKey})
		if err != nil {
			return nil, fmt.Errorf("%w: load TLS certificate: %w", ErrBadConfig, err)
		}
		opts.TLSConfig = tc
		opts.TLS = true
		s.scheme = "tls"
	case cfg.TLSCert != "" || cfg.TLSKey != "":
		return nil, fmt.Errorf("%w: TLS needs both a certificate and its key", ErrBadConfig)
	case !loopback(host):
		s.warnings = append(s.warnings, fmt.Sprintf(
			"the hub listens on %s without TLS: mail, presence, locks and every host's password travel in clear text; "+
				"listen on 127.0.0.1 behind a tunnel, or give the hub a TLS certificate", cfg.Listen))
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("configure hub: %w", err)
	}
	s.ns = ns
	ns.Start()
	wait := readyTimeout
	if d, ok := ctx.Deadline(); ok {
		wait = time.Until(d)
	}
	if !ns.ReadyForConnections(wait) {
		ns.Shutdown()
		ns.WaitForShutdown()
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("start hub: %w", err)
		}
		return nil, fmt.Errorf("%w on %s within %s: is the address free, and the folder writable?", ErrNotReady, cfg.Listen, wait)
	}
	s.addr = reachableAddr(host, ns.Addr())
	if err := s.startAdmin(ctx, cfg, adminPassword); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// startAdmin connects the hub to itself, makes the team's stream and
// buckets, and starts keeping the hosts' consumers.
func (s *Server) startAdmin(ctx context.Context, cfg ServerConfig, password string) error {
	nc, err := nats.Connect("", nats.InProcessServer(s.ns), nats.UserInfo(adminUser, password),
		nats.Name("switchboard hub"), nats.MaxReconnects(-1))
	if err != nil {
		return fmt.Errorf("connect the hub to itself: %w", err)
	}
	s.admin = nc
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("jetstream: %w", err)
	}
	if err := s.makeTeam(ctx, js, cfg.beat); err != nil {
		return err
	}
	claims, err := js.KeyValue(ctx, s.names.claims())
	if err != nil {
		return fmt.Errorf("open the claims: %w", err)
	}
	k := &keeper{js: js, book: claimBook{js: js, kv: claims, n: s.names}, n: s.names, ackWait: cfg.ackWait, logf: cfg.Log}
	kctx, cancel := context.WithCancel(context.Background())
	s.stopKeeper, s.keeperDone = cancel, make(chan struct{})
	go func() { defer close(s.keeperDone); k.run(kctx) }()
	return nil
}

// makeTeam makes the team's mail stream and buckets, or checks that those
// of an earlier start are still there; a stream an older hub made without
// saying it keeps the consumers is told so.
func (s *Server) makeTeam(ctx context.Context, js jetstream.JetStream, beat time.Duration) error {
	cfg := s.names.mailStreamConfig()
	cfg.Metadata = map[string]string{managedKey: managedByHub}
	if _, err := js.CreateOrUpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("make the mail stream: %w", err)
	}
	for _, kv := range s.names.bucketConfigs(beat) {
		if _, err := js.CreateOrUpdateKeyValue(ctx, kv); err != nil {
			return fmt.Errorf("make bucket %s: %w", kv.Bucket, err)
		}
	}
	return nil
}

// reachableAddr is the address to put in URLs: the listen host with the
// port the server got, or this machine's name for a wildcard address.
func reachableAddr(host string, bound net.Addr) string {
	port := "0"
	if a, ok := bound.(*net.TCPAddr); ok {
		port = strconv.Itoa(a.Port)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if name, err := os.Hostname(); err == nil {
			host = name
		}
	}
	return net.JoinHostPort(host, port)
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Addr is the address hosts connect to: the listen address with the port
// the hub got (this machine's name when it listens on every interface).
func (s *Server) Addr() string { return s.addr }

// URL is what the master of host joins with: its name and password in the
// URL of this hub. A host name has the charset of agent names; an invalid
// one yields "".
func (s *Server) URL(host string) string {
	if !validName(host) {
		return ""
	}
	u := url.URL{Scheme: s.scheme, User: url.UserPassword(host, password(s.secret, host)), Host: s.Addr()}
	return u.String()
}

// Warnings are sentences for the person running the hub: a non-loopback
// address without TLS is one.
func (s *Server) Warnings() []string { return s.warnings }

// Close shuts the hub down and waits until its files are closed.
func (s *Server) Close() error {
	if s.stopKeeper != nil {
		s.stopKeeper()
		<-s.keeperDone
	}
	if s.admin != nil {
		s.admin.Close()
	}
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
	return nil
}

// Sentinel errors of the package.
var (
	// ErrBadConfig is a configuration the hub or a host cannot run with.
	ErrBadConfig = errors.New("hub: bad configuration")
	// ErrBadName is a host, team or agent name outside the allowed charset.
	ErrBadName = errors.New("hub: bad name")
	// ErrNotReady is a hub that did not accept connections in time.
	ErrNotReady = errors.New("hub: not ready")
)
