package leadership

import (
	"context"
	"errors"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

const testAnnotation = "graft.dev/test"

const testValue = `{"version":"v1","strategy":"MinimalDistance"}`

func lease(holder string, annotations map[string]string) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "graft-scheduler", ResourceVersion: "7", Annotations: annotations},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To(holder)},
	}
}

func publisher(client *fake.Clientset) *Publisher {
	return &Publisher{Leases: client.CoordinationV1(), Namespace: "garden", Name: "graft-scheduler", Identity: "me", Annotation: testAnnotation, Value: testValue, What: "the test value",
		Backoff: wait.Backoff{Duration: time.Millisecond, Factor: 1, Steps: 1 << 30}}
}

// updates returns the Lease updates the client was asked for.
func updates(client *fake.Clientset) []*coordinationv1.Lease {
	var out []*coordinationv1.Lease
	for _, a := range client.Actions() {
		if u, ok := a.(k8stesting.UpdateAction); ok && a.GetResource().Resource == "leases" {
			out = append(out, u.GetObject().(*coordinationv1.Lease))
		}
	}
	return out
}

func TestPublishWritesOntoTheLeaseItHolds(t *testing.T) {
	client := fake.NewClientset(lease("me", map[string]string{"other": "kept"}))
	if err := publisher(client).Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	u := updates(client)
	if len(u) != 1 {
		t.Fatalf("%d updates, want 1", len(u))
	}
	if u[0].ResourceVersion != "7" {
		t.Errorf("update preconditioned on resourceVersion %q, want the read's 7", u[0].ResourceVersion)
	}
	if u[0].Annotations[testAnnotation] != testValue || u[0].Annotations["other"] != "kept" {
		t.Errorf("annotations %v", u[0].Annotations)
	}
	if *u[0].Spec.HolderIdentity != "me" {
		t.Errorf("the holder was changed: %s", *u[0].Spec.HolderIdentity)
	}

	// Published already: nothing more is written.
	client.ClearActions()
	if err := publisher(client).Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := len(updates(client)); n != 0 {
		t.Errorf("%d updates of a Lease that carries the value already", n)
	}
}

func TestPublishLeavesAnotherHoldersLeaseAlone(t *testing.T) {
	for _, l := range []*coordinationv1.Lease{lease("other", nil), lease("", nil)} {
		client := fake.NewClientset(l)
		if err := publisher(client).Run(t.Context()); !errors.Is(err, ErrNotHolder) {
			t.Errorf("holder %q: Run = %v, want ErrNotHolder", *l.Spec.HolderIdentity, err)
		}
		if n := len(updates(client)); n != 0 {
			t.Errorf("holder %q: %d updates", *l.Spec.HolderIdentity, n)
		}
	}
}

// A renewal between the read and the write makes the update conflict; Run
// reads the Lease again and writes onto the new version.
func TestRunRetriesAConflictOnTheNewVersion(t *testing.T) {
	client := fake.NewClientset(lease("me", nil))
	gets, failures := 0, 0
	client.PrependReactor("get", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		gets++
		l := lease("me", nil)
		l.ResourceVersion = map[int]string{1: "7", 2: "8", 3: "9"}[min(gets, 3)]
		return true, l, nil
	})
	client.PrependReactor("update", "leases", func(a k8stesting.Action) (bool, runtime.Object, error) {
		switch l := a.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease); l.ResourceVersion {
		case "7":
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, l.Name, errors.New("renewed"))
		case "8":
			failures++
			return true, nil, apierrors.NewServiceUnavailable("try later")
		default:
			return true, l, nil
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := publisher(client).Run(ctx); err != nil {
		t.Fatal(err)
	}
	u := updates(client)
	if len(u) != 3 || u[2].ResourceVersion != "9" || failures != 1 {
		t.Errorf("%d updates (last on %q), %d failures; want a conflict on 7, an error on 8 and success on 9", len(u), u[len(u)-1].ResourceVersion, failures)
	}
}

func TestRunStopsWithItsContext(t *testing.T) {
	client := fake.NewClientset()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := publisher(client).Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Run without a Lease and a canceled context = %v", err)
	}
}
