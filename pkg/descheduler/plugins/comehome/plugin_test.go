package comehome

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func TestEvaluate(t *testing.T) {
	p, errs := framework.NewFactory(Default, Validate, New)(nil, field.NewPath("args"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	away := coretest.MakeShoot("ns", "away").Obj()
	awayLater := coretest.MakeShoot("ns", "away-later").MaintenanceWindow("130000+0000", "140000+0000").Obj()
	home := coretest.MakeShoot("ns", "home").Provider("aws", "us-east-1").Obj()
	protected := coretest.MakeShoot("ns", "protected").Annotation(v1alpha1.AnnotationEvict, "false").Obj()
	st := &framework.SeedState{Seed: coretest.MakeSeed("far").Provider("aws", "us-east-1").Obj(), Now: t0,
		Shoots: []*v1alpha1.Shoot{away, awayLater, home, protected}}
	if p.(framework.SeedFilter).ActsOn(st) {
		t.Error("acts on a seed that counts no shoot of another region")
	}
	st.Away = 3
	if !p.(framework.SeedFilter).ActsOn(st) {
		t.Error("does not act on a seed with shoots of another region")
	}
	res := p.Evaluate(st)
	if got := framework.ShootNames(res.Candidates); got != "away" || res.RequeueAfter != time.Hour || res.Want != 0 {
		t.Fatalf("candidates %q requeue %s want %d; want away, 1h, 0", got, res.RequeueAfter, res.Want)
	}
	imp := res.Candidates[0].Improves
	if why := imp.Accepts(framework.Move{Shoot: away, From: st.Seed, To: coretest.MakeSeed("home").Obj(), Closer: true}); why != "" {
		t.Errorf("a closer seed refused: %s", why)
	}
	if why := imp.Accepts(framework.Move{Shoot: away, From: st.Seed, To: coretest.MakeSeed("other").Obj()}); !strings.Contains(why, "no closer") {
		t.Errorf("a seed no closer accepted: %q", why)
	}
}
