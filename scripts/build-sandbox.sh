#!/usr/bin/env bash
# Rebuilds poscheck/sandbox's module alone (after a change in src/service/ or src/wasm/sandbox.rs)
# and reassembles pkg/dist: what `make build` does for it, without the other two modules.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --profile sandbox --lib --target wasm32-unknown-unknown --no-default-features --features sandbox
"${CARGO_HOME:-$HOME/.cargo}/bin/wasm-bindgen" --target web --remove-name-section --remove-producers-section --no-typescript \
  --out-dir pkg/dist/sandbox-web --out-name poscheck target/wasm32-unknown-unknown/sandbox/poscheck.wasm
node scripts/build-pkg.mjs
