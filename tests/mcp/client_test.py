"""`trumansh mcp` driven by the official MCP Python SDK (PyPI's `mcp`).

    python client_test.py TRUMANSH_BINARY FIXTURE_TREE

Starts `trumansh mcp --root <a fresh copy of FIXTURE_TREE> --mount-point /home/user` through
the SDK's stdio client and checks the handshake, the tool list and a session's worth of
calls; then a second server under a restrictive policy, and a third one reached with the
2026-07-28 lifecycle (server/discover, no initialize). Steps run in order (later ones use the
state earlier ones left); the first failure stops the run. Prints one line per step and a
closing `N passed, N failed`; exits 1 on a failure.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any, Awaitable, Callable

import anyio
import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

MOUNT = "/home/user"
OUTCOME_FIELDS = {
    "stdout",
    "stderr",
    "exit_code",
    "cwd",
    "truncated",
    "timed_out",
    "duration_ms",
    "effects",
    "effects_omitted",
    "rolled_back",
    "exited",
}
# One call may not take longer than this (the policy's own deadline is 30 s).
CALL_TIMEOUT = 40


def text_of(result: Any) -> str:
    """The text content of a tool result (one text block)."""
    assert len(result.content) == 1, f"expected one content block, got {result.content!r}"
    block = result.content[0]
    assert block.type == "text", f"expected a text block, got {block!r}"
    return block.text


class Run:
    """The state shared by the steps of one run."""

    def __init__(self, binary: Path, fixture: Path, work: Path) -> None:
        self.binary = binary
        self.fixture = fixture
        self.work = work
        self.passed = 0
        self.session: ClientSession | None = None
        self.tools: dict[str, Any] = {}

    def fresh_root(self, name: str) -> Path:
        root = self.work / name
        shutil.copytree(self.fixture, root, symlinks=True)
        return root

    def describe(self, root: Path, *extra: str) -> str:
        out = subprocess.run(
            [str(self.binary), "--root", str(root), "--mount-point", MOUNT, "--describe", *extra],
            check=True,
            capture_output=True,
            text=True,
        )
        return out.stdout

    def params(self, root: Path, *extra: str) -> StdioServerParameters:
        return StdioServerParameters(
            command=str(self.binary),
            args=["mcp", "--root", str(root), "--mount-point", MOUNT, *extra],
        )

    async def bash(self, command: str, session: ClientSession | None = None) -> Any:
        session = session or self.session
        assert session is not None
        with anyio.fail_after(CALL_TIMEOUT):
            return await session.call_tool("bash", {"command": command})

    async def step(self, name: str, body: Callable[[], Awaitable[None]]) -> None:
        try:
            await body()
        except Exception as e:
            print(f"FAIL {name}", flush=True)
            traceback.print_exc()
            raise StepFailed(name) from e
        self.passed += 1
        print(f"ok   {name}", flush=True)


class StepFailed(Exception):
    """A step failed (already reported); the run stops."""


def check_outcome(result: Any, tool: Any) -> dict[str, Any]:
    """The structured content: the protocol's fields, valid against the tool's output schema,
    and consistent with the text and isError."""
    sc = result.structured_content
    assert isinstance(sc, dict), f"structured content missing: {result!r}"
    missing = OUTCOME_FIELDS - sc.keys()
    assert not missing, f"structured content lacks {missing}: {sc}"
    assert tool.output_schema is not None, "the tool declares no output schema"
    jsonschema.validate(sc, tool.output_schema)
    assert result.is_error == (sc["exit_code"] != 0), (result.is_error, sc["exit_code"])
    text = text_of(result)
    if sc["exit_code"] != 0:
        assert text.endswith(f"[exit code: {sc['exit_code']}]\n") or sc["exited"], text
    assert text.startswith(sc["stdout"]), (text, sc["stdout"])
    return sc


async def main_session(run: Run) -> None:
    root = run.fresh_root("main")
    expected_describe = run.describe(root)
    async with stdio_client(run.params(root)) as (read, write):
        async with ClientSession(read, write) as session:
            run.session = session

            async def initialize() -> None:
                with anyio.fail_after(CALL_TIMEOUT):
                    init = await session.initialize()
                assert init.server_info.name == "trumansh", init.server_info
                assert init.server_info.version, init.server_info
                assert init.instructions == expected_describe, init.instructions
                assert init.capabilities.tools is not None, init.capabilities

            await run.step("initialize: server name, version, instructions", initialize)

            async def list_tools() -> None:
                with anyio.fail_after(CALL_TIMEOUT):
                    listed = await session.list_tools()
                run.tools = {t.name: t for t in listed.tools}
                assert set(run.tools) == {"bash", "undo", "trash_list"}, list(run.tools)
                bash = run.tools["bash"]
                assert bash.description == expected_describe, bash.description
                assert bash.input_schema["type"] == "object", bash.input_schema
                assert bash.input_schema["required"] == ["command"], bash.input_schema
                assert bash.input_schema["properties"]["command"]["type"] == "string"
                assert bash.output_schema and bash.output_schema["type"] == "object"
                assert bash.annotations is not None and bash.annotations.read_only_hint is False
                assert bash.annotations.open_world_hint is False
                undo = run.tools["undo"]
                assert undo.input_schema["properties"]["count"]["type"] == "integer"
                assert not undo.input_schema.get("required"), undo.input_schema
                trash = run.tools["trash_list"]
                assert trash.annotations is not None and trash.annotations.read_only_hint is True
                assert trash.output_schema and "entries" in trash.output_schema["properties"]

            await run.step("tools/list: bash (describe text), undo, trash_list", list_tools)

            async def cwd_persists() -> None:
                r = await run.bash("cd docs")
                sc = check_outcome(r, run.tools["bash"])
                assert sc["exit_code"] == 0 and sc["cwd"] == f"{MOUNT}/docs", sc
                assert text_of(r) == "", text_of(r)
                r = await run.bash("pwd")
                assert text_of(r) == f"{MOUNT}/docs\n", text_of(r)
                r = await run.bash("export GREETING=hello; cd ..")
                r = await run.bash("echo $GREETING from $PWD")
                assert text_of(r) == f"hello from {MOUNT}\n", text_of(r)

            await run.step("state persists across calls (cd, variables)", cwd_persists)

            async def heredoc() -> None:
                body = "first line\n$HOME stays literal\n  indented\n"
                r = await run.bash(f"mkdir -p notes && cat > notes/new.txt <<'EOF'\n{body}EOF")
                sc = check_outcome(r, run.tools["bash"])
                assert sc["exit_code"] == 0, sc
                ops = [(e["op"], e.get("path")) for e in sc["effects"]]
                assert ops == [
                    ("create_dir", f"{MOUNT}/notes"),
                    ("write", f"{MOUNT}/notes/new.txt"),
                ], ops
                r = await run.bash("cat notes/new.txt")
                assert text_of(r) == body, text_of(r)
                assert (root / "notes" / "new.txt").read_text() == body

            await run.step("a here-document writes a file, cat reads it back", heredoc)

            async def outside() -> None:
                r = await run.bash("cat /etc/passwd")
                sc = check_outcome(r, run.tools["bash"])
                assert sc["stdout"] == "", sc
                assert sc["stderr"] == "cat: /etc/passwd: No such file or directory\n", sc
                assert sc["exit_code"] == 1 and r.is_error is True, sc
                assert text_of(r) == (
                    "cat: /etc/passwd: No such file or directory\n[exit code: 1]\n"
                ), text_of(r)

            await run.step("cat /etc/passwd: No such file or directory, 1, isError", outside)

            async def fields() -> None:
                r = await run.bash("echo hi | tee t.txt; rm t.txt; ls nope")
                sc = check_outcome(r, run.tools["bash"])
                assert sc["stdout"] == "hi\n", sc
                assert sc["stderr"] == "ls: cannot access 'nope': No such file or directory\n"
                assert sc["exit_code"] == 2, sc
                assert sc["cwd"] == MOUNT, sc
                assert sc["truncated"] is False and sc["timed_out"] is False, sc
                assert sc["exited"] is False and sc["rolled_back"] == 0, sc
                assert isinstance(sc["duration_ms"], (int, float)) and sc["duration_ms"] >= 0
                ops = [e["op"] for e in sc["effects"]]
                assert ops == ["write", "trash"], ops
                assert sc["effects"][0]["bytes"] == 3, sc["effects"]
                assert text_of(r) == (
                    "hi\nls: cannot access 'nope': No such file or directory\n[exit code: 2]\n"
                ), text_of(r)

            await run.step("structured content: every field of the --json protocol", fields)

            async def huge() -> None:
                r = await run.bash("echo {1..99999} > big.txt")
                assert check_outcome(r, run.tools["bash"])["exit_code"] == 0
                r = await run.bash("cat big.txt big.txt big.txt")
                sc = check_outcome(r, run.tools["bash"])
                assert sc["truncated"] is True, {k: v for k, v in sc.items() if k != "stdout"}
                assert len(sc["stdout"].encode()) == 1 << 20, len(sc["stdout"])
                notice = (
                    "bash: line 1: output truncated: stdout passed 1 MiB for one command line; "
                    "the rest was dropped\n"
                )
                assert sc["stderr"] == notice, sc["stderr"]
                assert text_of(r).endswith(notice), text_of(r)[-200:]

            await run.step("huge output is cut at 1 MiB with a notice, truncated: true", huge)

            async def unknown_command() -> None:
                r = await run.bash("python3 -c 1")
                sc = check_outcome(r, run.tools["bash"])
                assert sc["stderr"] == "bash: line 1: python3: command not found\n", sc
                assert sc["exit_code"] == 127 and r.is_error is True, sc

            await run.step("an unknown command: command not found, 127", unknown_command)

            async def trash() -> None:
                r = await run.bash("rm hello.txt && ls hello.txt")
                sc = check_outcome(r, run.tools["bash"])
                assert sc["effects"] == [{"op": "trash", "path": f"{MOUNT}/hello.txt"}], sc
                assert sc["exit_code"] == 2, sc
                with anyio.fail_after(CALL_TIMEOUT):
                    r = await session.call_tool("trash_list", {})
                assert r.is_error is False, r
                entries = r.structured_content["entries"]
                jsonschema.validate(r.structured_content, run.tools["trash_list"].output_schema)
                mine = [e for e in entries if e["path"] == f"{MOUNT}/hello.txt"]
                assert len(mine) == 1 and mine[0]["kind"] == "file", entries
                assert mine[0]["size"] == (run.fixture / "hello.txt").stat().st_size, mine
                table = text_of(r)
                assert table.splitlines()[0].split()[:2] == ["ID", "TIME"], table
                assert f"{MOUNT}/hello.txt" in table and mine[0]["id"] in table, table

            await run.step("rm, then trash_list shows the file", trash)

            async def undo() -> None:
                with anyio.fail_after(CALL_TIMEOUT):
                    r = await session.call_tool("undo", {})
                sc = check_outcome(r, run.tools["undo"])
                assert sc["exit_code"] == 0, sc
                assert [e["op"] for e in sc["effects"]] == ["undo"], sc
                assert sc["effects"][0]["line"].startswith("rm hello.txt"), sc
                assert "undone" in text_of(r), text_of(r)
                r = await run.bash("cat hello.txt")
                assert r.is_error is False, text_of(r)
                assert text_of(r) == (run.fixture / "hello.txt").read_text(), text_of(r)
                with anyio.fail_after(CALL_TIMEOUT):
                    r = await session.call_tool("undo", {"count": 0})
                assert r.is_error is True and "positive integer" in text_of(r), r

            await run.step("undo restores the removed file", undo)

            async def malformed() -> None:
                try:
                    with anyio.fail_after(CALL_TIMEOUT):
                        await session.call_tool("no_such_tool", {"command": "ls"})
                except MCPError as e:
                    assert e.code == -32602 and "no_such_tool" in e.message, e.error
                else:
                    raise AssertionError("an unknown tool did not get an MCP error")
                for args, needle in [
                    ({}, 'missing required argument "command"'),
                    ({"command": 42}, 'argument "command" must be a string'),
                    ({"command": "ls", "cwd": "/"}, 'unknown argument "cwd"'),
                ]:
                    with anyio.fail_after(CALL_TIMEOUT):
                        r = await session.call_tool("bash", args)
                    assert r.is_error is True and needle in text_of(r), (args, r)
                r = await run.bash("cd docs && pwd")
                assert text_of(r) == f"{MOUNT}/docs\n", text_of(r)

            await run.step("malformed calls get errors; the session goes on", malformed)

            async def exit_then_fresh() -> None:
                r = await run.bash("export MARK=set; echo bye; exit 3; echo never")
                sc = check_outcome(r, run.tools["bash"])
                assert sc["exited"] is True and sc["exit_code"] == 3, sc
                assert sc["stdout"] == "bye\n", sc
                assert text_of(r) == (
                    "bye\n[exit code: 3]\n[the shell exited; the next call starts a new shell]\n"
                ), text_of(r)
                r = await run.bash("pwd; echo ${MARK:-unset}")
                sc = check_outcome(r, run.tools["bash"])
                assert sc["stdout"] == f"{MOUNT}\nunset\n", sc
                assert sc["exited"] is False and sc["exit_code"] == 0, sc

            await run.step("exit ends the shell; the next call gets a fresh one", exit_then_fresh)

            async def concurrent_calls() -> None:
                results: dict[int, Any] = {}

                async def call(i: int) -> None:
                    results[i] = await run.bash(f"echo {i} >> many.txt; echo {i}")

                async with anyio.create_task_group() as tg:
                    for i in range(20):
                        tg.start_soon(call, i)
                for i, r in results.items():
                    assert not r.is_error and text_of(r) == f"{i}\n", (i, r)
                r = await run.bash("sort -n many.txt")
                assert text_of(r) == "".join(f"{i}\n" for i in range(20)), text_of(r)

            await run.step("calls sent at once each get their own answer", concurrent_calls)
            run.session = None


async def restricted_policy(run: Run) -> None:
    root = run.fresh_root("restricted")
    # Enough to sort for well over the deadline.
    (root / "big.txt").write_text("".join(f"{i}\n" for i in range(1_000_000, 0, -1)))
    policy = run.work / "policy.toml"
    policy.write_text(
        'deny_commands = ["rm"]\nundo = false\n\n'
        "[limits]\nrequest_bytes = 1000\ndeadline_ms = 20\n"
    )
    expected_describe = run.describe(root, "--policy", str(policy))
    async with stdio_client(run.params(root, "--policy", str(policy))) as (read, write):
        async with ClientSession(read, write) as session:

            async def tools() -> None:
                with anyio.fail_after(CALL_TIMEOUT):
                    await session.initialize()
                    listed = await session.list_tools()
                assert [t.name for t in listed.tools] == ["bash"], listed.tools
                assert listed.tools[0].description == expected_describe
                assert "undo" not in expected_describe and "rm," not in expected_describe

            await run.step("a policy without rm and undo: only the bash tool", tools)

            async def denied() -> None:
                r = await run.bash("rm hello.txt", session)
                assert r.structured_content["stderr"] == "bash: line 1: rm: command not found\n"
                assert (root / "hello.txt").exists()
                for tool in ["undo", "trash_list"]:
                    try:
                        with anyio.fail_after(CALL_TIMEOUT):
                            r = await session.call_tool(tool, {})
                    except MCPError as e:
                        assert e.code == -32602, e.error
                    else:
                        raise AssertionError(f"{tool} answered under this policy: {r!r}")

            await run.step("denied tools are unknown; rm is command not found", denied)

            async def too_long() -> None:
                r = await run.bash("echo " + "x" * 2000, session)
                assert r.is_error is True, r
                assert "2005 bytes" in text_of(r) and "request_bytes" in text_of(r), text_of(r)
                assert r.structured_content is None, r
                r = await run.bash("echo " + "x" * 900, session)
                assert text_of(r) == "x" * 900 + "\n", text_of(r)[:80]

            await run.step("a command longer than request_bytes is a tool error", too_long)

            async def deadline() -> None:
                r = await run.bash("sort big.txt | sort -r | sort -n | sort -r | wc -l", session)
                sc = r.structured_content
                assert sc["timed_out"] is True and sc["exit_code"] == 124, sc
                assert r.is_error is True, r
                assert "time limit of 20 ms" in sc["stderr"], sc["stderr"]
                assert text_of(r).endswith("[exit code: 124]\n"), text_of(r)
                r = await run.bash("pwd", session)
                assert text_of(r) == f"{MOUNT}\n", text_of(r)

            await run.step("the policy's deadline stops a call: 124, timed_out", deadline)


async def modern_lifecycle(run: Run) -> None:
    root = run.fresh_root("modern")
    async with stdio_client(run.params(root)) as (read, write):
        async with ClientSession(read, write) as session:

            async def discover() -> None:
                with anyio.fail_after(CALL_TIMEOUT):
                    found = await session.discover()
                assert session.protocol_version == "2026-07-28", session.protocol_version
                assert "2026-07-28" in found.supported_versions, found
                r = await run.bash("cd src && ls", session)
                assert text_of(r) == "lib.rs\nmain.rs\n", text_of(r)
                r = await run.bash("pwd", session)
                assert text_of(r) == f"{MOUNT}/src\n", text_of(r)

            await run.step("the 2026-07-28 lifecycle (server/discover) works too", discover)


async def main() -> None:
    if len(sys.argv) != 3:
        sys.exit("usage: client_test.py TRUMANSH_BINARY FIXTURE_TREE")
    binary = Path(sys.argv[1]).resolve()
    fixture = Path(sys.argv[2]).resolve()
    with tempfile.TemporaryDirectory(prefix="trumansh-mcp-") as work:
        run = Run(binary, fixture, Path(work))
        try:
            await main_session(run)
            await restricted_policy(run)
            await modern_lifecycle(run)
        except BaseException as e:  # a StepFailed, possibly inside an exception group
            print(f"{run.passed} passed, 1 failed", flush=True)
            if not isinstance(e, StepFailed) and not _holds_step_failed(e):
                traceback.print_exc()
            sys.exit(1)
        print(f"{run.passed} passed, 0 failed", flush=True)


def _holds_step_failed(e: BaseException) -> bool:
    if isinstance(e, StepFailed):
        return True
    return isinstance(e, BaseExceptionGroup) and any(_holds_step_failed(x) for x in e.exceptions)


if __name__ == "__main__":
    anyio.run(main)
