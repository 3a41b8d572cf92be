package main

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/parleynet/parley/node"
	vxpsrv "github.com/parleynet/parley/node/vxp"
	"github.com/parleynet/parley/vxp"
)

// vxpListener is VXP's side of a running node: its listener, its HTTP
// server (TLS when the files are given) and node/vxp's Server.
type vxpListener struct {
	ln        net.Listener
	http      *http.Server
	srv       *vxpsrv.Server
	publicURL string
	tls       bool
}

// newVXPListener builds VXP's server over n (not started yet) and opens
// its listener, so a taken port or a bad setting fails before the node
// starts; nil when vxp.enabled is off. webURL is the principal's pages
// (the device flow's verification_uri is <webURL>/device).
func newVXPListener(s settings, n *node.Node, webURL string, log *slog.Logger) (*vxpListener, error) {
	v := s.VXP
	if !v.Enabled {
		return nil, nil
	}
	srv, err := vxpsrv.New(n, vxpsrv.Config{
		PublicURL: v.PublicURL, AllowInsecureLoopback: v.AllowInsecureLoopback,
		Organization: s.Node.Name, Capabilities: v.Capabilities, WebURL: webURL,
		DataDir: s.Node.DataDir, TokenTTL: v.TokenTTL, GrantTTL: v.GrantTTL,
		DeviceTTL: v.DeviceTTL, DeviceInterval: v.DeviceInterval,
		RatePerMinute: v.RatePerMinute, Logger: log,
	})
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("vxp: %w", err)}
	}
	x := &vxpListener{srv: srv, publicURL: v.PublicURL}
	hs := &http.Server{Handler: srv,
		// The listener meant for other machines: every phase of a call is
		// bounded (no VXP call streams or waits for an approval: a request
		// owns its act's lifetime, not the HTTP call).
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 2 * time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	if v.TLSCertFile != "" {
		cert, err := tls.LoadX509KeyPair(v.TLSCertFile, v.TLSKeyFile)
		if err != nil {
			return nil, &exitError{code: 2, err: fmt.Errorf("vxp.tls_cert_file, vxp.tls_key_file: %w", err)}
		}
		hs.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
		x.tls = true
	}
	x.http = hs
	host, port, err := net.SplitHostPort(v.Listen)
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("vxp.listen: %w", err)}
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	if x.ln, err = net.Listen("tcp", net.JoinHostPort(host, port)); err != nil {
		return nil, &exitError{code: 1, err: fmt.Errorf("vxp.listen: %w", err)}
	}
	return x, nil
}

// serve serves VXP on its listener until the server is shut down.
func (x *vxpListener) serve() error {
	if x.tls {
		return x.http.ServeTLS(x.ln, "", "")
	}
	return x.http.Serve(x.ln)
}

// describe is VXP's startup line: the public URL, where vxp.json is, and
// the listener.
func (x *vxpListener) describe() string {
	mode := "plain http"
	if x.tls {
		mode = "TLS"
	}
	return fmt.Sprintf("%s (%s%s, issuer %s; listening %s, %s)", x.publicURL, x.publicURL, vxp.DocumentPath, x.srv.Issuer(), x.ln.Addr(), mode)
}
