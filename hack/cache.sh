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
