package controlplane

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	graftclient "github.com/graft-dev/client-go/clientset/versioned"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

var applyScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	adders := []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, corev1alpha1.AddToScheme}
	for _, add := range adders {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// DecodeFile reads a multi-document YAML file of Namespaces, ConfigMaps and
// graft objects.
func DecodeFile(path string) ([]runtime.Object, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Decode(f)
}

// Decode reads a multi-document YAML stream of Namespaces, ConfigMaps and
// graft objects.
func Decode(r io.Reader) ([]runtime.Object, error) {
	decoder := serializer.NewCodecFactory(applyScheme).UniversalDeserializer()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(r))
	var objs []runtime.Object
	for i := 1; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading document %d: %w", i, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, _, err := decoder.Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("decoding document %d: %w", i, err)
		}
		objs = append(objs, obj)
	}
}

// Apply creates the objects, or updates them when they exist. The status of
// Seeds and Shoots is written through the status subresource, so a landscape
// file can describe ready seeds without a gardenlet.
func Apply(ctx context.Context, cfg *rest.Config, objs []runtime.Object) error {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	graft, err := graftclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if err := applyOne(ctx, kube, graft, obj); err != nil {
			return err
		}
	}
	return nil
}

func applyOne(ctx context.Context, kube kubernetes.Interface, graft graftclient.Interface, obj runtime.Object) error {
	switch o := obj.(type) {
	case *corev1.Namespace:
		_, err := kube.CoreV1().Namespaces().Create(ctx, o, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return wrap("namespace", o.Name, err)
	case *corev1.ConfigMap:
		return wrap("configmap", o.Namespace+"/"+o.Name, createOrUpdate(ctx, kube.CoreV1().ConfigMaps(o.Namespace), o))
	case *corev1alpha1.CloudProfile:
		return wrap("cloudprofile", o.Name, createOrUpdate(ctx, graft.CoreV1alpha1().CloudProfiles(), o))
	case *corev1alpha1.Seed:
		c, status := graft.CoreV1alpha1().Seeds(), o.Status
		err := createOrUpdate(ctx, c, o)
		if err == nil && !isZeroSeedStatus(status) {
			// Controllers may change the new seed at once; write the status on
			// top of whatever they wrote.
			err = updateStatus(ctx, c, o.Name, func(cur *corev1alpha1.Seed) { mergeSeedStatus(&cur.Status, status) })
		}
		return wrap("seed", o.Name, err)
	case *corev1alpha1.Shoot:
		c, status := graft.CoreV1alpha1().Shoots(o.Namespace), o.Status
		err := createOrUpdate(ctx, c, o)
		if err == nil && (status.LastOperation != nil || status.SeedName != nil || status.Networking != nil) {
			err = updateStatus(ctx, c, o.Name, func(cur *corev1alpha1.Shoot) { cur.Status = status })
		}
		return wrap("shoot", o.Namespace+"/"+o.Name, err)
	default:
		return fmt.Errorf("cannot apply a %T", obj)
	}
}

// updateStatus changes the live object's status with set and writes it
// through the status subresource.
func updateStatus[T metav1.Object](ctx context.Context, c interface {
	Get(context.Context, string, metav1.GetOptions) (T, error)
	UpdateStatus(context.Context, T, metav1.UpdateOptions) (T, error)
}, name string, set func(T)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := c.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		set(cur)
		_, err = c.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})
}

// mergeSeedStatus sets the parts of a seed's status that the landscape gives,
// keeping what controllers wrote for the rest (such as usage).
func mergeSeedStatus(cur *corev1alpha1.SeedStatus, want corev1alpha1.SeedStatus) {
	if len(want.Conditions) > 0 {
		cur.Conditions = want.Conditions
	}
	if want.LastOperation != nil {
		cur.LastOperation = want.LastOperation
	}
	if len(want.Capacity) > 0 {
		cur.Capacity = want.Capacity
	}
	if len(want.Allocatable) > 0 {
		cur.Allocatable = want.Allocatable
	}
	if len(want.Usage) > 0 {
		cur.Usage = want.Usage
	}
}

func isZeroSeedStatus(s corev1alpha1.SeedStatus) bool {
	return len(s.Conditions) == 0 && s.LastOperation == nil && len(s.Capacity) == 0 && len(s.Allocatable) == 0 && len(s.Usage) == 0
}

func wrap(kind, name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("applying %s %s: %w", kind, name, err)
}
