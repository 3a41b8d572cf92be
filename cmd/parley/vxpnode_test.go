package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/identity"
)

// TestNodeRunVXP runs the daemon with VXP on a TLS listener: the startup
// line names its public URL, vxp.json is served over TLS with the public
// URL's issuer, plain http on the port is refused, and the listener stops
// with the node. A taken vxp.listen port fails the start before the node
// starts.
func TestNodeRunVXP(t *testing.T) {
	t.Setenv(identity.PassphraseEnv, "node run vxp test passphrase")
	dir := t.TempDir()
	if out, err := runInit(t, "init", "--data-dir", dir, "--role", "node"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	cert, key := writeTLSPair(t, t.TempDir())
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	public := "https://127.0.0.1:" + strconv.Itoa(port)
	args := []string{"node", "run", "--data-dir", dir, "--chain-rpc", "", "--p2p-listen", "/ip4/127.0.0.1/tcp/0", "--metrics-listen", "",
		"--api-listen", "127.0.0.1:0", "--web-listen", "", "--p2p-dht", "false",
		"--vxp-enabled", "true", "--vxp-listen", "127.0.0.1:" + strconv.Itoa(port), "--vxp-public-url", public,
		"--vxp-tls-cert-file", cert, "--vxp-tls-key-file", key}

	// An operation the node does not run yet: refused before it starts.
	var early syncBuffer
	if err := runChainCmd(t, t.Context(), "", &early, append(append([]string(nil), args...), "--vxp-capabilities", "offer.respond,escrow.fund")...); exitCode(err) != 2 ||
		!strings.Contains(err.Error(), "vxp.capabilities") || !strings.Contains(err.Error(), "escrow.fund") || strings.Contains(early.String(), "running: peer") {
		t.Fatalf("offering escrow.fund: %v\n%s", err, early.String())
	}

	// A taken port: refused before the node starts.
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	err = runChainCmd(t, t.Context(), "", &out, args...)
	ln.Close()
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "vxp.listen") || strings.Contains(out.String(), "running: peer") {
		t.Fatalf("a taken vxp.listen: %v\n%s", err, out.String())
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out = syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- runChainCmd(t, ctx, "", &out, args...) }()
	want := "  vxp " + public + " (" + public + "/.well-known/vxp.json, issuer " + public + "/vxp; listening 127.0.0.1:" + strconv.Itoa(port) + ", TLS)\n"
	eventually(t, "the node to run", func() bool {
		select {
		case err := <-done:
			t.Fatalf("node run returned %v:\n%s", err, out.String())
		default:
		}
		return strings.Contains(out.String(), "running: peer")
	})
	if !strings.Contains(out.String(), want) {
		t.Fatalf("the startup lines lack %q:\n%s", want, out.String())
	}
	pemBytes, err := os.ReadFile(cert)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pemBytes)
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := c.Get(public + "/.well-known/vxp.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	err = json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || doc["issuer"] != public+"/vxp" || resp.TLS == nil {
		t.Fatalf("vxp.json over TLS: %d %v %v", resp.StatusCode, doc, err)
	}
	if resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/.well-known/vxp.json"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatal("vxp.json was served over plain http on the TLS listener")
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("node run stopped with %v\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("node run did not stop")
	}
	if _, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
		t.Fatal("VXP's listener outlived the node")
	}
}
