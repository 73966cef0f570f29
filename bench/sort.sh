#!/usr/bin/env bash
# Benchmark of sort in bounded memory: trumansh's sort (sorted runs spilled to scratch files
# in the state directory, then merged) against GNU sort on a 1 GB file of varied lines
# (generated once under WORKDIR/sort/), wall time and peak RSS.
#
#   bench/sort.sh [WORKDIR]      (default WORKDIR: /tmp/trumansh-bench; needs ~3 GB free:
#                                 the input, GNU's temporary files, trumansh's scratch files)
#   SIZE_MB=100 bench/sort.sh    a smaller file
#
# Each workload runs REPS times (default 1: a run takes minutes); the best wall time is
# kept, with its peak RSS from GNU time. trumansh runs with a policy whose deadline allows
# the whole sort. Prints a Markdown table with the ratio trumansh / GNU. Nothing asserts.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
WORK=${1:-/tmp/trumansh-bench}
REPS=${REPS:-1}
SIZE_MB=${SIZE_MB:-1000}
export LC_ALL=C
BIN=$PWD/target/release/trumansh
cargo build --release --quiet

DIR=$WORK/sort
mkdir -p "$DIR/root"
IN=$DIR/root/in-${SIZE_MB}MB.txt
if [ ! -f "$IN" ]; then
  # A base of up to 100 MB of random words and numbers, then copies of it with a suffix
  # per copy (sed is much faster than Python) up to SIZE_MB.
  BASE=$DIR/base.txt
  BASE_MB=$(( SIZE_MB < 100 ? SIZE_MB : 100 ))
  python3 - "$BASE" "$BASE_MB" <<'PY'
import random, sys
random.seed(15)
words = [w.encode() for w in "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega".split()]
limit = int(sys.argv[2]) * 1_000_000
with open(sys.argv[1], "wb") as f:
    written = 0
    while written < limit:
        lines = []
        for _ in range(20_000):
            k = random.randrange(1, 6)
            lines.append(b" ".join(random.choice(words) for _ in range(k)) + b" %d\n" % random.randrange(10**9))
        block = b"".join(lines)
        f.write(block)
        written += len(block)
PY
  : > "$IN.part"
  i=0
  while [ "$(stat -c %s "$IN.part")" -lt $(( SIZE_MB * 1000000 )) ]; do
    sed "s/\$/ $i/" "$BASE" >> "$IN.part"
    i=$((i + 1))
  done
  mv "$IN.part" "$IN"
  rm -f "$BASE"
fi
NAME=$(basename "$IN")
cat > "$DIR/policy.toml" <<'EOF'
[limits]
deadline_ms = 3600000
EOF

# trow NAME CMD: CMD run by bash (GNU sort, its temporary files in DIR/gnu-tmp) and by
# trumansh on the same root, best of REPS each, with the ratio and both peak RSS.
trow() {
  local name=$1 cmd=$2 g t
  mkdir -p "$DIR/gnu-tmp"
  g=$(TMPDIR=$DIR/gnu-tmp best_of bash -c "cd '$DIR/root' && $cmd")
  t=$(best_of "$BIN" --root "$DIR/root" --state-dir "$DIR/state" --policy "$DIR/policy.toml" -c "$cmd")
  table_row "$name" "$g" "$t" 1
}

echo "| workload ($NAME) | GNU s | trumansh s | ratio | GNU peak MB | trumansh peak MB |"
echo "|---|---|---|---|---|---|"
trow "sort > /dev/null" "sort $NAME > /dev/null"
trow "sort --parallel=1 > /dev/null (GNU on one thread)" "sort --parallel=1 $NAME > /dev/null"
trow "sort -k2,2 -k3n \| tail -n 1" "sort -k2,2 -k3n $NAME | tail -n 1"
trow "cat f \| sort -u \| wc -l (through a pipe)" "cat $NAME | sort -u | wc -l"
