#!/usr/bin/env bash
# Benchmark of the tree walkers over a generated tree of 20,000 files (200 directories of
# 100 files, a few bytes each): `du -sh` and `tree` (to /dev/null), trumansh against GNU du
# and tree 2.1 on the same tree.
#
#   bench/tree.sh [WORKDIR]      (default WORKDIR: /tmp/trumansh-bench)
#
# Each workload runs REPS times (default 3); the best wall time is kept, with its peak RSS
# from GNU time. Prints a Markdown table with the ratio trumansh / GNU. Nothing asserts.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
WORK=${1:-/tmp/trumansh-bench}
REPS=${REPS:-3}
export LC_ALL=C
BIN=$PWD/target/release/trumansh
TREE=$WORK/tree20k
if [ ! -f "$WORK/.tree20k-done" ]; then
  rm -rf "$TREE"
  mkdir -p "$TREE"
  python3 - "$TREE" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(200):
    sub = os.path.join(root, "d%03d" % (d // 20), "s%03d" % d)
    os.makedirs(sub, exist_ok=True)
    for f in range(100):
        with open(os.path.join(sub, "f%03d.txt" % f), "w") as fh:
            fh.write("file %d %d\n" % (d, f))
PY
  touch "$WORK/.tree20k-done"
fi
cargo build --release --quiet

row() { # name command (run with the tree as cwd on both sides)
  local name=$1 cmd=$2 g t
  g=$(best_of bash -c "cd '$TREE' && $cmd")
  t=$(best_of "$BIN" --root "$TREE" --state-dir "$WORK/state-tree20k" -c "$cmd")
  table_row "$name" "$g" "$t" 3
}

echo "| workload (20,000 files in 210 directories) | GNU s | trumansh s | ratio | GNU peak MB | trumansh peak MB |"
echo "|---|---|---|---|---|---|"
row "du -sh ." "du -sh ."
row "du -a . > /dev/null" "du -a . > /dev/null"
row "tree > /dev/null" "tree > /dev/null"
row "tree -J -s > /dev/null" "tree -J -s > /dev/null"
