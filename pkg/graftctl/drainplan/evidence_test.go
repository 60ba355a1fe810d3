package drainplan

import (
	"context"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/graft-dev/graft/pkg/algorithm"
)

// The plan counts the fallbacks graft-descheduler recorded under the
// declaration the flags give, and says so when the declarations differ.
func TestEvidenceReadsTheDeschedulersRecord(t *testing.T) {
	const v = "v1.160.0"
	pair := algorithm.LivePair(v, v)
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "graft-descheduler", Annotations: map[string]string{
		algorithm.LiveRecordAnnotation: `{"declared":["v1.160.0"],"observed":["v1.170.0"],"fellBack":["v1.160.0 -> v1.160.0"]}`}}}
	leases := kubefake.NewSimpleClientset(lease).CoordinationV1()
	for _, tc := range []struct {
		name     string
		flag     LiveFlag
		lease    string
		fellBack bool
		note     string
	}{
		{name: "same declaration", flag: LiveFlag{Mode: "Prefer", Versions: []string{v}}, lease: "graft-descheduler", fellBack: true},
		{name: "other declaration", flag: LiveFlag{Mode: "Prefer", Versions: []string{v, "v1.161.0"}}, lease: "graft-descheduler", note: "not --live-gardenlet-versions"},
		{name: "no Lease", flag: LiveFlag{Mode: "Prefer", Versions: []string{v}}, lease: "elsewhere"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flow, note, err := tc.flag.Evidence(context.Background(), leases, "garden", tc.lease)
			if err != nil {
				t.Fatal(err)
			}
			if got := flow.FellBack.Has(pair); got != tc.fellBack {
				t.Errorf("fallback counted: %v, want %v", got, tc.fellBack)
			}
			if tc.note == "" && note != "" || !strings.Contains(note, tc.note) {
				t.Errorf("note %q, want one saying %q", note, tc.note)
			}
			if got := flow.Blocker(v, v); tc.fellBack != strings.Contains(got, "fell back") {
				t.Errorf("Blocker says %q", got)
			}
			if tc.lease == "graft-descheduler" && flow.Blocker("v1.170.0", "v1.170.0") != "" {
				t.Errorf("the version seen live is not live: %q", flow.Blocker("v1.170.0", "v1.170.0"))
			}
		})
	}
	flow, _, err := (&LiveFlag{Mode: "Never"}).Evidence(context.Background(), leases, "garden", "graft-descheduler")
	if err != nil || flow != nil {
		t.Errorf("Never gives %+v, %v; want no evidence", flow, err)
	}
}
