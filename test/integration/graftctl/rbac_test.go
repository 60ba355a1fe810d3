//go:build integration

package graftctl

import (
	"context"
	"strings"
	"testing"

	"github.com/graft-dev/graft/pkg/controlplane"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/test/framework"
)

func envConfig(t *testing.T) *rest.Config {
	return framework.Shared(t).Config()
}

// viewerKubeconfig creates a ServiceAccount that may get and list seeds but
// not patch them, and returns a kubeconfig with its token.
func viewerKubeconfig(t *testing.T, namespace string) string {
	t.Helper()
	ctx := t.Context()
	kube := framework.Shared(t).KubeClient()
	if _, err := kube.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "seed-viewer"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: namespace + "-seed-viewer"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"core.graft.dev"}, Resources: []string{"seeds"}, Verbs: []string{"get", "list", "watch"}}},
	}
	if _, err := kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: "seed-viewer"}},
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_ = kube.RbacV1().ClusterRoleBindings().Delete(ctx, binding.Name, metav1.DeleteOptions{})
		_ = kube.RbacV1().ClusterRoles().Delete(ctx, role.Name, metav1.DeleteOptions{})
	})
	viewer := "system:serviceaccount:" + namespace + ":seed-viewer"
	if err := controlplane.WaitAuthorized(ctx, kube, viewer, controlplane.ServiceAccountGroups(namespace),
		authorizationv1.ResourceAttributes{Verb: "list", Group: "core.graft.dev", Resource: "seeds"}); err != nil {
		t.Fatal(err)
	}
	token, err := kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, "seed-viewer", &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	admin := envConfig(t)
	cfg := &rest.Config{Host: admin.Host, BearerToken: token.Status.Token, TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData, Insecure: admin.Insecure}}
	if len(cfg.CAData) == 0 && admin.CAFile != "" && !admin.Insecure {
		cfg.CAFile = admin.CAFile
	}
	path := tempKubeconfig(t)
	if err := controlplane.WriteKubeconfig(path, cfg, "seed-viewer"); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestForbiddenUserGetsTheAPIServersMessage(t *testing.T) {
	l := newLandscape(t, "gctl-rbac", "a")
	a := l.SeedName("a")
	kubeconfig := viewerKubeconfig(t, l.Name)
	ctx := t.Context()

	// Reading is allowed: get seeds works, with "-" for usage it may not count.
	r := graftctlAs(ctx, kubeconfig, "get", "seeds", a)
	if r.err != nil || !strings.Contains(r.out, a) {
		t.Fatalf("get seeds as viewer: %v\n%s%s", r.err, r.out, r.errOut)
	}

	forbidden := `error: seeds.core.graft.dev "` + a + `" is forbidden: User "system:serviceaccount:` + l.Name + `:seed-viewer" cannot patch resource "seeds" in API group "core.graft.dev" at the cluster scope` + "\n"
	for _, args := range [][]string{
		{"cordon", a},
		{"taint", "seed", a, "k=v:NoSchedule"},
		{"taint", "seed", a, "k=v:NoSchedule", "--dry-run=server"},
		{"drain", a, "--wait=false"},
	} {
		r := graftctlAs(ctx, kubeconfig, args...)
		if r.err == nil {
			t.Errorf("graftctl %q as viewer succeeded", args)
			continue
		}
		if r.errOut != forbidden {
			t.Errorf("graftctl %q as viewer printed\n%q\nwant\n%q", args, r.errOut, forbidden)
		}
		if strings.Contains(r.errOut, "goroutine") || strings.Contains(r.out, "goroutine") {
			t.Errorf("graftctl %q printed a stack trace", args)
		}
	}
	if got := liveTaints(t, l, "a"); got != "<none>" {
		t.Errorf("the viewer changed the seed: %s", got)
	}
}
