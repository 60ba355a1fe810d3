# Sourced by the hack/build-*.sh scripts that build a binary once per machine
# into the cache directory.

# print_cached_or_lock BIN: when BIN is built, prints its path and exits;
# otherwise takes the build's lock (fd 9, next to BIN) and looks again, so
# that two builds at once share only the wait: the second finds the binary
# once it gets the lock.
print_cached_or_lock() {
  local bin="$1"
  if [[ -x "${bin}" ]]; then
    echo "${bin}"
    exit 0
  fi
  mkdir -p "$(dirname "${bin}")"
  exec 9>"$(dirname "${bin}")/.$(basename "${bin}").lock"
  flock 9
  if [[ -x "${bin}" ]]; then
    echo "${bin}"
    exit 0
  fi
}

# use_build_cache: the once-per-machine builds compile with a Go build cache
# of their own (GOCACHE=${CACHE_DIR}/go-build), several gigabytes that are of
# no use once the binaries exist; hack/disk.sh prune removes it. A build holds
# the cache's lock shared (fd 8), so that a prune waits for no one and removes
# nothing a build is using.
use_build_cache() {
  export GOCACHE="${CACHE_DIR}/go-build"
  mkdir -p "${CACHE_DIR}"
  exec 8>"${CACHE_DIR}/.go-build.lock"
  flock -s 8
}
