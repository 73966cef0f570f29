//! The JSON-lines protocol (`trumansh --json`), driven through the binary over pipes: the
//! shapes (every request and response checked against `docs/protocol.schema.json`), state
//! across requests, stdin and deadlines per request, lossless bytes, malformed and huge
//! requests, an interrupted stream, and concurrent sessions in separate processes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use crate::common;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

/// The schema with its root switched to one of its definitions.
fn schema_for(def: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/protocol.schema.json"),
    )
    .unwrap();
    let mut schema: Value = serde_json::from_str(&text).unwrap();
    let root = schema.as_object_mut().unwrap();
    root.remove("oneOf");
    root.insert("$ref".into(), format!("#/$defs/{def}").into());
    jsonschema::validator_for(&schema).unwrap()
}

fn assert_valid(def: &str, value: &Value) {
    let v = schema_for(def);
    let errors: Vec<String> = v.iter_errors(value).map(|e| e.to_string()).collect();
    assert!(
        errors.is_empty(),
        "{value} is not a valid {def}: {errors:?}"
    );
}

fn assert_invalid(def: &str, value: &Value) {
    assert!(
        !schema_for(def).is_valid(value),
        "{value} should not be a valid {def}"
    );
}

/// A `trumansh --json` process (`common::Piped`) with this protocol's methods.
type Server = common::Piped<Json>;

/// Marks `trumansh --json`'s methods on `common::Piped`.
struct Json;

impl Server {
    fn start(root: &Path, extra: &[&str]) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_trumansh"));
        command
            .arg("--root")
            .arg(root)
            .args(["--mount-point", "/home/user", "--json"])
            .args(extra);
        common::spawn_piped(command)
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// The next response line, parsed and checked against the schema.
    fn recv(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .expect("a response within 30 s");
        let v: Value = serde_json::from_str(&line).unwrap();
        if v.get("error").is_some() {
            assert_valid("error_response", &v);
        } else {
            assert_valid("response", &v);
        }
        v
    }

    /// Sends a request (checked against the schema) and waits for its response.
    fn ask(&mut self, request: &Value) -> Value {
        assert_valid("request", request);
        let mut line = request.to_string().into_bytes();
        line.push(b'\n');
        self.send_raw(&line);
        let response = self.recv();
        assert_eq!(response["id"], request["id"], "ids match");
        response
    }

    /// Closes stdin and returns the exit status; no more responses may come.
    fn finish(mut self) -> i32 {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap().code().unwrap_or(-1);
        assert!(
            self.lines.recv_timeout(Duration::from_secs(5)).is_err(),
            "no response after the end"
        );
        status
    }
}

/// Asserts an error response with this code and a message containing `text`.
fn assert_error(r: &Value, code: &str, text: &str) {
    assert_eq!(r["error"]["code"], code, "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(text),
        "{message:?} should contain {text:?}"
    );
}

fn cmd(id: u64, command: &str) -> Value {
    json!({"id": id, "command": command})
}

#[test]
fn a_session_keeps_its_state_and_reports_each_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    let mut s = Server::start(dir.path(), &[]);
    let r = s.ask(&cmd(1, "cd docs && X=42"));
    assert_eq!(r["exit_code"], 0);
    assert_eq!(r["cwd"], "/home/user/docs");
    let r = s.ask(&cmd(2, "pwd; echo $X"));
    assert_eq!(r["stdout"], "/home/user/docs\n42\n");
    assert_eq!(r["effects"], json!([]));
    // Effects, in order, with the agent's paths.
    let r = s.ask(&cmd(3, "mkdir d && echo hi > d/a && mv d/a d/b && rm d/b"));
    assert_eq!(
        r["effects"],
        json!([
            {"op": "create_dir", "path": "/home/user/docs/d"},
            {"op": "write", "path": "/home/user/docs/d/a", "bytes": 3},
            {"op": "rename", "path": "/home/user/docs/d/a", "to": "/home/user/docs/d/b"},
            {"op": "trash", "path": "/home/user/docs/d/b"},
        ])
    );
    let r = s.ask(&cmd(4, "undo"));
    assert_eq!(r["effects"][0]["op"], "undo");
    assert_eq!(r["effects"][0]["changes"], 4);
    // bash's messages and statuses, `bash -c` style (line 1 each time).
    let r = s.ask(&cmd(5, "cat /etc/passwd"));
    assert_eq!(r["stderr"], "cat: /etc/passwd: No such file or directory\n");
    assert_eq!(r["exit_code"], 1);
    let r = s.ask(&cmd(6, "python3 -c 1"));
    assert_eq!(r["stderr"], "bash: line 1: python3: command not found\n");
    assert_eq!(r["exit_code"], 127);
    // A multi-line request: a here-document.
    let r = s.ask(&cmd(7, "cat > h.txt <<'EOF'\none\n$two\nEOF\ncat h.txt"));
    assert_eq!(r["stdout"], "one\n$two\n");
    // ids of any JSON type are echoed; a missing id answers null.
    for id in [json!("abc"), json!(null), json!({"k": [1]}), json!(1.5)] {
        let r = s.ask(&json!({"id": id, "command": "true"}));
        assert_eq!(r["id"], id);
    }
    let r = s.ask(&json!({"command": "true"}));
    assert_eq!(r["id"], Value::Null);
    // exit: answered, then the process ends with that status and reads no more.
    let r = s.ask(&cmd(8, "exit 7"));
    assert_eq!(r["exited"], true);
    assert_eq!(r["exit_code"], 7);
    let _ = s
        .stdin
        .as_mut()
        .unwrap()
        .write_all(b"{\"id\":9,\"command\":\"ls\"}\n");
    assert_eq!(s.finish(), 7);
}

#[test]
fn stdin_and_timeout_are_per_request() {
    let dir = tempfile::tempdir().unwrap();
    for d in 0..40 {
        let sub = dir.path().join(format!("many/d{d}"));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..100 {
            std::fs::write(sub.join(format!("f{f}")), "lorem ipsum\n".repeat(500)).unwrap();
        }
    }
    let mut s = Server::start(dir.path(), &[]);
    let r = s.ask(&json!({"id": 1, "command": "sort | uniq -c", "stdin": "b\na\nb\n"}));
    assert_eq!(r["stdout"], "      1 a\n      2 b\n");
    let r = s.ask(&json!({"id": 2, "command": "cat"}));
    assert_eq!(r["stdout"], "", "without stdin, commands read an empty one");
    let r = s.ask(&json!({"id": 3, "command": "grep -r zzz many; echo after", "timeout_ms": 20}));
    assert_eq!(r["exit_code"], 124);
    assert_eq!(r["timed_out"], true);
    assert_eq!(
        r["stderr"],
        "bash: line 1: time limit of 20 ms for one command line exceeded; the command was stopped\n"
    );
    let r = s.ask(&cmd(4, "echo alive"));
    assert_eq!(r["stdout"], "alive\n");
    assert_eq!(r["timed_out"], false);
    assert_eq!(s.finish(), 0);
}

#[test]
fn bytes_that_are_not_utf8_travel_as_base64() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Server::start(dir.path(), &[]);
    let name = b"caf\xe9.txt";
    let mut line = b"echo x > ".to_vec();
    line.extend_from_slice(name);
    line.extend_from_slice(b"; ls; cat");
    let r = s.ask(&json!({
        "id": 1,
        "command_base64": STANDARD.encode(&line),
        "stdin_base64": STANDARD.encode(b"\xff\x00\xfe"),
    }));
    let mut expected = name.to_vec();
    expected.extend_from_slice(b"\n\xff\x00\xfe");
    assert_eq!(
        STANDARD
            .decode(r["stdout_base64"].as_str().unwrap())
            .unwrap(),
        expected
    );
    assert_eq!(r["stdout"], String::from_utf8_lossy(&expected).as_ref());
    let effect = &r["effects"][0];
    assert_eq!(effect["op"], "write");
    let mut path = b"/home/user/".to_vec();
    path.extend_from_slice(name);
    assert_eq!(
        STANDARD
            .decode(effect["path_base64"].as_str().unwrap())
            .unwrap(),
        path
    );
    // UTF-8 output has no base64 sibling; a NUL is a plain JSON escape.
    let r = s.ask(&json!({"id": 2, "command": "cat", "stdin": "é\u{0}\n"}));
    assert_eq!(r["stdout"], "é\u{0}\n");
    assert!(r.get("stdout_base64").is_none());
    // A cwd that is not UTF-8.
    let line = b"mkdir d\xe9 && cd d\xe9";
    let r = s.ask(&json!({"id": 3, "command_base64": STANDARD.encode(line)}));
    assert_eq!(r["exit_code"], 0, "{r}");
    let cwd = STANDARD.decode(r["cwd_base64"].as_str().unwrap()).unwrap();
    assert_eq!(cwd, b"/home/user/d\xe9");
    // Raw bytes that are not UTF-8 in the request line itself: a typed error, then on.
    s.send_raw(b"{\"id\":4,\"command\":\"echo \xff\"}\n");
    let r = s.recv();
    assert_error(&r, "parse_error", "command_base64");
    let r = s.ask(&cmd(5, "echo ok"));
    assert_eq!(r["stdout"], "ok\n");
    assert_eq!(s.finish(), 0);
}

#[test]
fn malformed_requests_get_typed_errors_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    let mut s = Server::start(dir.path(), &[]);
    s.ask(&cmd(1, "cd d; Y=1"));
    let cases: &[(&[u8], &str, Value, &str)] = &[
        (b"not json", "parse_error", Value::Null, "not valid JSON"),
        (
            b"{\"id\":1,\"command\":\"ls\"",
            "parse_error",
            Value::Null,
            "not complete JSON",
        ),
        (
            b"[1,2]",
            "invalid_request",
            Value::Null,
            "must be a JSON object, not an array",
        ),
        (b"\"ls\"", "invalid_request", Value::Null, "not a string"),
        (
            b"{\"id\":2}",
            "invalid_request",
            json!(2),
            "missing field \"command\"",
        ),
        (
            b"{\"id\":3,\"command\":5}",
            "invalid_request",
            json!(3),
            "\"command\" must be a string, not a number",
        ),
        (
            b"{\"id\":4,\"cmd\":\"ls\"}",
            "invalid_request",
            json!(4),
            "unknown field \"cmd\"",
        ),
        (
            b"{\"id\":5,\"command\":\"ls\",\"command_base64\":\"bHM=\"}",
            "invalid_request",
            json!(5),
            "not both",
        ),
        (
            b"{\"id\":6,\"command_base64\":\"%%%\"}",
            "invalid_request",
            json!(6),
            "not valid base64",
        ),
        (
            b"{\"id\":7,\"command\":\"ls\",\"timeout_ms\":0}",
            "invalid_request",
            json!(7),
            "positive integer",
        ),
        (
            b"{\"id\":8,\"command\":\"ls\",\"timeout_ms\":\"5s\"}",
            "invalid_request",
            json!(8),
            "positive integer",
        ),
        (
            b"{\"id\":9,\"command\":\"ls\",\"stdin\":[1]}",
            "invalid_request",
            json!(9),
            "\"stdin\" must be a string",
        ),
        (
            b"{\"id\":10,\"command\":\"ls\"} trailing",
            "parse_error",
            Value::Null,
            "trailing characters",
        ),
    ];
    for (line, code, id, message) in cases {
        // What is not valid here is not a valid request by the schema either.
        if let Ok(v) = serde_json::from_slice::<Value>(line) {
            assert_invalid("request", &v);
        }
        let mut l = line.to_vec();
        l.push(b'\n');
        s.send_raw(&l);
        let r = s.recv();
        assert_error(&r, code, message);
        assert_eq!(r["id"], *id, "{}", String::from_utf8_lossy(line));
    }
    // Deep nesting is refused by the parser's recursion limit, not by a stack overflow.
    let deep = format!("{}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    s.send_raw(deep.as_bytes());
    let r = s.recv();
    assert_error(&r, "parse_error", "recursion limit");
    // Blank lines are skipped without an answer.
    s.send_raw(b"\n   \n");
    let r = s.ask(&cmd(11, "pwd; echo $Y"));
    assert_eq!(
        r["stdout"], "/home/user/d\n1\n",
        "state survived every bad line"
    );
    assert_eq!(s.finish(), 0);
}

#[test]
fn a_key_given_twice_is_refused() {
    // serde would keep the last `command`: a proxy that checked the first would be bypassed.
    let dir = tempfile::tempdir().unwrap();
    let mut s = Server::start(dir.path(), &[]);
    s.send_raw(b"{\"id\":1,\"command\":\"echo safe\",\"command\":\"touch pwned\"}\n");
    let r = s.recv();
    assert_eq!(r["id"], 1);
    assert_error(&r, "invalid_request", "duplicate field \"command\"");
    // The same name spelt with an escape is the same key; `stdin` twice too.
    s.send_raw(b"{\"id\":2,\"command\":\"cat\",\"stdin\":\"a\",\"st\\u0064in\":\"b\"}\n");
    let r = s.recv();
    assert_eq!(r["id"], 2);
    assert_error(&r, "invalid_request", "duplicate field \"stdin\"");
    // An id sent twice is no one id: the error answers `null`.
    s.send_raw(b"{\"id\":3,\"id\":4,\"command\":\"true\"}\n");
    let r = s.recv();
    assert_eq!(r["id"], Value::Null);
    assert_error(&r, "invalid_request", "duplicate field \"id\"");
    let r = s.ask(&cmd(5, "ls"));
    assert_eq!(r["stdout"], "", "nothing ran: {r}");
    assert_eq!(s.finish(), 0);
    assert!(!dir.path().join("pwned").exists());
}

#[test]
fn an_id_is_echoed_exactly_as_sent() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Server::start(dir.path(), &[]);
    for id in [
        "123456789012345678901234567890",
        "-0.10",
        "\"\\u00e9t\\u00e9\"",
        "[1, {\"a\" : 2.50}]",
        "18446744073709551616",
    ] {
        for body in ["\"command\":\"true\"", "\"command\":7"] {
            s.send_raw(format!("{{\"id\":{id},{body}}}\n").as_bytes());
            let line = s
                .lines
                .recv_timeout(Duration::from_secs(30))
                .expect("a response");
            assert!(
                line.starts_with(&format!("{{\"id\":{id},\"")),
                "{id}: {line}"
            );
        }
    }
    assert_eq!(s.finish(), 0);
}

#[test]
fn huge_requests_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("policy.toml");
    std::fs::write(&policy, "[limits]\nrequest_bytes = \"64K\"\n").unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let mut s = Server::start(&root, &["--policy", policy.to_str().unwrap()]);
    // Over the request limit: skipped without being held, answered, and the next one runs.
    let big = "x".repeat(10 << 20);
    let line = format!("{{\"id\":1,\"command\":\"echo {big}\"}}\n");
    s.send_raw(line.as_bytes());
    let r = s.recv();
    assert_eq!(r["error"]["code"], "request_too_large");
    assert_eq!(
        r["error"]["message"],
        format!(
            "the request is {} bytes; the limit is 64 KiB (request_bytes)",
            line.len() - 1
        )
    );
    let r = s.ask(&cmd(2, "echo next"));
    assert_eq!(r["stdout"], "next\n");
    assert_eq!(s.finish(), 0);
    // Under the default limit (64 MiB): a 5 MB stdin goes through; a command over
    // `line_bytes` (1 MiB) is bash-style refused; huge output is cut at the stdout cap.
    let mut s = Server::start(&root, &[]);
    let stdin = "y".repeat(5_000_000);
    let r = s.ask(&json!({"id": 3, "command": "wc -c", "stdin": stdin}));
    assert_eq!(r["stdout"], "5000000\n");
    let r = s.ask(&cmd(4, &format!("echo {}", "z".repeat(2 << 20))));
    assert_eq!(r["exit_code"], 2);
    assert!(r["stderr"].as_str().unwrap().contains("input too long"));
    let r = s.ask(&json!({"id": 5, "command": "cat; cat", "stdin": "w\n".repeat(1 << 20)}));
    assert_eq!(r["truncated"], true);
    assert_eq!(r["stdout"].as_str().unwrap().len(), 1 << 20);
    assert!(r["stderr"].as_str().unwrap().contains("output truncated"));
    assert_eq!(s.finish(), 0);
}

#[test]
fn an_interrupted_stream_ends_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    // A last request without its newline is still answered.
    let mut s = Server::start(dir.path(), &[]);
    s.send_raw(b"{\"id\":1,\"command\":\"echo a\"}\n{\"id\":2,\"command\":\"echo b\"}");
    assert_eq!(s.recv()["stdout"], "a\n");
    drop(s.stdin.take());
    assert_eq!(s.recv()["stdout"], "b\n");
    assert_eq!(s.finish(), 0);
    // A request cut in the middle: a parse error, then the process ends (status of the last
    // command, as bash).
    let mut s = Server::start(dir.path(), &[]);
    s.send_raw(b"{\"id\":1,\"command\":\"false\"}\n{\"id\":2,\"comm");
    assert_eq!(s.recv()["exit_code"], 1);
    drop(s.stdin.take());
    let r = s.recv();
    assert_error(&r, "parse_error", "not complete JSON");
    assert_eq!(s.finish(), 1);
    // The client stops reading: trumansh does not hang or crash.
    let mut s = Server::start(dir.path(), &[]);
    drop(std::mem::replace(&mut s.lines, mpsc::channel().1));
    for i in 0..200 {
        let line = format!("{{\"id\":{i},\"command\":\"echo {}\"}}\n", "o".repeat(1000));
        if s.stdin
            .as_mut()
            .unwrap()
            .write_all(line.as_bytes())
            .is_err()
        {
            break;
        }
    }
    drop(s.stdin.take());
    let status = s.child.wait().unwrap();
    assert!(
        status.code().is_some(),
        "ended by a status, not a signal: {status}"
    );
}

#[test]
fn concurrent_sessions_in_separate_processes_do_not_share_state() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("a")).unwrap();
    std::fs::create_dir(dir.path().join("b")).unwrap();
    let root = dir.path().to_path_buf();
    let handles: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|name| {
            let root = root.clone();
            std::thread::spawn(move || {
                let mut s = Server::start(&root, &[]);
                s.ask(&cmd(1, &format!("cd {name} && V={name}")));
                for i in 0..50 {
                    let line = format!("pwd; echo $V; echo {i} >> ../{name}.log");
                    let r = s.ask(&cmd(i + 2, &line));
                    assert_eq!(
                        r["stdout"],
                        format!("/home/user/{name}\n{name}\n"),
                        "session {name} sees only its own cwd and variables"
                    );
                }
                let r = s.ask(&cmd(99, &format!("wc -l < ../{name}.log")));
                assert_eq!(r["stdout"], "50\n");
                s.finish()
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), 0);
    }
}

#[test]
fn the_schema_describes_the_requests_of_the_docs() {
    for ok in [
        json!({"command": "ls"}),
        json!({"id": 1, "command": "ls", "stdin": "x", "timeout_ms": 5000}),
        json!({"id": "a", "command_base64": "bHM=", "stdin_base64": "eA=="}),
    ] {
        assert_valid("request", &ok);
    }
    for bad in [
        json!({}),
        json!({"id": 1}),
        json!({"command": "ls", "command_base64": "bHM="}),
        json!({"command": "ls", "stdin": "a", "stdin_base64": "YQ=="}),
        json!({"command": "ls", "timeout_ms": 0}),
        json!({"command": "ls", "extra": 1}),
    ] {
        assert_invalid("request", &bad);
    }
}

#[test]
fn a_json_session_records_a_transcript_that_replays() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    std::fs::create_dir_all(tree.join("src")).unwrap();
    std::fs::write(tree.join("src/a.txt"), "one\n").unwrap();
    let work = dir.path().join("work");
    let status = Command::new("cp")
        .arg("-a")
        .arg(&tree)
        .arg(&work)
        .status()
        .unwrap();
    assert!(status.success());
    let record = dir.path().join("session.transcript");
    let mut s = Server::start(&work, &["--record", record.to_str().unwrap()]);
    s.ask(&cmd(1, "cd src && cat a.txt"));
    s.ask(&json!({"id": 2, "command": "sort > sorted; cat sorted", "stdin": "b\na"}));
    s.ask(&cmd(3, "cat nope"));
    s.ask(&cmd(4, "cat > h <<'EOF'\n$x\nEOF"));
    assert_eq!(s.finish(), 0);
    let text = std::fs::read_to_string(&record).unwrap();
    assert_eq!(
        text,
        "# trumansh transcript v1 mount-point=/home/user errors=script:bash lines=each\n\
         $ cd src && cat a.txt\none\n\
         $ sort > sorted; cat sorted\n[stdin] b\n[stdin] a\n[no newline]\na\nb\n\
         $ cat nope\n[stderr] cat: nope: No such file or directory\n[exit 1]\n\
         $ cat > h <<'EOF'\n> $x\n> EOF\n"
    );
    let replay = |file: &Path| {
        Command::new(env!("CARGO_BIN_EXE_trumansh"))
            .arg("replay")
            .arg(file)
            .arg("--root")
            .arg(&tree)
            .output()
            .unwrap()
    };
    // The stdin is fed again: the replay gives the same output on a fresh copy of the tree.
    let out = replay(&record);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(out.stdout.is_empty());
    // A changed stdin changes the output: a diff, exit 1.
    std::fs::write(&record, text.replace("[stdin] a\n", "[stdin] c\n")).unwrap();
    let out = replay(&record);
    assert_eq!(out.status.code(), Some(1));
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(diff.contains("+c\n"), "{diff}");
}
