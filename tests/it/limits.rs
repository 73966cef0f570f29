//! Every limit holds, says so in one line, and leaves the session usable (`echo ok`); the
//! policy's hidden paths, read-only paths and denied commands behave as documented.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::common::{assert_alive, assert_stops_at_deadline, err, session};

fn tree() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap().join("root");
    fs::create_dir_all(root.join("docs/sub")).unwrap();
    fs::write(root.join("a.txt"), b"alpha\n").unwrap();
    fs::write(root.join("docs/guide.txt"), b"the guide\n").unwrap();
    fs::write(root.join("big.txt"), "0123456789\n".repeat(1000)).unwrap();
    (tmp, root)
}

#[test]
fn deadline_stops_a_runaway_walk_with_status_124() {
    let (_tmp, root) = tree();
    for d in 0..40 {
        for f in 0..100 {
            let p = root.join(format!("many/d{d}/f{f}.txt"));
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, "lorem ipsum dolor sit amet\n".repeat(300)).unwrap();
        }
    }
    let mut s = session(&root, "[limits]\ndeadline_ms = 20\n");
    for line in [
        "grep -r zzz many; echo not reached",
        "find many many many many many many many many many many -name zzz",
        "cat many/*/* | grep -c zzz",
        "cp -r many copy",
    ] {
        let start = Instant::now();
        let r = s.run(line);
        let took = start.elapsed();
        assert_eq!(r.status, 124, "{line}: {}", err(&r));
        assert_eq!(
            err(&r),
            "bash: line 1: time limit of 20 ms for one command line exceeded; the command was stopped\n",
            "{line}"
        );
        assert!(r.stdout.is_empty() || !r.stdout.ends_with(b"not reached\n"));
        assert!(took < Duration::from_secs(5), "{line}: {took:?}");
        assert_alive(&mut s);
    }
    // What a stopped `cp -r` did is one transaction: undo removes it.
    s.run("undo");
    assert!(!root.join("copy").exists());
}

#[test]
fn output_caps_cut_with_a_notice() {
    let (_tmp, root) = tree();
    let mut s = session(&root, "[limits]\nstdout_bytes = 1000\nstderr_bytes = 100\n");
    let r = s.run("cat big.txt");
    assert_eq!(r.stdout.len(), 1000);
    assert_eq!(
        err(&r),
        "bash: line 1: output truncated: stdout passed 1000 bytes for one command line; the rest was dropped\n"
    );
    assert_eq!(r.status, 0);
    // Per line, not per command: the cap is shared, and a new line starts afresh.
    let r = s.run("cat a.txt; cat big.txt; echo after");
    assert_eq!(r.stdout.len(), 1000);
    assert!(r.stdout.starts_with(b"alpha\n0123"));
    let r = s.run("cat m1 m2 m3 m4 m5 m6 m7 m8 m9");
    assert_eq!(r.status, 1);
    assert!(err(&r).starts_with("cat: m1: No such file or directory\ncat: m2: No such"));
    assert!(err(&r).ends_with(
        "output truncated: stderr passed 100 bytes for one command line; the rest was dropped\n"
    ));
    assert_alive(&mut s);
}

#[test]
fn read_cap_refuses_to_hold_a_big_file() {
    let (_tmp, root) = tree();
    let mut s = session(&root, "[limits]\nread_bytes = 5000\n");
    let r = s.run("tac big.txt");
    assert_eq!(err(&r), "tac: memory exhausted\n");
    assert_eq!(r.status, 1);
    // Streaming readers are not held in memory, so they are not capped; sort spills.
    assert_eq!(s.run("wc -l < big.txt").stdout, b"1000\n");
    assert_eq!(s.run("sort big.txt | wc -l").stdout, b"1000\n");
    assert_alive(&mut s);
}

#[test]
fn write_quota_counts_the_trash() {
    let (_tmp, root) = tree();
    // The tree holds 11,016 bytes; allow 12,000 more (one copy of big.txt fits) and 2,000
    // for the audit log, which counts too.
    let mut s = session(&root, "[limits]\nwrite_quota_bytes = 25016\n");
    let r = s.run("cp big.txt copy1.txt");
    assert_eq!(r.status, 0, "{}", err(&r));
    let r = s.run("cp big.txt copy2.txt");
    assert_eq!(
        err(&r),
        "cp: cannot create regular file 'copy2.txt': Disk quota exceeded\n"
    );
    assert_eq!(r.status, 1);
    // Deleting does not free anything: the trash keeps it.
    s.run("rm copy1.txt copy2.txt");
    let r = s.run("echo more > small.txt");
    assert_eq!(r.status, 0, "{}", err(&r));
    let r = s.run("cp big.txt copy3.txt");
    assert_eq!(r.status, 1);
    assert_alive(&mut s);
}

#[test]
fn file_quota_counts_entries() {
    let (_tmp, root) = tree();
    // The tree holds 6 entries (a.txt, big.txt, docs, docs/sub, docs/guide.txt, .trash...):
    // measure it through the sandbox, then allow 3 more.
    let probe = session(&root, "");
    let used = probe.sandbox().measure().entries;
    drop(probe);
    let mut s = session(&root, &format!("[limits]\nfile_quota = {}\n", used + 3));
    let r = s.run("touch n1 n2 n3 n4 n5");
    assert_eq!(r.status, 1, "{}", err(&r));
    // The session's own lock file and log count too: one or two of the three are left.
    let made = (1..=5)
        .filter(|i| root.join(format!("n{i}")).exists())
        .count();
    assert!((1..=3).contains(&made), "{made}");
    assert!(
        err(&r).contains(&format!(
            "touch: cannot touch 'n{}': Disk quota exceeded\n",
            made + 1
        )),
        "{}",
        err(&r)
    );
    let r = s.run("mkdir d1");
    assert_eq!(
        err(&r),
        "mkdir: cannot create directory 'd1': Disk quota exceeded\n"
    );
    assert_alive(&mut s);
}

#[test]
fn pipeline_glob_brace_and_line_caps() {
    let (_tmp, root) = tree();
    for i in 0..10 {
        fs::write(root.join(format!("g{i}")), b"").unwrap();
    }
    let mut s = session(
        &root,
        "[limits]\npipeline_len = 3\nglob_matches = 5\nbrace_fields = 10\nline_bytes = 200\n",
    );
    let r = s.run("echo a | cat | cat | cat; echo not reached");
    assert_eq!(r.status, 2);
    assert_eq!(
        err(&r),
        "bash: line 1: pipeline too long: 4 commands (the limit is 3)\n"
    );
    assert!(r.stdout.is_empty());
    assert_eq!(s.run("echo a | cat | cat").stdout, b"a\n");
    let r = s.run("echo g*");
    assert_ne!(r.status, 0);
    assert!(err(&r).contains('5'), "{}", err(&r));
    let r = s.run("echo {1..100}");
    assert_ne!(r.status, 0);
    assert!(err(&r).contains("10"), "{}", err(&r));
    let r = s.run(format!("echo {}", "x".repeat(300)));
    assert_eq!(r.status, 2);
    assert_eq!(
        err(&r),
        "bash: line 1: input too long: 305 bytes (the limit for one command line is 200 bytes)\n"
    );
    assert_alive(&mut s);
}

#[test]
fn walk_depth_caps_recursive_walks() {
    let (_tmp, root) = tree();
    let deep: PathBuf = (0..10).map(|i| format!("l{i}")).collect();
    fs::create_dir_all(root.join("deep").join(&deep)).unwrap();
    fs::write(root.join("deep").join(&deep).join("bottom.txt"), b"found\n").unwrap();
    let mut s = session(&root, "[limits]\nwalk_depth = 4\n");
    let r = s.run("find deep");
    let lines = String::from_utf8_lossy(&r.stdout).lines().count();
    assert_eq!(lines, 5, "{}", String::from_utf8_lossy(&r.stdout));
    let r = s.run("grep -r found deep");
    assert!(r.stdout.is_empty());
    assert!(
        err(&r).contains("directory nesting deeper than 4 levels"),
        "{}",
        err(&r)
    );
    assert_alive(&mut s);
}

const SECRET: &[u8] = b"API_KEY=hunter2\n";

#[test]
fn hidden_paths_do_not_exist() {
    let (_tmp, root) = tree();
    fs::write(root.join(".env"), SECRET).unwrap();
    fs::write(root.join("docs/.env"), SECRET).unwrap();
    fs::create_dir_all(root.join(".git/objects")).unwrap();
    fs::write(root.join(".git/config"), SECRET).unwrap();
    fs::write(root.join("docs/sub/server.pem"), SECRET).unwrap();
    symlink(".env", root.join("env-link")).unwrap();
    symlink(".git", root.join("git-link")).unwrap();
    let mut s = session(&root, "hidden = [\".env\", \".git/**\", \"**/*.pem\"]\n");
    let r = s.run("ls -a; ls -a docs docs/sub");
    let out = String::from_utf8_lossy(&r.stdout);
    for name in [".env", ".git", "server.pem"] {
        assert!(!out.contains(name), "{name} listed:\n{out}");
    }
    for (line, want) in [
        ("cat .env", "cat: .env: No such file or directory\n"),
        (
            "cat docs/.env",
            "cat: docs/.env: No such file or directory\n",
        ),
        (
            "cat docs/sub/server.pem",
            "cat: docs/sub/server.pem: No such file or directory\n",
        ),
        (
            "cat .git/config",
            "cat: .git/config: No such file or directory\n",
        ),
        ("cat env-link", "cat: env-link: No such file or directory\n"),
        (
            "cat git-link/config",
            "cat: git-link/config: No such file or directory\n",
        ),
        (
            "cd .git",
            "bash: line 1: cd: .git: No such file or directory\n",
        ),
        (
            "ls .git",
            "ls: cannot access '.git': No such file or directory\n",
        ),
        (
            "rm .env",
            "rm: cannot remove '.env': No such file or directory\n",
        ),
    ] {
        let r = s.run(line);
        assert_eq!(err(&r), want, "{line}");
        assert_ne!(r.status, 0, "{line}");
    }
    for line in [
        "grep -r API .",
        "find . -name '*env*'",
        "cat */*/*.pem",
        "echo .g*",
    ] {
        let r = s.run(line);
        let out = String::from_utf8_lossy(&r.stdout);
        assert!(
            !out.contains("hunter2") && !out.contains(".env\n") && !out.contains(".git"),
            "{line}: {out}"
        );
    }
    // Untouched.
    assert_eq!(fs::read(root.join(".env")).unwrap(), SECRET);
    assert_eq!(fs::read(root.join(".git/config")).unwrap(), SECRET);
    // The true reason is in the owner's audit log.
    let audit = fs::read_to_string(root.join(".trash/audit.jsonl")).unwrap();
    assert!(audit.contains("\"reason\":\"hidden by policy\""));
    assert_alive(&mut s);
}

#[test]
fn read_only_paths_refuse_writes() {
    let (_tmp, root) = tree();
    let mut s = session(&root, "read_only = [\"docs/**\", \"a.txt\"]\n");
    for (line, want) in [
        (
            "echo x > docs/guide.txt",
            "bash: line 1: docs/guide.txt: Read-only file system\n",
        ),
        (
            "echo x >> a.txt",
            "bash: line 1: a.txt: Read-only file system\n",
        ),
        (
            "echo x > docs/new.txt",
            "bash: line 1: docs/new.txt: Read-only file system\n",
        ),
        (
            "rm docs/guide.txt",
            "rm: cannot remove 'docs/guide.txt': Read-only file system\n",
        ),
        (
            "rm -r docs",
            "rm: cannot remove 'docs': Read-only file system\n",
        ),
        (
            "mkdir docs/x",
            "mkdir: cannot create directory 'docs/x': Read-only file system\n",
        ),
        (
            "touch a.txt",
            "touch: setting times of 'a.txt': Read-only file system\n",
        ),
        (
            "mv a.txt b.txt",
            "mv: cannot move 'a.txt' to 'b.txt': Read-only file system\n",
        ),
        (
            "cp big.txt docs/",
            "cp: cannot create regular file 'docs/big.txt': Read-only file system\n",
        ),
        // Onto a read-only file: one line, as GNU (the old file cannot be moved aside).
        (
            "mv big.txt a.txt",
            "mv: cannot move 'big.txt' to 'a.txt': Read-only file system\n",
        ),
        (
            "mv -v big.txt docs/guide.txt",
            "mv: cannot move 'big.txt' to 'docs/guide.txt': Read-only file system\n",
        ),
        (
            "cp big.txt a.txt",
            "cp: cannot create regular file 'a.txt': Read-only file system\n",
        ),
        (
            "cp -r docs a.txt",
            "cp: cannot overwrite non-directory 'a.txt' with directory 'docs'\n",
        ),
        (
            "cp -r docs docs2 && cp -r docs2 docs/",
            "cp: cannot create directory 'docs/docs2': Read-only file system\n",
        ),
    ] {
        let r = s.run(line);
        assert_eq!(err(&r), want, "{line}");
        assert_ne!(r.status, 0, "{line}");
    }
    // Reading works.
    assert_eq!(
        s.run("cat docs/guide.txt a.txt").stdout,
        b"the guide\nalpha\n"
    );
    assert_eq!(fs::read(root.join("a.txt")).unwrap(), b"alpha\n");
    assert!(root.join("docs/guide.txt").exists());
    assert!(root.join("big.txt").exists());
    assert_alive(&mut s);
}

#[test]
fn denied_commands_do_not_exist() {
    let (_tmp, root) = tree();
    let mut s = session(&root, "deny_commands = [\"rm\", \"find\"]\n");
    let r = s.run("rm a.txt");
    assert_eq!(r.status, 127);
    assert_eq!(err(&r), "bash: line 1: rm: command not found\n");
    assert!(root.join("a.txt").exists());
    let r = s.run("type rm; which find");
    assert_ne!(r.status, 0);
    assert!(
        r.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&r.stdout)
    );
    let help = String::from_utf8_lossy(&s.run("help").stdout).into_owned();
    let commands = help.lines().find(|l| l.starts_with("Commands: ")).unwrap();
    assert!(
        !commands.contains(" rm ") && !commands.contains(" find "),
        "{help}"
    );
    assert!(commands.contains(" grep "), "{help}");
    assert_alive(&mut s);
}

/// Policy rules move with the tree: a directory that holds read-only or hidden paths cannot
/// be renamed, moved or trashed, by any spelling, so no rule is left behind by moving what
/// it protects (`mv config c; echo evil > c/prod.yml; cat c/secret.key`).
#[test]
fn a_directory_holding_protected_paths_does_not_move() {
    let (_tmp, root) = tree();
    fs::create_dir_all(root.join("config/deep")).unwrap();
    fs::write(root.join("config/prod.yml"), b"PROD\n").unwrap();
    fs::write(root.join("config/deep/secret.key"), b"SECRET\n").unwrap();
    fs::write(root.join("config/other.txt"), b"other\n").unwrap();
    fs::create_dir_all(root.join("vault")).unwrap();
    fs::write(root.join("vault/only.key"), b"SECRET\n").unwrap();
    symlink(".", root.join("rootlink")).unwrap();
    let policy = "hidden = [\"config/deep/secret.key\", \"vault/only.key\"]\nread_only = [\"config/prod.yml\"]\n";
    let mut s = session(&root, policy);
    // Names and bytes (undo restores those; directory times move with their entries).
    let snapshot = || {
        crate::common::snapshot(&root, Some(&root.join(".trash")))
            .into_iter()
            .map(|(p, n)| match n {
                crate::common::Node::File { bytes, .. } => (p, Some(bytes)),
                _ => (p, None),
            })
            .collect::<Vec<_>>()
    };
    let before = snapshot();
    for (line, want) in [
        (
            "mv config c",
            "mv: cannot move 'config' to 'c': Read-only file system\n",
        ),
        (
            "mv config/ c",
            "mv: cannot move 'config/' to 'c': Read-only file system\n",
        ),
        (
            "mv ./config docs/c",
            "mv: cannot move './config' to 'docs/c': Read-only file system\n",
        ),
        (
            "mv rootlink/config c",
            "mv: cannot move 'rootlink/config' to 'c': Read-only file system\n",
        ),
        (
            "mv docs/../config c",
            "mv: cannot move 'docs/../config' to 'c': Read-only file system\n",
        ),
        (
            "mv config/deep d",
            "mv: cannot move 'config/deep' to 'd': Directory not empty\n",
        ),
        (
            "mv vault v",
            "mv: cannot move 'vault' to 'v': Directory not empty\n",
        ),
        (
            "rm -r config",
            "rm: cannot remove 'config': Read-only file system\n",
        ),
        (
            "rm -rf rootlink/config",
            "rm: cannot remove 'rootlink/config': Read-only file system\n",
        ),
        (
            "rm -r vault",
            "rm: cannot remove 'vault': Directory not empty\n",
        ),
        (
            "find vault -delete",
            "find: cannot delete 'vault': Directory not empty\n",
        ),
        (
            "find config -delete",
            // GNU says `Directory not empty` for `config`: its removals are all applied
            // before the command ends here, so the directory still holds the read-only file.
            "find: cannot delete 'config/prod.yml': Read-only file system\nfind: cannot delete 'config/deep': Directory not empty\nfind: cannot delete 'config': Read-only file system\n",
        ),
        (
            "cat c/deep/secret.key",
            "cat: c/deep/secret.key: No such file or directory\n",
        ),
        (
            "echo evil > c/prod.yml",
            "bash: line 1: c/prod.yml: No such file or directory\n",
        ),
    ] {
        let r = s.run(line);
        assert_eq!(err(&r), want, "{line}");
        assert_ne!(r.status, 0, "{line}");
    }
    // `find -delete` removed what it could see and may remove: other.txt (undo brings it
    // back); everything protected is where it was.
    assert_eq!(fs::read(root.join("config/prod.yml")).unwrap(), b"PROD\n");
    assert_eq!(
        fs::read(root.join("config/deep/secret.key")).unwrap(),
        b"SECRET\n"
    );
    assert_eq!(fs::read(root.join("vault/only.key")).unwrap(), b"SECRET\n");
    assert!(!root.join("config/other.txt").exists());
    let r = s.run("undo");
    assert_eq!(r.status, 0, "{}", err(&r));
    assert!(snapshot() == before, "undo did not bring the tree back");
    // A directory without protected paths still moves, and the moved files are the agent's.
    let r = s.run("mv docs d2 && mv d2 docs && rm -r docs/sub");
    assert_eq!(r.status, 0, "{}", err(&r));
    let r = s.run("undo");
    assert_eq!(r.status, 0, "{}", err(&r));
    assert!(snapshot() == before, "undo did not bring the tree back");
    assert_alive(&mut s);
}

/// The state directory and the policy's hidden directories do not show in link counts.
#[test]
fn link_counts_do_not_reveal_hidden_directories() {
    let (_tmp, root) = tree();
    fs::create_dir_all(root.join("secrets/inner")).unwrap();
    fs::create_dir_all(root.join("plain")).unwrap();
    let mut s = session(&root, "hidden = [\"secrets\", \"docs/sub\"]\n");
    // What a tree without the hidden directories would show: the root holds `docs` and
    // `plain` (2 + 2), `docs` holds nothing visible (2).
    for (line, want) in [
        ("stat -c %h .", "4\n"),
        ("stat -c %h docs", "2\n"),
        ("stat -c %h plain", "2\n"),
    ] {
        let r = s.run(line);
        if r.status == 127 {
            // No `stat` yet: read the count from `ls -ld`.
            let path = line.rsplit(' ').next().unwrap();
            let r = s.run(format!("ls -ld {path}"));
            let count = String::from_utf8_lossy(&r.stdout)
                .split_whitespace()
                .nth(1)
                .unwrap()
                .to_string();
            assert_eq!(format!("{count}\n"), want, "{line}");
        } else {
            assert_eq!(String::from_utf8_lossy(&r.stdout), want, "{line}");
        }
    }
}

/// The state directory's name is a free name for the agent: `mkdir .trash` works like
/// `mkdir .trash2`, the agent's `.trash` holds what it puts there, and the state directory
/// is untouched.
#[test]
fn the_state_dirs_name_is_a_free_name() {
    let (_tmp, root) = tree();
    let mut s = session(&root, "");
    let state = || crate::common::snapshot(&root.join(".trash"), None).len();
    let _ = s.run("touch x && rm x");
    let entries = state();
    for (line, out) in [
        ("mkdir .trash && echo made", "made\n"),
        ("touch .trash/a && ls -A .trash", "a\n"),
        ("ls -a | grep trash", ".trash\n"),
        ("mv .trash .t && ls -A .t && mv .t .trash", "a\n"),
        ("mkdir .trash~ && ls -d .trash*", ".trash\n.trash~\n"),
        ("rm -r .trash .trash~ && ls -a | grep -c trash", "0\n"),
    ] {
        let r = s.run(line);
        assert_eq!(
            (String::from_utf8_lossy(&r.stdout).into_owned(), err(&r)),
            (out.to_string(), String::new()),
            "{line}"
        );
    }
    // The state dir only gained the trash entries of the agent's own `rm`s.
    assert!(root.join(".trash/trash").is_dir());
    assert!(state() > entries);
    assert!(!root.join(".trash/a").exists());
}

/// A FIFO, a socket or a device in the sandbox never hangs a command: a FIFO without a
/// writer reads as empty (and with one, until the deadline), a socket cannot be opened, as
/// GNU answers, and `ls -l` shows each with its own type.
#[test]
fn fifos_and_sockets_never_hang() {
    let (_tmp, root) = tree();
    let fifo = root.join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        return;
    }
    let sock = root.join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let mut s = session(&root, "[limits]\ndeadline_ms = 2000\n");
    for (line, status, want_err) in [
        ("cat fifo", 0, ""),
        ("wc -l fifo", 0, ""),
        ("head -c 5 fifo", 0, ""),
        ("cat < fifo", 0, ""),
        (
            "echo hi > fifo",
            1,
            "bash: line 1: fifo: No such device or address\n",
        ),
        ("cat sock", 1, "cat: sock: No such device or address\n"),
    ] {
        let start = Instant::now();
        let r = s.run(line);
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{line} took {:?}",
            start.elapsed()
        );
        assert_eq!((r.status, err(&r).as_str()), (status, want_err), "{line}");
    }
    // A writer that never writes: the read waits until the deadline, then status 124.
    let writer = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .unwrap();
    let start = Instant::now();
    let r = s.run("cat fifo");
    assert_eq!(r.status, 124, "{}", err(&r));
    assert!(start.elapsed() < Duration::from_secs(5));
    drop(writer);
    assert_alive(&mut s);
}

/// The interpreter's per-line counters and depths: one bash-style line naming the limit,
/// status 2, the rest of the input skipped, the session alive — and the same answer on
/// every run (the counters are deterministic, unlike the deadline).
#[test]
fn interpreter_limits_stop_the_line_deterministically() {
    let (_tmp, root) = tree();
    let policy = r#"
[limits]
commands = 1000
loop_iterations = 300
call_depth = 50
subst_depth = 8
source_depth = 8
var_bytes = "64KiB"
array_elements = 100
changes = 20
"#;
    let cases: &[(&str, &str)] = &[
        (
            "while :; do :; done; echo not-here",
            "limit reached: more than 300 loop iterations in one command line (limits.loop_iterations); the rest was skipped",
        ),
        (
            "for ((i=0;;i++)); do for j in 1 2 3; do :; done; done",
            "limit reached: more than 300 loop iterations",
        ),
        (
            "f() { f; }; f; echo not-here",
            "f: maximum function nesting level exceeded (50)",
        ),
        (
            "f() { echo $(f); }; f",
            "limit reached: more than 8 nested command substitutions",
        ),
        (
            "e='eval \"$e\"'; eval \"$e\"",
            "limit reached: more than 8 nested source, eval and shell levels",
        ),
        ("x=aaaaaaaa; while :; do x=$x$x; done", "value too large"),
        (
            "a=(); i=0; while :; do a[i]=x; i=$((i+1)); done",
            "a: too many array elements (the limit is 100; limits.array_elements)",
        ),
        (
            "for i in $(seq 1 100 2>/dev/null || echo {1..100}); do touch f$i; done",
            "limit reached: more than 20 changes to the tree in one command line (limits.changes)",
        ),
        (
            "g() { :; }; for i in 1 2 3 4 5 6 7 8 9 10; do for j in 1 2 3 4 5 6 7 8 9 10; do g; g; g; g; g; g; done; done",
            "limit reached: more than 1000 commands run in one command line (limits.commands)",
        ),
    ];
    for (line, want) in cases {
        let mut answers = Vec::new();
        for _ in 0..2 {
            let mut s = session(&root, policy);
            let r = s.run(line);
            let e = err(&r);
            assert!(e.contains(want), "{line}: {e}");
            assert!(
                !String::from_utf8_lossy(&r.stdout).contains("not-here"),
                "{line}"
            );
            assert_alive(&mut s);
            answers.push((r.status, e));
        }
        assert_eq!(answers[0], answers[1], "{line}: not deterministic");
    }
}

/// Recursion up to the default limits fits the stack of the thread a host runs the
/// session on (a test's thread has 2 MiB).
#[test]
fn deep_recursion_at_the_default_limits_does_not_overflow() {
    let (_tmp, root) = tree();
    let mut s = session(&root, "");
    let r = s.run("f() { if (( $1 > 0 )); then f $(( $1 - 1 )); else echo bottom; fi; }; f 990");
    assert_eq!(r.stdout, b"bottom\n", "{}", err(&r));
    let r = s.run("f() { f; }; f");
    assert!(
        err(&r).contains("maximum function nesting level exceeded (1000)"),
        "{}",
        err(&r)
    );
    let r = s.run("f() { echo $(f); }; f");
    assert!(
        err(&r).contains("nested command substitutions"),
        "{}",
        err(&r)
    );
    assert_alive(&mut s);
}

#[test]
fn deadline_stops_runaway_text_tools_and_the_commands_they_start() {
    let (_tmp, root) = tree();
    let mut s = session(&root, "[limits]\ndeadline_ms = 300\n");
    for line in [
        "awk 'BEGIN { while (1); }'",
        "awk 'BEGIN { while (1) x++ }'",
        "awk 'BEGIN { for (;;) { } }'",
        "sed ':a;ba' a.txt",
        "yes | sed 's/y/n/' > /dev/null",
        "yes | awk '{ n++ }'",
        "sleep 10",
        "yes | xargs echo > /dev/null",
        "find . -exec sh -c 'while :; do :; done' \\;",
        "awk 'BEGIN { system(\"while :; do :; done\") }'",
        "env sh -c 'while :; do :; done'",
        "echo x | xargs sh -c 'while :; do :; done'",
    ] {
        assert_stops_at_deadline(&mut s, line);
    }
}

#[test]
fn awk_and_regex_bounds_end_the_command_not_the_session() {
    let (_tmp, root) = tree();
    let mut s = session(&root, "");
    // Runaway recursion: a fatal error at 1000 calls, status 2.
    let r = s.run("awk 'function f(n) { return f(n + 1) } BEGIN { f(1) }'; echo \"rc=$?\"");
    assert_eq!(r.stdout, b"rc=2\n", "{}", err(&r));
    assert!(
        err(&r).contains("fatal: function `f': call depth too large"),
        "{}",
        err(&r)
    );
    assert_alive(&mut s);
    // Strings that double without end: stopped at the hold cap (256 MiB).
    let r = s.run("awk 'BEGIN { s = \"x\"; while (1) s = s s }'; echo \"rc=$?\"");
    assert_eq!(r.stdout, b"rc=2\n", "{}", err(&r));
    assert!(err(&r).contains("fatal: memory exhausted"), "{}", err(&r));
    assert_alive(&mut s);
    // A back-reference pattern that would backtrack exponentially: the step budget ends
    // the search (no match) and sed goes on with the next line.
    let r = s.run(format!(
        "printf '{}\\nok\\n' | sed -n '/\\(\\(a*\\)*\\)*\\1b/p; /ok/p'",
        "a".repeat(40)
    ));
    assert_eq!(r.stdout, b"ok\n", "{}", err(&r));
    assert_eq!(r.status, 0);
    assert_alive(&mut s);
}

#[test]
fn commands_starting_commands_nest_to_a_bound() {
    let (_tmp, root) = tree();
    let mut s = session(&root, "");
    // `env env env ... echo`: each level is one command line started by another.
    let r = s.run(format!("{}echo deep", "env ".repeat(200)));
    assert!(r.stdout.is_empty(), "{}", err(&r));
    assert_eq!(
        err(&r),
        "bash: line 1: limit reached: more than 32 nested commands in one command line \
         (limits.subst_depth); the rest was skipped\n"
    );
    assert_alive(&mut s);
    // Within the bound it runs.
    let r = s.run(format!("{}echo deep", "env ".repeat(20)));
    assert_eq!(r.stdout, b"deep\n", "{}", err(&r));
}

#[test]
fn a_decompression_bomb_stops_at_its_cap_and_the_session_goes_on() {
    let (_tmp, root) = tree();
    // 300 MiB of zeros, compressed by the host's gzip to a few hundred KB: past the cap of
    // one decompressed member (256 MiB).
    let zeros = std::process::Command::new("bash")
        .arg("-c")
        .arg("head -c 314572800 /dev/zero | gzip -c")
        .output()
        .unwrap();
    assert!(zeros.status.success());
    fs::write(root.join("bomb.gz"), &zeros.stdout).unwrap();
    let mut s = session(&root, "");
    let r = s.run("gunzip bomb.gz; echo \"rc=$?\"; ls bomb*");
    assert_eq!(r.stdout, b"rc=1\nbomb.gz\n", "{}", err(&r));
    assert!(err(&r).contains("Disk quota exceeded"), "{}", err(&r));
    assert!(!root.join("bomb").exists());
    assert_alive(&mut s);
}

#[test]
fn toolbox_caps_end_the_command_not_the_session() {
    let (_tmp, root) = tree();
    let mut s = session(&root, "");
    // jq 1.6 refuses a text nested deeper than 256 levels, with its status 4.
    let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
    fs::write(root.join("deep.json"), deep).unwrap();
    let r = s.run("jq -c . deep.json; echo \"rc=$?\"");
    assert!(
        String::from_utf8_lossy(&r.stdout).ends_with("rc=4\n"),
        "{}",
        err(&r)
    );
    assert!(
        err(&r).contains("Exceeds depth limit for parsing"),
        "{}",
        err(&r)
    );
    assert_alive(&mut s);
    // od's line width would need a buffer past 16 MiB: GNU-style "memory exhausted".
    let r = s.run("echo x | od -w100000000; echo \"rc=$?\"");
    assert_eq!(r.stdout, b"rc=1\n", "{}", err(&r));
    assert_eq!(err(&r), "od: memory exhausted\n");
    assert_alive(&mut s);
    // Endless repetition into a file stops at 1 MiB instead of filling the quota.
    let r = s.run("shuf -r -e a b -o out; echo \"rc=$?\"; wc -c < out");
    let out = String::from_utf8_lossy(&r.stdout).into_owned();
    let size: u64 = out.lines().last().unwrap().trim().parse().unwrap();
    assert!(out.starts_with("rc="), "{out}");
    assert!((1 << 20..(1 << 20) + 4096).contains(&size), "{size}");
    assert_alive(&mut s);
}

/// A session charges small writes from a lease of the quota it holds ahead: `df` does not
/// count that as used (before the fix, one 2-byte write showed 64 KiB more).
#[test]
fn df_does_not_count_what_a_session_holds_ahead() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    fs::create_dir_all(&root).unwrap();
    let mut s = session(&root, "");
    let used = |s: &mut trumansh::Session| {
        let r = s.run("df --output=used . | tail -n 1");
        assert_eq!(r.status, 0, "{}", err(&r));
        String::from_utf8_lossy(&r.stdout)
            .trim()
            .parse::<u64>()
            .unwrap()
    };
    let before = used(&mut s);
    assert_eq!(s.run("echo x > f").status, 0);
    let after = used(&mut s);
    // The file's 2 bytes and the audit log's records: a few KiB at most.
    assert!(after < before + 16, "{before} KiB, then {after} KiB");
}
