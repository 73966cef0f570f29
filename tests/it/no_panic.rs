//! No input line can panic the shell, hang it, or leave it unusable.
//!
//! Random lines — raw random bytes, and a "token soup" of shell words, operators, quotes,
//! redirections, globs, braces, `$` forms and command names — are fed to a `Session` on a fresh
//! temp copy of a small tree. Each line must return (a panic fails the case), within a second,
//! and `echo ok` must still answer `ok` afterwards (unless the line ran `exit`).
//!
//! The default is proptest's 256 cases per property, to keep CI fast. Run longer with e.g.
//!
//! ```text
//! PROPTEST_CASES=20000 cargo test --release --test it no_panic::
//! ```
//!
//! A failing case is shrunk and saved under `proptest-regressions/` so it is replayed first.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::os::unix::fs::symlink;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use trumansh::{Captured, Config, Session};

/// Per-line budget. Debug builds are slow; the bound is still far below anything a hang or a
/// runaway expansion would take.
const BUDGET: Duration = Duration::from_secs(1);

const TOKENS: &[&str] = &[
    // command names (known and not)
    "echo",
    "cat",
    "ls",
    "cd",
    "rm",
    "mkdir",
    "touch",
    "pwd",
    "export",
    "unset",
    "type",
    "which",
    "help",
    "true",
    "false",
    "exit",
    "nosuchcmd",
    "grep",
    "./file.txt",
    "/bin/ls",
    // options
    "-",
    "--",
    "-r",
    "-rf",
    "-f",
    "-p",
    "-a",
    "-l",
    "-la",
    "-n",
    "-e",
    "-E",
    "-P",
    "-L",
    "-v",
    "-m",
    "755",
    "--help",
    "--version",
    "-x",
    "-1",
    "-R",
    "-d",
    // operands
    "x",
    "y",
    "file.txt",
    "dir",
    "dir/",
    "dir/inner.txt",
    "link",
    "dangling",
    "loop",
    ".",
    "..",
    "../..",
    "/",
    "//",
    "/etc/passwd",
    "~",
    "~/",
    "~user",
    ".hidden",
    ".trash",
    ".trash/journal.jsonl",
    "rootlink/.trash",
    "''",
    "\"\"",
    "a b",
    "0",
    "-0",
    "99999999999",
    // operators
    "|",
    "||",
    "&&",
    ";",
    ";;",
    "&",
    "!",
    "(",
    ")",
    "{",
    "}",
    "\n",
    "\n\n",
    "\t",
    // redirections
    ">",
    ">>",
    "<",
    "<<",
    "<<-",
    "<<<",
    "2>",
    "2>>",
    "2>&1",
    ">&2",
    "1>&2",
    "&>",
    "&>>",
    ">&",
    "<&-",
    ">&-",
    "3>",
    "9<&0",
    ">|",
    "<>",
    "> x",
    "< file.txt",
    "<<EOF",
    "EOF",
    "<<'EOF'",
    // quotes and escapes
    "'",
    "\"",
    "\\",
    "\\\n",
    "'a'",
    "\"a $X\"",
    "$'\\n'",
    "$'\\0'",
    "$'\\x41'",
    "$\"x\"",
    "`",
    "`echo`",
    "\\*",
    "\\$",
    "#",
    "# comment",
    // globs and braces
    "*",
    "?",
    "**",
    "*.txt",
    "[",
    "]",
    "[a-z]*",
    "[!a]",
    "[]]",
    "d*/*",
    "*/",
    ".*",
    "{a,b}",
    "{1..3}",
    "{a..c}",
    "{,}",
    "{x}",
    "{1..10..2}",
    "{a,b}{c,d}",
    "x{",
    "}x",
    "{{a,b}}",
    // parameters
    "$",
    "$X",
    "${X}",
    "${X:-y}",
    "${X:=z}",
    "${X:+w}",
    "${X:?unset}",
    "${#X}",
    "$?",
    "$$",
    "$#",
    "$@",
    "$*",
    "$0",
    "$1",
    "$!",
    "$-",
    "${",
    "${}",
    "${X",
    "$(",
    "$(echo)",
    "$((1+1))",
    "$HOME",
    "$PWD",
    "$OLDPWD",
    "$IFS",
    "X=1",
    "X=",
    "IFS=/",
    "PATH=",
    "HOME=/",
    "X=$X$X",
    "=",
    "==",
    "%",
    "^",
];

fn tree() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let r = t.path();
    fs::write(r.join("file.txt"), b"hello\nworld\n").unwrap();
    fs::write(r.join(".hidden"), b"h\n").unwrap();
    fs::create_dir_all(r.join("dir/sub")).unwrap();
    fs::write(r.join("dir/inner.txt"), b"inner\n").unwrap();
    symlink("file.txt", r.join("link")).unwrap();
    symlink("nowhere", r.join("dangling")).unwrap();
    symlink("loop", r.join("loop")).unwrap();
    symlink(".", r.join("rootlink")).unwrap();
    t
}

/// Runs one random line and checks the session survives it.
fn survive(line: &[u8]) -> Result<(), TestCaseError> {
    let t = tree();
    let mut session = Session::new(Config::new(t.path())).unwrap();
    let mut sink = Captured::default();
    let start = Instant::now();
    let _status = session.run_input(line, 1, &mut sink);
    let took = start.elapsed();
    prop_assert!(
        took < BUDGET,
        "line {:?} took {took:?}",
        String::from_utf8_lossy(line)
    );
    if session.exit_status().is_none() {
        let start = Instant::now();
        let r = session.run("echo ok");
        prop_assert!(start.elapsed() < BUDGET);
        prop_assert_eq!(
            String::from_utf8_lossy(&r.stdout),
            "ok\n",
            "after {:?}",
            String::from_utf8_lossy(line)
        );
        prop_assert_eq!(r.status, 0);
    }
    Ok(())
}

fn soup() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(prop::sample::select(TOKENS), 0..16),
        prop::collection::vec(prop::sample::select(&[" ", "", " ", "\t"][..]), 16),
    )
        .prop_map(|(tokens, seps)| {
            let mut line = Vec::new();
            for (i, t) in tokens.iter().enumerate() {
                line.extend_from_slice(t.as_bytes());
                line.extend_from_slice(seps[i % seps.len()].as_bytes());
            }
            line
        })
}

/// Bytes biased towards the shell's special characters.
fn shellish_bytes() -> impl Strategy<Value = Vec<u8>> {
    let special = prop::sample::select(b"$'\"\\`{}[]()*?~<>|&;!#=-/. \n\tax0129".to_vec());
    prop::collection::vec(prop_oneof![3 => special, 1 => any::<u8>()], 0..64)
}

proptest! {
    #[test]
    fn random_bytes_never_panic(line in prop::collection::vec(any::<u8>(), 0..128)) {
        survive(&line)?;
    }

    #[test]
    fn shellish_bytes_never_panic(line in shellish_bytes()) {
        survive(&line)?;
    }

    #[test]
    fn token_soup_never_panics(line in soup()) {
        survive(&line)?;
    }
}

/// A few lines that once looked dangerous, kept as fixed cases.
#[test]
fn known_edge_lines() {
    for line in [
        "",
        "\n",
        ";",
        "|",
        "echo {1..100000} > /dev/null",
        "echo ${X:=$X$X$X$X}",
        "echo */*/*/*/*/*/*/*",
        "echo rootlink/rootlink/rootlink/rootlink/*",
        "cat loop",
        "echo x > loop",
        "cd rootlink/rootlink/rootlink && pwd && cd .. && pwd",
        "rm -rf / ; echo after",
        "rm -rf . ..; ls -a",
        "cat <<EOF\n$X\nEOF",
        "cat <<",
        "echo $'\\0' $'\\x00' \"$'\\0'\"",
        "echo \\",
        "exit 300",
        "exit -1",
        "exit x",
    ] {
        survive(line.as_bytes()).unwrap();
    }
}
