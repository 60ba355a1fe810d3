#!/usr/bin/env bash
# Builds the parity oracle (test/parity/oracle: Gardener's scheduler code
# behind a command, in a module of its own whose go.mod pins the Gardener
# release the test garden runs) once per machine into the cache, keyed by the
# module's content, and prints the binary's path. Gardener's k8s.io versions
# stay in that module: graft's go.mod never sees them.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${GRAFT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/graft}"
SRC="${ROOT}/test/parity/oracle"
key="$(cat "${SRC}/go.mod" "${SRC}/go.sum" "${SRC}"/*.go | sha256sum | cut -c1-16)"
BIN="${CACHE_DIR}/parity-oracle-${key}"

# shellcheck source=hack/cache.sh
source "${ROOT}/hack/cache.sh"
print_cached_or_lock "${BIN}"
use_build_cache

# As in hack/build-gardener.sh: some checksum-database look-ups for these
# modules answer 404 through this network; go.sum verifies what the proxy
# serves.
export GONOSUMDB="${GONOSUMDB:+${GONOSUMDB},}github.com/gardener,k8s.io"
export GOWORK=off
export GOFLAGS=-mod=readonly

echo "building the parity oracle into ${BIN} (once per machine; a few minutes cold)" >&2
start=${SECONDS}
(cd "${SRC}" && go build -trimpath -o "${BIN}.tmp" .)
mv "${BIN}.tmp" "${BIN}"
echo "built the parity oracle in $((SECONDS - start)) s" >&2
echo "${BIN}"
