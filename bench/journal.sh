#!/usr/bin/env bash
# What the journal costs: a state-changing workload with and without journaling, and the time
# to undo it.
#
#   bench/journal.sh [WORKDIR]     (default WORKDIR: /tmp/trumansh-journal; needs ~1 GB free)
#
# Generates (once) a 250 MB tree (2,500 files of 100 KB in 50 directories), then, in a fresh
# sandbox holding it, times each line as its own `trumansh -c` run (a new session each time,
# as an agent host would start one):
#
#   cp -r tree copy      rm -rf copy      undo (brings copy back)      undo (removes the copy)
#
# with the journal on (the default) and off (`journal = false` in a policy), and GNU cp/rm on
# the same tree for reference. Each step runs REPS times (default 3) on a fresh copy and the
# median is kept. Prints a Markdown table; nothing asserts on times.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-/tmp/trumansh-journal}
REPS=${REPS:-3}
export LC_ALL=C
BIN=$PWD/target/release/trumansh
cargo build --release --quiet

mkdir -p "$WORK"
if [ ! -f "$WORK/.tree-done" ]; then
  echo "generating $WORK/src (2,500 files, 250 MB)..." >&2
  rm -rf "$WORK/src"
  python3 - "$WORK/src" <<'PY'
import os, sys
root = sys.argv[1]
block = bytes(range(256)) * 400  # 102,400 bytes
for d in range(50):
    p = os.path.join(root, "tree", f"d{d:02}")
    os.makedirs(p, exist_ok=True)
    for f in range(50):
        with open(os.path.join(p, f"f{f:02}.bin"), "wb") as fh:
            fh.write(block)
PY
  touch "$WORK/.tree-done"
fi
printf 'undo = false\njournal = false\n' > "$WORK/nojournal.toml"

# Seconds for one command (bash's own clock, no fork of a timer).
secs() {
  local start end
  sync
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

declare -A T
for rep in $(seq "$REPS"); do
  for mode in on off gnu; do
    box=$WORK/box-$mode
    rm -rf "$box"
    cp -a "$WORK/src" "$box"
    case $mode in
      on)
        T[on_cp]+="$(secs "$BIN" --root "$box" -c 'cp -r tree copy') "
        T[on_rm]+="$(secs "$BIN" --root "$box" -c 'rm -rf copy') "
        T[on_undo_rm]+="$(secs "$BIN" --root "$box" -c 'undo') "
        T[on_undo_cp]+="$(secs "$BIN" --root "$box" -c 'undo') "
        [ ! -e "$box/copy" ] || { echo "undo left $box/copy" >&2; exit 1; }
        ;;
      off)
        T[off_cp]+="$(secs "$BIN" --root "$box" --policy "$WORK/nojournal.toml" -c 'cp -r tree copy') "
        T[off_rm]+="$(secs "$BIN" --root "$box" --policy "$WORK/nojournal.toml" -c 'rm -rf copy') "
        ;;
      gnu)
        T[gnu_cp]+="$(secs cp -r "$box/tree" "$box/copy") "
        T[gnu_rm]+="$(secs rm -rf "$box/copy") "
        ;;
    esac
    rm -rf "$box"
  done
done

m() { echo "${T[$1]}" | tr ' ' '\n' | grep . | median; }
ratio() { echo "scale=3; $1 / $2" | bc -l; }
on_cp=$(m on_cp); off_cp=$(m off_cp); gnu_cp=$(m gnu_cp)
on_rm=$(m on_rm); off_rm=$(m off_rm); gnu_rm=$(m gnu_rm)
undo_rm=$(m on_undo_rm); undo_cp=$(m on_undo_cp)
echo
echo "| step (250 MB, 2,500 files) | journal on (s) | journal off (s) | on / off | GNU (s) |"
echo "|---|---|---|---|---|"
printf '| `cp -r tree copy` | %.3f | %.3f | %.2fx | %.3f |\n' "$on_cp" "$off_cp" "$(ratio "$on_cp" "$off_cp")" "$gnu_cp"
printf '| `rm -rf copy` | %.3f | %.3f | %.2fx | %.3f |\n' "$on_rm" "$off_rm" "$(ratio "$on_rm" "$off_rm")" "$gnu_rm"
printf '| `undo` of the `rm -rf` | %.3f | | %.3fx of the `cp -r` | |\n' "$undo_rm" "$(ratio "$undo_rm" "$on_cp")"
printf '| `undo` of the `cp -r` | %.3f | | %.3fx of the `cp -r` | |\n' "$undo_cp" "$(ratio "$undo_cp" "$on_cp")"
