#!/usr/bin/env bash
# Latency of `trumansh mcp`: 200 `bash` calls over one connection (echo hi, ls, cat hello.txt
# in rotation) with the release build, through the official MCP Python SDK and through a raw
# pipe client, and the same over `trumansh --json` for comparison (bench/mcp_latency.py).
#
#   bench/mcp.sh [CALLS]      (default 200)
#
# Uses the venv of tests/mcp/run.sh (made once under the cargo target directory). Prints a
# Markdown table: median and p95 round trip in ms. Not a test: nothing asserts on times.
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/mcp/venv.sh
mcp_venv
cargo build --quiet --release --bin trumansh
exec "$MCP_PYTHON" bench/mcp_latency.py "${CARGO_TARGET_DIR:-target}/release/trumansh" \
  fixtures/trees/basic "${1:-200}"
