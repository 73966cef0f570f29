//! The audit log cannot fill the disk: after a hostile session (a huge brace argv, long lines,
//! 99,999 refused paths, many lines) it stays under its budget, each input is in it once, a
//! cut record says its true length, refusals are counted exactly, the log's bytes count in the
//! quota, and `trumansh log --tail` reads from the end and prints what a full read would.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::common::session;
use serde_json::Value;

fn tree() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap().join("root");
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join("a.txt"), b"alpha\n").unwrap();
    (tmp, root)
}

/// The log's segment files and their total size.
fn segments(root: &Path) -> (Vec<String>, u64) {
    let mut names = Vec::new();
    let mut total = 0;
    for e in fs::read_dir(root.join(".trash")).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        if name.starts_with("audit.") {
            total += e.metadata().unwrap().len();
            names.push(name);
        }
    }
    names.sort();
    (names, total)
}

/// Every record, oldest segment first.
fn records(root: &Path) -> Vec<Value> {
    let (names, _) = segments(root);
    let mut ordered: Vec<(u32, String)> = names
        .into_iter()
        .map(|n| {
            let k = n
                .strip_prefix("audit.")
                .and_then(|k| k.strip_suffix(".jsonl"))
                .map_or(0, |k| k.parse().unwrap());
            (k, n)
        })
        .collect();
    ordered.sort_by_key(|o| std::cmp::Reverse(o.0));
    let mut out = Vec::new();
    for (_, n) in ordered {
        for l in fs::read_to_string(root.join(".trash").join(n))
            .unwrap()
            .lines()
        {
            out.push(serde_json::from_str(l).unwrap());
        }
    }
    out
}

fn owner(root: &Path, args: &[&str]) -> (String, String, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_trumansh"))
        .arg("--root")
        .arg(root)
        .args(args)
        .output()
        .unwrap();
    let took = started.elapsed();
    assert!(out.status.success(), "{out:?}");
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        took,
    )
}

#[test]
fn a_hostile_session_leaves_a_bounded_log_with_each_input_once_and_exact_counts() {
    let (_tmp, root) = tree();
    // A deadline for a loaded machine running a debug build.
    let mut s = session(&root, "[limits]\ndeadline_ms = \"600s\"\n");
    // One 116-byte input expanding to 99,999 words of ~100 bytes (10 MB of argv; the issue's
    // 916 bytes made 90 MB: the same record).
    let brace = format!("true {}{{1..99999}}", "A".repeat(100));
    assert!(brace.len() < 1000);
    assert_eq!(s.run(&brace).status, 0);
    // 50 one-megabyte lines.
    let long = format!("true {}", "B".repeat(1_000_000));
    for _ in 0..50 {
        assert_eq!(s.run(&long).status, 0);
    }
    // 99,999 refused paths; how many refusals one path makes, measured alone.
    let one = s.run("cat /etc/x1 2>/dev/null");
    assert_eq!(one.status, 1);
    let r = s.run("cat /etc/x{1..99999} 2>/dev/null");
    assert_eq!(r.status, 1);
    // Many small lines that change a file.
    for i in 0..2000 {
        assert_eq!(s.run(format!("echo {i} >> fill.txt")).status, 0);
    }
    drop(s);

    let (names, total) = segments(&root);
    // All of this is far under the default budget (64 MiB): the 90 MB and 50 MB are cut.
    assert_eq!(names, ["audit.jsonl"]);
    assert!(total < 4 << 20, "{total}");
    let events = records(&root);
    let of = |kind: &str| -> Vec<&Value> { events.iter().filter(|e| e["event"] == kind).collect() };

    // Each input once: its `line` record; a command that is the line's words is not repeated.
    let lines = of("line");
    assert_eq!(lines.len(), 1 + 50 + 2 + 2000);
    assert_eq!(lines[0]["line"], brace.as_str());
    assert!(lines[0].get("line_len").is_none());
    let cut = lines[1];
    assert_eq!(cut["line_len"], long.len());
    assert!(cut["line"].as_str().unwrap().len() <= 4096);
    let commands = of("command");
    assert_eq!(commands[0]["argc"], 100_000);
    assert_eq!(
        commands[0]["argv_len"],
        4 + (1..=99_999u64)
            .map(|i| 100 + i.to_string().len() as u64)
            .sum::<u64>()
    );
    assert!(commands[0]["argv"].as_array().unwrap().len() <= 64);
    assert_eq!(commands[1]["args"], "line");
    assert_eq!(commands[1]["argv"], serde_json::json!(["true"]));
    for e in &events {
        let text = e.to_string();
        assert!(text.len() <= 32 * 1024, "{}", &text[..200]);
        // The megabyte of B's is in the log at most once per input, cut.
        assert!(!text.contains(&"B".repeat(4097)));
    }

    // Refusals: a run is one event with its exact count.
    let refused = of("refused");
    let per_path: u64 = refused
        .iter()
        .filter(|e| e["path"] == "/etc/x1" && e.get("last").is_none())
        .map(|e| e.get("count").map_or(1, |c| c.as_u64().unwrap()))
        .next()
        .unwrap();
    let run: u64 = refused
        .iter()
        .filter(|e| e.get("last").is_some_and(|l| l != "/etc/x1"))
        .map(|e| e["count"].as_u64().unwrap())
        .sum();
    let more: u64 = of("refused_more")
        .iter()
        .map(|e| e["count"].as_u64().unwrap())
        .sum();
    assert_eq!(run + more, 99_999 * per_path, "{refused:?}");
    assert!(refused.len() < 10, "{}", refused.len());
}

#[test]
fn rotation_keeps_a_long_session_under_its_budget() {
    let (_tmp, root) = tree();
    let policy = "[limits]\naudit_bytes = \"1MiB\"\naudit_segments = 4\n";
    let mut s = session(&root, policy);
    let big = format!("echo {} > f", "C".repeat(3000));
    for i in 0..3000 {
        let line = if i % 3 == 0 {
            big.clone()
        } else {
            format!("echo {i} >> fill.txt")
        };
        assert_eq!(s.run(&line).status, 0);
    }
    s.run("echo last");
    let (names, total) = segments(&root);
    assert_eq!(
        names,
        [
            "audit.1.jsonl",
            "audit.2.jsonl",
            "audit.3.jsonl",
            "audit.jsonl"
        ]
    );
    assert!(total <= 1 << 20, "{total}");
    assert!(total > 1 << 19, "{total}");
    // The log is in the usage the quota sees.
    let measured = s.sandbox().measure().bytes;
    let data = fs::metadata(root.join("fill.txt")).unwrap().len()
        + fs::metadata(root.join("f")).unwrap().len()
        + fs::metadata(root.join("a.txt")).unwrap().len();
    assert!(measured >= data + total, "{measured} < {data} + {total}");
    drop(s);
    let events = records(&root);
    let last = events.iter().rev().find(|e| e["event"] == "line").unwrap();
    assert_eq!(last["line"], "echo last");
    // Logged once: its command by the line's words.
    assert_eq!(events.last().unwrap()["args"], "line");
}

#[test]
fn the_log_cannot_eat_the_quota_past_its_share() {
    let (_tmp, root) = tree();
    // A 4 MiB quota: the log may take a quarter of it, 1 MiB.
    let mut s = session(&root, "[limits]\nwrite_quota_bytes = \"4MiB\"\n");
    let line = format!("true {}", "D".repeat(5000));
    for _ in 0..3000 {
        s.run(format!("{line} x"));
    }
    let (_, total) = segments(&root);
    assert!(total <= 1 << 20, "{total}");
    // The agent still has the rest of its quota.
    let r = s.run("yes 123456789 | head -c 2500000 > big");
    assert_eq!(r.status, 0, "{}", String::from_utf8_lossy(&r.stderr));
    let r = s.run("yes 123456789 | head -c 2000000 > big2");
    assert_ne!(r.status, 0, "the quota still holds");
}

#[test]
fn log_tail_reads_from_the_end_and_prints_what_a_full_read_would() {
    let (_tmp, root) = tree();
    let mut s = session(&root, "");
    for line in [
        "rm a.txt",
        "cat /etc/passwd",
        "ls /etc/{1..500} 2>/dev/null",
        "echo hi > b",
        "true x y",
    ] {
        s.run(line);
    }
    drop(s);
    // A big log before it: 8 MB of old records of another session.
    let log = root.join(".trash/audit.jsonl");
    let mine = fs::read(&log).unwrap();
    let old = r#"{"time":"2026-11-20T10:00:00.000Z","session":"s-old","event":"command","argv":["true","PADDING-PADDING-PADDING-PADDING-PADDING-PADDING-PADDING-PADDING"],"cwd":"/home/user"}"#;
    let mut big = Vec::with_capacity(9 << 20);
    while big.len() < 8 << 20 {
        big.extend_from_slice(old.as_bytes());
        big.push(b'\n');
    }
    big.extend_from_slice(&mine);
    fs::write(&log, &big).unwrap();
    for args in [
        &["log", "--tail", "5"][..],
        &["log", "--tail", "12"],
        &["log", "--tail", "3", "--event", "command"],
        &["log", "--tail", "2", "--json", "--event", "command,refused"],
    ] {
        let (tail, err, took) = owner(&root, args);
        assert_eq!(err, "");
        // Reading from the end is fast whatever the log's size (a generous bound).
        assert!(took < Duration::from_secs(5), "{args:?}: {took:?}");
        let n: usize = args[2].parse().unwrap();
        let mut full_args: Vec<&str> = args.to_vec();
        full_args.drain(1..3);
        let (full, _, _) = owner(&root, &full_args);
        let last: Vec<&str> = full.lines().rev().take(n).collect::<Vec<_>>();
        let last: Vec<&str> = last.into_iter().rev().collect();
        assert_eq!(tail.lines().collect::<Vec<_>>(), last, "{args:?}");
    }
    // The owner sees what ran as before, a command logged by its line's words included.
    let (tail, _, _) = owner(&root, &["log", "--tail", "12"]);
    for want in [
        "refused: /etc/1 ... /etc/500 (",
        "command: true x y (in /home/user)",
        "line: true x y",
        "refused: /etc/passwd (outside the mount point)",
    ] {
        assert!(tail.contains(want), "{want:?} in {tail}");
    }
}

/// Line mode writes the log in batches (a script of quick lines does not cost a `write(2)`
/// each), yet every record is there at the end, and the records of the lines run so far are
/// written before the session waits for more input.
#[test]
fn batched_records_are_all_written_and_written_before_input_is_awaited() {
    use std::fmt::Write as _;
    use std::io::Write;
    let (_tmp, root) = tree();
    let script = root.parent().unwrap().join("quick.sh");
    let mut body = String::new();
    for i in 0..2000 {
        writeln!(body, "echo {i} >> out.txt").unwrap();
    }
    fs::write(&script, body).unwrap();
    owner(&root, &[script.to_str().unwrap()]);
    let lines = records(&root)
        .iter()
        .filter(|r| r["event"] == "line")
        .count();
    let effects = records(&root)
        .iter()
        .filter(|r| r["event"] == "effect" && r["op"] == "append")
        .count();
    assert_eq!((lines, effects), (2000, 2000));

    // Interactive use: the line's records are in the log while the session waits.
    let mut child = super::common::spawn_piped::<()>({
        let mut c = Command::new(env!("CARGO_BIN_EXE_trumansh"));
        c.arg("--root").arg(&root);
        c
    });
    let mut stdin = child.stdin.take().unwrap();
    for i in 0..3 {
        writeln!(stdin, "echo waiting{i}").unwrap();
        stdin.flush().unwrap();
        let got = child.lines.recv_timeout(Duration::from_secs(60)).unwrap();
        assert_eq!(got, format!("waiting{i}"));
        // The session is now reading its input: the line's records were written first.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let logged = records(&root)
                .iter()
                .any(|r| r["event"] == "line" && r["line"] == format!("echo waiting{i}\n"));
            if logged {
                break;
            }
            assert!(Instant::now() < deadline, "line {i} not in the log");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    drop(stdin);
    assert!(child.child.wait().unwrap().success());
}
