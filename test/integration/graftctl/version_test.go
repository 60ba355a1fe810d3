//go:build integration

package graftctl

import (
	"net"
	"os"
	"regexp"
	"strings"
	"testing"
)

// graftctl version reads the server's version from the real API server.
func TestVersionPrintsClientAndServer(t *testing.T) {
	out := run(t, "version")
	if !regexp.MustCompile(`(?m)^Client Version: v\S+\nServer Version: v1\.\d+\.\d+\S*\n$`).MatchString(out) {
		t.Errorf("graftctl version printed %q, want a client and a server version", out)
	}
}

// With an API server that does not answer, the client version is still
// printed and the command fails saying why.
func TestVersionWithoutServerStillPrintsTheClientVersion(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there any more
	kubeconfig := tempKubeconfig(t)
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: gone, cluster: {server: "https://`+addr+`", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: gone, context: {cluster: gone, user: u}}]
current-context: gone
`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := graftctlAs(t.Context(), kubeconfig, "version")
	if r.err == nil {
		t.Fatalf("graftctl version against %s succeeded: %q", addr, r.out)
	}
	if !regexp.MustCompile(`^Client Version: v\S+\n$`).MatchString(r.out) {
		t.Errorf("stdout %q, want the client version only", r.out)
	}
	if !strings.Contains(r.errOut, "error: reading the server version") || !strings.Contains(r.errOut, "connection refused") {
		t.Errorf("stderr %q, want the reason the server version could not be read", r.errOut)
	}
}
