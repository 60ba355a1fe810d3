//go:build integration

package api

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/maintenance"
	"github.com/graft-dev/graft/test/framework"
)

// TestMaintenanceWindowValidation: the CRD holds spec.maintenance.timeWindow
// to Gardener's rules, the same pkg/maintenance applies: HHMMSS+ZZZZ, and a
// window of 30 minutes to 6 hours, across midnight and time zones.
func TestMaintenanceWindowValidation(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	shoots := framework.Shared(t).GraftClient().CoreV1alpha1().Shoots("default")
	for i, tc := range []struct {
		begin, end string
		want       string // "" when valid
	}{
		{"220000+0000", "230000+0000", ""},
		{"230000+0100", "010000+0100", ""},
		{"233000-0200", "003000-0200", ""},
		{"220000+0000", "223000+0000", ""},
		{"220000+0000", "040000+0000", ""},
		{"220000+0000", "222959+0000", "the time window must last from 30m to 6h"},
		{"220000+0000", "040001+0000", "the time window must last from 30m to 6h"},
		{"220000+0000", "220000+0000", "the time window must last from 30m to 6h"},
		{"220000+0100", "230000+0000", ""}, // 21:00-23:00 UTC
		{"22:00:00", "230000+0000", "spec.maintenance.timeWindow.begin"},
		{"240000+0000", "010000+0000", "spec.maintenance.timeWindow.begin"},
	} {
		_, parseErr := maintenance.Parse(tc.begin, tc.end)
		name := fmt.Sprintf("window-%d", i)
		_, err := shoots.Create(ctx, coretest.MakeShoot("default", name).MaintenanceWindow(tc.begin, tc.end).Obj(), metav1.CreateOptions{})
		switch {
		case parseErr == nil && err != nil:
			t.Errorf("%s-%s: pkg/maintenance takes it, the CRD refuses it: %v", tc.begin, tc.end, err)
		case parseErr != nil && err == nil:
			t.Errorf("%s-%s: pkg/maintenance refuses it (%v), the CRD takes it", tc.begin, tc.end, parseErr)
		case err != nil:
			expectInvalid(t, err, tc.want)
		}
	}
}
