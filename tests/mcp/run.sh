#!/usr/bin/env bash
# `trumansh mcp` against the official MCP Python SDK: makes (once) a venv with the pinned SDK
# (tests/mcp/venv.sh), builds the debug binary (cargo test has built it already in CI), and
# runs tests/mcp/client_test.py on a copy of fixtures/trees/basic.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/mcp/venv.sh
mcp_venv
cargo build --quiet --bin trumansh
exec "$MCP_PYTHON" tests/mcp/client_test.py "${CARGO_TARGET_DIR:-target}/debug/trumansh" fixtures/trees/basic
