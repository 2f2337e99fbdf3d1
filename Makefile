# jetsam: the two commands a newcomer runs are `make demo` and `make test`.
SWIFT ?= swift
BUILD_FLAGS ?=
BIN_DIR := $(shell pwd)/.build/debug
RELEASE_DIR := $(shell pwd)/.build/release

.PHONY: all deps build release test test-unit test-host test-v2 demo bench format clean

all: build

deps:
	@scripts/install-deps.sh build

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

release: deps
	$(SWIFT) build -c release $(BUILD_FLAGS)

# The whole suite: pure core tests, real-process tests on this host's cgroups, then the cgroup v2 VM.
test: deps
	@scripts/install-deps.sh test
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	JETSAM_BIN_DIR=$(BIN_DIR) $(SWIFT) test --skip-build $(BUILD_FLAGS)
	JETSAM_BIN_DIR=$(BIN_DIR) scripts/demo.sh > .build/demo.log 2>&1 || { cat .build/demo.log; exit 1; }
	@echo "make demo: ran to completion (log: .build/demo.log)"
	scripts/test-cgroup-v2.sh

demo: build
	scripts/demo.sh

bench: deps
	@scripts/install-deps.sh bench
	$(SWIFT) build -c release $(BUILD_FLAGS)
	$(RELEASE_DIR)/jetsam-bench

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

clean:
	rm -rf .build
