#!/usr/bin/env bash
# Starts, stops and describes the local garden (etcd and kube-apiserver on
# loopback with graft's CRDs and admission policies, and with --gardener
# Gardener's API server registered with kube-apiserver; a cluster that runs
# pods is hack/kind.sh's): hack/local-garden.sh up [--gardener]|down|env|status.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
if [[ "${1:-}" == "up" ]]; then
  bash hack/install-deps.sh etcd
  if [[ " $* " == *" --gardener "* ]]; then
    bash hack/install-deps.sh gardener-apiserver
  fi
fi
mkdir -p _output/bin
go build -o _output/bin/localgarden ./hack/localgarden
exec _output/bin/localgarden "$@"
