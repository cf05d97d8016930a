# poscheck — one crate, three faces. `make serve` and `make test` install what they need.
#
#   make serve   build the wasm package and serve the checker page at http://127.0.0.1:8080
#   make test    clippy, then every test: native Rust, wasm in Node and headless Chromium, the npm package, the page
#   make bench   benchmarks (ratios against baselines measured in the same run)
#   make fuzz    cargo-fuzz targets for a bounded time each (not part of make test; fuzz/README.md)

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := test

CARGO ?= cargo
WASM_TARGET := wasm32-unknown-unknown
# The wasm-bindgen CLI must equal the wasm-bindgen crate this repo builds with: Cargo.lock's.
WASM_BINDGEN_VERSION := $(shell awk '/^name = "wasm-bindgen"$$/ { getline; gsub(/version = |"/, ""); print }' Cargo.lock)
CARGO_BIN := $(or $(CARGO_HOME),$(HOME)/.cargo)/bin
WASM_BINDGEN := $(CARGO_BIN)/wasm-bindgen
WASM_OUT := target/$(WASM_TARGET)/release/poscheck.wasm
WASM_WEBHOOK_OUT := target/$(WASM_TARGET)/webhook/poscheck.wasm
WASM_SANDBOX_OUT := target/$(WASM_TARGET)/sandbox/poscheck.wasm
WASM_MENU_OUT := target/$(WASM_TARGET)/menu/poscheck.wasm
CHROMIUM := /usr/bin/chromium
CHROMEDRIVER := /usr/bin/chromedriver
PORT ?= 8080

.PHONY: serve test build sandbox-module tools wasm-target wasm-bindgen-cli chromium npm-deps \
        clippy test-native test-wasm-node test-wasm-browser test-js test-package test-page bench fmt clean \
        redis-server test-receiver openapi-tools test-openapi

# ---- set-up: install only what is missing ----------------------------------------------------

wasm-target:
	@rustup target list --installed | grep -qx $(WASM_TARGET) || rustup target add $(WASM_TARGET)

wasm-bindgen-cli:
	@if [ "$$($(WASM_BINDGEN) --version 2>/dev/null)" != "wasm-bindgen $(WASM_BINDGEN_VERSION)" ]; then \
	  echo "installing wasm-bindgen-cli $(WASM_BINDGEN_VERSION) (a few minutes, once)"; \
	  $(CARGO) install wasm-bindgen-cli --version "=$(WASM_BINDGEN_VERSION)" --force; \
	fi

chromium:
	@if [ ! -x $(CHROMIUM) ] || [ ! -x $(CHROMEDRIVER) ]; then \
	  echo "installing Debian's chromium and chromium-driver"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null; \
	fi

# The receiver tests start their own redis-server (free loopback port, throwaway directory).
redis-server:
	@if ! command -v redis-server >/dev/null; then \
	  echo "installing Debian's redis-server"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq redis-server >/dev/null; \
	fi

node_modules/.package-lock.json: package.json
	npm install --no-audit --no-fund --loglevel=error
	@touch $@

npm-deps: node_modules/.package-lock.json

# The OpenAPI ecosystem's tools that prove the OpenAPI document (ring 3d): Redocly CLI, Prism and
# openapi-typescript with the TypeScript 5 it needs, in their own folder (the repository's
# TypeScript is 7), installed from their lock file; Schemathesis from PyPI in a venv under target/.
# Each step runs only when its lock or version changed.
OPENAPI_TOOLS := tests/openapi/tools
OPENAPI_VENV := target/openapi-venv
SCHEMATHESIS_VERSION := 4.32.5

$(OPENAPI_TOOLS)/node_modules/.package-lock.json: $(OPENAPI_TOOLS)/package.json $(OPENAPI_TOOLS)/package-lock.json
	cd $(OPENAPI_TOOLS) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

$(OPENAPI_VENV)/.schemathesis-$(SCHEMATHESIS_VERSION):
	rm -rf $(OPENAPI_VENV)
	python3 -m venv $(OPENAPI_VENV)
	$(OPENAPI_VENV)/bin/pip install --quiet --disable-pip-version-check "schemathesis==$(SCHEMATHESIS_VERSION)"
	@touch $@

openapi-tools: $(OPENAPI_TOOLS)/node_modules/.package-lock.json $(OPENAPI_VENV)/.schemathesis-$(SCHEMATHESIS_VERSION)

tools: wasm-target wasm-bindgen-cli

# ---- build -------------------------------------------------------------------------------------

build: tools npm-deps
	$(CARGO) build --release --lib --target $(WASM_TARGET)
	$(CARGO) build --bin poscheck
	node scripts/gen-types.mjs
	rm -rf pkg/dist
	$(WASM_BINDGEN) --target web --remove-name-section --remove-producers-section --no-typescript --out-dir pkg/dist/web --out-name poscheck $(WASM_OUT)
	$(CARGO) build --profile webhook --lib --target $(WASM_TARGET) --no-default-features --features webhook
	$(WASM_BINDGEN) --target web --remove-name-section --remove-producers-section --no-typescript --out-dir pkg/dist/webhook-web --out-name poscheck $(WASM_WEBHOOK_OUT)
	$(CARGO) build --profile menu --lib --target $(WASM_TARGET) --no-default-features --features menu
	$(WASM_BINDGEN) --target web --remove-name-section --remove-producers-section --no-typescript --out-dir pkg/dist/menu-web --out-name poscheck $(WASM_MENU_OUT)
	$(MAKE) --no-print-directory sandbox-module
	node scripts/build-pkg.mjs
	node scripts/build-schemas.mjs
	node scripts/build-www.mjs
	node scripts/build-editor.mjs

# poscheck/sandbox's module alone (after a change in src/service/ or src/wasm/sandbox.rs, then
# `node scripts/build-pkg.mjs` reassembles pkg/dist without rebuilding the other two modules).
sandbox-module: tools
	$(CARGO) build --profile sandbox --lib --target $(WASM_TARGET) --no-default-features --features sandbox
	$(WASM_BINDGEN) --target web --remove-name-section --remove-producers-section --no-typescript --out-dir pkg/dist/sandbox-web --out-name poscheck $(WASM_SANDBOX_OUT)

serve: build
	PORT=$(PORT) node scripts/serve.mjs

# ---- tests: the four rings of design.md ----------------------------------------------------------

test: test-native test-wasm-node test-wasm-browser test-js test-package test-receiver test-openapi test-page
	@echo "make test: all four rings passed (native, wasm in Node and Chromium, npm package, page)"

test-native: clippy
	@echo "== ring 1: native Rust (cargo test)"
	$(CARGO) test

# Clippy with warnings as errors on every build the crate has: native (every target, every
# feature), and the four wasm modules (the toolkit, the webhook-only build, the menu's, the sandbox's).
clippy: wasm-target
	@rustup component list --installed | grep -q '^clippy' || rustup component add clippy
	$(CARGO) clippy --all-targets --all-features --quiet -- -D warnings
	$(CARGO) clippy --lib --target $(WASM_TARGET) --quiet -- -D warnings
	$(CARGO) clippy --lib --target $(WASM_TARGET) --no-default-features --features webhook --quiet -- -D warnings
	$(CARGO) clippy --lib --target $(WASM_TARGET) --no-default-features --features menu --quiet -- -D warnings
	$(CARGO) clippy --lib --target $(WASM_TARGET) --no-default-features --features sandbox --quiet -- -D warnings

# The runner comes from .cargo/config.toml (wasm-bindgen-test-runner).
test-wasm-node: tools
	@echo "== ring 2a: the core as wasm in Node (wasm-bindgen-test)"
	$(CARGO) test --target $(WASM_TARGET) --test wasm

test-wasm-browser: tools chromium
	@echo "== ring 2b: the core as wasm in headless Chromium (wasm-bindgen-test)"
	WASM_BINDGEN_USE_BROWSER=1 CHROMEDRIVER=$(CHROMEDRIVER) $(CARGO) test --target $(WASM_TARGET) --test wasm

test-js: build
	@echo "== ring 3: the npm package as a user requires and imports it (node --test); the native sandbox beside it (tests/parity/)"
	node --test tests/js/ tests/parity/

# The package as it ships: npm pack in throwaway projects (tsc --strict, publint, attw, esbuild,
# Vite and webpack builds run in Node and Chromium), and the CLI's SARIF validated by Microsoft's
# multitool.
test-package: build npm-deps chromium
	@echo "== ring 3b: the package as it ships (node --test tests/package/, cargo publish --dry-run, docs)"
	node --test tests/package/
	$(CARGO) publish --dry-run --allow-dirty --quiet
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps --quiet
	$(CARGO) rustc --lib --quiet -- -D missing_docs

# Ring 3 too: the webhook receiver kit on real servers (node:http, Express 4/5, Fastify, Fetch) and
# a real Redis, plus the short load and fault run (the full one is in `make bench`).
test-receiver: build redis-server npm-deps
	@echo "== ring 3c: the webhook receiver kit on real servers and a real Redis (node --test)"
	node --test tests/receiver/

# Ring 3 too: the OpenAPI document (pkg/schemas/openapi.json) through Redocly's lint, openapi-typescript
# and a typed client, a Prism mock, and Schemathesis against a running sandbox (tests/openapi/).
test-openapi: build npm-deps openapi-tools
	@echo "== ring 3d: the OpenAPI document with the ecosystem's tools (Redocly, openapi-typescript, Prism, Schemathesis)"
	OPENAPI_VENV=$(OPENAPI_VENV) node --test --test-concurrency=1 tests/openapi/

test-page: build chromium npm-deps
	@echo "== ring 4: the page in Chromium (Playwright)"
	node --test tests/e2e/

bench: build redis-server npm-deps
	$(CARGO) bench
	node benches/node/compare.mjs
	node benches/node/verify.mjs
	node benches/node/lint.mjs
	node benches/node/receiver.mjs
	node benches/node/receiver-load.mjs
	node benches/node/sandbox.mjs
	node benches/node/sandbox-menu.mjs
	@if ! command -v wrk >/dev/null; then \
	  echo "installing Debian's wrk"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq wrk >/dev/null; \
	fi
	$(CARGO) build --release --bin poscheck
	$(CARGO) build --release --manifest-path benches/hyper-hello/Cargo.toml --target-dir target/hyper-hello
	node benches/node/sandbox-wrk.mjs
	node benches/node/sandbox-memory.mjs

# Not part of `make test`: every cargo-fuzz target in turn, on stable (fuzz/README.md). Failing
# inputs land in tests/fixtures/regressions/<target>/, which `cargo test` replays.
#   make fuzz FUZZ_SECONDS=600 FUZZ_RUNS=10000000 FUZZ_TARGETS="json menu"
.PHONY: fuzz
fuzz:
	FUZZ_SECONDS="$(FUZZ_SECONDS)" FUZZ_RUNS="$(FUZZ_RUNS)" FUZZ_TARGETS="$(FUZZ_TARGETS)" CARGO="$(CARGO)" fuzz/run.sh

fmt:
	$(CARGO) fmt

clean:
	$(CARGO) clean
	rm -rf pkg/dist www/pkg www/vendor node_modules test-results
