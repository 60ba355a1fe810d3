package leadership

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/klog/v2"
)

// ErrNotHolder is returned by Publish when the Lease is not held by the
// publishing replica: only the leader writes onto it.
var ErrNotHolder = errors.New("the Lease is not held by this replica")

// Publisher writes an annotation onto a daemon's leader election Lease, for
// other programs to read what the leader applies (graft-scheduler its
// scheduling configuration, graft-capacity-annotator its pools). The Lease
// is the leader's own object and its own fence: the annotation is written
// only onto a Lease read with this replica as holder, and the update carries
// that read's resourceVersion, so a Lease taken over (or renewed) in between
// is not written and is read again.
type Publisher struct {
	// Leases reads and updates the Lease (the leader election client).
	Leases coordinationv1client.LeasesGetter
	// Namespace and Name name the Lease.
	Namespace, Name string
	// Identity is this replica's leader election identity.
	Identity string
	// Annotation is the annotation's key; Value its value.
	Annotation, Value string
	// What names the value in logs ("the scheduling configuration").
	What string
	// Backoff spaces the attempts of Run; zero means from 500ms doubling to 30s.
	Backoff wait.Backoff
}

// Run publishes until it succeeds, the Lease turns out to be held by
// another replica, or ctx ends. Conflicts (a renewal between the read and the
// write) are retried at once; other errors with backoff.
func (p *Publisher) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithValues("lease", p.Namespace+"/"+p.Name)
	backoff := p.Backoff
	if backoff.Duration == 0 {
		backoff = wait.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Jitter: 0.1, Steps: 1 << 30, Cap: 30 * time.Second}
	}
	for {
		err := p.Publish(ctx)
		switch {
		case err == nil:
			logger.Info("Published "+p.What+" on the Lease", "annotation", p.Annotation, "value", p.Value)
			return nil
		case errors.Is(err, ErrNotHolder):
			logger.Info("Not publishing " + p.What + ": another replica holds the Lease")
			return err
		case ctx.Err() != nil:
			return ctx.Err()
		case apierrors.IsConflict(err):
			logger.V(2).Info("The Lease changed while publishing " + p.What + ", reading it again")
			continue
		}
		logger.Error(err, "Could not publish "+p.What+" on the Lease, retrying")
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff.Step()):
		}
	}
}

// Publish makes one attempt: it reads the Lease and, when this replica holds
// it and the annotation differs, updates it with the read resourceVersion.
func (p *Publisher) Publish(ctx context.Context) error {
	leases := p.Leases.Leases(p.Namespace)
	lease, err := leases.Get(ctx, p.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading Lease %s/%s: %w", p.Namespace, p.Name, err)
	}
	if h := lease.Spec.HolderIdentity; h == nil || *h != p.Identity {
		return ErrNotHolder
	}
	if lease.Annotations[p.Annotation] == p.Value {
		return nil
	}
	// The read object carries its resourceVersion: the update is refused
	// with a conflict if the Lease changed since.
	lease = lease.DeepCopy()
	if lease.Annotations == nil {
		lease.Annotations = map[string]string{}
	}
	lease.Annotations[p.Annotation] = p.Value
	if _, err := leases.Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("annotating Lease %s/%s: %w", p.Namespace, p.Name, err)
	}
	return nil
}
