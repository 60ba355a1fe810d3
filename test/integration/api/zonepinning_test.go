//go:build integration

package api

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/test/framework"
)

// TestControlPlaneZonesValidation: the CRD holds spec.controlPlane.zones to
// Gardener's rules: one zone, or three with failure tolerance zone, no zone
// twice, and fixed once set, but for clearing it or growing it, keeping its
// zone, on the upgrade to failure tolerance zone.
func TestControlPlaneZonesValidation(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	shoots := framework.Shared(t).GraftClient().CoreV1alpha1().Shoots("default")
	create := func(s *coretest.ShootWrapper) (*corev1alpha1.Shoot, error) {
		return shoots.Create(ctx, s.Obj(), metav1.CreateOptions{})
	}
	zonal := corev1alpha1.FailureToleranceTypeZone

	_, err := create(coretest.MakeShoot("default", "two-zones").PinZones("a", "b"))
	expectInvalid(t, err, "spec.controlPlane.zones", "exactly 1 zone must be specified, or 3 when the failure tolerance type is zone")
	_, err = create(coretest.MakeShoot("default", "one-zonal").FailureTolerance(zonal).PinZones("a"))
	expectInvalid(t, err, "exactly 1 zone must be specified, or 3")
	_, err = create(coretest.MakeShoot("default", "twice").FailureTolerance(zonal).PinZones("a", "a", "b"))
	expectInvalid(t, err, "spec.controlPlane.zones[1]", "Duplicate value")
	_, err = create(coretest.MakeShoot("default", "four").FailureTolerance(zonal).PinZones("a", "b", "c", "d"))
	expectInvalid(t, err, "spec.controlPlane.zones", "must have at most 3 items")

	pinned, err := create(coretest.MakeShoot("default", "pinned").PinZones("a"))
	if err != nil {
		t.Fatalf("one pinned zone: %v", err)
	}
	moved := pinned.DeepCopy()
	moved.Spec.ControlPlane.Zones = []string{"b"}
	_, err = shoots.Update(ctx, moved, metav1.UpdateOptions{})
	expectInvalid(t, err, "spec.controlPlane.zones is immutable")
	dropped := coretest.WrapShoot(pinned.DeepCopy()).FailureTolerance(zonal).PinZones("b", "c", "d").Obj()
	_, err = shoots.Update(ctx, dropped, metav1.UpdateOptions{})
	expectInvalid(t, err, "spec.controlPlane.zones is immutable")
	grown := coretest.WrapShoot(pinned.DeepCopy()).FailureTolerance(zonal).PinZones("b", "a", "c").Obj()
	if pinned, err = shoots.Update(ctx, grown, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("growing the pinned zone to three on the upgrade to failure tolerance zone: %v", err)
	}
	cleared := coretest.WrapShoot(pinned.DeepCopy()).PinZones().Obj()
	if pinned, err = shoots.Update(ctx, cleared, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("clearing the pinned zones: %v", err)
	}
	again := coretest.WrapShoot(pinned.DeepCopy()).PinZones("a", "b", "c").Obj()
	_, err = shoots.Update(ctx, again, metav1.UpdateOptions{})
	expectInvalid(t, err, "spec.controlPlane.zones is immutable")
}
