# Shared by the bench/ scripts (sourced after they cd to the repository): timing helpers.
# Needs WORK (where GNU time writes) and REPS (how many runs; the best is kept).

# best_of CMD...: runs CMD REPS times (output to /dev/null) and prints the best wall time in
# seconds (nanosecond clock) and that run's peak RSS in KB (GNU time).
best_of() {
  local best="" rss="" t0 t1 t m
  for _ in $(seq "$REPS"); do
    t0=$(date +%s%N)
    /usr/bin/time -f '%M' -o "$WORK/time.out" "$@" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
    m=$(tail -n 1 "$WORK/time.out")
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; rss=$m; fi
  done
  echo "$best $rss"
}

# big_file: the 1 GB file of bench/run.sh (generated there when missing) or, with SIZE_MB,
# a smaller one of the same lines; sets BIGDIR, BIG and NAME. Needs WORK and SIZE_MB.
big_file() {
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
}

# row NAME CMD: one Markdown table row, CMD run in BIGDIR by bash (GNU) and by trumansh
# (BIN), best of REPS each, with the ratio and both peak RSS.
row() {
  local name=$1 cmd=$2 g t
  g=$(best_of bash -c "cd '$BIGDIR' && $cmd")
  t=$(best_of "$BIN" --root "$BIGDIR" --state-dir "$WORK/state-big" -c "$cmd")
  N="$name" awk -v g="$g" -v t="$t" 'BEGIN {
    n = ENVIRON["N"]; gsub(/\|/, "\\|", n);
    split(g, a, " "); split(t, b, " ");
    ratio = (a[1] > 0) ? sprintf("%.2f", b[1] / a[1]) : "n/a";
    printf "| %s | %.3f | %.3f | %s | %.1f | %.1f |\n", n, a[1], b[1], ratio, a[2] / 1024, b[2] / 1024 }'
}
