//! `trumansh mcp` driven over pipes with raw JSON-RPC lines: the end of stdin ends the
//! process with status 0, calls written at once run in the order they arrive, garbage and
//! malformed requests do not stop the server, and stdout carries nothing but JSON-RPC. (The
//! official Python client drives it in `tests/mcp/client_test.py`.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(30);

/// A `trumansh mcp` process (`common::Piped`) with this protocol's methods.
type Server = common::Piped<Mcp>;

/// Marks `trumansh mcp`'s methods on `common::Piped`.
struct Mcp;

impl Server {
    fn start(root: &Path, extra: &[&str]) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_trumansh"));
        command
            .arg("mcp")
            .arg("--root")
            .arg(root)
            .args(["--mount-point", "/home/user"])
            .args(extra);
        common::spawn_piped(command)
    }

    fn send(&mut self, lines: &[Value]) {
        let mut text = String::new();
        for l in lines {
            text.push_str(&l.to_string());
            text.push('\n');
        }
        self.send_raw(&text);
    }

    fn send_raw(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// The next message on stdout (every line must be a JSON-RPC 2.0 message).
    fn next(&self) -> Value {
        let line = self.lines.recv_timeout(WAIT).expect("no answer in time");
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        assert_eq!(v["jsonrpc"], "2.0", "{v}");
        v
    }

    /// The answers to the requests `ids`, whatever order they come in.
    fn answers(&self, ids: &[u64]) -> Vec<Value> {
        let mut got: Vec<Option<Value>> = vec![None; ids.len()];
        while got.iter().any(Option::is_none) {
            let v = self.next();
            let id = v["id"].as_u64().unwrap_or_else(|| panic!("no id: {v}"));
            let i = ids.iter().position(|&x| x == id).unwrap();
            assert!(got[i].is_none(), "two answers to {id}");
            got[i] = Some(v);
        }
        got.into_iter().map(Option::unwrap).collect()
    }

    fn initialize(&mut self) -> Value {
        self.send(&[json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"}
            }
        })]);
        let init = self.next();
        self.send(&[json!({"jsonrpc": "2.0", "method": "notifications/initialized"})]);
        init
    }

    /// Closes stdin and waits for the exit status.
    fn finish(mut self) -> (i32, String) {
        drop(self.stdin.take());
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let mut err = String::new();
                std::io::Read::read_to_string(self.child.stderr.as_mut().unwrap(), &mut err)
                    .unwrap();
                return (status.code().unwrap_or(-1), err);
            }
            assert!(
                start.elapsed() < WAIT,
                "the server did not exit at the end of stdin"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn call(id: u64, command: &str) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "bash", "arguments": {"command": command}}
    })
}

fn basic_tree() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("hello.txt"), "hello\n").unwrap();
    (dir, root)
}

#[test]
fn the_end_of_stdin_ends_the_server_with_status_0() {
    let (_dir, root) = basic_tree();
    // Before the handshake.
    let server = Server::start(&root, &[]);
    assert_eq!(server.finish(), (0, String::new()));
    // After it, with a call answered.
    let mut server = Server::start(&root, &[]);
    let init = server.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], "trumansh", "{init}");
    assert_eq!(
        init["result"]["serverInfo"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    server.send(&[call(1, "echo hi > a.txt; cat a.txt")]);
    let v = server.next();
    assert_eq!(v["result"]["content"][0]["text"], "hi\n", "{v}");
    assert_eq!(server.finish(), (0, String::new()));
    // A call still waiting when stdin ends is answered, and its line committed.
    let mut server = Server::start(&root, &[]);
    server.initialize();
    server.send(&[call(1, "mkdir late")]);
    let (status, _) = server.finish();
    assert_eq!(status, 0);
    assert!(root.join("late").is_dir());
}

#[test]
fn calls_written_at_once_run_in_the_order_they_arrive() {
    let (_dir, root) = basic_tree();
    let mut server = Server::start(&root, &[]);
    server.initialize();
    let calls: Vec<Value> = (1..=30)
        .map(|i| call(i, &format!("echo {i} >> order.txt; cd /home/user")))
        .collect();
    server.send(&calls);
    let ids: Vec<u64> = (1..=30).collect();
    for v in server.answers(&ids) {
        assert_eq!(v["result"]["isError"], false, "{v}");
    }
    server.send(&[call(31, "cat order.txt")]);
    let v = server.next();
    let expected: String = (1..=30).map(|i| i.to_string() + "\n").collect();
    assert_eq!(v["result"]["structuredContent"]["stdout"], expected);
    assert_eq!(server.finish().0, 0);
}

#[test]
fn garbage_and_malformed_requests_do_not_stop_the_server() {
    let (_dir, root) = basic_tree();
    let mut server = Server::start(&root, &[]);
    server.initialize();
    server.send(&[call(1, "cd /home/user && export X=kept")]);
    server.next();
    // Not JSON: ignored (there is no id to answer).
    server.send_raw("this is not json\n{\"unterminated\": \n\n");
    // JSON, but not a request: an Invalid Request error.
    server.send(&[json!([1, 2, 3])]);
    let v = server.next();
    assert_eq!(v["error"]["code"], -32600, "{v}");
    // tools/call without a name.
    server.send(&[json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {}})]);
    let v = server.next();
    assert_eq!(v["id"], 2, "{v}");
    assert!(v["error"]["code"].is_i64(), "{v}");
    // An unknown method, an unknown tool.
    server.send(&[
        json!({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
               "params": {"name": "python", "arguments": {}}}),
    ]);
    let [unknown_method, unknown_tool] = <[Value; 2]>::try_from(server.answers(&[3, 4])).unwrap();
    assert_eq!(unknown_method["error"]["code"], -32601, "{unknown_method}");
    assert_eq!(unknown_tool["error"]["code"], -32602, "{unknown_tool}");
    // Bad arguments: tool errors the model can read.
    server.send(&[
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
               "params": {"name": "bash", "arguments": {"command": ["ls"]}}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
               "params": {"name": "undo", "arguments": {"count": -1}}}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
               "params": {"name": "trash_list", "arguments": {"all": true}}}),
    ]);
    for v in server.answers(&[5, 6, 7]) {
        assert_eq!(v["result"]["isError"], true, "{v}");
        assert!(v["result"].get("structuredContent").is_none(), "{v}");
        let text = v["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("argument"), "{text}");
    }
    // The session is still the same one.
    server.send(&[call(8, "echo $X")]);
    let v = server.next();
    assert_eq!(v["result"]["content"][0]["text"], "kept\n", "{v}");
    assert_eq!(server.finish(), (0, String::new()));
}

#[test]
fn a_cancelled_call_that_has_not_started_does_not_run() {
    let (_dir, root) = basic_tree();
    let lines: String = (1..=300_000).rev().map(|i| i.to_string() + "\n").collect();
    std::fs::write(root.join("big.txt"), lines).unwrap();
    let mut server = Server::start(&root, &[]);
    server.initialize();
    // A slow call, one queued behind it, and the cancellation of the queued one, at once.
    server.send(&[
        call(
            1,
            "sort big.txt | sort -r | sort -n | sort -r | sort -n | wc -l",
        ),
        call(2, "mkdir cancelled"),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": 2, "reason": "test"}}),
        call(3, "ls -d cancelled"),
    ]);
    // No answer for the cancelled call: the first two answers are those of 1 and 3.
    let answers = server.answers(&[1, 3]);
    assert_eq!(
        answers[0]["result"]["structuredContent"]["stdout"],
        "300000\n"
    );
    assert_eq!(
        answers[1]["result"]["structuredContent"]["stderr"],
        "ls: cannot access 'cancelled': No such file or directory\n"
    );
    assert!(!root.join("cancelled").exists());
    assert_eq!(server.finish().0, 0);
}

#[test]
fn the_tools_follow_the_policy_and_the_options() {
    let (dir, root) = basic_tree();
    let policy = dir.path().join("policy.toml");
    std::fs::write(&policy, "deny_commands = [\"rm\"]\n").unwrap();
    let mut server = Server::start(&root, &["--policy", policy.to_str().unwrap(), "--atomic"]);
    let init = server.initialize();
    let describe = Command::new(env!("CARGO_BIN_EXE_trumansh"))
        .arg("--root")
        .arg(&root)
        .args(["--mount-point", "/home/user", "--atomic", "--policy"])
        .arg(&policy)
        .arg("--describe")
        .output()
        .unwrap();
    let describe = String::from_utf8(describe.stdout).unwrap();
    assert!(describe.contains("atomic"), "{describe}");
    assert_eq!(init["result"]["instructions"], describe.as_str());
    server.send(&[json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})]);
    let v = server.next();
    let tools = v["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["bash", "undo"]);
    assert_eq!(tools[0]["description"], describe.as_str());
    assert_eq!(tools[0]["annotations"]["readOnlyHint"], false);
    // --atomic: a failing line is rolled back.
    server.send(&[call(2, "mkdir made && cat nope")]);
    let v = server.next();
    assert_eq!(v["result"]["structuredContent"]["rolled_back"], 1, "{v}");
    assert!(!root.join("made").exists());
    assert_eq!(server.finish().0, 0);
}

#[test]
fn a_root_that_cannot_be_opened_is_a_setup_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("missing"), &[]);
    let (status, err) = server.finish();
    assert_eq!(status, 2);
    assert!(
        err.starts_with("trumansh: cannot open root") && err.ends_with('\n'),
        "{err}"
    );
    // Options that do not go with mcp.
    let out = Command::new(env!("CARGO_BIN_EXE_trumansh"))
        .args(["-c", "ls", "mcp"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with mcp"));
}

#[test]
fn record_writes_each_call_as_a_step_that_replays() {
    let (dir, root) = basic_tree();
    let tree = dir.path().join("tree");
    let status = Command::new("cp")
        .arg("-a")
        .arg(&root)
        .arg(&tree)
        .status()
        .unwrap();
    assert!(status.success());
    let record = dir.path().join("mcp.transcript");
    let mut s = Server::start(&root, &["--record", record.to_str().unwrap()]);
    s.initialize();
    s.send(&[
        call(1, "mkdir d && cd d && pwd"),
        call(2, "cat ../hello.txt nope"),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "undo", "arguments": {}}}),
    ]);
    s.answers(&[1, 2, 3]);
    let (status, err) = s.finish();
    assert_eq!(status, 0, "{err}");
    let text = std::fs::read_to_string(&record).unwrap();
    assert_eq!(
        text,
        "# trumansh transcript v1 mount-point=/home/user errors=script:bash lines=each\n\
         $ mkdir d && cd d && pwd\n/home/user/d\n\
         $ cat ../hello.txt nope\nhello\n[stderr] cat: nope: No such file or directory\n[exit 1]\n\
         $ undo 1\nundone: mkdir d && cd d && pwd (1 change)\n"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_trumansh"))
        .arg("replay")
        .arg(&record)
        .arg("--root")
        .arg(&tree)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
