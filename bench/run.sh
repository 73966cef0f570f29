#!/usr/bin/env bash
# Benchmark: trumansh against real bash + GNU tools on the same inputs, in one run.
#
#   bench/run.sh [WORKDIR]        (default WORKDIR: /tmp/trumansh-bench; needs ~1.5 GB free)
#   GENERATE_ONLY=1 bench/run.sh   only generates the inputs
#   INTERP=0 bench/run.sh          skips the shell-language benchmarks (bench/interp.sh)
#
# Builds the release binary, generates (once) a tree of 20,000 files (~200 MB) and a 1 GB
# file, then times each workload with GNU time (elapsed seconds, peak RSS) for both sides and
# prints a Markdown table with the ratio trumansh / GNU. Each workload runs REPS times (default
# 3) and the best time is kept, as timings on a shared machine are noisy. Then bench/interp.sh
# times the shell language (loops, function calls, $(...), while read) against real bash, in
# WORKDIR/interp. This is not a test: nothing asserts on times.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
WORK=${1:-/tmp/trumansh-bench}
REPS=${REPS:-3}
export LC_ALL=C

BIN=$PWD/target/release/trumansh

TREE=$WORK/tree
BIG=$WORK/big/big.txt
mkdir -p "$WORK"

tree_files "$WORK"

if [ ! -f "$WORK/.big-done" ]; then
  echo "generating $BIG (1 GB)..." >&2
  mkdir -p "$(dirname "$BIG")"
  python3 - "$BIG" <<'PY'
import sys
line = b"the quick brown fox jumps over the lazy dog 0123456789 lorem ipsum dolor sit amet\n"
block = line * 12_000
with open(sys.argv[1], "wb") as f:
    written = 0
    while written < 1_000_000_000:
        f.write(block)
        written += len(block)
PY
  touch "$WORK/.big-done"
fi

[ "${GENERATE_ONLY:-}" = 1 ] && exit 0
cargo build --release --quiet

# A session of 2,000 small commands, one process.
SESSION=$WORK/session.txt
python3 - "$SESSION" <<'PY'
import sys
cmds = []
for i in range(500):
    cmds += [f"cd dir{i % 20:02}/sub{i % 20:02}", "ls > /dev/null", f"echo line {i} >> /tmp-out.txt".replace("/tmp-out.txt", "../../session-out.txt"), "cd ../.."]
open(sys.argv[1], "w").write("\n".join(cmds) + "\n")
PY

row() { # name root gnu_cmd trumansh_cmd (both run with the root as cwd)
  local name=$1 root=$2 gnu=$3 ours=$4 g t
  g=$(best_of bash -c "cd '$root' && $gnu")
  t=$(best_of "$BIN" --root "$root" --state-dir "$WORK/state-$(basename "$root")" -c "$ours")
  table_row "$name" "$g" "$t" 4
}

session_row() {
  local g t
  g=$(best_of bash -c "cd '$TREE' && bash < '$SESSION'")
  t=$(best_of bash -c "'$BIN' --root '$TREE' --state-dir '$WORK/state-tree' < '$SESSION'")
  awk -v g="$g" -v t="$t" 'BEGIN {
    split(g, a, " "); split(t, b, " ");
    printf "| 2,000-line session (per line: %.1f us vs %.1f us) | %.3f | %.3f | %.2f | %.1f | %.1f |\n",
      a[1] / 2000 * 1e6, b[1] / 2000 * 1e6, a[1], b[1], b[1] / a[1], a[2] / 1024, b[2] / 1024 }'
}

echo "| workload | GNU s | trumansh s | ratio | GNU peak MB | trumansh peak MB |"
echo "|---|---|---|---|---|---|"
BIGDIR=$(dirname "$BIG")
# Output goes through `| wc -l` on both sides: GNU grep stops at the first match when its
# stdout is /dev/null, which would not be a fair comparison.
row 'grep -rn needle_in_haystack . | wc -l' "$TREE" 'grep -rn needle_in_haystack . | wc -l' 'grep -rn needle_in_haystack . | wc -l'
row "find . -name '*.rs'" "$TREE" "find . -name '*.rs' > /dev/null" "find . -name '*.rs' > /dev/null"
row 'wc -l (1 GB file)' "$BIGDIR" 'wc -l big.txt' 'wc -l big.txt'
row 'head -n 1 (1 GB file)' "$BIGDIR" 'head -n 1 big.txt' 'head -n 1 big.txt'
row 'tail -n 10 (1 GB file)' "$BIGDIR" 'tail -n 10 big.txt' 'tail -n 10 big.txt'
row 'cat | head -n 1 (1 GB file)' "$BIGDIR" 'cat big.txt | head -n 1' 'cat big.txt | head -n 1'
row 'cat | wc -l (1 GB file)' "$BIGDIR" 'cat big.txt | wc -l' 'cat big.txt | wc -l'
row 'grep lorem (1 GB file) | wc -l' "$BIGDIR" 'grep lorem big.txt | wc -l' 'grep lorem big.txt | wc -l'
row 'cp -r dir00 (10 MB, 1,000 files)' "$TREE" 'cp -r dir00 copy && rm -r copy' 'cp -r dir00 copy && rm -r copy'
session_row

if [ "${INTERP:-1}" != 0 ]; then
  echo
  bench/interp.sh "$WORK"
fi
