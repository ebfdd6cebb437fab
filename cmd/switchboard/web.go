package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"switchboard/view/web"
)

type webOptions struct {
	listen      string
	allowRemote bool
}

// webURLFile is where the running web view leaves its address, for up
// --web to print; only its owner may read it, as it holds the token.
func webURLFile(ws *caller) string { return filepath.Join(ws.store.Dir, ".web-url") }

func newWebCmd(io *streams, g *globals) *cobra.Command {
	opts := &webOptions{}
	cmd := &cobra.Command{
		Use:   "web [--listen 127.0.0.1:PORT] [--allow-remote]",
		Short: "The console in a browser: serve the team's view on this machine, and print its address",
		Long: `Serve what switchboard top shows to a browser: the agents as a tree, those
that need you first; the questions waiting, with buttons to answer them; the
log, live; send, interrupt and cancel. Each action is the desk's, as the one
who runs it: the rules decide it as for the commands.

The first line printed is the address to open. It carries a token made anew at
each start, after a # that no server sees: the page keeps it for this address
alone (never in a cookie, which would go to every server on the machine) and
sends it with each call of the API, which answers 401 without it. The server
answers to loopback names alone, so that a page of another site cannot reach
it through a name that resolves here; it refuses actions sent from another
origin; its page runs no script but its own and loads nothing from the
network. docs/console-and-web.md lists the API.

--listen binds another address; one that is not loopback is refused unless
--allow-remote, which warns: the page then travels without TLS.`,
		Example: `  switchboard web
  switchboard web --listen 127.0.0.1:8377
  switchboard up --web                  # the team, with its web view beside it`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runWeb(cmd.Context(), io, g, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.listen, "listen", "127.0.0.1:0", "the address to serve on (port 0: any free one)")
	f.BoolVar(&opts.allowRemote, "allow-remote", false, "serve on an address that is not loopback, without TLS")
	return cmd
}

func runWeb(ctx context.Context, io *streams, g *globals, opts *webOptions) error {
	host, _, err := net.SplitHostPort(opts.listen)
	if err != nil {
		return usageError("--listen is HOST:PORT, like 127.0.0.1:8377: %v", err)
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || ip != nil && ip.IsLoopback()
	if !loopback && !opts.allowRemote {
		return usageError("--listen %s is not a loopback address: anyone who can reach it could try the token; serve on 127.0.0.1, or add --allow-remote if you mean it", opts.listen)
	}
	ws, rulesErr, err := openReading(g)
	if err != nil {
		return err
	}
	warnBrokenRules(io, ws, rulesErr)
	secret := make([]byte, 24)
	if _, err := rand.Read(secret); err != nil {
		return fmt.Errorf("make the token: %w", err)
	}
	token := hex.EncodeToString(secret)
	listener, err := net.Listen("tcp", opts.listen)
	if err != nil {
		return fmt.Errorf("serve on %s: %w", opts.listen, err)
	}
	team := newWatchedTeam(g, ws)
	defer team.folders.Close()
	cfg := web.Config{Read: team.read, Graph: team.graph, Act: team.act, Changes: team.folders.C, Token: token}
	// The server answers to the name it was given and to the address it
	// listens on, which is the one printed: --listen :8377 prints [::].
	served, _, _ := net.SplitHostPort(listener.Addr().String())
	for _, h := range []string{host, served} {
		if h != "" {
			cfg.Hosts = append(cfg.Hosts, h)
		}
	}
	server := web.New(cfg)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go server.Run(ctx)
	// The token follows a #: a browser sends no fragment to any server,
	// and the page takes it out of the address bar once read.
	url := fmt.Sprintf("http://%s/#token=%s", listener.Addr(), token)
	fmt.Fprintln(io.out, url)
	if err := os.WriteFile(webURLFile(ws), []byte(url+"\n"), 0o600); err == nil {
		defer os.Remove(webURLFile(ws))
	}
	if !loopback {
		fmt.Fprintf(io.errOut, "warning: serving on %s without TLS: the token and every page travel in clear to anyone on the way\n", listener.Addr())
	}
	fmt.Fprintln(io.errOut, "open the address above in a browser; Ctrl-C stops the web view")
	srv := &http.Server{Handler: server.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
