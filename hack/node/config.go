package node

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"
)

// The node's network: a bridge whose address is also the node's IP, so that
// the node does not depend on this machine's interfaces, and pods on a subnet
// of it. The Service range is the garden kube-apiserver's
// (--service-cluster-ip-range in test/framework).
const (
	bridgeName     = "graft0"
	nodeIP         = "10.244.0.1"
	podSubnet      = "10.244.0.0/24"
	serviceSubnet  = "10.0.0.0/24"
	cniNetworkName = "graft-local"
)

// layout names the files and directories of a node below its directory.
type layout struct {
	dir string
}

func (l layout) path(elem ...string) string {
	return filepath.Join(append([]string{l.dir}, elem...)...)
}

func (l layout) pki() string                   { return l.path("pki") }
func (l layout) cert(name string) string       { return l.path("pki", name+".crt") }
func (l layout) key(name string) string        { return l.path("pki", name+".key") }
func (l layout) kubeconfig(name string) string { return l.path(name + ".kubeconfig") }
func (l layout) containerdDir() string         { return l.path("containerd") }
func (l layout) containerdConfig() string      { return l.path("containerd", "config.toml") }
func (l layout) containerdSocket() string      { return l.path("containerd", "containerd.sock") }
func (l layout) cniConfDir() string            { return l.path("cni", "net.d") }
func (l layout) cniIPAMDir() string            { return l.path("cni", "ipam") }
func (l layout) kubeletRoot() string           { return l.path("kubelet") }
func (l layout) kubeletConfig() string         { return l.path("kubelet-config.yaml") }
func (l layout) podLogs() string               { return l.path("pod-logs") }
func (l layout) proxyConfig() string           { return l.path("kube-proxy-config.yaml") }

// runtimeDirs are the directories that hold what the runtime and kubelet
// create while they run; Down removes them, and keeps the logs and configs.
func (l layout) runtimeDirs() []string {
	return []string{l.containerdDir(), l.path("cni"), l.kubeletRoot(), l.podLogs(), l.path("kube-controller-manager"), l.path("kube-scheduler")}
}

// containerdConfig runs containerd with all its state in the node's
// directory: its own socket (no clash with a system containerd), network
// namespaces under its state directory (so that Down finds them with the
// other mounts), runc with cgroupfs (the cgroup v1 hierarchy mounted here has
// no systemd to delegate to), the CNI configuration of this node only, and a
// sandbox image imported from an archive instead of a registry.
//
// restrict_oom_score_adj: these machines withhold CAP_SYS_RESOURCE even from
// root, so no process may lower its OOM score below its parent's. Without it
// runc fails every pod sandbox (kubelet asks for -998) with "failed to update
// /proc/self/oom_score_adj: Permission denied"; with it containerd raises
// such requests to its own score.
func containerdConfig(l layout, sandboxImage, cniBinDir, runc string) string {
	q := strconv.Quote
	return fmt.Sprintf(`version = 2
root = %s
state = %s

[grpc]
  address = %s

[ttrpc]
  address = %s

[plugins."io.containerd.internal.v1.opt"]
  path = %s

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %s
  netns_mounts_under_state_dir = true
  restrict_oom_score_adj = true
  disable_apparmor = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = %s
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = %s
    conf_dir = %s
    max_conf_num = 1
`,
		q(l.path("containerd", "root")), q(l.path("containerd", "state")),
		q(l.containerdSocket()), q(l.containerdSocket()+".ttrpc"),
		q(l.path("containerd", "opt")),
		q(sandboxImage), q(runc), q(cniBinDir), q(l.cniConfDir()))
}

// cniConfig is one bridge network on bridgeName with host-local addresses from
// podSubnet, kept in the node's directory. No IP masquerade: pods need not
// leave the machine, and without it the plugin adds no iptables rules that a
// crash could leave behind.
func cniConfig(l layout) ([]byte, error) {
	conf := map[string]any{
		"cniVersion": "1.0.0",
		"name":       cniNetworkName,
		"plugins": []any{
			map[string]any{
				"type":        "bridge",
				"bridge":      bridgeName,
				"isGateway":   true,
				"ipMasq":      false,
				"hairpinMode": true,
				"ipam": map[string]any{
					"type":    "host-local",
					"ranges":  [][]map[string]string{{{"subnet": podSubnet, "gateway": nodeIP}}},
					"routes":  []map[string]string{{"dst": "0.0.0.0/0"}},
					"dataDir": l.cniIPAMDir(),
				},
			},
		},
	}
	return json.MarshalIndent(conf, "", "  ")
}

// kubeletConfig is kubelet's configuration file. Each departure from the
// defaults is there because this machine or a throwaway node needs it.
func kubeletConfig(l layout, port, healthzPort int) ([]byte, error) {
	conf := map[string]any{
		"apiVersion": "kubelet.config.k8s.io/v1beta1",
		"kind":       "KubeletConfiguration",
		// These machines mount cgroup v1, which kubelet refuses by default
		// since 1.35.
		"failCgroupV1": false,
		// No systemd runs here, and containerd 1.6 cannot tell kubelet its
		// driver (the RuntimeConfig call is newer).
		"cgroupDriver":             "cgroupfs",
		"containerRuntimeEndpoint": "unix://" + l.containerdSocket(),
		"failSwapOn":               false,
		// No static pods: the control plane runs as processes.
		"staticPodPath":      "",
		"address":            nodeIP,
		"port":               port,
		"readOnlyPort":       0,
		"healthzBindAddress": "127.0.0.1",
		"healthzPort":        healthzPort,
		"authentication": map[string]any{
			"anonymous": map[string]any{"enabled": false},
			"webhook":   map[string]any{"enabled": true},
			"x509":      map[string]any{"clientCAFile": l.cert("ca")},
		},
		"authorization": map[string]any{"mode": "Webhook"},
		"clusterDomain": "cluster.local",
		"podLogsDir":    l.podLogs(),
		// Not the default under /usr/libexec, which kubelet creates otherwise.
		"volumePluginDir": l.path("kubelet", "volume-plugins"),
		// A shared development machine's disk is often fuller than kubelet's
		// defaults allow (10% free); a disk-pressure taint would keep every pod
		// off this node for reasons that have nothing to do with it.
		"evictionHard": map[string]string{
			"memory.available":  "100Mi",
			"nodefs.available":  "1%",
			"nodefs.inodesFree": "1%",
			"imagefs.available": "1%",
		},
		// Images come from archives and cannot be pulled again: never collect
		// them.
		"imageGCHighThresholdPercent": 100,
		"imageGCLowThresholdPercent":  99,
		// kube-proxy owns the node's iptables rules; kubelet's own chains would
		// only be more to clean up.
		"makeIPTablesUtilChains": false,
		"rotateCertificates":     false,
		// Not -999: lowering an OOM score needs CAP_SYS_RESOURCE, which these
		// machines withhold (see containerdConfig).
		"oomScoreAdj":         0,
		"serializeImagePulls": false,
	}
	return yaml.Marshal(conf)
}

// proxyConfig is kube-proxy's configuration file: iptables mode on loopback
// ports chosen by Up. Conntrack limits and timeouts of zero leave the kernel's
// values alone, and no localhost NodePorts keeps route_localnet off: a
// development machine's settings are not kube-proxy's to change.
func proxyConfig(l layout, nodeName string, healthzPort, metricsPort int) ([]byte, error) {
	conf := map[string]any{
		"apiVersion":         "kubeproxy.config.k8s.io/v1alpha1",
		"kind":               "KubeProxyConfiguration",
		"clientConnection":   map[string]any{"kubeconfig": l.kubeconfig("kube-proxy")},
		"hostnameOverride":   nodeName,
		"healthzBindAddress": fmt.Sprintf("127.0.0.1:%d", healthzPort),
		"metricsBindAddress": fmt.Sprintf("127.0.0.1:%d", metricsPort),
		"mode":               "iptables",
		"clusterCIDR":        podSubnet,
		// NodePorts on the node's address only, not on every address of the
		// machine.
		"nodePortAddresses": []string{"primary"},
		"iptables":          map[string]any{"localhostNodePorts": false},
		// Not -999, for the reason kubeletConfig gives.
		"oomScoreAdj": 0,
		"conntrack": map[string]any{
			"maxPerCore":            0,
			"min":                   0,
			"tcpEstablishedTimeout": "0s",
			"tcpCloseWaitTimeout":   "0s",
		},
	}
	return yaml.Marshal(conf)
}

// writeKubeconfig writes a kubeconfig for the client certificate name,
// trusting kube-apiserver's self-signed serving certificate.
func writeKubeconfig(l layout, name, server string, serverCA []byte) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["local-garden"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: serverCA}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificate: l.cert(name), ClientKey: l.key(name)}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: "local-garden", AuthInfo: name}
	kc.CurrentContext = name
	if err := clientcmd.WriteToFile(*kc, l.kubeconfig(name)); err != nil {
		return fmt.Errorf("writing the kubeconfig of %s: %w", name, err)
	}
	return nil
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
