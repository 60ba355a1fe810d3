#!/usr/bin/env bash
# Builds etcd (ETCD_VERSION, default v3.6.16) from go.etcd.io/etcd/server/v3
# through the Go module proxy once per machine, caches the binary outside the
# repository, keyed by version, and prints its path on stdout.
#
# Debian's etcd-server (3.4) serves graft's tests. kube-apiserver 1.37 reads
# consistently from its watch cache only with an etcd that answers progress
# requests (3.5.13 and later), as a production garden's does: with 3.4 every
# consistent LIST (the fence's catch-up after a gap) is read from etcd, and
# informers cannot stream their first list (WatchList). make bench-scale
# measures a landscape on this etcd for that reason.
#
# go.etcd.io/etcd/server/v3 cannot be installed directly: its go.mod replaces
# its sibling modules with local paths. A scratch module requires it, and Go
# resolves the siblings to their published versions.
set -euo pipefail
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
CACHE_DIR="${GRAFT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/graft}"
if [[ ! "${ETCD_VERSION}" =~ ^v3\.[0-9]+\.[0-9]+$ ]]; then
  echo "version ${ETCD_VERSION} is not of the form v3.<minor>.<patch>" >&2
  exit 2
fi
bin="${CACHE_DIR}/etcd-${ETCD_VERSION}"
# shellcheck source=hack/cache.sh
source "$(dirname "${BASH_SOURCE[0]}")/cache.sh"
print_cached_or_lock "${bin}"
use_build_cache

scratch="$(mktemp -d)"
trap 'rm -rf "${scratch}"' EXIT
export GONOSUMDB="${GONOSUMDB:+${GONOSUMDB},}go.etcd.io"
export GOFLAGS=-mod=mod
export GOWORK=off
export GOTOOLCHAIN=local

echo "building etcd ${ETCD_VERSION} into ${CACHE_DIR} (once per machine)" >&2
start=${SECONDS}
cd "${scratch}"
go mod init graft.local/etcd-build >/dev/null 2>&1
go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}" >&2
go build -trimpath -o "${bin}.tmp" "go.etcd.io/etcd/server/v3"
mv "${bin}.tmp" "${bin}"
echo "built etcd ${ETCD_VERSION} in $((SECONDS - start))s" >&2
echo "${bin}"
