#!/usr/bin/env bash
# Builds kube-apiserver (KUBE_VERSION, default v1.37.1) once per machine with
# hack/build-kube.sh and prints the path of the cached binary on stdout.
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/build-kube.sh" "${KUBE_VERSION:-v1.37.1}" kube-apiserver
