//go:build integration

package graftctl

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"

	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/schedulingconfig"

	"github.com/graft-dev/graft/test/framework"
)

// TestDescribeReadsTheLeaseWithTheDocumentedRole runs graftctl describe as a
// user who may read the garden, with and without the Role of docs/operations.md that
// grants get on graft-scheduler's Lease.
func TestDescribeReadsTheLeaseWithTheDocumentedRole(t *testing.T) {
	ctx := t.Context()
	l := newLandscape(t, "gctl-lease-rbac", "a")
	if err := l.CreateShoots(ctx, []*corev1alpha1.Shoot{l.NewShoot("new", "")}, 1); err != nil {
		t.Fatal(err)
	}
	kube := framework.Shared(t).KubeClient()
	const lease = "gctl-lease-rbac-scheduler"
	if _, err := kube.CoordinationV1().Leases(corev1alpha1.GardenNamespace).Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: lease, Annotations: map[string]string{
			schedulingconfig.Annotation: `{"version":"v1","strategy":"MinimalDistance","scoreWeights":{"LeastAllocated":3}}`,
		}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kube.CoordinationV1().Leases(corev1alpha1.GardenNamespace).Delete(context.Background(), lease, metav1.DeleteOptions{})
	})

	// A reader of the garden: what describe reads, nothing on Leases.
	const sa = "describer"
	if _, err := kube.CoreV1().ServiceAccounts(l.Name).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: l.Name, Name: sa}}
	reader := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: l.Name + "-describer"},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"core.graft.dev"}, Resources: []string{"shoots", "seeds", "cloudprofiles"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{""}, Resources: []string{"events", "configmaps"}, Verbs: []string{"list"}},
		},
	}
	readerBinding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: reader.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: reader.Name},
		Subjects:   subjects,
	}
	// The Role of docs/operations.md.
	leaseReader := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: corev1alpha1.GardenNamespace, Name: l.Name + "-scheduling-configuration"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{lease}, Verbs: []string{"get"}}},
	}
	leaseBinding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: corev1alpha1.GardenNamespace, Name: leaseReader.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: leaseReader.Name},
		Subjects:   subjects,
	}
	rbac := kube.RbacV1()
	if _, err := rbac.ClusterRoles().Create(ctx, reader, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rbac.ClusterRoleBindings().Create(ctx, readerBinding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_ = rbac.ClusterRoleBindings().Delete(ctx, readerBinding.Name, metav1.DeleteOptions{})
		_ = rbac.ClusterRoles().Delete(ctx, reader.Name, metav1.DeleteOptions{})
		_ = rbac.RoleBindings(corev1alpha1.GardenNamespace).Delete(ctx, leaseBinding.Name, metav1.DeleteOptions{})
		_ = rbac.Roles(corev1alpha1.GardenNamespace).Delete(ctx, leaseReader.Name, metav1.DeleteOptions{})
	})
	// Every rule of the reader's role in effect, so that the only refusal
	// describe can meet below is the one on the Lease.
	for _, rule := range reader.Rules {
		for _, resource := range rule.Resources {
			attrs := authorizationv1.ResourceAttributes{Namespace: l.Name, Verb: rule.Verbs[len(rule.Verbs)-1], Group: rule.APIGroups[0], Resource: resource}
			if err := controlplane.WaitAuthorized(ctx, kube, "system:serviceaccount:"+l.Name+":"+sa, controlplane.ServiceAccountGroups(l.Name), attrs); err != nil {
				t.Fatal(err)
			}
		}
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := controlplane.WriteServiceAccountKubeconfig(ctx, envConfig(t), l.Name, sa, kubeconfig); err != nil {
		t.Fatal(err)
	}
	describe := func() result {
		return graftctlAs(ctx, kubeconfig, "describe", "shoot", "new", "-n", l.Name, "--scheduler-lease-name="+lease)
	}

	// Without the Role: the defaults, said so on both streams.
	r := describe()
	forbidden := `(defaults: the scheduler's Lease garden/` + lease + ` could not be read: leases.coordination.k8s.io "` + lease + `" is forbidden: `
	if r.err != nil || !strings.Contains(r.out, "  Scheduling configuration: SameRegion, no score weights "+forbidden) ||
		!strings.Contains(r.errOut, "Warning: explaining with the default scheduling configuration") {
		t.Fatalf("describe without the Lease Role: %v\nstdout:\n%s\nstderr:\n%s", r.err, r.out, r.errOut)
	}

	// With it (authorization follows RBAC changes within moments).
	if _, err := rbac.Roles(corev1alpha1.GardenNamespace).Create(ctx, leaseReader, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rbac.RoleBindings(corev1alpha1.GardenNamespace).Create(ctx, leaseBinding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "  Scheduling configuration: MinimalDistance, score weights LeastAllocated=3 (from Lease garden/" + lease + ")\n"
	framework.WaitFor(t, "describe to read the Lease with the Role of docs/operations.md", 30*time.Second, func(context.Context) (bool, error) {
		r = describe()
		return r.err == nil && strings.Contains(r.out, want), r.err
	})
	if r.errOut != "" {
		t.Errorf("stderr: %s", r.errOut)
	}
}
