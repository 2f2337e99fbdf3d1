# jetsam: the two commands a newcomer runs are `make demo` and `make test`.
SWIFT ?= swift
BUILD_FLAGS ?=
BIN_DIR := $(shell pwd)/.build/debug
RELEASE_DIR := $(shell pwd)/.build/release

.PHONY: all deps build release test test-unit test-host test-v2 demo bench format clean
.PHONY: install install-build uninstall test-systemd

all: build

deps:
	@scripts/install-deps.sh build

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

release: deps
	$(SWIFT) build -c release $(BUILD_FLAGS)

# The whole suite: the pure core's unit tests, real-process tests on this host's cgroups, the Python client,
# the demo, a real systemd in a container, then the integration tests again in a pure cgroup v2 VM.
test: deps
	@scripts/install-deps.sh test
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	JETSAM_BIN_DIR=$(BIN_DIR) $(SWIFT) test --skip-build $(BUILD_FLAGS)
	python3 -m unittest discover -s clients/python
	JETSAM_BIN_DIR=$(BIN_DIR) scripts/demo.sh > .build/demo.log 2>&1 || { cat .build/demo.log; exit 1; }
	@echo "make demo: ran to completion (log: .build/demo.log)"
	JETSAM_BIN_DIR=$(BIN_DIR) scripts/test-systemd.sh
	scripts/test-cgroup-v2.sh

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
JETSAM_PROGRAMS := jetsamd jetsamctl jetsam-testapp

install-build: deps
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path $(INSTALL_SCRATCH) $(BUILD_FLAGS)

install: $(if $(INSTALL_BIN_DIR),,install-build)
	@set -e; bin="$(or $(INSTALL_BIN_DIR),$(INSTALL_SCRATCH)/release)"; \
	for p in $(JETSAM_PROGRAMS); do [ -x "$$bin/$$p" ] || { echo "install: no $$bin/$$p" >&2; exit 1; }; done; \
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(SYSUSERSDIR)" "$(DESTDIR)$(DOCDIR)" \
	  "$(DESTDIR)$(CONFDIR)/profiles"; \
	for p in $(JETSAM_PROGRAMS); do install -m 0755 "$$bin/$$p" "$(DESTDIR)$(BINDIR)/$$p"; done; \
	for u in jetsamd.service jetsamd.socket; do \
	  sed -e 's|/usr/local/bin/|$(BINDIR)/|g' -e 's|/usr/local/share/doc/jetsam/|$(DOCDIR)/|g' "units/$$u" \
	    > "$(DESTDIR)$(UNITDIR)/$$u"; chmod 0644 "$(DESTDIR)$(UNITDIR)/$$u"; done; \
	install -m 0644 units/jetsam.sysusers "$(DESTDIR)$(SYSUSERSDIR)/jetsam.conf"; \
	install -m 0644 README.md PROTOCOL-CONTROL.md "$(DESTDIR)$(DOCDIR)/"; \
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
	  systemctl disable --now jetsamd.service jetsamd.socket 2>/dev/null || true; fi; \
	for p in $(JETSAM_PROGRAMS); do rm -f "$(DESTDIR)$(BINDIR)/$$p"; done; \
	rm -f "$(DESTDIR)$(UNITDIR)/jetsamd.service" "$(DESTDIR)$(UNITDIR)/jetsamd.socket" \
	  "$(DESTDIR)$(SYSUSERSDIR)/jetsam.conf" "$(DESTDIR)$(DOCDIR)/README.md" "$(DESTDIR)$(DOCDIR)/PROTOCOL-CONTROL.md"; \
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
