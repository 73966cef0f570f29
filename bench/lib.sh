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
  table_row "$name" "$g" "$t"
}

# table_row NAME GNU TRUMANSH [DIGITS]: one Markdown row from two `best_of` results
# ("seconds peak-KB"): both times (DIGITS decimals, default 3), their ratio, both peak RSS in MB.
table_row() {
  N="$1" awk -v g="$2" -v t="$3" -v d="${4:-3}" 'BEGIN {
    n = ENVIRON["N"]; gsub(/\|/, "\\|", n);
    split(g, a, " "); split(t, b, " ");
    ratio = (a[1] > 0) ? sprintf("%.2f", b[1] / a[1]) : "n/a";
    fmt = "| %s | %." d "f | %." d "f | %s | %.1f | %.1f |\n";
    printf fmt, n, a[1], b[1], ratio, a[2] / 1024, b[2] / 1024 }'
}

# tree_files WORK: the 20,000-file tree (~200 MB of source-like text, seeded) of bench/run.sh
# and bench/grep.sh in WORK/tree, made once.
tree_files() {
  if [ -f "$1/.tree-done" ]; then return; fi
  echo "generating $1/tree (20,000 files, ~200 MB)..." >&2
  rm -rf "$1/tree"
  python3 - "$1/tree" <<'PY'
import os, random, sys
root = sys.argv[1]
random.seed(42)
words = ["alpha", "beta", "gamma", "delta", "error", "warning", "fn", "let", "return",
         "struct", "impl", "match", "value", "config", "handler", "request", "TODO"]
n = 0
for a in range(20):
    for b in range(20):
        d = os.path.join(root, f"dir{a:02}", f"sub{b:02}")
        os.makedirs(d, exist_ok=True)
        for c in range(50):
            ext = (".rs", ".py", ".txt", ".md")[c % 4]
            lines = []
            size = 0
            target = random.randint(2_000, 18_000)
            while size < target:
                line = " ".join(random.choice(words) for _ in range(random.randint(3, 12)))
                if random.random() < 0.002:
                    line += " needle_in_haystack"
                lines.append(line)
                size += len(line) + 1
            with open(os.path.join(d, f"file{c:02}{ext}"), "w") as f:
                f.write("\n".join(lines) + "\n")
            n += 1
print(n, "files", file=sys.stderr)
PY
  touch "$1/.tree-done"
}
