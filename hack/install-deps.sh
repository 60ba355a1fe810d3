#!/usr/bin/env bash
# Installs what graft's tests and demo need and the machine lacks:
#   etcd         Debian's etcd-server package (hack/build-etcd.sh builds the
#                etcd 3.6 that make bench-scale runs on)
#   apiserver    kube-apiserver, built once per machine (hack/build-kube-apiserver.sh)
#   helm         Helm from the Go module proxy, into the cache directory
#   prometheus   Debian's prometheus package: the server and promtool, for the
#                alert rule tests and the e2e spec that scrapes the daemons
#                (helm-path: the same, then print the binary's path)
#   kind         what hack/kind.sh needs: Debian's docker.io, debootstrap and
#                jq, kind from the Go module proxy, and the binaries of the
#                node image it builds where kind's cannot be pulled (kubeadm,
#                kubelet, the control plane, etcd, CoreDNS; hack/build-kind-node.sh
#                --binaries), each built once per machine into the cache
#                (kind-path: kind alone, then print the binary's path)
#   gardener-apiserver, gardenlet
#                Gardener's API server and its seed agent, built once per
#                machine (hack/build-gardener.sh; 5 to 35 minutes cold, about a
#                minute for the second), for test/integration/gardener and
#                hack/local-garden.sh up --gardener
#   parity-oracle
#                Gardener's scheduler code behind a command (test/parity/oracle,
#                hack/build-parity-oracle.sh), built once per machine, for
#                test/parity (parity-oracle-path: the same, then print its path)
# With no argument, etcd, apiserver, helm and prometheus.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${GRAFT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/graft}"
HELM_VERSION="${HELM_VERSION:-v3.22.0}"

install_etcd() {
  command -v etcd >/dev/null 2>&1 && return 0
  echo "installing etcd (Debian's etcd-server)" >&2
  local sudo=""
  [[ "$(id -u)" != 0 ]] && sudo="sudo"
  ${sudo} apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive ${sudo} apt-get install -y -qq --no-install-recommends etcd-server >&2
  # The package may start a system etcd on the default ports; graft's gardens
  # use ports of their own and need no system service.
  ${sudo} systemctl disable --now etcd >/dev/null 2>&1 || ${sudo} service etcd stop >/dev/null 2>&1 || true
}

install_prometheus() {
  command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 && return 0
  echo "installing prometheus and promtool (Debian's prometheus)" >&2
  local sudo=""
  [[ "$(id -u)" != 0 ]] && sudo="sudo"
  ${sudo} apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive ${sudo} apt-get install -y -qq --no-install-recommends prometheus >&2
  # The tests run Prometheus servers of their own on free ports.
  ${sudo} systemctl disable --now prometheus >/dev/null 2>&1 || ${sudo} service prometheus stop >/dev/null 2>&1 || true
}

install_apiserver() {
  bash "${ROOT}/hack/build-kube-apiserver.sh" >/dev/null
}

KIND_VERSION="${KIND_VERSION:-v0.33.0}"
install_kind_packages() {
  local need=() p sudo=""
  local pkgs=(debootstrap jq)
  # Any Docker engine will do (docker-ce conflicts with Debian's docker.io).
  command -v dockerd >/dev/null || pkgs+=(docker.io)
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "${p}" 2>/dev/null | grep -q "install ok installed" || need+=("${p}")
  done
  [[ ${#need[@]} -eq 0 ]] && return 0
  echo "installing ${need[*]} (Debian packages)" >&2
  [[ "$(id -u)" != 0 ]] && sudo="sudo"
  ${sudo} apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive ${sudo} apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
  # hack/kind.sh runs a dockerd of its own when none answers; the package's
  # service would hold the default socket and change the host's iptables.
  ${sudo} systemctl disable --now docker.socket docker.service >/dev/null 2>&1 \
    || ${sudo} service docker stop >/dev/null 2>&1 || true
}

# go_tool NAME PACKAGE VERSION: a command from the Go module proxy, installed
# once per machine into the cache as NAME-VERSION; prints its path.
go_tool() {
  local bin="${CACHE_DIR}/$1-$3"
  if [[ ! -x "${bin}" ]]; then
    echo "installing $1 $3 from the Go module proxy (once per machine)" >&2
    mkdir -p "${CACHE_DIR}"
    GOWORK=off GOBIN="${CACHE_DIR}/$1-build" go install "$2@$3" >&2
    mv "${CACHE_DIR}/$1-build/$1" "${bin}"
  fi
  echo "${bin}"
}

install_kind() { go_tool kind sigs.k8s.io/kind "${KIND_VERSION}"; }
install_helm() { go_tool helm helm.sh/helm/v3/cmd/helm "${HELM_VERSION}"; }

what=("$@")
[[ ${#what[@]} -eq 0 ]] && what=(etcd apiserver helm prometheus)
for w in "${what[@]}"; do
  case "${w}" in
    etcd) install_etcd ;;
    apiserver) install_apiserver ;;
    helm) install_helm >/dev/null ;;
    prometheus) install_prometheus ;;
    helm-path) install_helm ;;  # installs when missing, prints the binary's path
    kind)
      install_kind_packages
      install_kind >/dev/null
      bash "${ROOT}/hack/build-kind-node.sh" --binaries
      ;;
    kind-path) install_kind ;;  # installs when missing, prints the binary's path
    kind-packages) install_kind_packages ;;
    gardener-apiserver|gardenlet) bash "${ROOT}/hack/build-gardener.sh" "${w}" >/dev/null ;;
    parity-oracle) bash "${ROOT}/hack/build-parity-oracle.sh" >/dev/null ;;
    parity-oracle-path) bash "${ROOT}/hack/build-parity-oracle.sh" ;;
    *) echo "unknown dependency ${w}" >&2; exit 2 ;;
  esac
done
