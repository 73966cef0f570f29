//! The binary's front ends: line mode over a pipe (each command answered before the next is
//! sent), `-c`, a script file, exit statuses, and the REPL-free defaults.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common;
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
    let mut child = common::spawn_with_pipes(trumansh(root).args(args));
    // With `-c` or a FILE, trumansh does not read its stdin and may be gone before it is
    // written: a broken pipe here is expected.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    common::texts(&child.wait_with_output().unwrap())
}

#[test]
fn line_mode_answers_each_command_before_the_next_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let common::Piped {
        mut child,
        stdin,
        lines: rx,
        ..
    } = common::spawn_piped::<()>(trumansh(dir.path()));
    let mut stdin = stdin.unwrap();
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

/// A state directory is bound to its root: one inside the root (other than the hidden
/// default spelled out) refuses to start, and so does one already bound to another root
/// (`undo` in one would apply the other's lines). Each refusal is one line, status 2, and
/// nothing runs.
#[test]
fn a_state_dir_inside_the_root_or_of_another_root_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    for inside in ["state", "sub/state", ".trash2", "."] {
        let arg = root.join(inside).to_string_lossy().into_owned();
        let (out, err, status) = run(
            &root,
            &["--state-dir", &arg],
            "touch x
",
        );
        assert_eq!((out.as_str(), status), ("", 2), "{inside}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("inside the root"), "{err}");
        assert!(!root.join("x").exists());
    }
    // Through a link to the root, and relative to the working directory.
    std::os::unix::fs::symlink(&root, dir.path().join("rootlink")).unwrap();
    let arg = dir
        .path()
        .join("rootlink/state")
        .to_string_lossy()
        .into_owned();
    let (_, err, status) = run(&root, &["--state-dir", &arg], "");
    assert_eq!(status, 2, "{err}");
    let out = trumansh(&root)
        .current_dir(&root)
        .args(["--state-dir", "s", "-c", "true"])
        .output()
        .unwrap();
    let (_, err, status) = common::texts(&out);
    assert_eq!(status, 2, "{err}");
    // The default spelled out is the hidden default.
    let arg = root.join(".trash").to_string_lossy().into_owned();
    let (out, err, status) = run(
        &root,
        &["--state-dir", &arg],
        "touch y
rm y
ls -A
",
    );
    assert_eq!((out.as_str(), err.as_str(), status), ("", "", 0));
    assert!(root.join(".trash/trash").is_dir());
    // One state dir, two roots: the second is refused.
    let root2 = dir.path().join("root2");
    std::fs::create_dir(&root2).unwrap();
    let state = dir.path().join("state").to_string_lossy().into_owned();
    let (_, err, status) = run(
        &root,
        &["--state-dir", &state],
        "touch z
",
    );
    assert_eq!((err.as_str(), status), ("", 0));
    let (out, err, status) = run(
        &root2,
        &["--state-dir", &state],
        "touch w
",
    );
    assert_eq!((out.as_str(), status), ("", 2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("belongs to another root"), "{err}");
    assert!(!root2.join("w").exists());
    // The owner's tools refuse it too.
    let out = Command::new(env!("CARGO_BIN_EXE_trumansh"))
        .args(["trash", "list", "--root"])
        .arg(&root2)
        .args(["--state-dir", &state])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // The first root still works with it.
    let (_, err, status) = run(
        &root,
        &["--state-dir", &state],
        "rm z
",
    );
    assert_eq!((err.as_str(), status), ("", 0));
}

// ---------------------------------------------------------------------------------------
// The owner's side: --policy, --atomic, --describe, recovery, `trash`, `log`.

/// A fresh copy of `fixtures/trees/basic` (links copied as links), in its own temp dir
/// (the copy is `<tmp>/root`, so the temp dir also has room for things outside the root).
fn basic_tree() -> (tempfile::TempDir, std::path::PathBuf) {
    fn copy(from: &Path, to: &Path) {
        let meta = std::fs::symlink_metadata(from).unwrap();
        if meta.file_type().is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(from).unwrap(), to).unwrap();
        } else if meta.is_dir() {
            std::fs::create_dir(to).unwrap();
            for entry in std::fs::read_dir(from).unwrap() {
                let entry = entry.unwrap();
                copy(&entry.path(), &to.join(entry.file_name()));
            }
        } else {
            std::fs::copy(from, to).unwrap();
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    copy(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/trees/basic"),
        &root,
    );
    (dir, root)
}

/// Runs the binary with `args` only (no `--mount-point`), stdin closed.
fn bare(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_trumansh"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    common::texts(&out)
}

/// An owner's subcommand on `root`: `trumansh --root ROOT ARGS...`.
fn owner(root: &Path, args: &[&str]) -> (String, String, i32) {
    let root = root.to_str().unwrap();
    let mut all = vec!["--root", root];
    all.extend_from_slice(args);
    bare(&all)
}

/// The ids of `trash list`, oldest first, with their kind and path columns.
fn trash_rows(root: &Path) -> Vec<(String, String, String)> {
    let (out, err, status) = owner(root, &["trash", "list", "--json"]);
    assert_eq!((err.as_str(), status), ("", 0));
    out.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["id"].as_str().unwrap().to_string(),
                v["kind"].as_str().unwrap().to_string(),
                v["path"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn describe_prints_the_commands_and_the_policys_limits() {
    let (dir, root) = basic_tree();
    let policy = dir.path().join("policy.toml");
    std::fs::write(
        &policy,
        "deny_commands = [\"date\"]\natomic = true\n[limits]\ndeadline_ms = \"10s\"\nstdout_bytes = \"512K\"\n",
    )
    .unwrap();
    let (out, err, status) = trumansh(&root)
        .arg("--policy")
        .arg(&policy)
        .arg("--describe")
        .output()
        .map(|o| {
            (
                String::from_utf8_lossy(&o.stdout).into_owned(),
                String::from_utf8_lossy(&o.stderr).into_owned(),
                o.status.code().unwrap_or(-1),
            )
        })
        .unwrap();
    assert_eq!((err.as_str(), status), ("", 0));
    assert!(
        out.contains("The working directory is /home/user "),
        "{out}"
    );
    let commands = out
        .lines()
        .find(|l| l.starts_with("Available commands: "))
        .unwrap();
    let listed: Vec<&str> = commands["Available commands: ".len()..]
        .trim_end_matches('.')
        .split(", ")
        .collect();
    for c in ["cat", "cd", "grep", "ls", "rm", "undo", "which"] {
        assert!(listed.contains(&c), "{c} in {commands}");
    }
    assert!(!listed.contains(&"date"), "{commands}");
    assert!(out.contains("stops after 10 s"), "{out}");
    assert!(out.contains("Output beyond 512 KiB on stdout"), "{out}");
    assert!(out.contains("Each command line is atomic"), "{out}");
    // No session ran: no state directory was made.
    assert!(!root.join(".trash").exists());
    // Without --mount-point, the root's real path.
    let real = std::fs::canonicalize(&root).unwrap();
    let (out, _, status) = bare(&["--root", root.to_str().unwrap(), "--describe"]);
    assert_eq!(status, 0);
    assert!(
        out.contains(&format!("The working directory is {} ", real.display())),
        "{out}"
    );
    assert!(out.lines().any(|l| l.contains(" date,")), "{out}");
}

#[test]
fn a_bad_policy_file_is_a_clear_error_with_status_2() {
    let (dir, root) = basic_tree();
    let root_s = root.to_str().unwrap();
    let bad = dir.path().join("bad.toml");
    let bad_s = bad.to_str().unwrap();
    std::fs::write(&bad, "undo = true\nbogus = 1\n").unwrap();
    let (out, err, status) = bare(&["--root", root_s, "--policy", bad_s, "-c", "echo hi"]);
    assert_eq!((out.as_str(), status), ("", 2));
    assert!(
        err.starts_with(&format!(
            "trumansh: {bad_s}: line 2, column 1: unknown field `bogus`"
        )),
        "{err}"
    );
    std::fs::write(&bad, "deny_commands = [\"frobnicate\"]\n").unwrap();
    let (out, err, status) = bare(&["--root", root_s, "--policy", bad_s, "-c", "echo hi"]);
    assert_eq!((out.as_str(), status), ("", 2));
    assert_eq!(
        err,
        format!("trumansh: {bad_s}: deny_commands: unknown command \"frobnicate\"\n")
    );
    let missing = dir.path().join("missing.toml");
    let (_, err, status) = bare(&[
        "--root",
        root_s,
        "--policy",
        missing.to_str().unwrap(),
        "--describe",
    ]);
    assert_eq!(status, 2);
    assert_eq!(
        err,
        format!(
            "trumansh: {}: No such file or directory\n",
            missing.display()
        )
    );
}

#[test]
fn atomic_rolls_back_a_failing_line() {
    let (dir, root) = basic_tree();
    let (_, err, status) = run(&root, &["--atomic", "-c", "mkdir a && cp missing a/"], "");
    assert_eq!(status, 1);
    assert!(err.contains("cp: cannot stat 'missing': No such file or directory"));
    assert!(err.contains("rolled back (1 change undone)"), "{err}");
    assert!(!root.join("a").exists());
    // The same from the policy file.
    let policy = dir.path().join("atomic.toml");
    std::fs::write(&policy, "atomic = true\n").unwrap();
    let policy_s = policy.to_str().unwrap();
    let (_, _, status) = run(
        &root,
        &["--policy", policy_s, "-c", "mkdir b && cp missing b/"],
        "",
    );
    assert_eq!(status, 1);
    assert!(!root.join("b").exists());
    // Without it, the line's changes stay.
    run(&root, &["-c", "mkdir c && cp missing c/"], "");
    assert!(root.join("c").is_dir());
}

#[test]
fn trash_list_restore_and_purge() {
    let (dir, root) = basic_tree();
    let (_, err, _) = run(
        &root,
        &[],
        "rm hello.txt\nrm -r docs\nrm link-to-docs\nrm notes.md\n",
    );
    assert_eq!(err, "");
    // The table: a header, then one row per entry, oldest first.
    let (out, err, status) = owner(&root, &["trash", "list"]);
    assert_eq!((err.as_str(), status), ("", 0));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(header, ["ID", "TIME", "(UTC)", "SIZE", "KIND", "PATH"]);
    let cols: Vec<Vec<&str>> = lines[1..]
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(cols[0][3..], ["24", "file", "/home/user/hello.txt"]);
    assert_eq!(cols[1][3..], ["22", "dir", "/home/user/docs"]);
    assert_eq!(cols[2][3..], ["4", "link", "/home/user/link-to-docs"]);
    assert_eq!(cols[3][3..], ["21", "file", "/home/user/notes.md"]);
    // Columns are aligned: every row's KIND starts where the header's does.
    let at = lines[0].find("KIND").unwrap();
    for l in &lines[1..] {
        assert!(
            l[at..].starts_with("file")
                || l[at..].starts_with("dir")
                || l[at..].starts_with("link")
        );
    }
    let rows = trash_rows(&root);
    let ids: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(ids, [cols[0][0], cols[1][0], cols[2][0], cols[3][0]]);

    // By id: the file comes back where it was.
    let (out, err, status) = owner(&root, &["trash", "restore", ids[0]]);
    let real = std::fs::canonicalize(&root).unwrap();
    assert_eq!(
        (out, err.as_str(), status),
        (
            format!("restored {} to {}/hello.txt\n", ids[0], real.display()),
            "",
            0
        )
    );
    assert_eq!(
        std::fs::read_to_string(root.join("hello.txt")).unwrap(),
        "hello world\nsecond line\n"
    );
    // By the agent's path: the directory, with its contents.
    let (_, err, status) = owner(&root, &["trash", "restore", "/home/user/docs"]);
    assert_eq!((err.as_str(), status), ("", 0));
    assert!(root.join("docs/guide.txt").is_file());
    // By the path relative to the root: the link comes back as a link, same target.
    let (_, err, status) = owner(&root, &["trash", "restore", "link-to-docs"]);
    assert_eq!((err.as_str(), status), ("", 0));
    let meta = std::fs::symlink_metadata(root.join("link-to-docs")).unwrap();
    assert!(meta.file_type().is_symlink());
    assert_eq!(
        std::fs::read_link(root.join("link-to-docs")).unwrap(),
        Path::new("docs")
    );
    assert_eq!(trash_rows(&root).len(), 1);

    // Never over something: the entry stays.
    std::fs::write(root.join("notes.md"), "new\n").unwrap();
    let (out, err, status) = owner(&root, &["trash", "restore", "notes.md"]);
    assert_eq!((out.as_str(), status), ("", 1));
    assert_eq!(
        err,
        format!(
            "trumansh: trash restore: {}/notes.md: File exists\n",
            real.display()
        )
    );
    assert_eq!(
        std::fs::read_to_string(root.join("notes.md")).unwrap(),
        "new\n"
    );
    // A missing parent.
    let (_, err, status) = owner(&root, &["trash", "restore", "notes.md", "--to", "nodir/x"]);
    assert_eq!(status, 1);
    assert!(
        err.ends_with("/nodir/x: No such file or directory\n"),
        "{err}"
    );
    // Nothing leaves the root: not lexically, not through a link, not as a host path.
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
    for to in ["../escaped", "docs/../../escaped", "out/escaped"] {
        let (_, err, status) = owner(&root, &["trash", "restore", "notes.md", "--to", to]);
        assert_eq!(status, 1, "{to}: {err}");
        assert!(err.starts_with("trumansh: trash restore: "), "{err}");
    }
    let host_outside = dir.path().join("escaped");
    let (_, err, status) = owner(
        &root,
        &[
            "trash",
            "restore",
            "notes.md",
            "--to",
            host_outside.to_str().unwrap(),
        ],
    );
    assert_eq!(status, 1);
    assert!(err.contains("outside the root"), "{err}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    assert!(!dir.path().join("escaped").exists());
    // Nor into the hidden state directory.
    let (_, err, status) = owner(&root, &["trash", "restore", "notes.md", "--to", ".trash/x"]);
    assert_eq!(status, 1);
    assert!(err.ends_with(": inside the state directory\n"), "{err}");
    // --to, relative to the root or an absolute host path inside it.
    let (_, err, status) = owner(
        &root,
        &["trash", "restore", "notes.md", "--to", "docs/notes.old"],
    );
    assert_eq!((err.as_str(), status), ("", 0));
    assert_eq!(
        std::fs::read_to_string(root.join("docs/notes.old")).unwrap(),
        "# Notes\n\n- one\n- two\n"
    );
    let (_, err, status) = owner(&root, &["trash", "restore", "nonesuch"]);
    assert_eq!(status, 1);
    assert_eq!(
        err,
        "trumansh: trash restore: nonesuch: no such trash entry\n"
    );

    // Several entries with one path: the newest wins; --to takes an absolute host path.
    run(&root, &[], "echo one > v\nrm v\necho two > v\nrm v\n");
    let to = root.join("v.restored");
    let (_, err, status) = owner(
        &root,
        &["trash", "restore", "v", "--to", to.to_str().unwrap()],
    );
    assert_eq!((err.as_str(), status), ("", 0));
    assert_eq!(std::fs::read_to_string(&to).unwrap(), "two\n");

    // Purge: fresh entries are kept by --older-than, then removed for good.
    assert_eq!(trash_rows(&root).len(), 1);
    let (out, _, status) = owner(&root, &["trash", "purge", "--older-than", "1d"]);
    assert_eq!((out.as_str(), status), ("purged 0 entries (0 bytes)\n", 0));
    let (out, _, _) = owner(&root, &["trash", "purge", "--dry-run"]);
    assert!(out.ends_with("would purge 1 entry (4 bytes)\n"), "{out}");
    assert_eq!(trash_rows(&root).len(), 1);
    let (out, _, status) = owner(&root, &["trash", "purge"]);
    assert_eq!((out.as_str(), status), ("purged 1 entry (4 bytes)\n", 0));
    assert_eq!(
        owner(&root, &["trash", "list"]),
        (String::new(), String::new(), 0)
    );
    let (_, err, status) = owner(&root, &["trash", "purge", "--older-than", "7x"]);
    assert_eq!(status, 2);
    assert!(err.contains("invalid duration"), "{err}");

    // Every owner's action is in the audit log.
    let (out, _, _) = owner(&root, &["log", "--event", "trash_restore,trash_purge"]);
    assert_eq!(out.lines().count(), 7, "{out}");
    assert!(out.contains(&format!(
        " trash_restore: {} (/home/user/hello.txt) to ",
        ids[0]
    )));
    assert!(out.contains(" trash_purge: 1 entry (4 bytes)"), "{out}");
}

#[test]
fn the_log_shows_what_the_agent_did_and_what_was_refused() {
    let (_dir, root) = basic_tree();
    run(
        &root,
        &[],
        "rm -r docs\ngrep -r hello .\ncat /etc/passwd\necho '\x1b[31mred \u{9b}2J \u{202e}'\necho $'\\e]0;x\\a'\n",
    );
    let (out, err, status) = owner(&root, &["log"]);
    assert_eq!((err.as_str(), status), ("", 0));
    // TIME SESSION EVENT: details, never a control character.
    assert!(
        out.bytes().all(|b| b == b'\n' || (0x20..0x7f).contains(&b)),
        "{out:?}"
    );
    let events: Vec<&str> = out
        .lines()
        .map(|l| l.splitn(4, ' ').nth(3).unwrap())
        .collect();
    for want in [
        "line: rm -r docs",
        "command: rm -r docs (in /home/user)",
        "effect: trash /home/user/docs",
        "line: grep -r hello .",
        "command: grep -r hello . (in /home/user)",
        "refused: /etc/passwd (outside the mount point)",
        "line: echo $'\\e]0;x\\a'",
        "line: echo '?[31mred ?2J ?'",
    ] {
        assert!(events.contains(&want), "{want:?} in {events:#?}");
    }
    assert!(events[0].starts_with("session: root "), "{}", events[0]);
    let first = out.lines().next().unwrap();
    let (date, rest) = first.split_at(19);
    assert_eq!(date.len(), "2026-11-22 04:09:03".len());
    assert!(rest.starts_with(" s-"), "{first}");
    // Filters.
    let (out, _, _) = owner(&root, &["log", "--event", "refused"]);
    assert_eq!(out.lines().count(), 1, "{out}");
    let (out, _, _) = owner(&root, &["log", "--event", "line", "--tail", "2"]);
    let tail: Vec<&str> = out
        .lines()
        .map(|l| l.splitn(4, ' ').nth(3).unwrap())
        .collect();
    assert_eq!(
        tail,
        ["line: echo '?[31mred ?2J ?'", "line: echo $'\\e]0;x\\a'"]
    );
    let session = first.split(' ').nth(2).unwrap();
    let (out, _, _) = owner(&root, &["log", "--session", session, "--event", "effect"]);
    assert_eq!(out.lines().count(), 1, "{out}");
    let (out, _, _) = owner(&root, &["log", "--session", "s-nobody"]);
    assert_eq!(out, "");
    // --json: the raw records, one per line.
    let (out, _, _) = owner(&root, &["log", "--json", "--event", "refused"]);
    let v: serde_json::Value = serde_json::from_str(out.trim_end()).unwrap();
    assert_eq!(v["path"], "/etc/passwd");
    assert_eq!(v["reason"], "outside the mount point");
}

#[test]
fn the_agent_cannot_reach_the_owners_commands() {
    let (_dir, root) = basic_tree();
    let (out, err, status) = run(&root, &[], "rm hello.txt\ntrash list\nlog\ntype trash\n");
    assert_eq!(out, "");
    assert_eq!(
        err,
        "bash: line 2: trash: command not found\nbash: line 3: log: command not found\nbash: line 4: type: trash: not found\n"
    );
    assert_eq!(status, 1);
    // And the trash entry is untouched.
    assert_eq!(trash_rows(&root).len(), 1);
}

#[test]
fn owner_subcommands_and_script_files_named_like_them() {
    let (dir, root) = basic_tree();
    let root_s = root.to_str().unwrap();
    // Options that start a session do not go with a subcommand.
    let (_, err, status) = bare(&["--root", root_s, "-c", "true", "log"]);
    assert_eq!(status, 2);
    assert!(
        err.contains("cannot be used with the owner's subcommands"),
        "{err}"
    );
    let (_, _, status) = bare(&[
        "--root",
        root_s,
        "--mount-point",
        "/home/user",
        "trash",
        "list",
    ]);
    assert_eq!(status, 2);
    // --root and --state-dir go before or after the subcommand.
    let state = dir.path().join("state");
    let state_s = state.to_str().unwrap();
    run(&root, &["--state-dir", state_s], "rm hello.txt\n");
    let (out, _, status) = bare(&["trash", "list", "--root", root_s, "--state-dir", state_s]);
    assert_eq!((out.lines().count(), status), (2, 0), "{out}");
    let (out, _, _) = bare(&["--root", root_s, "--state-dir", state_s, "trash", "list"]);
    assert_eq!(out.lines().count(), 2, "{out}");
    // A script named `trash` runs as `./trash`.
    let script = dir.path().join("trash");
    std::fs::write(&script, "echo from-script\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_trumansh"))
        .current_dir(dir.path())
        .args(["--root", root_s, "./trash"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "from-script\n");
}

#[test]
fn a_crashed_line_is_rolled_back_at_start_and_reported() {
    let (_dir, root) = basic_tree();
    // What a session killed in the middle of `mkdir crashed` leaves: the directory, and an
    // open transaction (no `end`) of a session that is gone.
    std::fs::create_dir(root.join("crashed")).unwrap();
    let txn = root.join(".trash/txn");
    std::fs::create_dir_all(&txn).unwrap();
    std::fs::write(
        txn.join("txn-00000000000000000001-1-0.jsonl"),
        concat!(
            r#"{"t":"begin","session":"s-00000000000000000001-1-0","line":"mkdir crashed\n","time":1}"#,
            "\n",
            r#"{"t":"do","seq":1,"op":"create_dir","path":"/home/user/crashed","undo":[{"undo":"remove","at":"crashed"}]}"#,
            "\n",
        ),
    )
    .unwrap();
    let (out, err, status) = run(&root, &["-c", "ls -d crashed"], "");
    assert_eq!((out.as_str(), status), ("", 2));
    assert_eq!(
        err,
        "trumansh: recovered from a crash: rolled back the interrupted line `mkdir crashed` (1 change)\n\
         ls: cannot access 'crashed': No such file or directory\n"
    );
    let (out, _, _) = owner(&root, &["log", "--event", "recovery"]);
    assert!(
        out.ends_with(" recovery: \"mkdir crashed\" (1 change)\n"),
        "{out}"
    );
}

#[test]
fn the_readmes_policy_example_loads() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let start = readme.find("```toml\n").unwrap() + "```toml\n".len();
    let toml = &readme[start..start + readme[start..].find("```").unwrap()];
    assert!(toml.contains("[limits]"));
    let (dir, root) = basic_tree();
    let policy = dir.path().join("policy.toml");
    std::fs::write(&policy, toml).unwrap();
    let (out, err, status) = bare(&[
        "--root",
        root.to_str().unwrap(),
        "--policy",
        policy.to_str().unwrap(),
        "--describe",
    ]);
    assert_eq!((err.as_str(), status), ("", 0));
    assert!(out.contains("Some paths are hidden"), "{out}");
    assert!(out.contains("stops after 10 s"), "{out}");
}

// ---------------------------------------------------------------------------------------
// Transcripts: --record and `trumansh replay`.

fn basic_fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/trees/basic")
}

/// `trumansh replay FILE --root fixtures/trees/basic ARGS...`: stdout, stderr, status.
fn replay(transcript: &Path, args: &[&str]) -> (String, String, i32) {
    let tree = basic_fixture();
    let mut all = vec![
        "replay",
        transcript.to_str().unwrap(),
        "--root",
        tree.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    bare(&all)
}

#[test]
fn a_recorded_line_mode_session_replays_without_change() {
    let (dir, root) = basic_tree();
    let file = dir.path().join("session.transcript");
    let file_s = file.to_str().unwrap();
    let (out, _, status) = run(
        &root,
        &["--record", file_s],
        "cd src\nls\ncat ../../../etc/passwd\ncat > notes.txt <<'EOF'\nremember $HOME\nEOF\n# a comment\n\nrm notes.txt; ls notes.txt\n",
    );
    assert_eq!((out.as_str(), status), ("lib.rs\nmain.rs\n", 2));
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        text,
        "# trumansh transcript v1 mount-point=/home/user errors=script:bash lines=stream\n\
         $ cd src\n\
         $ ls\n\
         lib.rs\n\
         main.rs\n\
         $ cat ../../../etc/passwd\n\
         [stderr] cat: ../../../etc/passwd: No such file or directory\n\
         [exit 1]\n\
         $ cat > notes.txt <<'EOF'\n\
         > remember $HOME\n\
         > EOF\n\
         $ # a comment\n\
         $\n\
         $ rm notes.txt; ls notes.txt\n\
         [stderr] ls: cannot access 'notes.txt': No such file or directory\n\
         [exit 2]\n"
    );
    // On a fresh copy of the same tree: nothing changed, nothing on stdout.
    let (out, err, status) = replay(&file, &[]);
    assert_eq!(
        (out.as_str(), err.as_str(), status),
        ("", "replay: 7 steps, no change\n", 0)
    );
    // The session's own tree is not touched by a replay.
    assert!(!root.join("src/notes.txt").exists());

    // An edited expectation: status 1 and a unified diff naming the line.
    std::fs::write(&file, text.replace("main.rs\n", "main.rx\n")).unwrap();
    let (out, err, status) = replay(&file, &[]);
    assert_eq!(status, 1, "{err}");
    assert_eq!(err, "replay: 7 steps, 1 changed\n");
    assert_eq!(
        out,
        format!(
            "--- {file_s}\n+++ replay\n@@ -2,7 +2,7 @@\n $ cd src\n $ ls\n lib.rs\n-main.rx\n+main.rs\n \
             $ cat ../../../etc/passwd\n [stderr] cat: ../../../etc/passwd: No such file or directory\n \
             [exit 1]\n"
        )
    );
    // A status that changed shows too.
    std::fs::write(&file, text.replace("[exit 1]\n", "")).unwrap();
    let (out, _, status) = replay(&file, &[]);
    assert_eq!(status, 1);
    assert!(out.contains("\n+[exit 1]\n"), "{out}");
}

#[test]
fn dash_c_and_script_files_record_their_sessions() {
    let (dir, root) = basic_tree();
    let file = dir.path().join("c.transcript");
    let file_s = file.to_str().unwrap();
    let (out, _, status) = run(
        &root,
        &[
            "--record",
            file_s,
            "-c",
            "echo hi\ncd nope\necho ;;\necho never",
        ],
        "",
    );
    assert_eq!((out.as_str(), status), ("hi\n", 2));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "# trumansh transcript v1 mount-point=/home/user errors=script:bash lines=stream \
         reads=command\n\
         $ echo hi\n\
         hi\n\
         $ cd nope\n\
         [stderr] bash: line 2: cd: nope: No such file or directory\n\
         [exit 1]\n\
         $ echo ;;\n\
         [stderr] bash: -c: line 3: syntax error near unexpected token `;;'\n\
         [stderr] bash: -c: line 3: `echo ;;'\n\
         [exit 2]\n"
    );
    assert_eq!(replay(&file, &[]).2, 0);

    // A script file: its name is in the header (percent-encoded) and in the errors.
    let script = dir.path().join("my script.sh");
    std::fs::write(&script, "echo one\ncd nope").unwrap();
    let (_, err, status) = run(&root, &["--record", file_s, script.to_str().unwrap()], "");
    assert_eq!(status, 1);
    let name = script.to_str().unwrap();
    assert_eq!(
        err,
        format!("{name}: line 2: cd: nope: No such file or directory\n")
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        format!(
            "# trumansh transcript v1 mount-point=/home/user errors=script:{} lines=stream \
             reads=file\n\
             $ echo one\n\
             one\n\
             $ cd nope\n\
             [no newline]\n\
             [stderr] {name}: line 2: cd: nope: No such file or directory\n\
             [exit 1]\n",
            name.replace(' ', "%20")
        )
    );
    let (out, err, status) = replay(&file, &[]);
    assert_eq!(
        (out.as_str(), err.as_str(), status),
        ("", "replay: 2 steps, no change\n", 0)
    );
}

#[test]
fn markers_escapes_bad_bytes_and_heredocs_round_trip() {
    let (dir, root) = basic_tree();
    let file = dir.path().join("t.transcript");
    let session = "cat <<'EOF'\n$HOME\n[stderr] fake\n\\back\n[exit 3]\n> not a continuation\n\nEOF\n\
                   echo -e 'bad \\xff\\xfe bytes\\n$'\n\
                   echo -n 'no newline'; ls nope\n\
                   cat <<EOF >&2\n[x]\nEOF\n\
                   echo '> after'\n";
    run(&root, &["--record", file.to_str().unwrap()], session);
    let bytes = std::fs::read(&file).unwrap();
    let expected: &[u8] =
        b"# trumansh transcript v1 mount-point=/home/user errors=script:bash lines=stream\n\
        $ cat <<'EOF'\n\
        > $HOME\n\
        > [stderr] fake\n\
        > \\back\n\
        > [exit 3]\n\
        > > not a continuation\n\
        >\n\
        > EOF\n\
        \\$HOME\n\
        \\[stderr] fake\n\
        \\\\back\n\
        \\[exit 3]\n\
        > not a continuation\n\
        \n\
        $ echo -e 'bad \\xff\\xfe bytes\\n$'\n\
        bad \xff\xfe bytes\n\
        \\$\n\
        $ echo -n 'no newline'; ls nope\n\
        no newline\n\
        [no newline]\n\
        [stderr] ls: cannot access 'nope': No such file or directory\n\
        [exit 2]\n\
        $ cat <<EOF >&2\n\
        > [x]\n\
        > EOF\n\
        [stderr] [x]\n\
        $ echo '> after'\n\
        > after\n";
    assert_eq!(
        String::from_utf8_lossy(&bytes),
        String::from_utf8_lossy(expected)
    );
    assert_eq!(bytes, expected);
    let parsed = trumansh::transcript::parse(&bytes).unwrap();
    assert_eq!(parsed.render(), bytes);
    assert_eq!(parsed.script(), session.as_bytes());
    let (out, err, status) = replay(&file, &[]);
    assert_eq!(
        (out.as_str(), err.as_str(), status),
        ("", "replay: 5 steps, no change\n", 0)
    );
    // A changed bad byte is shown escaped in the diff.
    let changed: Vec<u8> = bytes
        .iter()
        .map(|&b| if b == 0xfe { 0xfd } else { b })
        .collect();
    std::fs::write(&file, changed).unwrap();
    let (out, _, status) = replay(&file, &[]);
    assert_eq!(status, 1);
    assert!(
        out.contains("\n-bad \\xFF\\xFD bytes\n+bad \\xFF\\xFE bytes\n"),
        "{out}"
    );
}

#[test]
fn replay_usage_errors_have_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.transcript");
    let (out, err, status) = replay(&missing, &[]);
    assert_eq!((out.as_str(), status), ("", 2));
    assert_eq!(
        err,
        format!(
            "trumansh: replay: {}: No such file or directory\n",
            missing.display()
        )
    );
    let bad = dir.path().join("bad.transcript");
    std::fs::write(&bad, "$ echo hi\nhi\n[exit 1]\nmore\n").unwrap();
    let (_, err, status) = replay(&bad, &[]);
    assert_eq!(status, 2);
    assert_eq!(
        err,
        format!(
            "trumansh: replay: {}: line 4: unexpected line after `[exit N]`: `more`\n",
            bad.display()
        )
    );
    std::fs::write(&bad, "# trumansh transcript v2\n").unwrap();
    let (_, err, status) = replay(&bad, &[]);
    assert_eq!(status, 2);
    assert!(
        err.contains("line 1: unsupported transcript version"),
        "{err}"
    );
    // A root that cannot be copied.
    std::fs::write(&bad, "$ true\n").unwrap();
    let (_, err, status) = bare(&[
        "replay",
        bad.to_str().unwrap(),
        "--root",
        dir.path().join("no-tree").to_str().unwrap(),
    ]);
    assert_eq!(status, 2);
    assert!(err.contains("no-tree: No such file or directory"), "{err}");
    // Options that start a session do not go with replay.
    let (_, err, status) = bare(&["replay", bad.to_str().unwrap(), "--state-dir", "/tmp"]);
    assert_eq!(status, 2);
    assert!(err.contains("cannot be used with replay"), "{err}");
    let (_, err, status) = bare(&["--record", "x", "log"]);
    assert_eq!(status, 2);
    assert!(err.contains("'--record <FILE>' cannot be used"), "{err}");
    // A record file that cannot be written stops before the session starts.
    let (_, err, status) = run(dir.path(), &["--record", "/dev/full", "-c", "echo hi"], "");
    assert_eq!(
        (err.as_str(), status),
        ("trumansh: /dev/full: No space left on device\n", 2)
    );
}

#[test]
fn replay_help_explains_the_format() {
    let (out, _, status) = bare(&["replay", "--help"]);
    assert_eq!(status, 0);
    assert!(out.contains("docs/TRANSCRIPTS.md"), "{out}");
    assert!(out.contains("[stderr]"), "{out}");
    let (out, _, _) = bare(&["--help"]);
    assert!(out.contains("--record <FILE>"), "{out}");
}

#[test]
fn replay_takes_the_mount_point_and_policy_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.transcript");
    // No header: mounted at /home/user.
    std::fs::write(
        &file,
        "$ pwd\n/home/user\n$ cat hello.txt\nhello world\nsecond line\n",
    )
    .unwrap();
    assert_eq!(replay(&file, &[]).2, 0);
    let (out, _, status) = replay(&file, &["--mount-point", "/work"]);
    assert_eq!(status, 1);
    assert!(out.contains("-/home/user\n+/work\n"), "{out}");
    let policy = dir.path().join("policy.toml");
    std::fs::write(&policy, "hidden = [\"hello.txt\"]\n").unwrap();
    let (out, _, status) = replay(&file, &["--policy", policy.to_str().unwrap()]);
    assert_eq!(status, 1);
    assert!(
        out.contains("+[stderr] cat: hello.txt: No such file or directory\n+[exit 1]\n"),
        "{out}"
    );
}
