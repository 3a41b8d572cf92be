package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
	"github.com/parleynet/parley/node/mcp"
	"github.com/parleynet/parley/node/web"
)

func newNodeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "node",
		Short: "Run a Parley node",
	}
	cmd.AddCommand(newNodeRunCmd())
	return cmd
}

func newNodeRunCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the node daemon: transport, ledger, chain client, approvals, Prometheus /metrics",
		Long: "Runs the node of a data directory made by `parley init` until Ctrl-C or SIGTERM: the libp2p\n" +
			"transport (bootstrap peers only; loopback unless configured otherwise), the ledger, the chain\n" +
			"client and watcher, and the approval gate every consequential act passes through. Prometheus\n" +
			"metrics are served on loopback at /metrics. Logs go to stderr as text or JSON.\n\n" +
			"Configuration: flags > PARLEY_* environment variables > the YAML file (--config, $PARLEY_CONFIG,\n" +
			"else <data-dir>/" + ConfigFileName + ") > defaults; a bad value names its key. Every key has a flag:\n" +
			"chain.rpc is --chain-rpc and $PARLEY_CHAIN_RPC. With approval.mode passkey (the default) each gated act\n" +
			"waits until the node's principal approves it with a passkey: on the pages served at web.listen\n" +
			"(open http://localhost:<port>; register the first passkey with the token `parley init` printed),\n" +
			"or with a registered software key (`parley approvals approve --software-key`).\n\n" +
			"The ledger and the approval store keep a record of what they hold beside their directories\n" +
			"(<data-dir>/ledger.record, approvals.record); a store emptier than or different from its record, or\n" +
			"a Badger directory without its MANIFEST, refuses the start and says how to restore it. Only then,\n" +
			"--reset-ledger or --reset-approvals archives that store under a new name (never deleting it), starts\n" +
			"it empty and writes an audit entry into the ledger; asked for a healthy store, they refuse to start.",
		Example: "  parley node run --data-dir ~/.parley-worker\n" +
			"  parley node run --data-dir ~/.parley-worker --reset-approvals   (after the start refused the approval store)\n" +
			"  parley node run --config configs/worker.yaml --chain-rpc http://127.0.0.1:8545 --log-format json\n" +
			"  PARLEY_P2P_BOOTSTRAP=/ip4/127.0.0.1/tcp/4001/p2p/12D3KooW... parley node run",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := loadSettings(cmd.Flags(), os.Getenv)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			return runNode(cmd, s)
		},
	}
	configFlags(cmd)
	// Flags only, never config keys or environment variables: a reset is
	// asked for one start, not kept.
	cmd.Flags().Bool("reset-ledger", false, "when the start refuses the ledger (emptier than or different from its record, no MANIFEST, failed verification): archive it under a new name and start with an empty one")
	cmd.Flags().Bool("reset-approvals", false, "when the start refuses the approval store: archive it under a new name and start with an empty one (the principal enrols a passkey again)")
	return cmd
}

// resetOptions turns node run's --reset-* flags into node.WithReset.
func resetOptions(cmd *cobra.Command) []node.Option {
	var stores []string
	for flag, store := range map[string]string{"reset-ledger": node.StoreLedger, "reset-approvals": node.StoreApprovals} {
		if v, err := cmd.Flags().GetBool(flag); err == nil && v {
			stores = append(stores, store)
		}
	}
	if len(stores) == 0 {
		return nil
	}
	return []node.Option{node.WithReset(stores...)}
}

// newLogger returns the daemon's logger on w.
func newLogger(w io.Writer, level, format string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	opts := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// readPassphrase reads the keys' passphrase: the configured file, then
// $PARLEY_PASSPHRASE, then a prompt on a terminal.
func readPassphrase(cmd *cobra.Command, file string) ([]byte, error) {
	src := identity.PassphraseSource{File: file, Env: os.Getenv(identity.PassphraseEnv), Prompt: cmd.ErrOrStderr()}
	if in, ok := cmd.InOrStdin().(*os.File); ok {
		src.Terminal = in
	}
	return src.Read(false)
}

// runNode runs the daemon until its context ends.
func runNode(cmd *cobra.Command, s settings) error {
	log := newLogger(cmd.ErrOrStderr(), s.LogLevel, s.LogFormat)
	pass, err := readPassphrase(cmd, s.PassphraseFile)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	opts := []node.Option{node.WithPassphrase(pass), node.WithLogger(log), node.WithRegisterer(reg)}
	opts = append(opts, resetOptions(cmd)...)
	if s.ApprovalMode == ApprovalAuto {
		log.Warn("APPROVAL MODE AUTO: EVERY GATED ACT IS APPROVED WITHOUT A PERSON; dev chain and tests only, never with real money")
		opts = append(opts, node.WithGate(node.AutoApprove("approval.mode auto ("+s.Node.Name+")")))
	}
	n, err := node.New(s.Node, opts...)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	// The principal's pages, on this machine only: a host named localhost
	// is served on 127.0.0.1 (the pages are opened at http://localhost).
	var (
		webLn  net.Listener
		webSrv *http.Server
		webURL = "off"
	)
	if s.WebListen != "" {
		host, port, err := net.SplitHostPort(s.WebListen)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("web.listen: %w", err)}
		}
		if host == "localhost" {
			host = "127.0.0.1"
		}
		if webLn, err = net.Listen("tcp", net.JoinHostPort(host, port)); err != nil {
			return &exitError{code: 1, err: fmt.Errorf("web.listen: %w", err)}
		}
		defer webLn.Close()
		webURL = "http://localhost:" + strconv.Itoa(webLn.Addr().(*net.TCPAddr).Port)
	}
	// VXP's listener (the one meant for other machines) is opened before
	// the node starts too, once the pages' URL is known (the device flow's
	// verification_uri); its server starts once the node has.
	vx, err := newVXPListener(s, n, strings.TrimPrefix(webURL, "off"), log)
	if err != nil {
		return err
	}
	// The outside agents VXP serves, as the pages and the API show them
	// (nil without VXP: they answer that VXP is off).
	var agents node.AgentBook
	if vx != nil {
		defer vx.ln.Close()
		agents = vx.srv
	}
	if webLn != nil {
		h, err := web.New(n, web.Options{Logger: log, Agents: agents})
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		webSrv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	}
	// The API's key and address are checked before the node starts, so a
	// missing key or a taken port fails fast.
	var (
		apiLn   net.Listener
		apiSrv  *http.Server
		apiActs *api.Server // its Close waits for the acts it runs
		apiURL  = "off"
		apiBase string
		apiKey  []byte
		keyPath = filepath.Join(s.Node.DataDir, APIKeyFileName)
	)
	if s.APIListen != "" {
		key, err := readAPIKey(keyPath)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		apiKey = key
		if apiLn, err = net.Listen("tcp", s.APIListen); err != nil {
			return &exitError{code: 1, err: fmt.Errorf("api.listen: %w", err)}
		}
		defer apiLn.Close()
		base := "http://" + apiLn.Addr().String()
		h, err := api.New(n, api.Options{Key: key, MaxBody: s.APIMaxBody, Logger: log, BaseURL: base, Organization: s.Node.Name, Offers: s.APIOffers, WebURL: strings.TrimPrefix(webURL, "off"), Agents: agents})
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		// No write timeout: a gated act answers when its approval is
		// decided (up to approval.ttl) and the event stream stays open.
		apiSrv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
		apiSrv.RegisterOnShutdown(h.Close)
		apiActs = h
		apiURL, apiBase = base+"/v1", base
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := n.Start(ctx); err != nil {
		return &exitError{code: 1, err: err}
	}
	defer n.Close()
	stopVXP := func() {}
	if vx != nil {
		if err := vx.srv.Start(ctx); err != nil {
			_ = vx.srv.Close()
			return &exitError{code: 1, err: fmt.Errorf("vxp: %w", err)}
		}
		// Deferred after n.Close, so it runs first: VXP stops, and its
		// requests' acts end, before the node closes.
		stopVXP = sync.OnceFunc(func() {
			shutdownAPI(vx.http, log)
			_ = vx.srv.Close()
		})
		defer stopVXP()
		go func() {
			if err := vx.serve(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("vxp server stopped", "err", err)
			}
		}()
	}
	stopWeb := func() {}
	if webSrv != nil {
		// Deferred after n.Close, so it runs first.
		stopWeb = sync.OnceFunc(func() { shutdownAPI(webSrv, log) })
		defer stopWeb()
		go func() {
			if err := webSrv.Serve(webLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("web server stopped", "err", err)
			}
		}()
	}
	// The MCP endpoint shares the API's listener and key; it is built
	// once the node is started (seat links name its peer id).
	mcpURL := "off"
	if apiSrv != nil && s.MCPEnabled {
		ms, err := mcp.New(mcp.NodeBackend(n), n, mcp.Options{
			Key: apiKey, PeerID: n.PeerID().String(), Address: n.Address(),
			SeatFile: filepath.Join(s.Node.DataDir, mcp.SeatFileName), Logger: log,
			MaxBody: s.APIMaxBody, Version: version,
			MaxSessions: s.MCPMaxSessions, SessionTimeout: s.MCPSessionIdle,
		})
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		mux := http.NewServeMux()
		mux.Handle(mcp.Path, ms)
		mux.Handle("/", apiSrv.Handler)
		apiSrv.Handler = mux
		apiSrv.RegisterOnShutdown(func() { _ = ms.Close() })
		mcpURL = apiBase + mcp.Path + " (seat links, or the API's bearer key as the agent key)"
	}
	stopAPI := func() {}
	if apiSrv != nil {
		// Deferred after n.Close, so it runs first: the API stops before
		// the node closes.
		stopAPI = sync.OnceFunc(func() {
			shutdownAPI(apiSrv, log)
			apiActs.Close() // the acts of clients that went away end before the node closes
		})
		defer stopAPI()
		go func() {
			if err := apiSrv.Serve(apiLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("api server stopped", "err", err)
			}
		}()
	}

	metricsURL := "off"
	var srv *http.Server
	if s.MetricsListen != "" {
		ln, err := net.Listen("tcp", s.MetricsListen)
		if err != nil {
			return &exitError{code: 1, err: fmt.Errorf("metrics.listen: %w", err)}
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
		srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("metrics server stopped", "err", err)
			}
		}()
		metricsURL = "http://" + ln.Addr().String() + "/metrics"
	}
	st, err := n.Status()
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	chainDesc := "no chain"
	if s.Node.Chain.RPC != "" {
		chainDesc = s.Node.Chain.RPC
	}
	apiDesc := apiURL
	if apiSrv != nil {
		apiDesc += " (bearer key in " + keyPath + ")"
	}
	approvals := s.ApprovalMode
	if s.ApprovalMode == ApprovalPasskey {
		approvals += " (the principal's passkeys; pages " + webURL + ")"
	}
	vxpDesc := "off"
	if vx != nil {
		vxpDesc = vx.describe()
	}
	// Unlocking the keys ran scrypt (geth's keystore: 256 MiB per key);
	// hand that memory back to the OS now, not over the scavenger's
	// minutes: an idle node's RSS is otherwise about 100 MiB higher.
	debug.FreeOSMemory()
	fmt.Fprintf(cmd.OutOrStdout(), "parley node %q running: peer %s, EVM %s\n  listening %s\n  announced %s\n  reachability %s\n  api %s\n  mcp %s\n  pages %s\n  vxp %s\n  metrics %s\n  chain %s, approvals: %s\n",
		s.Node.Name, st.PeerID, st.Address, strings.Join(st.Network.Listen, " "), strings.Join(st.Addrs, " "), reachabilityLine(st.Network.Reachability, s.Node.P2P), apiDesc, mcpURL, webURL, vxpDesc, metricsURL, chainDesc, approvals)
	<-ctx.Done()
	log.Info("stopping")
	stopVXP()
	stopWeb()
	stopAPI()
	if srv != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = srv.Shutdown(sctx)
		cancel()
	}
	if err := n.Close(); err != nil {
		return &exitError{code: 1, err: err}
	}
	fmt.Fprintf(cmd.OutOrStdout(), "parley node %q stopped\n", s.Node.Name)
	return nil
}

// readAPIKey reads the API's bearer key: the text of path without
// surrounding white space.
func readAPIKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the API key: %w (parley init writes it; an empty api.listen runs the node without the API)", err)
	}
	key := bytes.TrimSpace(b)
	if len(key) < api.MinKeyBytes {
		return nil, fmt.Errorf("the API key in %s has %d characters; at least %d", path, len(key), api.MinKeyBytes)
	}
	return key, nil
}

// shutdownAPI stops the API server: its event streams end at once, and
// requests in flight get 5 seconds before their connections are closed
// (an act waiting for its approval is then cancelled).
func shutdownAPI(srv *http.Server, log *slog.Logger) {
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("api requests cut at shutdown", "err", err)
		_ = srv.Close()
	}
}
