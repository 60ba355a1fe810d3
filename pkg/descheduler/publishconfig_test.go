package descheduler

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
)

// The published configuration reads back as the configuration, without the
// connection and leader election settings; what cannot be planned with is
// refused with the reason.
func TestPublishedConfigurationRoundTrips(t *testing.T) {
	cfg := &configv1alpha1.DeschedulerConfiguration{MaxEvictionsPerSeed: ptr.To[int32](2), EvictionRate: ptr.To(0.5),
		ProjectBudgets: []configv1alpha1.ProjectBudget{{Namespace: "garden-a", MaxMovesInFlight: 1}},
		Plugins:        []configv1alpha1.DeschedulerPlugin{{Name: configv1alpha1.DeschedulerPluginRebalance, Args: runtime.RawExtension{Raw: []byte(`{"maxMovesPerPass":3}`)}}}}
	cfg.ClientConnection.Kubeconfig = "/etc/graft/kubeconfig"
	defaultResolved(cfg)
	value, err := EncodeConfiguration(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(value, "kubeconfig") || strings.Contains(value, "leaderElection") {
		t.Errorf("published %s: it carries the connection settings", value)
	}
	got, err := DecodeConfiguration(value)
	if err != nil {
		t.Fatal(err)
	}
	if *got.MaxEvictionsPerSeed != 2 || *got.EvictionRate != 0.5 || len(got.ProjectBudgets) != 1 || len(got.Plugins) != 2 ||
		string(got.Plugins[1].Args.Raw) != `{"maxMovesPerPass":3}` || got.Interval.Duration != cfg.Interval.Duration {
		t.Errorf("decoded %+v, want the configuration published", got)
	}
	for _, tc := range []struct{ name, value, want string }{
		{"not JSON", "{", "not the JSON"},
		{"another kind", `{"apiVersion":"config.graft.dev/v1alpha1","kind":"SchedulerConfiguration"}`, "this build reads"},
		{"invalid", `{"apiVersion":"config.graft.dev/v1alpha1","kind":"DeschedulerConfiguration","maxEvictionsPerSeed":-1}`, "maxEvictionsPerSeed"},
		{"an unknown plugin", `{"apiVersion":"config.graft.dev/v1alpha1","kind":"DeschedulerConfiguration","plugins":[{"name":"Nope"}]}`, "Nope"},
	} {
		if _, err := DecodeConfiguration(tc.value); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
	// A field a newer descheduler adds is ignored.
	newer := strings.Replace(value, `"kind":"DeschedulerConfiguration"`, `"kind":"DeschedulerConfiguration","someNewField":{"x":1}`, 1)
	if _, err := DecodeConfiguration(newer); err != nil {
		t.Errorf("a newer field: %v", err)
	}
}
