package taint

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/graftctl/cmdtest"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

func run(t *testing.T, client *fake.Clientset, args ...string) (string, error) {
	t.Helper()
	out, _, err := cmdtest.Run(t, NewCommand, &factory.Static{Graft: client}, "", args...)
	return out, err
}

func writes(client *fake.Clientset) int {
	n := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "patch" || a.GetVerb() == "update" {
			n++
		}
	}
	return n
}

func TestTaintCommand(t *testing.T) {
	objects := func() []runtime.Object {
		return []runtime.Object{
			coretest.MakeSeed("a").Labels(map[string]string{"env": "canary"}).Obj(),
			coretest.MakeSeed("b").Labels(map[string]string{"env": "canary"}).Taints(corev1alpha1.SeedTaint{Key: "x", Effect: corev1alpha1.TaintEffectNoSchedule}).Obj(),
			coretest.MakeSeed("c").Obj(),
		}
	}
	tests := []struct {
		name       string
		args       []string
		wantOut    string
		wantErr    string
		wantTaints map[string]string
		wantWrites int
	}{
		{
			name: "add", args: []string{"seed", "a", "dedicated=team-a:NoSchedule"},
			wantOut: "seed/a tainted\n", wantTaints: map[string]string{"a": "dedicated=team-a:NoSchedule"}, wantWrites: 1,
		},
		{
			name: "several seeds", args: []string{"seeds", "a", "c", "k:NoExecute"},
			wantOut: "seed/a tainted\nseed/c tainted\n", wantTaints: map[string]string{"a": "k:NoExecute", "c": "k:NoExecute"}, wantWrites: 2,
		},
		{
			name: "remove", args: []string{"seed", "b", "x:NoSchedule-"},
			wantOut: "seed/b untainted\n", wantTaints: map[string]string{"b": "<none>"}, wantWrites: 1,
		},
		{
			name: "remove by key", args: []string{"seed", "b", "x-"},
			wantOut: "seed/b untainted\n", wantTaints: map[string]string{"b": "<none>"}, wantWrites: 1,
		},
		{
			name: "overwrite", args: []string{"seed", "b", "x=2:NoSchedule", "--overwrite"},
			wantOut: "seed/b modified\n", wantTaints: map[string]string{"b": "x=2:NoSchedule"}, wantWrites: 1,
		},
		{
			name: "selector", args: []string{"seed", "-l", "env=canary", "m:PreferNoSchedule"},
			wantOut: "seed/a tainted\nseed/b tainted\n", wantTaints: map[string]string{"a": "m:PreferNoSchedule", "b": "m:PreferNoSchedule,x:NoSchedule", "c": "<none>"}, wantWrites: 2,
		},
		{
			name: "all", args: []string{"seed", "--all", "m:NoSchedule"},
			wantOut: "seed/a tainted\nseed/b tainted\nseed/c tainted\n", wantWrites: 3,
		},
		{
			name: "client dry run", args: []string{"seed", "a", "k:NoExecute", "--dry-run=client"},
			wantOut: "seed/a tainted (dry run)\n", wantTaints: map[string]string{"a": "<none>"}, wantWrites: 0,
		},
		{
			name: "bare dry run is client", args: []string{"seed", "a", "k:NoExecute", "--dry-run"},
			wantOut: "seed/a tainted (dry run)\n", wantTaints: map[string]string{"a": "<none>"}, wantWrites: 0,
		},
		{
			name: "server dry run", args: []string{"seed", "a", "k:NoExecute", "--dry-run=server"},
			wantOut: "seed/a tainted (server dry run)\n", wantWrites: 1,
		},
		{
			name: "output name", args: []string{"seed", "a", "k:NoExecute", "-o", "name"},
			wantOut: "seed.core.graft.dev/a\n", wantWrites: 1,
		},
		{name: "unknown effect", args: []string{"seed", "a", "k=v:Never"}, wantErr: "invalid taint effect: Never, unsupported taint effect"},
		{name: "missing taint", args: []string{"seed", "a", "nope:NoSchedule-"}, wantErr: `taint "nope:NoSchedule" not found`},
		{name: "modify and remove", args: []string{"seed", "b", "x=1:NoSchedule", "x-"}, wantErr: "can not both modify and remove the following taint(s) in the same command: x="},
		{name: "existing without overwrite", args: []string{"seed", "b", "x=2:NoSchedule"}, wantErr: "seed b already has x taint(s) with same effect(s) and --overwrite is false"},
		{name: "not a seed", args: []string{"node", "a", "x:NoSchedule"}, wantErr: "invalid resource type node, only seed types are supported"},
		{name: "no taint", args: []string{"seed", "a"}, wantErr: "at least one taint update is required"},
		{name: "no seed", args: []string{"seed", "x:NoSchedule"}, wantErr: "at least one seed name must be specified since neither --all nor --selector is set"},
		{name: "name after taint", args: []string{"seed", "a", "x:NoSchedule", "b"}, wantErr: "all resources must be specified before taint changes: b"},
		{name: "all and selector", args: []string{"seed", "--all", "-l", "env=canary", "x:NoSchedule"}, wantErr: "setting 'all' parameter with a non empty selector is prohibited"},
		{name: "bad dry run", args: []string{"seed", "a", "x:NoSchedule", "--dry-run=maybe"}, wantErr: `invalid dry-run value (maybe). Must be "none", "server", or "client"`},
		{name: "unknown seed", args: []string{"seed", "zz", "x:NoSchedule"}, wantErr: `seeds.core.graft.dev "zz" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewSimpleClientset(objects()...)
			out, err := run(t, client, tt.args...)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				if w := writes(client); w != 0 {
					t.Errorf("%d writes after an error", w)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if out != tt.wantOut {
				t.Errorf("output %q, want %q", out, tt.wantOut)
			}
			for name, want := range tt.wantTaints {
				if got := cmdtest.SeedTaints(t, client, name); got != want {
					t.Errorf("seed %s taints %s, want %s", name, got, want)
				}
			}
			if w := writes(client); w != tt.wantWrites {
				t.Errorf("%d writes, want %d", w, tt.wantWrites)
			}
		})
	}
}

func TestTaintOutputYAML(t *testing.T) {
	client := fake.NewSimpleClientset(coretest.MakeSeed("a").Obj())
	out, err := run(t, client, "seed", "a", "k=v:NoExecute", "-o", "yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"apiVersion: core.graft.dev/v1alpha1", "kind: Seed", "key: k", "effect: NoExecute"} {
		if !strings.Contains(out, want) {
			t.Errorf("yaml output lacks %q:\n%s", want, out)
		}
	}
}

// `graftctl taint` records when it added a NoExecute taint, and --overwrite
// with the same taint keeps that time.
func TestTaintRecordsTimeAdded(t *testing.T) {
	client := fake.NewSimpleClientset(coretest.MakeSeed("a").Obj())
	before := time.Now().Truncate(time.Second)
	if _, err := run(t, client, "seed", "a", "k=v:NoExecute", "c=v:NoSchedule"); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	got := must(client.CoreV1alpha1().Seeds().Get(context.Background(), "a", metav1.GetOptions{}))(t)
	var added *metav1.Time
	for _, tt := range got.Spec.Taints {
		switch tt.Effect {
		case corev1alpha1.TaintEffectNoExecute:
			added = tt.TimeAdded
		default:
			if tt.TimeAdded != nil {
				t.Errorf("%s: timeAdded %v, want none on a %s taint", tt.Key, tt.TimeAdded, tt.Effect)
			}
		}
	}
	if added == nil || added.Time.Before(before) || added.Time.After(after) {
		t.Fatalf("timeAdded of the NoExecute taint = %v, want between %v and %v", added, before, after)
	}

	// Overwriting the same taint later keeps the time.
	old := metav1.NewTime(added.Add(-time.Hour))
	got.Spec.Taints[0].TimeAdded = &old
	got.Spec.Taints = got.Spec.Taints[:1]
	must(client.CoreV1alpha1().Seeds().Update(context.Background(), got, metav1.UpdateOptions{}))(t)
	if _, err := run(t, client, "seed", "a", "k=v:NoExecute", "--overwrite"); err != nil {
		t.Fatal(err)
	}
	got = must(client.CoreV1alpha1().Seeds().Get(context.Background(), "a", metav1.GetOptions{}))(t)
	if at := got.Spec.Taints[0].TimeAdded; at == nil || !at.Time.Equal(old.Time) {
		t.Errorf("after --overwrite with the same taint: timeAdded = %v, want %v", at, old)
	}
}

func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}
