//! Fifos, sockets and devices in the tree (which the transcripts' tree copies leave out): each
//! command is run by trumansh and by real bash with GNU's tools on the same tree and their
//! stdout, stderr and status compared; where bash would wait for a fifo's writer or reader
//! (or make a fifo trumansh cannot), trumansh's deliberate answer is asserted.
//!
//! The tree: `d/f` (`hi`), `d/ff` (a fifo, `mkfifo`), `d/sock` (a socket, bound here), and,
//! when the tests run as root, `d/c` (a character device 1,3, `mknod`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Stdio};

use trumansh::{Config, Session};

/// Makes the tree under `root`; whether it holds the character device.
fn make_tree(root: &Path) -> bool {
    let d = root.join("d");
    std::fs::create_dir(&d).unwrap();
    std::fs::write(d.join("f"), "hi\n").unwrap();
    let ok = Command::new("mkfifo")
        .arg(d.join("ff"))
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo failed");
    drop(std::os::unix::net::UnixListener::bind(d.join("sock")).unwrap());
    Command::new("mknod")
        .arg(d.join("c"))
        .args(["c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn session(root: &Path) -> Session {
    let mut config = Config::new(root);
    config.sandbox.mount_point = Some(root.to_path_buf());
    Session::new(config).unwrap()
}

/// (stdout, stderr, status) of one command in trumansh.
fn ours(s: &mut Session, cmd: &str) -> (String, String, i32) {
    let out = s.run(cmd);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status,
    )
}

/// (stdout, stderr, status) of one command in real bash (`bash -c`, `LC_ALL=C`).
fn bash(root: &Path, cmd: &str) -> (String, String, i32) {
    let out = Command::new("bash")
        .arg("-c")
        .arg(cmd)
        .current_dir(root)
        .env_clear()
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env("PATH", trumansh::session::PATH)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    crate::common::texts(&out)
}

fn compare(root: &Path, s: &mut Session, cmds: &[&str]) {
    let mut failures = Vec::new();
    for cmd in cmds {
        let (theirs, mine) = (bash(root, cmd), ours(s, cmd));
        if theirs != mine {
            failures.push(format!(
                "`{cmd}`\n  bash:     {theirs:?}\n  trumansh: {mine:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn special_files_as_gnu() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let device = make_tree(&root);
    let mut s = session(&root);
    compare(
        &root,
        &mut s,
        &[
            // Kinds: ls's mode letter and indicators, find's -type, %y and %Y.
            "ls d",
            "ls -F d",
            "ls -p d",
            "ls -l d | cut -c1-10",
            "ls -lF d | grep -o '[^ ]*$'",
            "find d -type p",
            "find d -type s",
            "find d -type p,s | sort",
            "find d -printf '%y %Y %p\\n' | sort",
            "find d -empty | sort",
            "ls -l /dev/null | cut -d' ' -f1,5,6",
            "find /dev/null -printf '%y %Y\\n'",
            // rm names the kind in its prompt.
            "rm -i d/ff d/sock /dev/null < /dev/null",
            // grep: devices, fifos and sockets skipped when recursing, and with -D skip.
            "grep -r hi d",
            "grep -D skip hi d/ff d/sock d/f",
            // A socket cannot be opened: ENXIO, in each command's words.
            "cat d/sock",
            "wc d/sock",
            "head -n 1 d/sock",
            "tail -n 1 d/sock",
            "sort d/sock",
            "cut -c1 d/sock",
            "uniq d/sock",
            "grep hi d/sock",
            "cp d/sock x",
            "cp /dev/null e; wc -c e",
        ],
    );
    if device {
        compare(
            &root,
            &mut s,
            &[
                "ls -l d/c | cut -d' ' -f1,5,6",
                "ls -l d | cut -c1-10",
                "ls -lF d | grep -o '[^ ]*$'",
                "find d -type c",
                "rm -i d/c < /dev/null",
                "wc -c d/c",
                "cp d/c x2; wc -c x2",
            ],
        );
    }
}

#[test]
fn a_fifo_is_never_waited_for() {
    // bash would wait for a writer (beyond any deadline: the open blocks). trumansh opens it
    // without blocking: with no writer it reads as empty, at once; a write finds no reader
    // (ENXIO, as a non-blocking open answers); `cp -r` cannot make a fifo or a socket.
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    make_tree(&root);
    let mut s = session(&root);
    for (cmd, out, status) in [
        ("cat d/ff", "", 0),
        ("wc -l d/ff", "0 d/ff\n", 0),
        ("head d/ff", "", 0),
        ("tail -n 1 d/ff", "", 0),
        ("grep x d/ff", "", 1),
        ("sort d/ff", "", 0),
        ("cat < d/ff", "", 0),
        ("cp d/ff x && wc -c x", "0 x\n", 0),
        ("touch d/ff", "", 0),
    ] {
        let start = std::time::Instant::now();
        let got = ours(&mut s, cmd);
        assert_eq!(got, (out.to_string(), String::new(), status), "{cmd}");
        assert!(start.elapsed() < std::time::Duration::from_secs(5), "{cmd}");
    }
    for (cmd, err) in [
        (
            "echo hi > d/ff",
            "bash: line 1: d/ff: No such device or address\n",
        ),
        (
            "echo hi >> d/ff",
            "bash: line 1: d/ff: No such device or address\n",
        ),
        (
            "cp d/f d/ff",
            "cp: cannot create regular file 'd/ff': No such device or address\n",
        ),
        (
            "cp -r d e",
            "cp: cannot create fifo 'e/ff': Operation not permitted\n\
             cp: cannot create special file 'e/sock': Operation not permitted\n",
        ),
    ] {
        let (out, mut got, status) = ours(&mut s, cmd);
        if cmd == "cp -r d e" {
            // In inode order, as GNU copies; the device may be there too.
            let mut lines: Vec<&str> = got.lines().filter(|l| !l.contains("'e/c'")).collect();
            lines.sort_unstable();
            got = lines.iter().map(|l| [l, "\n"].concat()).collect();
        }
        assert_eq!((out.as_str(), got.as_str()), ("", err), "{cmd}");
        assert_ne!(status, 0, "{cmd}");
    }
    assert_eq!(ours(&mut s, "cat e/f").0, "hi\n");
}

#[test]
fn device_numbers_in_ls_long() {
    // GNU 9.1 as root on `mknod c c 1 3; mknod b b 7 0; truncate -s 123456 big`: a
    // device's `major, minor` widen the size column, each part aligned on its own.
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let made = ["c c 1 3", "b b 7 0", "c c2 10 237"].iter().all(|spec| {
        let args: Vec<&str> = spec.split(' ').collect();
        Command::new("mknod")
            .arg(root.join(args[1]))
            .args([args[0], args[2], args[3]])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    if !made {
        eprintln!("device_numbers_in_ls_long: not root, mknod refused; skipped");
        return;
    }
    std::fs::File::create(root.join("big"))
        .unwrap()
        .set_len(123_456)
        .unwrap();
    let mut s = session(&root);
    // Run as root (mknod worked): GNU's owner columns say `root root`, trumansh's the
    // sandbox's `user user`, of the same width.
    let theirs = bash(&root, "ls -l").0.replace(" root root ", " user user ");
    let mine = ours(&mut s, "ls -l");
    assert_eq!(mine, (theirs, String::new(), 0));
    assert!(mine.0.contains(" user user  7,   0 "), "{}", mine.0);
    assert!(mine.0.contains(" user user 10, 237 "), "{}", mine.0);
    assert!(mine.0.contains(" user user  123456 "), "{}", mine.0);
}
