package gardenerlandscape

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// ProjectSpec is a project with its namespace, cloud profile, credentials and
// seeds, as the Gardener tests and `make demo-gardener` create it.
type ProjectSpec struct {
	Name, Namespace, CloudProfile, Credentials, DNSSecret string
	Regions                                               []string
	// Seeds are made Gardener Seeds with DNSSecret (see Seed).
	Seeds []*v1alpha1.Seed
}

// Creator creates objects through gardener-apiserver, each through Gardener's
// validation and admission, repeating a write its admission refused only for
// a cache miss (Admitted).
type Creator struct {
	Dynamic dynamic.Interface
	Kube    kubernetes.Interface
	// OnMiss is told of each write repeated; nil for none.
	OnMiss func(error)
	// Created is told of each object created or, existing already, kept;
	// nil for none.
	Created func(obj *unstructured.Unstructured, existed bool)
}

// Create creates the project's namespace (Gardener's project controller
// would; none runs here), cloud profile, Project, credentials with their
// binding, DNS secret and seeds. Objects that exist already are kept.
func (c Creator) Create(ctx context.Context, p ProjectSpec) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.Namespace}}
	if _, err := c.Kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", p.Namespace, err)
	}
	manifests := []struct {
		gvr       schema.GroupVersionResource
		namespace string
		manifest  string
	}{
		{CloudProfiles, "", CloudProfile(p.CloudProfile, p.Regions...)},
		{Projects, "", Project(p.Name, p.Namespace)},
		{Secrets, p.Namespace, Secret(p.Credentials, p.Namespace)},
		{CredentialsBindings, p.Namespace, CredentialsBinding(p.Credentials, p.Namespace)},
		{Secrets, DNSSecretNamespace, Secret(p.DNSSecret, DNSSecretNamespace)},
	}
	for _, m := range manifests {
		obj, err := Object(m.manifest)
		if err != nil {
			return err
		}
		if _, err := c.Apply(ctx, m.gvr, m.namespace, obj); err != nil {
			return err
		}
	}
	for _, s := range p.Seeds {
		obj, err := Seed(s, p.DNSSecret)
		if err != nil {
			return err
		}
		if _, err := c.Apply(ctx, Seeds, "", obj); err != nil {
			return err
		}
	}
	return nil
}

// Apply creates the object unless it exists, and returns it.
func (c Creator) Apply(ctx context.Context, gvr schema.GroupVersionResource, namespace string, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	var created *unstructured.Unstructured
	err := Admitted(ctx, func(ctx context.Context) (err error) {
		created, err = c.Dynamic.Resource(gvr).Namespace(namespace).Create(ctx, obj, metav1.CreateOptions{})
		return err
	}, c.OnMiss)
	existed := apierrors.IsAlreadyExists(err)
	switch {
	case existed:
		created = obj
	case err != nil:
		return nil, fmt.Errorf("creating %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	if c.Created != nil {
		c.Created(created, existed)
	}
	return created, nil
}

// MarkReady gives a seed the status a ready gardenlet would report (see
// ReadyStatus).
func (c Creator) MarkReady(ctx context.Context, name string, allocatable int) error {
	client := c.Dynamic.Resource(Seeds)
	return Admitted(ctx, func(ctx context.Context) error {
		// A running gardenlet writes the status too.
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			seed, err := client.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			seed.Object["status"] = ReadyStatus(seed, allocatable, time.Now())
			_, err = client.UpdateStatus(ctx, seed, metav1.UpdateOptions{})
			return err
		})
	}, c.OnMiss)
}

// DeleteShoot deletes a shoot as a tenant does: it confirms the deletion
// (confirmation.gardener.cloud/deletion, which Gardener's admission
// requires), then deletes, repeating the delete while admission's cache has
// not seen the confirmation yet. A shoot that is gone already is no error.
func (c Creator) DeleteShoot(ctx context.Context, namespace, name string) error {
	client := c.Dynamic.Resource(Shoots).Namespace(namespace)
	confirm := []byte(`{"metadata":{"annotations":{"confirmation.gardener.cloud/deletion":"true"}}}`)
	if _, err := client.Patch(ctx, name, types.MergePatchType, confirm, metav1.PatchOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	err := Admitted(ctx, func(ctx context.Context) error {
		err := client.Delete(ctx, name, metav1.DeleteOptions{})
		if apierrors.IsForbidden(err) && strings.Contains(err.Error(), "confirmation") {
			// Admission's cache is behind the patch: Admitted repeats a
			// write refused for a miss.
			return apierrors.NewNotFound(Shoots.GroupResource(), name)
		}
		return err
	}, c.OnMiss)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
