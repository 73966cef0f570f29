#!/usr/bin/env bash
# What state-changing lines cost: trumansh against bash on the same work, on the same disk.
#
#   bench/state.sh [WORKDIR]     (default WORKDIR: /tmp/trumansh-state; ext4 wanted)
#
#   (a) a script of N lines `echo xxxx >> fill.txt` (N=100000; LINES=... to change), run as
#       `trumansh --root BOX script.sh` and `bash script.sh` (in a copy of BOX);
#   (b) a 2,000-line session that changes files (mkdir, echo >, >>, cp, mv, sed -i, touch,
#       ln -s, rm, and a line that changes nothing), fed to line mode on stdin
#       (`trumansh --root BOX < session.txt`) and to `bash` in a copy of the same tree.
#
# Each run starts from a fresh box; bash and trumansh runs alternate (REPS of each, the best
# of each kept), so that a slow spell of a shared machine hits both. Then, when strace is installed,
# the syscalls per line of a 2,000-line `>>` script (strace -c -f), by name. BIN=... runs
# another trumansh binary (e.g. an older build, for a before/after). Prints Markdown tables;
# nothing asserts on times.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-/tmp/trumansh-state}
REPS=${REPS:-3}
LINES=${LINES:-100000}
export LC_ALL=C
if [ -z "${BIN:-}" ]; then
  BIN=$PWD/target/release/trumansh
  cargo build --release --quiet
fi
mkdir -p "$WORK"
# shellcheck source=bench/lib.sh
source bench/lib.sh

# The inputs, generated once.
if [ ! -f "$WORK/append-$LINES.sh" ]; then
  awk -v n="$LINES" 'BEGIN { for (i = 0; i < n; i++) print "echo xxxx >> fill.txt" }' > "$WORK/append-$LINES.sh"
fi
awk 'BEGIN { for (i = 0; i < 2000; i++) print "echo xxxx >> fill.txt" }' > "$WORK/append-2000.sh"
if [ ! -f "$WORK/session.txt" ]; then
  for i in $(seq 200); do
    cat <<EOF
mkdir -p d$i
echo hello $i > d$i/a.txt
echo more >> d$i/a.txt
cp d$i/a.txt d$i/b.txt
mv d$i/b.txt d$i/c.txt
sed -i s/hello/bye/ d$i/a.txt
touch d$i/t
ln -s a.txt d$i/l
rm d$i/c.txt
test -f d$i/a.txt
EOF
  done > "$WORK/session.txt"
fi

fresh() { rm -rf "$WORK/box"; mkdir -p "$WORK/box"; }

# run_once CMD...: wall seconds of one run in a fresh box (cwd: the box).
run_once() {
  local t0 t1
  fresh
  t0=$(date +%s%N)
  (cd "$WORK/box" && "$@" >/dev/null 2>&1) || true
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'
}

# pair "BASH CMD" "TRUMANSH CMD": REPS runs of each, alternating (a slow spell of a shared
# machine hits both), the best of each kept; prints "bash trumansh".
pair() {
  local g="" t="" x
  for _ in $(seq "$REPS"); do
    x=$(run_once bash -c "$1")
    if [ -z "$g" ] || awk "BEGIN{exit !($x < $g)}"; then g=$x; fi
    x=$(run_once bash -c "$2")
    if [ -z "$t" ] || awk "BEGIN{exit !($x < $t)}"; then t=$x; fi
  done
  echo "$g $t"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (a > 0 ? "%.2f" : "n/a"), b / a }'; }

echo "| workload | bash s | trumansh s | ratio |"
echo "|---|---:|---:|---:|"
read -r g t < <(pair "bash '$WORK/append-$LINES.sh'" "'$BIN' --root . '$WORK/append-$LINES.sh'")
echo "| $LINES lines \`echo xxxx >> fill.txt\` (script) | $g | $t | $(ratio "$g" "$t") |"
read -r g t < <(pair "bash < '$WORK/session.txt'" "'$BIN' --root . < '$WORK/session.txt'")
echo "| 2,000-line mixed session (line mode, stdin) | $g | $t | $(ratio "$g" "$t") |"

# What the state directory holds after the script (files, bytes).
fresh
(cd "$WORK/box" && "$BIN" --root . "$WORK/append-$LINES.sh" >/dev/null 2>&1) || true
echo
echo "After the $LINES-line script: $(find "$WORK/box/.trash/txn" -type f 2>/dev/null | wc -l) journal files," \
  "$(du -sk "$WORK/box/.trash/txn" 2>/dev/null | cut -f1) KB in txn/," \
  "$(du -sk "$WORK/box/.trash/audit.jsonl" 2>/dev/null | cut -f1) KB of audit log."

if command -v strace >/dev/null; then
  fresh
  (cd "$WORK/box" && strace -f -c -o "$WORK/strace.out" "$BIN" --root . "$WORK/append-2000.sh" >/dev/null 2>&1) || true
  echo
  echo "Syscalls per line, 2,000-line \`>>\` script (strace -c -f, start-up included):"
  echo
  echo "| syscall | per line |"
  echo "|---|---:|"
  awk '$1 ~ /^[0-9.]+$/ && NF >= 5 { printf "| %s | %.2f |\n", ($NF == "total" ? "**total**" : $NF), $4 / 2000 }' "$WORK/strace.out" |
    sort -t'|' -k3 -gr | head -n 14
fi
