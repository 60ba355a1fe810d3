package graftctl

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// A tenant's strings holding escape sequences (its shoot's region, an
// annotation, an Event message about it) reach the operator's terminal
// escaped, as kubectl escapes them: the root command hands every subcommand
// terminal-safe streams. graftctl describe runs against an API server
// stand-in that serves the tenant's shoot and its Events.
func TestTenantStringsAreEscaped(t *testing.T) {
	// JSON-escaped: ESC, BEL and CR as the API server serves them.
	const hostile = `eu-west-1\u001b]0;owned\u0007\u001b[2J\rfake`
	shoot := `{"apiVersion":"core.graft.dev/v1alpha1","kind":"Shoot",
		"metadata":{"name":"s","namespace":"garden-dev","uid":"u1","annotations":{"note":"` + hostile + `"}},
		"spec":{"cloudProfile":{"kind":"CloudProfile","name":"aws"},"region":"` + hostile + `","provider":{"type":"aws"},"seedName":"a"}}`
	events := `{"apiVersion":"v1","kind":"EventList","metadata":{},"items":[{"metadata":{"name":"e","namespace":"garden-dev"},
		"involvedObject":{"kind":"Shoot","name":"s","namespace":"garden-dev","uid":"u1"},"reason":"Tenant","type":"Normal",
		"message":"` + hostile + `","count":1}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/apis/core.graft.dev/v1alpha1/namespaces/garden-dev/shoots/s":
			io.WriteString(w, shoot)
		case "/api/v1/namespaces/garden-dev/events":
			io.WriteString(w, events)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
		}
	}))
	t.Cleanup(srv.Close)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "`+srv.URL+`"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	cmd := NewGraftctlCommand(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	cmd.SetArgs([]string{"--kubeconfig", kubeconfig, "--api", "core.graft.dev", "describe", "shoot", "s", "-n", "garden-dev"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("describe: %v\n%s", err, errOut.String())
	}
	printed := out.String() + errOut.String()
	if strings.ContainsAny(printed, "\x1b\r") {
		t.Fatalf("output carries raw control characters:\n%q", printed)
	}
	// describe quotes a tenant's string that holds control characters, with
	// Go's escapes (a newline or tab would add lines or columns otherwise).
	quoted := `"eu-west-1\x1b]0;owned\a\x1b[2J\rfake"`
	for _, want := range []string{"Region:          " + quoted, "note=" + quoted, "Tenant"} {
		if !strings.Contains(printed, want) {
			t.Errorf("output does not show %q:\n%s", want, printed)
		}
	}
	if n := strings.Count(printed, quoted); n != 3 {
		t.Errorf("the escaped sequence appears %d times, want 3 (region, annotation, Event):\n%s", n, printed)
	}
}

func TestEscapingWriter(t *testing.T) {
	var b bytes.Buffer
	w := EscapingWriter(&b)
	if EscapingWriter(w) != w {
		t.Error("wrapped twice")
	}
	n, err := w.Write([]byte("a\x1b[31mb\rc\n"))
	if err != nil || n != 10 {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got := b.String(); got != "a^[[31mb\\rc\n" {
		t.Errorf("wrote %q", got)
	}
}
