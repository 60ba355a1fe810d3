#!/usr/bin/env bash
# Builds one of Gardener's commands (gardener-apiserver or gardenlet, release
# GARDENER_VERSION, default v1.150.0) from github.com/gardener/gardener
# through the Go module proxy and caches the binary outside the repository,
# keyed by command and version, so that each machine builds it once. Prints
# the path of the binary on stdout.
#
#   hack/build-gardener.sh gardener-apiserver|gardenlet
#
# Gardener pins k8s.io libraries of an older minor than graft's, so it must
# never enter graft's go.mod: a scratch module of its own
# ($CACHE_DIR/build/gardener-apiserver-VERSION) requires it. Gardener's go.mod
# replaces its API module (github.com/gardener/gardener/pkg/apis) with a local
# path, which a dependant does not inherit; the scratch module replaces it with
# the published module of the same release, and repeats Gardener's excludes,
# which also apply only in the main module.
set -euo pipefail

COMMAND="${1:-}"
case "${COMMAND}" in
  gardener-apiserver|gardenlet) ;;
  *) echo "usage: $0 gardener-apiserver|gardenlet" >&2; exit 2 ;;
esac
GARDENER_VERSION="${GARDENER_VERSION:-v1.150.0}"
CACHE_DIR="${GRAFT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/graft}"
BIN="${CACHE_DIR}/${COMMAND}-${GARDENER_VERSION}"

if [[ ! "${GARDENER_VERSION}" =~ ^v1\.([0-9]+)\.[0-9]+$ ]]; then
  echo "GARDENER_VERSION ${GARDENER_VERSION} is not of the form v1.<minor>.<patch>" >&2
  exit 2
fi
minor="${BASH_REMATCH[1]}"

# shellcheck source=hack/cache.sh
source "$(dirname "${BASH_SOURCE[0]}")/cache.sh"
print_cached_or_lock "${BIN}"
use_build_cache

# Some checksum-database look-ups for these modules answer 404 through this
# network; the module proxy's content is still verified against go.sum once
# it is written.
export GONOSUMDB="${GONOSUMDB:+${GONOSUMDB},}github.com/gardener,k8s.io"
export GOFLAGS=-mod=mod
export GOWORK=off

scratch="${CACHE_DIR}/build/${COMMAND}-${GARDENER_VERSION}"
rm -rf "${scratch}"
mkdir -p "${scratch}"
cd "${scratch}"

echo "building ${COMMAND} ${GARDENER_VERSION} into ${BIN} (once per machine; 5 to 35 minutes cold, about a minute once the other command is built)" >&2
start=${SECONDS}
go mod init "graft.local/${COMMAND}-build" >/dev/null 2>&1
gmod="$(go mod download -json "github.com/gardener/gardener@${GARDENER_VERSION}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')"
if [[ -z "${gmod}" || ! -f "${gmod}" ]]; then
  echo "cannot download github.com/gardener/gardener@${GARDENER_VERSION} through the module proxy" >&2
  exit 1
fi
{
  echo "require github.com/gardener/gardener ${GARDENER_VERSION}"
  echo "replace github.com/gardener/gardener/pkg/apis => github.com/gardener/gardener/pkg/apis ${GARDENER_VERSION}"
  grep -E '^exclude [^ ]+ v[^ ]+$' "${gmod}" || true
} >>go.mod
cat >tools.go <<GO
//go:build tools

package tools

import _ "github.com/gardener/gardener/cmd/${COMMAND}"
GO
go mod tidy

# Gardener stamps its release into component-base's version package; without
# it /version reports v0.0.0-master, and gardenlet, which compares its version
# with gardener-apiserver's at start, refuses to run.
ldflags=""
ldflags+=" -X k8s.io/component-base/version.gitVersion=${GARDENER_VERSION}"
ldflags+=" -X k8s.io/component-base/version.gitMajor=1"
ldflags+=" -X k8s.io/component-base/version.gitMinor=${minor}"
ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"
ldflags+=" -X k8s.io/component-base/version/verflag.programName=Gardener"
go build -trimpath -ldflags "-s -w ${ldflags}" -o "${BIN}.tmp" "github.com/gardener/gardener/cmd/${COMMAND}"
mv "${BIN}.tmp" "${BIN}"
echo "built ${COMMAND} ${GARDENER_VERSION} in $((SECONDS - start)) s" >&2
echo "${BIN}"
