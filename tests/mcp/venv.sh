# Sourced by tests/mcp/run.sh and bench/mcp.sh: makes (once) a Python venv holding the official
# MCP Python SDK, pinned, under the cargo target directory, and sets MCP_PYTHON to its python.
# Needs python3 (3.10 or later) with its venv module; everything else comes from PyPI.
MCP_SDK_VERSION=2.3.0
MCP_VENV=${CARGO_TARGET_DIR:-$PWD/target}/mcp-venv
MCP_PYTHON=$MCP_VENV/bin/python

mcp_venv() {
  local have=""
  if [ -x "$MCP_PYTHON" ]; then
    have=$("$MCP_PYTHON" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null || true)
  fi
  if [ "$have" = "$MCP_SDK_VERSION" ]; then
    return 0
  fi
  echo "mcp: installing the MCP Python SDK $MCP_SDK_VERSION into $MCP_VENV" >&2
  rm -rf "$MCP_VENV"
  if ! python3 -m venv "$MCP_VENV"; then
    echo "mcp: cannot create a venv with python3 -m venv (on Debian: apt-get install python3-venv)" >&2
    return 1
  fi
  "$MCP_PYTHON" -m pip install --quiet --disable-pip-version-check "mcp==$MCP_SDK_VERSION"
}
