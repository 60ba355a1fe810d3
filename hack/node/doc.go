// Package node runs a one-node Kubernetes cluster on this machine beside the
// local garden's etcd and kube-apiserver (hack/local-garden.sh up --node):
// containerd with runc and the bridge CNI plugin, kube-controller-manager,
// kube-scheduler, kubelet and kube-proxy, all as detached processes whose
// state and logs live in one directory. Down stops them and removes what they
// left on the host: containers, network namespaces, mounts, iptables chains,
// cgroups, the bridge and the kernel settings kubelet and the CNI plugin
// change.
//
// Nothing is pulled from a registry: the pod sandbox image is imported from an
// OCI archive built on this machine (hack/image).
//
// The runtime is Debian's containerd 1.6 with kubelet and kube-proxy 1.35
// (hack/build-node.sh). These machines mount cgroup v1, and kubelets after
// 1.35 need containerd 2.x, which Debian does not ship; kubelet 1.35 is the
// last release that supports containerd 1.x, runs on cgroup v1 with
// failCgroupV1 false, and is within the supported skew to kube-apiserver 1.37.
// The other choice, kubelet 1.37 with a containerd 2.x built from the module
// proxy, also ran here, and its build is cheaper (measured on two loaded
// cores: 186 s for kubelet and kube-proxy 1.37.1 after the control plane's
// build plus 333 s for containerd 2.4.2, against 696 s for kubelet and
// kube-proxy 1.35.8, which share no compiled packages with 1.37); the
// distribution's runtime was preferred as one fewer program to build, pin and
// configure, on a cgroup v1 host whose support containerd 2.x deprecates.
package node
