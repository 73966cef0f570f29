"""Round-trip latency of one `bash` call to `trumansh mcp`, and of one request to
`trumansh --json` for comparison. Run by bench/mcp.sh (which builds the release binary and
makes the venv holding the official MCP Python SDK).

    python mcp_latency.py TRUMANSH_BINARY FIXTURE_TREE [CALLS]

Each client makes CALLS calls (default 200) over one connection, after 20 unmeasured warm-up
calls, cycling through `echo hi`, `ls`, `cat hello.txt`; each starts on a fresh copy of
FIXTURE_TREE with --mount-point /home/user. Clients:

- mcp, SDK: the official Python SDK's ClientSession.call_tool (what a Python host sees: it
  also validates each result's structured content against the tool's output schema);
- mcp, raw pipe: one JSON-RPC line written, one read, on the server's pipes (the server and
  the protocol, without the SDK);
- --json, raw pipe: the JSON-lines protocol the same way.

Prints, per client, the median and p95 round trip in ms, and the median time the line took
inside the shell (`duration_ms` of the structured content / response); then how long the MCP
server took from its spawn to the answer to `initialize`.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

COMMANDS = ["echo hi", "ls", "cat hello.txt"]
WARMUP = 20
MOUNT = "/home/user"


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank)."""
    ordered = sorted(values)
    rank = max(1, round(p / 100 * len(ordered)))
    return ordered[rank - 1]


def report(name: str, rtts_ns: list[int], inside_ms: list[float]) -> None:
    ms = [t / 1e6 for t in rtts_ns]
    print(
        f"| {name} | {len(ms)} | {statistics.median(ms):.3f} | {percentile(ms, 95):.3f} "
        f"| {statistics.median(inside_ms):.3f} |",
        flush=True,
    )


async def mcp_sdk(binary: Path, root: Path, calls: int) -> None:
    params = StdioServerParameters(
        command=str(binary), args=["mcp", "--root", str(root), "--mount-point", MOUNT]
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            rtts: list[int] = []
            inside: list[float] = []
            for i in range(WARMUP + calls):
                command = COMMANDS[i % len(COMMANDS)]
                start = time.perf_counter_ns()
                result = await session.call_tool("bash", {"command": command})
                elapsed = time.perf_counter_ns() - start
                assert not result.is_error, result
                if i >= WARMUP:
                    rtts.append(elapsed)
                    inside.append(result.structured_content["duration_ms"])
    report("`trumansh mcp`, official Python SDK (`ClientSession.call_tool`)", rtts, inside)


class Pipe:
    """A server on pipes: one JSON line out, one JSON line back."""

    def __init__(self, args: list[str]) -> None:
        self.proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )

    def ask(self, message: dict) -> tuple[int, dict]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        data = (json.dumps(message) + "\n").encode()
        start = time.perf_counter_ns()
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        elapsed = time.perf_counter_ns() - start
        return elapsed, json.loads(line)

    def tell(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def mcp_raw(binary: Path, root: Path, calls: int) -> float:
    """Also returns the start-up time: from the spawn to the initialize answer, in ms."""
    spawned = time.perf_counter_ns()
    pipe = Pipe([str(binary), "mcp", "--root", str(root), "--mount-point", MOUNT])
    pipe.ask(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        }
    )
    startup_ms = (time.perf_counter_ns() - spawned) / 1e6
    pipe.tell({"jsonrpc": "2.0", "method": "notifications/initialized"})
    rtts: list[int] = []
    inside: list[float] = []
    for i in range(WARMUP + calls):
        command = COMMANDS[i % len(COMMANDS)]
        elapsed, answer = pipe.ask(
            {
                "jsonrpc": "2.0",
                "id": i + 1,
                "method": "tools/call",
                "params": {"name": "bash", "arguments": {"command": command}},
            }
        )
        result = answer["result"]
        assert answer["id"] == i + 1 and not result["isError"], answer
        if i >= WARMUP:
            rtts.append(elapsed)
            inside.append(result["structuredContent"]["duration_ms"])
    pipe.close()
    report("`trumansh mcp`, raw pipe client (one JSON-RPC line each way)", rtts, inside)
    return startup_ms


def json_raw(binary: Path, root: Path, calls: int) -> None:
    pipe = Pipe([str(binary), "--json", "--root", str(root), "--mount-point", MOUNT])
    rtts: list[int] = []
    inside: list[float] = []
    for i in range(WARMUP + calls):
        command = COMMANDS[i % len(COMMANDS)]
        elapsed, answer = pipe.ask({"id": i, "command": command})
        assert answer["id"] == i and answer["exit_code"] == 0, answer
        if i >= WARMUP:
            rtts.append(elapsed)
            inside.append(answer["duration_ms"])
    pipe.close()
    report("`trumansh --json`, raw pipe client (one JSON line each way)", rtts, inside)


def main() -> None:
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: mcp_latency.py TRUMANSH_BINARY FIXTURE_TREE [CALLS]")
    binary = Path(sys.argv[1]).resolve()
    fixture = Path(sys.argv[2]).resolve()
    calls = int(sys.argv[3]) if len(sys.argv) == 4 else 200
    with tempfile.TemporaryDirectory(prefix="trumansh-mcp-bench-") as work:

        def fresh(name: str) -> Path:
            root = Path(work) / name
            shutil.copytree(fixture, root, symlinks=True)
            return root

        print("| client | calls | median (ms) | p95 (ms) | in the shell, median (ms) |")
        print("|---|---|---|---|---|")
        anyio.run(mcp_sdk, binary, fresh("sdk"), calls)
        startup_ms = mcp_raw(binary, fresh("mcp-raw"), calls)
        json_raw(binary, fresh("json-raw"), calls)
        print(f"\nstart-up (spawn to the initialize answer, raw pipe client): {startup_ms:.1f} ms")


if __name__ == "__main__":
    main()
