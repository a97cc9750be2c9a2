# oxmcp: `make demo` runs the example servers and clients; `make test` runs every suite.

CARGO ?= cargo
export CARGO_TERM_COLOR ?= never
# One-shot builds (CI, a newcomer's first `make test`) gain nothing from cargo's incremental cache but disk.
export CARGO_INCREMENTAL ?= 0

.PHONY: demo test lint test-rust test-python test-node doc bench fmt

## demo: the Rust example client starts the Rust example server over stdio, then the Node example client starts
## the Python example server over Streamable HTTP; each pair prints what it exchanges, in both eras
demo: python-dev node-build
	$(CARGO) build -q -p oxmcp-examples --bins
	$(TARGET_DIR)/debug/client $(TARGET_DIR)/debug/server
	node examples/node/client.mjs $(PY)

## test: lint, docs, then every test suite
test: lint doc test-rust test-python test-node conformance test-kotlin

## lint: formatting, clippy over everything, and the core without its default features (stdio only: no axum,
## reqwest or aws-lc)
lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -q -- -D warnings
	$(CARGO) clippy -p oxmcp --no-default-features -q -- -D warnings

doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps -q

test-rust:
	$(CARGO) test --workspace

## test-python: build the Python binding into .venv (made if absent, pinned tools), lint it, check its stub, run pytest
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PYTHON_TOOLS := maturin==1.16.0 pytest==9.2.0 pytest-asyncio==1.5.0 pytest-xdist==3.8.0 execnet==2.1.2 ruff==0.17.6 \
	mypy==2.4.1 auditwheel==6.8.2 ziglang==0.14.1
PYTHON_CODE := bindings-python/python bindings-python/tests examples/python tests/interop/python

$(PY):
	$(PYTHON) -m venv $(VENV)

## python-dev: the Python binding built into .venv (debug), with the pinned tools
.PHONY: python-dev
python-dev: peers
	$(PY) -m pip install -q --disable-pip-version-check $(PYTHON_TOOLS)
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop -q

test-python: python-dev node-peers
	$(CARGO) build -q -p oxmcp-fixtures --bin fixture-server --bin fixture-hostile
	$(VENV)/bin/ruff check $(PYTHON_CODE)
	$(VENV)/bin/ruff format --check $(PYTHON_CODE)
	$(PY) -m mypy bindings-python/python/oxmcp
	$(PY) -m mypy.stubtest oxmcp._native
	# A file's tests to one worker of a few (module fixtures made once): the wheel test's
	# seven-minute release build runs beside the other files' tests, which mostly wait.
	$(PY) -m pytest --numprocesses auto --maxprocesses 4 --dist loadfile

## peers: the official SDKs the interop tests run against, pinned (the Python SDK and FastMCP into .venv), the web stack
## the mounting tests use, Pillow, which the official SDK's `images` snippet imports, dirty-equals, which
## FastMCP's `testing_demo` tests import, aiosqlite, which FastMCP's `providers/sqlite` example imports, and
## pydantic-monty, the sandbox FastMCP's `code_mode` example runs code in
PEER_PYTHON_PACKAGES := mcp==2.3.0 fastmcp==4.2.3 fastapi==0.165.0 uvicorn==0.54.0 pillow==12.3.0 dirty-equals==0.11 \
	aiosqlite==0.22.1 pydantic-monty==1.4.0 prefab-ui==0.21.1
.PHONY: peers
peers: $(PY)
	$(PY) -m pip install -q --disable-pip-version-check $(PEER_PYTHON_PACKAGES)

# core/tests/http_client.rs runs servers written with the official Python SDK.
test-rust: peers

## system-peers: the Debian packages the tests start on 127.0.0.1 (redis-server, nginx), the browser the
## inspector's test drives (chromium) and a font for `oxmcp bench --plot`'s labels, installed when missing
.PHONY: system-peers
system-peers:
	@missing=""; command -v redis-server >/dev/null || missing="redis-server"; \
	command -v nginx >/dev/null || test -x /usr/sbin/nginx || missing="$$missing nginx"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	test -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf || missing="$$missing fonts-dejavu-core"; \
	if [ -n "$$missing" ]; then apt-get update -q && apt-get install -y -q $$missing; fi

# core/tests/redis.rs runs replicas over a real redis-server; bindings-python/tests/test_replicas.py puts nginx in
# front of them, and bindings-node/tests/tasks.test.mjs shares tasks through Redis; cli/tests/cli.rs drives the
# inspector in chromium (playwright-core from package-lock.json).
test-rust test-python test-node: system-peers

## node-peers: the npm packages pinned by package-lock.json, among them the official TypeScript SDK the interop
## tests run against and oidc-provider, the OAuth authorization server of the auth tests (tests/auth/provider.mjs). (`npm install --no-save` rather than `npm ci`: the registry lacks other platforms' optional
## packages, which `npm ci` insists on.)
.PHONY: node-peers
node-peers:
	npm install --ignore-scripts --no-audit --no-fund --no-save

# core/tests/http_official_clients.rs and http_client_typescript.rs run the official TypeScript SDK's client and server.
test-rust: node-peers

## node-build: the Node binding's native module and TypeScript, over the pinned npm packages
.PHONY: node-build
node-build: node-peers
	npm run build

## test-node: build the Node binding, type-check it in strict mode, run its node:test suites (three files at a time:
## they mostly wait on their peers, and node runs one at a time on two cores)
test-node: node-build
	$(CARGO) build -q -p oxmcp-fixtures --bin fixture-server --bin fixture-hostile
	npm run typecheck
	node --test --test-concurrency=3 --test-reporter=tap bindings-node/tests/

## conformance: the official MCP conformance suite (pinned with the Node 22 it needs in
## tests/conformance/package-lock.json): server suite for 2025-11-25 and 2026-07-28 against the
## Rust, Python and TypeScript fixtures, client suite against the Rust, Python and TypeScript client fixtures; ends
## with `N passed, N failed`
.PHONY: conformance
conformance: python-dev node-build
	CARGO="$(CARGO)" tests/conformance/run.sh

## bench: the suite against the official SDKs and rmcp (tests/bench/RESULTS.md, throughput.png), then criterion
## micro-benchmarks. Builds what it measures in release: the load driver (`oxmcp bench`) and the fixture server, the Python binding
## (maturin), the Node binding (native module + TypeScript), and the rmcp echo server (its own lock file, outside
## the workspace); the official TypeScript SDK comes from package-lock.json.
bench: peers
	$(PY) -m pip install -q --disable-pip-version-check matplotlib==3.11.2 maturin==1.16.0
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop -q --release
	# Byte-compiled, as pip compiles an installed wheel (and the official SDKs measured beside it): the
	# start-up measured is the package's, not the compiler's (a PYTHONDONTWRITEBYTECODE machine keeps none).
	$(PY) -m compileall -q bindings-python/python
	npm install --ignore-scripts --no-audit --no-fund --no-save
	npm run build:release
	$(CARGO) build -q --release -p oxmcp-cli -p oxmcp-fixtures
	$(CARGO) build -q --release --locked --manifest-path tests/bench/servers/rmcp/Cargo.toml --target-dir $(TARGET_DIR)/bench-rmcp
	CARGO_TARGET_DIR=$(abspath $(TARGET_DIR)) $(PY) tests/bench/run.py
	$(MAKE) bench-replicas
	$(MAKE) bench-costs
	$(CARGO) bench -p oxmcp

## bench-replicas: what sharing state costs (tests/bench/REPLICAS.md): the Rust fixture server behind a real nginx,
## alone in memory, alone on Redis, and three replicas on one Redis, modern calls and legacy sessions
.PHONY: bench-replicas
bench-replicas: $(PY) system-peers
	$(CARGO) build -q --release -p oxmcp-cli -p oxmcp-fixtures
	CARGO_TARGET_DIR=$(abspath $(TARGET_DIR)) $(PY) tests/bench/replicas.py

## bench-costs: what one call costs the Rust server in instructions (callgrind), in each era and through the features
## that must not slow it (a JWT check, the Redis store): tests/bench/COSTS.md, appended to costs-history.jsonl and
## plotted in costs-history.png; valgrind from Debian when missing
.PHONY: bench-costs
bench-costs: peers system-peers
	command -v valgrind >/dev/null || (apt-get update -q && apt-get install -y -q valgrind)
	$(PY) -m pip install -q --disable-pip-version-check matplotlib==3.11.2
	$(CARGO) build -q --release -p oxmcp-cli -p oxmcp-fixtures
	CARGO_TARGET_DIR=$(abspath $(TARGET_DIR)) $(PY) tests/bench/costs.py

fmt:
	$(CARGO) fmt --all

## fuzz: each cargo-fuzz target of core/fuzz for FUZZ_SECONDS (default 60) on the nightly toolchain, growing
## core/fuzz/corpus/<target>; a crash leaves its reproducer in core/fuzz/artifacts/<target> and stops the run.
## Commit both: `make test` replays them (core/src/fuzzing.rs). `make fuzz FUZZ_TARGETS=sse` runs one target.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= jsonrpc_frames stdio_codec sse mcp_param uri_template request_state www_authenticate oauth_metadata
CARGO_FUZZ_VERSION := 0.13.2
.PHONY: fuzz
fuzz:
	rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
	cargo fuzz --version 2>/dev/null | grep -q '$(CARGO_FUZZ_VERSION)' || $(CARGO) install -q --locked cargo-fuzz --version $(CARGO_FUZZ_VERSION)
	cd core/fuzz && for target in $(FUZZ_TARGETS); do \
		cargo +nightly fuzz run $$target -- -max_total_time=$(FUZZ_SECONDS) -max_len=65536 || exit 1; \
	done

## test-kotlin: build the UniFFI library (bindings-uniffi), generate its Kotlin and Swift sources with the workspace's
## own uniffi-bindgen (library mode) into target/uniffi/, compile the Kotlin and its tests with kotlinc (npm
## kotlin-compiler, pinned) against JNA and kotlinx-coroutines, run them. Installs the JDK and JNA from Debian if missing.
.PHONY: test-kotlin uniffi-bindings kotlin-toolchain
TARGET_DIR ?= $(or $(CARGO_TARGET_DIR),target)
UNIFFI_OUT := $(TARGET_DIR)/uniffi
UNIFFI_LIB := $(TARGET_DIR)/debug/liboxmcp_ffi.$(if $(filter Darwin,$(shell uname -s)),dylib,so)
KOTLIN_DIR := bindings-uniffi/kotlin
KOTLIN_HOME := $(KOTLIN_DIR)/node_modules/kotlin-compiler
KOTLINC := $(KOTLIN_HOME)/bin/kotlinc
JNA_JAR := /usr/share/java/jna.jar
KOTLIN_LIBS := $(JNA_JAR):$(KOTLIN_HOME)/lib/kotlinx-coroutines-core-jvm.jar
KOTLIN_BINDINGS := $(UNIFFI_OUT)/kotlin/io/github/oxmcp/oxmcp_ffi.kt
# What is written by hand beside the generated bindings, and compiled or packaged with them.
KOTLIN_FACADE := $(wildcard $(KOTLIN_DIR)/src/*.kt)
SWIFT_FACADE := $(wildcard bindings-uniffi/swift/Sources/*.swift)

$(KOTLINC): $(KOTLIN_DIR)/package-lock.json
	npm ci --prefix $(KOTLIN_DIR) --ignore-scripts --no-audit --no-fund
	touch $@

kotlin-toolchain: $(KOTLINC)
	@missing=""; command -v javac >/dev/null || missing="default-jdk-headless"; \
	test -f $(JNA_JAR) || missing="$$missing libjna-java"; \
	if [ -n "$$missing" ]; then apt-get update -q && apt-get install -y -q $$missing; fi

## uniffi-bindings: the Kotlin and Swift sources of bindings-uniffi, generated into target/uniffi/ (any OS). They are
## regenerated every time but the Kotlin file is replaced only when it changed, so kotlinc runs only when needed.
uniffi-bindings:
	$(CARGO) build -q -p oxmcp-ffi
	rm -rf $(UNIFFI_OUT)/.new && mkdir -p $(UNIFFI_OUT)/.new
	$(TARGET_DIR)/debug/uniffi-bindgen generate --no-format --library $(UNIFFI_LIB) \
		--language kotlin --language swift --out-dir $(UNIFFI_OUT)/.new
	rm -rf $(UNIFFI_OUT)/swift/Sources/Oxmcp
	mkdir -p $(dir $(KOTLIN_BINDINGS)) $(UNIFFI_OUT)/swift/Sources/Oxmcp $(UNIFFI_OUT)/swift/Headers
	cmp -s $(UNIFFI_OUT)/.new/io/github/oxmcp/oxmcp_ffi.kt $(KOTLIN_BINDINGS) || \
		cp $(UNIFFI_OUT)/.new/io/github/oxmcp/oxmcp_ffi.kt $(KOTLIN_BINDINGS)
	cp $(UNIFFI_OUT)/.new/Oxmcp.swift $(SWIFT_FACADE) $(UNIFFI_OUT)/swift/Sources/Oxmcp/
	cp $(UNIFFI_OUT)/.new/OxmcpFFI.h $(UNIFFI_OUT)/swift/Headers/OxmcpFFI.h
	cp $(UNIFFI_OUT)/.new/OxmcpFFI.modulemap $(UNIFFI_OUT)/swift/Headers/module.modulemap
	cp bindings-uniffi/swift/Package.swift $(UNIFFI_OUT)/swift/Package.swift
	rm -rf $(UNIFFI_OUT)/.new
	bindings-uniffi/swift/check-sources.sh $(UNIFFI_OUT)/swift $(UNIFFI_LIB)

$(UNIFFI_OUT)/oxmcp-kotlin.jar: $(KOTLIN_BINDINGS) $(KOTLIN_FACADE) | kotlin-toolchain
	$(KOTLINC) -nowarn $(KOTLIN_BINDINGS) $(KOTLIN_FACADE) -cp $(KOTLIN_LIBS) -d $@

$(UNIFFI_OUT)/oxmcp-kotlin-tests.jar: $(UNIFFI_OUT)/oxmcp-kotlin.jar $(wildcard $(KOTLIN_DIR)/tests/*.kt)
	$(KOTLINC) -nowarn $(KOTLIN_DIR)/tests/*.kt -cp $(UNIFFI_OUT)/oxmcp-kotlin.jar:$(KOTLIN_LIBS) -d $@

test-kotlin: kotlin-toolchain uniffi-bindings node-peers
	$(CARGO) build -q -p oxmcp-fixtures --bin fixture-server --bin fixture-client --bin fixture-hostile
	$(MAKE) --no-print-directory $(UNIFFI_OUT)/oxmcp-kotlin-tests.jar
	java -Djna.library.path=$(TARGET_DIR)/debug \
		-Doxmcp.fixtureServer=$(TARGET_DIR)/debug/fixture-server -Doxmcp.fixtureClient=$(TARGET_DIR)/debug/fixture-client \
		-Doxmcp.fixtureHostile=$(TARGET_DIR)/debug/fixture-hostile \
		-Doxmcp.authServer=$(CURDIR)/tests/auth/provider.mjs \
		-cp $(UNIFFI_OUT)/oxmcp-kotlin-tests.jar:$(UNIFFI_OUT)/oxmcp-kotlin.jar:$(KOTLIN_LIBS):$(KOTLIN_HOME)/lib/kotlin-stdlib.jar \
		io.github.oxmcp.tests.MainKt $(KOTLIN_TESTS)

## android: the Kotlin binding as an Android library (bindings-uniffi/android/build/outputs/aar/): cargo-ndk builds the
## native library for each Android ABI (API 24 and later), Gradle packs it with the generated sources and the facade.
## Needs the Android SDK and NDK (ANDROID_HOME, ANDROID_NDK_HOME), cargo-ndk, the Android Rust targets and Gradle 9;
## the release workflow runs it. Not part of `make test`: this machine cannot reach Google's Maven, where the Android
## Gradle plugin is published.
.PHONY: android
ANDROID_ABIS := -t arm64-v8a -t armeabi-v7a -t x86_64 -t x86
android: uniffi-bindings
	cargo ndk $(ANDROID_ABIS) -P 24 -o bindings-uniffi/android/build/jniLibs build --release -p oxmcp-ffi
	gradle -p bindings-uniffi/android --no-daemon assembleRelease
