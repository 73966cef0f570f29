//! The interactive REPL, driven through a real pseudo-terminal (util-linux `script` gives the
//! binary a tty): prompt, tab completion of paths and command names, the continuation prompt,
//! Ctrl-C, Ctrl-D, interactive error form, history kept in the state directory, and the
//! session recorded with `--record`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::process::Command;
use std::time::Duration;

use crate::common;

/// Drops ANSI escape sequences and carriage returns from the terminal's output.
fn plain(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => {
                if chars.peek() == Some(&'[') {
                    chars.next();
                    while let Some(&d) = chars.peek() {
                        chars.next();
                        if d.is_ascii_alphabetic() || d == '~' {
                            break;
                        }
                    }
                }
            }
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

#[test]
fn repl_prompts_completes_continues_and_keeps_history() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("src")).unwrap();
    let bin = env!("CARGO_BIN_EXE_trumansh");
    let record = dir.path().join("repl.transcript");
    let cmd = format!(
        "{bin} --root {} --mount-point /home/user --record {}",
        root.display(),
        record.display()
    );
    let mut child =
        common::spawn_with_pipes(Command::new("script").args(["-qfec", &cmd, "/dev/null"]));
    let mut stdin = child.stdin.take().unwrap();
    // Each key sequence is sent once the previous one has been handled.
    for keys in [
        &b"cd sr\t\n"[..],
        b"pwd\n",
        b"ech\t\"a\n",
        b"b\"\n",
        b"cd nope\n",
        b"half-typed\x03",
        b"echo after-ctrl-c\n",
        b"\x04",
    ] {
        stdin.write_all(keys).unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(Duration::from_millis(300));
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let screen = plain(&out.stdout);
    for expected in [
        "user@sandbox:~$ cd src/",
        "user@sandbox:~/src$ pwd\n/home/user/src\n",
        "user@sandbox:~/src$ echo \"a\n> b\"\na\nb\n",
        "bash: cd: nope: No such file or directory\n",
        "after-ctrl-c\n",
        "exit\n",
    ] {
        assert!(
            screen.contains(expected),
            "missing {expected:?} in the screen:\n{screen}"
        );
    }
    assert!(out.status.success(), "status {:?}\n{screen}", out.status);
    let history = std::fs::read_to_string(root.join(".trash/history")).unwrap();
    assert_eq!(
        history,
        "cd src/\npwd\necho \"a\\nb\"\ncd nope\necho after-ctrl-c\n"
    );
    // --record: the REPL's transcript (the line dropped by Ctrl-C is not in it), which
    // replays without change on a tree like the one the session started from.
    let transcript = std::fs::read_to_string(&record).unwrap();
    assert_eq!(
        transcript,
        "# trumansh transcript v1 mount-point=/home/user errors=interactive lines=stream stdout=terminal\n\
         $ cd src/\n\
         $ pwd\n\
         /home/user/src\n\
         $ echo \"a\n\
         > b\"\n\
         a\n\
         b\n\
         $ cd nope\n\
         [stderr] bash: cd: nope: No such file or directory\n\
         [exit 1]\n\
         $ echo after-ctrl-c\n\
         after-ctrl-c\n"
    );
    let fresh = dir.path().join("fresh");
    std::fs::create_dir_all(fresh.join("src")).unwrap();
    let out = Command::new(bin)
        .args([
            "replay",
            record.to_str().unwrap(),
            "--root",
            fresh.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(
        (
            String::from_utf8_lossy(&out.stdout).as_ref(),
            out.status.code()
        ),
        ("", Some(0))
    );
}
