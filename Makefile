# oxmcp: `make demo` runs the example server and client; `make test` runs every suite.

CARGO ?= cargo
export CARGO_TERM_COLOR ?= never

.PHONY: demo test lint test-rust doc bench fmt

## demo: the example client starts the example server over stdio and prints what they exchange, in both eras
demo:
	$(CARGO) build -q -p oxmcp-examples --bins
	./target/debug/client ./target/debug/server

## test: lint, docs, then every test suite
test: lint doc test-rust

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -q -- -D warnings

doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps -q

test-rust:
	$(CARGO) test --workspace

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

$(PY):
	$(PYTHON) -m venv $(VENV)

## peers: the official SDKs the interop tests run against, pinned (the Python SDK into .venv)
PEER_PYTHON_PACKAGES := mcp==2.3.0
.PHONY: peers
peers: $(PY)
	$(PY) -m pip install -q --disable-pip-version-check $(PEER_PYTHON_PACKAGES)

# core/tests/http_client.rs runs servers written with the official Python SDK.
test-rust: peers

## bench: criterion benchmarks of the core
bench:
	$(CARGO) bench -p oxmcp

fmt:
	$(CARGO) fmt --all
