package schedulingconfig

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// ReadError says why the published configuration could not be used.
type ReadError struct {
	// Invalid is true when a configuration is published but this build
	// cannot use it: reading again gives the same answer. Otherwise the
	// Lease, its annotation or the API server may yet answer.
	Invalid bool
	msg     string
}

func (e *ReadError) Error() string { return e.msg }

// Read returns the configuration graft-scheduler's leader published on the
// Lease namespace/name. reader names the program reading it in the message
// for an annotation an older scheduler did not write.
func Read(ctx context.Context, leases coordinationv1client.LeasesGetter, namespace, name, reader string) (Published, error) {
	ref := "Lease " + namespace + "/" + name
	lease, err := leases.Leases(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return Published{}, &ReadError{msg: "the scheduler's " + ref + " could not be read: " + err.Error()}
	}
	value, ok := lease.Annotations[Annotation]
	if !ok {
		return Published{}, &ReadError{
			msg: "the scheduler's " + ref + " has no " + Annotation + " annotation (its holder is older than this " + reader + ", or has only just started leading)"}
	}
	p, err := Decode(value)
	if err != nil {
		return Published{}, &ReadError{Invalid: true, msg: "the " + Annotation + " annotation of " + ref + " is invalid: " + err.Error()}
	}
	return p, nil
}
