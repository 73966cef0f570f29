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
