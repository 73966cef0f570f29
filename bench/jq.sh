#!/usr/bin/env bash
# Benchmark: trumansh's jq against jq 1.6 on a large generated JSON file.
#
#   bench/jq.sh [WORKDIR]      (default WORKDIR: /tmp/trumansh-bench; needs SIZE_MB of disk)
#   SIZE_MB=20 bench/jq.sh     a smaller file than the default 100 MB
#   REPS=3 bench/jq.sh         best of 3 runs (default 1)
#
# Each workload is one `jq ...` against one `trumansh --root ROOT -c "jq ... > /dev/null"`
# (both include their process start), timed with GNU time: wall seconds and peak RSS. The
# ratio is trumansh / jq (below 1: trumansh is faster). Outputs are compared once. This is
# not a test: nothing asserts on times.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
WORK=${1:-/tmp/trumansh-bench}/jq
SIZE_MB=${SIZE_MB:-100}
REPS=${REPS:-1}
export LC_ALL=C
JQ=$(command -v jq || true)
[ -n "$JQ" ] || { echo "bench/jq.sh needs jq (tests/oracles/install.sh)" >&2; exit 2; }

BIN=$PWD/target/release/trumansh
ROOT=$WORK/root
STATE=$WORK/state
POLICY=$WORK/policy.toml
rm -rf "$STATE"
mkdir -p "$ROOT" "$STATE"
BIG=$ROOT/big.json
LINES=$ROOT/lines.json

# SIZE_MB of JSON: one array of records (big.json), and the same records one a line
# (lines.json).
if [ ! -f "$BIG" ] || [ "$(($(stat -c %s "$BIG") / 1000000))" -lt "$SIZE_MB" ]; then
  python3 - "$BIG" "$LINES" "$SIZE_MB" <<'PY'
import json, sys
big, lines, mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
target = mb * 1_000_000
with open(big, "w") as f, open(lines, "w") as g:
    f.write("[")
    n = 0
    i = 0
    while n < target:
        rec = {"id": i, "name": words[i % 8], "score": (i * 7919) % 100003 / 7.0,
               "tags": [words[(i + k) % 8] for k in range(i % 4)],
               "nested": {"ok": i % 3 == 0, "note": None, "text": "caf\u00e9 \"q\" %d" % i}}
        s = json.dumps(rec)
        f.write(("," if i else "") + s)
        g.write(s + "\n")
        n += len(s) + 1
        i += 1
    f.write("]\n")
PY
fi

cat >"$POLICY" <<'TOML'
[limits]
deadline_ms = "30m"
TOML

cargo build --release --quiet

printf '%-30s %9s %11s %7s %11s %11s\n' workload jq_s trumansh_s ratio jq_rss_kb ours_rss_kb
row() {
  local name=$1 file=$2 prog=$3 opts=${4:-} g t ratio note=""
  # shellcheck disable=SC2086
  g=$(best_of "$JQ" $opts "$prog" "$ROOT/$file")
  t=$(best_of "$BIN" --root "$ROOT" --state-dir "$STATE" --policy "$POLICY" \
    -c "jq $opts '$prog' $file > /dev/null")
  # shellcheck disable=SC2086
  if ! cmp -s <("$JQ" $opts "$prog" "$ROOT/$file" | head -c 1000000) \
    <("$BIN" --root "$ROOT" --state-dir "$STATE" --policy "$POLICY" -c "jq $opts '$prog' $file" | head -c 1000000); then
    note=" (outputs differ)"
  fi
  read -r gw gm <<<"$g"
  read -r tw tm <<<"$t"
  ratio=$(awk -v a="$tw" -v b="$gw" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
  printf '%-30s %9s %11s %7s %11s %11s%s\n' "$name" "$gw" "$tw" "$ratio" "$gm" "$tm" "$note"
}

row "jq . (one 100 MB array)" big.json .
row "jq -c . (one value a line)" lines.json . -c
row "jq .name (one value a line)" lines.json .name
row "jq 'map(.score)|add' (array)" big.json 'map(.score)|add'
echo "file: $(($(stat -c %s "$BIG") / 1000000)) MB"
