#!/usr/bin/env bash
# Benchmark: the commands that start other commands, `find -exec` and `xargs`, against GNU
# findutils on the 20,000-file tree bench/run.sh generates (its generator, run once with
# GENERATE_ONLY=1; it also makes run.sh's 1 GB file if missing).
#
#   bench/exec.sh [WORKDIR]       (default WORKDIR: /tmp/trumansh-bench)
#
# Each workload runs REPS times (default 3), the best wall time kept, with its peak RSS from
# GNU time; a Markdown table with the ratio trumansh / GNU. Output goes through `| wc -l` on
# both sides. Not a test: nothing asserts on times.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
WORK=${1:-/tmp/trumansh-bench}
REPS=${REPS:-3}
export LC_ALL=C
BIN=$PWD/target/release/trumansh
TREE=$WORK/tree

GENERATE_ONLY=1 bench/run.sh "$WORK"
cargo build --release --quiet


row() { # name command (run by both sides with the tree as cwd)
  local name=$1 cmd=$2 g t
  g=$(best_of bash -c "cd '$TREE' && $cmd")
  t=$(best_of "$BIN" --root "$TREE" --state-dir "$WORK/state-exec" -c "$cmd")
  table_row "$name" "$g" "$t" 4
}

echo "| workload | GNU s | trumansh s | ratio | GNU peak MB | trumansh peak MB |"
echo "|---|---|---|---|---|---|"
row "find . -name '*.rs' -exec grep -l needle_in_haystack {} + | wc -l" \
  "find . -name '*.rs' -exec grep -l needle_in_haystack {} + | wc -l"
row "find . -name '*.rs' | xargs grep -l needle_in_haystack | wc -l" \
  "find . -name '*.rs' | xargs grep -l needle_in_haystack | wc -l"
row "find . -name '*.rs' -print0 | xargs -0 -n 50 grep -l needle_in_haystack | wc -l" \
  "find . -name '*.rs' -print0 | xargs -0 -n 50 grep -l needle_in_haystack | wc -l"
row "find . -name '*.rs' -exec grep -l needle_in_haystack {} ';' | wc -l (5,000 runs)" \
  "find . -name '*.rs' -exec grep -l needle_in_haystack {} \\; | wc -l"
