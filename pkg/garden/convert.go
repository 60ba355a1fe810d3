package garden

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// GardenerGroup is the API group of Gardener's core types, read as graft's.
const GardenerGroup = "core.gardener.cloud"

// GardenerVersion is the version of Gardener's core group graft reads.
const GardenerVersion = "v1beta1"

// Convert reads one Seed, Shoot or CloudProfile, as JSON in graft's
// core.graft.dev/v1alpha1 or in Gardener's core.gardener.cloud/v1beta1, into
// graft's type into (a *v1alpha1.Seed, *v1alpha1.Shoot or
// *v1alpha1.CloudProfile): the one conversion from Gardener's objects, shared
// by the landscape files and every read of a Gardener garden. Unknown fields
// are dropped; a Gardener object gets graft's apiVersion and Gardener's
// semantics (see gardenerSemantics).
func Convert(data []byte, into any) error {
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, into); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	if o, ok := into.(interface{ GetObjectKind() schema.ObjectKind }); ok {
		gvk := o.GetObjectKind().GroupVersionKind()
		if gvk.Group == GardenerGroup {
			o.GetObjectKind().SetGroupVersionKind(v1alpha1.SchemeGroupVersion.WithKind(gvk.Kind))
			gardenerHibernation(data, into)
			gardenerSemantics(into)
		}
	}
	return nil
}

// gardenerHibernation sets graft's status.isHibernated of the shoots in
// data (a Shoot or a ShootList, converted into into) from Gardener's
// status.hibernated. A second decode, of that field only, and only when
// one is true: most shoots are awake, and every list of them is decoded.
func gardenerHibernation(data []byte, into any) {
	if !bytes.Contains(data, []byte(`"hibernated":true`)) && !bytes.Contains(data, []byte(`"hibernated": true`)) {
		return
	}
	type status struct {
		Status struct {
			Hibernated bool `json:"hibernated"`
		} `json:"status"`
	}
	switch o := into.(type) {
	case *v1alpha1.Shoot:
		var s status
		if kjson.UnmarshalCaseSensitivePreserveInts(data, &s) == nil {
			o.Status.IsHibernated = s.Status.Hibernated
		}
	case *v1alpha1.ShootList:
		var l struct {
			Items []status `json:"items"`
		}
		if kjson.UnmarshalCaseSensitivePreserveInts(data, &l) == nil && len(l.Items) == len(o.Items) {
			for i := range o.Items {
				o.Items[i].Status.IsHibernated = l.Items[i].Status.Hibernated
			}
		}
	}
}

// FromGardener converts a Seed, Shoot or CloudProfile of
// core.gardener.cloud/v1beta1, as a garden's API server serves it, into
// graft's type, by the same rules as a landscape file: Gardener's field names
// are graft's, unknown fields are dropped and Gardener's semantics apply (see
// gardenerSemantics). The informers on a Gardener garden store what it
// returns. It reads the map the API server's JSON was decoded into, without
// writing it as JSON again (a quarter of the cost; BenchmarkFromGardenerShoot).
func FromGardener(obj *unstructured.Unstructured) (runtime.Object, error) {
	if want := GardenerGroup + "/" + GardenerVersion; obj.GetAPIVersion() != want {
		return nil, fmt.Errorf("%s %s: apiVersion %q is not %s", obj.GetKind(), obj.GetName(), obj.GetAPIVersion(), want)
	}
	var into runtime.Object
	switch obj.GetKind() {
	case "Seed":
		into = &v1alpha1.Seed{}
	case "Shoot":
		into = &v1alpha1.Shoot{}
	case "CloudProfile":
		into = &v1alpha1.CloudProfile{}
	case "NamespacedCloudProfile":
		into = &v1alpha1.NamespacedCloudProfile{}
	default:
		return nil, fmt.Errorf("%s %s: graft reads only Seeds, Shoots, CloudProfiles and NamespacedCloudProfiles of %s", obj.GetKind(), obj.GetName(), GardenerGroup)
	}
	if err := fromUnstructured(obj.Object, into); err != nil {
		// Named as a landscape file names a document, so that a bad object
		// reads alike from a file and from a garden.
		return nil, fmt.Errorf("%s document 0 (%s %s): %s", GardenerGroup, obj.GetKind(), objectName(obj), err)
	}
	return into, nil
}

// gardenerSemantics makes an object read from Gardener's group mean what it
// means to Gardener, with what graft keeps in its annotations: a seed taint
// keeps shoots off the seed (graft's NoSchedule) unless AnnotationTaints
// gives it another effect, and a toleration tolerates every effect for ever
// unless AnnotationTolerationSeconds limits it (see GardenerSeedTaints,
// gardenerTolerations). graft.dev/evict, which only graft's admission guards,
// is dropped. Effects written into the spec itself count for
// nothing, as Gardener's API server would drop them. Allocatable shoots are
// read from status.allocatable.shoots as gardenlet publishes them; usage is
// counted from the shoots, as graft always does. A shoot's
// status.hibernated is graft's status.isHibernated (set by the converters,
// which read Gardener's field name).
func gardenerSemantics(obj any) {
	switch o := obj.(type) {
	case *v1alpha1.Seed:
		o.Spec.Taints = GardenerSeedTaints(o.Spec.Taints, o.Annotations[v1alpha1.AnnotationTaints])
	case *v1alpha1.Shoot:
		o.Spec.Tolerations = gardenerTolerations(o.Spec.Tolerations, o.Annotations[v1alpha1.AnnotationTolerationSeconds])
		// No admission on Gardener keeps a project member from writing
		// graft.dev/evict: honoured, it would let a tenant's shoot stay on
		// an over-full seed while another tenant's moves, and hold a drain
		// for ever. On Gardener it means nothing (docs/tenants.md).
		delete(o.Annotations, v1alpha1.AnnotationEvict)
	case *v1alpha1.SeedList:
		for i := range o.Items {
			gardenerSemantics(&o.Items[i])
		}
	case *v1alpha1.ShootList:
		for i := range o.Items {
			gardenerSemantics(&o.Items[i])
		}
	}
}

// fromUnstructured is Convert for an object the API server already decoded:
// it reads the map without writing it as JSON again.
func fromUnstructured(obj map[string]any, into runtime.Object) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, into); err != nil {
		return err
	}
	if shoot, ok := into.(*v1alpha1.Shoot); ok {
		shoot.Status.IsHibernated, _, _ = unstructured.NestedBool(obj, "status", "hibernated")
	}
	into.GetObjectKind().SetGroupVersionKind(v1alpha1.SchemeGroupVersion.WithKind(into.GetObjectKind().GroupVersionKind().Kind))
	gardenerSemantics(into)
	return nil
}
