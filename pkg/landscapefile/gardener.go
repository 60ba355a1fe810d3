package landscapefile

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// GardenerVersion is the version of Gardener's core group graft reads.
const GardenerVersion = "v1beta1"

// FromGardener converts a Seed, Shoot or CloudProfile of
// core.gardener.cloud/v1beta1, as a garden's API server serves it, into
// graft's type, by the same rules as a landscape file: Gardener's field names
// are graft's, unknown fields are dropped and Gardener's semantics apply (see
// gardenerSemantics). graft-scheduler's informers on a Gardener garden store
// what it returns.
func FromGardener(obj *unstructured.Unstructured) (runtime.Object, error) {
	doc := Document{Source: "core.gardener.cloud", APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(),
		Namespace: obj.GetNamespace(), Name: obj.GetName()}
	if want := GardenerGroup + "/" + GardenerVersion; obj.GetAPIVersion() != want {
		return nil, fmt.Errorf("%s %s: apiVersion %q is not %s", obj.GetKind(), obj.GetName(), obj.GetAPIVersion(), want)
	}
	data, err := obj.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", obj.GetKind(), obj.GetName(), err)
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
	if err := decode(doc, data, into); err != nil {
		return nil, err
	}
	return into, nil
}

// gardenerSemantics makes an object read from Gardener's group mean what it
// means to Gardener. Gardener's seed taints have no effect: every one keeps
// shoots that do not tolerate it off the seed, which is graft's NoSchedule,
// and none evicts. Its tolerations have neither effect nor tolerationSeconds.
// A field of graft's that Gardener lacks is cleared, so that an object that
// carries one anyway (a landscape file written by hand) behaves as on
// Gardener. Allocatable shoots are read from status.allocatable.shoots as
// gardenlet publishes them; usage is counted from the shoots, as graft always
// does.
func gardenerSemantics(obj any) {
	switch o := obj.(type) {
	case *v1alpha1.Seed:
		for i := range o.Spec.Taints {
			o.Spec.Taints[i].Effect = v1alpha1.TaintEffectNoSchedule
			o.Spec.Taints[i].TimeAdded = nil
		}
	case *v1alpha1.Shoot:
		for i := range o.Spec.Tolerations {
			o.Spec.Tolerations[i].Effect = ""
			o.Spec.Tolerations[i].TolerationSeconds = nil
		}
	}
}
