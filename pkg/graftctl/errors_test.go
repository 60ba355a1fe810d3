package graftctl

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

func TestPrintError(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "core.graft.dev", Resource: "seeds"}, "a",
		errors.New(`User "system:serviceaccount:t:viewer" cannot patch resource "seeds" in API group "core.graft.dev" at the cluster scope`))
	tests := []struct {
		err  error
		want string
	}{
		{forbidden, `error: seeds.core.graft.dev "a" is forbidden: User "system:serviceaccount:t:viewer" cannot patch resource "seeds" in API group "core.graft.dev" at the cluster scope` + "\n"},
		{utilerrors.NewAggregate([]error{errors.New("one"), fmt.Errorf("wrapped: %w", errors.New("two"))}), "error: one\nerror: wrapped: two\n"},
		{errors.New("plain\n"), "error: plain\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		PrintError(&b, tt.err)
		if b.String() != tt.want {
			t.Errorf("PrintError(%v) = %q, want %q", tt.err, b.String(), tt.want)
		}
	}
}

func TestRootHasEveryCommand(t *testing.T) {
	root := NewGraftctlCommand(genericiooptionsForTest())
	for _, name := range []string{"taint", "cordon", "uncordon", "drain", "get", "describe"} {
		if c, _, err := root.Find([]string{name}); err != nil || c.Name() != name {
			t.Errorf("command %s missing: %v", name, err)
		}
	}
}
