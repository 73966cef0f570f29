//! Undo that never destroys (issue 11): attacks on the journal and on reverting.
//!
//! - An inverse whose object changed since the line (a host edit, another session's write,
//!   a live session writing after a dead session's line) is left, reported, and kept for a
//!   later `undo`; what undo replaces or removes goes to the trash.
//! - Concurrent `undo`s never revert one line twice; an undo killed part-way is finished at
//!   the next start.
//! - A forged or corrupt journal is refused, never acted on; undo obeys the current policy.
//! - The quota holds for several sessions on one root together.
//! - `rm` works on a full disk.
//! - `undo` reaches exactly `undo_history` lines, and the saved bytes stay within `undo_bytes`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::many_single_char_names
)]

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use trumansh::policy::Policy;
use trumansh::sandbox::Fault;
use trumansh::{Config, Outcome, Session};

use crate::common::{Tree, snapshot};

fn session(root: &Path, policy: &str) -> Session {
    let mut config = Config::new(root);
    config.sandbox.mount_point = Some("/home/user".into());
    config.policy = Policy::from_toml(policy).unwrap();
    Session::new(config).unwrap()
}

fn out(r: &Outcome) -> String {
    String::from_utf8_lossy(&r.stdout).into_owned()
}

fn err(r: &Outcome) -> String {
    String::from_utf8_lossy(&r.stderr).into_owned()
}

fn show(r: &Outcome) -> String {
    format!(
        "status {}\nstdout: {}\nstderr: {}",
        r.status,
        out(r),
        err(r)
    )
}

/// A root with a few files, and an outside directory beside it.
fn tree() -> Tree {
    let t = Tree::new();
    fs::write(t.root.join("a.txt"), b"alpha\n").unwrap();
    fs::write(t.root.join("b.txt"), b"bravo\n").unwrap();
    fs::create_dir_all(t.root.join("docs/sub")).unwrap();
    fs::write(t.root.join("docs/guide.txt"), b"the guide\n").unwrap();
    fs::write(t.root.join("big.txt"), "0123456789\n".repeat(1000)).unwrap();
    fs::write(t.outside.join("victim"), b"outside\n").unwrap();
    t
}

/// The root as the agent sees it (the state directory left out).
fn view(root: &Path) -> std::collections::BTreeMap<PathBuf, crate::common::Node> {
    let mut s = snapshot(root, None);
    s.retain(|p, _| !p.starts_with(root.join(".trash")));
    // A directory's times change with its entries: undo restores objects, not those.
    for node in s.values_mut() {
        if let crate::common::Node::Dir { mtime, .. } = node {
            *mtime = (0, 0);
        }
    }
    s
}

/// Fails naming the paths that differ from `before` (not their bytes).
fn assert_view(root: &Path, before: &std::collections::BTreeMap<PathBuf, crate::common::Node>) {
    let now = view(root);
    let differ: Vec<&PathBuf> = before
        .keys()
        .chain(now.keys())
        .filter(|p| before.get(*p) != now.get(*p))
        .collect();
    assert!(differ.is_empty(), "differ: {differ:?}");
}

/// The audit log's events of one kind.
fn audit_events(root: &Path, event: &str) -> Vec<serde_json::Value> {
    fs::read_to_string(root.join(".trash/audit.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["event"] == event)
        .collect()
}

/// How many transactions keep saved bytes (a `.d` directory).
fn saved_dirs(root: &Path) -> usize {
    fs::read_dir(root.join(".trash/txn"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "d"))
        .count()
}

fn txn_files(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(root.join(".trash/txn"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    v.sort();
    v
}

/// Sets a file's modification time (ns precision), as an editor that keeps it would.
fn set_mtime(p: &Path, secs: i64, nsec: i64) {
    let t = std::time::UNIX_EPOCH + Duration::new(secs as u64, nsec as u32);
    let f = fs::File::options().write(true).open(p).unwrap();
    f.set_times(fs::FileTimes::new().set_modified(t)).unwrap();
}

// ---------------------------------------------------------------------------------------------
// 1. Every inverse checks its object first; what undo replaces goes to the trash.
// ---------------------------------------------------------------------------------------------

#[test]
fn a_file_the_host_edited_after_the_line_is_left_reported_and_retried() {
    let t = tree();
    let mut s = session(&t.root, "");
    s.run("echo new > a.txt");
    let agent = fs::metadata(t.root.join("a.txt")).unwrap();
    // The host edits the file (same size, so only the content and mtime tell).
    fs::write(t.root.join("a.txt"), b"HOST\n").unwrap();
    for _ in 0..3 {
        let u = s.run("undo");
        assert_eq!(u.status, 1, "{}", show(&u));
        assert_eq!(
            err(&u),
            "bash: line 1: undo: a.txt: changed since; left as is\n"
        );
        assert_eq!(out(&u), "");
        assert_eq!(fs::read(t.root.join("a.txt")).unwrap(), b"HOST\n");
    }
    // The owner's log says what was left, with the true path.
    let undos = audit_events(&t.root, "undo");
    assert_eq!(undos.len(), 3);
    assert_eq!(undos[0]["skipped"][0]["path"], "/home/user/a.txt");
    assert_eq!(undos[0]["kept"], true);
    // The host puts the agent's version back, mtime and all: the retry now reverts it.
    fs::write(t.root.join("a.txt"), b"new\n").unwrap();
    set_mtime(&t.root.join("a.txt"), agent.mtime(), agent.mtime_nsec());
    let u = s.run("undo");
    assert_eq!(
        (u.status, out(&u).as_str()),
        (0, "undone: echo new > a.txt (1 change)\n"),
        "{}",
        show(&u)
    );
    assert_eq!(fs::read(t.root.join("a.txt")).unwrap(), b"alpha\n");
    // The bytes undo replaced are in the trash, not gone.
    let entries = crate::common::trash_entries(&t.root);
    assert_eq!(entries.len(), 1);
    assert_eq!(fs::read(entries[0].0.join("data/a.txt")).unwrap(), b"new\n");
    assert!(
        entries[0].1["undo"]
            .as_str()
            .unwrap()
            .starts_with("undo of `echo new > a.txt`")
    );
    assert_eq!(s.run("undo").status, 1);
}

#[test]
fn a_file_the_agent_created_and_the_host_edited_is_kept() {
    let t = tree();
    let mut s = session(&t.root, "");
    s.run("echo mine > made.txt; mkdir d; echo x > d/x");
    fs::write(t.root.join("made.txt"), b"the host's now\n").unwrap();
    fs::write(t.root.join("d/host.txt"), b"host\n").unwrap();
    let u = s.run("undo");
    assert_eq!(u.status, 1, "{}", show(&u));
    assert_eq!(
        err(&u),
        "bash: line 1: undo: d: changed since; left as is\n\
         bash: line 1: undo: made.txt: changed since; left as is\n"
    );
    // d/x was the agent's, unchanged: it went to the trash; the rest is as the host left it.
    assert_eq!(
        out(&u),
        "undone: echo mine > made.txt; mkdir d; echo x > d/x (1 change)\n"
    );
    assert_eq!(
        fs::read(t.root.join("made.txt")).unwrap(),
        b"the host's now\n"
    );
    assert_eq!(fs::read(t.root.join("d/host.txt")).unwrap(), b"host\n");
    assert!(!t.root.join("d/x").exists());
    // Kept: once the host's file is gone, the retry removes the directory; made.txt stays.
    fs::remove_file(t.root.join("d/host.txt")).unwrap();
    let u = s.run("undo");
    assert_eq!(
        err(&u),
        "bash: line 1: undo: made.txt: changed since; left as is\n"
    );
    assert!(!t.root.join("d").exists());
    assert!(t.root.join("made.txt").exists());
}

#[test]
fn what_undo_removes_goes_to_the_trash_and_the_owner_can_restore_it() {
    let t = tree();
    let mut s = session(&t.root, "");
    s.run("echo one > made.txt; cp -r docs copy; echo more >> a.txt");
    let u = s.run("undo");
    assert_eq!(u.status, 0, "{}", show(&u));
    assert!(!t.root.join("made.txt").exists() && !t.root.join("copy").exists());
    assert_eq!(fs::read(t.root.join("a.txt")).unwrap(), b"alpha\n");
    // One trash entry for the undo: each created file at its path, the bytes cut off a.txt
    // beside it.
    let entries = crate::common::trash_entries(&t.root);
    assert_eq!(entries.len(), 1);
    let (dir, info) = &entries[0];
    assert_eq!(
        info["undo"],
        "undo of `echo one > made.txt; cp -r docs copy; echo more >> a.txt`"
    );
    let data = dir.join("data");
    assert_eq!(fs::read(data.join("made.txt")).unwrap(), b"one\n");
    assert_eq!(
        fs::read(data.join("copy/guide.txt")).unwrap(),
        b"the guide\n"
    );
    assert_eq!(fs::read(data.join("a.txt.tail")).unwrap(), b"more\n");
    // The owner's tools bring it back (where the owner says).
    let sandbox =
        trumansh::sandbox::Sandbox::open(&trumansh::sandbox::SandboxConfig::new(&t.root)).unwrap();
    let id = dir.file_name().unwrap().to_str().unwrap();
    trumansh::owner::trash_restore(
        &sandbox,
        id,
        &trumansh::owner::RestoreOptions {
            to: Some("restored".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        fs::read(t.root.join("restored/made.txt")).unwrap(),
        b"one\n"
    );
}

#[test]
fn chains_of_changes_to_one_file_undo_step_by_step() {
    let t = tree();
    let before = view(&t.root);
    let mut s = session(&t.root, "");
    s.run("echo 1 > a.txt; cat b.txt >> a.txt; touch a.txt; chmod 600 a.txt");
    s.run("echo 2 >> a.txt; echo 3 > a.txt");
    s.run("mv a.txt c.txt; echo 4 >> c.txt");
    let u = s.run("undo 3");
    assert_eq!(u.status, 0, "{}", show(&u));
    assert_eq!(out(&u).lines().count(), 3, "{}", show(&u));
    assert_view(&t.root, &before);
}

#[test]
fn a_live_session_writing_after_a_dead_sessions_line_is_not_reverted() {
    let t = tree();
    for i in 0..3000 {
        let p = t.root.join(format!("big/d{}/f{i}", i % 30));
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, [b'q'; 4096]).unwrap();
    }
    let mut live = session(&t.root, "");
    kill_while_copying(&t.root, "echo dead > a.txt; cp -r big big2");
    // The live session writes a.txt after the dead session's line.
    let r = live.run("echo live > a.txt");
    assert_eq!(r.status, 0);
    let next = session(&t.root, "");
    let rec = next.recovered();
    assert_eq!(rec.len(), 1, "{rec:?}");
    assert_eq!(rec[0].skipped.len(), 1, "{rec:?}");
    assert_eq!(rec[0].skipped[0].path, Path::new("/home/user/a.txt"));
    assert!(rec[0].kept);
    assert_eq!(fs::read(t.root.join("a.txt")).unwrap(), b"live\n");
    assert!(!t.root.join("big2").exists());
    drop(next);
    // The live session's undo gives the dead session's bytes back; then the dead line's own
    // change, kept, can be reverted too.
    let u = live.run("undo");
    assert_eq!(u.status, 0, "{}", show(&u));
    assert_eq!(fs::read(t.root.join("a.txt")).unwrap(), b"dead\n");
    let u = live.run("undo");
    assert_eq!(u.status, 0, "{}", show(&u));
    assert_eq!(fs::read(t.root.join("a.txt")).unwrap(), b"alpha\n");
}

// ---------------------------------------------------------------------------------------------
// 2. One lock: concurrent undos; an undo killed part-way.
// ---------------------------------------------------------------------------------------------

#[test]
fn concurrent_undos_never_revert_the_same_line() {
    for round in 0..15 {
        let t = tree();
        let n = 3;
        let mut sessions: Vec<Session> = (0..n).map(|_| session(&t.root, "")).collect();
        // Six lines, two per session, interleaved.
        for k in 0..2 * n {
            let r = sessions[k % n].run(format!("echo {k} > f{k}"));
            assert_eq!(r.status, 0);
        }
        let barrier = Arc::new(Barrier::new(n));
        let handles: Vec<_> = sessions
            .into_iter()
            .map(|mut s| {
                let b = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    b.wait();
                    let r = s.run("undo 2");
                    (r.status, out(&r), err(&r))
                })
            })
            .collect();
        let mut lines = Vec::new();
        for h in handles {
            let (status, o, e) = h.join().unwrap();
            assert_eq!((status, e.as_str()), (0, ""), "round {round}: {o}");
            assert_eq!(o.lines().count(), 2, "round {round}: {o}");
            lines.extend(o.lines().map(str::to_string));
        }
        lines.sort();
        let mut expected: Vec<String> = (0..2 * n)
            .map(|k| format!("undone: echo {k} > f{k} (1 change)"))
            .collect();
        expected.sort();
        assert_eq!(lines, expected, "round {round}");
        for k in 0..2 * n {
            assert!(!t.root.join(format!("f{k}")).exists());
        }
        // Nothing is left to undo, and no saved bytes are held.
        let r = session(&t.root, "").run("undo");
        assert_eq!(
            err(&r),
            "bash: line 1: undo: nothing to undo\n",
            "round {round}"
        );
        assert_eq!(saved_dirs(&t.root), 0, "round {round}");
    }
}

#[test]
fn an_undo_killed_midway_is_finished_at_the_next_start() {
    let t = tree();
    for i in 0..3000 {
        let p = t.root.join(format!("big/d{}/f{i}", i % 30));
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, b"q").unwrap();
    }
    let before = view(&t.root);
    let run = |line: &str| {
        Command::new(env!("CARGO_BIN_EXE_trumansh"))
            .arg("--root")
            .arg(&t.root)
            .args(["-c", line])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    assert!(run("cp -r big big2 && rm b.txt").wait().unwrap().success());
    let count = |dir: &Path| -> usize {
        fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| fs::read_dir(e.path()).map_or(0, Iterator::count))
            .sum()
    };
    assert_eq!(count(&t.root.join("big2")), 3000);
    let mut undo = run("undo");
    let start = Instant::now();
    while count(&t.root.join("big2")) > 2900 {
        assert!(
            undo.try_wait().unwrap().is_none(),
            "the undo finished before the kill"
        );
        assert!(start.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(1));
    }
    undo.kill().unwrap();
    undo.wait().unwrap();
    assert!(
        count(&t.root.join("big2")) > 0,
        "the undo was not killed midway"
    );
    // Newest change first: the `rm b.txt` was reverted before the copies.
    assert!(t.root.join("b.txt").exists());
    // The next start finishes it, and says so; once only.
    let s = session(&t.root, "");
    let rec = s.recovered();
    assert_eq!(rec.len(), 1, "{rec:?}");
    assert!(rec[0].finished, "{rec:?}");
    assert_eq!(rec[0].line, "cp -r big big2 && rm b.txt");
    assert!(
        rec[0].skipped.is_empty() && rec[0].errors.is_empty(),
        "{rec:?}"
    );
    assert_view(&t.root, &before);
    assert_eq!(saved_dirs(&t.root), 0);
    drop(s);
    let mut s = session(&t.root, "");
    assert!(s.recovered().is_empty());
    assert_eq!(err(&s.run("undo")), "bash: line 1: undo: nothing to undo\n");
}

// ---------------------------------------------------------------------------------------------
// 3. The reader validates every record; undo obeys the current policy.
// ---------------------------------------------------------------------------------------------

const FORGED_ID: &str = "txn-00000000000000000001-1-0";

/// A committed transaction holding one change with `undo` as its inverses.
fn forged(undo: &str) -> String {
    let begin = r#"{"t":"begin","session":"s-00000000000000000001-1-0","line":"forged","time":1}"#;
    let done = r#"{"t":"done","seq":1,"after":[null]}"#;
    let end = r#"{"t":"end","status":0,"time":1}"#;
    format!(
        "{begin}\n{{\"t\":\"do\",\"seq\":1,\"op\":\"write\",\"path\":\"/x\",\"undo\":[{undo}]}}\n{done}\n{end}\n"
    )
}

#[test]
fn a_forged_or_corrupt_journal_is_refused_and_never_acted_on() {
    let blob = format!("txn/{FORGED_ID}.d/1");
    let other_blob = format!("txn/{}.d/1", FORGED_ID.replace("-1-0", "-1-9"));
    let cases: Vec<(String, &str)> = vec![
        (
            forged(r#"{"undo":"remove","at":"../outside/victim"}"#),
            "is not normalized",
        ),
        (
            forged(r#"{"undo":"remove","at":"/etc/passwd"}"#),
            "is absolute",
        ),
        (
            forged(r#"{"undo":"remove","at":"a.txt/../../outside/victim"}"#),
            "is not normalized",
        ),
        (
            forged(r#"{"undo":"remove","at":"docs//guide.txt"}"#),
            "empty component",
        ),
        (forged(r#"{"undo":"remove","at":"a.txt\u0000x"}"#), "NUL"),
        (forged(r#"{"undo":"remove","at":"."}"#), "the root itself"),
        (
            forged(r#"{"undo":"remove","at":".trash/audit.jsonl"}"#),
            "state directory",
        ),
        (
            forged(
                r#"{"undo":"restore","at":"a.txt","blob":"../outside/victim","mode":420,"times":{"atime":[0,0],"mtime":[0,0]}}"#,
            ),
            "is not this change's",
        ),
        (
            forged(&format!(
                r#"{{"undo":"restore","at":"a.txt","blob":"{other_blob}","mode":420,"times":{{"atime":[0,0],"mtime":[0,0]}}}}"#
            )),
            "is not this change's",
        ),
        (
            forged(r#"{"undo":"unstash","at":"stolen","blob":"../../outside/victim"}"#),
            "is not this change's",
        ),
        (
            forged(r#"{"undo":"untrash","at":"stolen","trash_id":"../../../outside"}"#),
            "trash_id",
        ),
        (
            forged(r#"{"undo":"rename_back","from":"../outside/x","to":"a.txt"}"#),
            "from",
        ),
        (
            forged(r#"{"undo":"mode","at":"a.txt","mode":4294967295}"#),
            "mode",
        ),
        (
            format!("{}not json\n", forged(r#"{"undo":"remove","at":"a.txt"}"#)),
            "not a journal record",
        ),
        (
            forged(&format!(
                r#"{{"undo":"restore","at":"../outside/victim","blob":"{blob}","mode":420,"times":{{"atime":[0,0],"mtime":[0,0]}}}}"#
            )),
            "is not normalized",
        ),
        (
            forged(r#"{"undo":"remove","at":"a.txt"}"#)
                .replace(r#""seq":1,"after""#, r#""seq":7,"after""#),
            "no change 7",
        ),
    ];
    for (i, (journal, why)) in cases.iter().enumerate() {
        let t = tree();
        // An older, valid line, which undo must still reach past the refused one.
        let mut s = session(&t.root, "");
        s.run("echo valid > valid.txt");
        // The forged transaction is the newest, with the blob its own change would have.
        let id = format!("txn-99999999999999999999-1-{i}");
        let newest = t.root.join(format!(".trash/txn/{id}.jsonl"));
        fs::write(&newest, journal.replace(FORGED_ID, &id)).unwrap();
        fs::create_dir_all(t.root.join(format!(".trash/txn/{id}.d"))).unwrap();
        fs::write(t.root.join(format!(".trash/txn/{id}.d/1")), b"pwned\n").unwrap();
        let outside = snapshot(&t.outside, None);
        let inside: Vec<_> = view(&t.root)
            .into_iter()
            .filter(|(p, _)| !p.ends_with("valid.txt"))
            .collect();
        let u = s.run("undo");
        assert!(
            err(&u).starts_with("bash: line 1: undo: a line's journal is invalid (")
                && err(&u).contains(why)
                && err(&u).ends_with("; left for the owner\n"),
            "case {i}: {}",
            show(&u)
        );
        assert_eq!(u.status, 1, "case {i}");
        assert_eq!(
            out(&u),
            "undone: echo valid > valid.txt (1 change)\n",
            "case {i}"
        );
        assert!(
            snapshot(&t.outside, None) == outside,
            "case {i}: the outside changed"
        );
        let after: Vec<_> = view(&t.root).into_iter().collect();
        assert!(after == inside, "case {i}: the root changed");
        assert!(newest.exists(), "case {i}: the refused transaction is kept");
        assert_eq!(fs::read(t.outside.join("victim")).unwrap(), b"outside\n");
        let refused = audit_events(&t.root, "undo");
        assert!(
            refused.iter().any(|e| e["refused"].is_string()),
            "case {i}: not audited"
        );
    }
}

#[test]
fn an_open_forged_transaction_is_not_recovered() {
    let t = tree();
    let txn = t.root.join(".trash/txn");
    fs::create_dir_all(&txn).unwrap();
    let open = forged(r#"{"undo":"remove","at":"../outside/victim"}"#)
        .replace("{\"t\":\"end\",\"status\":0,\"time\":1}\n", "");
    fs::write(txn.join(format!("{FORGED_ID}.jsonl")), open).unwrap();
    let before = snapshot(&t.base, None);
    let s = session(&t.root, "");
    assert!(s.recovered().is_empty());
    drop(s);
    let mut after = snapshot(&t.base, None);
    after.retain(|p, _| !p.starts_with(t.root.join(".trash")));
    let mut before = before;
    before.retain(|p, _| !p.starts_with(t.root.join(".trash")));
    assert_eq!(after, before);
    assert!(txn.join(format!("{FORGED_ID}.jsonl")).exists());
    assert_eq!(audit_events(&t.root, "journal_refused").len(), 1);
}

#[test]
fn undo_leaves_what_the_policy_now_protects() {
    let t = tree();
    let mut s = session(&t.root, "");
    s.run("echo new > a.txt; echo secret > .env; echo changed > b.txt");
    drop(s);
    let mut s = session(&t.root, "read_only = [\"a.txt\"]\nhidden = [\".env\"]\n");
    let u = s.run("undo");
    assert_eq!(u.status, 1, "{}", show(&u));
    assert_eq!(
        out(&u),
        "undone: echo new > a.txt; echo secret > .env; echo changed > b.txt (1 change)\n"
    );
    assert_eq!(
        err(&u),
        "bash: line 1: undo: a change to a hidden path was left as is\n\
         bash: line 1: undo: a.txt: Read-only file system; left as is\n"
    );
    assert_eq!(fs::read(t.root.join("a.txt")).unwrap(), b"new\n");
    assert_eq!(fs::read(t.root.join(".env")).unwrap(), b"secret\n");
    assert_eq!(fs::read(t.root.join("b.txt")).unwrap(), b"bravo\n");
    // The hidden path is named in the owner's log only.
    let undos = audit_events(&t.root, "undo");
    assert!(undos[0]["skipped"].to_string().contains("/home/user/.env"));
    // Without the policy, the kept line can be finished.
    drop(s);
    let mut s = session(&t.root, "");
    let u = s.run("undo");
    assert_eq!(u.status, 0, "{}", show(&u));
    assert_eq!(fs::read(t.root.join("a.txt")).unwrap(), b"alpha\n");
    assert!(!t.root.join(".env").exists());
}

// ---------------------------------------------------------------------------------------------
// 4. One quota for every session on the root.
// ---------------------------------------------------------------------------------------------

/// What the quota charges: the files of the root and of the state directory's trash and
/// undo data (the journal's records are measured, not charged as they are written).
fn stored_bytes(root: &Path) -> u64 {
    fn walk(p: &Path, skip_state: bool, n: &mut u64) {
        for e in fs::read_dir(p).into_iter().flatten().flatten() {
            let path = e.path();
            let m = fs::symlink_metadata(&path).unwrap();
            if skip_state && path.file_name().is_some_and(|n| n == ".trash") {
                continue;
            }
            if m.is_dir() {
                walk(&path, false, n);
            } else if m.is_file() && path.extension().is_none_or(|x| x != "jsonl") {
                *n += m.len();
            }
        }
    }
    let mut n = 0;
    walk(root, true, &mut n);
    walk(&root.join(".trash/trash"), false, &mut n);
    walk(&root.join(".trash/txn"), false, &mut n);
    n
}

#[test]
fn the_quota_holds_for_sessions_together() {
    for round in 0..4 {
        let t = tree();
        let quota = stored_bytes(&t.root) + 25_000; // two copies of big.txt, not three
        let policy = format!("[limits]\nwrite_quota_bytes = {quota}\n");
        let n = 3;
        let barrier = Arc::new(Barrier::new(n));
        let handles: Vec<_> = (0..n)
            .map(|k| {
                let mut s = session(&t.root, &policy);
                let b = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    b.wait();
                    let mut made = 0;
                    for i in 0..5 {
                        let r = s.run(format!("cp big.txt copy-{k}-{i}"));
                        if r.status == 0 {
                            made += 1;
                        } else {
                            assert!(err(&r).contains("Disk quota exceeded"), "{}", show(&r));
                        }
                    }
                    made
                })
            })
            .collect();
        let made: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
        // Alone, each session would have made two copies (six together). Copies running at
        // once may each fail part-way (their partial files count), so one or two are made.
        assert!((1..=2).contains(&made), "round {round}: {made}");
        let stored = stored_bytes(&t.root);
        assert!(stored <= quota, "round {round}: {stored} > {quota}");
    }
}

#[test]
fn a_second_session_sees_what_the_first_stored() {
    let t = tree();
    let quota = stored_bytes(&t.root) + 25_000;
    let policy = format!("[limits]\nwrite_quota_bytes = {quota}\n");
    let mut a = session(&t.root, &policy);
    let mut b = session(&t.root, &policy);
    assert_eq!(a.run("cp big.txt a1; cp big.txt a2").status, 0);
    let r = b.run("cp big.txt b1");
    assert_eq!(
        err(&r),
        "cp: cannot create regular file 'b1': Disk quota exceeded\n"
    );
    // What a removes for real (undo) is seen by b... through the trash it stays counted:
    // undo moves the copies to the trash, which the quota counts.
    a.run("undo");
    assert_eq!(b.run("cp big.txt b1").status, 1);
    assert!(stored_bytes(&t.root) <= quota);
}

// ---------------------------------------------------------------------------------------------
// 5. rm on a full disk.
// ---------------------------------------------------------------------------------------------

#[test]
fn rm_works_on_a_full_disk() {
    let t = tree();
    let before = view(&t.root);
    let mut s = session(&t.root, "");
    s.sandbox().guard().inject(Some(Fault::NoSpaceAfter(0)));
    // Writing fails, as it must.
    let r = s.run("echo x > new.txt");
    assert_eq!(
        err(&r),
        "bash: line 1: new.txt: No space left on device\n",
        "{}",
        show(&r)
    );
    // Removing works, line after line (each draws a few blocks from the reserve).
    for line in ["rm a.txt", "rm -r docs", "rm b.txt big.txt"] {
        let r = s.run(line);
        assert_eq!((r.status, err(&r).as_str()), (0, ""), "{line}");
    }
    assert!(!t.root.join("a.txt").exists() && !t.root.join("docs").exists());
    let r = s.run("cp /dev/null x; echo y > y");
    assert!(err(&r).contains("No space left on device"), "{}", show(&r));
    // Undo (the owner's work) brings everything back (the files that line could create
    // empty, in the journal's last block, and the three removals).
    let r = s.run("undo 4");
    assert_eq!(r.status, 0, "{}", show(&r));
    s.sandbox().guard().inject(None);
    assert_view(&t.root, &before);
    // The reserve is what made it work: emptied, rm fails on a full disk.
    let reserve = t.root.join(".trash/reserve");
    assert!(fs::metadata(&reserve).unwrap().len() > 0);
    fs::write(&reserve, b"").unwrap();
    s.sandbox().guard().inject(Some(Fault::NoSpaceAfter(0)));
    let r = s.run("rm a.txt");
    assert_eq!(
        err(&r),
        "rm: cannot remove 'a.txt': No space left on device\n",
        "{}",
        show(&r)
    );
    assert!(t.root.join("a.txt").exists());
    s.sandbox().guard().inject(None);
    // A new session tops the reserve up again.
    drop(s);
    drop(session(&t.root, ""));
    assert_eq!(
        fs::metadata(&reserve).unwrap().len(),
        trumansh::txn::reserve::RESERVE_BYTES
    );
}

// ---------------------------------------------------------------------------------------------
// 6. History: exactly undo_history lines; saved bytes within undo_bytes.
// ---------------------------------------------------------------------------------------------

#[test]
fn undo_reaches_exactly_undo_history_lines() {
    let t = tree();
    let policy = "[limits]\nundo_history = 5\n";
    let mut a = session(&t.root, policy);
    let mut b = session(&t.root, policy);
    for i in 0..23 {
        let s = if i % 2 == 0 { &mut a } else { &mut b };
        assert_eq!(s.run(format!("echo {i} > f{i}")).status, 0);
        // The files are pruned in batches (16 beyond the history at most, per session).
        assert!(txn_files(&t.root).len() <= 5 + 2 * 16, "after line {i}");
    }
    let u = a.run("undo 50");
    assert_eq!(u.status, 0, "{}", show(&u));
    let expected: String = (18..23)
        .rev()
        .map(|i| format!("undone: echo {i} > f{i} (1 change)"))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    assert_eq!(out(&u), expected);
    assert!(t.root.join("f17").exists() && !t.root.join("f18").exists());
    // The lines undone still count: undoing never brings an older line into reach.
    let u = b.run("undo");
    assert_eq!(err(&u), "bash: line 1: undo: nothing to undo\n");
    // Two new lines: only they are in reach of the history with the three undone.
    a.run("echo new1 > n1");
    b.run("echo new2 > n2");
    let u = a.run("undo 50");
    assert_eq!(
        out(&u),
        "undone: echo new2 > n2 (1 change)\nundone: echo new1 > n1 (1 change)\n"
    );
    assert!(t.root.join("f17").exists());
    // Lines that save bytes prune at once: the journal holds the history exactly.
    for i in 0..12 {
        assert_eq!(a.run(format!("echo {i} > a.txt")).status, 0);
        assert!(txn_files(&t.root).len() <= 5, "after overwrite {i}");
    }
}

#[test]
fn saved_undo_bytes_stay_within_undo_bytes() {
    let t = tree();
    let chunk = 256 * 1024;
    fs::write(t.root.join("data.bin"), vec![b'a'; chunk]).unwrap();
    let mut s = session(&t.root, "[limits]\nundo_bytes = \"1MiB\"\n");
    for i in 0..40u8 {
        let line = format!("cp v{i} data.bin");
        fs::write(t.root.join(format!("v{i}")), vec![b'A' + i % 26; chunk]).unwrap();
        assert_eq!(s.run(&line).status, 0);
        let saved: u64 = fs::read_dir(t.root.join(".trash/txn"))
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "d"))
            .flat_map(|e| fs::read_dir(e.path()).unwrap().flatten())
            .map(|e| e.metadata().unwrap().len())
            .sum();
        assert!(saved <= 1 << 20, "after line {i}: {saved} bytes saved");
    }
    // The newest four lines (1 MiB saved) can be undone, no more.
    let u = s.run("undo 40");
    assert_eq!(out(&u).lines().count(), 4, "{}", show(&u));
    assert_eq!(
        fs::read(t.root.join("data.bin")).unwrap(),
        vec![b'A' + 35 % 26; chunk]
    );
    // The newest line is kept whatever it saved.
    let mut s = session(&t.root, "[limits]\nundo_bytes = 1000\n");
    s.run("cp v1 data.bin");
    assert_eq!(s.run("undo").status, 0);
    assert_eq!(
        fs::read(t.root.join("data.bin")).unwrap(),
        vec![b'A' + 35 % 26; chunk]
    );
}

// ---------------------------------------------------------------------------------------------
// 7. The journal's files (issue 15): one open log per session, nothing per line.
// ---------------------------------------------------------------------------------------------

/// The state directory's files (path, length), the audit log left out (it records every line).
fn state_listing(root: &Path) -> Vec<(PathBuf, u64)> {
    fn walk(p: &Path, out: &mut Vec<(PathBuf, u64)>) {
        for e in fs::read_dir(p).into_iter().flatten().flatten() {
            let path = e.path();
            let m = fs::symlink_metadata(&path).unwrap();
            if m.is_dir() {
                walk(&path, out);
            }
            out.push((path, if m.is_dir() { 0 } else { m.len() }));
        }
    }
    let mut v = Vec::new();
    walk(&root.join(".trash"), &mut v);
    v.retain(|(p, _)| {
        !p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("audit"))
    });
    v.sort();
    v
}

#[test]
fn a_line_that_changes_nothing_writes_no_journal() {
    let t = tree();
    let mut s = session(&t.root, "");
    // A session that has changed nothing has no segment.
    assert_eq!(s.run("cat a.txt; ls docs; x=1; test -f b.txt").status, 0);
    assert!(txn_files(&t.root).is_empty(), "{:?}", txn_files(&t.root));
    assert_eq!(s.run("echo more >> a.txt").status, 0);
    let before = state_listing(&t.root);
    for line in [
        "cat a.txt",
        "ls -la docs",
        "echo hi",
        "grep -r guide docs",
        "f=$(cat b.txt); echo $f",
        "test -e nothing || true",
        "for i in 1 2 3; do echo $i; done",
        "cat nothing",
    ] {
        s.run(line);
        assert_eq!(state_listing(&t.root), before, "after `{line}`");
    }
}

#[test]
fn a_thousand_changing_lines_leave_a_bounded_journal() {
    let t = tree();
    let mut s = session(&t.root, "[limits]\nundo_history = 10\n");
    for i in 0..1000 {
        let line = match i % 4 {
            0 => format!("echo {i} >> log.txt"),
            1 => format!("echo {i} > over.txt"),
            2 => format!("mkdir d{i}; touch d{i}/f"),
            _ => format!("rm -r d{}", i - 1),
        };
        assert_eq!(s.run(&line).status, 0, "{line}");
    }
    let files = txn_files(&t.root);
    let dirs = saved_dirs(&t.root);
    // One segment (a few after rolls), and the saved bytes of the lines in reach only.
    assert!(files.len() <= 3, "{files:?}");
    assert!(dirs <= 10, "{dirs} saved-bytes directories");
    // The journal's bytes stay small: the history, and the segment being written.
    let journal: u64 = files.iter().map(|p| fs::metadata(p).unwrap().len()).sum();
    assert!(journal < 4 << 20, "{journal} bytes of journal");
    // The history is intact: the last lines undo, newest first.
    let u = s.run("undo 2");
    assert_eq!(
        out(&u),
        "undone: rm -r d998 (1 change)\nundone: mkdir d998; touch d998/f (2 changes)\n",
        "{}",
        show(&u)
    );
    assert!(!t.root.join("d998").exists());
    let u = s.run("undo");
    assert_eq!(out(&u), "undone: echo 997 > over.txt (1 change)\n");
    assert_eq!(fs::read(t.root.join("over.txt")).unwrap(), b"993\n");
}

#[test]
fn pruning_across_rolled_segments_keeps_the_history_exact_for_every_session() {
    // Enough lines for the segments to roll several times (pruning at each roll), with
    // undos (revert records in the undoing session's segment) and a second session's lines
    // in between: the newest lines stay in reach, in order, from either session.
    let t = tree();
    let mut a = session(&t.root, "[limits]\nundo_history = 5\n");
    let mut b = session(&t.root, "[limits]\nundo_history = 5\n");
    let mut expect: Vec<String> = vec!["alpha".into()];
    for i in 0..4000 {
        let line = format!("echo line{i} >> a.txt");
        let s = if i % 500 == 499 { &mut b } else { &mut a };
        assert_eq!(s.run(&line).status, 0, "{line}");
        expect.push(format!("line{i}"));
        if i % 1000 == 999 {
            // Undo the last line from the other session, then run it again.
            let other = if i % 500 == 499 { &mut a } else { &mut b };
            let u = other.run("undo");
            assert_eq!(
                out(&u),
                format!("undone: {line} (1 change)\n"),
                "{}",
                show(&u)
            );
            assert_eq!(other.run(&line).status, 0);
        }
    }
    let text = |t: &Tree| fs::read_to_string(t.root.join("a.txt")).unwrap();
    assert_eq!(text(&t), expect.join("\n") + "\n");
    let files = txn_files(&t.root);
    assert!(files.len() <= 4, "{files:?}");
    // The segments rolled (and were pruned) more than once.
    let rolled = files.iter().any(|p| {
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        stem.rsplit('-').next().unwrap().parse::<u64>().unwrap() >= 3
    });
    assert!(rolled, "{files:?}");
    // The newest lines first, from the session that did not run the last one.
    let u = b.run("undo 3");
    assert_eq!(
        out(&u),
        "undone: echo line3999 >> a.txt (1 change)\n\
         undone: echo line3998 >> a.txt (1 change)\n\
         undone: echo line3997 >> a.txt (1 change)\n",
        "{}",
        show(&u)
    );
    // The history is the last five lines, those undone before included: `line3999` twice
    // (undone, then run again), 3998, 3997, 3996.
    let u = a.run("undo 5");
    assert_eq!(
        out(&u),
        "undone: echo line3996 >> a.txt (1 change)\n",
        "{}",
        show(&u)
    );
    expect.truncate(expect.len() - 4);
    assert_eq!(text(&t), expect.join("\n") + "\n");
}

#[test]
fn a_session_killed_mid_line_is_rolled_back_from_its_segment() {
    let t = tree();
    for i in 0..3000 {
        let p = t.root.join(format!("big/d{}/f{i}", i % 30));
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, [b'q'; 4096]).unwrap();
    }
    // Two committed lines, then one killed part-way: all three in one segment.
    kill_while_copying(
        &t.root,
        "echo one > one.txt\necho two >> a.txt\necho three > b.txt; cp -r big big2",
    );
    assert_eq!(txn_files(&t.root).len(), 1, "{:?}", txn_files(&t.root));
    let mut next = session(&t.root, "");
    let rec = next.recovered();
    assert_eq!(rec.len(), 1, "{rec:?}");
    assert!(!rec[0].kept && rec[0].skipped.is_empty(), "{rec:?}");
    assert!(!t.root.join("big2").exists());
    assert_eq!(fs::read(t.root.join("b.txt")).unwrap(), b"bravo\n");
    // The committed lines are still there, and undo reaches them past the rolled-back one.
    assert_eq!(fs::read(t.root.join("a.txt")).unwrap(), b"alpha\ntwo\n");
    let u = next.run("undo 5");
    assert_eq!(
        out(&u),
        "undone: echo two >> a.txt (1 change)\nundone: echo one > one.txt (1 change)\n",
        "{}",
        show(&u)
    );
    assert_eq!(fs::read(t.root.join("a.txt")).unwrap(), b"alpha\n");
    assert!(!t.root.join("one.txt").exists());
    // A second recovery finds nothing left to do.
    drop(next);
    assert!(session(&t.root, "").recovered().is_empty());
}

#[test]
fn a_forged_segment_is_refused_and_never_acted_on() {
    let seg = ".trash/txn/seg-s-00000000000000000001-1-0-1.jsonl";
    let id = "txn-99999999999999999999-1-0";
    let prefixed = |journal: &str| -> String {
        use std::fmt::Write;
        journal.lines().fold(String::new(), |mut out, l| {
            let _ = writeln!(out, "{id} {l}");
            out
        })
    };
    let cases = [
        (
            prefixed(&forged(r#"{"undo":"remove","at":"../outside/victim"}"#)),
            "is not normalized",
        ),
        (
            // A line that names no transaction refuses the one before it.
            format!(
                "{}garbage\n",
                prefixed(&forged(r#"{"undo":"remove","at":"a.txt"}"#))
            ),
            "not a journal record",
        ),
        (
            // A revert's records for a line that has none of its own.
            format!("{id} {{\"t\":\"revert_step\",\"seq\":1,\"i\":0}}\n"),
            "",
        ),
    ];
    for (i, (journal, why)) in cases.iter().enumerate() {
        let t = tree();
        let mut s = session(&t.root, "");
        s.run("echo valid > valid.txt");
        fs::write(t.root.join(seg), journal).unwrap();
        let outside = snapshot(&t.outside, None);
        let u = s.run("undo");
        assert!(
            err(&u).starts_with("bash: line 1: undo: a line's journal is invalid (")
                && err(&u).contains(why),
            "case {i}: {}",
            show(&u)
        );
        assert_eq!(
            out(&u),
            "undone: echo valid > valid.txt (1 change)\n",
            "case {i}"
        );
        assert!(snapshot(&t.outside, None) == outside, "case {i}");
        assert_eq!(fs::read(t.root.join("a.txt")).unwrap(), b"alpha\n");
        assert!(t.root.join(seg).exists(), "case {i}: kept for the owner");
    }
}

/// Runs `script` (which ends copying `big` to `big2`) in a session of its own, and kills it
/// (SIGKILL) once the copy is under way.
fn kill_while_copying(root: &Path, script: &str) {
    let mut dead = Command::new(env!("CARGO_BIN_EXE_trumansh"))
        .arg("--root")
        .arg(root)
        .args(["--mount-point", "/home/user"])
        .args(["-c", script])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while fs::read_dir(root.join("big2")).map_or(0, |d| d.flatten().count()) < 3 {
        assert!(
            dead.try_wait().unwrap().is_none(),
            "finished before the kill"
        );
        assert!(start.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(2));
    }
    dead.kill().unwrap();
    dead.wait().unwrap();
}
