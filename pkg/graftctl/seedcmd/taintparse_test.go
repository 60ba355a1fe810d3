package seedcmd

import (
	"testing"
	"time"

	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

func TestParseTaints(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantAdd    []string
		wantRemove []string
		wantErr    string
	}{
		{name: "key value effect", args: []string{"dedicated=team-a:NoSchedule"}, wantAdd: []string{"dedicated=team-a:NoSchedule"}},
		{name: "key effect", args: []string{"seed.gardener.cloud/unschedulable:NoExecute"}, wantAdd: []string{"seed.gardener.cloud/unschedulable:NoExecute"}},
		{name: "remove by key and effect", args: []string{"dedicated:NoSchedule-"}, wantRemove: []string{"dedicated:NoSchedule"}},
		{name: "remove by key", args: []string{"dedicated-"}, wantRemove: []string{"dedicated"}},
		{name: "add and remove different taints", args: []string{"a=1:NoSchedule", "b-"}, wantAdd: []string{"a=1:NoSchedule"}, wantRemove: []string{"b"}},
		{name: "unknown effect", args: []string{"a=1:NoWay"}, wantErr: "invalid taint effect: NoWay, unsupported taint effect"},
		{name: "unknown effect on removal", args: []string{"a:Sometimes-"}, wantErr: "invalid taint effect: Sometimes, unsupported taint effect"},
		{name: "add without effect", args: []string{"a"}, wantErr: "invalid taint spec: a"},
		{name: "too many colons", args: []string{"a:b:NoSchedule"}, wantErr: "invalid taint spec: a:b:NoSchedule"},
		{name: "too many equals", args: []string{"a=b=c:NoSchedule"}, wantErr: "invalid taint spec: a=b=c:NoSchedule"},
		{name: "invalid key", args: []string{"-a:NoSchedule"}, wantErr: "invalid taint spec: -a:NoSchedule, name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
		{name: "duplicate", args: []string{"a=1:NoSchedule", "a=2:NoSchedule"}, wantErr: "duplicated taints with the same key and effect: a=2:NoSchedule"},
		{name: "modify and remove same key and effect", args: []string{"a=1:NoSchedule", "a:NoSchedule-"}, wantErr: "can not both modify and remove the following taint(s) in the same command: a=NoSchedule"},
		{name: "modify and remove by key", args: []string{"a=1:NoExecute", "a-"}, wantErr: "can not both modify and remove the following taint(s) in the same command: a="},
		{name: "same key other effect is no conflict", args: []string{"a=1:NoExecute", "a:NoSchedule-"}, wantAdd: []string{"a=1:NoExecute"}, wantRemove: []string{"a:NoSchedule"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTaints(tt.args)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("ParseTaints(%q) error = %v, want %q", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTaints(%q): %v", tt.args, err)
			}
			if s := taintStrings(got.Add); !equal(s, tt.wantAdd) {
				t.Errorf("Add = %q, want %q", s, tt.wantAdd)
			}
			var removals []string
			for _, rm := range got.Remove {
				removals = append(removals, removalString(rm))
			}
			if s := removals; !equal(s, tt.wantRemove) {
				t.Errorf("Remove = %q, want %q", s, tt.wantRemove)
			}
		})
	}
}

func TestIsTaintArg(t *testing.T) {
	for arg, want := range map[string]bool{
		"aws-eu1": false, "seed.example.com": false, "a=b:NoSchedule": true, "a:NoSchedule": true, "a-": true, "a=b": true,
	} {
		if got := IsTaintArg(arg); got != want {
			t.Errorf("IsTaintArg(%q) = %v, want %v", arg, got, want)
		}
	}
}

func TestApplyTaints(t *testing.T) {
	a1 := corev1alpha1.SeedTaint{Key: "a", Value: ptr.To("1"), Effect: corev1alpha1.TaintEffectNoSchedule}
	a2 := corev1alpha1.SeedTaint{Key: "a", Value: ptr.To("2"), Effect: corev1alpha1.TaintEffectNoSchedule}
	aExec := corev1alpha1.SeedTaint{Key: "a", Effect: corev1alpha1.TaintEffectNoExecute}
	bNoEffect := corev1alpha1.SeedTaint{Key: "b"}
	tests := []struct {
		name      string
		current   []corev1alpha1.SeedTaint
		changes   TaintChanges
		overwrite bool
		wantOp    TaintOperation
		want      []string
		wantErr   string
	}{
		{name: "add to empty", changes: TaintChanges{Add: []corev1alpha1.SeedTaint{a1}}, wantOp: Tainted, want: []string{"a=1:NoSchedule"}},
		{name: "add keeps others", current: []corev1alpha1.SeedTaint{aExec}, changes: TaintChanges{Add: []corev1alpha1.SeedTaint{a1}}, wantOp: Tainted, want: []string{"a=1:NoSchedule", "a:NoExecute"}},
		{name: "existing without overwrite", current: []corev1alpha1.SeedTaint{a1}, changes: TaintChanges{Add: []corev1alpha1.SeedTaint{a2}}, wantErr: "seed s1 already has a taint(s) with same effect(s) and --overwrite is false"},
		{name: "empty effect counts as NoSchedule", current: []corev1alpha1.SeedTaint{bNoEffect}, changes: TaintChanges{Add: []corev1alpha1.SeedTaint{{Key: "b", Effect: corev1alpha1.TaintEffectNoSchedule}}}, wantErr: "seed s1 already has b taint(s) with same effect(s) and --overwrite is false"},
		{name: "overwrite", current: []corev1alpha1.SeedTaint{a1}, changes: TaintChanges{Add: []corev1alpha1.SeedTaint{a2}}, overwrite: true, wantOp: Modified, want: []string{"a=2:NoSchedule"}},
		{name: "remove by key and effect", current: []corev1alpha1.SeedTaint{a1, aExec}, changes: TaintChanges{Remove: []corev1alpha1.SeedTaint{{Key: "a", Effect: corev1alpha1.TaintEffectNoExecute}}}, wantOp: Untainted, want: []string{"a=1:NoSchedule"}},
		{name: "remove by key", current: []corev1alpha1.SeedTaint{a1, aExec, bNoEffect}, changes: TaintChanges{Remove: []corev1alpha1.SeedTaint{{Key: "a"}}}, wantOp: Untainted, want: []string{"b:NoSchedule"}}, // no effect reads as the NoSchedule it means
		{name: "remove NoSchedule matches empty effect", current: []corev1alpha1.SeedTaint{bNoEffect}, changes: TaintChanges{Remove: []corev1alpha1.SeedTaint{{Key: "b", Effect: corev1alpha1.TaintEffectNoSchedule}}}, wantOp: Untainted, want: []string{}},
		{name: "missing taint", current: []corev1alpha1.SeedTaint{a1}, changes: TaintChanges{Remove: []corev1alpha1.SeedTaint{{Key: "c", Effect: corev1alpha1.TaintEffectNoExecute}}}, wantErr: `taint "c:NoExecute" not found`},
		{name: "add and remove", current: []corev1alpha1.SeedTaint{bNoEffect}, changes: TaintChanges{Add: []corev1alpha1.SeedTaint{a1}, Remove: []corev1alpha1.SeedTaint{{Key: "b"}}}, wantOp: Modified, want: []string{"a=1:NoSchedule"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := taintStrings(tt.current)
			op, got, err := ApplyTaints("s1", tt.current, tt.changes, tt.overwrite, time.Now())
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if op != tt.wantOp {
				t.Errorf("operation = %s, want %s", op, tt.wantOp)
			}
			if s := taintStrings(got); !equal(s, tt.want) {
				t.Errorf("taints = %q, want %q", s, tt.want)
			}
			if after := taintStrings(tt.current); !equal(before, after) {
				t.Errorf("input modified: %q -> %q", before, after)
			}
		})
	}
}

func taintStrings(taints []corev1alpha1.SeedTaint) []string {
	out := []string{}
	for _, t := range taints {
		out = append(out, helper.FormatTaint(t))
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
