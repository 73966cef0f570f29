#!/usr/bin/env bash
# Benchmark of the checksum commands: sha256sum, md5sum (and cksum's CRC, b2sum), trumansh
# against GNU coreutils on the 1 GB file of bench/run.sh (generated there if missing).
#
#   bench/sum.sh [WORKDIR]      (default WORKDIR: /tmp/trumansh-bench; needs ~1 GB free)
#   SIZE_MB=100 bench/sum.sh    a smaller file (WORKDIR/big/big-<SIZE_MB>MB.txt)
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
row "sha256sum" "sha256sum $NAME"
row "md5sum" "md5sum $NAME"
row "sha1sum" "sha1sum $NAME"
row "b2sum" "b2sum $NAME"
row "cksum (CRC)" "cksum $NAME"
