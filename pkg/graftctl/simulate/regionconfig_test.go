package simulate

import (
	"strings"
	"testing"
)

// regionLandscape has a seed near eu-west-1 by the Levenshtein fallback
// (eu-central-1, 2) and one far (us-east-1, 6), and a region ConfigMap in a
// project namespace that would turn that around.
const regionLandscape = `apiVersion: core.graft.dev/v1alpha1
kind: CloudProfile
metadata: {name: aws}
spec: {type: aws}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: a-steer
  namespace: garden-dev
  labels: {scheduling.gardener.cloud/purpose: region-config}
  annotations: {scheduling.gardener.cloud/cloudprofiles: aws}
data:
  eu-west-1: "us-east-1: 1"
---
apiVersion: core.graft.dev/v1alpha1
kind: Seed
metadata: {name: near}
spec:
  provider: {type: aws, region: eu-central-1}
  networks: {pods: 10.96.0.0/11, services: 10.64.0.0/13}
status:
  conditions: [{type: GardenletReady, status: "True"}]
  lastOperation: {type: Reconcile, state: Succeeded}
---
apiVersion: core.graft.dev/v1alpha1
kind: Seed
metadata: {name: far}
spec:
  provider: {type: aws, region: us-east-1}
  networks: {pods: 10.96.0.0/11, services: 10.64.0.0/13}
status:
  conditions: [{type: GardenletReady, status: "True"}]
  lastOperation: {type: Reconcile, state: Succeeded}
---
apiVersion: core.graft.dev/v1alpha1
kind: Shoot
metadata: {name: web, namespace: garden-dev}
spec: {cloudProfile: {name: aws}, region: eu-west-1, provider: {type: aws}}
`

// TestRegionConfigNamespace: like graft-scheduler, simulate reads region
// ConfigMaps of one namespace only and says which ones it ignored.
func TestRegionConfigNamespace(t *testing.T) {
	stdout, stderr, err := run(t, regionLandscape, "-f", "-", "-o", "json", "--strategy", "MinimalDistance")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"shoot":"garden-dev/web","seed":"near","error":""}` + "\n"; stdout != want {
		t.Errorf("a project's region ConfigMap steered the decision: got %q, want %q", stdout, want)
	}
	if want := `Warning: ignored 1 region ConfigMap(s) outside namespace "garden" (--region-config-namespace), as graft-scheduler ignores them: stdin document 2 (ConfigMap garden-dev/a-steer)`; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}

	stdout, stderr, err = run(t, regionLandscape, "-f", "-", "-o", "json", "--strategy", "MinimalDistance", "--region-config-namespace", "garden-dev")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"shoot":"garden-dev/web","seed":"far","error":""}` + "\n"; stdout != want || stderr != "" {
		t.Errorf("with --region-config-namespace garden-dev: got %q (stderr %q), want %q", stdout, stderr, want)
	}

	if _, _, err := run(t, regionLandscape, "-f", "-", "--region-config-namespace", "Garden"); err == nil || !strings.Contains(err.Error(), `invalid --region-config-namespace "Garden"`) {
		t.Errorf("err = %v, want the namespace refused", err)
	}
}
