#!/usr/bin/env bash
# Builds kube-apiserver from k8s.io/kubernetes through the Go module proxy and
# caches the binary outside the repository, keyed by version, so that each
# machine builds it once. Prints the path of the binary on stdout.
#
# k8s.io/kubernetes cannot be installed directly: its go.mod replaces the
# staging modules with local paths. A scratch module requires it and replaces
# every staging module with the published v0.<minor>.<patch> of the release.
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.37.1}"
CACHE_DIR="${GRAFT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/graft}"
BIN="${CACHE_DIR}/kube-apiserver-${KUBE_VERSION}"

if [[ -x "${BIN}" ]]; then
  echo "${BIN}"
  exit 0
fi

mkdir -p "${CACHE_DIR}"
lock="${CACHE_DIR}/.kube-apiserver-${KUBE_VERSION}.lock"
exec 9>"${lock}"
flock 9
if [[ -x "${BIN}" ]]; then
  echo "${BIN}"
  exit 0
fi

staging_version="v0.${KUBE_VERSION#v1.}"
scratch="$(mktemp -d)"
trap 'rm -rf "${scratch}"' EXIT

export GONOSUMDB="${GONOSUMDB:+${GONOSUMDB},}k8s.io"
export GOFLAGS=-mod=mod
export GOWORK=off

echo "building kube-apiserver ${KUBE_VERSION} into ${BIN} (once per machine)" >&2
cd "${scratch}"
go mod init graft.local/kube-apiserver-build >/dev/null 2>&1
kmod_dir="$(go mod download -json "k8s.io/kubernetes@${KUBE_VERSION}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')"
if [[ -z "${kmod_dir}" || ! -f "${kmod_dir}" ]]; then
  echo "cannot download k8s.io/kubernetes@${KUBE_VERSION} through the module proxy" >&2
  exit 1
fi
{
  echo "require k8s.io/kubernetes ${KUBE_VERSION}"
  grep -oE '^\s*k8s\.io/[a-z0-9-]+ => \./staging/src/k8s\.io/[a-z0-9-]+' "${kmod_dir}" \
    | awk -v v="${staging_version}" '{print "replace " $1 " => " $1 " " v}'
} >> go.mod
cat > tools.go <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO

go mod tidy

ldflags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X ${pkg}.gitVersion=${KUBE_VERSION}"
  ldflags+=" -X ${pkg}.gitMajor=1"
  ldflags+=" -X ${pkg}.gitMinor=$(echo "${KUBE_VERSION}" | cut -d. -f2)"
  ldflags+=" -X ${pkg}.gitTreeState=clean"
done
go build -trimpath -ldflags "-s -w ${ldflags}" -o "${BIN}.tmp" k8s.io/kubernetes/cmd/kube-apiserver
mv "${BIN}.tmp" "${BIN}"
echo "${BIN}"
