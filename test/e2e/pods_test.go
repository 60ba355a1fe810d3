//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/charts"
	"github.com/graft-dev/graft/test/framework"
)

// podsMode runs the suite against graft installed with its Helm charts and
// running as pods (GRAFT_E2E_COMPONENTS=pods), instead of local processes
// under the charts' ServiceAccounts. The cluster must run the image:
// GRAFT_E2E_IMAGE names it (hack/kind-e2e.sh loads it into kind); without it
// the suite takes the image of the graft-scheduler Deployment already there
// (as a cluster with graft installed has). Specs that stop, kill or
// start processes carry the label "processes" and are left out in this mode;
// the pod scenarios carry "pods" and need it.
var podsMode = os.Getenv("GRAFT_E2E_COMPONENTS") == "pods"

// podLabel and processLabel mark the specs that need one way of running the
// components (make test-e2e and make test-e2e-kind filter on them).
var (
	podLabel     = Label("pods")
	processLabel = Label("processes")
)

// podWait is how long Helm waits for a release's Deployments: pods start in
// seconds, but on a loaded two-core machine a rollout can take minutes.
const podWait = 5 * time.Minute

// componentValues are the suite's values of each component chart in pods
// mode: the same descheduler settings as the processes get, and the charts'
// own lease timings (no scenario restarts the API server here).
func componentValues() map[string]charts.TemplateOptions {
	verbose := []string{"config.logging.verbosity=2"}
	return map[string]charts.TemplateOptions{
		"graft-scheduler":          {Set: verbose},
		"graft-capacity-annotator": {Set: verbose},
		"graft-descheduler": {Set: append(slices.Clone(verbose), descheduler...), SetJSON: []string{
			`config.plugins=[{"name":"NoExecuteTaints","enabled":true},{"name":"OverCapacity","enabled":true}]`,
		}},
	}
}

// podImage is the image the charts run in pods mode.
func podImage(ctx context.Context) (charts.Image, error) {
	policy := os.Getenv("GRAFT_E2E_IMAGE_PULL_POLICY")
	if policy == "" {
		policy = string(corev1.PullNever)
	}
	if ref := os.Getenv("GRAFT_E2E_IMAGE"); ref != "" {
		return charts.ParseImage(ref, policy)
	}
	d, err := env.KubeClient().AppsV1().Deployments(componentNamespace).Get(ctx, "graft-scheduler", metav1.GetOptions{})
	if err != nil {
		return charts.Image{}, fmt.Errorf("GRAFT_E2E_IMAGE is not set and no graft-scheduler Deployment tells which image to run: %w", err)
	}
	c := d.Spec.Template.Spec.Containers[0]
	return charts.ParseImage(c.Image, string(c.ImagePullPolicy))
}

// installPods installs or upgrades graft's four charts with the suite's
// values, extra values of one chart added, and waits for the Deployments.
func installPods(ctx context.Context, extra map[string][]string) error {
	image, err := podImage(ctx)
	if err != nil {
		return err
	}
	values := componentValues()
	for chart, set := range extra {
		v := values[chart]
		v.Set = append(v.Set, set...)
		values[chart] = v
	}
	return charts.InstallGraft(ctx, charts.GraftOptions{Kubeconfig: env.Kubeconfig, Image: image, Components: values, Wait: podWait})
}

// componentSelector selects the pods of a component chart's release.
func componentSelector(chart string) string {
	return labels.Set{"app.kubernetes.io/name": chart, "app.kubernetes.io/instance": chart}.String()
}

// componentPods lists the pods of a component chart's release.
func componentPods(ctx context.Context, chart string) ([]corev1.Pod, error) {
	list, err := env.KubeClient().CoreV1().Pods(componentNamespace).List(ctx, metav1.ListOptions{LabelSelector: componentSelector(chart)})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// leaderPod returns the name of the pod holding a component's Lease (the
// chart's default: the chart's name, in the garden namespace). A replica's
// identity is its host name, the pod's name, and a random suffix.
func leaderPod(ctx context.Context, chart string) (string, error) {
	lease, err := env.KubeClient().CoordinationV1().Leases(corev1alpha1.GardenNamespace).Get(ctx, chart, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		return "", fmt.Errorf("nobody holds the lease of %s", chart)
	}
	name, _, _ := strings.Cut(*lease.Spec.HolderIdentity, "_")
	return name, nil
}

// podMetric reads one sample without labels from /metrics of a pod, through
// the API server's proxy.
func podMetric(ctx context.Context, pod *corev1.Pod, name string) (float64, error) {
	port, err := containerPort(pod, "metrics")
	if err != nil {
		return 0, err
	}
	body, err := env.KubeClient().CoreV1().Pods(pod.Namespace).ProxyGet("http", pod.Name, strconv.Itoa(int(port)), "/metrics", nil).DoRaw(ctx)
	if err != nil {
		return 0, fmt.Errorf("/metrics of pod %s: %w", pod.Name, err)
	}
	return framework.MetricSample(body, pod.Name, name)
}

// leaderMetric reads a sample of the leading pod of a chart.
func leaderMetric(ctx context.Context, chart, name string) (float64, error) {
	leader, err := leaderPod(ctx, chart)
	if err != nil {
		return 0, err
	}
	pod, err := env.KubeClient().CoreV1().Pods(componentNamespace).Get(ctx, leader, metav1.GetOptions{})
	if err != nil {
		return 0, err
	}
	return podMetric(ctx, pod, name)
}

func containerPort(pod *corev1.Pod, name string) (int32, error) {
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == name {
				return p.ContainerPort, nil
			}
		}
	}
	return 0, fmt.Errorf("pod %s has no port named %s", pod.Name, name)
}

// deploymentsReady checks that every component Deployment has all its
// replicas updated, ready and available.
func deploymentsReady(g Gomega, ctx context.Context) {
	for _, chart := range charts.ComponentCharts {
		d, err := env.KubeClient().AppsV1().Deployments(componentNamespace).Get(ctx, chart, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(rolledOut(d)).To(BeTrue(), "Deployment %s: %d replicas wanted, status %+v", chart, *d.Spec.Replicas, d.Status)
	}
}

func rolledOut(d *appsv1.Deployment) bool {
	want := *d.Spec.Replicas
	s := d.Status
	return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == want && s.ReadyReplicas == want &&
		s.AvailableReplicas == want && s.Replicas == want
}

// checkPods is the pods' AfterEach check: no container of a component
// restarted (a failed liveness probe or a crash) and none was refused
// anything by RBAC.
func checkPods(ctx context.Context) {
	GinkgoHelper()
	for _, chart := range charts.ComponentCharts {
		pods, err := componentPods(ctx, chart)
		Expect(err).NotTo(HaveOccurred())
		for i := range pods {
			pod := &pods[i]
			for _, cs := range pod.Status.ContainerStatuses {
				Expect(cs.RestartCount).To(BeZero(), "pod %s restarted %d times; last state %+v\n%s", pod.Name, cs.RestartCount, cs.LastTerminationState, podLog(ctx, pod, true))
			}
			if pod.Status.Phase == corev1.PodRunning {
				log := podLog(ctx, pod, false)
				Expect(log).NotTo(ContainSubstring(" is forbidden: "), "pod %s was refused by RBAC", pod.Name)
			}
		}
	}
}

// podLog returns a pod's log (of its previous container when previous).
func podLog(ctx context.Context, pod *corev1.Pod, previous bool) string {
	data, err := env.KubeClient().CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{Previous: previous}).DoRaw(ctx)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	return string(data)
}

// podLogs are all component pods' logs, for a look after a failure.
func podLogs(ctx context.Context) string {
	var b bytes.Buffer
	for _, chart := range charts.ComponentCharts {
		pods, err := componentPods(ctx, chart)
		if err != nil {
			fmt.Fprintf(&b, "listing the pods of %s: %v\n", chart, err)
			continue
		}
		for i := range pods {
			fmt.Fprintf(&b, "\n===== pod %s (%s) =====\n%s\n", pods[i].Name, pods[i].Status.Phase, podLog(ctx, &pods[i], false))
		}
	}
	return b.String()
}
