//! No input line can panic the shell, hang it, or leave it unusable.
//!
//! Random lines — raw random bytes, a "token soup" of shell words, operators, quotes,
//! redirections, globs, braces, `$` forms and command names, the same soup with the compound
//! syntax mixed in (`if`/`for`/`while`/`case`/`function`/`{ }`/`( )`/`(( ))`/`[[ ]]`, `$(`,
//! backquotes, `$((`, `;;`, newlines...), and well-formed programs generated from the grammar
//! (nested loops, functions, `case`, conditions, substitutions, here-documents inside `$(...)`),
//! each also with one token dropped in at random — are fed to a `Session` on a fresh temp copy
//! of a small tree. Each line must return (a panic fails the case) within a few seconds, and
//! `echo ok` must still answer `ok` afterwards (unless the line ran `exit`).
//!
//! The session runs under a tight policy ([`policy`]): a line ends at its deadline (250 ms) or
//! after a few thousand commands or loop iterations, so `while :; do :; done` or a function
//! calling itself end quickly.
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

/// Per-line budget. Debug builds are slow, and CI machines loaded: a 100,000-word brace
/// expansion (which no deadline interrupts) takes 1–1.5 s there. The bound is still far
/// above the policy's deadline and far below anything a hang, or a loop that stopped
/// counting against its limits, would take.
const BUDGET: Duration = Duration::from_secs(3);

/// The session's policy: a deadline well inside [`BUDGET`], and counts that end a runaway
/// loop in a fraction of it even in a debug build.
///
/// `call_depth` is 100, not the default 1000, so that deep recursion ends quickly (the default
/// is tested in [`known_crashes`]).
fn policy(config: &mut Config) {
    let l = &mut config.policy.limits;
    l.deadline_ms = 250;
    l.commands = 10_000;
    l.loop_iterations = 5_000;
    l.call_depth = 100;
}

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

/// The compound syntax, for the second soup (mixed with [`TOKENS`]).
const COMPOUND: &[&str] = &[
    "if",
    "then",
    "elif",
    "else",
    "fi",
    "for",
    "in",
    "do",
    "done",
    "while",
    "until",
    "case",
    "esac",
    "select",
    "function",
    "time",
    "{",
    "}",
    "(",
    ")",
    "((",
    "))",
    "[[",
    "]]",
    "$(",
    "$((",
    "`",
    ";;",
    ";&",
    ";;&",
    ";",
    "\n",
    "\n",
    "&&",
    "||",
    "|",
    "!",
    "f()",
    "f",
    "g",
    "i",
    "x",
    "$i",
    "$x",
    "$1",
    "$@",
    "\"$@\"",
    "i=0",
    "x=$((x+1))",
    "((i++))",
    "i<3",
    "i++",
    ";i<3;i++",
    "==",
    "!=",
    "=~",
    "-eq",
    "-lt",
    "-f",
    "-z",
    "-n",
    "*)",
    "a|b)",
    "break",
    "continue",
    "return",
    "local",
    "shift",
    "set",
    "-e",
    "-u",
    "-o",
    "pipefail",
    "eval",
    "source",
    ".",
    "bash",
    "s.sh",
    "let",
    "declare",
    "unset",
    "exit",
    ":",
    "true",
    "false",
    "echo",
    "cat",
    "read",
    "test",
    "[",
    "]",
    "<<EOF",
    "EOF",
    "<<-EOF",
    "< file.txt",
    "> out.txt",
    "2>&1",
    "))",
    "1",
    "0",
    "+",
    "-",
    "*",
    "/",
    "%",
    "**",
    "<<",
    "?",
    ":",
    ",",
    "=",
    "+=",
    "16#ff",
    "08",
    "9223372036854775807",
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
    fs::write(r.join("s.sh"), b"echo in script $# $1\nx=$((x+1))\n").unwrap();
    t
}

/// The stack the session runs on: a main thread's (8 MiB), what the CLI and the MCP server
/// give it — not a test thread's 2 MiB.
const SESSION_STACK: usize = 8 << 20;

/// Runs one random line and checks the session survives it, on a thread with
/// [`SESSION_STACK`] (a panic there is raised again here, for proptest to catch and shrink).
fn survive(line: &[u8]) -> Result<(), TestCaseError> {
    let line = line.to_vec();
    let run = std::thread::Builder::new()
        .stack_size(SESSION_STACK)
        .spawn(move || survive_here(&line))
        .unwrap();
    match run.join() {
        Ok(result) => result,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

fn survive_here(line: &[u8]) -> Result<(), TestCaseError> {
    let t = tree();
    let mut config = Config::new(t.path());
    policy(&mut config);
    let mut session = Session::new(config).unwrap();
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

/// The soup of [`TOKENS`] and [`COMPOUND`], more of the second; longer lines.
fn compound_soup() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        1 => prop::sample::select(TOKENS),
        2 => prop::sample::select(COMPOUND),
    ];
    (
        prop::collection::vec(token, 0..32),
        prop::collection::vec(prop::sample::select(&[" ", "", " ", "; ", "\n"][..]), 32),
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

/// Simple commands for the generated programs: output, assignments, control flow (`break`,
/// `return`, `exit` — rarely), calls of the functions the programs define, builtins that change
/// the shell, substitutions, reads of the tree.
const SIMPLE: &[&str] = &[
    "echo $i",
    "echo \"$x\" >> out.txt",
    ":",
    "true",
    "false",
    "break",
    "continue",
    "break 2",
    "continue 2",
    "return",
    "return 7",
    "f",
    "f a b",
    "g $i",
    "local v=$1",
    "x=$((x+1))",
    "i=0",
    "shift",
    "set -e",
    "set +e",
    "set -u",
    "set -o pipefail",
    "cat file.txt",
    "ls dir",
    "cat < file.txt | grep o",
    "read l",
    "eval 'echo ev; x=$((x*2))'",
    "source s.sh a",
    ". ./s.sh",
    "bash s.sh b",
    "unset -f f",
    "unset x",
    "cd dir",
    "cd ..",
    "echo $(( i % 3 )) $(( x / i ))",
    "[ -f file.txt ]",
    "test $i -gt 2",
    "v=$(echo sub $i)",
    "echo `echo bq`",
    "echo ${x:-d} ${#x} ${x/1/2}",
    "echo ${u:?unset}",
    "(( x > 3 ))",
    "let x++",
    "echo a | f",
    "f | cat",
    "$(echo f)",
];

/// Conditions of `if`, `while`, `until`.
const CONDS: &[&str] = &[
    "true",
    "false",
    ":",
    "(( i < 3 ))",
    "(( x++ < 4 ))",
    "[[ -f file.txt ]]",
    "[[ $x == *1* || -z $x ]]",
    "[[ $i =~ ^[0-9]+$ ]]",
    "[ -n \"$x\" ]",
    "read l",
    "f",
    "! false",
    "test -d dir",
];

/// The word lists of `for` and the words of `case`.
const WORDS: &[&str] = &[
    "a b c",
    "*",
    "$x",
    "\"$@\"",
    "{1..3}",
    "$(echo 1 2)",
    "",
    "dir/*",
    "$(seq 3)",
];
const PATTERNS: &[&str] = &["a", "*", "a|b", "[0-9]*", "\"$x\"", "?", "*.txt", "1|2|3"];

/// Well-formed programs from the grammar: nested compound commands and definitions.
fn program() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(SIMPLE).prop_map(String::from);
    leaf.prop_recursive(5, 64, 4, |inner| {
        let list = prop::collection::vec(inner.clone(), 1..4).prop_map(|v| v.join("; "));
        let cond = prop_oneof![
            3 => prop::sample::select(CONDS).prop_map(String::from),
            1 => inner.clone(),
        ];
        let words = prop::sample::select(WORDS);
        let pattern = prop::sample::select(PATTERNS);
        prop_oneof![
            list.clone(),
            (cond.clone(), list.clone(), list.clone())
                .prop_map(|(c, a, b)| format!("if {c}; then {a}; else {b}; fi")),
            (cond.clone(), list.clone(), cond.clone(), list.clone())
                .prop_map(|(c, a, d, b)| format!("if {c}; then {a}; elif {d}; then {b}; fi")),
            (words.clone(), list.clone()).prop_map(|(w, b)| format!("for i in {w}; do {b}; done")),
            (0..6u8, list.clone())
                .prop_map(|(n, b)| format!("for ((i=0;i<{n};i++)); do {b}; done")),
            (cond.clone(), list.clone()).prop_map(|(c, b)| format!("while {c}; do {b}; done")),
            (cond, list.clone()).prop_map(|(c, b)| format!("until {c}\ndo\n{b}\ndone")),
            (words, pattern, list.clone(), list.clone())
                .prop_map(|(w, p, a, b)| format!("case {w} in {p}) {a} ;; *) {b} ;& esac")),
            list.clone().prop_map(|b| format!("f() {{ {b}; }}")),
            list.clone().prop_map(|b| format!("function g {{\n{b}\n}}")),
            list.clone()
                .prop_map(|b| format!("{{ {b}; }} > out.txt 2>&1")),
            list.clone().prop_map(|b| format!("( {b} )")),
            list.clone().prop_map(|b| format!("v=$({b}); echo \"$v\"")),
            list.clone().prop_map(|b| format!("echo $(( $({b}) + 1 ))")),
            list.clone()
                .prop_map(|b| format!("x=$(cat <<EOF\n$({b})\nEOF\n)")),
            list.clone()
                .prop_map(|b| format!("while read l; do {b}; done < file.txt")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} && {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} || {b}")),
            // A program on one side of a pipe only: `f | f` in the body of `f` multiplies the
            // stage threads without bound (see `known_crashes`).
            inner.clone().prop_map(|a| format!("{a} | cat")),
            inner.prop_map(|b| format!("echo x | {b}")),
        ]
    })
}

/// A few programs, a line each: a definition on one line is called on the next.
fn programs() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(program(), 1..4).prop_map(|v| v.join("\n").into_bytes())
}

/// A program with one token of [`COMPOUND`] dropped in at a random place (or one byte cut):
/// near misses of the grammar, which reach the parser's error paths deep inside constructs.
fn mutated_program() -> impl Strategy<Value = Vec<u8>> {
    (
        program(),
        any::<prop::sample::Index>(),
        prop::sample::select(COMPOUND),
        any::<bool>(),
    )
        .prop_map(|(p, at, token, insert)| {
            let mut bytes = p.into_bytes();
            let at = at.index(bytes.len() + 1);
            if insert {
                bytes.splice(at..at, token.bytes().chain([b' ']));
            } else if at < bytes.len() {
                bytes.remove(at);
            }
            bytes
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

    #[test]
    fn compound_soup_never_panics(line in compound_soup()) {
        survive(&line)?;
    }

    #[test]
    fn programs_never_panic(line in programs()) {
        survive(&line)?;
    }

    #[test]
    fn mutated_programs_never_panic(line in mutated_program()) {
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
        // The compound syntax: runaway loops and recursion end at the policy's limits.
        "while :; do :; done",
        "until false; do :; done; echo after",
        "for ((;;)); do x=$((x+1)); done",
        "f() { f; }; f",
        "f() { f | cat; }; f",
        "f() { echo $(f); }; f",
        "f() { eval f; }; f",
        "echo 'source s2.sh' > s2.sh; source s2.sh",
        "echo 'bash s3.sh' > s3.sh; bash s3.sh",
        "x=$(while :; do echo y; done)",
        "while :; do echo y; done | head -n 1",
        "for i in {1..100000}; do :; done",
        "f() { local x=$1; f $((x+1)); }; f 0",
        "case x in x) ;& y) ;;& *) ;; esac",
        "[[ a =~ ( ]]",
        "(( 1 / 0 )); echo $(( 2 ** -1 ))",
        "x=$(cat <<EOF\n$(echo in)\nEOF\n); echo $x",
        "if; then fi",
        "for i in; do done",
        "break; continue; return",
        "set -e; false; echo not reached",
    ] {
        survive(line.as_bytes()).unwrap();
    }
}

/// Inputs that crashed the whole process with the default policy (found probing the
/// recursion limits; see docs/PERFORMANCE.md and fuzz/README.md): a stack overflow and a
/// thread bomb. Each line now runs on a thread with a large stack that the interpreter
/// checks before it goes deeper, and one line may have at most 256 pipeline stages running:
/// both end with one limit line, and the session goes on.
#[test]
fn known_crashes() {
    for line in [
        // Recursion through compound commands: about 18 KiB of stack per call in a release
        // build (more in a debug one), to the default `call_depth` (1000).
        "f() { for i in 1; do while true; do case x in x) if true; then { f; }; fi;; esac; \
         break; done; done; }; f",
        // Each call runs two pipeline stages, each calling `f`: the threads would multiply.
        "f() { f | f; }; f",
    ] {
        let line = line.to_string();
        let run = std::thread::Builder::new()
            .stack_size(SESSION_STACK)
            .spawn(move || {
                let t = tree();
                let mut session = Session::new(Config::new(t.path())).unwrap();
                let mut sink = Captured::default();
                session.run_input(line.as_bytes(), 1, &mut sink);
                assert_eq!(session.run("echo ok").stdout, b"ok\n");
            })
            .unwrap();
        run.join().unwrap();
    }
}
