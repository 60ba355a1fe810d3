#!/usr/bin/env bash
# Starts, stops and describes the local garden (etcd and kube-apiserver on
# loopback with graft's CRDs and admission policies, and with --node a
# one-node cluster beside them, see hack/node):
# hack/local-garden.sh up [--node]|down|env|status.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
if [[ "${1:-}" == "up" ]]; then
  bash hack/install-deps.sh etcd
fi
mkdir -p _output/bin
go build -o _output/bin/localgarden ./hack/localgarden
exec _output/bin/localgarden "$@"
