#!/usr/bin/env bash
# Benchmark: trumansh's awk against GNU awk (gawk) on a large generated file.
#
#   bench/awk.sh [WORKDIR]     (default WORKDIR: /tmp/trumansh-bench; needs SIZE_MB of disk)
#   SIZE_MB=1000 bench/awk.sh  a 1 GB file instead of the default 200 MB
#   REPS=3 bench/awk.sh        best of 3 runs (default 1)
#
# Each workload is one `gawk ...` against one `trumansh --root ROOT -c "awk ... > /dev/null"`
# (both include their process start), timed with GNU time: wall seconds and peak RSS. The
# ratio is trumansh / gawk (below 1: trumansh is faster). Outputs are compared once (the
# trumansh side writes to a file for that). This is not a test: nothing asserts on times.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
WORK=${1:-/tmp/trumansh-bench}/awk
SIZE_MB=${SIZE_MB:-200}
REPS=${REPS:-1}
export LC_ALL=C
GAWK=$(command -v gawk || true)
[ -n "$GAWK" ] || { echo "bench/awk.sh needs gawk (tests/oracles/install.sh)" >&2; exit 2; }

BIN=$PWD/target/release/trumansh
ROOT=$WORK/root
STATE=$WORK/state
POLICY=$WORK/policy.toml
rm -rf "$STATE"
mkdir -p "$ROOT" "$STATE"
BIG=$ROOT/big.csv

# SIZE_MB of lines `id word value,field,...`: 6 space-separated fields, commas in the 5th.
if [ ! -f "$BIG" ] || [ "$(($(stat -c %s "$BIG") / 1000000))" -lt "$SIZE_MB" ]; then
  python3 - "$BIG" "$SIZE_MB" <<'PY'
import sys
path, mb = sys.argv[1], int(sys.argv[2])
words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
line_tmpl = "{i} {w} {v} {x} a,{w},{v},c {y}\n"
target = mb * 1_000_000
with open(path, "w") as f:
    n = 0
    i = 0
    buf = []
    while n < target:
        w = words[i % 8]
        s = line_tmpl.format(i=i, w=w, v=(i * 7919) % 100003, x=i % 97, y=(i * 31) % 1000)
        buf.append(s)
        n += len(s)
        i += 1
        if len(buf) == 10000:
            f.write("".join(buf)); buf = []
    f.write("".join(buf))
PY
fi

cat >"$POLICY" <<'TOML'
[limits]
deadline_ms = "30m"
TOML

cargo build --release --quiet


printf '%-34s %9s %9s %7s %11s %11s\n' workload gawk_s trumansh_s ratio gawk_rss_kb ours_rss_kb
row() {
  local name=$1 prog=$2 opts=${3:-} g t ratio note=""
  # shellcheck disable=SC2086
  g=$(best_of "$GAWK" $opts "$prog" "$BIG")
  t=$(best_of "$BIN" --root "$ROOT" --state-dir "$STATE" --policy "$POLICY" \
    -c "awk $opts '$prog' big.csv > /dev/null")
  # shellcheck disable=SC2086
  if ! cmp -s <("$GAWK" $opts "$prog" "$BIG" | head -c 1000000) \
    <("$BIN" --root "$ROOT" --state-dir "$STATE" --policy "$POLICY" -c "awk $opts '$prog' big.csv" | head -c 1000000); then
    note=" (outputs differ)"
  fi
  read -r gw gm <<<"$g"
  read -r tw tm <<<"$t"
  ratio=$("$GAWK" -v a="$tw" -v b="$gw" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
  printf '%-34s %9s %9s %7s %11s %11s%s\n' "$name" "$gw" "$tw" "$ratio" "$gm" "$tm" "$note"
}

row "sum a column: {s+=\$3} END" '{ s += $3 } END { print s }'
row "-F, print a field" '{ print $3 }' "-F,"
row "count lines: END{print NR}" 'END { print NR }'
row "regex filter: /gamma/" '/gamma/ { n++ } END { print n }'
row "group by: c[\$2]++" '{ c[$2]++ } END { for (k in c) n++; print n }'
row "rewrite: \$2=toupper(\$2); print" '{ $2 = toupper($2); print }'
echo "file: $(($(stat -c %s "$BIG") / 1000000)) MB, $(wc -l <"$BIG") lines"
