//go:build integration

package admission

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"
	"github.com/graft-dev/graft/pkg/coretest"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/framework"
)

// TestTenantMayNotJumpTheEvictionOrder: graft-descheduler moves
// infrastructure shoots off an over-full seed last, so a tenant may not give
// its shoot that purpose (Gardener keeps it for namespace garden); a shoot
// already infrastructure stays changeable. graft.dev/evict, the other
// exemption, is a control annotation (TestTenantMayNotWriteControlAnnotations).
func TestTenantMayNotJumpTheEvictionOrder(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace(t, "tenant-purpose")
	tenant := tenantClient(t, ns)
	waitEnforced(t, controlplane.ShootTenancyPolicy, func(ctx context.Context) error {
		_, err := create(ctx, tenant, unscheduledShoot(ns, "probe").Purpose(v1alpha1.ShootPurposeInfrastructure).Obj(), true)
		return err
	})
	_, err := create(ctx, tenant, unscheduledShoot(ns, "infra").Purpose(v1alpha1.ShootPurposeInfrastructure).Obj(), false)
	expectRefused(t, "tenant creates an infrastructure shoot", err, controlplane.ShootTenancyPolicy,
		"shoot "+ns+"/infra may not have purpose infrastructure", "in namespace garden")
	_, err = create(ctx, tenant, unscheduledShoot(ns, "web").Purpose(v1alpha1.ShootPurposeProduction).Obj(), false)
	expectAllowed(t, "tenant creates a production shoot", err)
	_, err = mergePatch(ctx, tenant, ns, "web", `{"spec":{"purpose":"infrastructure"}}`)
	expectRefused(t, "tenant turns its shoot into infrastructure", err, controlplane.ShootTenancyPolicy, "may not have purpose infrastructure")
	_, err = create(ctx, admin(t), unscheduledShoot(ns, "operators").Purpose(v1alpha1.ShootPurposeInfrastructure).Obj(), true)
	expectRefused(t, "an operator creates an infrastructure shoot outside garden", err, controlplane.ShootTenancyPolicy, "may not have purpose infrastructure")

	garden := tenantClient(t, v1alpha1.GardenNamespace)
	_, err = create(ctx, garden, unscheduledShoot(v1alpha1.GardenNamespace, "infra").Purpose(v1alpha1.ShootPurposeInfrastructure).Obj(), true)
	expectAllowed(t, "an infrastructure shoot in namespace garden", err)
}

// TestTenantToleratesOnlyItsKeys: by the chart's defaults a tenant may
// tolerate any taint but graft's system taints (cordoned and drained seeds,
// failing seeds), which only namespace garden may; a namespace given its own
// entry may tolerate only the keys listed there. Tolerations a shoot already
// has stay, and operators may add any.
func TestTenantToleratesOnlyItsKeys(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace(t, "tenant-tolerations")
	tenant := tenantClient(t, ns)
	waitEnforced(t, controlplane.ShootTenancyPolicy, func(ctx context.Context) error {
		_, err := create(ctx, tenant, unscheduledShoot(ns, "probe").Tolerate(v1alpha1.SeedTaintUnschedulable, nil, "", nil).Obj(), true)
		return err
	})
	for _, key := range []string{v1alpha1.SeedTaintUnschedulable, v1alpha1.SeedTaintNotReady} {
		_, err := create(ctx, tenant, unscheduledShoot(ns, "stay").Tolerate("team.example.com/dedicated", nil, "", nil).Tolerate(key, nil, "", nil).Obj(), false)
		expectRefused(t, "tenant tolerates "+key, err, controlplane.ShootTenancyPolicy,
			"shoot "+ns+"/stay may not tolerate "+key+": namespace "+ns+" may tolerate [*]",
			controlplane.ComponentNamespace+"/"+controlplane.ShootTolerationsConfigMap+" key default")
	}
	_, err := create(ctx, tenant, unscheduledShoot(ns, "web").Tolerate("team.example.com/dedicated", nil, "", nil).Obj(), false)
	expectAllowed(t, "tenant tolerates its own taint", err)
	_, err = mergePatch(ctx, tenant, ns, "web", `{"spec":{"tolerations":[{"key":"team.example.com/dedicated"},{"key":"`+v1alpha1.SeedTaintUnschedulable+`","effect":"NoExecute"}]}}`)
	expectRefused(t, "tenant adds a toleration of drains to its shoot", err, controlplane.ShootTenancyPolicy, "may not tolerate "+v1alpha1.SeedTaintUnschedulable)

	// Operators may; the tenant may then change the shoot, keeping it.
	_, err = create(ctx, admin(t), unscheduledShoot(ns, "platform").Tolerate(v1alpha1.SeedTaintUnschedulable, nil, "", nil).Obj(), false)
	expectAllowed(t, "an operator creates a shoot tolerating drains in a tenant namespace", err)
	_, err = mergePatch(ctx, tenant, ns, "platform", `{"metadata":{"labels":{"team":"platform"}}}`)
	expectAllowed(t, "tenant changes a shoot keeping its toleration", err)

	garden := tenantClient(t, v1alpha1.GardenNamespace)
	_, err = create(ctx, garden, unscheduledShoot(v1alpha1.GardenNamespace, "stay").Tolerate(v1alpha1.SeedTaintUnschedulable, nil, "", nil).Tolerate(v1alpha1.SeedTaintNotReady, nil, "", nil).Obj(), true)
	expectAllowed(t, "a garden shoot tolerates the system taints", err)

	// A namespace of its own entry: only the keys listed.
	strict := newNamespace(t, "tenant-strict")
	strictTenant := tenantClient(t, strict)
	setToleratedKeys(t, strict, "team.example.com/dedicated")
	waitEnforced(t, controlplane.ShootTenancyPolicy, func(ctx context.Context) error {
		_, err := create(ctx, strictTenant, unscheduledShoot(strict, "probe").Tolerate("other.example.com/gpu", nil, "", nil).Obj(), true)
		return err
	})
	_, err = create(ctx, strictTenant, unscheduledShoot(strict, "gpu").Tolerate("other.example.com/gpu", nil, "", nil).Obj(), false)
	expectRefused(t, "a restricted tenant tolerates an unlisted key", err, controlplane.ShootTenancyPolicy,
		"may not tolerate other.example.com/gpu: namespace "+strict+" may tolerate [team.example.com/dedicated]", "key namespace."+strict)
	_, err = create(ctx, strictTenant, unscheduledShoot(strict, "dedicated").Tolerate("team.example.com/dedicated", nil, "", nil).Obj(), false)
	expectAllowed(t, "a restricted tenant tolerates its listed key", err)
}

// setToleratedKeys gives the namespace its own entry in the parameter
// ConfigMap for the test's duration.
func setToleratedKeys(t *testing.T, namespace string, keys ...string) {
	t.Helper()
	cms := framework.Shared(t).KubeClient().CoreV1().ConfigMaps(controlplane.ComponentNamespace)
	patch := func(value string) error {
		_, err := cms.Patch(context.Background(), controlplane.ShootTolerationsConfigMap, types.MergePatchType,
			[]byte(`{"data":{"namespace.`+namespace+`":`+value+`}}`), metav1.PatchOptions{})
		return err
	}
	if err := patch(`"` + strings.Join(keys, `\n`) + `"`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := patch("null"); err != nil {
			t.Error(err)
		}
	})
}

// TestTenantMayNotBorrowACloudProfile: a shoot's provider type must be its
// cloud profile's, so that a tenant cannot take another provider's profile
// and with it that profile's seed selector.
func TestTenantMayNotBorrowACloudProfile(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace(t, "tenant-profile")
	tenant := tenantClient(t, ns)
	profiles := admin(t).CoreV1alpha1().CloudProfiles()
	cp := &v1alpha1.CloudProfile{ObjectMeta: metav1.ObjectMeta{Name: "tenancy-aws"}, Spec: v1alpha1.CloudProfileSpec{Type: "aws"}}
	if _, err := profiles.Create(ctx, cp, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = profiles.Delete(context.Background(), cp.Name, metav1.DeleteOptions{}) })
	gcpOnAWS := func(name string) *v1alpha1.Shoot {
		return unscheduledShoot(ns, name).CloudProfileName(cp.Name).Provider("gcp", "nowhere").Obj()
	}
	waitEnforced(t, controlplane.ShootCloudProfilePolicy, func(ctx context.Context) error {
		_, err := create(ctx, tenant, gcpOnAWS("probe"), true)
		return err
	})
	_, err := create(ctx, tenant, gcpOnAWS("borrow"), false)
	expectRefused(t, "a gcp shoot names an aws cloud profile", err, controlplane.ShootCloudProfilePolicy,
		"shoot "+ns+"/borrow has provider type gcp, but its CloudProfile tenancy-aws is of type aws")
	byRef := unscheduledShoot(ns, "by-ref").CloudProfileRef("CloudProfile", cp.Name).Provider("gcp", "nowhere").Obj()
	_, err = create(ctx, tenant, byRef, false)
	expectRefused(t, "a gcp shoot references an aws cloud profile", err, controlplane.ShootCloudProfilePolicy, "is of type aws")

	_, err = create(ctx, tenant, unscheduledShoot(ns, "own").CloudProfileName(cp.Name).Provider("aws", "nowhere").Obj(), false)
	expectAllowed(t, "an aws shoot names the aws cloud profile", err)
	_, err = mergePatch(ctx, tenant, ns, "own", `{"spec":{"provider":{"type":"gcp"}}}`)
	expectRefused(t, "tenant changes the provider type away from its profile's", err, controlplane.ShootCloudProfilePolicy, "is of type aws")
}

// TestZonePinningNeedsTheProfilesConsent: a tenant pins its control plane
// to a zone only where its cloud profile allows zone pinning, as in Gardener:
// elsewhere zone names need not mean the same zone to every tenant.
func TestZonePinningNeedsTheProfilesConsent(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace(t, "tenant-pinning")
	tenant := tenantClient(t, ns)
	profiles := admin(t).CoreV1alpha1().CloudProfiles()
	for _, cp := range []*v1alpha1.CloudProfile{
		coretest.MakeCloudProfile("pinning-refused").Obj(),
		coretest.MakeCloudProfile("pinning-allowed").AllowZonePinning().Obj(),
	} {
		if _, err := profiles.Create(ctx, cp, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = profiles.Delete(context.Background(), cp.Name, metav1.DeleteOptions{}) })
	}
	pinned := func(name, profile string) *v1alpha1.Shoot {
		return unscheduledShoot(ns, name).CloudProfileName(profile).Provider("aws", "nowhere").PinZones("nowhere-a").Obj()
	}
	waitEnforced(t, controlplane.ShootCloudProfilePolicy, func(ctx context.Context) error {
		_, err := create(ctx, tenant, pinned("probe", "pinning-refused"), true)
		return err
	})
	_, err := create(ctx, tenant, pinned("pinned", "pinning-refused"), false)
	expectRefused(t, "a shoot pins its control plane where the profile does not allow it", err, controlplane.ShootCloudProfilePolicy,
		"spec.controlPlane.zones of shoot "+ns+"/pinned can only be set when the CloudProfile pinning-refused has spec.controlPlane.allowZonePinning set to true")
	_, err = create(ctx, tenant, pinned("pinned", "pinning-allowed"), false)
	expectAllowed(t, "a shoot pins its control plane where the profile allows it", err)
	_, err = create(ctx, tenant, unscheduledShoot(ns, "unpinned").CloudProfileName("pinning-refused").Provider("aws", "nowhere").Obj(), false)
	expectAllowed(t, "a shoot of a profile without zone pinning that pins nothing", err)
}

// TestTenantInputsAreBounded: the Shoot CRD refuses strings and lists beyond
// sane sizes (a region is quoted in every seed's rejection), and a networking
// field holds one CIDR.
func TestTenantInputsAreBounded(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace(t, "tenant-sizes")
	tenant := tenantClient(t, ns)
	invalid := func(what string, err error, parts ...string) {
		t.Helper()
		if !apierrors.IsInvalid(err) && !apierrors.IsRequestEntityTooLargeError(err) {
			t.Errorf("%s: %v, want the API server to refuse it as invalid", what, err)
			return
		}
		for _, p := range parts {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("%s: %v does not say %q", what, err, p)
			}
		}
	}
	_, err := create(ctx, tenant, unscheduledShoot(ns, "region").Region(strings.Repeat("r", 128)).Obj(), true)
	expectAllowed(t, "a region of 128 bytes", err)
	_, err = create(ctx, tenant, unscheduledShoot(ns, "region").Region(strings.Repeat("r", 129)).Obj(), true)
	invalid("a region of 129 bytes", err, "spec.region", "Too long")
	_, err = create(ctx, tenant, unscheduledShoot(ns, "region").Region(strings.Repeat("r", 1<<20)).Obj(), true)
	invalid("a region of a MiB", err)

	_, err = create(ctx, tenant, unscheduledShoot(ns, "cidrs").Networks("", "100.96.0.0/11,100.128.0.0/11", "").Obj(), true)
	invalid("two CIDRs in one networking field", err, "spec.networking.pods", "must be one CIDR")
	_, err = create(ctx, tenant, unscheduledShoot(ns, "cidrs").Networks("10.250.0.0/16", "100.96.0.0/11", "fd00::/108").Obj(), true)
	expectAllowed(t, "one CIDR per networking field", err)

	_, err = create(ctx, tenant, unscheduledShoot(ns, "tolerations").With(func(s *v1alpha1.Shoot) {
		for range 65 {
			s.Spec.Tolerations = append(s.Spec.Tolerations, v1alpha1.Toleration{Key: "team.example.com/dedicated"})
		}
	}).Obj(), true)
	invalid("65 tolerations", err, "spec.tolerations", "Too many")

	// A seed selector is matched against every seed in every decision.
	requirements := func(n, values int) []metav1.LabelSelectorRequirement {
		out := make([]metav1.LabelSelectorRequirement, n)
		for i := range out {
			out[i] = metav1.LabelSelectorRequirement{Key: fmt.Sprintf("k%05d", i), Operator: metav1.LabelSelectorOpDoesNotExist}
			if values > 0 {
				out[i].Operator = metav1.LabelSelectorOpNotIn
				for j := range values {
					out[i].Values = append(out[i].Values, fmt.Sprintf("v%d", j))
				}
			}
		}
		return out
	}
	labels := func(n int) map[string]string {
		out := map[string]string{}
		for i := range n {
			out[fmt.Sprintf("k%05d", i)] = "v"
		}
		return out
	}
	selector := func(name string, sel metav1.LabelSelector) error {
		_, err := create(ctx, tenant, unscheduledShoot(ns, name).SeedSelector(&v1alpha1.SeedSelector{LabelSelector: sel}).Obj(), true)
		return err
	}
	expectAllowed(t, "a seed selector at its bounds", selector("selector", metav1.LabelSelector{MatchLabels: labels(32), MatchExpressions: requirements(32, 64)}))
	invalid("33 matchExpressions", selector("selector", metav1.LabelSelector{MatchExpressions: requirements(33, 0)}), "spec.seedSelector", "at most 32 requirements")
	invalid("30,000 DoesNotExist requirements", selector("selector", metav1.LabelSelector{MatchExpressions: requirements(30000, 0)}), "spec.seedSelector")
	invalid("65 values", selector("selector", metav1.LabelSelector{MatchExpressions: requirements(1, 65)}), "spec.seedSelector", "at most 64 values")
	invalid("33 matchLabels", selector("selector", metav1.LabelSelector{MatchLabels: labels(33)}), "spec.seedSelector", "at most 32 labels")

	_, err = create(ctx, tenant, unscheduledShoot(ns, "status").Obj(), false)
	expectAllowed(t, "tenant creates a shoot", err)
	many := `"` + strings.Repeat(`10.1.0.0/30","`, 8) + `10.1.0.4/30"`
	_, err = mergePatch(ctx, tenant, ns, "status", `{"status":{"networking":{"nodes":[`+many+`]}}}`, "status")
	invalid("nine node CIDRs in status.networking", err, "status.networking.nodes", "Too many")
}

// TestResourceQuotaBoundsATenantsShoots: the object-count quota docs/tenants.md
// recommends refuses a tenant's shoot beyond it. No quota controller runs
// here, so the test gives the quota the status that controller would; the
// API server's ResourceQuota admission counts from there. That admission
// reads quotas from an informer: the test first waits until it refuses a
// shoot against a full quota, then frees the quota, repeating a create the
// admission refuses on the full quota it may still hold.
func TestResourceQuotaBoundsATenantsShoots(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace(t, "tenant-quota")
	tenant := tenantClient(t, ns)
	quotas := framework.Shared(t).KubeClient().CoreV1().ResourceQuotas(ns)
	const shoots = corev1.ResourceName("count/shoots.core.graft.dev")
	q, err := quotas.Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "shoots"},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{shoots: resource.MustParse("2")}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	setUsed := func(used string) {
		t.Helper()
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			q, err := quotas.Get(ctx, q.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			q.Status = corev1.ResourceQuotaStatus{Hard: q.Spec.Hard, Used: corev1.ResourceList{shoots: resource.MustParse(used)}}
			_, err = quotas.UpdateStatus(ctx, q, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	exceeded := func(err error) bool {
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "exceeded quota")
	}
	setUsed("2")
	framework.WaitFor(t, "the quota admission to count the full quota", time.Minute, func(ctx context.Context) (bool, error) {
		_, err := create(ctx, tenant, unscheduledShoot(ns, "probe").Obj(), true)
		return exceeded(err), err
	})
	setUsed("0")
	for _, name := range []string{"one", "two"} {
		framework.WaitFor(t, "shoot "+name+" within the quota", time.Minute, func(ctx context.Context) (bool, error) {
			_, err := create(ctx, tenant, unscheduledShoot(ns, name).Obj(), false)
			if exceeded(err) {
				return false, err
			}
			expectAllowed(t, "shoot "+name+" within the quota", err)
			return true, nil
		})
	}
	_, err = create(ctx, tenant, unscheduledShoot(ns, "three").Obj(), false)
	if !exceeded(err) {
		t.Fatalf("third shoot with a quota of two: %v, want exceeded quota", err)
	}
}

// TestPinnedZonesMustBeOnTheNamedSeed: an operator who creates a pinned
// shoot on a seed, or pins the zones of a shoot on a seed, must name a seed
// with every pinned zone, as Gardener's admission requires; binding the
// pinned shoot later is not checked again (graft's scheduler, descheduler and
// drain choose only seeds with the zones).
func TestPinnedZonesMustBeOnTheNamedSeed(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace(t, "pinned-zones")
	seeds := admin(t).CoreV1alpha1().Seeds()
	for _, s := range []*v1alpha1.Seed{
		coretest.MakeSeed("pinning-ab").Zones("nowhere-a", "nowhere-b").Obj(),
		coretest.MakeSeed("pinning-a").Zones("nowhere-a").Obj(),
	} {
		if _, err := seeds.Create(ctx, s, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = seeds.Delete(context.Background(), s.Name, metav1.DeleteOptions{}) })
	}
	profiles := admin(t).CoreV1alpha1().CloudProfiles()
	if _, err := profiles.Create(ctx, coretest.MakeCloudProfile("pinning-zones").AllowZonePinning().Obj(), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = profiles.Delete(context.Background(), "pinning-zones", metav1.DeleteOptions{}) })
	operator := impersonating(t, "jane", "system:masters")
	pinnedOn := func(name, seed string) *v1alpha1.Shoot {
		return unscheduledShoot(ns, name).CloudProfileName("pinning-zones").Provider("aws", "nowhere").PinZones("nowhere-b").Seed(seed).Obj()
	}
	waitEnforced(t, controlplane.ShootPinnedZonesPolicy, func(ctx context.Context) error {
		_, err := create(ctx, operator, pinnedOn("probe", "pinning-a"), true)
		return err
	})
	_, err := create(ctx, operator, pinnedOn("wrong", "pinning-a"), false)
	expectRefused(t, "a shoot pinned to zone nowhere-b created on a seed without it", err, controlplane.ShootPinnedZonesPolicy,
		"spec.controlPlane.zones of shoot "+ns+"/wrong: zone nowhere-b is not available in seed pinning-a")
	_, err = create(ctx, operator, pinnedOn("right", "pinning-ab"), false)
	expectAllowed(t, "a shoot pinned to zone nowhere-b created on a seed with it", err)
	// A binding does not change the zones: not checked again, as in Gardener.
	_, err = mergePatch(ctx, operator, ns, "right", `{"spec":{"seedName":"pinning-a"}}`)
	expectAllowed(t, "moving the pinned shoot (the placement components choose a seed with its zone)", err)
}
