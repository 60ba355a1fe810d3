#!/usr/bin/env bash
# The demo: hack/demo.sh up|down (make demo / make demo-down).
#   up    bring up the local garden, apply the sample landscape and show it
#   down  stop everything up started
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
BIN="${ROOT}/_output/bin"
export GRAFT_GARDEN_DIR="${GRAFT_GARDEN_DIR:-${ROOT}/_output/local-garden}"
export KUBECONFIG="${GRAFT_GARDEN_DIR}/kubeconfig"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

up() {
  say "Starting the local garden (etcd and kube-apiserver on loopback)"
  bash hack/local-garden.sh up
  say "Applying the sample landscape (hack/demo/landscape.yaml)"
  go run ./hack/demo apply hack/demo/landscape.yaml
  say "Seeds"
  "${BIN}/graftctl" get seeds
  say "Shoots"
  "${BIN}/graftctl" get shoots -A
  cat <<MSG

The local garden keeps running. Next:
  export KUBECONFIG=${KUBECONFIG}
  ${BIN}/graftctl get seeds
  make demo-down        # stop everything
MSG
}

down() {
  bash hack/local-garden.sh down
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: hack/demo.sh up|down" >&2; exit 2 ;;
esac
