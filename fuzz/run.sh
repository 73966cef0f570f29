#!/usr/bin/env bash
# Runs every cargo-fuzz target of trumansh for a short, fixed time from the seed corpus.
#
#   fuzz/run.sh                      # 20 s per target (the CI run)
#   FUZZ_SECONDS=3600 fuzz/run.sh    # a long run
#   FUZZ_TARGETS=session fuzz/run.sh # one target
#
# Environment:
#   FUZZ_SECONDS    seconds per target (default 20), libFuzzer's -max_total_time
#   FUZZ_TIMEOUT    seconds one input may take before it counts as a hang (default 10)
#   FUZZ_TARGETS    targets to run (default: every target of fuzz/Cargo.toml)
#   FUZZ_TOOLS      where cargo-fuzz is installed if missing (default target/fuzz-tools)
#   FUZZ_TOOLCHAIN  the nightly toolchain to build with (default nightly)
#   FUZZ_CORPUS     scratch corpus root, seeded from fuzz/seeds/<target> (default
#                   fuzz/corpus, not tracked); it grows across runs
#   FUZZ_ALLOW_SKIP=1  exit 0 (with a message) when no nightly toolchain is installed
#   FUZZ_ARGS       extra libFuzzer arguments, e.g. "-jobs=2 -workers=2"
#
# Exit status: 0 when no target found anything; 1 when one crashed, hung or ran out of memory
# (the input is saved under fuzz/artifacts/<target>/; replay it with
# `cargo +nightly fuzz run <target> fuzz/artifacts/<target>/<file>`); 2 on a setup error.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
seconds="${FUZZ_SECONDS:-20}"
timeout="${FUZZ_TIMEOUT:-10}"
tools="${FUZZ_TOOLS:-$repo/target/fuzz-tools}"
toolchain="${FUZZ_TOOLCHAIN:-nightly}"
corpus_root="${FUZZ_CORPUS:-$here/corpus}"
read -r -a extra <<<"${FUZZ_ARGS:-}"

if ! rustup run "$toolchain" rustc --version >/dev/null 2>&1; then
    echo "fuzz: no '$toolchain' toolchain (cargo-fuzz needs nightly: rustup toolchain install nightly)" >&2
    if [[ "${FUZZ_ALLOW_SKIP:-0}" == 1 ]]; then
        echo "fuzz: skipped"
        exit 0
    fi
    exit 2
fi

# (a) cargo-fuzz, installed into $FUZZ_TOOLS when missing.
if [[ ! -x "$tools/bin/cargo-fuzz" ]]; then
    echo "fuzz: installing cargo-fuzz into $tools"
    if ! cargo install cargo-fuzz --locked --root "$tools"; then
        echo "fuzz: cannot install cargo-fuzz" >&2
        exit 2
    fi
fi
export PATH="$tools/bin:$PATH"

cd "$here" || exit 2
if [[ -n "${FUZZ_TARGETS:-}" ]]; then
    read -r -a targets <<<"$FUZZ_TARGETS"
else
    mapfile -t targets < <(cargo "+$toolchain" fuzz list)
fi
if [[ ${#targets[@]} -eq 0 ]]; then
    echo "fuzz: no targets" >&2
    exit 2
fi

echo "fuzz: building ${targets[*]}"
if ! cargo "+$toolchain" fuzz build; then
    echo "fuzz: build failed" >&2
    exit 2
fi

# (b) every target for $FUZZ_SECONDS, from a scratch corpus seeded with the tracked seeds.
failed=()
summary=()
for t in "${targets[@]}"; do
    corpus="$corpus_root/$t"
    mkdir -p "$corpus"
    if [[ -d "$here/seeds/$t" ]]; then
        cp -n "$here/seeds/$t/"* "$corpus/" 2>/dev/null || true
    fi
    log="$(mktemp)"
    echo "fuzz: $t for ${seconds}s"
    cargo "+$toolchain" fuzz run "$t" "$corpus" -- \
        -max_total_time="$seconds" -timeout="$timeout" -max_len=4096 \
        -print_final_stats=1 "${extra[@]}" 2>&1 | tee "$log" |
        grep -E '^(#[0-9]+\s+DONE|==[0-9]+==|SUMMARY|artifact_prefix|Test unit written|stat::)'
    status=${PIPESTATUS[0]} # cargo fuzz's own status (the grep may find nothing)
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
    rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
    if [[ "$status" -ne 0 ]]; then
        failed+=("$t")
        summary+=("$t: FOUND SOMETHING (status $status): $(grep -m1 'Test unit written' "$log" || echo 'see the log above')")
        tail -n 60 "$log"
    else
        summary+=("$t: ok, ${runs:-?} runs, ${rate:-?} exec/s")
    fi
    rm -f "$log"
done

echo
printf 'fuzz: %s\n' "${summary[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzz: findings in ${failed[*]} (inputs under fuzz/artifacts/)" >&2
    exit 1
fi
