#!/usr/bin/env bash
# A kind cluster for graft's end-to-end suite, on a machine with or without
# a Docker engine and a registry (docs/kind.md):
#
#   hack/kind.sh up      create the cluster; print its kubeconfig's path
#   hack/kind.sh down    delete it and give the host back as up found it
#   hack/kind.sh env     print the variables that reach it (eval "$(...)")
#   hack/kind.sh check   compare the host with what up found (down runs it)
#   hack/kind.sh load F  load an image archive (OCI or docker) into every node
#                        that takes pods (no NoSchedule or NoExecute taint):
#                        each node keeps the layers and their unpacked copy
#   hack/kind.sh guard P run down once process P is gone, however it ended, if
#                        the cluster is still P's (up records GRAFT_KIND_OWNER);
#                        hack/kind-e2e.sh starts one in a session of its own,
#                        so that a run killed with SIGKILL is cleaned up too
#
# When a Docker engine answers (DOCKER_HOST or the default socket), up uses
# it and touches nothing else of the host. Otherwise, as root, it starts a
# dockerd of its own (Debian's docker.io) on its own socket, data in the
# cache directory, no default bridge and no iptables rules of its own, and
# first records the host's state: iptables and ip6tables rules, forwarding
# sysctls, network links and mounts. down stops that dockerd, undoes what is
# left and compares the host with the record; it fails when something
# differs. An up that finds the record of a run that never reached its down
# (a killed run) puts the host back first, against that first record.
#
# The node image is KIND_NODE_IMAGE when set (e.g. kind's own kindest/node);
# else, when the engine can pull kind's default image, that one; else graft
# builds one (hack/build-kind-node.sh, once per machine) and installs a
# bridge network in place of kind's kindnet, whose image it cannot pull.
#
#   KIND_CLUSTER     cluster name (default graft-e2e)
#   KIND_WORKERS     worker nodes (default 2)
#   GRAFT_KIND_DIR   state: kubeconfig, logs, the host record (default
#                    _output/kind)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${GRAFT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/graft}"
KIND_VERSION="${KIND_VERSION:-v0.33.0}"
export KIND_VERSION
CLUSTER="${KIND_CLUSTER:-graft-e2e}"
WORKERS="${KIND_WORKERS:-2}"
STATE="${GRAFT_KIND_DIR:-${ROOT}/_output/kind}"
# The dockerd of our own: socket and run state under /run (its unix socket
# paths must stay short), images in the cache so they outlive the run.
RUN_DIR=/run/graft-kind
OWN_SOCKET="${RUN_DIR}/docker.sock"
DOCKER_DATA="${CACHE_DIR}/docker"
HOST="${STATE}/host"

log() { echo "kind: $*" >&2; }
die() { log "$*"; exit 1; }

kind_bin() { bash "${ROOT}/hack/install-deps.sh" kind-path; }

# own_engine: whether this script runs the Docker engine (its record says so).
own_engine() { [[ -f "${HOST}/own-engine" ]]; }

use_own_engine_env() {
  export DOCKER_HOST="unix://${OWN_SOCKET}"
  # kind runs `docker`: the client that matches Debian's dockerd.
  mkdir -p "${STATE}/bin"
  ln -sf /usr/bin/docker "${STATE}/bin/docker"
  export PATH="${STATE}/bin:${PATH}"
}

# ---- the host record -------------------------------------------------------

rules() { # the rules of one family, without counters or comments
  "$1-save" 2>/dev/null | grep -v '^#' | sed -e 's/ \[[0-9]*:[0-9]*\]$//' || true
}
sysctls=(net/ipv4/ip_forward net/ipv6/conf/all/forwarding net/ipv4/conf/all/route_localnet)
read_sysctls() {
  local s
  for s in "${sysctls[@]}"; do
    [[ -r "/proc/sys/${s}" ]] && echo "${s} $(cat "/proc/sys/${s}")"
  done
  true
}
links() { ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort; }
mounts() { awk '{print $5}' /proc/self/mountinfo | sort; }
modules() { if [[ -r /proc/modules ]]; then awk '{print $1}' /proc/modules | sort; fi; }
# The cgroups the engine makes: its parent cgroup and one per container
# (cgroupfs driver, v1 or v2). The parent outlives the engine, so the
# containers' own are what tell a run's leftovers apart.
engine_cgroups() {
  find /sys/fs/cgroup -maxdepth 4 -type d -regextype posix-extended \
    -regex '.*/docker(/[0-9a-f]{64}|-[0-9a-f]{64}\.scope)?' 2>/dev/null | sort
}
# container_procs: the processes in those cgroups, the nodes' systemd and
# everything under it; they outlive a shim killed with SIGKILL.
container_procs() {
  local d
  for d in $(comm -13 "${HOST}/cgroups" <(engine_cgroups)); do
    find "${d}" -name cgroup.procs -exec cat {} + 2>/dev/null
  done | sort -u
}
# Processes of the engine we run: every one names our run directory.
engine_procs() { pgrep -af -- "${RUN_DIR}" | grep -v -e "pgrep" -e "hack/kind.sh" || true; }

record_host() {
  mkdir -p "${HOST}"
  iptables-save >"${HOST}/iptables.raw" 2>/dev/null || true
  ip6tables-save >"${HOST}/ip6tables.raw" 2>/dev/null || true
  rules iptables >"${HOST}/iptables"
  rules ip6tables >"${HOST}/ip6tables"
  read_sysctls >"${HOST}/sysctls"
  links >"${HOST}/links"
  mounts >"${HOST}/mounts"
  modules >"${HOST}/modules"
  engine_cgroups >"${HOST}/cgroups"
}

# check: what differs from the record; status 1 when something does.
check() {
  [[ -d "${HOST}" ]] || { log "no host record in ${HOST}: nothing to compare"; return 0; }
  local bad=0 d
  for what in iptables ip6tables; do
    if ! d="$(diff <(cat "${HOST}/${what}") <(rules "${what}"))"; then
      log "${what} rules differ from before up:"; echo "${d}" >&2; bad=1
    fi
  done
  if ! d="$(diff "${HOST}/sysctls" <(read_sysctls))"; then log "sysctls differ:"; echo "${d}" >&2; bad=1; fi
  if ! d="$(diff "${HOST}/links" <(links))"; then log "network links differ:"; echo "${d}" >&2; bad=1; fi
  if ! d="$(diff "${HOST}/mounts" <(mounts))"; then log "mounts differ:"; echo "${d}" >&2; bad=1; fi
  d="$(engine_procs)"
  if [[ -n "${d}" ]]; then log "processes of the engine are left:"; echo "${d}" >&2; bad=1; fi
  d="$(container_procs | tr '\n' ' ')"
  if [[ -n "${d// /}" ]]; then log "processes of containers are left: ${d}"; bad=1; fi
  if ! d="$(diff "${HOST}/cgroups" <(engine_cgroups))"; then log "cgroups differ:"; echo "${d}" >&2; bad=1; fi
  # Modules stay loaded (unloading one another program uses would hurt); say so.
  d="$(comm -13 "${HOST}/modules" <(modules) | tr '\n' ' ')"
  [[ -n "${d// /}" ]] && log "kernel modules loaded since up (left loaded): ${d}"
  return "${bad}"
}

# restore_host: stop what is left of our engine and undo its traces.
restore_host() {
  local pid f
  # A record from an older version of this script may lack a file.
  for f in sysctls links mounts modules cgroups; do
    [[ -f "${HOST}/${f}" ]] || touch "${HOST}/${f}"
  done
  if [[ -f "${RUN_DIR}/dockerd.pid" ]] && pid="$(cat "${RUN_DIR}/dockerd.pid")" && kill -0 "${pid}" 2>/dev/null; then
    kill -TERM "${pid}" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "${pid}" 2>/dev/null || break; sleep 0.5; done
  fi
  # Anything of the engine still running (dockerd killed before it could stop
  # its containers: shims, their nodes, containerd, docker-proxy).
  for _ in 1 2 3; do
    mapfile -t pids < <(engine_procs | awk '{print $1}')
    [[ ${#pids[@]} -eq 0 ]] && break
    kill -KILL "${pids[@]}" 2>/dev/null || true
    sleep 0.5
  done
  # Containers whose shim is gone: their processes, then their cgroups.
  for _ in 1 2 3 4 5; do
    mapfile -t pids < <(container_procs)
    [[ ${#pids[@]} -eq 0 ]] && break
    kill -KILL "${pids[@]}" 2>/dev/null || true
    sleep 1
  done
  comm -13 "${HOST}/cgroups" <(engine_cgroups) | sort -r | while read -r d; do
    find "${d}" -depth -type d -exec rmdir {} + 2>/dev/null || log "cannot remove cgroup ${d}"
  done
  # Mounts made since up, deepest first.
  comm -13 "${HOST}/mounts" <(mounts) | sort -r | while read -r m; do
    umount "${m}" 2>/dev/null || umount -l "${m}" 2>/dev/null || log "cannot unmount ${m}"
  done
  # Links made since up (the kind network's bridge, veths of containers).
  comm -13 "${HOST}/links" <(links) | while read -r l; do
    ip link delete "${l}" 2>/dev/null || true
  done
  for what in iptables ip6tables; do
    [[ -f "${HOST}/${what}.raw" ]] || continue
    if [[ "$(rules "${what}")" != "$(cat "${HOST}/${what}")" ]]; then
      # Tables the record lacks are emptied; the rest restored as recorded.
      local t
      for t in $("${what}-save" 2>/dev/null | sed -n 's/^\*//p'); do
        grep -qx "\*${t}" "${HOST}/${what}.raw" || { "${what}" -t "${t}" -F; "${what}" -t "${t}" -X; } 2>/dev/null || true
      done
      "${what}-restore" <"${HOST}/${what}.raw" 2>/dev/null || log "${what}-restore failed"
    fi
  done
  local s v
  while read -r s v; do
    [[ "$(cat "/proc/sys/${s}")" == "${v}" ]] || echo "${v}" >"/proc/sys/${s}"
  done <"${HOST}/sysctls"
  rm -rf "${RUN_DIR}"
}

# ---- the engine ------------------------------------------------------------

# The host's capability bounding set may lack capabilities that a privileged
# container asks for (here CAP_SYS_RESOURCE): runc then fails with "unable to
# apply caps". The engine's runtime is runc behind a wrapper that drops
# those from every container and exec process spec.
write_runc_wrapper() {
  local names=(CAP_CHOWN CAP_DAC_OVERRIDE CAP_DAC_READ_SEARCH CAP_FOWNER CAP_FSETID CAP_KILL
    CAP_SETGID CAP_SETUID CAP_SETPCAP CAP_LINUX_IMMUTABLE CAP_NET_BIND_SERVICE CAP_NET_BROADCAST
    CAP_NET_ADMIN CAP_NET_RAW CAP_IPC_LOCK CAP_IPC_OWNER CAP_SYS_MODULE CAP_SYS_RAWIO
    CAP_SYS_CHROOT CAP_SYS_PTRACE CAP_SYS_PACCT CAP_SYS_ADMIN CAP_SYS_BOOT CAP_SYS_NICE
    CAP_SYS_RESOURCE CAP_SYS_TIME CAP_SYS_TTY_CONFIG CAP_MKNOD CAP_LEASE CAP_AUDIT_WRITE
    CAP_AUDIT_CONTROL CAP_SETFCAP CAP_MAC_OVERRIDE CAP_MAC_ADMIN CAP_SYSLOG CAP_WAKE_ALARM
    CAP_BLOCK_SUSPEND CAP_AUDIT_READ CAP_PERFMON CAP_BPF CAP_CHECKPOINT_RESTORE)
  local bnd missing=() i
  bnd=$((16#$(awk '/^CapBnd:/ {print $2}' /proc/self/status)))
  for i in "${!names[@]}"; do
    (((bnd >> i) & 1)) || missing+=("\"${names[i]}\"")
  done
  local drop
  drop="[$(IFS=,; echo "${missing[*]}")]"
  cat >"${RUN_DIR}/runc" <<EOF
#!/usr/bin/env bash
# runc without the capabilities this host withholds: ${drop}
drop='${drop}'
spec=""
prev=""
for a in "\$@"; do
  case "\${prev}" in
    --bundle|-b) spec="\${a}/config.json" ;;
    --process|-p) spec="\${a}" ;;
  esac
  case "\${a}" in
    --bundle=*) spec="\${a#--bundle=}/config.json" ;;
    --process=*) spec="\${a#--process=}" ;;
  esac
  prev="\${a}"
done
if [[ -n "\${spec}" && -f "\${spec}" ]]; then
  jq --argjson drop "\${drop}" '
    def strip: with_entries(.value |= (if type == "array" then map(select(. as \$c | \$drop | index(\$c) | not)) else . end));
    if has("process") then .process.capabilities |= (if . == null then . else strip end)
    else .capabilities |= (if . == null then . else strip end) end' "\${spec}" >"\${spec}.graft" \\
    && mv "\${spec}.graft" "\${spec}"
fi
exec /usr/sbin/runc "\$@"
EOF
  chmod 0755 "${RUN_DIR}/runc"
}

start_engine() {
  [[ "$(id -u)" == 0 ]] || die "no Docker engine answers, and starting one needs root"
  bash "${ROOT}/hack/install-deps.sh" kind-packages
  mkdir -p "${HOST}"
  record_host
  touch "${HOST}/own-engine"
  mkdir -p "${RUN_DIR}" "${DOCKER_DATA}"
  write_runc_wrapper
  cat >"${RUN_DIR}/daemon.json" <<EOF
{
  "runtimes": {"graft-runc": {"path": "${RUN_DIR}/runc"}},
  "default-runtime": "graft-runc"
}
EOF
  log "starting dockerd on ${OWN_SOCKET} (data in ${DOCKER_DATA})"
  setsid dockerd --config-file "${RUN_DIR}/daemon.json" --data-root "${DOCKER_DATA}" \
    --exec-root "${RUN_DIR}/exec" --pidfile "${RUN_DIR}/dockerd.pid" -H "unix://${OWN_SOCKET}" \
    --bridge=none --iptables=false --ip6tables=false --ip-forward=false --ip-masq=false \
    >"${STATE}/dockerd.log" 2>&1 </dev/null 8>&- 9>&- &
  use_own_engine_env
  for _ in $(seq 1 120); do
    docker info >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  tail -20 "${STATE}/dockerd.log" >&2
  die "dockerd did not answer within a minute (log ${STATE}/dockerd.log)"
}

# ---- the cluster -----------------------------------------------------------

node_exec() { docker exec "$@"; }
cluster_kubectl() { docker exec -i "${CLUSTER}-control-plane" kubectl --kubeconfig=/etc/kubernetes/admin.conf "$@"; }

# pod_nodes: the nodes a pod without tolerations may run on; kind's control
# plane in a cluster with workers is tainted NoSchedule.
pod_nodes() {
  cluster_kubectl get nodes -o go-template='{{range .items}}{{$ok := true}}{{range .spec.taints}}{{if or (eq .effect "NoSchedule") (eq .effect "NoExecute")}}{{$ok = false}}{{end}}{{end}}{{if $ok}}{{.metadata.name}}{{"\n"}}{{end}}{{end}}'
}

# bridge_network: each node's pods on a bridge with the node's pod CIDR, and
# a route on every node to every other node's pods (what kindnet does, once,
# for a cluster whose nodes do not change).
bridge_network() {
  local nodes node cidr ip other
  mapfile -t nodes < <("${KIND}" get nodes --name "${CLUSTER}")
  declare -A cidrs ips
  for node in "${nodes[@]}"; do
    for _ in $(seq 1 120); do
      cidr="$(cluster_kubectl get node "${node}" -o jsonpath='{.spec.podCIDR}' 2>/dev/null || true)"
      [[ -n "${cidr}" ]] && break
      sleep 1
    done
    [[ -n "${cidr}" ]] || die "node ${node} got no pod CIDR within two minutes"
    cidrs[${node}]="${cidr}"
    ips[${node}]="$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "${node}")"
  done
  for node in "${nodes[@]}"; do
    node_exec -i "${node}" sh -c 'cat >/etc/cni/net.d/10-graft-bridge.conflist' <<EOF
{
  "cniVersion": "1.0.0",
  "name": "graft-kind",
  "plugins": [
    {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "${cidrs[${node}]}"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
    for other in "${nodes[@]}"; do
      [[ "${other}" == "${node}" ]] && continue
      node_exec "${node}" ip route replace "${cidrs[${other}]}" via "${ips[${other}]}"
    done
  done
}

kind_config() { # kind_config LOCAL_IMAGE(0|1)
  echo "kind: Cluster"
  echo "apiVersion: kind.x-k8s.io/v1alpha4"
  echo "networking:"
  echo "  disableDefaultCNI: $([[ "$1" == 1 ]] && echo true || echo false)"
  echo "nodes:"
  echo "- role: control-plane"
  for _ in $(seq 1 "${WORKERS}"); do echo "- role: worker"; done
  echo "kubeadmConfigPatches:"
  # A cgroup v1 host: kubelet 1.35 refuses it unless told.
  echo "- |"
  echo "  kind: KubeletConfiguration"
  echo "  failCgroupV1: false"
  if [[ "$1" == 1 ]]; then
    echo "- |"
    echo "  kind: ClusterConfiguration"
    echo "  imageRepository: localhost/graft-kube"
  fi
}

up() {
  mkdir -p "${STATE}"
  if [[ -d "${HOST}" ]]; then
    log "a run left its record in ${HOST} without a down: putting the host back first"
    down
  fi
  mkdir -p "${STATE}"
  # Whose cluster this is: a guard downs only its own process's.
  echo "${GRAFT_KIND_OWNER:-$$}" >"${STATE}/owner"
  if [[ -z "${DOCKER_HOST:-}" ]] && docker info >/dev/null 2>&1; then
    log "using the Docker engine at the default socket"
  elif [[ -n "${DOCKER_HOST:-}" ]]; then
    docker info >/dev/null 2>&1 || die "DOCKER_HOST=${DOCKER_HOST} does not answer"
  else
    start_engine
  fi
  KIND="$(kind_bin)"
  local image="${KIND_NODE_IMAGE:-}" local_image=0
  if [[ -z "${image}" ]]; then
    local stock
    stock="$(sed -n 's/^const Image = "\(.*\)"$/\1/p' "$(GOWORK=off go mod download -json "sigs.k8s.io/kind@${KIND_VERSION}" \
      | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')/pkg/apis/config/defaults/image.go")"
    # A registry that cannot be reached fails the pull within seconds; a slow
    # network gets time for the image's half a gigabyte.
    if docker image inspect "${stock}" >/dev/null 2>&1 || timeout 900 docker pull "${stock}" >/dev/null 2>&1; then
      image="${stock}"
    else
      log "kind's node image ${stock%@*} cannot be pulled here: building one"
      image="$(bash "${ROOT}/hack/build-kind-node.sh")"
      local_image=1
    fi
  fi
  [[ "${image}" == graft.local/kind-node:* ]] && local_image=1
  kind_config "${local_image}" >"${STATE}/kind-config.yaml"
  "${KIND}" delete cluster --name "${CLUSTER}" >/dev/null 2>&1 || true
  if own_engine; then
    # Only graft's runs use this engine: what a killed run left in its store
    # (stopped containers, their volumes, untagged images) goes.
    docker container prune -f >/dev/null
    docker volume prune -f >/dev/null
    docker image prune -f >/dev/null
  fi
  touch "${STATE}/cluster"
  log "creating cluster ${CLUSTER} (${image%@*}, 1 control plane, ${WORKERS} workers)"
  "${KIND}" create cluster --name "${CLUSTER}" --image "${image}" --config "${STATE}/kind-config.yaml" \
    --kubeconfig "${STATE}/kubeconfig" >&2
  [[ "${local_image}" == 1 ]] && bridge_network
  cluster_kubectl wait --for=condition=Ready nodes --all --timeout=180s >&2
  cluster_kubectl -n kube-system rollout status deployment/coredns --timeout=180s >&2
  echo "${STATE}/kubeconfig"
}

down() {
  if [[ -f "${STATE}/cluster" ]]; then
    if own_engine; then use_own_engine_env; fi
    if docker info >/dev/null 2>&1; then
      KIND="$(kind_bin)"
      "${KIND}" delete cluster --name "${CLUSTER}" >&2 || true
      own_engine && docker network rm kind >/dev/null 2>&1 || true
    fi
    rm -f "${STATE}/cluster" "${STATE}/kubeconfig"
  fi
  if own_engine; then
    restore_host
    if ! check; then
      die "the host differs from before up (record kept in ${HOST})"
    fi
  fi
  rm -rf "${HOST}" "${STATE}/owner"
}

# One up or down at a time (a guard may run down while a run's trap does).
with_lock() {
  mkdir -p "${STATE}"
  exec 8>"${STATE}/.lock"
  flock 8
  "$@"
}

case "${1:-}" in
  up) with_lock up ;;
  down) with_lock down ;;
  check) check ;;
  guard)
    [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "usage: $0 guard PID" >&2; exit 2; }
    while kill -0 "$2" 2>/dev/null; do sleep 1; done
    # Only the cluster of that process: the next run may have begun already.
    if [[ "$(cat "${STATE}/owner" 2>/dev/null)" == "$2" ]] && [[ -f "${STATE}/cluster" || -d "${HOST}" ]]; then
      log "process $2 ended without a down: putting the host back"
      with_lock down
    fi
    ;;
  load)
    [[ -n "${2:-}" ]] || { echo "usage: $0 load ARCHIVE" >&2; exit 2; }
    own_engine && use_own_engine_env
    nodes="$(pod_nodes | paste -sd, -)"
    [[ -n "${nodes}" ]] || die "no node of ${CLUSTER} takes pods (every one is tainted NoSchedule or NoExecute)"
    # Each node keeps the compressed layers and an unpacked copy: about four
    # times the archive (gzip'd binaries), a node at a time.
    mib=$(( ($(stat -c %s "$2") >> 20) + 1 ))
    bash "${ROOT}/hack/disk.sh" need $(( $(echo "${nodes}" | tr ',' '\n' | wc -l) * 4 * mib + 512 ))
    log "loading $2 (${mib} MiB) into ${nodes}"
    "$(kind_bin)" load image-archive "$2" --name "${CLUSTER}" --nodes "${nodes}"
    ;;
  env)
    own_engine && echo "export DOCKER_HOST=unix://${OWN_SOCKET}"
    echo "export KUBECONFIG=${STATE}/kubeconfig"
    ;;
  *) echo "usage: $0 up|down|env|check|load ARCHIVE" >&2; exit 2 ;;
esac
