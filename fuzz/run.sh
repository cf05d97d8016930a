#!/usr/bin/env bash
# Runs the cargo-fuzz targets one after the other, each for a bounded time and number of runs.
# Called by `make fuzz`; works on the stable toolchain (see fuzz/README.md).
#
#   FUZZ_TARGETS   targets to run (default: every [[bin]] of fuzz/Cargo.toml; another name is an error)
#   FUZZ_SECONDS   time per target, seconds (default 60; 0 = no time bound)
#   FUZZ_RUNS      executions per target (default -1 = no run bound)
#   FUZZ_TIMEOUT   seconds one execution may take before libFuzzer calls it a timeout (default 10;
#                  60 for `large`, see timeout_for)
#   FUZZ_RSS_MB    memory limit, MB (default 2048)
#   FUZZ_SANITIZER cargo-fuzz sanitizer (default none: stable has no sanitizer runtimes)
#   FUZZ_NICE      niceness of the fuzzing process (default 10)
#
# Any failure (crash, timeout, out of memory, leak) is moved to tests/fixtures/regressions/<target>/,
# which `cargo test` replays (tests/regressions.rs); that folder is created only then. The script
# then goes on with the next target and exits non-zero at the end. A summary line per target goes
# to fuzz/logs/summary.tsv.
#
#   fuzz/run.sh --list   prints the targets it would run (FUZZ_TARGETS checked) and exits
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO=${CARGO:-cargo}
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
RUNS=${FUZZ_RUNS:--1}
TIMEOUT=${FUZZ_TIMEOUT:-10}
RSS_MB=${FUZZ_RSS_MB:-2048}
SANITIZER=${FUZZ_SANITIZER:-none}
NICE=${FUZZ_NICE:-10}
# The targets are the [[bin]] sections of fuzz/Cargo.toml (what `cargo fuzz list` lists), not the
# other `name = ` lines ([package], [lib]).
ALL_TARGETS=$(awk '/^[[:space:]]*\[/ { bin = ($1 == "[[bin]]") }
  bin && /^[[:space:]]*name[[:space:]]*=/ { sub(/^[^"]*"/, ""); sub(/".*$/, ""); print }' fuzz/Cargo.toml)
TARGETS=${FUZZ_TARGETS:-$ALL_TARGETS}
for t in $TARGETS; do
  if ! grep -qx -- "$t" <<<"$ALL_TARGETS"; then
    echo "fuzz/run.sh: no fuzz target \"$t\" (targets: $(echo $ALL_TARGETS))" >&2
    exit 2
  fi
done
if [ "${1:-}" = "--list" ]; then
  echo $TARGETS | tr ' ' '\n'
  exit 0
fi

# Longest input per target: small inputs keep executions fast; `large` reads a few generator
# bytes and builds its own big inputs.
# Seconds one execution may take. `large` builds inputs of up to 2 MiB and runs every checker on
# them; with libFuzzer's comparison tracing (most of its time: __sanitizer_cov_trace_cmp*) an
# execution takes 5 to 10 times as long as in a release build, up to ~15 s on a loaded machine,
# and it scales linearly (the inputs kept in tests/fixtures/regressions/large/ replay in a few
# seconds). Quadratic cost on such inputs would take minutes.
timeout_for() {
  case "$1" in
    large) echo "${FUZZ_TIMEOUT:-60}" ;;
    *) echo "$TIMEOUT" ;;
  esac
}

max_len() {
  case "$1" in
    large) echo 64 ;;
    http) echo 2048 ;;
    json | request | problem | signature) echo 4096 ;;
    *) echo 8192 ;;
  esac
}

if ! "$CARGO" fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz (once, a few minutes)"
  "$CARGO" install cargo-fuzz --locked
fi

# cargo-fuzz passes nightly-only flags (-Z...) to rustc; the stable compiler accepts them with
# RUSTC_BOOTSTRAP=1. No sanitizer: poscheck is safe Rust (#![deny(unsafe_code)]), and stable ships
# no sanitizer runtimes; panics, timeouts and memory are what the targets look for.
export RUSTC_BOOTSTRAP=1
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}

python3 fuzz/seed.py
"$CARGO" fuzz build --sanitizer "$SANITIZER"

mkdir -p fuzz/logs
failed=()
for t in $TARGETS; do
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  rm -f "fuzz/artifacts/$t"/slow-unit-*
  regressions="tests/fixtures/regressions/$t"
  # The saved regressions are read as seeds too (libFuzzer writes new inputs to the first dir,
  # and refuses a dir that does not exist).
  seeds=("fuzz/corpus/$t")
  if [ -d "$regressions" ]; then seeds+=("$regressions"); fi
  log="fuzz/logs/$t.log"
  echo "== fuzz $t (runs $RUNS, ${SECONDS_PER_TARGET}s, max_len $(max_len "$t"), timeout $(timeout_for "$t")s, ${RSS_MB} MB)"
  status=0
  nice -n "$NICE" "$CARGO" fuzz run --sanitizer "$SANITIZER" "$t" "${seeds[@]}" -- \
    -runs="$RUNS" -max_total_time="$SECONDS_PER_TARGET" -max_len="$(max_len "$t")" \
    -timeout="$(timeout_for "$t")" -rss_limit_mb="$RSS_MB" -malloc_limit_mb="$RSS_MB" -print_final_stats=1 \
    >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^stat::.*//;s/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  found=$(find "fuzz/artifacts/$t" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
  slow=$(find "fuzz/artifacts/$t" -maxdepth 1 -type f -name 'slow-unit-*' | wc -l)
  slowest=$(sed -n 's/^stat::slowest_unit_time_sec: *//p' "$log" | tail -1)
  printf '%s\t%s\truns=%s\tseconds=%s\texec/s=%s\tfailures=%s\texit=%s\tslowest=%ss\n' \
    "$(date -u +%FT%TZ)" "$t" "${runs:-?}" "${secs:-?}" "${rate:-?}" "$found" "$status" "${slowest:-?}" | tee -a fuzz/logs/summary.tsv
  if [ "$slow" -gt 0 ]; then
    # libFuzzer writes the slowest input past -report_slow_units (10 s); under -timeout it is no
    # failure (often a saved regression read as a seed, on a loaded machine). Kept for a look.
    echo "note: $slow slow unit(s) under the $(timeout_for "$t") s timeout, not failures: fuzz/artifacts/$t/slow-unit-*"
  fi
  if [ "$status" -ne 0 ] || [ "$found" -gt 0 ]; then
    grep -E -A3 'panicked|ERROR: libFuzzer|SUMMARY' "$log" | head -20 || true
    for f in "fuzz/artifacts/$t"/{crash,timeout,oom,leak}-*; do
      if [ -e "$f" ]; then
        mkdir -p "$regressions"
        mv "$f" "$regressions/"
        echo "saved $regressions/$(basename "$f")"
      fi
    done
    failed+=("$t")
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "make fuzz: failures in ${failed[*]}: inputs saved under tests/fixtures/regressions/ (replayed by cargo test)"
  exit 1
fi
echo "make fuzz: no failure ($(echo $TARGETS | wc -w) targets)"
