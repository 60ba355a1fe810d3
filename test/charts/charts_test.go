//go:build integration

package charts

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	logsapi "k8s.io/component-base/logs/api/v1"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/test/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// componentChart describes one component chart: how to load its rendered config
// with the binary's own loader, and what its non-default values must produce.
type componentChart struct {
	chart string
	// load decodes, defaults and validates config.yaml like the binary does.
	load func(data []byte) (configv1alpha1.Configuration, *configv1alpha1.CommonConfiguration, error)
	// checkCustom checks the component's own fields for the "custom" values.
	checkCustom func(t *testing.T, cfg configv1alpha1.Configuration)
}

// loadAs decodes, defaults and validates a T like the binary does.
func loadAs[T configv1alpha1.Configuration](data []byte) (configv1alpha1.Configuration, *configv1alpha1.CommonConfiguration, error) {
	cfg, err := component.DecodeConfig[T](data)
	if err != nil {
		return nil, nil, err
	}
	return cfg, cfg.Common(), nil
}

var components = []componentChart{
	{
		chart: "graft-scheduler",
		load:  loadAs[*configv1alpha1.SchedulerConfiguration],
		checkCustom: func(t *testing.T, c configv1alpha1.Configuration) {
			cfg := c.(*configv1alpha1.SchedulerConfiguration)
			if cfg.SchedulerName != "custom-scheduler" || cfg.Strategy != configv1alpha1.StrategyMinimalDistance || cfg.ConcurrentSyncs != 25 ||
				cfg.RegionConfigNamespace != "garden-regions" {
				t.Errorf("scheduler fields not rendered from values: %+v", cfg)
			}
			if w := cfg.ScoreWeights; w == nil || w.MinimalDistance == nil || *w.MinimalDistance != 50 || w.LeastAllocated == nil || *w.LeastAllocated != 30 || w.PreferNoSchedule == nil || *w.PreferNoSchedule != 100 {
				t.Errorf("scoreWeights not rendered from values: %+v", w)
			}
		},
	},
	{
		chart: "graft-capacity-annotator",
		load:  loadAs[*configv1alpha1.CapacityAnnotatorConfiguration],
		checkCustom: func(t *testing.T, c configv1alpha1.Configuration) {
			cfg := c.(*configv1alpha1.CapacityAnnotatorConfiguration)
			if got := cfg.Capacity.Name("shoots", "").Value(); got != 150 {
				t.Errorf("capacity.shoots = %d, want 150", got)
			}
			if got := cfg.Reserved.Name("shoots", "").Value(); got != 10 {
				t.Errorf("reserved.shoots = %d, want 10", got)
			}
			if len(cfg.Overrides) != 2 || cfg.Overrides[0].SeedSelector.MatchLabels["size"] != "large" || len(cfg.Overrides[1].SeedSelector.MatchExpressions) != 1 {
				t.Errorf("overrides not rendered in order: %+v", cfg.Overrides)
			}
			if !cfg.RespectSeedCapacity || cfg.SyncPeriod.Duration != 10*time.Second || cfg.ConcurrentSyncs != 3 {
				t.Errorf("annotator fields not rendered from values: %+v", cfg)
			}
			if !cfg.HealthTaints.Enabled || cfg.HealthTaints.UnhealthyEvictionDelay == nil || cfg.HealthTaints.UnhealthyEvictionDelay.Duration != 10*time.Minute {
				t.Errorf("healthTaints not rendered from values: %+v", cfg.HealthTaints)
			}
		},
	},
	{
		chart: "graft-descheduler",
		load:  loadAs[*configv1alpha1.DeschedulerConfiguration],
		checkCustom: func(t *testing.T, c configv1alpha1.Configuration) {
			cfg := c.(*configv1alpha1.DeschedulerConfiguration)
			if cfg.Interval.Duration != 30*time.Second || !cfg.DryRun || *cfg.RequireFit || *cfg.MaxEvictionsPerSeed != 0 ||
				*cfg.MaxEvictionsTotal != 100 || *cfg.EvictionRate != 2.5 || *cfg.EvictionBurst != 5 || *cfg.MaxPendingEvicted != 20 ||
				cfg.ConcurrentEvictions != 8 || cfg.Strategy != configv1alpha1.StrategyMinimalDistance || cfg.RegionConfigNamespace != "garden-regions" {
				t.Errorf("descheduler fields not rendered from values: %+v", cfg)
			}
			var names []string
			for _, p := range cfg.Plugins {
				names = append(names, p.Name)
			}
			if !slices.Equal(names, []string{"OverCapacity", "NoExecuteTaints"}) {
				t.Errorf("plugins = %v, want the order of the values", names)
			}
		},
	},
}

// variant is one set of values a component chart is rendered with.
type variant struct {
	name        string
	valuesFiles func(chart string) []string
	set         []string
	// want* are what the values ask for.
	wantReplicas       int32
	wantServiceMonitor bool
	wantMetrics        bool
	wantLease          bool
	wantSA             string // empty: the release's full name
	custom             bool
}

var variants = []variant{
	{name: "default", wantReplicas: 2, wantMetrics: true, wantLease: true},
	{
		name: "custom",
		valuesFiles: func(chart string) []string {
			return []string{filepath.Join("testdata", "common-custom.yaml"), filepath.Join("testdata", chart+"-custom.yaml")}
		},
		wantReplicas: 3, wantServiceMonitor: true, wantMetrics: true, wantLease: true, wantSA: "custom-sa", custom: true,
	},
	{
		// One replica without leader election, no metrics endpoint and an
		// existing ServiceAccount: no Lease Role, no Service, no PDB.
		name: "minimal",
		set: []string{
			"replicaCount=1", "config.leaderElection.leaderElect=false", "config.server.metricsBindAddress=0",
			"serviceAccount.create=false", "serviceAccount.name=existing-sa", "podDisruptionBudget.enabled=false",
		},
		wantReplicas: 1, wantSA: "existing-sa",
	},
}

func (v variant) files(chart string) []string {
	if v.valuesFiles == nil {
		return nil
	}
	return v.valuesFiles(chart)
}

func TestLint(t *testing.T) {
	ctx := context.Background()
	for _, chart := range []string{"graft-crds", "graft-component"} {
		t.Run(chart, func(t *testing.T) {
			if out, err := Lint(ctx, chart); err != nil {
				t.Fatalf("%v", err)
			} else {
				t.Log(out)
			}
		})
	}
	for _, c := range components {
		for _, v := range variants {
			if v.set != nil {
				continue // lint takes values files only; "minimal" is covered by TestComponentCharts
			}
			t.Run(c.chart+"/"+v.name, func(t *testing.T) {
				if out, err := Lint(ctx, c.chart, v.files(c.chart)...); err != nil {
					t.Fatalf("%v", err)
				} else {
					t.Log(out)
				}
			})
		}
	}
}

// TestComponentCharts renders each component chart with each variant,
// checks the objects against what the values ask for, loads the rendered
// component config with the binary's own loader and applies everything with a
// server-side dry run to the real API server.
func TestComponentCharts(t *testing.T) {
	env := framework.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	kube := env.KubeClient()
	applier, err := NewApplier(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range components {
		for _, v := range variants {
			t.Run(c.chart+"/"+v.name, func(t *testing.T) {
				ns := "chart-" + strings.TrimPrefix(c.chart, "graft-") + "-" + v.name
				ensureNamespace(ctx, t, kube, ns)
				objs, err := Template(ctx, c.chart, TemplateOptions{Release: "graft", Namespace: ns, ValuesFiles: v.files(c.chart), Set: v.set})
				if err != nil {
					t.Fatal(err)
				}
				r := index(t, objs)

				// The config the binary would read.
				cm := one[corev1.ConfigMap](t, r, "ConfigMap")
				cfg, common, err := c.load([]byte(cm.Data["config.yaml"]))
				if err != nil {
					t.Fatalf("rendered config does not load with the component's loader: %v\n%s", err, cm.Data["config.yaml"])
				}
				if v.custom {
					c.checkCustom(t, cfg)
					checkCustomCommon(t, common)
				}

				dep := one[appsv1.Deployment](t, r, "Deployment")
				checkDeployment(t, c.chart, v, dep, cm, common)
				checkRBAC(t, r, v, ns, dep, common)
				checkRegionConfigRBAC(t, r, cfg, ns, dep.Spec.Template.Spec.ServiceAccountName)
				checkService(t, r, v, dep, common)
				checkPDB(t, r, v, dep)

				// Apply with a server-side dry run. The ServiceMonitor's CRD
				// (prometheus-operator) is not part of a garden; it was checked
				// against the Service above.
				var apply []*unstructured.Unstructured
				for _, o := range objs {
					if o.GetKind() != "ServiceMonitor" {
						apply = append(apply, o)
					}
				}
				if common.LeaderElection.ResourceNamespace != ns {
					ensureNamespace(ctx, t, kube, common.LeaderElection.ResourceNamespace)
				}
				if regionNS, ok := regionConfigNamespace(cfg); ok && regionNS != ns {
					ensureNamespace(ctx, t, kube, regionNS)
				}
				if err := applier.Apply(ctx, apply, true); err != nil {
					t.Fatalf("server-side dry run: %v", err)
				}
			})
		}
	}
}

// TestRejectedValues checks that values the components cannot work with fail
// at render time with a message saying why, instead of a crash-looping pod.
func TestRejectedValues(t *testing.T) {
	ctx := context.Background()
	type rejected struct {
		name string
		set  []string
		want string
	}
	common := []rejected{
		{"replicas without leader election", []string{"config.leaderElection.leaderElect=false"}, "replicaCount above 1 needs config.leaderElection.leaderElect"},
		{"health endpoint disabled", []string{"config.server.healthProbeBindAddress=0"}, "needs host:port with a fixed port"},
		{"health on a random port", []string{"config.server.healthProbeBindAddress=:0"}, "needs host:port with a fixed port"},
		{"metrics on a port out of range", []string{"config.server.metricsBindAddress=:70000"}, "needs host:port with a fixed port"},
		{"service monitor without metrics", []string{"metrics.serviceMonitor.enabled=true", "config.server.metricsBindAddress=0"}, "metrics.serviceMonitor.enabled needs"},
		{"no lease name", []string{"config.leaderElection.resourceName="}, "config.leaderElection.resourceName is required"},
		{"existing service account without a name", []string{"serviceAccount.create=false"}, "serviceAccount.name is required"},
		{"misspelled key", []string{"replicas=3"}, "additional properties 'replicas' not allowed"},
		{"misspelled nested key", []string{"metrics.serviceMonitor.enable=true"}, "additional properties 'enable' not allowed"},
		{"wrong type", []string{"replicaCount=two"}, "replicaCount"},
	}
	for _, c := range components {
		cases := common
		if c.chart == "graft-descheduler" {
			cases = append(slices.Clone(common), rejected{"one-shot interval", []string{"config.interval=0s"}, "config.interval 0 runs one pass and exits"})
		}
		for _, rc := range cases {
			t.Run(c.chart+"/"+rc.name, func(t *testing.T) {
				_, err := TemplateRaw(ctx, c.chart, TemplateOptions{Set: rc.set})
				if err == nil {
					t.Fatalf("helm template with %v succeeded, want an error saying %q", rc.set, rc.want)
				}
				if !strings.Contains(err.Error(), rc.want) {
					t.Fatalf("helm template with %v failed with\n%v\nwant a message containing %q", rc.set, err, rc.want)
				}
			})
		}
	}
}

// TestSchemasAgree keeps the component charts uniform: their values schemas
// are one schema, copied.
func TestSchemasAgree(t *testing.T) {
	var first []byte
	for _, c := range components {
		dir, err := Dir(c.chart)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "values.schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = data
		} else if !bytes.Equal(first, data) {
			t.Errorf("%s/values.schema.json differs from %s's", c.chart, components[0].chart)
		}
	}
}

// TestCRDChart renders graft-crds and applies its CRDs with a dry run. Its
// admission policies are TestCRDChartAdmissionPolicies'.
func TestCRDChart(t *testing.T) {
	env := framework.Shared(t)
	ctx := context.Background()
	objs, err := Template(ctx, "graft-crds", TemplateOptions{IncludeCRDs: true})
	if err != nil {
		t.Fatal(err)
	}
	crdDir, err := controlplane.CRDDir()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(crdDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var crds []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" {
			names = append(names, o.GetName())
			crds = append(crds, o)
		}
	}
	slices.Sort(names)
	want := []string{"cloudprofiles.core.graft.dev", "namespacedcloudprofiles.core.graft.dev", "seeds.core.graft.dev", "shoots.core.graft.dev"}
	if !slices.Equal(names, want) || len(files) != len(want) {
		t.Fatalf("graft-crds renders %v from %d files, want %v", names, len(files), want)
	}
	applier, err := NewApplier(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	if err := applier.Apply(ctx, crds, true); err != nil {
		t.Fatalf("server-side dry run: %v", err)
	}
}

func ensureNamespace(ctx context.Context, t *testing.T, kube kubernetes.Interface, name string) {
	t.Helper()
	_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
}

// index groups rendered objects by kind.
func index(t *testing.T, objs []*unstructured.Unstructured) map[string][]*unstructured.Unstructured {
	t.Helper()
	r := map[string][]*unstructured.Unstructured{}
	for _, o := range objs {
		r[o.GetKind()] = append(r[o.GetKind()], o)
	}
	return r
}

// one converts the only rendered object of a kind.
func one[T any](t *testing.T, r map[string][]*unstructured.Unstructured, kind string) *T {
	t.Helper()
	if n := len(r[kind]); n != 1 {
		t.Fatalf("rendered %d %s objects, want 1", n, kind)
	}
	out := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(r[kind][0].Object, out); err != nil {
		t.Fatalf("converting the %s: %v", kind, err)
	}
	return out
}

func count(r map[string][]*unstructured.Unstructured, kind string) int { return len(r[kind]) }

func portOf(t *testing.T, addr string) int32 {
	t.Helper()
	i := strings.LastIndex(addr, ":")
	p, err := strconv.Atoi(addr[i+1:])
	if err != nil {
		t.Fatalf("address %q has no port", addr)
	}
	return int32(p)
}

func checkCustomCommon(t *testing.T, c *configv1alpha1.CommonConfiguration) {
	t.Helper()
	if c.ClientConnection.QPS != 50 || c.ClientConnection.Burst != 60 {
		t.Errorf("clientConnection not rendered from values: %+v", c.ClientConnection)
	}
	le := c.LeaderElection
	if le.LeaseDuration.Duration != 30*time.Second || le.RenewDeadline.Duration != 20*time.Second || le.RetryPeriod.Duration != 5*time.Second ||
		le.ResourceName != "custom-lease" || le.ResourceNamespace != "graft-system" {
		t.Errorf("leaderElection not rendered from values: %+v", le)
	}
	if c.Logging.Verbosity != 3 || c.Logging.Format != logsapi.JSONLogFormat {
		t.Errorf("logging not rendered from values: %+v", c.Logging)
	}
}

func checkDeployment(t *testing.T, chart string, v variant, dep *appsv1.Deployment, cm *corev1.ConfigMap, common *configv1alpha1.CommonConfiguration) {
	t.Helper()
	if dep.Spec.Replicas == nil || *dep.Spec.Replicas != v.wantReplicas {
		t.Errorf("replicas = %v, want %d", dep.Spec.Replicas, v.wantReplicas)
	}
	if configv1alpha1.IsLeaderElectionEnabled(common.LeaderElection) != v.wantLease {
		t.Errorf("leader election enabled = %v, want %v", !v.wantLease, v.wantLease)
	}
	pod := dep.Spec.Template.Spec
	sel, err := metav1.LabelSelectorAsSelector(dep.Spec.Selector)
	if err != nil || !sel.Matches(labels.Set(dep.Spec.Template.Labels)) {
		t.Errorf("deployment selector %v does not match its pod labels %v", dep.Spec.Selector, dep.Spec.Template.Labels)
	}
	if dep.Spec.Template.Annotations["checksum/config"] == "" {
		t.Error("pod template has no checksum/config annotation: a config change would not roll the pods")
	}
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod security context %+v: want runAsNonRoot and seccomp RuntimeDefault", psc)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("pod has %d containers, want 1", len(pod.Containers))
	}
	ctr := pod.Containers[0]
	sc := ctr.SecurityContext
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Errorf("container security context %+v: want no privilege escalation, read-only root filesystem, all capabilities dropped", sc)
	}
	if !slices.Equal(ctr.Command, []string{"/usr/local/bin/" + chart}) {
		t.Errorf("command = %v, want the %s binary", ctr.Command, chart)
	}
	if !slices.Contains(ctr.Args, "--config=/etc/graft/config.yaml") {
		t.Errorf("args %v do not name the config file", ctr.Args)
	}
	if ctr.Resources.Requests.Cpu().IsZero() || ctr.Resources.Requests.Memory().IsZero() || ctr.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %+v: want cpu and memory requests and a memory limit", ctr.Resources)
	}
	if v.custom && !strings.HasPrefix(ctr.Image, "registry.example.com/graft@sha256:") {
		t.Errorf("image = %s, want the digest from the values", ctr.Image)
	}
	// The config file is the ConfigMap, mounted where --config points.
	var mounted bool
	for _, vol := range pod.Volumes {
		if vol.ConfigMap != nil && vol.ConfigMap.Name == cm.Name {
			for _, m := range ctr.VolumeMounts {
				if m.Name == vol.Name && m.MountPath == "/etc/graft" {
					mounted = true
				}
			}
		}
	}
	if !mounted {
		t.Errorf("ConfigMap %s is not mounted at /etc/graft", cm.Name)
	}
	// Probes on the port the binary serves /healthz and /readyz on.
	healthPort := portOf(t, common.Server.HealthProbeBindAddress)
	if got := containerPort(ctr, "health"); got != healthPort {
		t.Errorf("container port health = %d, config serves health on %d", got, healthPort)
	}
	for name, p := range map[string]*corev1.Probe{"/healthz": ctr.LivenessProbe, "/readyz": ctr.ReadinessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != name || p.HTTPGet.Port != intstr.FromString("health") {
			t.Errorf("probe for %s = %+v, want an HTTP GET on port health", name, p)
		}
	}
	wantSA := v.wantSA
	if wantSA == "" {
		wantSA = dep.Name
	}
	if pod.ServiceAccountName != wantSA {
		t.Errorf("serviceAccountName = %s, want %s", pod.ServiceAccountName, wantSA)
	}
	if pod.AutomountServiceAccountToken == nil || !*pod.AutomountServiceAccountToken {
		t.Error("the pod needs its ServiceAccount token to reach the API server")
	}
}

func containerPort(ctr corev1.Container, name string) int32 {
	for _, p := range ctr.Ports {
		if p.Name == name {
			return p.ContainerPort
		}
	}
	return 0
}

func checkRBAC(t *testing.T, r map[string][]*unstructured.Unstructured, v variant, ns string, dep *appsv1.Deployment, common *configv1alpha1.CommonConfiguration) {
	t.Helper()
	sa := dep.Spec.Template.Spec.ServiceAccountName
	if v.wantSA == "existing-sa" {
		if count(r, "ServiceAccount") != 0 {
			t.Error("serviceAccount.create=false still renders a ServiceAccount")
		}
	} else if got := one[corev1.ServiceAccount](t, r, "ServiceAccount"); got.Name != sa || got.Namespace != ns {
		t.Errorf("ServiceAccount %s/%s, the pods run as %s/%s", got.Namespace, got.Name, ns, sa)
	}
	cr := one[rbacv1.ClusterRole](t, r, "ClusterRole")
	crb := one[rbacv1.ClusterRoleBinding](t, r, "ClusterRoleBinding")
	if crb.RoleRef.Kind != "ClusterRole" || crb.RoleRef.Name != cr.Name || !boundTo(crb.Subjects, ns, sa) {
		t.Errorf("ClusterRoleBinding %+v does not bind ClusterRole %s to %s/%s", crb, cr.Name, ns, sa)
	}
	checkNoWildcards(t, "ClusterRole", cr.Rules)
	role := named[rbacv1.Role](t, r, "Role", "-leader-election")
	rb := named[rbacv1.RoleBinding](t, r, "RoleBinding", "-leader-election")
	if !v.wantLease {
		if role != nil || rb != nil {
			t.Error("leader election is off but a lease Role is rendered")
		}
		return
	}
	if role == nil || rb == nil {
		t.Fatalf("no lease Role (%v) or RoleBinding (%v)", role, rb)
	}
	leaseNS, lease := common.LeaderElection.ResourceNamespace, common.LeaderElection.ResourceName
	if role.Namespace != leaseNS || rb.Namespace != leaseNS {
		t.Errorf("lease Role in %s, RoleBinding in %s; the Lease is in %s", role.Namespace, rb.Namespace, leaseNS)
	}
	if rb.RoleRef.Kind != "Role" || rb.RoleRef.Name != role.Name || !boundTo(rb.Subjects, ns, sa) {
		t.Errorf("RoleBinding %+v does not bind Role %s to %s/%s", rb, role.Name, ns, sa)
	}
	checkNoWildcards(t, "Role", role.Rules)
	var renew bool
	for _, rule := range role.Rules {
		if !slices.Equal(rule.APIGroups, []string{"coordination.k8s.io"}) || !slices.Equal(rule.Resources, []string{"leases"}) {
			t.Errorf("lease Role grants %+v, want leases only", rule)
		}
		if slices.Contains(rule.Verbs, "update") {
			renew = slices.Equal(rule.ResourceNames, []string{lease})
		}
	}
	if !renew {
		t.Errorf("lease Role %+v does not limit renewing to Lease %s", role.Rules, lease)
	}
}

func boundTo(subjects []rbacv1.Subject, ns, sa string) bool {
	return len(subjects) == 1 && subjects[0].Kind == "ServiceAccount" && subjects[0].Namespace == ns && subjects[0].Name == sa
}

func checkNoWildcards(t *testing.T, kind string, rules []rbacv1.PolicyRule) {
	t.Helper()
	for _, rule := range rules {
		for _, s := range slices.Concat(rule.APIGroups, rule.Resources, rule.Verbs, rule.ResourceNames, rule.NonResourceURLs) {
			if strings.Contains(s, "*") {
				t.Errorf("%s rule %+v uses a wildcard", kind, rule)
			}
		}
	}
}

func checkService(t *testing.T, r map[string][]*unstructured.Unstructured, v variant, dep *appsv1.Deployment, common *configv1alpha1.CommonConfiguration) {
	t.Helper()
	if !v.wantMetrics {
		if count(r, "Service") != 0 || count(r, "ServiceMonitor") != 0 {
			t.Error("metrics are disabled but a Service or ServiceMonitor is rendered")
		}
		return
	}
	svc := one[corev1.Service](t, r, "Service")
	for k, val := range svc.Spec.Selector {
		if dep.Spec.Template.Labels[k] != val {
			t.Errorf("Service selector %v does not select the pods (labels %v)", svc.Spec.Selector, dep.Spec.Template.Labels)
		}
	}
	// /metrics, and /healthz and /readyz on a port of their own unless they
	// share the metrics port.
	ports := map[string]corev1.ServicePort{}
	for _, p := range svc.Spec.Ports {
		ports[p.Name] = p
	}
	metricsPort, healthPort := portOf(t, common.Server.MetricsBindAddress), portOf(t, common.Server.HealthProbeBindAddress)
	want := map[string]int32{"metrics": metricsPort}
	if healthPort != metricsPort {
		want["health"] = healthPort
	}
	if len(ports) != len(want) || len(svc.Spec.Ports) != len(want) {
		t.Fatalf("Service ports %v, want one per endpoint %v", svc.Spec.Ports, want)
	}
	for name, port := range want {
		sp, ok := ports[name]
		if !ok {
			t.Fatalf("Service has no port %s: %v", name, svc.Spec.Ports)
		}
		if got := containerPort(dep.Spec.Template.Spec.Containers[0], sp.TargetPort.StrVal); got != port {
			t.Errorf("Service port %s targets container port %q = %d, the config serves it on %d", name, sp.TargetPort.StrVal, got, port)
		}
	}
	sp := ports["metrics"]
	if count(r, "ServiceMonitor") != map[bool]int{true: 1, false: 0}[v.wantServiceMonitor] {
		t.Fatalf("rendered %d ServiceMonitors, want one only when enabled (%v)", count(r, "ServiceMonitor"), v.wantServiceMonitor)
	}
	if !v.wantServiceMonitor {
		return
	}
	sm := r["ServiceMonitor"][0]
	if sm.GetAPIVersion() != "monitoring.coreos.com/v1" {
		t.Errorf("ServiceMonitor apiVersion %s", sm.GetAPIVersion())
	}
	matchLabels, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
	for k, val := range matchLabels {
		if svc.Labels[k] != val {
			t.Errorf("ServiceMonitor selector %v does not select Service labels %v", matchLabels, svc.Labels)
		}
	}
	endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if len(endpoints) != 1 || endpoints[0].(map[string]any)["port"] != sp.Name || endpoints[0].(map[string]any)["path"] != "/metrics" {
		t.Errorf("ServiceMonitor endpoints %v, want /metrics on Service port %s", endpoints, sp.Name)
	}
}

func checkPDB(t *testing.T, r map[string][]*unstructured.Unstructured, v variant, dep *appsv1.Deployment) {
	t.Helper()
	if v.name == "minimal" {
		if count(r, "PodDisruptionBudget") != 0 {
			t.Error("podDisruptionBudget.enabled=false still renders one")
		}
		return
	}
	pdb := one[policyv1.PodDisruptionBudget](t, r, "PodDisruptionBudget")
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil || !sel.Matches(labels.Set(dep.Spec.Template.Labels)) {
		t.Errorf("PDB selector %v does not match the pods", pdb.Spec.Selector)
	}
	if v.custom {
		if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 || pdb.Spec.MinAvailable != nil {
			t.Errorf("PDB %+v, want maxUnavailable 1 only", pdb.Spec)
		}
	} else if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 || pdb.Spec.MinAvailable != nil {
		t.Errorf("PDB %+v, want maxUnavailable 1 only", pdb.Spec)
	}
}
