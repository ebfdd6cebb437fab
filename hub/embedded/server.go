package embedded

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"switchboard/hub/grant"
	"switchboard/internal/watch"
	"switchboard/mailbox"
)

// Service is what a hub serves: what each host may do, and what the hub
// makes before any host connects, and answers while it runs, with the
// hub's own connection (nc may do anything). The hub's own account, which
// holds the team's streams, is the server's global one; each host is in an
// account of its own, which reaches the hub's through its grant's imports.
type Service interface {
	// Grant is what host may do.
	Grant(host string) grant.Grant
	// Exports are what the hub's account offers the hosts' accounts.
	Exports() grant.Exports
	// Prepare is done before Start returns: what must be there when the
	// first host joins.
	Prepare(ctx context.Context, nc *nats.Conn) error
	// Serve subscribes what the hub answers while it runs.
	Serve(nc *nats.Conn) error
}

// Config describes an embedded hub.
type Config struct {
	// Listen is the address masters connect to; "127.0.0.1:0" when empty.
	Listen string
	// Dir holds JetStream's files and the hub's secret; required.
	Dir string
	// TLSCert and TLSKey are PEM files; when both are set the hub speaks TLS
	// only and its URLs start with tls://.
	TLSCert, TLSKey string
	// Service is what the hub serves; required.
	Service Service
	// Cluster, when set, is the address this node listens on for the other
	// nodes of a cluster of hubs, and Peers are their cluster URLs
	// (nats://h2:6222). Every node keeps the same secret: copy hub.secret
	// from the first node's folder to the others' before they start.
	Cluster string
	Peers   []string
	// Name tells this node from the others of its cluster; from its
	// cluster address when empty.
	Name string
	// With TLSCert, the nodes of a cluster speak TLS to each other too,
	// each checking the other's certificate, both ways, against TLSCA
	// (TLSCert itself when empty: one certificate on every node); the
	// certificate must then serve for client authentication too. ClearRoutes lets them
	// talk in clear text instead (a private network of their own); the
	// hub then warns.
	TLSCA       string
	ClearRoutes bool
}

// Server is an embedded NATS server with JetStream.
type Server struct {
	ns       *natsserver.Server
	addr     string
	others   []string // the client addresses of the other nodes of its cluster
	secret   Secret
	scheme   string
	warnings []string

	admin *nats.Conn // the hub's own connection, inside the process

	stopPrepare context.CancelFunc // of the preparing a cluster's node does until it is done
	prepared    chan struct{}
}

// readyTimeout bounds how long Start waits for the server to listen.
const readyTimeout = 10 * time.Second

// maxPayload bounds a message on the hub: four times the largest message
// file, with room for the fields its master adds.
const maxPayload = 4 << 20

// Start runs an embedded hub with file storage under cfg.Dir. It returns
// once the hub accepts connections and its Service is prepared; ctx bounds
// that wait.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%w: the hub needs a folder for its storage and secret", ErrBadConfig)
	}
	if cfg.Service == nil {
		return nil, fmt.Errorf("%w: the hub serves nothing", ErrBadConfig)
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
	secret, err := LoadSecret(filepath.Join(cfg.Dir, SecretFile))
	if err != nil {
		return nil, err
	}
	adminPassword, err := randomPassword()
	if err != nil {
		return nil, err
	}
	s := &Server{secret: secret, scheme: "nats"}
	auth := &hostAuth{secret: secret, service: cfg.Service, admin: adminPassword, accounts: make(map[string]*natsserver.Account)}
	if port == 0 {
		port = natsserver.RANDOM_PORT // the server reads 0 as its default port
	}
	opts := &natsserver.Options{
		ServerName:                 "switchboard-hub",
		Host:                       host,
		Port:                       port,
		JetStream:                  true,
		StoreDir:                   filepath.Join(cfg.Dir, "jetstream"),
		NoLog:                      true,
		NoSigs:                     true,
		CustomClientAuthentication: auth,
		// A message the hub took is on its disk, as one a master delivered
		// is: a power cut loses neither.
		SyncAlways: true,
		MaxPayload: maxPayload,
	}
	if cfg.ClearRoutes && (cfg.Cluster == "" || cfg.TLSCert == "") {
		return nil, fmt.Errorf("%w: clear routes are for the nodes of a cluster whose hosts speak TLS", ErrBadConfig)
	}
	switch {
	case cfg.TLSCert != "" && cfg.TLSKey != "":
		tc, err := natsserver.GenTLSConfig(&natsserver.TLSConfigOpts{CertFile: cfg.TLSCert, KeyFile: cfg.TLSKey})
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
	if cfg.Cluster != "" {
		if err := s.cluster(opts, cfg); err != nil {
			return nil, err
		}
	}
	ns, err := natsserver.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("configure hub: %w", err)
	}
	s.ns = ns
	auth.server = ns
	if err := export(ns.GlobalAccount(), cfg.Service.Exports()); err != nil {
		return nil, err
	}
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
	if err := s.serve(ctx, cfg, adminPassword); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// routeUser is the name the nodes of a cluster of hubs know each other by;
// its password derives from the secret they share.
const routeUser = "_route"

// cluster makes opts those of a node of a cluster of hubs.
func (s *Server) cluster(opts *natsserver.Options, cfg Config) error {
	host, portText, err := net.SplitHostPort(cfg.Cluster)
	if err != nil {
		return fmt.Errorf("%w: cluster address %q: %w", ErrBadConfig, cfg.Cluster, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return fmt.Errorf("%w: cluster port %q is not a number", ErrBadConfig, portText)
	}
	name := cfg.Name
	if name == "" {
		// The cluster's address, which no two nodes share (the hosts'
		// port may be any free one, chosen once the node listens).
		name = "hub-" + net.JoinHostPort(host, strconv.Itoa(port))
	}
	secret := s.secret.RoutePassword()
	opts.ServerName = name
	opts.Cluster = natsserver.ClusterOpts{Name: "switchboard", Host: host, Port: port, Username: routeUser, Password: secret}
	switch {
	case cfg.TLSCert != "" && !cfg.ClearRoutes:
		// The route password and every host's mail cross between nodes:
		// as private as between a host and its node.
		// As nats-server does for every cluster: each node checks the
		// other's certificate both ways, against the authority given.
		tc, err := natsserver.GenTLSConfig(&natsserver.TLSConfigOpts{CertFile: cfg.TLSCert, KeyFile: cfg.TLSKey, CaFile: cmp.Or(cfg.TLSCA, cfg.TLSCert)})
		if err != nil {
			return fmt.Errorf("%w: TLS between the nodes of the cluster: %w", ErrBadConfig, err)
		}
		tc.ClientAuth, tc.RootCAs = tls.RequireAndVerifyClientCert, tc.ClientCAs
		opts.Cluster.TLSConfig = tc
		opts.Cluster.TLSTimeout = 2
	case cfg.TLSCert != "":
		s.warnings = append(s.warnings, "the nodes of this cluster talk in clear text (clear routes): the route password and every host's mail cross between them readable")
	}
	for _, peer := range cfg.Peers {
		u, err := url.Parse(peer)
		if err != nil || u.Host == "" {
			return fmt.Errorf("%w: peer %q is not a URL like nats://h2:6222", ErrBadConfig, peer)
		}
		u.User = url.UserPassword(routeUser, secret)
		opts.Routes = append(opts.Routes, u)
		// Hosts reach every node on the port they reach this one on.
		s.others = append(s.others, net.JoinHostPort(u.Hostname(), strconv.Itoa(opts.Port)))
	}
	return nil
}

// serve connects the hub to itself and prepares the service. A node of a
// cluster prepares it in the background, again and again until it is done:
// the team's stream and buckets, kept by several nodes, can be made only
// once enough of them are up.
func (s *Server) serve(ctx context.Context, cfg Config, password string) error {
	nc, err := nats.Connect("", nats.InProcessServer(s.ns), nats.UserInfo(adminUser, password),
		nats.Name("switchboard hub"), nats.MaxReconnects(-1))
	if err != nil {
		return fmt.Errorf("connect the hub to itself: %w", err)
	}
	s.admin = nc
	if err := cfg.Service.Serve(nc); err != nil {
		return err
	}
	if cfg.Cluster == "" {
		return cfg.Service.Prepare(ctx, nc)
	}
	pctx, cancel := context.WithCancel(context.Background())
	s.stopPrepare, s.prepared = cancel, make(chan struct{})
	go func() {
		defer close(s.prepared)
		s.prepareInCluster(pctx, cfg.Service, nc)
	}()
	return nil
}

// How a node of a cluster prepares the service: it looks for the
// cluster's leader every leaderLook; a node that is not the leader then
// leaves the leader, which answers the requests, leaderFirst to go first.
// Each attempt has firstPrepare, twice as long after each that went
// unanswered (up to readyTimeout); a failed one is tried again after
// prepareRetry.
const (
	leaderLook   = 20 * time.Millisecond
	leaderFirst  = time.Second
	firstPrepare = 2 * time.Second
	prepareRetry = 250 * time.Millisecond
)

// prepareInCluster prepares the service once this node has the cluster's
// JetStream leader, again and again until it is done or ctx ends.
// JetStream leaves unanswered every request made before its cluster has a
// leader (it says so only after ten seconds without one), so a request
// made sooner waits out its whole deadline; the leader is elected within a
// second of a quorum of nodes meeting. Requests of two nodes that cross,
// making the same stream, may go unanswered too: the other nodes give the
// leader a moment first, and every node tries again soon rather than late,
// since hosts may join as soon as one has prepared.
func (s *Server) prepareInCluster(ctx context.Context, svc Service, nc *nats.Conn) {
	wait := firstPrepare
	first := true // no attempt made yet: one the leader may be making too
	for ctx.Err() == nil {
		if !watch.Until(ctx, leaderLook, readyTimeout, s.ns.JetStreamIsCurrent) {
			continue
		}
		if first && !s.ns.JetStreamIsLeader() && watch.Sleep(ctx, leaderFirst) != nil {
			return
		}
		first = false
		tctx, cancel := context.WithTimeout(ctx, wait)
		err := svc.Prepare(tctx, nc)
		cancel()
		if err == nil {
			return
		}
		if errors.Is(err, context.DeadlineExceeded) {
			wait = min(2*wait, readyTimeout)
		}
		_ = watch.Sleep(ctx, prepareRetry)
	}
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

// URL is what host joins with: its name and password in the URL of this
// hub, and, for a node of a cluster, of every other node, comma-separated,
// so that a host moves to another node when one dies. Nodes of one
// machine, on ports of their own, are not guessed: the client hears of
// them from the node it reached. A host name has the charset of agent
// names; an invalid one yields "".
func (s *Server) URL(host string) string {
	if !mailbox.WellFormedName(host) {
		return ""
	}
	var urls []string
	seen := make(map[string]bool)
	for _, addr := range append([]string{s.Addr()}, s.others...) {
		if seen[addr] {
			continue
		}
		seen[addr] = true
		u := url.URL{Scheme: s.scheme, User: url.UserPassword(host, s.secret.HostPassword(host)), Host: addr}
		urls = append(urls, u.String())
	}
	return strings.Join(urls, ",")
}

// Warnings are sentences for the person running the hub: a non-loopback
// address without TLS is one.
func (s *Server) Warnings() []string { return s.warnings }

// Close shuts the hub down and waits until its files are closed.
func (s *Server) Close() error {
	if s.stopPrepare != nil {
		s.stopPrepare()
		<-s.prepared
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
	// ErrBadConfig is a configuration the hub cannot run with.
	ErrBadConfig = errors.New("hub: bad configuration")
	// ErrNotReady is a hub that did not accept connections in time.
	ErrNotReady = errors.New("hub: not ready")
)
