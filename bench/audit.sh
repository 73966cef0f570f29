#!/usr/bin/env bash
# What the audit log keeps of a hostile session, and what `trumansh log --tail` costs.
#
#   bench/audit.sh [WORKDIR]     (default WORKDIR: /tmp/trumansh-audit; needs ~1 GB free)
#
# Each case runs in a fresh root (line mode, its input on stdin), with this tree's release
# binary and, when BEFORE names another trumansh binary (e.g. an older build), with that one
# too; it prints the audit log's bytes (all its segments) and the wall time:
#
#   brace    one 916-byte input, `true A…{1..99999}` (99,999 words of ~905 bytes: 90 MB argv)
#   long     50 inputs of `true` and one 1,000,000-byte word
#   refused  `cat /etc/x{1..99999}`: 99,999 refused paths
#   lines    LINES (default 100,000) inputs of `echo xxxx >> fill.txt`
#
# Then `log --tail 5` against `log | tail -n 5` on a 200 MB log (peak RSS from GNU time).
# Nothing asserts on times.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-/tmp/trumansh-audit}
REPS=${REPS:-1}
LINES=${LINES:-100000}
export LC_ALL=C
BIN=$PWD/target/release/trumansh
BEFORE=${BEFORE:-}
cargo build --release --quiet
# shellcheck source=bench/lib.sh
. bench/lib.sh

mkdir -p "$WORK/in"
python3 - "$WORK/in" "$LINES" <<'PY'
import sys, os
d, n = sys.argv[1], int(sys.argv[2])
w = lambda name, text: open(os.path.join(d, name), "w").write(text)
w("brace", "true " + "A" * 900 + "{1..99999}\n")
w("long", ("true " + "B" * 1_000_000 + "\n") * 50)
w("refused", "cat /etc/x{1..99999} 2>/dev/null\n")
w("lines", "echo xxxx >> fill.txt\n" * n)
PY

# log_size BIN CASE: runs CASE's input in a fresh root; prints "BYTES SECONDS".
log_size() {
  local bin=$1 case=$2 root=$WORK/root-$2 t0 t1
  rm -rf "$root"
  mkdir -p "$root"
  t0=$(date +%s%N)
  "$bin" --root "$root" <"$WORK/in/$case" >/dev/null 2>&1 || true
  t1=$(date +%s%N)
  local bytes
  bytes=$(cat "$root"/.trash/audit*.jsonl | wc -c)
  awk -v b="$bytes" -v a="$t0" -v c="$t1" 'BEGIN { printf "%d %.2f", b, (c - a) / 1e9 }'
}

echo "| case | log bytes before | log bytes after | s before | s after |"
echo "|---|---:|---:|---:|---:|"
for case in brace long refused lines; do
  after=$(log_size "$BIN" "$case")
  if [ -n "$BEFORE" ]; then before=$(log_size "$BEFORE" "$case"); else before="- -"; fi
  set -- $before $after
  echo "| $case | $1 | $3 | $2 | $4 |"
done

# A 200 MB log (the records of a long session, repeated), then the last 5 events.
big=$WORK/bigroot
if [ ! -f "$WORK/.big-done" ]; then
  rm -rf "$big"
  mkdir -p "$big"
  head -n 20000 "$WORK/in/lines" | "$BIN" --root "$big" >/dev/null 2>&1 || true
  python3 - "$big/.trash/audit.jsonl" <<'PY'
import sys
p = sys.argv[1]
data = open(p, "rb").read()
with open(p, "wb") as f:
    written = 0
    while written < 200_000_000:
        f.write(data)
        written += len(data)
PY
  touch "$WORK/.big-done"
fi
echo
echo "| on a $(($(stat -c %s "$big/.trash/audit.jsonl") / 1000000)) MB log | s | peak RSS MB |"
echo "|---|---:|---:|"
set -- $(best_of "$BIN" --root "$big" log --tail 5)
echo "| log --tail 5 | $1 | $(($2 / 1024)) |"
set -- $(best_of bash -c "'$BIN' --root '$big' log | tail -n 5")
echo "| log \\| tail -n 5 | $1 | $(($2 / 1024)) |"
