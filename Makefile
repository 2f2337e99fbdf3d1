# jetsam: the two commands a newcomer runs are `make demo` and `make test`.
SWIFT ?= swift
BUILD_FLAGS ?=
BIN_DIR := $(shell pwd)/.build/debug
RELEASE_DIR := $(shell pwd)/.build/release

.PHONY: all deps test-deps build build-tests lint release test test-unit test-fuzz test-host test-v2 demo bench fuzz format clean
.PHONY: install install-build uninstall test-systemd
# One step at a time, in the order written, also under `make -j`: the test targets share the machine's cgroups.
.NOTPARALLEL:

all: build

deps:
	@scripts/install-deps.sh build

# What the real-kernel and VM tests need beyond building (qemu, busybox, …); test-unit does without.
test-deps:
	@scripts/install-deps.sh test

# Every debug build make makes fails on a compiler warning in our sources (scripts/build-checked.sh), so that
# `make build`, `make demo` and the test targets share one build.
build: deps
	SWIFT=$(SWIFT) scripts/build-checked.sh $(BUILD_FLAGS)

build-tests: deps
	SWIFT=$(SWIFT) scripts/build-checked.sh --build-tests $(BUILD_FLAGS)

# Any finding of swift format (configured by .swift-format) fails; `make format` fixes most.
# Also: the daemon's modules import FoundationEssentials, never the whole of Foundation, whose ICU data would
# cost jetsamd (and jetsam-spawner) 6 MB of RSS; and the layering (scripts/check-layering.sh): no @_exported, every
# import declared in Package.swift. test-unit adds that jetsam-lab and jetsam-spawner link no libcgroup/libsystemd.
DAEMON_SOURCES := Sources/JetsamShell Sources/JetsamCore Sources/JetsamProtocol Sources/JetsamPlatform \
  Sources/JetsamWire Sources/JetsamValues Sources/JetsamConfig Sources/JetsamSpawning Sources/jetsamd \
  Sources/jetsam-spawner Sources/JetsamSockets Sources/jetsam-sockets Sources/jetsam-runnable
lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift
	@! grep -rn --include='*.swift' -E '^import (Foundation|struct Foundation\.|class Foundation\.)$$' $(DAEMON_SOURCES) \
	  || { echo "lint: the daemon's modules import FoundationEssentials, not Foundation (see above)" >&2; exit 1; }
	scripts/check-layering.sh

release: deps
	$(SWIFT) build -c release $(BUILD_FLAGS)

# The whole suite: lint, the warning-free build, then test-unit, test-fuzz, test-host and test-v2, in this order.
test: deps test-deps lint build-tests test-unit test-fuzz test-host test-v2

# The Swift unit test targets (no root, no kernel: the pure core, the clients, the wire and control formats, /proc parsing,
# the supervisor, the policy loop and the shell's owners through fakes, the lab's reports) and the Python client.
# Seconds; runs without root.
UNIT_TESTS := ^(JetsamCoreTests|JetsamClientTests|JetsamWireTests|JetsamPlatformTests|JetsamProtocolTests|JetsamSupervisorTests|JetsamLabTests|JetsamFuzzingTests)\.
test-unit: build-tests
	scripts/check-layering.sh --bin-dir $(BIN_DIR)
	$(SWIFT) test --skip-build --filter '$(UNIT_TESTS)' $(BUILD_FLAGS)
	python3 -m unittest discover -s clients/python

# Every other Swift test (real processes on this host's cgroups: the shell's kernel suites, the integration
# tests), the demo, and jetsamd under a real systemd in a container. Root; a few minutes.
# Their suites run off Swift's cooperative pool (Tests/JetsamTestTraits: they block their threads), six tests at a
# time: more only loads a two-core machine into slower runs, fewer leaves it waiting on sleeping apps.
TEST_WIDTH ?= 6
test-host: deps test-deps build-tests
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) JETSAM_BIN_DIR=$(BIN_DIR) $(SWIFT) test --skip-build --skip '$(UNIT_TESTS)' $(BUILD_FLAGS)
	JETSAM_BIN_DIR=$(BIN_DIR) DEMO_LAB_OUTPUT=$(CURDIR)/.build/demo-lab scripts/demo.sh > .build/demo.log 2>&1 \
	  || { cat .build/demo.log; exit 1; }
	@echo "make demo: ran to completion (log: .build/demo.log)"
	JETSAM_BIN_DIR=$(BIN_DIR) scripts/test-systemd.sh

# The integration tests and the shell's kernel suites again, on pure cgroup v2 in a QEMU VM. Root; ~5 minutes.
test-v2: deps test-deps build-tests
	scripts/test-cgroup-v2.sh

# Each libFuzzer target (control requests, app channel bytes, crash report lines, configs, lab scenarios, sizes, HTTP
# request heads) for a short slice under address sanitizer, then a real jetsamd fuzzed over its socket by a non-root
# member, while watchers and followers that never read pile up output, and reloaded with mutated configs
# (scripts/fuzz-socket.py); any crash, leak, lost answer or memory past the output budget fails. Root.
test-fuzz: deps build-tests
	FUZZ_SECONDS=$${FUZZ_SECONDS:-20} SWIFT=$(SWIFT) scripts/fuzz.sh
	scripts/fuzz-socket.py --bin-dir $(BIN_DIR) --requests 50000 --configs 2000

# The long run: FUZZ_SECONDS (300) per libFuzzer target, then FUZZ_REQUESTS control requests (10 million, from
# FUZZ_CLIENTS senders at once, while 64 streams nobody reads are held) and FUZZ_CONFIGS config reloads (100,000)
# against a release jetsamd. Root; hours.
FUZZ_REQUESTS ?= 10000000
FUZZ_CLIENTS ?= 2
FUZZ_CONFIGS ?= 100000
fuzz: deps
	SWIFT=$(SWIFT) scripts/fuzz.sh
	$(SWIFT) build -c release --product jetsamd $(BUILD_FLAGS)
	$(SWIFT) build -c release --product jetsam-testapp $(BUILD_FLAGS)
	scripts/fuzz-socket.py --bin-dir $(RELEASE_DIR) --requests $(FUZZ_REQUESTS) --clients $(FUZZ_CLIENTS) \
	  --configs $(FUZZ_CONFIGS)

demo: build
	scripts/demo.sh

bench: deps
	@scripts/install-deps.sh bench
	$(SWIFT) build -c release $(BUILD_FLAGS)
	$(RELEASE_DIR)/jetsam-bench

# ---- Installing as a systemd service (see "Running under systemd" in README.md)
# PREFIX defaults to /usr/local (systemd reads units from /usr/local/lib/systemd/system and sysusers.d
# from /usr/local/lib/sysusers.d). The units in units/ name /usr/local/bin; they are rewritten for other
# prefixes at install time. The config always goes to /etc/jetsam (ConfigurationDirectory=jetsam).
# Binaries are a release build with the Swift runtime linked in statically (runs without a toolchain),
# made in its own scratch dir; INSTALL_BIN_DIR=DIR installs already-built binaries from DIR instead.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
DOCDIR ?= $(PREFIX)/share/doc/jetsam
CONFDIR := /etc/jetsam
DESTDIR ?=
INSTALL_BIN_DIR ?=
INSTALL_SCRATCH := $(shell pwd)/.build/install
JETSAM_PROGRAMS := jetsamd jetsamctl jetsam-spawner jetsam-stack jetsam-sockets jetsam-runnable jetsam-testapp jetsam-lab jetsam-demo-app
# The crash reporter preloaded into apps; jetsamd looks for it in ../lib/jetsam beside its own directory.
LIBDIR ?= $(PREFIX)/lib/jetsam

install-build: deps
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path $(INSTALL_SCRATCH) $(BUILD_FLAGS)

install: $(if $(INSTALL_BIN_DIR),,install-build)
	@set -e; bin="$(or $(INSTALL_BIN_DIR),$(INSTALL_SCRATCH)/release)"; \
	for p in $(JETSAM_PROGRAMS); do [ -x "$$bin/$$p" ] || { echo "install: no $$bin/$$p" >&2; exit 1; }; done; \
	[ -e "$$bin/libjetsam-crash.so" ] || { echo "install: no $$bin/libjetsam-crash.so" >&2; exit 1; }; \
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(LIBDIR)" "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(SYSUSERSDIR)" \
	  "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(CONFDIR)/profiles"; \
	for p in $(JETSAM_PROGRAMS); do install -m 0755 "$$bin/$$p" "$(DESTDIR)$(BINDIR)/$$p"; done; \
	install -m 0644 "$$bin/libjetsam-crash.so" "$(DESTDIR)$(LIBDIR)/libjetsam-crash.so"; \
	for u in jetsamd.service jetsamd.socket jetsamd-metrics.socket jetsam-spawner.service jetsam-spawner.socket; do \
	  sed -e 's|/usr/local/bin/|$(BINDIR)/|g' -e 's|/usr/local/share/doc/jetsam/|$(DOCDIR)/|g' "units/$$u" \
	    > "$(DESTDIR)$(UNITDIR)/$$u"; chmod 0644 "$(DESTDIR)$(UNITDIR)/$$u"; done; \
	install -m 0644 units/jetsam.sysusers "$(DESTDIR)$(SYSUSERSDIR)/jetsam.conf"; \
	install -m 0644 README.md PROTOCOL.md PROTOCOL-CONTROL.md LABS.md "$(DESTDIR)$(DOCDIR)/"; \
	install -d "$(DESTDIR)$(DOCDIR)/labs"; install -m 0644 labs/*.json5 "$(DESTDIR)$(DOCDIR)/labs/"; \
	for f in config/jetsamd.json5 config/profiles/*.json5; do \
	  dest="$(DESTDIR)$(CONFDIR)/$${f#config/}"; \
	  if [ -e "$$dest" ] && ! cmp -s "$$f" "$$dest"; then \
	    install -m 0644 "$$f" "$$dest.default"; echo "install: kept your $$dest; the shipped one is $$dest.default"; \
	  else install -m 0644 "$$f" "$$dest"; fi; done; \
	if [ -z "$(DESTDIR)" ]; then \
	  getent group jetsam >/dev/null || groupadd --system jetsam; \
	  if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi; \
	fi; \
	echo "installed jetsam into $(DESTDIR)$(PREFIX) (units in $(UNITDIR), config in $(CONFDIR))"

# Leaves /etc/jetsam (your config), /var/lib/jetsam (exit records) and the jetsam group in place.
uninstall:
	@set -e; \
	if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
	  systemctl disable --now jetsamd.service jetsamd.socket jetsamd-metrics.socket jetsam-spawner.service \
	    jetsam-spawner.socket \
	    2>/dev/null || true; fi; \
	for p in $(JETSAM_PROGRAMS); do rm -f "$(DESTDIR)$(BINDIR)/$$p"; done; \
	rm -f "$(DESTDIR)$(LIBDIR)/libjetsam-crash.so"; rmdir "$(DESTDIR)$(LIBDIR)" 2>/dev/null || true; \
	rm -f "$(DESTDIR)$(UNITDIR)/jetsamd.service" "$(DESTDIR)$(UNITDIR)/jetsamd.socket" \
	  "$(DESTDIR)$(UNITDIR)/jetsamd-metrics.socket" \
	  "$(DESTDIR)$(UNITDIR)/jetsam-spawner.service" "$(DESTDIR)$(UNITDIR)/jetsam-spawner.socket" \
	  "$(DESTDIR)$(SYSUSERSDIR)/jetsam.conf"; \
	for f in README.md PROTOCOL.md PROTOCOL-CONTROL.md LABS.md; do rm -f "$(DESTDIR)$(DOCDIR)/$$f"; done; \
	rm -rf "$(DESTDIR)$(DOCDIR)/labs"; \
	rmdir "$(DESTDIR)$(DOCDIR)" 2>/dev/null || true; \
	if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi; \
	echo "uninstalled jetsam from $(DESTDIR)$(PREFIX); kept $(CONFDIR), /var/lib/jetsam and the jetsam group"

# jetsamd under a real systemd 252 (PID 1 of a throw-away container): units, socket activation, READY,
# STATUS, reload, watchdog restart, crash restart, journal records, clean stop. Needs root; ~1 minute.
test-systemd: build
	JETSAM_BIN_DIR=$(BIN_DIR) scripts/test-systemd.sh

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

clean:
	rm -rf .build
