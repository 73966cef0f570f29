//! The binary's front ends: line mode over a pipe (each command answered before the next is
//! sent), `-c`, a script file, exit statuses, and the REPL-free defaults.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn trumansh(root: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_trumansh"));
    c.arg("--root")
        .arg(root)
        .arg("--mount-point")
        .arg("/home/user");
    c
}

fn run(root: &Path, args: &[&str], stdin: &str) -> (String, String, i32) {
    let mut child = trumansh(root)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn line_mode_answers_each_command_before_the_next_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = trumansh(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let ask = |stdin: &mut std::process::ChildStdin, cmd: &str| {
        stdin.write_all(cmd.as_bytes()).unwrap();
        stdin.flush().unwrap();
        rx.recv_timeout(Duration::from_secs(10))
            .expect("an answer while stdin is still open")
    };
    assert_eq!(ask(&mut stdin, "echo one\n"), "one");
    assert_eq!(ask(&mut stdin, "mkdir d && cd d && pwd\n"), "/home/user/d");
    // A here-document is answered once its delimiter line arrives.
    stdin.write_all(b"cat <<EOF\n").unwrap();
    stdin.flush().unwrap();
    assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
    assert_eq!(ask(&mut stdin, "body\nEOF\n"), "body");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn exit_status_is_the_last_status_or_exits_argument() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run(dir.path(), &[], "true\nfalse\n").2, 1);
    assert_eq!(run(dir.path(), &[], "false\ntrue\n").2, 0);
    let (out, _, status) = run(dir.path(), &[], "echo a\nexit 7\necho never\n");
    assert_eq!((out.as_str(), status), ("a\n", 7));
    assert_eq!(run(dir.path(), &[], "nosuch\n").2, 127);
}

#[test]
fn line_mode_goes_on_after_a_syntax_error() {
    let dir = tempfile::tempdir().unwrap();
    let (out, err, status) = run(dir.path(), &[], "echo a; ;;\necho after\n");
    assert_eq!(out, "after\n");
    assert_eq!(
        err,
        "bash: line 1: syntax error near unexpected token `;;'\nbash: line 1: `echo a; ;;'\n"
    );
    assert_eq!(status, 0);
}

#[test]
fn dash_c_runs_a_script_as_bash_does() {
    let dir = tempfile::tempdir().unwrap();
    let (out, err, status) = run(
        dir.path(),
        &["-c", "echo hi > f.txt; cat f.txt\ncd nope\necho $?"],
        "echo ignored-stdin\n",
    );
    assert_eq!(out, "hi\n1\n");
    assert_eq!(err, "bash: line 2: cd: nope: No such file or directory\n");
    assert_eq!(status, 0);
    // bash -c stops at a syntax error.
    let (out, _, status) = run(dir.path(), &["-c", "echo a\necho ;;\necho b"], "");
    assert_eq!((out.as_str(), status), ("a\n", 2));
}

#[test]
fn a_script_file_is_named_in_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let script = dir.path().join("s.sh");
    std::fs::write(&script, "echo one\ncd nope\n").unwrap();
    let script_arg = script.to_string_lossy().into_owned();
    let (out, err, status) = run(&root, &[&script_arg], "");
    assert_eq!(out, "one\n");
    assert_eq!(
        err,
        format!("{script_arg}: line 2: cd: nope: No such file or directory\n")
    );
    assert_eq!(status, 1);
}

#[test]
fn commands_never_read_the_sessions_own_input() {
    // `cat` with no operand reads an empty stdin: the next line is a command, not data.
    let dir = tempfile::tempdir().unwrap();
    let (out, _, status) = run(dir.path(), &[], "cat\necho next\n");
    assert_eq!((out.as_str(), status), ("next\n", 0));
}

#[test]
fn the_state_dir_is_created_hidden_or_where_asked() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let (out, _, _) = run(&root, &[], "touch a\nrm a\nls -A\n");
    assert_eq!(out, "");
    assert!(root.join(".trash/trash").is_dir());
    let root2 = dir.path().join("root2");
    std::fs::create_dir(&root2).unwrap();
    let state = dir.path().join("state");
    let state_arg = state.to_string_lossy().into_owned();
    let (out, _, _) = run(
        &root2,
        &["--state-dir", &state_arg],
        "touch b\nrm b\nls -A\n",
    );
    assert_eq!(out, "");
    assert!(!root2.join(".trash").exists());
    assert_eq!(std::fs::read_dir(state.join("trash")).unwrap().count(), 1);
}
