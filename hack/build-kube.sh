#!/usr/bin/env bash
# Builds Kubernetes components from k8s.io/kubernetes through the Go module
# proxy and caches each binary outside the repository, keyed by component and
# version, so that each machine builds it once:
#
#   hack/build-kube.sh VERSION COMPONENT...
#   hack/build-kube.sh v1.37.1 kube-controller-manager kube-scheduler
#
# Prints the path of each binary on stdout, one a line, in the order asked.
#
# k8s.io/kubernetes cannot be installed directly: its go.mod replaces the
# staging modules with local paths. A scratch module requires it and replaces
# every staging module with the published v0.<minor>.<patch> of the release.
# The components missing from the cache are built by one `go build`, so that
# they compile their shared packages once. Components of one version resolve
# the same dependency versions (those k8s.io/kubernetes's go.mod lists), so a
# later build of another component reuses the Go build cache of an earlier one.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 VERSION COMPONENT..." >&2
  exit 2
fi
KUBE_VERSION="$1"
shift
components=("$@")
CACHE_DIR="${GRAFT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/graft}"

for c in "${components[@]}"; do
  case "${c}" in
    kube-apiserver | kube-controller-manager | kube-scheduler | kubelet | kube-proxy | kubectl | kubeadm) ;;
    *) echo "unknown component ${c}: not one of kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy, kubectl, kubeadm" >&2; exit 2 ;;
  esac
done
if [[ ! "${KUBE_VERSION}" =~ ^v1\.[0-9]+\.[0-9]+$ ]]; then
  echo "version ${KUBE_VERSION} is not of the form v1.<minor>.<patch>" >&2
  exit 2
fi

bin_of() { echo "${CACHE_DIR}/$1-${KUBE_VERSION}"; }

missing() {
  local c
  for c in "${components[@]}"; do
    [[ -x "$(bin_of "${c}")" ]] || echo "${c}"
  done
}

print_paths() {
  local c
  for c in "${components[@]}"; do
    bin_of "${c}"
  done
}

mapfile -t todo < <(missing)
if [[ ${#todo[@]} -eq 0 ]]; then
  print_paths
  exit 0
fi

mkdir -p "${CACHE_DIR}"
# One lock per version: two builds of the same release would share nothing
# but the wait, and the second finds the binaries cached once it gets the lock.
exec 9>"${CACHE_DIR}/.kube-${KUBE_VERSION}.lock"
flock 9
mapfile -t todo < <(missing)
if [[ ${#todo[@]} -eq 0 ]]; then
  print_paths
  exit 0
fi
# shellcheck source=hack/cache.sh
source "$(dirname "${BASH_SOURCE[0]}")/cache.sh"
use_build_cache

minor="$(echo "${KUBE_VERSION}" | cut -d. -f2)"
staging_version="v0.${KUBE_VERSION#v1.}"
scratch="$(mktemp -d)"
trap 'rm -rf "${scratch}"' EXIT

export GONOSUMDB="${GONOSUMDB:+${GONOSUMDB},}k8s.io"
export GOFLAGS=-mod=mod
export GOWORK=off

echo "building ${todo[*]} ${KUBE_VERSION} into ${CACHE_DIR} (once per machine)" >&2
start=${SECONDS}
cd "${scratch}"
go mod init graft.local/kube-build >/dev/null 2>&1
kmod="$(go mod download -json "k8s.io/kubernetes@${KUBE_VERSION}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')"
if [[ -z "${kmod}" || ! -f "${kmod}" ]]; then
  echo "cannot download k8s.io/kubernetes@${KUBE_VERSION} through the module proxy" >&2
  exit 1
fi
{
  echo "require k8s.io/kubernetes ${KUBE_VERSION}"
  grep -oE '^\s*k8s\.io/[a-z0-9-]+ => \./staging/src/k8s\.io/[a-z0-9-]+' "${kmod}" \
    | awk -v v="${staging_version}" '{print "replace " $1 " => " $1 " " v}'
} >>go.mod
pkgs=()
{
  echo "//go:build tools"
  echo
  echo "package tools"
  echo
  for c in "${todo[@]}"; do
    echo "import _ \"k8s.io/kubernetes/cmd/${c}\""
    pkgs+=("k8s.io/kubernetes/cmd/${c}")
  done
} >tools.go

go mod tidy

# Without these the binaries report v0.0.0-master+$Format:%H$, which clients
# (and kubelet's version skew checks) cannot parse.
ldflags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X ${pkg}.gitVersion=${KUBE_VERSION}"
  ldflags+=" -X ${pkg}.gitMajor=1"
  ldflags+=" -X ${pkg}.gitMinor=${minor}"
  ldflags+=" -X ${pkg}.gitTreeState=clean"
done
mkdir -p out
go build -trimpath -ldflags "-s -w ${ldflags}" -o out/ "${pkgs[@]}"
for c in "${todo[@]}"; do
  mv "out/${c}" "$(bin_of "${c}").tmp"
  mv "$(bin_of "${c}").tmp" "$(bin_of "${c}")"
done
echo "built ${todo[*]} ${KUBE_VERSION} in $((SECONDS - start)) s" >&2
print_paths
