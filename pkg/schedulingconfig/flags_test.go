package schedulingconfig

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/pkg/algorithm"
)

// lease is graft-scheduler's Lease held by holder with the annotations.
func lease(holder string, annotations map[string]string) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "graft-scheduler", ResourceVersion: "7", Annotations: annotations},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To(holder)},
	}
}

func parse(t *testing.T, args ...string) *Flags {
	t.Helper()
	f := NewFlags()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	f.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestChoose(t *testing.T) {
	published := `{"version":"v1","strategy":"MinimalDistance","scoreWeights":{"LeastAllocated":3}}`
	weighted := algorithm.Config{Strategy: algorithm.StrategyMinimalDistance, ScoreWeights: map[algorithm.ScorePlugin]int32{algorithm.ScorePluginLeastAllocated: 3}}
	defaults := algorithm.Config{Strategy: algorithm.StrategySameRegion}
	for _, tc := range []struct {
		name        string
		args        []string
		lease       runtime.Object
		want        algorithm.Config
		wantLine    string
		wantWarning string
	}{
		{
			name:     "published",
			lease:    lease("me", map[string]string{Annotation: published}),
			want:     weighted,
			wantLine: "Scheduling configuration: MinimalDistance, score weights LeastAllocated=3 (from Lease garden/graft-scheduler)",
		},
		{
			name:     "flags override",
			args:     []string{"--strategy=SameRegion"},
			lease:    lease("me", map[string]string{Annotation: published}),
			want:     defaults,
			wantLine: "Scheduling configuration: SameRegion, no score weights (from flags)",
		},
		{
			name:     "weights flag alone",
			args:     []string{"--score-weight", "LeastAllocated=2,MinimalDistance=1"},
			want:     algorithm.Config{ScoreWeights: map[algorithm.ScorePlugin]int32{algorithm.ScorePluginLeastAllocated: 2, algorithm.ScorePluginMinimalDistance: 1}},
			wantLine: "Scheduling configuration: SameRegion, score weights LeastAllocated=2,MinimalDistance=1 (from flags)",
		},
		{
			name:        "another Lease",
			args:        []string{"--scheduler-lease-namespace=graft-system", "--scheduler-lease-name=sched"},
			lease:       lease("me", map[string]string{Annotation: published}),
			want:        defaults,
			wantLine:    `(defaults: the scheduler's Lease graft-system/sched could not be read: leases.coordination.k8s.io "sched" not found)`,
			wantWarning: `explaining with the default scheduling configuration, which may not be graft-scheduler's: the scheduler's Lease graft-system/sched could not be read: leases.coordination.k8s.io "sched" not found`,
		},
		{
			name:        "no annotation",
			lease:       lease("me", nil),
			want:        defaults,
			wantLine:    "(defaults: the scheduler's Lease garden/graft-scheduler has no scheduler.graft.dev/scheduling-configuration annotation",
			wantWarning: "has no scheduler.graft.dev/scheduling-configuration annotation",
		},
		{
			name:        "malformed",
			lease:       lease("me", map[string]string{Annotation: "{"}),
			want:        defaults,
			wantLine:    "(defaults: the scheduler.graft.dev/scheduling-configuration annotation of Lease garden/graft-scheduler is invalid: not the JSON",
			wantWarning: "is invalid: not the JSON of a scheduling configuration",
		},
		{
			name:        "newer version",
			lease:       lease("me", map[string]string{Annotation: `{"version":"v2"}`}),
			want:        defaults,
			wantLine:    `is invalid: version "v2", this build reads "v1")`,
			wantWarning: `version "v2"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset()
			if tc.lease != nil {
				client = fake.NewClientset(tc.lease)
			}
			f := parse(t, tc.args...)
			if err := f.Validate(); err != nil {
				t.Fatal(err)
			}
			c := f.Choose(t.Context(), client.CoordinationV1())
			if !reflect.DeepEqual(c.Config, tc.want) {
				t.Errorf("config %+v, want %+v", c.Config, tc.want)
			}
			if !strings.Contains(c.String(), tc.wantLine) {
				t.Errorf("line %q, want it to contain %q", c.String(), tc.wantLine)
			}
			if (tc.wantWarning == "") != (c.Warning == "") || !strings.Contains(c.Warning, tc.wantWarning) {
				t.Errorf("warning %q, want %q", c.Warning, tc.wantWarning)
			}
			if f.Overridden() && len(client.Actions()) > 0 {
				t.Errorf("the Lease was read although the flags override it: %v", client.Actions())
			}
		})
	}
}

func TestChooseWithoutPermission(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("get", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, "graft-scheduler", errors.New("no RBAC"))
	})
	c := NewFlags().Choose(t.Context(), client.CoordinationV1())
	if c.Config.Strategy != algorithm.StrategySameRegion || c.Config.ScoreWeights != nil || !strings.Contains(c.Source, "forbidden") || c.Warning == "" {
		t.Errorf("choice %+v", c)
	}
}

func TestFlagsValidate(t *testing.T) {
	for args, want := range map[string]string{
		"--strategy=Nearest":                       `unknown strategy "Nearest"`,
		"--score-weight=Cost=1":                    `unknown score plugin "Cost"`,
		"--score-weight=LeastAllocated=-2":         "negative weight",
		"--score-weight=LeastAllocated=9999999999": "too large",
		"--scheduler-lease-namespace=Garden":       "invalid --scheduler-lease-namespace",
		"--scheduler-lease-name=":                  "invalid --scheduler-lease-name",
	} {
		if err := parse(t, args).Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", args, err, want)
		}
	}
}
