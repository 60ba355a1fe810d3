# graft: see README.md. `make demo` and `make test` are the two commands a
# newcomer needs.

SHELL := /usr/bin/env bash
GO ?= go
BIN := _output/bin

.PHONY: all build test test-unit test-integration deps codegen verify-codegen demo demo-down clean

all: build

## build: compile every binary into _output/bin
build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/...

## deps: install what the tests need and this machine lacks (etcd, kube-apiserver, helm)
deps:
	@bash hack/install-deps.sh

## test: the whole suite: unit tests, then integration tests against a real kube-apiserver
test: deps
	$(GO) vet ./...
	$(GO) test ./...
	$(GO) test -tags integration -timeout 30m ./test/integration/...

## test-unit: unit tests only
test-unit:
	$(GO) test ./...

## test-integration: integration tests only
test-integration: deps
	$(GO) test -tags integration -timeout 30m ./test/integration/...

## codegen: regenerate deepcopy, clients and CRDs from apis/
codegen:
	bash hack/update-codegen.sh

## verify-codegen: fail when generated code is out of date
verify-codegen:
	bash hack/verify-codegen.sh

## demo: bring up the local garden with a sample landscape and show it
demo: build
	bash hack/demo.sh up

## demo-down: stop everything make demo started
demo-down:
	bash hack/demo.sh down

clean:
	rm -rf _output
