package controlplane

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	graftclient "github.com/graft-dev/client-go/clientset/versioned"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Names of the admission policies in charts/graft-crds/policies and of the
// objects that go with them. The chart renders the same names.
const (
	// ProtectedTaintPolicy refuses a toleration of seed.gardener.cloud/protected outside the garden namespace.
	ProtectedTaintPolicy = "graft-protected-taint"
	// GardenTolerationPolicy gives every garden shoot that toleration (a MutatingAdmissionPolicy).
	GardenTolerationPolicy = "graft-garden-protected-toleration"
	// SeedAssignmentPolicy lets only the seed assigners set spec.seedName and status.seedName.
	SeedAssignmentPolicy = "graft-seed-assignment"
	// SeedAssignersConfigMap is the parameter ConfigMap of SeedAssignmentPolicy.
	SeedAssignersConfigMap = "graft-seed-assigners"
	// ShootTenancyPolicy keeps purpose infrastructure in the garden namespace
	// and allows tolerations per namespace.
	ShootTenancyPolicy = "graft-shoot-tenancy"
	// ShootTolerationsConfigMap is the parameter ConfigMap of ShootTenancyPolicy.
	ShootTolerationsConfigMap = "graft-shoot-tolerations"
	// ShootCloudProfilePolicy wants a shoot's provider type to be its cloud profile's.
	ShootCloudProfilePolicy = "graft-shoot-cloud-profile"
	// ShootPinnedZonesPolicy wants the seed a shoot names to have the zones
	// its control plane is pinned to.
	ShootPinnedZonesPolicy = "graft-shoot-pinned-zones"
	// ComponentNamespace is where graft's components and the parameter
	// ConfigMap live, as in the installation docs/install.md describes.
	ComponentNamespace = "graft-system"
)

// policyFiles are the files of charts/graft-crds/policies, in install order.
// The chart ships them through .Files.Get; this package reads the same files,
// so the CEL exists once.
var policyFiles = struct{ protectedTaint, gardenToleration, seedAssignment, shootTenancy, shootCloudProfile, shootPinnedZones string }{
	protectedTaint:    "protected-taint.yaml",
	gardenToleration:  "garden-protected-toleration.yaml",
	seedAssignment:    "seed-assignment.yaml",
	shootTenancy:      "shoot-tenancy.yaml",
	shootCloudProfile: "shoot-cloud-profile.yaml",
	shootPinnedZones:  "shoot-pinned-zones.yaml",
}

// ServiceAccountRef names a ServiceAccount.
type ServiceAccountRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// UserName is the name the API server authenticates the ServiceAccount as.
func (r ServiceAccountRef) UserName() string {
	return "system:serviceaccount:" + r.Namespace + ":" + r.Name
}

// SeedAssigners are the identities that may set, change or clear a shoot's
// seedName: the graft-crds chart's admissionPolicies.seedAssignment values.
type SeedAssigners struct {
	ServiceAccounts []ServiceAccountRef `json:"serviceAccounts"`
	Groups          []string            `json:"groups"`
	Users           []string            `json:"users"`
}

// UserNames are the ServiceAccounts' user names followed by the users, as the
// parameter ConfigMap lists them.
func (a SeedAssigners) UserNames() []string {
	var out []string
	for _, sa := range a.ServiceAccounts {
		out = append(out, sa.UserName())
	}
	return append(out, a.Users...)
}

// ToleratedKeys are the taint keys the shoots of each namespace may
// tolerate: the graft-crds chart's admissionPolicies.shootTenancy.tolerations
// values.
type ToleratedKeys struct {
	Default      []string            `json:"default"`
	Namespaces   map[string][]string `json:"namespaces"`
	ExemptUsers  []string            `json:"exemptUsers"`
	ExemptGroups []string            `json:"exemptGroups"`
}

// chartValues reads the graft-crds chart's admission policy values.
func chartValues() (SeedAssigners, ToleratedKeys, error) {
	root, err := RepoRoot()
	if err != nil {
		return SeedAssigners{}, ToleratedKeys{}, err
	}
	path := filepath.Join(root, "charts", "graft-crds", "values.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		return SeedAssigners{}, ToleratedKeys{}, err
	}
	var values struct {
		AdmissionPolicies struct {
			SeedAssignment SeedAssigners `json:"seedAssignment"`
			ShootTenancy   struct {
				Tolerations ToleratedKeys `json:"tolerations"`
			} `json:"shootTenancy"`
		} `json:"admissionPolicies"`
	}
	if err := yaml.Unmarshal(data, &values); err != nil {
		return SeedAssigners{}, ToleratedKeys{}, fmt.Errorf("reading %s: %w", path, err)
	}
	return values.AdmissionPolicies.SeedAssignment, values.AdmissionPolicies.ShootTenancy.Tolerations, nil
}

// ChartSeedAssigners returns the default seed assigners of the graft-crds
// chart, read from its values.yaml.
func ChartSeedAssigners() (SeedAssigners, error) {
	a, _, err := chartValues()
	return a, err
}

// ChartToleratedKeys returns the graft-crds chart's default toleration
// parameters, read from its values.yaml.
func ChartToleratedKeys() (ToleratedKeys, error) {
	_, k, err := chartValues()
	return k, err
}

// ShootTolerationsParams is the parameter ConfigMap of ShootTenancyPolicy:
// one key, user or group per line.
func ShootTolerationsParams(namespace string, k ToleratedKeys) *corev1.ConfigMap {
	data := map[string]string{
		"default":      strings.Join(k.Default, "\n"),
		"exemptUsers":  strings.Join(k.ExemptUsers, "\n"),
		"exemptGroups": strings.Join(k.ExemptGroups, "\n"),
	}
	for ns, keys := range k.Namespaces {
		data["namespace."+ns] = strings.Join(keys, "\n")
	}
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ShootTolerationsConfigMap, Namespace: namespace}, Data: data}
}

// e2eSecondScheduler is the ServiceAccount of the second graft-scheduler
// release the e2e suite installs (release graft-distance-scheduler, scenario
// 7): an operator adds each further scheduler release the same way.
var e2eSecondScheduler = ServiceAccountRef{Namespace: ComponentNamespace, Name: "graft-distance-scheduler-graft-scheduler"}

// TestSeedAssigners are the seed assigners of a garden this package installs:
// the chart's defaults (the components' ServiceAccounts as their charts create
// them in graft-system, and system:masters, which the tests' admin belongs to)
// plus the e2e suite's second scheduler.
func TestSeedAssigners() (SeedAssigners, error) {
	a, err := ChartSeedAssigners()
	if err != nil {
		return a, err
	}
	a.ServiceAccounts = append(a.ServiceAccounts, e2eSecondScheduler)
	return a, nil
}

// AddOperator makes the identity cfg authenticates as one of the garden's
// operators in a and k (a seed assigner, exempt from the toleration rules),
// unless one of its groups is listed already. The suites act as the garden's
// operator, and a cluster's admin need not be in system:masters: kubeadm's
// admin.conf (kind's) is in kubeadm:cluster-admins. Only the user name is
// added: its groups include system:authenticated.
func AddOperator(ctx context.Context, cfg *rest.Config, a *SeedAssigners, k *ToleratedKeys) error {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	review, err := kube.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("asking the API server who the suite is (SelfSubjectReview): %w", err)
	}
	user := review.Status.UserInfo
	listed := func(users, groups []string) bool {
		if slices.Contains(users, user.Username) {
			return true
		}
		return slices.ContainsFunc(user.Groups, func(g string) bool { return slices.Contains(groups, g) })
	}
	if !listed(a.Users, a.Groups) {
		a.Users = append(a.Users, user.Username)
	}
	if !listed(k.ExemptUsers, k.ExemptGroups) {
		k.ExemptUsers = append(k.ExemptUsers, user.Username)
	}
	return nil
}

// AdmissionOptions say which admission objects AdmissionObjects builds.
type AdmissionOptions struct {
	// Namespace holds the parameter ConfigMap (the chart's release namespace).
	Namespace string
	// Assigners may set, change or clear seedName.
	Assigners SeedAssigners
	// Tolerations are the taint keys each namespace may tolerate.
	Tolerations ToleratedKeys
	// GardenToleration adds the MutatingAdmissionPolicy and its binding; only
	// for API servers that serve it in admissionregistration.k8s.io/v1.
	GardenToleration bool
}

// AdmissionObjects returns graft's admission policies from
// charts/graft-crds/policies with the bindings and the parameter ConfigMap the
// graft-crds chart renders around them, in install order.
func AdmissionObjects(opts AdmissionOptions) ([]runtime.Object, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, "charts", "graft-crds", "policies")
	// Strictly: a misspelt field would otherwise vanish here and only fail
	// where the chart is applied.
	decoder := serializer.NewCodecFactory(applyScheme, serializer.EnableStrict).UniversalDeserializer()
	load := func(name string) (runtime.Object, error) {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		obj, _, err := decoder.Decode(data, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		return obj, nil
	}
	var out []runtime.Object
	protected, err := load(policyFiles.protectedTaint)
	if err != nil {
		return nil, err
	}
	out = append(out, protected, denyBinding(ProtectedTaintPolicy, nil))
	if opts.GardenToleration {
		toleration, err := load(policyFiles.gardenToleration)
		if err != nil {
			return nil, err
		}
		out = append(out, toleration, &admissionregistrationv1.MutatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: GardenTolerationPolicy},
			Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: GardenTolerationPolicy},
		})
	}
	assignment, err := load(policyFiles.seedAssignment)
	if err != nil {
		return nil, err
	}
	out = append(out, assignment, SeedAssignersParams(opts.Namespace, opts.Assigners),
		denyBinding(SeedAssignmentPolicy, paramsIn(opts.Namespace, SeedAssignersConfigMap)))
	tenancy, err := load(policyFiles.shootTenancy)
	if err != nil {
		return nil, err
	}
	out = append(out, tenancy, ShootTolerationsParams(opts.Namespace, opts.Tolerations),
		denyBinding(ShootTenancyPolicy, paramsIn(opts.Namespace, ShootTolerationsConfigMap)))
	profile, err := load(policyFiles.shootCloudProfile)
	if err != nil {
		return nil, err
	}
	allow := admissionregistrationv1.AllowAction
	out = append(out, profile, denyBinding(ShootCloudProfilePolicy,
		&admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{}, ParameterNotFoundAction: &allow}))
	pinned, err := load(policyFiles.shootPinnedZones)
	if err != nil {
		return nil, err
	}
	out = append(out, pinned, denyBinding(ShootPinnedZonesPolicy,
		&admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{}, ParameterNotFoundAction: &allow}))
	return out, nil
}

// denyBinding binds the validating policy of that name with action Deny and
// the parameters params refers to (nil for none).
func denyBinding(policy string, params *admissionregistrationv1.ParamRef) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: policy},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policy,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			ParamRef:          params,
		},
	}
}

// paramsIn refers to the parameter ConfigMap of that name in namespace: a
// policy without its parameters denies.
func paramsIn(namespace, configMap string) *admissionregistrationv1.ParamRef {
	deny := admissionregistrationv1.DenyAction
	return &admissionregistrationv1.ParamRef{Name: configMap, Namespace: namespace, ParameterNotFoundAction: &deny}
}

// SeedAssignersParams is the parameter ConfigMap of SeedAssignmentPolicy: one
// user name, and one group, per line.
func SeedAssignersParams(namespace string, a SeedAssigners) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: SeedAssignersConfigMap, Namespace: namespace},
		Data: map[string]string{
			"users":  strings.Join(a.UserNames(), "\n"),
			"groups": strings.Join(a.Groups, "\n"),
		},
	}
}

// MutatingAdmissionPolicyServed reports whether the API server serves
// MutatingAdmissionPolicy in admissionregistration.k8s.io/v1 (by default from
// Kubernetes 1.36 on).
func MutatingAdmissionPolicyServed(dc discovery.DiscoveryInterface) (bool, error) {
	list, err := dc.ServerResourcesForGroupVersion(admissionregistrationv1.SchemeGroupVersion.String())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("discovering %s: %w", admissionregistrationv1.SchemeGroupVersion, err)
	}
	for _, r := range list.APIResources {
		if r.Name == "mutatingadmissionpolicies" {
			return true, nil
		}
	}
	return false, nil
}

// InstallAdmissionPolicies creates or updates graft's admission policies, as
// the graft-crds chart installs them, with TestSeedAssigners (and cfg's
// identity as an operator, AddOperator) and the parameter
// ConfigMap in ComponentNamespace. The MutatingAdmissionPolicy is left out
// when the API server does not serve it. The API server enforces a policy a
// moment after it is written: callers that need it enforced must probe.
func InstallAdmissionPolicies(ctx context.Context, cfg *rest.Config) error {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	served, err := MutatingAdmissionPolicyServed(kube.Discovery())
	if err != nil {
		return err
	}
	assigners, err := TestSeedAssigners()
	if err != nil {
		return err
	}
	tolerations, err := ChartToleratedKeys()
	if err != nil {
		return err
	}
	if err := AddOperator(ctx, cfg, &assigners, &tolerations); err != nil {
		return err
	}
	objs, err := AdmissionObjects(AdmissionOptions{Namespace: ComponentNamespace, Assigners: assigners, Tolerations: tolerations, GardenToleration: served})
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ComponentNamespace}}
	if _, err := kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", ns.Name, err)
	}
	ar := kube.AdmissionregistrationV1()
	for _, obj := range objs {
		switch o := obj.(type) {
		case *admissionregistrationv1.ValidatingAdmissionPolicy:
			err = createOrUpdate(ctx, ar.ValidatingAdmissionPolicies(), o)
		case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
			err = createOrUpdate(ctx, ar.ValidatingAdmissionPolicyBindings(), o)
		case *admissionregistrationv1.MutatingAdmissionPolicy:
			err = createOrUpdate(ctx, ar.MutatingAdmissionPolicies(), o)
		case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
			err = createOrUpdate(ctx, ar.MutatingAdmissionPolicyBindings(), o)
		case *corev1.ConfigMap:
			err = createOrUpdate(ctx, kube.CoreV1().ConfigMaps(o.Namespace), o)
		default:
			err = fmt.Errorf("cannot install a %T", obj)
		}
		if err != nil {
			return err
		}
	}
	return waitShootsAdmitted(ctx, cfg)
}

// waitShootsAdmitted returns once the API server admits a new garden shoot,
// probed with a server-side dry run. Right after the CRDs are established the
// admission policies cannot yet resolve the Shoot kind ("Resource kind ...
// not found") and refuse every shoot they match for a moment; a caller that
// creates shoots straight away would see that refusal.
func waitShootsAdmitted(ctx context.Context, cfg *rest.Config) error {
	graft, err := graftclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	probe := &corev1alpha1.Shoot{
		ObjectMeta: metav1.ObjectMeta{Namespace: corev1alpha1.GardenNamespace, Name: "graft-admission-probe"},
		Spec: corev1alpha1.ShootSpec{
			CloudProfileName: ptr.To("probe"),
			Region:           "probe",
			Provider:         corev1alpha1.Provider{Type: "probe", Workers: []corev1alpha1.Worker{{Name: "probe", Zones: []string{"a"}}}},
		},
	}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, last = graft.CoreV1alpha1().Shoots(probe.Namespace).Create(ctx, probe.DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("the API server does not admit a new shoot in %s yet: %v (%w)", probe.Namespace, last, err)
	}
	return nil
}

// createOrUpdate creates obj, or replaces the existing object of its name
// with it, preconditioned on the resourceVersion read.
func createOrUpdate[T interface {
	metav1.Object
	runtime.Object
}](ctx context.Context, c interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Get(context.Context, string, metav1.GetOptions) (T, error)
	Update(context.Context, T, metav1.UpdateOptions) (T, error)
}, obj T) error {
	what := fmt.Sprintf("%T %s", obj, obj.GetName())
	_, err := c.Create(ctx, obj, metav1.CreateOptions{})
	if err == nil {
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating %s: %w", what, err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := c.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		obj.SetResourceVersion(cur.GetResourceVersion())
		_, err = c.Update(ctx, obj, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("updating %s: %w", what, err)
	}
	return nil
}
