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
// OCI archive built on this machine.
package node
