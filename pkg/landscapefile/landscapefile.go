package landscapefile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/garden"
)

// Document says where an object came from.
type Document struct {
	// Source is the file name ("-" or "stdin" for standard input).
	Source string
	// Index is the document's 1-based position in its source.
	Index int
	// Item is the 1-based position inside a `kind: List` document; 0 otherwise.
	Item int
	// APIVersion, Kind, Namespace and Name describe the object, as written.
	APIVersion, Kind, Namespace, Name string
}

// String names the document for messages, e.g.
// `landscape.yaml document 3 (Shoot garden-dev/a)`.
func (d Document) String() string {
	s := fmt.Sprintf("%s document %d", d.Source, d.Index)
	if d.Item > 0 {
		s += fmt.Sprintf(" item %d", d.Item)
	}
	name := d.Name
	if d.Namespace != "" {
		name = d.Namespace + "/" + name
	}
	switch {
	case d.Kind != "" && name != "":
		s += fmt.Sprintf(" (%s %s)", d.Kind, name)
	case d.Kind != "":
		s += fmt.Sprintf(" (%s)", d.Kind)
	}
	return s
}

// Landscape is what a set of documents holds, in document order.
type Landscape struct {
	Seeds         []*v1alpha1.Seed
	Shoots        []*v1alpha1.Shoot
	CloudProfiles []*v1alpha1.CloudProfile
	// NamespacedCloudProfiles need their merged status.cloudProfileSpec, as
	// the API server holds them.
	NamespacedCloudProfiles []*v1alpha1.NamespacedCloudProfile
	ConfigMaps              []*corev1.ConfigMap
	// Projects is the Project of each namespace a Project names as its
	// spec.namespace (Gardener's Projects, read from core.gardener.cloud
	// documents or from the cluster; the name sorting first when several do).
	Projects map[string]string
	// RegionConfigNamespace is the one namespace region ConfigMaps count in,
	// as for graft-scheduler; "": every namespace.
	RegionConfigNamespace string
	// Migrates is set for a landscape read from a garden whose moves are
	// control-plane migrations (garden.Mover); never for files.
	Migrates bool
	// Skipped are the documents of kinds the landscape does not hold.
	Skipped []Document

	docs map[any]Document
}

// New returns an empty landscape.
func New() *Landscape { return &Landscape{docs: map[any]Document{}} }

// DocumentOf returns the document an object of this landscape was read from.
func (l *Landscape) DocumentOf(obj any) (Document, bool) {
	d, ok := l.docs[obj]
	return d, ok
}

var _ algorithm.Landscape = (*Landscape)(nil)

// CloudProfile returns the first cloud profile of that name.
func (l *Landscape) CloudProfile(name string) (*v1alpha1.CloudProfile, error) {
	for _, p := range l.CloudProfiles {
		if p.Name == name {
			return p, nil
		}
	}
	return nil, nil
}

// NamespacedCloudProfile returns the first NamespacedCloudProfile of that
// namespace and name.
func (l *Landscape) NamespacedCloudProfile(namespace, name string) (*v1alpha1.NamespacedCloudProfile, error) {
	for _, p := range l.NamespacedCloudProfiles {
		if p.Namespace == namespace && p.Name == name {
			return p, nil
		}
	}
	return nil, nil
}

// Project returns the Project of a namespace, "" when none is known.
func (l *Landscape) Project(namespace string) string { return l.Projects[namespace] }

// RegionConfigMaps are the landscape's ConfigMaps of RegionConfigNamespace
// (SelectRegionConfigMap picks the region ConfigMaps among them).
func (l *Landscape) RegionConfigMaps() []*corev1.ConfigMap {
	if l.RegionConfigNamespace == "" {
		return l.ConfigMaps
	}
	var in []*corev1.ConfigMap
	for _, cm := range l.ConfigMaps {
		if cm.Namespace == l.RegionConfigNamespace {
			in = append(in, cm)
		}
	}
	return in
}

// Migration is Migrates.
func (l *Landscape) Migration() bool { return l.Migrates }

// Read parses every document of r into a new landscape; source names r in
// messages.
func Read(r io.Reader, source string) (*Landscape, error) {
	l := New()
	return l, l.Read(r, source)
}

// Read adds every document of r to the landscape; source names r in messages.
// It stops at the first bad document.
func (l *Landscape) Read(r io.Reader, source string) error {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(r))
	// Documents are counted as a reader counts manifests: empty and
	// comment-only documents do not count.
	index := 0
	for {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		doc := Document{Source: source, Index: index + 1}
		if err != nil {
			return fmt.Errorf("%s: cannot read YAML: %w", doc, err)
		}
		data, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return fmt.Errorf("%s: malformed YAML: %w", doc, err)
		}
		data = bytes.TrimSpace(data)
		if len(data) == 0 || string(data) == "null" {
			continue
		}
		index++
		if err := l.add(doc, data); err != nil {
			return err
		}
	}
}

// header is the part of every object needed to place it.
type header struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Items []jsonRaw `json:"items"`
}

type jsonRaw []byte

func (j *jsonRaw) UnmarshalJSON(b []byte) error {
	*j = append((*j)[:0], b...)
	return nil
}

func (l *Landscape) add(doc Document, data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return nil // a document of comments only
	}
	if data[0] != '{' {
		return fmt.Errorf("%s: not an object (a Kubernetes manifest must be a YAML map)", doc)
	}
	var h header
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &h); err != nil {
		return fmt.Errorf("%s: cannot read apiVersion, kind and metadata: %w", doc, err)
	}
	doc.APIVersion, doc.Kind, doc.Namespace, doc.Name = h.APIVersion, h.Kind, h.Metadata.Namespace, h.Metadata.Name
	if h.APIVersion == "" || h.Kind == "" {
		return fmt.Errorf("%s: apiVersion and kind are required", doc)
	}
	gv, err := schema.ParseGroupVersion(h.APIVersion)
	if err != nil {
		return fmt.Errorf("%s: %w", doc, err)
	}
	if gv.Group == "" && h.Kind == "List" {
		for i, item := range h.Items {
			itemDoc := Document{Source: doc.Source, Index: doc.Index, Item: i + 1}
			if err := l.add(itemDoc, item); err != nil {
				return err
			}
		}
		return nil
	}

	switch gv.Group {
	case v1alpha1.GroupName, garden.GardenerGroup:
		want := v1alpha1.SchemeGroupVersion.Version
		if gv.Group == garden.GardenerGroup {
			want = garden.GardenerVersion
		}
		known := h.Kind == "Seed" || h.Kind == "Shoot" || h.Kind == "CloudProfile" || h.Kind == "NamespacedCloudProfile" ||
			(h.Kind == "Project" && gv.Group == garden.GardenerGroup)
		switch {
		case known && gv.Version != want:
			return fmt.Errorf("%s: unsupported version %s of %s: use %s/%s", doc, gv.Version, gv.Group, gv.Group, want)
		case !known && gv.Group == v1alpha1.GroupName:
			return fmt.Errorf("%s: unknown kind %q in %s: expected Seed, Shoot, CloudProfile or NamespacedCloudProfile", doc, h.Kind, h.APIVersion)
		case !known:
			l.Skipped = append(l.Skipped, doc)
			return nil
		}
		return l.addCore(doc, h.Kind, data)
	case "":
		if gv.Version == "v1" && h.Kind == "ConfigMap" {
			return decodeInto(l, &l.ConfigMaps, doc, data)
		}
	}
	l.Skipped = append(l.Skipped, doc)
	return nil
}

// addCore decodes a Seed, Shoot, CloudProfile or NamespacedCloudProfile of either API group into
// graft's type: the field names are Gardener's, so only apiVersion changes.
// Of a Gardener Project it keeps the namespace it names.
func (l *Landscape) addCore(doc Document, kind string, data []byte) error {
	switch kind {
	case "Seed":
		return decodeInto(l, &l.Seeds, doc, data)
	case "Shoot":
		return decodeInto(l, &l.Shoots, doc, data)
	case "CloudProfile":
		return decodeInto(l, &l.CloudProfiles, doc, data)
	case "NamespacedCloudProfile":
		return decodeInto(l, &l.NamespacedCloudProfiles, doc, data)
	case "Project":
		var p struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Spec struct {
				Namespace *string `json:"namespace"`
			} `json:"spec"`
		}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &p); err != nil {
			return fmt.Errorf("%s: %w", doc, err)
		}
		if ns := p.Spec.Namespace; ns != nil && *ns != "" {
			if l.Projects == nil {
				l.Projects = map[string]string{}
			}
			if cur, ok := l.Projects[*ns]; !ok || p.Metadata.Name < cur {
				l.Projects[*ns] = p.Metadata.Name
			}
		}
		return nil
	}
	return fmt.Errorf("%s: unknown kind %q", doc, kind)
}

// decodeInto decodes one object of a kind the landscape keeps, appends it to
// that kind's list and remembers its document for the messages about it.
func decodeInto[T any](l *Landscape, list *[]*T, doc Document, data []byte) error {
	obj := new(T)
	if err := decode(doc, data, obj); err != nil {
		return err
	}
	*list = append(*list, obj)
	l.docs[obj] = doc
	return nil
}

// decode reads an object case-sensitively, dropping unknown fields as the API
// server's pruning does, and sets graft's apiVersion and Gardener's semantics
// for Gardener objects (garden.Convert).
func decode(doc Document, data []byte, into any) error {
	if err := garden.Convert(data, into); err != nil {
		return fmt.Errorf("%s: %s", doc, err)
	}
	return nil
}
