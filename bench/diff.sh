#!/usr/bin/env bash
# Benchmark: `diff -u` of two 100,000-line files with a few thousand scattered edits —
# trumansh's `diff` against GNU diff 3.8 on the same machine, same files, in one run.
#
#   bench/diff.sh [WORKDIR]     (default WORKDIR: /tmp/trumansh-bench; needs ~14 MB there)
#   REPS=5 bench/diff.sh        best of 5 runs instead of 3
#
# Each side is one process: `bash -c 'diff -u a b > /dev/null'` against
# `trumansh --root ROOT -c 'diff -u a b > /dev/null'` (both include their process start),
# timed with GNU time; the fastest wall time of REPS runs is kept with that run's peak RSS.
# The ratio is trumansh / GNU. The two outputs are compared once (they must be identical).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-/tmp/trumansh-bench}/diff
REPS=${REPS:-3}
export LC_ALL=C TZ=UTC
BIN=$PWD/target/release/trumansh
ROOT=$WORK/root
mkdir -p "$ROOT"
[ -x "$BIN" ] || cargo build --release --quiet

if [ ! -f "$ROOT/b" ]; then
  python3 - "$ROOT" <<'PY'
import random, sys
random.seed(42)
root = sys.argv[1]
words = ["alpha", "beta", "gamma", "delta", "{", "}", "", "return x;", "i += 1;"]
a = [f"line {i}: " + " ".join(random.choice(words) for _ in range(4)) for i in range(100_000)]
b = list(a)
# 3,000 scattered edits: changes, insertions, deletions, some repeated and blank lines.
for _ in range(3000):
    p = random.randrange(len(b))
    op = random.random()
    if op < 0.4:
        b[p] = b[p] + " (changed)"
    elif op < 0.7:
        b[p:p] = [random.choice(["", "}", "new line", f"inserted {p}"]) for _ in range(random.randint(1, 3))]
    else:
        del b[p:p + random.randint(1, 3)]
open(f"{root}/a", "w").write("\n".join(a) + "\n")
open(f"{root}/b", "w").write("\n".join(b) + "\n")
PY
  touch -d '2024-01-02 03:04:05' "$ROOT/a" "$ROOT/b"
fi

best() { # best wall seconds and its max RSS (KB) of REPS runs of "$@"
  local bw="" br="" t
  t=$(mktemp)
  for _ in $(seq "$REPS"); do
    /usr/bin/time -o "$t" -f '%e %M' "$@" >/dev/null 2>&1 || true
    local w r
    read -r w r < <(tail -1 "$t")
    if [ -z "$bw" ] || awk -v a="$w" -v b="$bw" 'BEGIN{exit !(a<b)}'; then bw=$w br=$r; fi
  done
  rm -f "$t"
  echo "$bw $br"
}

cd "$ROOT"
if ! cmp -s <(diff -u a b) <("$BIN" --root "$ROOT" -c 'diff -u a b'); then
  echo "OUTPUTS DIFFER" >&2
fi
read -r gw gr < <(best bash -c 'diff -u a b > /dev/null')
read -r tw tr < <(best "$BIN" --root "$ROOT" -c 'diff -u a b > /dev/null')
lines=$( (diff -u a b || true) | wc -l)
printf '%-28s %10s %10s %8s\n' "diff -u (100,000 lines)" "GNU" "trumansh" "ratio"
printf '%-28s %9ss %9ss %8s\n' "wall (best of $REPS)" "$gw" "$tw" "$(awk -v a="$tw" -v b="$gw" 'BEGIN{printf "%.2f", (b>0?a/b:0)}')"
printf '%-28s %8sKB %8sKB %8s\n' "peak RSS" "$gr" "$tr" "$(awk -v a="$tr" -v b="$gr" 'BEGIN{printf "%.2f", (b>0?a/b:0)}')"
echo "(the unified diff has $lines lines)"
