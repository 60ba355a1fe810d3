package component

import (
	"testing"

	kubefake "k8s.io/client-go/kubernetes/fake"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
)

// Without an identity given, the runner chooses one and the elector holds
// the Lease with it, so that what publishes on the Lease (the scheduler's
// configuration, the descheduler's) is recognised as the holder.
func TestRunnerChoosesOneIdentity(t *testing.T) {
	r := NewRunner("x", configv1alpha1.CommonConfiguration{}, Clients{Kubernetes: kubefake.NewSimpleClientset()}, RunnerOptions{})
	if r.Identity == "" || r.Elector.Identity != r.Identity {
		t.Fatalf("runner identity %q, elector identity %q: want one, the same", r.Identity, r.Elector.Identity)
	}
}
