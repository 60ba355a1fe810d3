#!/usr/bin/env bash
# Regenerates everything hack/update-codegen.sh owns into a copy of the
# repository and fails on any difference from what is committed here.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"

tmp="$(mktemp -d)"
trap 'rm -rf "${tmp}"' EXIT

# The tracked and untracked (not ignored) files, as they are in the work tree.
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  [[ -e "${f}" ]] || continue
  mkdir -p "${tmp}/$(dirname "${f}")"
  cp -a "${f}" "${tmp}/${f}"
done
# Reuse the generators already built here, if any.
[[ -d hack/bin ]] && cp -r hack/bin "${tmp}/hack/bin"

bash "${tmp}/hack/update-codegen.sh" >/dev/null

status=0
for dir in apis staging charts/graft-crds/crds; do
  if ! diff -Nr -x bin "${ROOT}/${dir}" "${tmp}/${dir}" >"${tmp}/diff.txt"; then
    echo "generated code in ${dir} is out of date; run hack/update-codegen.sh:" >&2
    head -50 "${tmp}/diff.txt" >&2
    status=1
  fi
done
[[ ${status} -eq 0 ]] && echo "generated code is up to date"
exit ${status}
