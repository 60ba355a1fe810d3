#!/usr/bin/env bash
# The demo: hack/demo.sh up [--gardener]|down (make demo, make demo-gardener,
# make demo-down).
#   up    bring up the local garden, start graft's three components, apply the
#         sample landscape, show where the shoots went, drain a seed and
#         uncordon it again; everything keeps running afterwards
#   up --gardener
#         bring up the local garden with Gardener's API server, create a
#         Gardener landscape through it, run graft-scheduler on
#         core.gardener.cloud and show what it did and what graftctl shows and
#         changes on Gardener's objects, then evacuate a seed with
#         graft-descheduler on core.gardener.cloud (a stand-in finishes the
#         migrations gardenlet would carry out); everything keeps running
#         afterwards
#   down  stop everything either up started
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
BIN="${ROOT}/_output/bin"
DEMO_DIR="${ROOT}/_output/demo"
export GRAFT_GARDEN_DIR="${GRAFT_GARDEN_DIR:-${ROOT}/_output/local-garden}"
export KUBECONFIG="${GRAFT_GARDEN_DIR}/kubeconfig"
COMPONENTS=(graft-scheduler graft-capacity-annotator graft-descheduler)
GARDENER_NS=garden-dev
DRAIN_SEED=aws-eu1

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# start_component NAME [CONFIG]: CONFIG names hack/demo/config/CONFIG.yaml
# (default: NAME's).
start_component() {
  local name="$1"
  local config="${DEMO_DIR}/${name}.yaml"
  sed "s#KUBECONFIG_PATH#${KUBECONFIG}#" "hack/demo/config/${2:-${name}}.yaml" >"${config}"
  setsid "${BIN}/${name}" --config "${config}" >"${DEMO_DIR}/${name}.log" 2>&1 < /dev/null &
  echo $! >"${DEMO_DIR}/${name}.pid"
  echo "started ${name} (log: ${DEMO_DIR}/${name}.log)"
}

stop_components() {
  local name pid
  for name in "${COMPONENTS[@]}" demo-gardenlet; do
    [[ -f "${DEMO_DIR}/${name}.pid" ]] || continue
    pid="$(cat "${DEMO_DIR}/${name}.pid")"
    kill "${pid}" 2>/dev/null && echo "stopped ${name}" || true
    rm -f "${DEMO_DIR}/${name}.pid"
  done
}

wait_ready() {
  local name="$1" url="$2"
  for _ in $(seq 1 60); do
    if ! command -v curl >/dev/null; then sleep 3; return 0; fi
    if curl -fsS "${url}" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  echo "${name} did not become ready; see ${DEMO_DIR}/${name}.log" >&2
  return 1
}

wait_scheduled() {
  for _ in $(seq 1 60); do
    if ! "${BIN}/graftctl" get shoots -A --no-headers | grep -q '<none>'; then return 0; fi
    sleep 1
  done
}

up() {
  mkdir -p "${DEMO_DIR}"
  say "Starting the local garden (etcd and kube-apiserver on loopback)"
  bash hack/local-garden.sh up

  say "Starting graft's components"
  stop_components
  for name in "${COMPONENTS[@]}"; do start_component "${name}"; done
  wait_ready graft-scheduler http://127.0.0.1:10251/readyz
  wait_ready graft-capacity-annotator http://127.0.0.1:10252/readyz
  wait_ready graft-descheduler http://127.0.0.1:10258/readyz

  say "Applying the sample landscape (hack/demo/landscape.yaml)"
  go run ./hack/demo apply hack/demo/landscape.yaml
  wait_scheduled
  sleep 2 # let the capacity annotator publish usage

  say "graftctl get seeds"
  "${BIN}/graftctl" get seeds
  say "graftctl get shoots -A"
  "${BIN}/graftctl" get shoots -A

  say "graftctl drain ${DRAIN_SEED} --timeout 2m"
  "${BIN}/graftctl" drain "${DRAIN_SEED}" --timeout 2m
  say "graftctl get shoots -A (after the drain)"
  "${BIN}/graftctl" get shoots -A

  say "graftctl uncordon ${DRAIN_SEED}"
  "${BIN}/graftctl" uncordon "${DRAIN_SEED}"
  "${BIN}/graftctl" get seeds

  cat <<MSG

Everything keeps running: the local garden and graft-scheduler,
graft-capacity-annotator and graft-descheduler (logs in ${DEMO_DIR}).
Try next:
  export KUBECONFIG=${KUBECONFIG}
  ${BIN}/graftctl taint seed gcp-eu1 maintenance=true:NoExecute   # watch its shoots move
  ${BIN}/graftctl describe shoot -n garden-dev web
  ${BIN}/graftctl simulate -f hack/demo/landscape.yaml --explain
Stop it all with:
  make demo-down
MSG
}

# show CMD...: print the command as typed, then run it.
show() {
  printf '\n\033[1m$ %s\033[0m\n' "$*"
  "$@"
}

# graftctl on Gardener: the local garden serves graft's CRDs too, which
# graftctl would pick by itself.
gctl() { show graftctl --api=core.gardener.cloud "$@"; }
graftctl() { "${BIN}/graftctl" "$@"; }

up_gardener() {
  mkdir -p "${DEMO_DIR}"
  say "Starting the local garden with Gardener's API server (gardener-apiserver)"
  bash hack/local-garden.sh up --gardener

  say "Creating a Gardener landscape through gardener-apiserver (Gardener's validation and admission)"
  go build -o "${BIN}/demo" ./hack/demo
  "${BIN}/demo" gardener-landscape

  say "A stand-in for gardenlet (none runs here): it reports each control plane running on its seed a few seconds after a binding"
  stop_components
  setsid "${BIN}/demo" gardenlet >"${DEMO_DIR}/demo-gardenlet.log" 2>&1 < /dev/null &
  echo $! >"${DEMO_DIR}/demo-gardenlet.pid"
  echo "started the gardenlet stand-in (log: ${DEMO_DIR}/demo-gardenlet.log)"

  say "Starting graft-scheduler on Gardener's API (hack/demo/config/graft-scheduler-gardener.yaml)"
  grep -E '^(api|schedulerName|strategy):' hack/demo/config/graft-scheduler-gardener.yaml
  start_component graft-scheduler graft-scheduler-gardener
  wait_ready graft-scheduler http://127.0.0.1:10251/readyz

  say "Waiting for graft-scheduler: four shoots bound, mumbai waiting (no seed in ap-south-1)"
  for shoot in web shop api batch; do "${BIN}/demo" wait-shoot "${shoot}" bound; done
  "${BIN}/demo" wait-shoot mumbai pending
  "${BIN}/demo" wait-event mumbai SchedulingFailed

  say "Shoots as Gardener shows them (gardener-apiserver's columns, as kubectl get shoots -A -o wide prints them, without health)"
  echo "legacy names Gardener's own scheduler (default-scheduler), which does not run here: graft leaves it alone."
  "${BIN}/demo" table shoots
  say "The same garden through graftctl"
  gctl get seeds
  gctl get shoots -A

  say "Why mumbai waits"
  gctl describe shoot -n "${GARDENER_NS}" mumbai

  say "Cordon and taint Gardener seeds"
  gctl cordon eu-west-a
  gctl taint seed us-east maintenance=planned:NoSchedule --overwrite
  echo
  echo "Gardener's taints have no effect; graft keeps it in the Seed's annotation graft.dev/taints."
  echo "A PreferNoSchedule taint lives there alone: graft-scheduler avoids us-east, Gardener's scheduler does not see it."
  gctl taint seed us-east busy=yes:PreferNoSchedule --overwrite
  gctl get seeds

  say "Where would the shoots without a seed go now? (graftctl simulate --from-cluster, writes nothing)"
  gctl simulate --from-cluster --explain

  say "A new shoot in eu-west-1 goes to eu-west-b: eu-west-a is cordoned"
  "${BIN}/demo" gardener-shoot docs eu-west-1
  "${BIN}/demo" wait-shoot docs bound eu-west-b
  gctl get shoots -n "${GARDENER_NS}" docs

  say "Evacuating a seed: graft-descheduler on Gardener's API migrates control planes (hack/demo/config/graft-descheduler-gardener.yaml)"
  grep -E '^(api|maxMigrationsInFlight|maxMigrationsInFlightPerSeed):' hack/demo/config/graft-descheduler-gardener.yaml
  start_component graft-descheduler graft-descheduler-gardener
  wait_ready graft-descheduler http://127.0.0.1:10258/readyz
  gctl uncordon eu-west-a
  for shoot in web shop docs; do "${BIN}/demo" wait-shoot "${shoot}" running; done
  echo
  echo "A NoExecute taint on eu-west-b: each shoot on it that does not tolerate it moves to eu-west-a,"
  echo "one migration in flight at a time; the stand-in finishes each a few seconds later."
  gctl taint seed eu-west-b maintenance=true:NoExecute
  "${BIN}/demo" watch-migrations eu-west-b
  "${BIN}/demo" wait-event docs Descheduled
  gctl get shoots -A
  gctl describe seed eu-west-b

  say "Moves an operator can trust: a drain in maintenance windows, with a live migration"
  echo "Three new shoots go to eu-west-a (eu-west-b is still tainted), each with a maintenance window of an hour:"
  echo "  api-ha   highly available, window in 10h: it can move live, at once"
  echo "  reports  window open now: it moves now, classically"
  echo "  ledger   window in 10h: it waits for the drain's deadline"
  echo "(web, shop and docs got a random window from Gardener's defaulting.)"
  "${BIN}/demo" gardener-shoot api-ha eu-west-1 10h true
  "${BIN}/demo" gardener-shoot reports eu-west-1 -10m false
  "${BIN}/demo" gardener-shoot ledger eu-west-1 10h false
  for shoot in api-ha reports ledger; do "${BIN}/demo" wait-shoot "${shoot}" running; done
  gctl taint seed eu-west-b maintenance=true:NoExecute-
  echo
  echo "gardener-apiserver runs here with the LiveControlPlaneMigration feature gate, and graft-descheduler with liveMigration: Prefer."
  gctl drain eu-west-a --in-maintenance-windows --deadline 90s --plan --live-migration=Prefer --wait=false
  gctl describe seed eu-west-a --live-migration=Prefer
  "${BIN}/demo" watch-migrations eu-west-a
  "${BIN}/demo" wait-event ledger Descheduled
  gctl get shoots -A
  echo
  echo "How each control plane moved (migration.gardener.cloud/live-migrate on the shoot):"
  "${BIN}/demo" live-migrations

  cat <<MSG

Everything keeps running: the local garden with gardener-apiserver,
graft-scheduler and graft-descheduler on core.gardener.cloud, and the
gardenlet stand-in (logs in ${DEMO_DIR}).
Try next:
  export KUBECONFIG=${KUBECONFIG}
  ${BIN}/graftctl --api=core.gardener.cloud taint seed eu-west-b maintenance=true:NoExecute-
  ${BIN}/graftctl --api=core.gardener.cloud describe shoot -n ${GARDENER_NS} legacy
  ${BIN}/graftctl --api=core.gardener.cloud get seeds -o yaml
Stop it all with:
  make demo-down
MSG
}

down() {
  stop_components
  bash hack/local-garden.sh down
}

case "${1:-} ${2:-}" in
  "up ") up ;;
  "up --gardener") up_gardener ;;
  "down ") down ;;
  *) echo "usage: hack/demo.sh up [--gardener]|down" >&2; exit 2 ;;
esac
