//! grep's bounds (issue 15): long and many `-F`/`-f` patterns run on a multi-pattern
//! automaton in time linear in the input, and a grep that runs long stops at the line's
//! deadline with the shell's one message, the session going on.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::common::{assert_alive, assert_stops_at_deadline, err, session};
use trumansh::Outcome;

fn tree() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap().join("root");
    fs::create_dir_all(&root).unwrap();
    (tmp, root)
}

const DEADLINE: &str =
    "bash: line 1: time limit of 2 s for one command line exceeded; the command was stopped\n";

/// Either the answer, or the deadline's message and status 124: never past the deadline.
fn answers_or_stops(r: &Outcome, line: &str, want: &[u8], took: Duration) {
    if r.status == 124 {
        assert_eq!(err(r), DEADLINE, "{line}");
    } else {
        assert_eq!(
            (r.status, r.stdout.as_slice()),
            (0, want),
            "{line}: {}",
            err(r)
        );
    }
    assert!(took < Duration::from_secs(4), "{line}: {took:?}");
}

#[test]
fn a_40000_character_pattern_answers_within_the_deadline() {
    let (_tmp, root) = tree();
    // One 40,000-character line, periodic (the worst case of a DFA's construction), used as
    // its own pattern; and 10,000 patterns against 20,000 lines.
    let long: Vec<u8> = (0..40_000usize)
        .map(|i| b"abcdefghij"[i * 7 % 10])
        .collect();
    fs::write(root.join("p"), &long).unwrap();
    let mut many = String::new();
    for i in 0..10_000 {
        writeln!(many, "w{i}x").unwrap();
    }
    fs::write(root.join("many"), many).unwrap();
    let mut text = String::new();
    for i in 0..20_000 {
        writeln!(text, "line w{i}x end").unwrap();
    }
    fs::write(root.join("text"), text).unwrap();
    let mut s = session(&root, "[limits]\ndeadline_ms = 2000\n");
    for (line, want) in [
        ("grep -c -F -f p p", "1\n"),
        ("grep -c -f p p", "1\n"),
        ("grep -ci -F -f p p", "1\n"),
        ("grep -cw -F -f p p", "1\n"),
        ("grep -cx -F -f p p", "1\n"),
        ("grep -co -F -f p p", "1\n"),
        ("grep -c -F -f many text", "10000\n"),
        ("grep -cw -F -f many text", "10000\n"),
        ("grep -ci -f many text", "10000\n"),
    ] {
        let start = Instant::now();
        let r = s.run(line);
        answers_or_stops(&r, line, want.as_bytes(), start.elapsed());
        assert_alive(&mut s);
    }
}

#[test]
fn a_long_grep_stops_at_the_deadline() {
    let (_tmp, root) = tree();
    fs::write(root.join("a.txt"), b"x\n").unwrap();
    let mut s = session(&root, "[limits]\ndeadline_ms = 300\n");
    for line in [
        // An endless stdin: grep's read loop polls the deadline.
        "yes | grep -c y",
        "yes | grep -vc y",
        "yes abcdefghij | grep -F -f a.txt -c",
        "yes | grep -n y | grep -c x",
    ] {
        assert_stops_at_deadline(&mut s, line);
    }
}
