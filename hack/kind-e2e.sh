#!/usr/bin/env bash
# Runs graft's end-to-end suite against a throw-away kind cluster (needs Docker
# and kind). The components still run as local processes, each authenticated
# as its chart's ServiceAccount against the kind API server.
#   KIND_CLUSTER   cluster name (default graft-e2e)
#   KEEP_CLUSTER=1 leave the cluster running afterwards
#   extra arguments go to `go test` (e.g. -ginkgo.focus='Scenario 1')
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLUSTER="${KIND_CLUSTER:-graft-e2e}"

for tool in docker kind go; do
  command -v "${tool}" >/dev/null || { echo "kind-e2e: ${tool} is required" >&2; exit 1; }
done

KUBECONFIG="$(mktemp -t graft-kind-kubeconfig.XXXXXX)"
export KUBECONFIG
cleanup() {
  if [[ "${KEEP_CLUSTER:-}" != 1 ]]; then
    kind delete cluster --name "${CLUSTER}" >/dev/null 2>&1 || true
  else
    echo "kind-e2e: cluster ${CLUSTER} kept; kubeconfig ${KUBECONFIG}" >&2
  fi
}
trap cleanup EXIT

# A fresh cluster each run: the suite creates its landscapes by name.
kind delete cluster --name "${CLUSTER}" >/dev/null 2>&1 || true
kind create cluster --name "${CLUSTER}" --wait 120s
kind get kubeconfig --name "${CLUSTER}" >"${KUBECONFIG}"

cd "${ROOT}"
go test -tags e2e -timeout 40m ./test/e2e/ -count=1 -v "$@"
