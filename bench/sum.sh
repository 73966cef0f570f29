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
BIGDIR=$WORK/big
if [ "$SIZE_MB" = 1000 ]; then
  BIG=$BIGDIR/big.txt
  if [ ! -f "$WORK/.big-done" ]; then GENERATE_ONLY=1 INTERP=0 bench/run.sh "$WORK"; fi
else
  BIG=$BIGDIR/big-${SIZE_MB}MB.txt
  mkdir -p "$BIGDIR"
  if [ ! -f "$BIG" ]; then
    python3 - "$BIG" "$SIZE_MB" <<'PY'
import sys
line = b"the quick brown fox jumps over the lazy dog 0123456789 lorem ipsum dolor sit amet\n"
block = line * 12_000
limit = int(sys.argv[2]) * 1_000_000
with open(sys.argv[1], "wb") as f:
    written = 0
    while written < limit:
        f.write(block)
        written += len(block)
PY
  fi
fi
NAME=$(basename "$BIG")
cargo build --release --quiet


row() { # name command (run with the file's directory as cwd on both sides)
  local name=$1 cmd=$2 g t
  g=$(best_of bash -c "cd '$BIGDIR' && $cmd")
  t=$(best_of "$BIN" --root "$BIGDIR" --state-dir "$WORK/state-big" -c "$cmd")
  N="$name" awk -v g="$g" -v t="$t" 'BEGIN {
    n = ENVIRON["N"]; gsub(/\|/, "\\|", n);
    split(g, a, " "); split(t, b, " ");
    ratio = (a[1] > 0) ? sprintf("%.2f", b[1] / a[1]) : "n/a";
    printf "| %s | %.3f | %.3f | %s | %.1f | %.1f |\n", n, a[1], b[1], ratio, a[2] / 1024, b[2] / 1024 }'
}

echo "| workload ($NAME) | GNU s | trumansh s | ratio | GNU peak MB | trumansh peak MB |"
echo "|---|---|---|---|---|---|"
row "sha256sum" "sha256sum $NAME"
row "md5sum" "md5sum $NAME"
row "sha1sum" "sha1sum $NAME"
row "b2sum" "b2sum $NAME"
row "cksum (CRC)" "cksum $NAME"
