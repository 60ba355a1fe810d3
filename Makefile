# graft: see README.md. `make demo` and `make test` are the two commands a
# newcomer needs (`make demo-gardener` shows graft on Gardener's own API).

SHELL := /usr/bin/env bash
GO ?= go
BIN := _output/bin

# The version every binary reports (--version, graftctl version), stamped into
# k8s.io/component-base/version. A build outside make reports v0.0.0-dev.
VERSION ?= $(shell git describe --tags --match 'v*' --dirty 2>/dev/null || echo v0.0.0-dev)
GIT_COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
GIT_TREE_STATE ?= $(shell if [ -z "$$(git status --porcelain 2>/dev/null)" ]; then echo clean; else echo dirty; fi)
BUILD_DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
VERSION_PKG := k8s.io/component-base/version
LDFLAGS := -X $(VERSION_PKG).gitVersion=$(VERSION) -X $(VERSION_PKG).gitCommit=$(GIT_COMMIT) \
	-X $(VERSION_PKG).gitTreeState=$(GIT_TREE_STATE) -X $(VERSION_PKG).buildDate=$(BUILD_DATE)

.PHONY: all build images test test-unit test-integration test-gardener gardener-deps test-e2e test-e2e-kind kind-deps kind-up kind-down bench-scheduler bench-drain bench-scale bench-backlog chaos parity deps codegen verify-codegen demo demo-gardener demo-down clean

all: build

## build: compile every binary into _output/bin
build:
	@mkdir -p $(BIN)
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/ ./cmd/...

## images: the graft image and the pod sandbox (pause) image as OCI archives in
## _output/images, for `ctr -n k8s.io images import` on a node without a registry
## (see docs/images.md)
IMAGES := _output/images
images:
	@mkdir -p $(IMAGES)
	$(GO) run ./hack/image graft --out $(IMAGES)/graft.tar --version=$(VERSION) --git-commit=$(GIT_COMMIT) \
		--git-tree-state=$(GIT_TREE_STATE) --build-date=$(BUILD_DATE)
	$(GO) run ./hack/image pause --out $(IMAGES)/pause.tar --version=$(VERSION) --build-date=$(BUILD_DATE)

## deps: install what the tests need and this machine lacks (etcd, kube-apiserver, helm,
## prometheus and promtool)
deps:
	@bash hack/install-deps.sh

## gardener-deps: Gardener's API server and gardenlet, and the parity oracle
## (Gardener's scheduler code behind a command), built once per machine from
## the Go module proxy (5 to 35 minutes cold), for the Gardener integration
## tests, make parity and make demo-gardener
gardener-deps:
	@bash hack/install-deps.sh gardener-apiserver gardenlet parity-oracle

## kind-deps: what a kind cluster needs here (Debian's docker.io, debootstrap and
## jq; kind; the binaries of the node image hack/kind.sh builds when kind's own
## cannot be pulled: kubeadm, kubelet, the control plane, etcd, CoreDNS), built
## once per machine
kind-deps:
	@bash hack/install-deps.sh kind

## test: the whole suite: vet, unit tests, integration and chart tests against a real
## kube-apiserver, the integration tests against Gardener's real API server, then
## the end-to-end suite with the real binaries (after 300 decisions of the parity
## suite against Gardener's scheduler code), then the pod scenarios against
## graft's charts on a kind cluster (as root without Docker: hack/kind.sh runs its
## own engine and gives the host back), then two short chaos runs (one minute of
## faults, a fixed seed), on graft's API and on Gardener's. The Go build cache of
## the once-per-machine builds goes first (hack/disk.sh prune): gigabytes no test uses.
test: deps kind-deps gardener-deps
	@bash hack/disk.sh prune
	$(GO) vet ./...
	$(GO) vet -tags integration ./test/...
	$(GO) vet -tags e2e ./test/e2e/...
	$(GO) vet -tags gardener ./test/integration/gardener/
	$(GO) vet -tags parity ./test/parity/
	$(GO) test ./...
	$(GO) test -tags integration -timeout 30m ./test/integration/... ./test/charts/...
	$(GO) test -tags gardener -timeout 20m ./test/integration/gardener/
	PARITY_ORACLE="$$(bash hack/install-deps.sh parity-oracle-path)" $(GO) test -tags parity -count=1 ./test/parity/ -args -decisions 300
	$(GO) test -tags e2e -timeout 40m ./test/e2e/ -args -ginkgo.label-filter='!pods'
	E2E_LABELS=pods bash hack/kind-e2e.sh
	$(GO) run ./test/chaos -seed 13 -duration 60s
	$(GO) run ./test/chaos -seed 13 -duration 60s -api core.gardener.cloud

## test-unit: unit tests only
test-unit:
	$(GO) test ./...

## test-integration: integration and chart tests only
test-integration: deps
	$(GO) test -tags integration -timeout 30m ./test/integration/... ./test/charts/...

## test-gardener: only the integration tests against Gardener's real API server
## (part of make test): graft-scheduler and graftctl on core.gardener.cloud
test-gardener: deps gardener-deps
	$(GO) test -tags gardener -timeout 20m ./test/integration/gardener/

## test-e2e: the end-to-end suite with the components as local processes; against
## $$KUBECONFIG when set, else a local garden
test-e2e: deps
	$(GO) test -tags e2e -timeout 40m ./test/e2e/ -args -ginkgo.v -ginkgo.label-filter='!pods'

## test-e2e-kind: the end-to-end suite against graft installed with its charts and
## running as pods on a fresh kind cluster (hack/kind-e2e.sh): every scenario that
## does not stop or start component processes, and the pod scenarios
test-e2e-kind: deps kind-deps
	bash hack/kind-e2e.sh

## kind-up: a kind cluster (one control plane, two workers) as the e2e suite uses
## it; `eval "$$(hack/kind.sh env)"` reaches it, make kind-down removes it
kind-up: kind-deps
	bash hack/kind.sh up

## kind-down: delete the kind cluster and give the host back as kind-up found it
kind-down:
	bash hack/kind.sh down

## bench-scheduler: schedule M pending shoots onto N seeds against a plain loop making
## the same writes with as many writers in flight; BENCH_ARGS="-seeds 1000 -shoots 20000"
## for the large size, BENCH_ARGS="-api core.gardener.cloud" through gardener-apiserver
bench-scheduler: deps
	$(GO) run ./test/perf/scheduler $(BENCH_ARGS)

## bench-drain: drain a seed of 1,000 shoots with scheduler and descheduler running,
## against a plain loop making the same writes with as many writers in flight
bench-drain: deps
	$(GO) run ./test/perf/drain $(BENCH_ARGS)

## bench-scale: each daemon as its binary, alone, on N=2000 seeds and M=100,000 shoots
## (2,000 pending, 500 on a seed that is drained): time to ready, steady and peak RSS,
## RSS per shoot, binding, descheduler passes, annotator writes per seed, beside the
## API server's RSS; BENCH_ARGS="-seeds 200 -shoots 10000" for a quick run. It runs on
## etcd 3.6 (hack/build-etcd.sh, built once per machine), with which kube-apiserver
## serves consistent reads from its cache and informers stream their first list;
## GRAFT_ETCD=$$(command -v etcd) measures on Debian's etcd 3.4 instead
bench-scale: deps
	GRAFT_ETCD="$${GRAFT_ETCD:-$$(bash hack/build-etcd.sh)}" $(GO) run ./test/perf/scale $(BENCH_ARGS)

## bench-backlog: graft-scheduler and graft-descheduler as their binaries on 2,000 seeds,
## churning schedulable shoots at a fixed rate with an empty backlog, then with 1,000
## shoots no seed fits: failed decisions, status writes and Event writes per churn
## event, the scheduler's CPU time, churn throughput and binding latency; then the
## same beside one tenant's flood of writes (-flood, 50/s: patches of its waiting
## shoots, new shoots with the largest selectors), first of shoots graft does not
## schedule (the API server's share), then of graft's, and another tenant's binding
## p99 against the quiet phase's; BENCH_ARGS="-before DIR" measures the binaries in DIR
## first (an earlier build)
bench-backlog: deps
	GRAFT_ETCD="$${GRAFT_ETCD:-$$(bash hack/build-etcd.sh)}" $(GO) run ./test/perf/backlog $(BENCH_ARGS)

## chaos: a seeded, bounded, randomized fault run of the real daemons (two replicas
## each) against a local control plane, checking invariants throughout;
## SEED=<n> repeats a run, DURATION sets how long faults go on (default 90s),
## API=core.gardener.cloud runs it on gardener-apiserver (evictions as
## control-plane migrations, a stand-in for gardenlet finishing them)
SEED ?= 0
DURATION ?= 90s
API ?= core.graft.dev
chaos: deps $(if $(filter core.gardener.cloud,$(API)),gardener-deps)
	$(GO) run ./test/chaos -seed $(SEED) -duration $(DURATION) -api $(API)

## parity: graft's decisions against Gardener's scheduler code on generated
## landscapes of every feature, both strategies (test/parity): every decision the
## same seed or a failure of both, unless a listed deliberate difference;
## PARITY_ARGS="-decisions N -seed S" (default 5,000 decisions, seed 1)
PARITY_ARGS ?= -decisions 5000
parity: gardener-deps
	PARITY_ORACLE="$$(bash hack/install-deps.sh parity-oracle-path)" $(GO) test -tags parity -count=1 -v -run TestParity ./test/parity/ -args $(PARITY_ARGS)

## codegen: regenerate deepcopy, clients and CRDs from apis/
codegen:
	bash hack/update-codegen.sh

## verify-codegen: fail when generated code is out of date
verify-codegen:
	bash hack/verify-codegen.sh

## demo: bring up the local garden with a sample landscape and show it
demo: build
	bash hack/demo.sh up

## demo-gardener: bring up the local garden with Gardener's API server, create a
## Gardener landscape, run graft-scheduler on core.gardener.cloud and show it
demo-gardener: build
	bash hack/demo.sh up --gardener

## demo-down: stop everything make demo or make demo-gardener started
demo-down:
	bash hack/demo.sh down

clean:
	rm -rf _output
