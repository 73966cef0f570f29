#!/usr/bin/env bash
# Benchmark: `tar -czf` and `tar -xzf` of 1,000 small files — trumansh's `tar` against GNU
# tar 1.34 (with gzip 1.12) on the same machine, same tree, in one run.
#
#   bench/tar.sh [WORKDIR]     (default WORKDIR: /tmp/trumansh-bench)
#   REPS=5 bench/tar.sh        best of 5 runs instead of 3
#
# Each side is one process, `bash -c '...'` against `trumansh --root ROOT -c '...'` (both
# include their process start), timed by lib.sh's best_of; the ratio is trumansh / GNU.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
WORK=${1:-/tmp/trumansh-bench}/tar
REPS=${REPS:-3}
export LC_ALL=C TZ=UTC
BIN=$PWD/target/release/trumansh
ROOT=$WORK/root
mkdir -p "$ROOT"
[ -x "$BIN" ] || cargo build --release --quiet

if [ ! -d "$ROOT/src" ]; then
  python3 - "$ROOT/src" <<'PY'
import os, random, sys
random.seed(7)
root = sys.argv[1]
for d in range(20):
    os.makedirs(f"{root}/d{d:02}", exist_ok=True)
    for f in range(50):
        words = " ".join(random.choice(["alpha", "beta", "gamma", "delta", "x = 1;"]) for _ in range(random.randint(20, 400)))
        open(f"{root}/d{d:02}/f{f:03}.txt", "w").write(words + "\n")
PY
fi

cd "$ROOT"
rm -rf out-gnu out-ts && mkdir -p out-gnu out-ts
tar -czf gnu.tgz src
"$BIN" --root "$ROOT" -c 'tar -czf ts.tgz src'
# Both archives list the same members, and each tar reads the other's archive.
cmp <(tar -tzf gnu.tgz | sort) <(tar -tzf ts.tgz | sort)
cmp <(tar -tzf gnu.tgz | sort) <("$BIN" --root "$ROOT" -c 'tar -tzf gnu.tgz' | sort)

printf '%-28s %10s %10s %8s %10s %10s\n' case gnu_s trumansh_s ratio gnu_kb trumansh_kb
row() { # name, GNU line, trumansh line
  read -r gw gr < <(best_of bash -c "$2")
  read -r tw tr < <(best_of "$BIN" --root "$ROOT" -c "$3")
  printf '%-28s %10s %10s %8s %10s %10s\n' "$1" "$gw" "$tw" \
    "$(awk -v a="$tw" -v b="$gw" 'BEGIN { printf "%.2f", a / b }')" "$gr" "$tr"
}
row "tar -czf (1,000 files)" "tar -czf gnu.tgz src" "tar -czf ts.tgz src"
row "tar -xzf (1,000 files)" "rm -rf out-gnu; mkdir out-gnu; tar -xzf gnu.tgz -C out-gnu" \
  "rm -rf out-ts; mkdir out-ts; tar -xzf gnu.tgz -C out-ts"
diff -r out-gnu out-ts && echo "extracted trees identical"
