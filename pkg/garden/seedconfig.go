package garden

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// SeedConfigKind is the kind of object that holds a seed's gardenlet
// configuration in a Gardener garden. gardenlet writes the Seed's whole spec
// from that configuration's seedConfig at every start, so a taint lasts only
// where the configuration holds it (docs/daemons.md, "Gardener's seed
// configuration").
type SeedConfigKind string

const (
	// ManagedSeed holds it in spec.gardenlet.config.
	ManagedSeed SeedConfigKind = "ManagedSeed"
	// Gardenlet (a gardenlet deployed by gardener-operator) holds it in
	// spec.config.
	Gardenlet SeedConfigKind = "Gardenlet"
)

// SeedManagementGroupVersion is the API of ManagedSeeds and Gardenlets.
var SeedManagementGroupVersion = schema.GroupVersion{Group: "seedmanagement.gardener.cloud", Version: "v1alpha1"}

// seedConfigKinds are the kinds looked at, in order, with their resource and
// the path of the gardenlet configuration's seedConfig.
var seedConfigKinds = []struct {
	kind               SeedConfigKind
	singular, resource string
	path               []string
}{
	{ManagedSeed, "managedseed", "managedseeds", []string{"spec", "gardenlet", "config", "seedConfig"}},
	{Gardenlet, "gardenlet", "gardenlets", []string{"spec", "config", "seedConfig"}},
}

// SeedConfig is the object of the garden namespace, named as its seed, whose
// gardenlet configuration gardenlet writes the Seed from.
type SeedConfig struct {
	Kind            SeedConfigKind
	Name            string
	ResourceVersion string
	// HasSeedConfig is whether the configuration holds a seedConfig: one
	// without it gets the seed's spec from elsewhere (its parent gardenlet).
	HasSeedConfig bool
	// Taints are seedConfig.spec.taints, read as the Seed's (NoSchedule).
	Taints []corev1alpha1.SeedTaint
}

// String names the object as kubectl does: managedseed.seedmanagement.gardener.cloud/NAME.
func (c *SeedConfig) String() string {
	for _, k := range seedConfigKinds {
		if k.kind == c.Kind {
			return fmt.Sprintf("%s.%s/%s", k.singular, SeedManagementGroupVersion.Group, c.Name)
		}
	}
	return string(c.Kind) + "/" + c.Name
}

// Holds reports whether the configuration holds taint t (key and value;
// Gardener's taints have no effect).
func (c *SeedConfig) Holds(t corev1alpha1.SeedTaint) bool {
	for _, h := range c.Taints {
		if h.Key == t.Key && ptrEqual(h.Value, t.Value) {
			return true
		}
	}
	return false
}

// Passing returns the taints of the Seed's spec.taints that the
// configuration lacks: gardenlet removes them when it next starts. (A
// PreferNoSchedule taint lives in an annotation, which gardenlet keeps.) Nil
// for no configuration (a gardenlet deployed by hand, whose configuration
// graft cannot see).
func (c *SeedConfig) Passing(taints []corev1alpha1.SeedTaint) []corev1alpha1.SeedTaint {
	if c == nil || !c.HasSeedConfig {
		return nil
	}
	var out []corev1alpha1.SeedTaint
	for _, t := range taints {
		if t.Effect != corev1alpha1.TaintEffectPreferNoSchedule && !c.Holds(t) {
			out = append(out, t)
		}
	}
	return out
}

func ptrEqual(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func resourceOf(kind SeedConfigKind) string {
	for _, k := range seedConfigKinds {
		if k.kind == kind {
			return k.resource
		}
	}
	return ""
}

func pathOf(kind SeedConfigKind) []string {
	for _, k := range seedConfigKinds {
		if k.kind == kind {
			return k.path
		}
	}
	return nil
}

// seedConfigs reads the configuration objects of Gardener's seeds.
type seedConfigs struct{ c dynamic.Interface }

func (s seedConfigs) resource(kind SeedConfigKind) dynamic.ResourceInterface {
	return s.c.Resource(SeedManagementGroupVersion.WithResource(resourceOf(kind))).Namespace(corev1alpha1.GardenNamespace)
}

// get returns the seed's configuration object, or nil when the garden holds
// none (a gardenlet deployed by hand) or does not serve seedmanagement.
func (s seedConfigs) get(ctx context.Context, seed string) (*SeedConfig, error) {
	for _, k := range seedConfigKinds {
		obj, err := s.resource(k.kind).Get(ctx, seed, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("reading the %s of seed %s: %w", k.kind, seed, err)
		}
		return seedConfigOf(k.kind, obj)
	}
	return nil, nil
}

// list returns every seed's configuration object by seed name.
func (s seedConfigs) list(ctx context.Context) (map[string]*SeedConfig, error) {
	out := map[string]*SeedConfig{}
	for _, k := range seedConfigKinds {
		list, err := s.resource(k.kind).List(ctx, metav1.ListOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("listing %ss: %w", k.kind, err)
		}
		for i := range list.Items {
			c, err := seedConfigOf(k.kind, &list.Items[i])
			if err != nil {
				return nil, err
			}
			if _, taken := out[c.Name]; !taken {
				out[c.Name] = c
			}
		}
	}
	return out, nil
}

func seedConfigOf(kind SeedConfigKind, obj *unstructured.Unstructured) (*SeedConfig, error) {
	c := &SeedConfig{Kind: kind, Name: obj.GetName(), ResourceVersion: obj.GetResourceVersion()}
	seedConfig, found, err := unstructured.NestedMap(obj.Object, pathOf(kind)...)
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading seedConfig: %w", kind, obj.GetName(), err)
	}
	c.HasSeedConfig = found && seedConfig != nil
	taints, _, err := unstructured.NestedSlice(seedConfig, "spec", "taints")
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading seedConfig.spec.taints: %w", kind, obj.GetName(), err)
	}
	data, err := json.Marshal(taints)
	if err != nil {
		return nil, err
	}
	var keys []gardenerTaint
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, fmt.Errorf("%s %s: reading seedConfig.spec.taints: %w", kind, obj.GetName(), err)
	}
	for _, t := range keys {
		c.Taints = append(c.Taints, corev1alpha1.SeedTaint{Key: t.Key, Value: t.Value, Effect: corev1alpha1.TaintEffectNoSchedule})
	}
	return c, nil
}

// patchTaints replaces seedConfig.spec.taints with a merge patch pinned to
// the configuration's resourceVersion, touching nothing else.
func (s seedConfigs) patchTaints(ctx context.Context, c *SeedConfig, taints []corev1alpha1.SeedTaint, opts metav1.PatchOptions) (*SeedConfig, error) {
	if !c.HasSeedConfig {
		return nil, fmt.Errorf("%s holds no seedConfig to write taints into", c)
	}
	patch := map[string]any{"taints": Gardener.SeedTaints(taints)}
	path := pathOf(c.Kind)
	patch = map[string]any{"spec": patch}
	for i := len(path) - 1; i >= 0; i-- {
		patch = map[string]any{path[i]: patch}
	}
	patch["metadata"] = map[string]any{"resourceVersion": c.ResourceVersion}
	data, err := json.Marshal(patch)
	if err != nil {
		return nil, err
	}
	obj, err := s.resource(c.Kind).Patch(ctx, c.Name, types.MergePatchType, data, opts)
	if err != nil {
		return nil, err
	}
	return seedConfigOf(c.Kind, obj)
}
