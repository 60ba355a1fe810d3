package garden

import (
	"bytes"
	"context"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// typedDynamic is the Dynamic NewDynamic returns: the dynamic client, and a
// REST client of core.gardener.cloud/v1beta1 that decodes Gardener's objects
// straight into graft's types. The informers and bindings, which read every
// Shoot a garden changes, use the latter: decoding into maps and converting
// those costs 2.5 times the CPU and 6 times the memory (BenchmarkGardenerDecode).
type typedDynamic struct {
	dynamic.Interface
	typed rest.Interface
}

// typedOf returns the typed client behind client, nil for a Dynamic that
// NewDynamic did not build (a test's fake), which takes the dynamic path.
func typedOf(client Dynamic) rest.Interface {
	if t, ok := client.(typedDynamic); ok {
		return t.typed
	}
	return nil
}

// NewDynamic builds the client of Gardener's groups from cfg.
func NewDynamic(cfg *rest.Config) (Dynamic, error) {
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	typedCfg := rest.CopyConfig(cfg)
	gv := Gardener.GroupVersion()
	typedCfg.GroupVersion = &gv
	typedCfg.APIPath = "/apis"
	typedCfg.ContentType = runtime.ContentTypeJSON
	typedCfg.AcceptContentTypes = runtime.ContentTypeJSON
	typedCfg.NegotiatedSerializer = gardenerSerializer{}
	typed, err := rest.RESTClientForConfigAndClient(typedCfg, httpClient)
	if err != nil {
		return nil, err
	}
	return typedDynamic{Interface: dyn, typed: typed}, nil
}

// gardenerSerializer decodes the JSON gardener-apiserver sends: its Seeds,
// Shoots, cloud profiles and their lists into graft's types by Convert's
// rules, Status and watch events as any client does. Requests carry no body
// it encodes: their options go into the URL, patches are bytes.
type gardenerSerializer struct{}

func (gardenerSerializer) SupportedMediaTypes() []runtime.SerializerInfo {
	return []runtime.SerializerInfo{{
		MediaType:        runtime.ContentTypeJSON,
		MediaTypeType:    "application",
		MediaTypeSubType: "json",
		EncodesAsText:    true,
		Serializer:       gardenerJSON{},
		StreamSerializer: &runtime.StreamSerializerInfo{EncodesAsText: true, Serializer: gardenerJSON{}, Framer: json.Framer},
	}}
}

func (gardenerSerializer) EncoderForVersion(e runtime.Encoder, _ runtime.GroupVersioner) runtime.Encoder {
	return e
}

func (gardenerSerializer) DecoderToVersion(d runtime.Decoder, _ runtime.GroupVersioner) runtime.Decoder {
	return d
}

// gardenerJSON is the serializer's decoder.
type gardenerJSON struct{}

// gardenerTypes are the objects gardenerJSON decodes, by kind.
var gardenerTypes = map[string]func() runtime.Object{
	"Seed":                       func() runtime.Object { return &v1alpha1.Seed{} },
	"SeedList":                   func() runtime.Object { return &v1alpha1.SeedList{} },
	"Shoot":                      func() runtime.Object { return &v1alpha1.Shoot{} },
	"ShootList":                  func() runtime.Object { return &v1alpha1.ShootList{} },
	"CloudProfile":               func() runtime.Object { return &v1alpha1.CloudProfile{} },
	"CloudProfileList":           func() runtime.Object { return &v1alpha1.CloudProfileList{} },
	"NamespacedCloudProfile":     func() runtime.Object { return &v1alpha1.NamespacedCloudProfile{} },
	"NamespacedCloudProfileList": func() runtime.Object { return &v1alpha1.NamespacedCloudProfileList{} },
	"Status":                     func() runtime.Object { return &metav1.Status{} },
}

// Decode decodes data into into when it is given (the object a request
// asked for, a watch event, a Status), or else into the type of its kind.
func (gardenerJSON) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if into == nil {
		kind := leadingKind(data)
		if kind == "" {
			gvk, err := json.DefaultMetaFactory.Interpret(data)
			if err != nil {
				return nil, nil, err
			}
			kind = gvk.Kind
		}
		if kind == "" && defaults != nil {
			kind = defaults.Kind
		}
		newObject, ok := gardenerTypes[kind]
		if !ok {
			return nil, nil, fmt.Errorf("graft reads no %s of %s", kind, GardenerGroup)
		}
		into = newObject()
	}
	if err := Convert(data, into); err != nil {
		return nil, nil, fmt.Errorf("decoding %T: %w", into, err)
	}
	gvk := into.GetObjectKind().GroupVersionKind()
	return into, &gvk, nil
}

// leadingKind is the kind of an object the API server wrote, which begins
// with it ({"kind":"Shoot",...}), without reading the rest; "" when data
// does not begin so.
func leadingKind(data []byte) string {
	const prefix = `{"kind":"`
	rest, ok := bytes.CutPrefix(data, []byte(prefix))
	if !ok {
		return ""
	}
	kind, _, ok := bytes.Cut(rest, []byte(`"`))
	if !ok || bytes.IndexByte(kind, '\\') >= 0 {
		return ""
	}
	return string(kind)
}

func (gardenerJSON) Encode(runtime.Object, io.Writer) error {
	return fmt.Errorf("the typed Gardener client sends no objects")
}

func (gardenerJSON) Identifier() runtime.Identifier { return "graft-gardener-json" }

// typedListWatch lists and watches resource of Gardener's group in every
// namespace through the typed client.
func typedListWatch(client rest.Interface, resource string) cache.ListerWatcher {
	return cache.ToListWatcherWithWatchListSemantics(listWatch(client, resource), client)
}

func listWatch(client rest.Interface, resource string) *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return client.Get().Resource(resource).SpecificallyVersionedParams(&opts, metav1.ParameterCodec, metav1.SchemeGroupVersion).Do(ctx).Get()
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.Watch = true
			return client.Get().Resource(resource).SpecificallyVersionedParams(&opts, metav1.ParameterCodec, metav1.SchemeGroupVersion).Watch(ctx)
		},
	}
}

// GardenerListWatch lists and watches resource (seeds, shoots,
// cloudprofiles) of Gardener's group in every namespace, decoded into
// graft's types, for a client NewDynamic built.
func GardenerListWatch(client Dynamic, resource string) (*cache.ListWatch, error) {
	typed := typedOf(client)
	if typed == nil {
		return nil, fmt.Errorf("the client of %s was not built by NewDynamic", GardenerGroup)
	}
	return listWatch(typed, resource), nil
}

// bindTyped is bindGardener through the typed client: the bound Shoot is
// decoded straight into graft's type.
func bindTyped(ctx context.Context, client rest.Interface, namespace, name string, pt types.PatchType, patch []byte, opts metav1.PatchOptions) (*v1alpha1.Shoot, error) {
	bound := &v1alpha1.Shoot{}
	err := client.Patch(pt).Namespace(namespace).Resource("shoots").Name(name).SubResource("binding").
		SpecificallyVersionedParams(&opts, metav1.ParameterCodec, metav1.SchemeGroupVersion).Body(patch).Do(ctx).Into(bound)
	if err != nil {
		return nil, err
	}
	return bound, nil
}
