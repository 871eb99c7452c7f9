# Quire: the two commands a newcomer needs are `make run` and `make test` (see README.md).
# Each installs the Debian packages it needs (only those missing), builds, and runs.

SWIFT ?= swift
# What the build and the tests need from Debian (PostgreSQL: the tests start a private server for the cluster catalog).
APT_PACKAGES := pkg-config libpoppler-glib-dev libcairo2-dev libpng-dev libglib2.0-dev libsqlite3-dev postgresql
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
# What the web page's browser tests need from Debian (a headless browser, its driver, a Python venv for Selenium).
BROWSER_PACKAGES := chromium chromium-driver python3-venv

.PHONY: all deps browser-deps build run cluster compare-cluster compare-web test browser-test release clean fixtures fuzz bench compare compare-coordination \
	compare-store contract chaos bench-scale bench-takeover docs bench-search bench-polling install uninstall man packaging-deps \
	install-check deb deb-check systemd-check generate-api check-generated

all: build

deps:
	@missing=""; \
	for package in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# Installs the browser tests' packages where they are missing; failing to is not an error: the browser tests
# then say they were skipped.
browser-deps:
	@missing=""; \
	for package in $(BROWSER_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing for the browser tests:$$missing"; \
	  { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
	    --no-install-recommends $$missing; } || echo "could not install$$missing: the browser tests will be skipped"; \
	fi

build: deps
	$(SWIFT) build

# Three executables: quire, and its helpers quire-pdf (the PDF commands) and quire-store (serve, status, resolve,
# events); both must be installed next to quire.
# With the flags they ship with (scripts/release-build.sh says which and why).
release: deps
	SWIFT=$(SWIFT) scripts/release-build.sh quire quire-pdf quire-store

# The main job: the document-store service on the embedded default (config/quire.json: 127.0.0.1:8080, store in
# ./.quire-data), until Ctrl-C. `build` builds every product, so quire-store sits next to quire.
run: build
	$(SWIFT) run --skip-build quire serve

# A cluster to try: PostgreSQL and three nodes on http://127.0.0.1:8081 … 8083 sharing .quire-cluster/, until Ctrl-C.
cluster: build
	scripts/cluster.sh

# The tests get a private coordination directory and versions store: they never meet a `quire coordinator` the user
# may be running, and never write versions into the user's own store (~/.local/share/quire/versions).
# They run one at a time (--no-parallel, about 70 s): in parallel, the suites that block threads while other
# processes work (cross-process coordination, the CLI, the service) held both threads of Swift's cooperative pool
# on 2 cores for up to 30 s, and async suites timed out waiting for it (measured: 3 of 6 full runs).
# Then the web page's browser tests (Tests/browser/run.sh, about a minute), also when a Swift test failed, and the
# install check (scripts/check-install.sh, about a minute: the debug build installed into a temporary root).
test: deps browser-deps packaging-deps check-generated
	$(SWIFT) build --build-tests
	@scratch=$$(mktemp -d) && chmod 700 $$scratch && \
	QUIRE_COORDINATION_DIR=$$scratch/coordination QUIRE_VERSIONS_DIR=$$scratch/versions \
	  $(SWIFT) test --skip-build --no-parallel; \
	status=$$?; rm -rf $$scratch; \
	Tests/browser/run.sh || status=1; \
	scripts/check-install.sh "$$($(SWIFT) build --show-bin-path)" || status=1; exit $$status

# StoreClient's types and client (Sources/QuireAPI/Generated), generated from openapi.yaml by swift-openapi-generator
# with Sources/QuireAPI/openapi-generator-config.yaml. They are committed (the build plugin would cost every first
# build the generator's own): change openapi.yaml, then `make generate-api`, and commit both.
API_GENERATOR_CONFIG := Sources/QuireAPI/openapi-generator-config.yaml
API_GENERATED := Sources/QuireAPI/Generated
generate-api:
	$(SWIFT) build --product swift-openapi-generator
	rm -rf $(API_GENERATED) && mkdir -p $(API_GENERATED)
	"$$($(SWIFT) build --show-bin-path)/swift-openapi-generator" generate --config $(API_GENERATOR_CONFIG) \
	  --output-directory $(API_GENERATED) openapi.yaml

# Fails when the committed generated files are not what openapi.yaml gives now (generated again into a temporary
# directory and compared): run `make generate-api` and commit. `make test` runs it first.
check-generated:
	$(SWIFT) build --product swift-openapi-generator
	@scratch=$$(mktemp -d) && \
	"$$($(SWIFT) build --show-bin-path)/swift-openapi-generator" generate --config $(API_GENERATOR_CONFIG) \
	  --output-directory $$scratch openapi.yaml >/dev/null 2>$$scratch.log || { cat $$scratch.log; rm -rf $$scratch $$scratch.log; exit 1; }; \
	diff -r $$scratch $(API_GENERATED); status=$$?; rm -rf $$scratch $$scratch.log; \
	if [ $$status -ne 0 ]; then echo "$(API_GENERATED) is not what openapi.yaml gives: run make generate-api"; fi; \
	exit $$status

# The libraries' DocC documentation (FileCoordination, FileCoordinationCompat, DocumentModel, Documents, Poppler,
# StoreClient), combined into one static site in .build/docs; any DocC warning (an unresolved symbol link, say)
# fails it. .ci/run runs it after the tests.
DOC_TARGETS = FileCoordination FileCoordinationCompat DocumentModel Documents Poppler StoreClient
docs: deps
	$(SWIFT) package --allow-writing-to-directory .build/docs generate-documentation \
	  $(foreach target,$(DOC_TARGETS),--target $(target)) --enable-experimental-combined-documentation \
	  --warnings-as-errors --transform-for-static-hosting --output-path .build/docs

# The browser tests alone (headless Chromium against a real `quire serve`; screenshots in .build/screenshots).
browser-test: deps browser-deps
	$(SWIFT) build
	Tests/browser/run.sh

# Regenerate the committed PDF fixtures (needs Debian's qpdf and PyPI; installs both itself).
fixtures:
	Fixtures/generate.sh

# libFuzzer with AddressSanitizer on the worker protocol's decoders and on the PDF open/info/text path (a separate
# package under Fuzz/, so `make test` does not build it): FUZZ_SECONDS per target (default 60). Findings and the
# grown corpus go to .build-fuzz/work/; the run fails if a target stops on one. libFuzzer and lld come with Swift.
fuzz: deps
	SWIFT=$(SWIFT) Fuzz/run.sh

# The chaos run: CHAOS_HISTORIES seeded histories (default 50) against three nodes on a private PostgreSQL while
# nodes are SIGKILLed and SIGSTOPped and PostgreSQL restarts; a checker proves every acknowledged change is in the
# final history once, versions only grow, no acknowledged write is lost and no stale write succeeds, and every node
# shows every document alike. A failure prints its seed; QUIRE_HISTORY_SEED=N replays one. Then the differential
# test with CHAOS_HISTORIES seeds (one node against three, no faults). About 40 s a history on 2 cores.
CHAOS_HISTORIES ?= 50
chaos: deps
	$(SWIFT) build --build-tests
	@scratch=$$(mktemp -d) && chmod 700 $$scratch && \
	QUIRE_CHAOS=1 QUIRE_CHAOS_HISTORIES=$(CHAOS_HISTORIES) QUIRE_HISTORY_SEEDS=$(CHAOS_HISTORIES) \
	QUIRE_COORDINATION_DIR=$$scratch/coordination QUIRE_VERSIONS_DIR=$$scratch/versions \
	  $(SWIFT) test --skip-build --no-parallel --filter 'ChaosHistoryTests|DifferentialHistoryTests|HistoryCheckerTests'; \
	status=$$?; rm -rf $$scratch; exit $$status

# package-benchmark suites (a separate package under Benchmarks/, so `make test` does not build them).
bench: deps
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark

# Side-by-side timings against poppler-utils with hyperfine (release build).
compare: deps
	Benchmarks/compare-poppler-utils.sh

# quire exec --write F -- true against flock F true, with hyperfine (release build; target: at most 4x).
compare-coordination: deps
	Benchmarks/compare-coordination.sh

# The service against schemathesis and openapi.yaml (installs schemathesis from PyPI; .ci/run runs it too).
contract: deps
	Tests/contract/run-schemathesis.sh

# The store service against a pdfinfo loop and nginx (wrk), and change → SSE latency (release build).
compare-store: deps
	Benchmarks/compare-store.sh

# Cluster mode against one node: change → SSE on another node, info rate (release builds; starts its own PostgreSQL).
compare-cluster: deps
	$(SWIFT) build -c release --product quire-store
	$(SWIFT) build -c release --product quire-pdf
	python3 Benchmarks/cluster-latency.py .build/release

# The web page's first paint of a store of 1,000 documents (its first page of 100) on a release build (target:
# under 1 s), in headless Chromium.
compare-web: deps browser-deps
	$(SWIFT) build -c release --scratch-path .build-release --product quire
	$(SWIFT) build -c release --scratch-path .build-release --product quire-store
	$(SWIFT) build -c release --scratch-path .build-release --product quire-pdf
	QUIRE_BROWSER_BINARY=$(CURDIR)/.build-release/release/quire FIRST_PAINT_BOUND_MS=1000 \
	  Tests/browser/run.sh test_first_paint_of_a_thousand_documents

# A store of BENCH_SCALE_DOCUMENTS documents (default 100,000) on one node, release build: uploads/s as it fills,
# memory per document, a page of the listing, an external change to its SSE event, restart and stop (one table).
BENCH_SCALE_DOCUMENTS ?= 100000
bench-scale: deps
	SWIFT=$(SWIFT) scripts/release-build.sh --scratch-path .build-release quire-store quire-pdf
	python3 Benchmarks/bench-scale.py "$$(SWIFT=$(SWIFT) scripts/release-build.sh --scratch-path .build-release --show-bin-path)" \
	  $(BENCH_SCALE_DOCUMENTS)

# A dead cluster node's documents handed to a survivor (BENCH_TAKEOVER_DOCUMENTS, default 100,000; private PostgreSQL).
BENCH_TAKEOVER_DOCUMENTS ?= 100000
bench-takeover: deps
	SWIFT=$(SWIFT) scripts/release-build.sh --scratch-path .build-release quire-store quire-pdf
	python3 Benchmarks/takeover-scale.py "$$(SWIFT=$(SWIFT) scripts/release-build.sh --scratch-path .build-release --show-bin-path)" \
	  $(BENCH_TAKEOVER_DOCUMENTS)

# Full-text search (Docs/search.md): indexing against pdftotext on gnuplot's manual and libtasn1's, a change to
# searchable, queries at BENCH_SEARCH_DOCUMENTS one-page documents (default 100,000), the index's size on disk.
bench-search: deps
	SWIFT=$(SWIFT) Benchmarks/bench-search.sh

# What the polling windows buy and cost (Docs/performance.md): four release nodes side by side, default windows,
# none, and each group off; BENCH_POLLING_FLAGS=--loaded runs one busy process per core beside them.
bench-polling: deps
	SWIFT=$(SWIFT) scripts/release-build.sh --scratch-path .build-release quire-store quire-pdf
	python3 Benchmarks/polling-cost.py "$$(SWIFT=$(SWIFT) scripts/release-build.sh --scratch-path .build-release --show-bin-path)" \
	  5 $(BENCH_POLLING_FLAGS)

# Installing (Docs/operating.md, "Installing"): the three executables, their man pages, bash/zsh/fish completions,
# the systemd units (quire.service, quire.socket; the user units quire-coordinator.socket and .service) and the
# default configuration; nothing else. `make install PREFIX=/usr DESTDIR=/tmp/root`.
# QUIRE_BIN names a folder of built executables to install instead of the release build (the install check uses the
# debug build that `make test` made).
PREFIX ?= /usr/local
DESTDIR ?=
QUIRE_BIN ?=
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
UNITDIR ?= $(PREFIX)/lib/systemd/system
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
# What the packaging checks need from Debian: shells to parse the completions, lintian for the package.
PACKAGING_PACKAGES := zsh fish lintian man-db systemd-container debootstrap

packaging-deps:
	@missing=""; \
	for package in $(PACKAGING_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing for the packaging checks:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# Man pages from the commands' own help (swift-argument-parser's generate-manual tool, one page per command:
# quire.1, quire.serve.1, …), read from the executable that is installed (its --experimental-dump-help): only the
# small generate-manual tool is built for it, never a second build of the package. The generator copies a
# discussion's blank lines as they are, which mdoc warns about: they become paragraph breaks (.Pp).
man: $(if $(QUIRE_BIN),,release)
	$(SWIFT) build --product generate-manual >/dev/null
	rm -rf .build/man && mkdir -p .build/man
	"$$($(SWIFT) build --show-bin-path)/generate-manual" "$(install-binaries-from)/quire" --multi-page \
	  --authors "The Quire authors" --section 1 --output-directory .build/man
	sed -i 's/^$$/.Pp/' .build/man/*.1

# The executables to install: QUIRE_BIN, else the release build (built first).
install-binaries-from = $(if $(QUIRE_BIN),$(QUIRE_BIN),$(shell SWIFT=$(SWIFT) scripts/release-build.sh --show-bin-path))

install: $(if $(QUIRE_BIN),,release) man
	scripts/install.sh "$(install-binaries-from)" "$(DESTDIR)" "$(BINDIR)" "$(MANDIR)" "$(SYSCONFDIR)" \
	  "$(UNITDIR)" "$(BASHCOMPDIR)" "$(ZSHCOMPDIR)" "$(FISHCOMPDIR)" "$(USERUNITDIR)"

# Removes what `make install` put there (with the same PREFIX and DESTDIR); a configuration file that was changed
# stays, and so do the store and its data.
uninstall:
	scripts/install.sh --uninstall "" "$(DESTDIR)" "$(BINDIR)" "$(MANDIR)" "$(SYSCONFDIR)" \
	  "$(UNITDIR)" "$(BASHCOMPDIR)" "$(ZSHCOMPDIR)" "$(FISHCOMPDIR)" "$(USERUNITDIR)"

# The Debian package (scripts/build-deb.sh), from the release build through the same install step: .build/deb/.
deb: $(if $(QUIRE_BIN),,release) man
	scripts/build-deb.sh "$(install-binaries-from)" .build/deb

# Builds the package and checks it (scripts/check-deb.sh): its contents, lintian, and dpkg -i / -r / -P into a
# throwaway root. Slow (a release build): run by .ci/run, not by make test.
deb-check: packaging-deps deb
	scripts/check-deb.sh .build/deb/quire_*.deb
	$(SUDO) scripts/check-systemd.sh .build/deb/quire_*.deb

# The package under a real systemd only (scripts/check-systemd.sh: a minimal Debian 12 booted in systemd-nspawn,
# the package installed with apt, the unit started, reloaded, killed, stopped, socket-activated and purged).
systemd-check: packaging-deps deb
	$(SUDO) scripts/check-systemd.sh .build/deb/quire_*.deb

# Installs the debug build into a temporary root and checks it (scripts/check-install.sh): the file list exactly,
# the man pages render, the completions parse, the units verify offline, the installed quire serve answers /health.
install-check: packaging-deps
	scripts/check-install.sh "$$($(SWIFT) build --show-bin-path)"

clean:
	rm -rf .build
