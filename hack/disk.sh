#!/usr/bin/env bash
# Disk space for graft's runs (docs/development.md, "Disk space"). A run
# writes to the Go caches, graft's cache (the binaries built once per
# machine, the kind engine's images), the checkout and the temporary
# directory; a full disk shows up late and far from its cause, as a kind node
# that cannot unpack an image. This script says where the space is and frees
# what graft itself left behind:
#
#   hack/disk.sh report      free space on each filesystem a run writes to,
#                            and what graft's cache holds
#   hack/disk.sh prune       remove what no run needs: the Go build cache of
#                            the once-per-machine builds (gigabytes once the
#                            binaries exist) and the work directories of node
#                            image builds that were killed
#   hack/disk.sh need MIB [--trim-go-cache]
#                            make sure MIB MiB are free on each of those
#                            filesystems: prune when short; with
#                            --trim-go-cache (CI) then empty Go's build cache
#                            too, which the run fills again with what it
#                            uses; fail, naming the filesystem and what is
#                            missing, when still short
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${GRAFT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/graft}"

log() { echo "disk: $*" >&2; }

# places: "NAME DIR" for each directory a run writes to.
places() {
  echo "checkout ${ROOT}"
  echo "go-build-cache $(go env GOCACHE)"
  echo "go-module-cache $(go env GOMODCACHE)"
  echo "graft-cache ${CACHE_DIR}"
  echo "tmp ${TMPDIR:-/tmp}"
}

# existing DIR: DIR or its nearest ancestor that exists (df needs one).
existing() {
  local d="$1"
  while [[ ! -e "${d}" ]]; do d="$(dirname "${d}")"; done
  echo "${d}"
}

# filesystems: "MOUNT FREE_MIB NAMES" for each filesystem behind places.
filesystems() {
  local name dir
  places | while read -r name dir; do
    df -Pm "$(existing "${dir}")" | awk -v n="${name}" 'NR == 2 {print $6, $4, n}'
  done | awk '{free[$1] = $2; names[$1] = names[$1] (names[$1] ? "," : "") $3}
    END {for (m in free) print m, free[m], names[m]}' | sort
}

report() {
  local mount free names
  filesystems | while read -r mount free names; do
    log "${free} MiB free on ${mount} (${names})"
  done
  if [[ -d "${CACHE_DIR}" ]]; then
    log "graft's cache ${CACHE_DIR}: $(du -sm "${CACHE_DIR}" 2>/dev/null | cut -f1) MiB, of which Go build cache $(du -sm "${CACHE_DIR}/go-build" 2>/dev/null | cut -f1 || echo 0) MiB, kind engine $(du -sm "${CACHE_DIR}/docker" 2>/dev/null | cut -f1 || echo 0) MiB"
  fi
}

prune() {
  mkdir -p "${CACHE_DIR}"
  if [[ -d "${CACHE_DIR}/go-build" ]]; then
    # A build holds this lock shared (hack/cache.sh use_build_cache).
    exec 8>"${CACHE_DIR}/.go-build.lock"
    if flock -n 8; then
      log "removing the once-per-machine builds' Go build cache ($(du -sm "${CACHE_DIR}/go-build" | cut -f1) MiB)"
      rm -rf "${CACHE_DIR}/go-build"
    else
      log "a build is using ${CACHE_DIR}/go-build: left"
    fi
    exec 8>&-
  fi
  if compgen -G "${CACHE_DIR}/kind/build.*" >/dev/null; then
    # hack/build-kind-node.sh holds this lock while it builds.
    exec 8>"${CACHE_DIR}/kind/.node-image.lock"
    if flock -n 8; then
      log "removing work directories of killed node image builds"
      rm -rf "${CACHE_DIR}"/kind/build.*
    fi
    exec 8>&-
  fi
}

# short MIB: the filesystems with fewer than MIB MiB free.
short() { filesystems | awk -v need="$1" '$2 < need'; }

need() {
  local mib="$1" trim="${2:-}"
  [[ "${mib}" =~ ^[0-9]+$ ]] || { echo "usage: $0 need MIB [--trim-go-cache]" >&2; exit 2; }
  [[ -z "$(short "${mib}")" ]] && return 0
  prune
  [[ -z "$(short "${mib}")" ]] && return 0
  if [[ "${trim}" == --trim-go-cache ]]; then
    log "still short of ${mib} MiB: emptying Go's build cache $(go env GOCACHE)"
    go clean -cache
    [[ -z "$(short "${mib}")" ]] && return 0
  fi
  local mount free names
  short "${mib}" | while read -r mount free names; do
    log "${mount} (${names}) has ${free} MiB free; graft's run needs about ${mib} MiB there, $((mib - free)) MiB more"
  done
  report
  return 1
}

case "${1:-}" in
  report) report ;;
  prune) prune ;;
  need) need "${2:-}" "${3:-}" ;;
  *) echo "usage: $0 report|prune|need MIB [--trim-go-cache]" >&2; exit 2 ;;
esac
