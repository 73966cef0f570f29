#!/usr/bin/env bash
# Benchmark: the shell language (loops, arithmetic, function calls, $(...), while read) —
# trumansh against real bash on the same machine, on the same inputs, in one run.
#
#   bench/interp.sh [WORKDIR]     (default WORKDIR: /tmp/trumansh-bench; needs ~2 MB in
#                                  WORKDIR/interp)
#   REPS=5 bench/interp.sh        best of 5 runs instead of 3
#   MEMORY=0 bench/interp.sh      skips the memory table (its 1,000,000-iteration runs take
#                                 about 10 s per side)
#
# bench/run.sh calls it after its own table. Every workload is one `bash -c SCRIPT` against
# one `trumansh --root ROOT -c SCRIPT` (both include their process start), timed with GNU
# time; each runs REPS times (default 3) and the fastest wall time is kept, with the CPU time
# (user + system, children included: bash's forks count) and peak RSS of that run. The ratio
# is trumansh / bash: below 1, trumansh is faster. The outputs of the two sides are compared
# once per workload and a difference is flagged in the table. This is not a test: nothing
# asserts on times.
#
# The memory table runs the arithmetic loop at 10,000, 100,000 and 1,000,000 iterations, once
# each, under a policy raising `loop_iterations` and `commands` (by default trumansh stops an
# input at 1,000,000 of either) and the deadline: the point is that peak RSS does not grow with
# the number of iterations.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-/tmp/trumansh-bench}/interp
REPS=${REPS:-3}
export LC_ALL=C

BIN=$PWD/target/release/trumansh
ROOT=$WORK/root
STATE=$WORK/state
POLICY=$WORK/policy.toml
rm -rf "$STATE" # a fresh audit log each run
mkdir -p "$ROOT" "$STATE"

# 100,000 lines of a few words each (~3.5 MB), for the `while read` loop.
if [ ! -f "$ROOT/big.txt" ]; then
  python3 - "$ROOT/big.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(100_000):
        f.write(f"line {i} the quick brown fox\n")
PY
fi

cat >"$POLICY" <<'TOML'
[limits]
commands = 100000000
loop_iterations = 100000000
deadline_ms = "10m"
TOML

cargo build --release --quiet

# measure REPS CMD...: prints "wall_s cpu_s max_rss_kb" of the fastest of REPS runs (wall time
# from the nanosecond clock; CPU time and peak RSS from GNU time). The output of the last run
# is left in $WORK/out.txt.
measure() {
  local reps=$1 best="" cpu="" rss="" t0 t1 t
  shift
  for _ in $(seq "$reps"); do
    t0=$(date +%s%N)
    /usr/bin/time -f '%U %S %M' -o "$WORK/time.out" "$@" >"$WORK/out.txt" 2>&1 || true
    t1=$(date +%s%N)
    t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then
      best=$t
      read -r u s rss < <(tail -n 1 "$WORK/time.out")
      cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    fi
  done
  echo "$best $cpu $rss"
}

ours() { "$BIN" --root "$ROOT" --state-dir "$STATE" "$@"; }

# row NAME SCRIPT [trumansh options...]: one line of the table (bash's measure left in
# $last_bash).
row() {
  local name=$1 script=$2 reps=$REPS b t note="" want got err
  shift 2
  want=$(cd "$ROOT" && bash -c "$script" 2>&1) || true
  got=$(ours "$@" -c "$script" 2>&1) || true
  if [[ $got == *"command not found"* ]]; then
    err=$(grep -m1 'command not found' <<<"$got")
    printf '| %s | skipped: trumansh says `%s` | | | | | | |\n' "$name" "$err"
    return
  fi
  [ "$want" = "$got" ] || note=" (OUTPUT DIFFERS: bash \`${want:0:40}\`, trumansh \`${got:0:40}\`)"
  b=$(measure "$reps" bash -c "cd '$ROOT' && $script")
  t=$(measure "$reps" "$BIN" --root "$ROOT" --state-dir "$STATE" "$@" -c "$script")
  last_bash=$b
  awk -v n="$name$note" -v b="$b" -v t="$t" 'BEGIN {
    gsub(/\|/, "\\|", n);
    split(b, x, " "); split(t, y, " ");
    r = (x[1] > 0) ? sprintf("%.2f", y[1] / x[1]) : "n/a";
    rc = (x[2] > 0) ? sprintf("%.2f", y[2] / x[2]) : "n/a";
    printf "| %s | %.4f | %.4f | %s | %.2f | %.2f | %s | %.1f / %.1f |\n",
      n, x[1], y[1], r, x[2], y[2], rc, x[3] / 1024, y[3] / 1024 }'
}

LOOP='for ((i=0;i<1000;i++)); do v=$i; done; echo $v'
SUBST='for ((i=0;i<1000;i++)); do v=$(echo $i); done; echo $v'

echo "| workload | bash s | trumansh s | ratio | bash CPU s | trumansh CPU s | CPU ratio | peak MB (bash / trumansh) |"
echo "|---|---|---|---|---|---|---|---|"
row 'start-up: `:`' ':'
row 'arithmetic loop, 100,000 iterations' 'x=0; for ((i=0;i<100000;i++)); do x=$((x+i)); done; echo $x'
row '100,000 calls `f`' 'f() { :; }; for ((i=0;i<100000;i++)); do f; done'
row '100,000 calls `g $i` with `local`' 'g() { local a=$1; }; for ((i=0;i<100000;i++)); do g $i; done'
row '1,000 iterations `v=$i` (baseline)' "$LOOP"
b_loop=$last_bash
row '1,000 `v=$(echo $i)`' "$SUBST"
b_sub=$last_bash
row '`while read` over 100,000 lines' 'while read l; do n=$((n+1)); done < big.txt; echo $n'

# The cost of one $(...), net of the loop around it: bash from the two rows above (1,000
# iterations), trumansh from 10,000 iterations of each (1,000 take a few ms, within the noise).
LOOP10K=${LOOP//1000/10000}
SUBST10K=${SUBST//1000/10000}
t_loop=$(measure "$REPS" "$BIN" --root "$ROOT" --state-dir "$STATE" -c "$LOOP10K")
t_sub=$(measure "$REPS" "$BIN" --root "$ROOT" --state-dir "$STATE" -c "$SUBST10K")
awk -v bl="$b_loop" -v bs="$b_sub" -v tl="$t_loop" -v ts="$t_sub" 'BEGIN {
  split(bl, a, " "); split(bs, c, " "); split(tl, b, " "); split(ts, d, " ");
  bu = (c[1] - a[1]) / 1000 * 1e6; tu = (d[1] - b[1]) / 10000 * 1e6;
  printf "\nOne `$(echo $i)`, net of the loop: bash %.1f us, trumansh %.2f us (%.3f s for 10,000, loop alone %.3f s): trumansh %.0fx faster.\n",
    bu, tu, d[1], b[1], (tu > 0) ? bu / tu : 0 }'

[ "${MEMORY:-1}" = 0 ] && exit 0

echo
echo "| arithmetic loop, iterations | bash s | trumansh s | bash peak MB | trumansh peak MB |"
echo "|---|---|---|---|---|"
for n in 10000 100000 1000000; do
  script="x=0; for ((i=0;i<$n;i++)); do x=\$((x+i)); done; echo \$x"
  b=$(measure 1 bash -c "cd '$ROOT' && $script")
  t=$(measure 1 "$BIN" --root "$ROOT" --state-dir "$STATE" --policy "$POLICY" -c "$script")
  got=$(tail -n 1 "$WORK/out.txt")
  awk -v n="$n" -v b="$b" -v t="$t" -v got="$got" -v want="$(( n * (n - 1) / 2 ))" 'BEGIN {
    split(b, x, " "); split(t, y, " ");
    note = (got == want) ? "" : " (trumansh printed " got ")";
    printf "| %d%s | %.3f | %.3f | %.1f | %.1f |\n", n, note, x[1], y[1], x[3] / 1024, y[3] / 1024 }'
done
