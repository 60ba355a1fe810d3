package version

import (
	"encoding/json"
	"strings"
	"testing"

	apimachineryversion "k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"

	"github.com/graft-dev/graft/pkg/component/buildversion"
	"github.com/graft-dev/graft/pkg/graftctl/cmdtest"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

// execute runs graftctl version and returns what it printed.
func execute(t *testing.T, f factory.Factory, args ...string) (string, error) {
	t.Helper()
	out, _, err := cmdtest.Run(t, NewCommand, f, "", args...)
	return out, err
}

func withServer(gitVersion string) factory.Factory {
	kube := fake.NewSimpleClientset()
	kube.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &apimachineryversion.Info{
		Major: "1", Minor: "37", GitVersion: gitVersion, Platform: "linux/amd64",
	}
	return &factory.Static{Kube: kube}
}

func TestClientOnly(t *testing.T) {
	out, err := execute(t, &factory.Static{}, "--client")
	if err != nil {
		t.Fatalf("version --client: %v", err)
	}
	want := "Client Version: " + buildversion.Get().GitVersion + "\n"
	if out != want {
		t.Errorf("version --client printed %q, want %q", out, want)
	}
}

func TestClientAndServer(t *testing.T) {
	out, err := execute(t, withServer("v1.37.1"))
	if err != nil {
		t.Fatalf("version: %v", err)
	}
	want := "Client Version: " + buildversion.Get().GitVersion + "\nServer Version: v1.37.1\n"
	if out != want {
		t.Errorf("version printed %q, want %q", out, want)
	}
}

func TestUnreachableServerStillPrintsTheClientVersion(t *testing.T) {
	out, err := execute(t, &factory.Static{})
	if err == nil || !strings.Contains(err.Error(), "reading the server version") {
		t.Errorf("version without a server: %v, want an error reading the server version", err)
	}
	want := "Client Version: " + buildversion.Get().GitVersion + "\n"
	if out != want {
		t.Errorf("version without a server printed %q, want %q", out, want)
	}
}

func TestJSON(t *testing.T) {
	out, err := execute(t, withServer("v1.37.1"), "-o", "json")
	if err != nil {
		t.Fatalf("version -o json: %v", err)
	}
	var got Versions
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("version -o json printed %q: %v", out, err)
	}
	if got.ClientVersion == nil || got.ClientVersion.GitVersion != buildversion.Get().GitVersion {
		t.Errorf("clientVersion = %+v, want %s", got.ClientVersion, buildversion.Get().GitVersion)
	}
	if got.ServerVersion == nil || got.ServerVersion.GitVersion != "v1.37.1" || got.ServerVersion.Minor != "37" {
		t.Errorf("serverVersion = %+v, want v1.37.1", got.ServerVersion)
	}
}

func TestYAMLClientOnly(t *testing.T) {
	out, err := execute(t, &factory.Static{}, "--client", "-o", "yaml")
	if err != nil {
		t.Fatalf("version --client -o yaml: %v", err)
	}
	var got map[string]any
	if err := yaml.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("version -o yaml printed %q: %v", out, err)
	}
	if _, ok := got["clientVersion"]; !ok {
		t.Errorf("version --client -o yaml printed %q, want clientVersion", out)
	}
	if _, ok := got["serverVersion"]; ok {
		t.Errorf("version --client -o yaml printed %q, want no serverVersion", out)
	}
}

func TestBadOutput(t *testing.T) {
	if _, err := execute(t, &factory.Static{}, "-o", "wide"); err == nil || !strings.Contains(err.Error(), "json or yaml") {
		t.Errorf("version -o wide: %v, want an error naming json or yaml", err)
	}
}
