//! Syntax errors and end-of-file cases, each fed alone to real bash's stdin and to a fresh
//! trumansh session in line mode: stderr and status must match byte for byte. (Transcripts
//! cannot hold more than one of these: bash stops reading a script at its first syntax error.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::process::Command;

use crate::common;

use trumansh::transcript::Chunks;
use trumansh::{Captured, Config, Session};

const INPUTS: &[&str] = &[
    "echo a; ;; echo b\n",
    "echo |\n",
    "| echo x\n",
    "echo >\n",
    "echo a && && echo b\n",
    "echo \"unterminated\n",
    "echo 'x\n",
    "cat <<EOF\n",
    "cat <<EOF\nx\n",
    "echo )\n",
    "echo (\n",
    ";\n",
    "&&\n",
    "echo a;;\n",
    "echo ${\n",
    "echo ${x\n",
    "echo ${x!}\n",
    "echo a >& \n",
    "echo a > > b\n",
    "echo \\\n",
    "x=1 |\n",
    "echo ok &&\n",
    "echo ok ||\n",
    "echo a\necho b; ;;\n",
    "echo a |\n| cat\n",
];

fn bash(input: &str) -> (Vec<u8>, Vec<u8>, i32) {
    let dir = tempfile::tempdir().unwrap();
    let mut command = Command::new("bash");
    command
        .current_dir(dir.path())
        .env_clear()
        .env("LC_ALL", "C")
        .env("PATH", trumansh::session::PATH);
    let mut child = common::spawn_with_pipes(&mut command);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (out.stdout, out.stderr, out.status.code().unwrap_or(-1))
}

/// Line mode as the binary runs it: chunk by chunk, stopping where bash stops.
fn trumansh(input: &str) -> (Vec<u8>, Vec<u8>, i32) {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::new(Config::new(dir.path())).unwrap();
    let mut sink = Captured::default();
    let mut status = 0;
    for chunk in Chunks::new(input.as_bytes()) {
        status = session.run_input(&chunk.text, chunk.first_line, &mut sink);
        if status == 2 && sink.stderr.windows(6).any(|w| w == b"syntax") {
            break;
        }
    }
    (sink.stdout, sink.stderr, status)
}

#[test]
fn syntax_errors_match_bash() {
    let mut failures = Vec::new();
    for input in INPUTS {
        let theirs = bash(input);
        let ours = trumansh(input);
        if theirs != ours {
            failures.push(format!(
                "{input:?}\n  bash:     {:?} {:?} {}\n  trumansh: {:?} {:?} {}",
                String::from_utf8_lossy(&theirs.0),
                String::from_utf8_lossy(&theirs.1),
                theirs.2,
                String::from_utf8_lossy(&ours.0),
                String::from_utf8_lossy(&ours.1),
                ours.2,
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
