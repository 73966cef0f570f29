#!/usr/bin/env bash
# Benchmark of grep (issue 15): `grep -r` over the 20,000-file tree of bench/run.sh, and
# `-F`/`-f` with many or long patterns, trumansh against GNU grep 3.8 on the same inputs.
#
#   bench/grep.sh [WORKDIR]      (default WORKDIR: /tmp/trumansh-bench)
#   BIN=path/to/trumansh bench/grep.sh   times another build (e.g. the code before a change)
#   PART=tree or PART=patterns            only those rows
#
# Inputs are generated once under WORKDIR: the tree (the same as bench/run.sh's, ~230 MB)
# and, in WORKDIR/grep, 10,000 patterns, 20,000 lines and one 40,000-byte pattern. Each
# workload runs REPS times (default 3); the best wall time is kept, and the best CPU time
# (user + system, GNU time, 10 ms resolution): on a shared machine the CPU ratio is the
# steadier one. grep's output goes through `| wc -l` on both sides (GNU grep stops at its
# first match when stdout is /dev/null). Prints a Markdown table. Nothing asserts.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
WORK=${1:-/tmp/trumansh-bench}
REPS=${REPS:-3}
export LC_ALL=C
TREE=$WORK/tree
PATS=$WORK/grep
mkdir -p "$WORK" "$PATS"

tree_files "$WORK"
if [ ! -f "$PATS/.done" ]; then
  python3 - "$PATS" <<'PY'
import os, sys
d = sys.argv[1]
open(os.path.join(d, "p"), "wb").write(bytes(b"abcdefghij"[i * 7 % 10] for i in range(40_000)))
open(os.path.join(d, "many"), "w").write("".join(f"w{i}x\n" for i in range(10_000)))
open(os.path.join(d, "many_re"), "w").write("".join(f"w{i}.\n" for i in range(10_000)))
open(os.path.join(d, "text"), "w").write("".join(f"line w{i}x end\n" for i in range(20_000)))
PY
  touch "$PATS/.done"
fi
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=$PWD/target/release/trumansh
fi

# best_cpu CMD...: the best user + system seconds of REPS runs.
best_cpu() {
  local best="" c
  for _ in $(seq "$REPS"); do
    /usr/bin/time -f '%U %S' -o "$WORK/time.cpu" "$@" >/dev/null 2>&1 || true
    c=$(awk '{ printf "%.2f", $1 + $2 }' "$WORK/time.cpu")
    if [ -z "$best" ] || awk "BEGIN{exit !($c < $best)}"; then best=$c; fi
  done
  echo "$best"
}

row() { # name dir command (run with dir as cwd on both sides)
  local name=$1 dir=$2 cmd=$3 g t gc tc
  g=$(best_of bash -c "cd '$dir' && $cmd")
  t=$(best_of "$BIN" --root "$dir" --state-dir "$WORK/state-grep-$(basename "$dir")" -c "$cmd")
  gc=$(best_cpu bash -c "cd '$dir' && $cmd")
  tc=$(best_cpu "$BIN" --root "$dir" --state-dir "$WORK/state-grep-$(basename "$dir")" -c "$cmd")
  N="$name" awk -v g="$g" -v t="$t" -v gc="$gc" -v tc="$tc" 'BEGIN {
    n = ENVIRON["N"]; gsub(/\|/, "\\|", n);
    split(g, a, " "); split(t, b, " ");
    ratio = (a[1] > 0) ? sprintf("%.2f", b[1] / a[1]) : "n/a";
    cratio = (gc > 0) ? sprintf("%.2f", tc / gc) : "n/a";
    printf "| %s | %.3f | %.3f | %s | %.2f | %.2f | %s | %.1f | %.1f |\n",
      n, a[1], b[1], ratio, gc, tc, cratio, a[2] / 1024, b[2] / 1024 }'
}

echo "| workload | GNU s | trumansh s | ratio | GNU CPU s | trumansh CPU s | CPU ratio | GNU peak MB | trumansh peak MB |"
echo "|---|---|---|---|---|---|---|---|---|"
if [ "${PART:-all}" != patterns ]; then
row "grep -rn needle_in_haystack . | wc -l (20,000 files)" "$TREE" "grep -rn needle_in_haystack . | wc -l"
row "grep -rc TODO . | wc -l" "$TREE" "grep -rc TODO . | wc -l"
row "grep -rli 'todo config' . | wc -l" "$TREE" "grep -rli 'todo config' . | wc -l"
row "grep -rnw -F -e beta -e impl . | wc -l" "$TREE" "grep -rnw -F -e beta -e impl . | wc -l"
fi
if [ "${PART:-all}" != tree ]; then
row "grep -c -F -f many text (10,000 patterns, 20,000 lines)" "$PATS" "grep -c -F -f many text"
row "grep -cw -F -f many text" "$PATS" "grep -cw -F -f many text"
row "grep -c -G -f many text (all plain strings)" "$PATS" "grep -c -G -f many text"
row "grep -c -G -f many_re text (10,000 regexps)" "$PATS" "grep -c -G -f many_re text"
row "grep -c -F -f p p (one 40,000-byte pattern)" "$PATS" "grep -c -F -f p p"
row "grep -ci -F -f p p" "$PATS" "grep -ci -F -f p p"
fi
