//! The library API: `Session::run` / `run_with` and what their `Outcome` reports (stdin,
//! deadline, effects, truncation, rollback, cwd, exit).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use trumansh::{AppliedEffect, Config, Request, Session};

fn session(dir: &Path) -> Session {
    let mut config = Config::new(dir);
    config.sandbox.mount_point = Some("/home/user".into());
    Session::new(config).unwrap()
}

#[test]
fn an_outcome_reports_output_status_cwd_and_effects() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let out = s.run("mkdir -p d/e && cd d && echo hi > a && echo more >> a && cp a b && mv b c && rm c && mkdir -m 700 m && touch t");
    assert_eq!(out.status, 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.cwd, Path::new("/home/user/d"));
    assert!(!out.truncated && !out.timed_out && out.exit.is_none());
    let p = |s: &str| PathBuf::from(s);
    assert_eq!(
        out.effects,
        vec![
            AppliedEffect::CreateDir {
                path: p("/home/user/d")
            },
            AppliedEffect::CreateDir {
                path: p("/home/user/d/e")
            },
            AppliedEffect::Write {
                path: p("/home/user/d/a"),
                bytes: 3,
                append: false
            },
            AppliedEffect::Write {
                path: p("/home/user/d/a"),
                bytes: 5,
                append: true
            },
            AppliedEffect::Copy {
                from: p("/home/user/d/a"),
                to: p("/home/user/d/b")
            },
            AppliedEffect::Rename {
                from: p("/home/user/d/b"),
                to: p("/home/user/d/c")
            },
            AppliedEffect::Trash {
                path: p("/home/user/d/c")
            },
            AppliedEffect::CreateDir {
                path: p("/home/user/d/m")
            },
            AppliedEffect::Touch {
                path: p("/home/user/d/t")
            },
        ]
    );
    // Only applied changes: a failed one is not listed, a read-only line lists nothing.
    let out = s.run("cat a; mkdir /home/user/d; ls");
    assert_eq!(out.status, 0);
    assert!(out.effects.is_empty(), "{:?}", out.effects);
    let out = s.run("undo");
    assert_eq!(out.effects.len(), 1);
    assert!(
        matches!(&out.effects[0], AppliedEffect::Undo { line, .. } if line.starts_with("mkdir -p d/e")),
        "{:?}",
        out.effects
    );
    let out = s.run("exit 3");
    assert_eq!((out.status, out.exit), (3, Some(3)));
}

#[test]
fn a_request_stdin_is_read_by_the_first_command_that_reads() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let run = |s: &mut Session, line: &str, stdin: &[u8]| {
        let out = s.run_with(&Request {
            stdin: Some(stdin),
            ..Request::new(line.as_bytes())
        });
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(run(&mut s, "cat", b"a\nb\n"), "a\nb\n");
    assert_eq!(run(&mut s, "wc -l", b"a\nb\n"), "2\n");
    // Consumed once, as a pipe is.
    assert_eq!(run(&mut s, "cat; echo --; cat", b"x\n"), "x\n--\n");
    // A pipe or redirection of the command's own wins; the first stage of a pipeline reads it.
    assert_eq!(run(&mut s, "echo own | cat", b"x\n"), "own\n");
    assert_eq!(run(&mut s, "cat <<< here", b"x\n"), "here\n");
    assert_eq!(run(&mut s, "sort | head -n 2", b"c\nb\na\n"), "a\nb\n");
    assert_eq!(
        run(&mut s, "tee f > /dev/null; cat f", b"saved\n"),
        "saved\n"
    );
    // Non-UTF-8 bytes go through untouched.
    let out = s.run_with(&Request {
        stdin: Some(b"\xff\xfe\n"),
        ..Request::new(b"cat")
    });
    assert_eq!(out.stdout, b"\xff\xfe\n");
    // Without stdin, commands read an empty one (never the host's).
    assert_eq!(s.run("cat").stdout, b"");
}

/// A tree big enough that `grep -r` over it takes longer than a few milliseconds.
fn big_tree(root: &Path) {
    for d in 0..40 {
        for f in 0..100 {
            let p = root.join(format!("many/d{d}/f{f}.txt"));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "lorem ipsum dolor sit amet\n".repeat(300)).unwrap();
        }
    }
}

#[test]
fn a_request_timeout_shortens_the_deadline_but_never_lengthens_it() {
    let dir = tempfile::tempdir().unwrap();
    big_tree(dir.path());
    let mut s = session(dir.path());
    let out = s.run_with(&Request {
        timeout: Some(Duration::from_millis(20)),
        ..Request::new(b"grep -r zzz many; echo not reached")
    });
    assert_eq!(out.status, 124);
    assert!(out.timed_out);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "bash: line 1: time limit of 20 ms for one command line exceeded; the command was stopped\n"
    );
    assert!(out.duration < Duration::from_secs(4), "{:?}", out.duration);
    // The next line has the policy's deadline again (30 s).
    let out = s.run("grep -r zzz many; echo done");
    assert_eq!(out.stdout, b"done\n");
    assert!(!out.timed_out);
    // The owner's deadline is the maximum.
    let mut config = Config::new(dir.path());
    config.policy.limits.deadline_ms = 20;
    let mut s = Session::new(config).unwrap();
    let out = s.run_with(&Request {
        timeout: Some(Duration::from_secs(60)),
        ..Request::new(b"grep -r zzz many")
    });
    assert_eq!(out.status, 124);
    assert!(out.duration < Duration::from_secs(4));
}

#[test]
fn truncation_and_rollback_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::new(dir.path());
    config.policy.limits.stdout_bytes = 10;
    config.policy.atomic = true;
    let mut s = Session::new(config).unwrap();
    let out = s.run("echo 0123456789abcdef");
    assert!(out.truncated);
    assert_eq!(out.stdout.len(), 10);
    let out = s.run("echo x > a; echo y > b; false");
    assert_eq!(out.rolled_back, 2);
    assert_eq!(out.effects.len(), 2);
    let out = s.run("ls");
    assert!(!out.truncated);
    assert_eq!(out.stdout, b"");
}

#[test]
fn a_report_lists_the_first_thousand_effects_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let out = s.run("mkdir a && cd a && touch f{1..1500}");
    assert_eq!(out.status, 0);
    assert_eq!(out.effects.len(), trumansh::MAX_EFFECTS);
    assert_eq!(out.effects_omitted, 501);
    assert_eq!(s.run("true").effects_omitted, 0);
}

/// The `command` and `effect` events of the audit log, as `command ARGV...` and
/// `OP PATH[ BYTES]` lines.
fn audited(root: &Path) -> Vec<String> {
    let log = std::fs::read_to_string(root.join(".trash/audit.jsonl")).unwrap();
    log.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter_map(|e| match e["event"].as_str()? {
            "command" => Some(format!(
                "command {}",
                e["argv"]
                    .as_array()?
                    .iter()
                    .filter_map(|w| w.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            )),
            "effect" => Some(format!(
                "{} {}{}",
                e["op"].as_str()?,
                e["path"].as_str()?.trim_start_matches("/home/user/"),
                e.get("bytes").map(|b| format!(" {b}")).unwrap_or_default()
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn the_audit_log_has_each_command_before_its_effects_and_the_bytes_redirections_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let out = s.run(
        "echo hello > a; cat a a >> b 2>&1; ls nope 2> e; echo x | tee t > u; > empty; nosuch > nf; mkdir d; echo z > no/f; echo y >> d/f",
    );
    assert_eq!(out.status, 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        audited(dir.path()),
        [
            "command echo hello",
            "write a 6",
            "command cat a a",
            "append b 12",
            "command ls nope",
            "write e 52",
            "command echo x",
            "command tee t",
            "write t 2",
            "write u 2",
            // No command: the files are still created, and nothing is written to them.
            "write empty 0",
            "write nf 0",
            "command mkdir d",
            "create_dir d",
            // A redirection that cannot be opened: its effect (nothing written), then `failed`.
            "command echo z",
            "write no/f 0",
            "command echo y",
            "append d/f 2",
        ]
    );
}

#[test]
fn a_cancelled_line_stops_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(Config::new(dir.path())).unwrap();
    let flag = s.cancel_flag();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let out = s.run("i=0; while :; do i=$((i+1)); done; echo never");
    canceller.join().unwrap();
    assert_eq!(out.status, 130);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "bash: line 1: the command was cancelled\n"
    );
    let again = s.run("echo ok");
    assert_eq!(again.status, 0);
    assert_eq!(again.stdout, b"ok\n");
}
