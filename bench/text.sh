#!/usr/bin/env bash
# Benchmark of the text filters that run a GNU regex over every line: sed (and the regex
# engine it shares with grep and awk), trumansh against GNU sed on the 1 GB file of
# bench/run.sh (generated there if missing).
#
#   bench/text.sh [WORKDIR]      (default WORKDIR: /tmp/trumansh-bench; needs ~1 GB free)
#   SIZE_MB=100 bench/text.sh    a smaller file (WORKDIR/big/big-<SIZE_MB>MB.txt)
#
# Each workload runs REPS times (default 3); the best wall time is kept, with its peak RSS
# from GNU time. Prints a Markdown table with the ratio trumansh / GNU. Nothing asserts.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
WORK=${1:-/tmp/trumansh-bench}
REPS=${REPS:-3}
SIZE_MB=${SIZE_MB:-1000}
export LC_ALL=C
BIN=$PWD/target/release/trumansh
big_file
cargo build --release --quiet

echo "| workload ($NAME) | GNU s | trumansh s | ratio | GNU peak MB | trumansh peak MB |"
echo "|---|---|---|---|---|---|"
row "sed 's/a/b/g' > /dev/null" "sed 's/a/b/g' $NAME > /dev/null"
row "sed -n '/lorem/p' | wc -l" "sed -n '/lorem/p' $NAME | wc -l"
row "sed -n '/x\(yz\)*q/p' > /dev/null (no match)" "sed -n '/x\(yz\)*q/p' $NAME > /dev/null"
row "sed -E 's/(o+)x?/<\1>/g' > /dev/null (groups)" "sed -E 's/(o+)x?/<\1>/g' $NAME > /dev/null"
row "sed -n '\$=' (count)" "sed -n '\$=' $NAME"
