#!/usr/bin/env bash
# Builds a kind node image without a registry, once per machine, and prints
# its reference. hack/kind.sh runs it against the Docker engine it uses
# (DOCKER_HOST); it needs root (debootstrap) and the Go module proxy.
#
# What goes in (docs/kind.md says why each piece is there):
#   base       Debian bookworm from debootstrap: systemd, Debian's containerd
#              1.6 and runc, the CNI plugins, iptables, conntrack; plus kind's
#              own base-image files (entrypoint, systemd units, containerd
#              configuration) from the kind module in the Go module cache,
#              with three changes: the pod sandbox is graft's pause image,
#              containerd may not lower OOM scores (the host withholds
#              CAP_SYS_RESOURCE), and there is no fuse-overlayfs snapshotter.
#   binaries   kubeadm and kubectl at CONTROL_PLANE_VERSION (v1.37.1, the
#              kube-apiserver graft tests against), kubelet at
#              KUBELET_VERSION (v1.35.8: the last kubelet for containerd 1.x,
#              and it still runs on a cgroup v1 host), all from
#              hack/build-kube.sh.
#   images     kube-apiserver, kube-controller-manager, kube-scheduler and
#              kube-proxy at CONTROL_PLANE_VERSION, etcd (the version kubeadm
#              asks for) and CoreDNS (likewise), each on a small bookworm
#              (glibc, iptables, nftables, conntrack) and named
#              localhost/graft-kube/<name>:<tag>, the imageRepository
#              hack/kind.sh gives kubeadm; and graft's pause image
#              (hack/image). They are imported into the node's containerd,
#              pinned, so no node ever pulls.
#
# With --binaries it builds only the binaries (hack/install-deps.sh kind).
# The reference is graft.local/kind-node:<version>-<key>, the key a hash of
# this script, the versions and kind's files: a change to any of them builds
# a new image, and an unchanged one is found in the engine's store.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${GRAFT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/graft}"
CONTROL_PLANE_VERSION="${CONTROL_PLANE_VERSION:-v1.37.1}"
KUBELET_VERSION="${KUBELET_VERSION:-v1.35.8}"
KIND_VERSION="${KIND_VERSION:-v0.33.0}"
# kubeadm v1.37's defaults (cmd/kubeadm/app/constants): a node image must
# hold exactly these, or kubeadm would pull.
ETCD_VERSION="${ETCD_VERSION:-v3.7.0}"
COREDNS_VERSION="${COREDNS_VERSION:-v1.14.6}"
DEBIAN_SUITE=bookworm
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
REPO=localhost/graft-kube
PAUSE_REF=localhost/graft/pause:kind

log() { echo "build-kind-node: $*" >&2; }

export GOWORK=off
kind_dir="$(go mod download -json "sigs.k8s.io/kind@${KIND_VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')"
kind_files="${kind_dir}/images/base/files"
[[ -d "${kind_files}" ]] || { log "kind ${KIND_VERSION}'s base-image files are not in the module cache (${kind_files})"; exit 1; }

# build_binaries: every binary the node image holds, each built once per
# machine into the cache.
build_binaries() {
  mapfile -t cp_bins < <(bash "${ROOT}/hack/build-kube.sh" "${CONTROL_PLANE_VERSION}" \
    kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubeadm kubectl)
  mapfile -t node_bins < <(bash "${ROOT}/hack/build-kube.sh" "${KUBELET_VERSION}" kubelet)
  [[ ${#cp_bins[@]} -eq 6 && ${#node_bins[@]} -eq 1 ]] || { log "building the Kubernetes binaries failed"; exit 1; }
  etcd_bin="$(ETCD_VERSION="${ETCD_VERSION}" bash "${ROOT}/hack/build-etcd.sh")"
  coredns_bin="${CACHE_DIR}/coredns-${COREDNS_VERSION}"
  if [[ ! -x "${coredns_bin}" ]]; then
    log "building CoreDNS ${COREDNS_VERSION} from the Go module proxy"
    (
      # shellcheck source=hack/cache.sh
      source "${ROOT}/hack/cache.sh"
      use_build_cache
      GOBIN="${CACHE_DIR}/coredns-build" CGO_ENABLED=0 GOFLAGS=-mod=mod go install -trimpath -ldflags '-s -w' \
        "github.com/coredns/coredns@${COREDNS_VERSION}" >&2
    )
    mv "${CACHE_DIR}/coredns-build/coredns" "${coredns_bin}"
  fi
}

if [[ "${1:-}" == --binaries ]]; then
  build_binaries
  exit 0
fi

key="$(
  {
    cat "${BASH_SOURCE[0]}"
    echo "${CONTROL_PLANE_VERSION} ${KUBELET_VERSION} ${KIND_VERSION} ${ETCD_VERSION} ${COREDNS_VERSION} ${DEBIAN_SUITE}"
    (cd "${kind_files}" && find . -type f | LC_ALL=C sort | xargs sha256sum)
    (cd "${ROOT}/hack/image" && LC_ALL=C ls pause/*.go | xargs sha256sum)
  } | sha256sum | cut -c1-12
)"
NODE_IMAGE="graft.local/kind-node:${CONTROL_PLANE_VERSION}-${key}"
if docker image inspect "${NODE_IMAGE}" >/dev/null 2>&1; then
  echo "${NODE_IMAGE}"
  exit 0
fi
mkdir -p "${CACHE_DIR}/kind"
exec 9>"${CACHE_DIR}/kind/.node-image.lock"
flock 9
if docker image inspect "${NODE_IMAGE}" >/dev/null 2>&1; then
  echo "${NODE_IMAGE}"
  exit 0
fi

log "building ${NODE_IMAGE} (once per machine)"
start=${SECONDS}
for tool in debootstrap docker; do
  command -v "${tool}" >/dev/null || { log "${tool} is required (Debian packages debootstrap, docker.io)"; exit 1; }
done

# Work directories that killed builds left (this build holds the lock).
rm -rf "${CACHE_DIR}"/kind/build.*
work="$(mktemp -d "${CACHE_DIR}/kind/build.XXXXXX")"
build_container=""
cleanup() {
  [[ -n "${build_container}" ]] && docker rm -f -v "${build_container}" >/dev/null 2>&1
  rm -rf "${work}"
}
trap cleanup EXIT

build_binaries

# debootstrap keeps its downloads here: a rebuild fetches nothing again.
debs="${CACHE_DIR}/kind/debs"
mkdir -p "${debs}"
rootfs() { # rootfs DIR VARIANT PACKAGES
  log "debootstrap ${DEBIAN_SUITE} into ${1##*/} ($3)"
  debootstrap --variant="$2" --include="$3" --cache-dir="${debs}" \
    "${DEBIAN_SUITE}" "$1" "${DEBIAN_MIRROR}" >"${work}/debootstrap-${1##*/}.log" 2>&1 \
    || { tail -20 "${work}/debootstrap-${1##*/}.log" >&2; return 1; }
  rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*
}

# The component images' base: what the binaries link against and what
# kube-proxy runs (iptables, nftables, conntrack, ipset).
rootfs "${work}/component" minbase "ca-certificates,iptables,nftables,conntrack,ipset,kmod"
tar -C "${work}/component" -c . | docker import - "graft.local/kind-component-base:${key}" >/dev/null
rm -rf "${work}/component"

mkdir -p "${work}/images"
component_image() { # component_image NAME TAG BINARY [ENTRYPOINT]
  local ctx="${work}/images/$1"
  mkdir -p "${ctx}"
  cp "$3" "${ctx}/$1"
  {
    echo "FROM graft.local/kind-component-base:${key}"
    echo "COPY $1 /usr/local/bin/$1"
    [[ -n "${4:-}" ]] && echo "ENTRYPOINT [\"/usr/local/bin/$1\"]"
    true
  } >"${ctx}/Dockerfile"
  docker build -q -t "${REPO}/$1:$2" "${ctx}" >/dev/null
  echo "${REPO}/$1:$2"
}
refs=(
  "$(component_image kube-apiserver "${CONTROL_PLANE_VERSION}" "${cp_bins[0]}")"
  "$(component_image kube-controller-manager "${CONTROL_PLANE_VERSION}" "${cp_bins[1]}")"
  "$(component_image kube-scheduler "${CONTROL_PLANE_VERSION}" "${cp_bins[2]}")"
  "$(component_image kube-proxy "${CONTROL_PLANE_VERSION}" "${cp_bins[3]}")"
  "$(component_image etcd "${ETCD_VERSION#v}-0" "${etcd_bin}")"
  "$(component_image coredns "${COREDNS_VERSION}" "${coredns_bin}" entrypoint)"
)
docker save "${refs[@]}" -o "${work}/images/kube.tar"
(cd "${ROOT}" && go run ./hack/image pause --out "${work}/images/pause.tar" --tag "${PAUSE_REF}" >&2)

# The node's base: kind's base image, on Debian's own container runtime.
rootfs "${work}/node" minbase "systemd,systemd-sysv,dbus,containerd,runc,containernetworking-plugins,iptables,nftables,conntrack,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,e2fsprogs,bash,ca-certificates,curl,jq,procps"
n="${work}/node"
cp -a "${kind_files}/." "${n}/"
chmod 0755 "${n}"/usr/local/bin/* "${n}"/kind/bin/*
# kind's units name the binaries it builds; Debian's are elsewhere.
ln -sf /usr/bin/containerd "${n}/usr/local/bin/containerd"
rm -rf "${n}/opt/cni/bin" && mkdir -p "${n}/opt/cni" && ln -s /usr/lib/cni "${n}/opt/cni/bin"
cfg="${n}/etc/containerd/config.toml"
sed -i -e "s|^\(\s*sandbox_image = \).*|\1\"${PAUSE_REF}\"|" \
  -e 's|^\(\s*restrict_oom_score_adj = \).*|\1true|' "${cfg}"
# Drop the fuse-overlayfs proxy plugin (rootless only; its binary is not here).
sed -i -e '/^\[proxy_plugins\]/,/^  address = /d' "${cfg}"
grep -q "sandbox_image = \"${PAUSE_REF}\"" "${cfg}" && grep -q 'restrict_oom_score_adj = true' "${cfg}" \
  && ! grep -q fuse-overlayfs "${cfg}" || { log "kind's containerd configuration changed shape; adapt this script"; exit 1; }
mkdir -p "${n}/etc/systemd/system/containerd.service.d"
printf '[Service]\n# The host withholds CAP_SYS_RESOURCE: a negative OOM score cannot be set.\nOOMScoreAdjust=0\n' \
  >"${n}/etc/systemd/system/containerd.service.d/10-graft.conf"
find "${n}/lib/systemd/system/sysinit.target.wants/" -name systemd-tmpfiles-setup.service -delete
rm -f "${n}"/lib/systemd/system/multi-user.target.wants/* "${n}"/etc/systemd/system/*.wants/* \
  "${n}"/lib/systemd/system/local-fs.target.wants/* "${n}"/lib/systemd/system/sockets.target.wants/*udev* \
  "${n}"/lib/systemd/system/sockets.target.wants/*initctl* "${n}"/lib/systemd/system/basic.target.wants/*
echo "ReadKMsg=no" >>"${n}/etc/systemd/journald.conf"
mkdir -p "${n}/etc/kubernetes/manifests"
mkdir -p "${n}/LICENSES" && cp "${kind_dir}/LICENSE" "${n}/LICENSES/kind-LICENSE"
tar -C "${n}" -c . | docker import - "graft.local/kind-rootfs:${key}" >/dev/null
rm -rf "${n}"
# docker import takes no STOPSIGNAL: systemd stops cleanly on SIGRTMIN+3.
mkdir -p "${work}/base"
printf '%s\n' "FROM graft.local/kind-rootfs:${key}" 'ENV container=docker' 'STOPSIGNAL SIGRTMIN+3' \
  'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' >"${work}/base/Dockerfile"
docker build -q -t "graft.local/kind-base:${key}" "${work}/base" >/dev/null

# The node: the base plus the Kubernetes binaries and images, committed from
# a build container (containerd must run to take the images in).
build_container="graft-kind-build-${key}-$$"
docker run -d --name "${build_container}" --entrypoint=sleep --security-opt seccomp=unconfined \
  "graft.local/kind-base:${key}" infinity >/dev/null
install_bin() { # install_bin SOURCE NAME
  docker cp "$1" "${build_container}:/usr/bin/$2"
  docker exec "${build_container}" chmod 0755 "/usr/bin/$2"
  docker exec "${build_container}" chown root:root "/usr/bin/$2"
}
install_bin "${cp_bins[4]}" kubeadm
install_bin "${cp_bins[5]}" kubectl
install_bin "${node_bins[0]}" kubelet
docker cp "${work}/images/kube.tar" "${build_container}:/kind/kube.tar"
docker cp "${work}/images/pause.tar" "${build_container}:/kind/pause.tar"
docker exec -i "${build_container}" bash -euo pipefail <<EOF
echo "${CONTROL_PLANE_VERSION}" >/kind/version
# kind's base spec for every pod container: its product-files hook, no rlimits.
ctr oci spec | jq '.hooks.createContainer += [{"path": "/kind/bin/mount-product-files.sh"}] | del(.process.rlimits)' \
  >/etc/containerd/cri-base.json
systemctl enable kubelet.service containerd.service undo-mount-hacks.service >/dev/null 2>&1
systemctl mask systemd-binfmt.service >/dev/null 2>&1
nohup containerd >/var/log/containerd-build.log 2>&1 &
for i in \$(seq 1 50); do [[ -S /run/containerd/containerd.sock ]] && break; sleep 0.2; done
for f in /kind/kube.tar /kind/pause.tar; do
  ctr --namespace=k8s.io images import --label=io.cri-containerd.pinned=pinned --all-platforms --no-unpack "\${f}" >/dev/null
done
ctr --namespace=k8s.io images list -q | grep -v '^sha256:' | sort >/kind/images
pkill containerd
for i in \$(seq 1 50); do pgrep -x containerd >/dev/null || break; sleep 0.2; done
rm -f /kind/kube.tar /kind/pause.tar /var/log/containerd-build.log
EOF
want="$(printf '%s\n' "${refs[@]}" "${PAUSE_REF}" | sort)"
got="$(docker exec "${build_container}" cat /kind/images | sed 's|^docker.io/||' | sort)"
if [[ "${want}" != "${got}" ]]; then
  log "the node's containerd holds other images than built:"
  diff <(echo "${want}") <(echo "${got}") >&2 || true
  exit 1
fi
docker commit --change 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' \
  "${build_container}" "${NODE_IMAGE}" >/dev/null
docker rmi "graft.local/kind-base:${key}" "graft.local/kind-rootfs:${key}" "graft.local/kind-component-base:${key}" "${refs[@]}" >/dev/null 2>&1 || true
# Node images of earlier inputs would only fill the engine's store.
docker images graft.local/kind-node --format '{{.Repository}}:{{.Tag}}' | grep -vxF "${NODE_IMAGE}" \
  | xargs -r docker rmi >/dev/null 2>&1 || true
log "built ${NODE_IMAGE} in $((SECONDS - start)) s"
echo "${NODE_IMAGE}"
