#!/usr/bin/env bash
# Runs graft's end-to-end suite against a throw-away kind cluster
# (hack/kind.sh: kind's own node image where it can be pulled, one built
# here otherwise): graft's image built with hack/image and loaded into the
# nodes, the four charts installed with Helm by the suite
# (GRAFT_E2E_COMPONENTS=pods), the scenarios that do not stop or start
# component processes. The cluster is deleted afterwards, and the host given
# back as it was, also when the run is interrupted.
#   E2E_LABELS     Ginkgo label filter (default '!processes'; make test runs
#                  'pods')
#   KEEP_CLUSTER=1 leave the cluster running afterwards (hack/kind.sh env,
#                  then hack/kind.sh down)
#   PROCESSES=1    run the components as local processes instead, each
#                  authenticated as its chart's ServiceAccount against kind's
#                  API server (label filter '!pods')
#   KIND_NODE_IMAGE, KIND_CLUSTER, KIND_WORKERS: see hack/kind.sh
#   extra arguments go to `go test` after -args (e.g. -ginkgo.focus='Scenario 8')
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
CLUSTER="${KIND_CLUSTER:-graft-e2e}"
export KIND_CLUSTER="${CLUSTER}"

down() {
  local status=$?
  [[ -n "${guard:-}" ]] && kill "${guard}" 2>/dev/null
  if [[ "${KEEP_CLUSTER:-}" == 1 ]]; then
    echo "kind-e2e: cluster ${CLUSTER} kept; $(bash hack/kind.sh env | tr '\n' ' ')" >&2
    return
  fi
  # A down that leaves something on the host fails the run.
  bash hack/kind.sh down || exit 1
  exit "${status}"
}
trap down EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# Should this script be killed outright, the guard, in a session of its own,
# still deletes the cluster and gives the host back.
export GRAFT_KIND_OWNER=$$
if [[ "${KEEP_CLUSTER:-}" != 1 ]]; then
  mkdir -p "${GRAFT_KIND_DIR:-${ROOT}/_output/kind}"
  setsid bash hack/kind.sh guard $$ >>"${GRAFT_KIND_DIR:-${ROOT}/_output/kind}/guard.log" 2>&1 </dev/null &
  guard=$!
fi

start=${SECONDS}
kubeconfig="$(bash hack/kind.sh up)"
eval "$(bash hack/kind.sh env)"
export KUBECONFIG="${kubeconfig}"
echo "kind-e2e: cluster ${CLUSTER} up in $((SECONDS - start)) s" >&2

if [[ "${PROCESSES:-}" == 1 ]]; then
  go test -tags e2e -timeout 40m ./test/e2e/ -count=1 -args -ginkgo.v -ginkgo.label-filter="${E2E_LABELS:-!pods}" "$@"
  exit
fi

# graft's image, the Dockerfile's layout built without a container engine.
version="$(git describe --tags --match 'v*' --dirty 2>/dev/null || echo v0.0.0-dev)"
archive="${GRAFT_KIND_DIR:-${ROOT}/_output/kind}/graft.tar"
line="$(go run ./hack/image graft --out "${archive}" --version="${version}")"
image="$(echo "${line}" | awk '{print $2}')"
bash hack/kind.sh load "${archive}"
rm -f "${archive}"
echo "kind-e2e: image ${image} loaded; running the suite ($((SECONDS - start)) s)" >&2

GRAFT_E2E_COMPONENTS=pods GRAFT_E2E_IMAGE="${image}" GRAFT_E2E_IMAGE_PULL_POLICY=Never \
  go test -v -tags e2e -timeout 40m ./test/e2e/ -count=1 -args -ginkgo.v -ginkgo.label-filter="${E2E_LABELS:-!processes}" "$@"
echo "kind-e2e: done in $((SECONDS - start)) s" >&2
