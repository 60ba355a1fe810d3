//go:build integration

package admission

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"
	"github.com/graft-dev/graft/pkg/coretest"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	graftclient "github.com/graft-dev/client-go/clientset/versioned"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/framework"
)

// shootRules are a tenant's rights on shoots: everything, status included, so
// that what refuses a write in these tests is the admission policy, not RBAC.
var shootRules = []rbacv1.PolicyRule{{
	APIGroups: []string{v1alpha1.GroupName},
	Resources: []string{"shoots", "shoots/status"},
	Verbs:     []string{"get", "list", "watch", "create", "update", "patch", "delete"},
}}

// waitAuthorized waits until RBAC lets the user (with the groups) create
// shoots in the namespace ("" for every namespace), so that what refuses a
// later write is admission, not a binding the authorizer has not seen yet.
func waitAuthorized(t *testing.T, namespace, user string, groups ...string) {
	t.Helper()
	attrs := authorizationv1.ResourceAttributes{Namespace: namespace, Verb: "create", Group: v1alpha1.GroupName, Resource: "shoots"}
	if err := controlplane.WaitAuthorized(t.Context(), framework.Shared(t).KubeClient(), user, groups, attrs); err != nil {
		t.Fatal(err)
	}
}

// newNamespace creates a namespace for one test.
func newNamespace(t *testing.T, name string) string {
	t.Helper()
	kube := framework.Shared(t).KubeClient()
	if _, err := kube.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return name
}

// tenantClient returns a client authenticated as ServiceAccount "tenant" of
// the namespace, with edit rights on the shoots of that namespace only.
func tenantClient(t *testing.T, namespace string) graftclient.Interface {
	t.Helper()
	ctx := t.Context()
	kube := framework.Shared(t).KubeClient()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "shoot-editor", Namespace: namespace}, Rules: shootRules}
	if _, err := kube.RbacV1().Roles(namespace).Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "tenant-shoot-editor", Namespace: namespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: "tenant"}},
	}
	if _, err := kube.RbacV1().RoleBindings(namespace).Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	cfg := serviceAccountConfig(t, namespace, "tenant")
	waitAuthorized(t, namespace, userOf(namespace, "tenant"), controlplane.ServiceAccountGroups(namespace)...)
	return graftclient.NewForConfigOrDie(cfg)
}

// componentClient returns a client authenticated as a ServiceAccount with
// rights on shoots in every namespace, as a component's ClusterRole gives.
func componentClient(t *testing.T, namespace, name string) graftclient.Interface {
	t.Helper()
	return graftclient.NewForConfigOrDie(componentConfig(t, namespace, name))
}

func componentConfig(t *testing.T, namespace, name string) *rest.Config {
	t.Helper()
	ctx := t.Context()
	kube := framework.Shared(t).KubeClient()
	roleName := "admission-test-" + namespace + "-" + name
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: roleName}, Rules: append([]rbacv1.PolicyRule{
		{APIGroups: []string{v1alpha1.GroupName}, Resources: []string{"seeds", "cloudprofiles", "namespacedcloudprofiles"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
	}, shootRules...)}
	if _, err := kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: roleName},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: roleName},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}},
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	cfg := serviceAccountConfig(t, namespace, name)
	waitAuthorized(t, "", userOf(namespace, name), controlplane.ServiceAccountGroups(namespace)...)
	return cfg
}

// serviceAccountConfig creates the ServiceAccount unless it exists and
// returns a configuration with a token of it from the TokenRequest API.
func serviceAccountConfig(t *testing.T, namespace, name string) *rest.Config {
	t.Helper()
	ctx := t.Context()
	kube := framework.Shared(t).KubeClient()
	if _, err := kube.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	tr, err := kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	admin := framework.Shared(t).Config()
	return &rest.Config{Host: admin.Host, BearerToken: tr.Status.Token, TLSClientConfig: admin.TLSClientConfig, QPS: -1}
}

// impersonating returns an admin client acting as the user with the groups.
func impersonating(t *testing.T, user string, groups ...string) graftclient.Interface {
	t.Helper()
	cfg := framework.Shared(t).Config()
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	return graftclient.NewForConfigOrDie(cfg)
}

func admin(t *testing.T) graftclient.Interface {
	return framework.Shared(t).GraftClient()
}

// unscheduledShoot is the shoot of these tests: nothing schedules it unless
// a test runs a scheduler for its provider type.
func unscheduledShoot(namespace, name string) *coretest.ShootWrapper {
	return coretest.MakeShoot(namespace, name).CloudProfileName("admission-test").Provider("admission-test", "nowhere").
		// No scheduler answers to this name: the shoots stay as the test leaves them.
		SchedulerName("admission-test-no-scheduler")
}

func create(ctx context.Context, c graftclient.Interface, s *v1alpha1.Shoot, dryRun bool) (*v1alpha1.Shoot, error) {
	opts := metav1.CreateOptions{}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return c.CoreV1alpha1().Shoots(s.Namespace).Create(ctx, s, opts)
}

// mergePatch patches the shoot (or its status) with a merge patch.
func mergePatch(ctx context.Context, c graftclient.Interface, namespace, name, patch string, subresources ...string) (*v1alpha1.Shoot, error) {
	return c.CoreV1alpha1().Shoots(namespace).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, subresources...)
}

// expectRefused fails unless err is the API server's refusal of a request
// by the named admission policy, with a message holding every part.
func expectRefused(t *testing.T, what string, err error, policy string, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: allowed, want it refused by %s", what, policy)
		return
	}
	if !apierrors.IsForbidden(err) && !apierrors.IsInvalid(err) {
		t.Errorf("%s: %v, want a refusal by %s", what, err, policy)
		return
	}
	msg := err.Error()
	if !strings.Contains(msg, "'"+policy+"'") {
		t.Errorf("%s: refused with\n%s\nnot by %s", what, msg, policy)
	}
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("%s: message\n%s\ndoes not say %q", what, msg, p)
		}
	}
}

func expectAllowed(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// waitEnforced retries a probe (a dry-run request that the policy refuses)
// until the API server refuses it by the named policy: the API server loads
// policies a moment after they are written, and a test that starts earlier
// would see requests pass that the policy refuses.
func waitEnforced(t *testing.T, policy string, probe func(context.Context) error) {
	t.Helper()
	last := errors.New("the probe was allowed")
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		err := probe(ctx)
		if ctx.Err() != nil {
			return false, nil
		}
		if err == nil {
			err = errors.New("the probe was allowed")
		}
		last = err
		return strings.Contains(err.Error(), "'"+policy+"'"), nil
	})
	if err != nil {
		t.Fatalf("policy %s not enforced after 2m: %v (last probe: %v)", policy, err, last)
	}
}

func userOf(namespace, sa string) string {
	return fmt.Sprintf("system:serviceaccount:%s:%s", namespace, sa)
}
