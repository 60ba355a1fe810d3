//go:build integration

package scheduler

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/test/framework"
)

// replica is one graft-scheduler process authenticated with its own token.
type replica struct {
	name string
	// credentialID is how the audit log names the replica's token.
	credentialID string
	cmd          *exec.Cmd
	log          string
	exited       chan error
}

// buildScheduler builds graft-scheduler from this tree into dir.
func buildScheduler(t *testing.T, dir string) string {
	t.Helper()
	if _, err := controlplane.BuildBinaries(context.Background(), dir, "graft-scheduler"); err != nil {
		t.Fatalf("building graft-scheduler: %v", err)
	}
	return filepath.Join(dir, "graft-scheduler")
}

// serviceAccountToken returns a new token of the ServiceAccount and the
// credential id the API server records for it (its JWT id).
func serviceAccountToken(t *testing.T, f *fixture, namespace, name string) (token, credentialID string) {
	t.Helper()
	tr, err := f.env.KubeClient().CoreV1().ServiceAccounts(namespace).CreateToken(f.ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(tr.Status.Token, ".")
	if len(parts) != 3 {
		t.Fatalf("token is not a JWT")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		JTI string `json:"jti"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil || claims.JTI == "" {
		t.Fatalf("token has no jti (%v)", err)
	}
	return tr.Status.Token, "JTI=" + claims.JTI
}

// pausedLeaseDuration is the replicas' lease. Its renew deadline is 7s:
// writes are fenced to within it of the last renewal, and a loaded two-core
// machine can take seconds to renew, so a deadline of a few seconds would
// refuse writes the test waits for.
const pausedLeaseDuration = 10 * time.Second

// startReplica runs graft-scheduler with its own token and a short lease.
func startReplica(t *testing.T, f *fixture, bin, dir, name, token, credentialID, lease string) *replica {
	t.Helper()
	cfg := f.env.Config()
	cfg.BearerToken = token
	kubeconfig := filepath.Join(dir, name+".kubeconfig")
	if err := controlplane.WriteKubeconfig(kubeconfig, cfg, "garden"); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(config, []byte(fmt.Sprintf(`apiVersion: config.graft.dev/v1alpha1
kind: SchedulerConfiguration
clientConnection: {kubeconfig: %s, qps: 100, burst: 200}
leaderElection:
  leaderElect: true
  resourceNamespace: %s
  resourceName: %s
  leaseDuration: %s
  renewDeadline: 7s
  retryPeriod: 1s
server: {healthProbeBindAddress: "127.0.0.1:0", metricsBindAddress: "127.0.0.1:0"}
logging: {verbosity: 2}
`, kubeconfig, f.ns, lease, pausedLeaseDuration)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &replica{name: name, credentialID: credentialID, log: filepath.Join(dir, name+".log"), exited: make(chan error, 1)}
	logFile, err := os.Create(r.log)
	if err != nil {
		t.Fatal(err)
	}
	r.cmd = exec.Command(bin, "--config", config)
	r.cmd.Stdout, r.cmd.Stderr = logFile, logFile
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r.exited <- r.cmd.Wait()
		logFile.Close()
	}()
	t.Cleanup(func() {
		_ = r.cmd.Process.Signal(syscall.SIGCONT)
		_ = r.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.exited:
		case <-time.After(20 * time.Second):
			_ = r.cmd.Process.Kill()
		}
		if t.Failed() {
			if out, err := os.ReadFile(r.log); err == nil {
				t.Logf("log of %s:\n%s", r.name, out)
			}
		}
	})
	return r
}

func (r *replica) logContains(s string) bool {
	out, err := os.ReadFile(r.log)
	return err == nil && strings.Contains(string(out), s)
}

// auditedWrite is one write in the API server's audit log.
type auditedWrite struct {
	Verb string `json:"verb"`
	User struct {
		Username string              `json:"username"`
		Extra    map[string][]string `json:"extra"`
	} `json:"user"`
	ObjectRef struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestReceivedTimestamp metav1.MicroTime `json:"requestReceivedTimestamp"`
}

// writesBy returns the audited writes sent with the credential at or after since.
func writesBy(t *testing.T, auditLog, credentialID string, since time.Time) []auditedWrite {
	t.Helper()
	file, err := os.Open(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var out []auditedWrite
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var w auditedWrite
		if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
			continue
		}
		ids := w.User.Extra["authentication.kubernetes.io/credential-id"]
		if len(ids) == 1 && ids[0] == credentialID && !w.RequestReceivedTimestamp.Time.Before(since) {
			out = append(out, w)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPausedLeaderDoesNotWrite stops the leading graft-scheduler process
// (SIGSTOP) for longer than its lease, lets the other replica take over and
// place new shoots, then resumes it: the resumed process must send no write
// at all (its cache is as old as the pause), and no seed may end above its
// allocatable. Each replica authenticates with its own token, and the API
// server's audit log tells their writes apart.
func TestPausedLeaderDoesNotWrite(t *testing.T) {
	env := framework.Shared(t)
	if env.ControlPlane == nil || env.ControlPlane.AuditLog == "" {
		t.Skip("needs the local control plane's audit log")
	}
	f := newFixture(t)
	dir := t.TempDir()
	bin := buildScheduler(t, dir)

	// The seed assignment policy lets graft-system/graft-scheduler bind.
	kube := f.env.KubeClient()
	ensureNamespace(t, controlplane.ComponentNamespace)
	_, err := kube.CoreV1().ServiceAccounts(controlplane.ComponentNamespace).Create(f.ctx,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "graft-scheduler"}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "paused-leader-" + f.name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: controlplane.ComponentNamespace, Name: "graft-scheduler"}},
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(f.ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
	})

	seeds := map[string]int64{}
	for name, alloc := range map[string]int64{"a": 3, "b": 3} {
		seeds[f.createSeed(name, "eu-west-1", ptr.To(alloc), nil).Name] = alloc
	}
	lease := "paused-" + f.name
	holder := func() string {
		l, err := kube.CoordinationV1().Leases(f.ns).Get(f.ctx, lease, metav1.GetOptions{})
		if err != nil {
			return ""
		}
		return ptr.Deref(l.Spec.HolderIdentity, "")
	}

	tokenA, credA := serviceAccountToken(t, f, controlplane.ComponentNamespace, "graft-scheduler")
	tokenB, credB := serviceAccountToken(t, f, controlplane.ComponentNamespace, "graft-scheduler")
	a := startReplica(t, f, bin, dir, "first", tokenA, credA, lease)
	var leaderA string
	f.waitFor("the first replica to lead", 60*time.Second, func() (bool, error) { leaderA = holder(); return leaderA != "", nil })
	b := startReplica(t, f, bin, dir, "second", tokenB, credB, lease)
	f.waitFor("the second replica to see the leader", 60*time.Second, func() (bool, error) { return b.logContains("Another replica leads"), nil })

	// The leader places two shoots, then stops.
	for _, name := range []string{"early-0", "early-1"} {
		f.createShoot(f.newShoot(name, "eu-west-1"))
	}
	for _, name := range []string{"early-0", "early-1"} {
		f.waitForSeed(name, 30*time.Second)
		f.waitFor("the Scheduled Event of "+name, 30*time.Second, func() (bool, error) { return len(f.events(name, "Scheduled")) > 0, nil })
	}
	if n := len(writesBy(t, env.ControlPlane.AuditLog, credA, time.Time{})); n == 0 {
		t.Fatal("the audit log shows no write of the first replica before the pause; it cannot tell the replicas apart")
	}
	stopped := time.Now()
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}

	// While it is stopped, new shoots arrive, the other replica takes over
	// and places them; then seed a is filled up to its allocatable.
	const late = 3
	for i := range late {
		f.createShoot(f.newShoot(fmt.Sprintf("late-%d", i), "eu-west-1"))
	}
	f.waitFor("the second replica to take over", 60*time.Second, func() (bool, error) {
		h := holder()
		return h != "" && h != leaderA, nil
	})
	for i := range late {
		f.waitForSeed(fmt.Sprintf("late-%d", i), 30*time.Second)
	}
	// The pause lasts at least twice the lease duration (a duration to
	// produce, not a wait for a fact).
	if d := 2*pausedLeaseDuration - time.Since(stopped); d > 0 {
		time.Sleep(d)
	}
	resumed := time.Now()
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}

	// The resumed replica notices that it lost the lease and exits; by then
	// it has processed what it missed.
	select {
	case <-a.exited:
	case <-time.After(60 * time.Second):
		t.Fatal("the resumed replica did not exit after losing its lease")
	}
	if writes := writesBy(t, env.ControlPlane.AuditLog, credA, stopped); len(writes) > 0 {
		for _, w := range writes {
			t.Errorf("write by the resumed replica %s after it resumed: %s %s/%s %s/%s -> %d",
				w.RequestReceivedTimestamp.Sub(resumed).Round(time.Millisecond), w.Verb, w.ObjectRef.Resource, w.ObjectRef.Subresource, w.ObjectRef.Namespace, w.ObjectRef.Name, w.ResponseStatus.Code)
		}
	}
	if a.logContains("Write refused") {
		t.Log("the resumed replica's fence refused writes")
	} else {
		t.Log("the resumed replica attempted no write (nothing was refused)")
	}
	if n := len(writesBy(t, env.ControlPlane.AuditLog, credB, stopped)); n == 0 {
		t.Error("the audit log shows no write of the new leader")
	}

	shoots, err := f.graft.CoreV1alpha1().Shoots(f.ns).List(f.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	usage := map[string]int64{}
	for _, s := range shoots.Items {
		if s.Spec.SeedName != nil {
			usage[*s.Spec.SeedName]++
		}
	}
	for seed, alloc := range seeds {
		if usage[seed] > alloc {
			t.Errorf("seed %s holds %d shoots, allocatable %d", seed, usage[seed], alloc)
		}
	}
}
