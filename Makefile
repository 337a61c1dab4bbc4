# kubectl-informer: build, test, demo, bench, dist.
# `make test` runs the unit tests and the e2e tests against a real
# kube-apiserver and etcd built from source by hack/cluster.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
DATE    ?= $(shell git log -1 --format=%cI 2>/dev/null || echo unknown)
LDFLAGS := -s -w \
	-X github.com/kubectl-informer/kubectl-informer/internal/version.Version=$(VERSION) \
	-X github.com/kubectl-informer/kubectl-informer/internal/version.Commit=$(COMMIT) \
	-X github.com/kubectl-informer/kubectl-informer/internal/version.Date=$(DATE)

GO ?= go
BIN := bin/kubectl-informer
# FUZZTIME is each fuzz target's budget: a count of executions (Nx), not a
# duration. With a duration, Go 1.26's fuzzing coordinator can report its own
# deadline as a failure of the target ("context deadline exceeded", no failing
# input; golang/go#75804, fixed in Go 1.27); a count has no deadline to race.
FUZZTIME ?= 30000x
# Go packages with fuzz targets, and their targets.
FUZZ_TARGETS := \
	./pkg/index:FuzzParseSelector ./pkg/index:FuzzParseCustom ./pkg/index:FuzzLookup \
	./pkg/diff:FuzzParsePath ./pkg/diff:FuzzCompareJSONPatch ./pkg/plugin:FuzzParseOutput ./pkg/expr:FuzzCompileEval \
	./pkg/recording:FuzzReader ./pkg/manifest:FuzzRead ./pkg/manifest:FuzzScanKinds \
	./pkg/protoskip:FuzzFilter ./pkg/protoskip:FuzzDecodeList

.PHONY: all build test test-unit e2e fuzz cluster-bins demo bench dist krew-manifest lint clean

all: build

## build: the plugin binary at bin/kubectl-informer
build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/kubectl-informer

## cluster-bins: build (or find cached) kube-apiserver, etcd, kube-controller-manager, kube-scheduler, kwok and metrics-server from the Go module proxy, and the seeding tool
cluster-bins:
	hack/cluster build
	hack/seed help >/dev/null

## test: unit tests, e2e tests against a real control plane, and bounded fuzzing
test: cluster-bins
	cd hack/tools && GOWORK=off $(GO) test -count=1 ./...
	$(GO) test -count=1 -timeout 45m ./...
	$(MAKE) fuzz

## test-unit: unit tests only (no cluster)
test-unit:
	$(GO) test -short ./...

## e2e: only the e2e tests
e2e: cluster-bins
	$(GO) test -count=1 -timeout 45m -v ./test/e2e/...

## fuzz: run each fuzz target for FUZZTIME
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run='^$$' -fuzz="^$$name$$" -fuzztime=$(FUZZTIME) $$pkg; \
	done

## demo: start a local control plane, seed it, and query and watch it through kubectl
demo: build cluster-bins
	hack/demo

## dist: release archives for linux/darwin/windows on amd64 and arm64, and checksums, in dist/: a goreleaser snapshot (.goreleaser.yaml)
dist:
	hack/goreleaser release --snapshot --clean

## krew-manifest: render .krew.yaml for the archives in dist/ into dist/informer.yaml, as krew-release-bot will; validate it with krew's validate-krew-manifest
krew-manifest:
	hack/krew-manifest

## bench: benchmarks against a local control plane; writes bench/RESULTS.md
bench: build cluster-bins
	hack/bench

## lint: gofmt and go mod tidy must change nothing; go vet and staticcheck (pinned in hack/tools; also run on the tools module), goreleaser check and actionlint must pass
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	hack/staticcheck ./...
	cd hack/tools && GOWORK=off ../staticcheck ./...
	$(GO) mod tidy -diff
	cd hack/tools && GOWORK=off $(GO) mod tidy -diff
	cd hack/kwok && GOWORK=off $(GO) mod tidy -diff
	cd hack/metrics-server && GOWORK=off $(GO) mod tidy -diff
	hack/goreleaser check
	hack/actionlint

clean:
	rm -rf bin dist
