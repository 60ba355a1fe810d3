//go:build integration

package api

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	graftinformers "github.com/graft-dev/client-go/informers/externalversions"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/test/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// TestRoundTrip creates, reads, lists and watches every kind through the
// generated clientset and informers, and writes status through the status
// subresource.
func TestRoundTrip(t *testing.T) {
	env := framework.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := env.GraftClient()

	factory := graftinformers.NewSharedInformerFactory(client, 0)
	seedEvents := make(chan string, 10)
	_, err := factory.Core().V1alpha1().Seeds().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { seedEvents <- "add " + obj.(*corev1alpha1.Seed).Name },
		UpdateFunc: func(_, obj any) {
			s := obj.(*corev1alpha1.Seed)
			if s.Status.LastOperation != nil {
				seedEvents <- "status " + s.Name
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	watcher, err := client.CoreV1alpha1().Shoots("garden").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watching shoots: %v", err)
	}
	defer watcher.Stop()

	cp := &corev1alpha1.CloudProfile{
		ObjectMeta: metav1.ObjectMeta{Name: "aws-roundtrip"},
		Spec: corev1alpha1.CloudProfileSpec{
			Type:         "aws",
			Regions:      []corev1alpha1.Region{{Name: "eu-west-1", Zones: []corev1alpha1.AvailabilityZone{{Name: "a"}}}},
			SeedSelector: &corev1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": "test"}}, ProviderTypes: []string{"*"}},
		},
	}
	if _, err := client.CoreV1alpha1().CloudProfiles().Create(ctx, cp, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating cloud profile: %v", err)
	}
	gotCP, err := client.CoreV1alpha1().CloudProfiles().Get(ctx, cp.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting cloud profile: %v", err)
	}
	if gotCP.Spec.SeedSelector == nil || gotCP.Spec.SeedSelector.MatchLabels["env"] != "test" || gotCP.Spec.SeedSelector.ProviderTypes[0] != "*" || gotCP.Spec.Regions[0].Zones[0].Name != "a" {
		t.Errorf("cloud profile did not round-trip: %+v", gotCP.Spec)
	}

	seed, err := client.CoreV1alpha1().Seeds().Create(ctx, coretest.MakeSeed("roundtrip").Label("env", "test").
		Taint(corev1alpha1.SeedTaintProtected, nil, "").Taint("dedicated", ptr.To("x"), corev1alpha1.TaintEffectNoExecute).Obj(), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating seed: %v", err)
	}
	if len(seed.Spec.Taints) != 2 || seed.Spec.Taints[1].Effect != corev1alpha1.TaintEffectNoExecute || *seed.Spec.Taints[1].Value != "x" {
		t.Errorf("seed taints did not round-trip: %+v", seed.Spec.Taints)
	}
	received(t, seedEvents, "add roundtrip")

	// Status goes through the status subresource; a plain update ignores it.
	seed.Status.LastOperation = &corev1alpha1.LastOperation{Type: corev1alpha1.LastOperationTypeReconcile, State: corev1alpha1.LastOperationStateSucceeded, Description: "ok", Progress: 100, LastUpdateTime: metav1.Now()}
	seed.Status.Conditions = []corev1alpha1.Condition{{Type: corev1alpha1.SeedGardenletReady, Status: corev1alpha1.ConditionTrue, LastTransitionTime: metav1.Now(), LastUpdateTime: metav1.Now(), Reason: "Ready", Message: "ready"}}
	seed.Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("10")}
	seed.Status.Usage = corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("3")}
	updated, err := client.CoreV1alpha1().Seeds().Update(ctx, seed.DeepCopy(), metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("updating seed: %v", err)
	}
	if updated.Status.LastOperation != nil {
		t.Errorf("a plain update wrote status: %+v", updated.Status)
	}
	seed.ResourceVersion = updated.ResourceVersion
	withStatus, err := client.CoreV1alpha1().Seeds().UpdateStatus(ctx, seed, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("updating seed status: %v", err)
	}
	if withStatus.Status.LastOperation == nil || withStatus.Status.Allocatable.Name(corev1alpha1.ResourceShoots, resource.DecimalSI).Value() != 10 {
		t.Errorf("status did not round-trip: %+v", withStatus.Status)
	}
	received(t, seedEvents, "status roundtrip")
	lister := factory.Core().V1alpha1().Seeds().Lister()
	framework.WaitFor(t, "the informer's lister to see the status", 30*time.Second, func(context.Context) (bool, error) {
		s, err := lister.Get("roundtrip")
		return err == nil && s.Status.Usage.Name(corev1alpha1.ResourceShoots, resource.DecimalSI).Value() == 3, err
	})

	shoot, err := client.CoreV1alpha1().Shoots("garden").Create(ctx, coretest.MakeShoot("garden", "roundtrip").CloudProfileName("aws").Workers([]string{"a"}).
		Purpose(corev1alpha1.ShootPurposeProduction).Tolerate("dedicated", ptr.To("x"), corev1alpha1.TaintEffectNoExecute, ptr.To[int64](30)).Obj(), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating shoot: %v", err)
	}
	select {
	case ev := <-watcher.ResultChan():
		if ev.Type != watch.Added || ev.Object.(*corev1alpha1.Shoot).Name != "roundtrip" {
			t.Errorf("unexpected watch event %s %T", ev.Type, ev.Object)
		}
	case <-ctx.Done():
		t.Fatal("no watch event for the new shoot")
	}
	if *shoot.Spec.Tolerations[0].TolerationSeconds != 30 || *shoot.Spec.Purpose != corev1alpha1.ShootPurposeProduction {
		t.Errorf("shoot did not round-trip: %+v", shoot.Spec)
	}
	shoot.Spec.SeedName = ptr.To("roundtrip")
	if shoot, err = client.CoreV1alpha1().Shoots("garden").Update(ctx, shoot, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("binding shoot: %v", err)
	}
	shoot.Status.SeedName = ptr.To("roundtrip")
	shoot.Status.LastOperation = &corev1alpha1.LastOperation{Type: corev1alpha1.LastOperationTypeCreate, State: corev1alpha1.LastOperationStatePending, Description: "waiting"}
	if _, err := client.CoreV1alpha1().Shoots("garden").UpdateStatus(ctx, shoot, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("updating shoot status: %v", err)
	}
	list, err := client.CoreV1alpha1().Shoots("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing shoots: %v", err)
	}
	if len(list.Items) != 1 || *list.Items[0].Status.SeedName != "roundtrip" || list.Items[0].Status.LastOperation.State != corev1alpha1.LastOperationStatePending {
		t.Errorf("listed shoots: %+v", list.Items)
	}
	// A stale resourceVersion loses: optimistic concurrency holds.
	stale := list.Items[0].DeepCopy()
	stale.ResourceVersion = shoot.ResourceVersion
	stale.Spec.SeedName = ptr.To("other")
	if _, err := client.CoreV1alpha1().Shoots("garden").Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("updating with a stale resourceVersion: got %v, want a conflict", err)
	}
}

// TestValidation shows that the CRDs' schemas reject bad objects with errors a
// user can act on.
func TestValidation(t *testing.T) {
	env := framework.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := env.GraftClient()

	badEffect := coretest.MakeSeed("bad-effect").Taint("k", nil, "Sometimes").Obj()
	_, err := client.CoreV1alpha1().Seeds().Create(ctx, badEffect, metav1.CreateOptions{})
	expectInvalid(t, err, `spec.taints[0].effect: Unsupported value: "Sometimes"`, `"NoSchedule", "PreferNoSchedule", "NoExecute"`)

	badPurpose := coretest.MakeShoot("default", "bad-purpose").Purpose("fun").Obj()
	_, err = client.CoreV1alpha1().Shoots("default").Create(ctx, badPurpose, metav1.CreateOptions{})
	expectInvalid(t, err, `spec.purpose: Unsupported value: "fun"`, `"evaluation", "testing", "development", "production", "infrastructure"`)

	noRegion := coretest.MakeShoot("default", "no-region").Region("").Obj()
	_, err = client.CoreV1alpha1().Shoots("default").Create(ctx, noRegion, metav1.CreateOptions{})
	expectInvalid(t, err, "spec.region", "at least 1 chars long")

	// A field left out entirely: the seed's provider type.
	raw := map[string]any{
		"apiVersion": "core.graft.dev/v1alpha1", "kind": "Seed",
		"metadata": map[string]any{"name": "no-provider-type"},
		"spec": map[string]any{
			"provider": map[string]any{"region": "eu-west-1"},
			"networks": map[string]any{"pods": "10.0.0.0/16", "services": "10.1.0.0/16"},
		},
	}
	body, _ := json.Marshal(raw)
	err = client.CoreV1alpha1().RESTClient().Post().Resource("seeds").Body(body).SetHeader("Content-Type", "application/json").Do(ctx).Error()
	expectInvalid(t, err, "spec.provider.type: Required value")
}

func expectInvalid(t *testing.T, err error, wants ...string) {
	t.Helper()
	if !apierrors.IsInvalid(err) {
		t.Fatalf("got %v, want an Invalid error", err)
	}
	for _, want := range wants {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err.Error(), want)
		}
	}
}

// received waits for the informer to deliver want on ch.
func received(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	framework.WaitFor(t, "the informer to deliver "+want, 30*time.Second, func(context.Context) (bool, error) {
		for {
			select {
			case got := <-ch:
				if got == want {
					return true, nil
				}
			default:
				return false, nil
			}
		}
	})
}
