#!/usr/bin/env bash
# Installs and builds what a local node (hack/local-garden.sh up --node) runs
# beside the garden's etcd and kube-apiserver, and prints one line per
# component, "<name> <path>", for hack/localgarden to read:
#
#   Debian packages  containerd 1.6, runc, containernetworking-plugins (bridge,
#                    host-local, loopback), iptables and conntrack for kube-proxy
#   kubelet, kube-proxy                        KUBELET_VERSION (v1.35.8)
#   kube-controller-manager, kube-scheduler    CONTROL_PLANE_VERSION (v1.37.1,
#                                              kube-apiserver's version)
#
# Why kubelet 1.35 and Debian's containerd rather than kubelet 1.37 and a
# containerd 2.x built from source: 1.35 is the last kubelet release that
# supports containerd 1.x, it is within the supported skew to kube-apiserver
# 1.37 (a kubelet may be three minors older), and it still runs on the cgroup
# v1 hierarchy these machines mount once failCgroupV1 is false. Debian's
# containerd is an apt install that the distribution keeps patched; a
# containerd 2.x would be one more large program to build, pin and configure,
# on a cgroup v1 host whose support it deprecates. The price is build time:
# kubelet 1.35 shares no compiled packages with the 1.37 builds. Measured on
# two loaded cores: kubelet + kube-proxy 1.35.8 cold 696 s; the other choice
# 519 s (kubelet + kube-proxy 1.37.1 after the control plane 186 s,
# containerd 2.4.2 cold 333 s); both ran here. hack/node/doc.go has the rest.
#
# The binaries are cached per machine (hack/build-kube.sh), keyed by version.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KUBELET_VERSION="${KUBELET_VERSION:-v1.35.8}"
CONTROL_PLANE_VERSION="${CONTROL_PLANE_VERSION:-v1.37.1}"

packages=(containerd runc containernetworking-plugins iptables conntrack)
need=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "${p}" 2>/dev/null | grep -q "install ok installed" || need+=("${p}")
done
if [[ ${#need[@]} -gt 0 ]]; then
  echo "installing ${need[*]} (Debian packages)" >&2
  sudo=""
  [[ "$(id -u)" != 0 ]] && sudo="sudo"
  ${sudo} apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive ${sudo} apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
  # The package enables a system containerd on /run/containerd; the local node
  # runs its own with its own socket and directories, so keep the system one off.
  ${sudo} systemctl disable --now containerd >/dev/null 2>&1 || true
fi

# Assignments first: a failed build must stop the script, which a process
# substitution would hide.
node_out="$(bash "${ROOT}/hack/build-kube.sh" "${KUBELET_VERSION}" kubelet kube-proxy)"
cp_out="$(bash "${ROOT}/hack/build-kube.sh" "${CONTROL_PLANE_VERSION}" kube-controller-manager kube-scheduler)"
mapfile -t node_bins <<<"${node_out}"
mapfile -t cp_bins <<<"${cp_out}"

echo "kubelet ${node_bins[0]}"
echo "kube-proxy ${node_bins[1]}"
echo "kube-controller-manager ${cp_bins[0]}"
echo "kube-scheduler ${cp_bins[1]}"
echo "containerd $(command -v containerd)"
echo "ctr $(command -v ctr)"
echo "runc $(command -v runc)"
echo "cni-bin-dir /usr/lib/cni"
