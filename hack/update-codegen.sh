#!/usr/bin/env bash
# Regenerates everything derived from the API types in apis/:
#   - deepcopy functions next to the types,
#   - the typed clientset, listers, informers and apply configurations in
#     staging/src/github.com/graft-dev/client-go (nothing else lives there),
#   - the CRD manifests in charts/graft-crds/crds, which the chart and the
#     tests both install.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"

CLIENT_MODULE=github.com/graft-dev/client-go
CLIENT_DIR="staging/src/${CLIENT_MODULE}"
CRD_DIR="charts/graft-crds/crds"
BOILERPLATE="${ROOT}/hack/boilerplate.go.txt"

# Generators are installed into a directory of the repository's own (ignored by
# git), never into the user's GOBIN.
export GOBIN="${ROOT}/hack/bin"
mkdir -p "${GOBIN}"
export PATH="${GOBIN}:${PATH}"

# `go list -m` reports an empty Dir for a required module that is not in the
# module cache yet (it never downloads), so fetch it first: on a fresh machine
# the cache is empty.
GOWORK=off go mod download k8s.io/code-generator
CODEGEN_PKG="$(GOWORK=off go list -m -f '{{.Dir}}' k8s.io/code-generator)"
if [[ -z "${CODEGEN_PKG}" || ! -f "${CODEGEN_PKG}/kube_codegen.sh" ]]; then
  echo "k8s.io/code-generator is not in the module cache (dir '${CODEGEN_PKG}')" >&2
  exit 1
fi
# shellcheck source=/dev/null
source "${CODEGEN_PKG}/kube_codegen.sh"

kube::codegen::gen_helpers \
  --boilerplate "${BOILERPLATE}" \
  "${ROOT}/apis"

# gen_client removes what it generated before, so the client module keeps only
# its go.mod and go.sum besides generated code. No apply configurations: every
# graft write is an update or a patch preconditioned on a resourceVersion, and
# nothing applies server-side.
kube::codegen::gen_client \
  --with-watch \
  --output-dir "${ROOT}/${CLIENT_DIR}" \
  --output-pkg "${CLIENT_MODULE}" \
  --boilerplate "${BOILERPLATE}" \
  "${ROOT}/apis"

GOWORK=off go build -o "${GOBIN}/controller-gen" sigs.k8s.io/controller-tools/cmd/controller-gen
rm -rf "${CRD_DIR}"
mkdir -p "${CRD_DIR}"
(cd apis && controller-gen crd:crdVersions=v1 paths=./core/... output:crd:dir="${ROOT}/${CRD_DIR}")
