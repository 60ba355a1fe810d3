#!/usr/bin/env bash
# Runs graft's end-to-end suite against graft running as pods: a local garden
# with a one-node cluster (hack/local-garden.sh up --node, which builds the
# graft image, imports it into the node's containerd and installs the four
# charts with Helm), the suite with GRAFT_E2E_COMPONENTS=pods against it, then
# down. Needs root (the node runs containers).
#   E2E_LABELS     Ginkgo label filter (default '!processes': every scenario
#                  that does not stop, kill or start component processes;
#                  'pods' runs only the pod scenarios)
#   KEEP_GARDEN=1  leave the garden running afterwards
#   GRAFT_GARDEN_DIR  where its state lives (default _output/e2e-pods-garden)
#   extra arguments go to `go test` after -args (e.g. -ginkgo.focus='Scenario 8')
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
export GRAFT_GARDEN_DIR="${GRAFT_GARDEN_DIR:-${ROOT}/_output/e2e-pods-garden}"
LABELS="${E2E_LABELS:-!processes}"

down() {
  if [[ "${KEEP_GARDEN:-}" == 1 ]]; then
    echo "e2e-pods: garden kept; $(bash hack/local-garden.sh env)" >&2
    return
  fi
  bash hack/local-garden.sh down
}
trap down EXIT
# A bring-up that fails is tried once more after a down, and says so: twice in
# about ten bring-ups on a loaded machine the garden's kube-apiserver received
# a termination signal while kube-controller-manager started, for a reason not
# yet found. The first attempt's logs stay in the garden's directory (the
# components append to them).
if ! bash hack/local-garden.sh up --node; then
  echo "e2e-pods: the local garden with its node did not come up (logs in ${GRAFT_GARDEN_DIR}); trying once more" >&2
  bash hack/local-garden.sh down || true
  bash hack/local-garden.sh up --node
fi

export KUBECONFIG="${GRAFT_GARDEN_DIR}/kubeconfig" GRAFT_E2E_COMPONENTS=pods
go test -tags e2e -timeout 40m ./test/e2e/ -count=1 -args -ginkgo.v -ginkgo.label-filter="${LABELS}" "$@"
