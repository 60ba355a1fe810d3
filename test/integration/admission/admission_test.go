//go:build integration

package admission

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

const (
	scheduler   = "graft-scheduler"
	descheduler = "graft-descheduler"
)

// waitSeedAssignmentEnforced waits until a tenant's pre-bound shoot is refused.
func waitSeedAssignmentEnforced(t *testing.T, ns string) {
	t.Helper()
	tenant := tenantClient(t, ns)
	waitEnforced(t, controlplane.SeedAssignmentPolicy, func(ctx context.Context) error {
		_, err := create(ctx, tenant, unscheduledShoot(ns, "probe").Seed("probe").Obj(), true)
		return err
	})
}

// TestTenantMayNotChooseSeed: a tenant with every right on the shoots of its
// namespace may neither create a pre-bound shoot nor set, change or clear
// spec.seedName or status.seedName afterwards, and is told who may.
func TestTenantMayNotChooseSeed(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace(t, "tenant-choose")
	waitSeedAssignmentEnforced(t, ns)
	tenant := tenantClient(t, ns)
	user := userOf(ns, "tenant")
	whoMay := []string{
		"only graft-scheduler, graft-descheduler and operators may",
		userOf(controlplane.ComponentNamespace, scheduler), userOf(controlplane.ComponentNamespace, descheduler),
		"groups [system:masters]",
		user + " is none of them",
	}

	_, err := create(ctx, tenant, unscheduledShoot(ns, "pre-bound").Seed("protected-seed").Obj(), false)
	t.Logf("the tenant reads: %v", err)
	expectRefused(t, "tenant creates a pre-bound shoot", err, controlplane.SeedAssignmentPolicy,
		append([]string{"spec.seedName of shoot " + ns + "/pre-bound may not be set to protected-seed"}, whoMay...)...)

	_, err = create(ctx, tenant, unscheduledShoot(ns, "unbound").Obj(), false)
	expectAllowed(t, "tenant creates a shoot without seed", err)
	_, err = mergePatch(ctx, tenant, ns, "unbound", `{"spec":{"seedName":"seed-a"}}`)
	expectRefused(t, "tenant sets spec.seedName", err, controlplane.SeedAssignmentPolicy,
		append([]string{"spec.seedName of shoot " + ns + "/unbound may not be set to seed-a"}, whoMay...)...)
	_, err = mergePatch(ctx, tenant, ns, "unbound", `{"status":{"seedName":"seed-a"}}`, "status")
	expectRefused(t, "tenant sets status.seedName", err, controlplane.SeedAssignmentPolicy,
		append([]string{"status.seedName of shoot " + ns + "/unbound may not be set to seed-a"}, whoMay...)...)

	// An operator binds the shoot; the tenant may neither move nor unbind it.
	_, err = mergePatch(ctx, admin(t), ns, "unbound", `{"spec":{"seedName":"seed-a"}}`)
	expectAllowed(t, "admin sets spec.seedName", err)
	_, err = mergePatch(ctx, admin(t), ns, "unbound", `{"status":{"seedName":"seed-a"}}`, "status")
	expectAllowed(t, "admin sets status.seedName", err)
	_, err = mergePatch(ctx, tenant, ns, "unbound", `{"spec":{"seedName":"seed-b"}}`)
	expectRefused(t, "tenant changes spec.seedName", err, controlplane.SeedAssignmentPolicy, "may not be changed to seed-b")
	_, err = mergePatch(ctx, tenant, ns, "unbound", `{"spec":{"seedName":null}}`)
	expectRefused(t, "tenant clears spec.seedName", err, controlplane.SeedAssignmentPolicy, "spec.seedName of shoot "+ns+"/unbound may not be cleared")
	_, err = mergePatch(ctx, tenant, ns, "unbound", `{"status":{"seedName":"seed-b"}}`, "status")
	expectRefused(t, "tenant changes status.seedName", err, controlplane.SeedAssignmentPolicy, "status.seedName of shoot "+ns+"/unbound may not be changed to seed-b")
	_, err = mergePatch(ctx, tenant, ns, "unbound", `{"status":{"seedName":null}}`, "status")
	expectRefused(t, "tenant clears status.seedName", err, controlplane.SeedAssignmentPolicy, "may not be cleared")

	// A full update that keeps the seed, and other status fields, stay the tenant's.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := tenant.CoreV1alpha1().Shoots(ns).Get(ctx, "unbound", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Labels = map[string]string{"team": "web"}
		_, err = tenant.CoreV1alpha1().Shoots(ns).Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	expectAllowed(t, "tenant updates its bound shoot without touching the seed", err)
	_, err = mergePatch(ctx, tenant, ns, "unbound", `{"status":{"lastOperation":{"type":"Reconcile","state":"Succeeded","description":"ok","lastUpdateTime":"2026-01-01T00:00:00Z"}}}`, "status")
	expectAllowed(t, "tenant writes another status field", err)

	got, err := admin(t).CoreV1alpha1().Shoots(ns).Get(ctx, "unbound", metav1.GetOptions{})
	expectAllowed(t, "reading the shoot", err)
	if ptrValue(got.Spec.SeedName) != "seed-a" || ptrValue(got.Status.SeedName) != "seed-a" {
		t.Errorf("shoot is on spec %q, status %q; want seed-a for both", ptrValue(got.Spec.SeedName), ptrValue(got.Status.SeedName))
	}
}

func ptrValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestComponentsAndOperatorsChooseSeeds: graft-scheduler's and
// graft-descheduler's ServiceAccounts, as their charts create them, and
// members of the operator groups may set, change and clear seedName; another
// component's ServiceAccount may not.
func TestComponentsAndOperatorsChooseSeeds(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace(t, "components-choose")
	waitSeedAssignmentEnforced(t, ns)
	sched := componentClient(t, controlplane.ComponentNamespace, scheduler)
	desched := componentClient(t, controlplane.ComponentNamespace, descheduler)
	annotator := componentClient(t, controlplane.ComponentNamespace, "graft-capacity-annotator")

	_, err := create(ctx, admin(t), unscheduledShoot(ns, "web").Obj(), false)
	expectAllowed(t, "admin creates a shoot", err)
	_, err = mergePatch(ctx, annotator, ns, "web", `{"spec":{"seedName":"seed-a"}}`)
	expectRefused(t, "graft-capacity-annotator sets spec.seedName", err, controlplane.SeedAssignmentPolicy,
		userOf(controlplane.ComponentNamespace, "graft-capacity-annotator")+" is none of them")

	_, err = mergePatch(ctx, sched, ns, "web", `{"spec":{"seedName":"seed-a"}}`)
	expectAllowed(t, "graft-scheduler binds the shoot", err)
	_, err = mergePatch(ctx, admin(t), ns, "web", `{"status":{"seedName":"seed-a"}}`, "status")
	expectAllowed(t, "admin (as the seed's agent would) sets status.seedName", err)
	// The descheduler evicts with an update that clears spec.seedName.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := desched.CoreV1alpha1().Shoots(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Spec.SeedName = nil
		_, err = desched.CoreV1alpha1().Shoots(ns).Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	expectAllowed(t, "graft-descheduler clears spec.seedName", err)
	_, err = mergePatch(ctx, desched, ns, "web", `{"status":{"seedName":"seed-b"}}`, "status")
	expectAllowed(t, "graft-descheduler changes status.seedName", err)
	_, err = mergePatch(ctx, sched, ns, "web", `{"spec":{"seedName":"seed-b"}}`)
	expectAllowed(t, "graft-scheduler binds the shoot again", err)

	// Cluster admins: system:masters is in the operator groups by default.
	_, err = create(ctx, impersonating(t, "jane", "system:masters"), unscheduledShoot(ns, "infra").Seed("seed-a").Obj(), false)
	expectAllowed(t, "a member of system:masters creates a pre-bound shoot", err)
	_, err = mergePatch(ctx, impersonating(t, "jane", "system:masters"), ns, "infra", `{"spec":{"seedName":null}}`)
	expectAllowed(t, "a member of system:masters clears spec.seedName", err)
}

// TestOperatorGroupsAreParameters: adding a group to the parameter ConfigMap
// lets its members choose seeds, without touching the policy.
func TestOperatorGroupsAreParameters(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace(t, "operators-choose")
	waitSeedAssignmentEnforced(t, ns)
	kube := framework.Shared(t).KubeClient()
	const group = "graft:operators"
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "admission-test-operators"}, Rules: shootRules}
	if _, err := kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: group}},
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAuthorized(t, ns, "bob", group)
	bob := impersonating(t, "bob", group)
	_, err := create(ctx, bob, unscheduledShoot(ns, "before").Seed("seed-a").Obj(), true)
	expectRefused(t, "bob of "+group+" before the group is listed", err, controlplane.SeedAssignmentPolicy, "bob is none of them")

	params := kube.CoreV1().ConfigMaps(controlplane.ComponentNamespace)
	setGroups := func(ctx context.Context, edit func([]string) []string) {
		t.Helper()
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cm, err := params.Get(ctx, controlplane.SeedAssignersConfigMap, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cm.Data["groups"] = strings.Join(edit(strings.Split(cm.Data["groups"], "\n")), "\n")
			_, err = params.Update(ctx, cm, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	setGroups(ctx, func(g []string) []string { return append(g, group) })
	t.Cleanup(func() {
		setGroups(context.Background(), func(g []string) []string { return slices.DeleteFunc(g, func(s string) bool { return s == group }) })
	})
	// Parameters reach the API server's policy evaluation through an informer:
	// retry until bob is let through.
	framework.WaitFor(t, "bob of "+group+" to be allowed", time.Minute, func(ctx context.Context) (bool, error) {
		_, err := create(ctx, bob, unscheduledShoot(ns, "after").Seed("seed-a").Obj(), false)
		return err == nil, err
	})
}

// TestProtectedToleration: outside the garden namespace nobody, admins
// included, may add a toleration of seed.gardener.cloud/protected; in the
// garden namespace every shoot gets one (where the API server serves
// MutatingAdmissionPolicy). A tenant's request is refused by
// graft-protected-taint or by graft-shoot-tenancy (protected is one of its
// system taints), whichever the API server reports; an admin's, exempt from
// the latter, by graft-protected-taint.
func TestProtectedToleration(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace(t, "tenant-protected")
	tenant := tenantClient(t, ns)
	waitEnforced(t, controlplane.ProtectedTaintPolicy, func(ctx context.Context) error {
		_, err := create(ctx, admin(t), unscheduledShoot(ns, "probe").Tolerate(v1alpha1.SeedTaintProtected, nil, "", nil).Obj(), true)
		return err
	})
	byEither := func(what string, err error) {
		t.Helper()
		if err != nil && strings.Contains(err.Error(), "'"+controlplane.ShootTenancyPolicy+"'") {
			expectRefused(t, what, err, controlplane.ShootTenancyPolicy, "shoot "+ns+"/web may not tolerate seed.gardener.cloud/protected")
			return
		}
		expectRefused(t, what, err, controlplane.ProtectedTaintPolicy, "shoot "+ns+"/web may not tolerate seed.gardener.cloud/protected: protected seeds are only for shoots in namespace garden")
	}

	_, err := create(ctx, tenant, unscheduledShoot(ns, "web").Tolerate("dedicated", nil, "", nil).Tolerate(v1alpha1.SeedTaintProtected, nil, "", nil).Obj(), false)
	byEither("tenant creates a shoot tolerating the protected taint", err)
	_, err = create(ctx, admin(t), unscheduledShoot(ns, "web").Tolerate(v1alpha1.SeedTaintProtected, nil, "", nil).Obj(), false)
	expectRefused(t, "admin creates such a shoot outside the garden", err, controlplane.ProtectedTaintPolicy,
		"shoot "+ns+"/web may not tolerate seed.gardener.cloud/protected: protected seeds are only for shoots in namespace garden")

	_, err = create(ctx, tenant, unscheduledShoot(ns, "web").Tolerate("dedicated", nil, "", nil).Obj(), false)
	expectAllowed(t, "tenant creates a shoot with other tolerations", err)
	_, err = mergePatch(ctx, tenant, ns, "web", `{"spec":{"tolerations":[{"key":"dedicated"},{"key":"seed.gardener.cloud/protected"}]}}`)
	byEither("tenant adds the toleration later", err)
	_, err = mergePatch(ctx, tenant, ns, "web", `{"spec":{"tolerations":[{"key":"dedicated","effect":"NoExecute"}]}}`)
	expectAllowed(t, "tenant changes its other tolerations", err)

	garden := admin(t)
	_, err = create(ctx, garden, unscheduledShoot(v1alpha1.GardenNamespace, "explicit").Tolerate(v1alpha1.SeedTaintProtected, nil, "", nil).Obj(), false)
	expectAllowed(t, "a garden shoot tolerating the protected taint", err)
	t.Cleanup(func() {
		_ = garden.CoreV1alpha1().Shoots(v1alpha1.GardenNamespace).Delete(context.Background(), "explicit", metav1.DeleteOptions{})
	})
}

func TestGardenShootsGetTheProtectedToleration(t *testing.T) {
	served, err := controlplane.MutatingAdmissionPolicyServed(framework.Shared(t).KubeClient().Discovery())
	if err != nil {
		t.Fatal(err)
	}
	if !served {
		t.Skip("the API server does not serve MutatingAdmissionPolicy in admissionregistration.k8s.io/v1 (Kubernetes 1.36 or later)")
	}
	c := admin(t)
	// The mutation shows in a dry run's answer once the policy is loaded.
	tolerates := func(s *v1alpha1.Shoot) bool {
		return slices.ContainsFunc(s.Spec.Tolerations, func(tol v1alpha1.Toleration) bool {
			return tol == v1alpha1.Toleration{Key: v1alpha1.SeedTaintProtected}
		})
	}
	framework.WaitFor(t, "the garden toleration policy to be loaded", 2*time.Minute, func(ctx context.Context) (bool, error) {
		s, err := create(ctx, c, unscheduledShoot(v1alpha1.GardenNamespace, "probe").Obj(), true)
		return err == nil && tolerates(s), err
	})
	ctx := t.Context()
	for _, s := range []gardenCase{
		{name: "no-tolerations", shoot: unscheduledShoot(v1alpha1.GardenNamespace, "no-tolerations").Obj()},
		{name: "other-tolerations", shoot: unscheduledShoot(v1alpha1.GardenNamespace, "other-tolerations").Tolerate("dedicated", nil, "", nil).Obj(), keep: []string{"dedicated"}},
	} {
		got, err := create(ctx, c, s.shoot, false)
		expectAllowed(t, "creating garden shoot "+s.name, err)
		t.Cleanup(func() {
			_ = c.CoreV1alpha1().Shoots(v1alpha1.GardenNamespace).Delete(context.Background(), s.name, metav1.DeleteOptions{})
		})
		if !tolerates(got) {
			t.Errorf("garden shoot %s has tolerations %+v, want one of %s", s.name, got.Spec.Tolerations, v1alpha1.SeedTaintProtected)
		}
		for _, k := range s.keep {
			if !slices.ContainsFunc(got.Spec.Tolerations, func(tol v1alpha1.Toleration) bool { return tol.Key == k }) {
				t.Errorf("garden shoot %s lost its toleration %s: %+v", s.name, k, got.Spec.Tolerations)
			}
		}
	}
	// Not outside the garden.
	ns := newNamespace(t, "no-garden-toleration")
	got, err := create(ctx, c, unscheduledShoot(ns, "web").Obj(), false)
	expectAllowed(t, "creating a shoot outside the garden", err)
	if len(got.Spec.Tolerations) != 0 {
		t.Errorf("shoot outside the garden got tolerations %+v", got.Spec.Tolerations)
	}
}

type gardenCase struct {
	name  string
	shoot *v1alpha1.Shoot
	keep  []string
}

// TestTenantMayNotWriteControlAnnotations: graft's control annotations on a
// shoot are the components' and the operators': a tenant may neither create
// a shoot with them nor set, change or remove them. A decoy "evicted" shoot
// would count against graft-descheduler's maxPendingEvicted and halt
// evictions everywhere; graft.dev/evict: "false" would let the tenant's
// shoots skip capacity evictions so that others' go instead; a forged
// placement would restart its toleration's clock and a forged eviction
// record hold back its own eviction. The components may write them; a
// tenant's update that keeps them is allowed.
func TestTenantMayNotWriteControlAnnotations(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace(t, "tenant-control")
	waitSeedAssignmentEnforced(t, ns)
	tenant := tenantClient(t, ns)
	sched := componentClient(t, controlplane.ComponentNamespace, scheduler)
	desched := componentClient(t, controlplane.ComponentNamespace, descheduler)
	const (
		from    = v1alpha1.AnnotationDescheduledFrom
		reason  = v1alpha1.AnnotationDescheduledReason
		evict   = v1alpha1.AnnotationEvict
		placed  = v1alpha1.AnnotationPlacedOn
		evicted = v1alpha1.AnnotationEvictions
		control = "are control annotations of graft and may not be set, changed or removed"
	)
	refused := func(what string, err error, name string, keys ...string) {
		t.Helper()
		expectRefused(t, what, err, controlplane.SeedAssignmentPolicy,
			"annotations "+strings.Join(keys, ", ")+" of shoot "+ns+"/"+name+" "+control, userOf(ns, "tenant")+" is none of them")
	}

	decoy := unscheduledShoot(ns, "decoy").Obj()
	decoy.Annotations = map[string]string{from: "seed-a", reason: "NoExecuteTaints: forged"}
	decoy.Spec.SchedulerName = ptr.To("nobody")
	_, err := create(ctx, tenant, decoy, false)
	refused("tenant creates a decoy evicted shoot", err, "decoy", from, reason)
	forged := unscheduledShoot(ns, "forged").Obj()
	forged.Annotations = map[string]string{evicted: `[{"seed":"seed-a","cause":"NoExecuteTaints: k:NoExecute","at":"2999-01-01T00:00:00Z"}]`}
	_, err = create(ctx, tenant, forged, false)
	refused("tenant creates a shoot with an eviction record", err, "forged", evicted)

	_, err = create(ctx, tenant, unscheduledShoot(ns, "web").Obj(), false)
	expectAllowed(t, "tenant creates a shoot", err)
	_, err = mergePatch(ctx, tenant, ns, "web", `{"metadata":{"annotations":{"`+evict+`":"false"}}}`)
	refused("tenant exempts its shoot from capacity evictions", err, "web", evict)
	_, err = mergePatch(ctx, tenant, ns, "web", `{"metadata":{"annotations":{"`+from+`":"seed-a"}}}`)
	refused("tenant marks its shoot evicted", err, "web", from)

	_, err = mergePatch(ctx, sched, ns, "web", `{"metadata":{"annotations":{"`+placed+`":"seed-a@2026-01-01T00:00:00Z"}},"spec":{"seedName":"seed-a"}}`)
	expectAllowed(t, "graft-scheduler binds the shoot and records the placement", err)
	_, err = mergePatch(ctx, desched, ns, "web", `{"metadata":{"annotations":{"`+from+`":"seed-a","`+reason+`":"NoExecuteTaints: t","`+evicted+`":"[]"}},"spec":{"seedName":null}}`)
	expectAllowed(t, "graft-descheduler evicts the shoot and records it", err)
	_, err = mergePatch(ctx, admin(t), ns, "web", `{"metadata":{"annotations":{"`+evict+`":"false"}}}`)
	expectAllowed(t, "an operator exempts the shoot from capacity evictions", err)

	_, err = mergePatch(ctx, tenant, ns, "web", `{"metadata":{"annotations":{"`+placed+`":"seed-a@2026-06-01T00:00:00Z"}}}`)
	refused("tenant moves its placement time", err, "web", placed)
	_, err = mergePatch(ctx, tenant, ns, "web", `{"metadata":{"annotations":{"`+evicted+`":null,"`+placed+`":null}}}`)
	refused("tenant removes the records", err, "web", placed, evicted)
	_, err = mergePatch(ctx, tenant, ns, "web", `{"metadata":{"annotations":{"`+from+`":null,"`+evict+`":null}}}`)
	refused("tenant removes the eviction mark and the exemption", err, "web", from, evict)

	// An update that carries them back unchanged is the tenant's.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := tenant.CoreV1alpha1().Shoots(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Annotations["team"] = "web"
		_, err = tenant.CoreV1alpha1().Shoots(ns).Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	expectAllowed(t, "tenant updates its shoot, keeping graft's annotations", err)
}
