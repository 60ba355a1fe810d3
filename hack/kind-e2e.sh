#!/usr/bin/env bash
# Runs graft's end-to-end suite against a throw-away kind cluster (needs Docker
# and kind), the same suite and scenarios as hack/e2e-pods.sh runs on the
# local node: graft's image built with the Dockerfile and loaded into kind,
# the four charts installed with Helm by the suite (GRAFT_E2E_COMPONENTS=pods),
# every scenario that does not stop or start component processes.
#   KIND_CLUSTER   cluster name (default graft-e2e)
#   KEEP_CLUSTER=1 leave the cluster running afterwards
#   E2E_LABELS     Ginkgo label filter (default '!processes')
#   PROCESSES=1    run the components as local processes instead, each
#                  authenticated as its chart's ServiceAccount against kind's
#                  API server (label filter '!pods')
#   extra arguments go to `go test` after -args (e.g. -ginkgo.focus='Scenario 8')
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLUSTER="${KIND_CLUSTER:-graft-e2e}"
IMAGE="${GRAFT_E2E_IMAGE:-localhost/graft/graft:kind-e2e}"

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
if [[ "${PROCESSES:-}" == 1 ]]; then
  go test -tags e2e -timeout 40m ./test/e2e/ -count=1 -args -ginkgo.v -ginkgo.label-filter="${E2E_LABELS:-!pods}" "$@"
  exit
fi
docker build -t "${IMAGE}" \
  --build-arg VERSION="$(git describe --tags --match 'v*' --dirty 2>/dev/null || echo v0.0.0-dev)" \
  --build-arg GIT_COMMIT="$(git rev-parse HEAD)" .
kind load docker-image "${IMAGE}" --name "${CLUSTER}"
GRAFT_E2E_COMPONENTS=pods GRAFT_E2E_IMAGE="${IMAGE}" GRAFT_E2E_IMAGE_PULL_POLICY=Never \
  go test -tags e2e -timeout 40m ./test/e2e/ -count=1 -args -ginkgo.v -ginkgo.label-filter="${E2E_LABELS:-!processes}" "$@"
