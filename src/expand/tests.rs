//! Expansion tests, checked against the installed bash: each case is expanded here and by
//! `bash -c 'printf "%s\0" WORDS'` with the same variables, in a temporary directory with the
//! same files (the test [`FsView`] reads that real directory), and the fields must be equal.
//! Cases whose answer depends on this machine (`$$`, `~user`) are checked by hand instead.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::ffi::OsString;
use std::fmt::Write as _;
use std::os::unix::ffi::OsStringExt;

use trumansh_commands::Vars;

use crate::sandbox::{Sandbox, SandboxConfig};

use super::{ExpandCtx, ExpandError, VarsHost, expand_word, expand_word_nosplit, expand_words};
use crate::shell::ast::{AssignValue, Command, Script, SimpleCommand};
use crate::shell::parse;

/// The first simple command of a parsed script.
fn simple(script: &Script) -> &SimpleCommand {
    match &script.items[0].first.commands[0] {
        Command::Simple(c) => c,
        other => panic!("not a simple command: {other:?}"),
    }
}

/// A read-only view of a real directory tree (virtual paths are the real absolute paths).
/// A real temporary tree, seen through the sandbox (its state directory kept outside, so
/// that bash sees the same tree).
struct Fixture {
    dir: tempfile::TempDir,
    _state: tempfile::TempDir,
    sandbox: Sandbox,
    vars: Vec<(&'static str, &'static str)>,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for d in ["dir", "sub/deeper", "sub/other", "emptydir"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    for f in [
        "a.txt",
        "b.txt",
        "c.md",
        "B.txt",
        ".hidden",
        ".h.txt",
        "sp ace.txt",
        "[x]",
        "x",
        "dir/x.txt",
        "dir/y.md",
        "dir/.dot",
        "sub/deeper/z.txt",
        "sub/other/z.txt",
        "sub/f1",
        "-n",
        "1",
        "2",
        "10",
    ] {
        std::fs::write(root.join(f), b"").unwrap();
    }
    std::os::unix::fs::symlink("dir", root.join("linkdir")).unwrap();
    let state = tempfile::tempdir().unwrap();
    let mut config = SandboxConfig::new(dir.path());
    config.state_dir = Some(state.path().to_path_buf());
    let sandbox = Sandbox::open(&config).unwrap();
    Fixture {
        dir,
        _state: state,
        sandbox,
        vars: vec![
            ("HOME", "/home/u"),
            ("E", ""),
            ("S", "a  b\tc"),
            ("G", "*.txt"),
            ("P", "x:y::z:"),
            ("SP", "  lead trail  "),
            ("OLDPWD", "/tmp"),
        ],
    }
}

impl Fixture {
    fn vars(&self, extra: &[(&str, &str)]) -> Vars {
        let mut v = Vars::default();
        for (k, val) in self.vars.iter().chain(extra) {
            v.set(k, (*val).to_string(), true);
        }
        v.set("PWD", self.dir.path().to_string_lossy().into_owned(), true);
        v
    }

    fn ours(&self, words: &str, extra: &[(&str, &str)]) -> Result<Vec<Vec<u8>>, ExpandError> {
        let script = parse(format!(": {words}").as_bytes(), 1).unwrap();
        let cmd = simple(&script);
        let mut vars = self.vars(extra);
        let mut host = VarsHost {
            vars: &mut vars,
            last_status: 0,
        };
        let mut ctx = ExpandCtx {
            host: &mut host,
            cwd: self.dir.path(),
            fs: &self.sandbox,
            max_brace: 10_000,
            noglob: false,
            nullglob: false,
            failglob: false,
            dotglob: false,
            max_glob: 10_000,
        };
        let fields = expand_words(&cmd.words[1..], &mut ctx)?;
        Ok(fields.into_iter().map(OsString::into_vec).collect())
    }

    /// bash's fields, or its error message without the `bash: line 1: ` prefix.
    fn bash(&self, words: &str, extra: &[(&str, &str)]) -> Result<Vec<Vec<u8>>, String> {
        // bash ignores IFS from the environment: set the extra variables in the script.
        let mut sets = String::new();
        for (k, v) in extra {
            let _ = write!(sets, "{k}='{}'; ", v.replace('\'', "'\\''"));
        }
        let mut cmd = std::process::Command::new("bash");
        cmd.arg("-c")
            .arg(format!("{sets}printf '%s\\0' {words}"))
            .current_dir(self.dir.path())
            .env_clear()
            .env("LC_ALL", "C")
            .env("PWD", self.dir.path());
        for (k, v) in &self.vars {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        if !out.stderr.is_empty() {
            let s = String::from_utf8_lossy(&out.stderr).into_owned();
            return Err(s
                .trim_end()
                .trim_start_matches("bash: line 1: ")
                .to_string());
        }
        let mut fields: Vec<Vec<u8>> = out.stdout.split(|&b| b == 0).map(<[u8]>::to_vec).collect();
        fields.pop();
        // `printf '%s\0'` with no arguments prints one empty field.
        if fields == [Vec::<u8>::new()] && words_may_be_empty(words) {
            return Ok(Vec::new());
        }
        Ok(fields)
    }
}

fn words_may_be_empty(words: &str) -> bool {
    !words.contains("\"\"") && !words.contains("''")
}

fn have_bash() -> bool {
    std::process::Command::new("bash")
        .arg("--version")
        .output()
        .is_ok()
}

/// Word lists whose fields must equal bash's.
const CASES: &[&str] = &[
    // quoting and concatenation
    "a\"b\"'c' \"\" '' \"$E\" $E a$E \"a b\"",
    "$'a\\tb' \\* \"*\" '*'",
    // braces
    "{01..03} {a..e..2} {5..1} x{a,}y {a}{b,c} \"{a,b}\" \\{a,b} {a\\,b,c} {1..3}{a,b}",
    "{a,b{1,2}}c {x,y}{,} {-05..5..3} {1..a} {$S,z} {'q',r}",
    // tilde
    "~ ~/x \"~\" \\~ ~nouser ~+ ~- a=~/x:~/y b~ ~\"\"/x",
    "{~,x} ~/{a,b}",
    // parameters and splitting
    "$S \"$S\" x${S}y ${#S} ${E:-d} ${E-d} ${U:-d f} \"${U:-d f}\" ${S:+alt} ${U:+alt} ${E:+alt}",
    "${U:-\"q r\"} \"${U:-'q'}\" ${U:-'q'} ${U:-${S}} ${U:-~/h}",
    "$SP \"$SP\" $? $# $0 \"$@\" \"$*\" $@ $* ${#} ${#U} ${U-} ${E-x}",
    "$ \"$\" a$ $. $/",
    // globs
    "* .* *.txt \"*\".txt *.\"txt\" ?.md [ab].txt [!a].txt [^a].txt [[:upper:]]* [a-b]*",
    "dir/* dir/.* */*.txt */ */*/ sub/*/z.txt linkdir/* nomatch* dir/nomatch* no/*",
    "$G \"$G\" [x] \\[x] *[* x* [[]x] ./*.md \"$PWD\"/*.md",
    // split with IFS variations are below
];

#[test]
fn bash_agrees_on_fields() {
    if !have_bash() {
        return;
    }
    let fx = fixture();
    for case in CASES {
        let ours = fx.ours(case, &[]).map_err(|e| e.message);
        let theirs = fx.bash(case, &[]);
        assert_eq!(
            ours.as_ref().map(|v| v
                .iter()
                .map(|f| f.escape_ascii().to_string())
                .collect::<Vec<_>>()),
            theirs.as_ref().map(|v| v
                .iter()
                .map(|f| f.escape_ascii().to_string())
                .collect::<Vec<_>>()),
            "case {case:?}"
        );
    }
}

#[test]
fn bash_agrees_on_ifs() {
    if !have_bash() {
        return;
    }
    let fx = fixture();
    let cases: &[(&str, &str, &str)] = &[
        (":", "a::b:", "$X"),
        (":", ":a", "$X"),
        (": ", " a : b  c :: d ", "$X \"$X\""),
        ("", "  a  b ", "$X ${X:-q}"),
        (" ", "a\tb c", "$X"),
        (",", "a,b", "$X x${X}y \"$X\""),
    ];
    for (ifs, x, words) in cases {
        let extra = [("IFS", *ifs), ("X", *x)];
        let ours = fx.ours(words, &extra).map_err(|e| e.message);
        let theirs = fx.bash(words, &extra);
        assert_eq!(ours, theirs, "IFS={ifs:?} X={x:?} {words}");
    }
}

#[test]
fn bash_agrees_on_errors() {
    if !have_bash() {
        return;
    }
    let fx = fixture();
    for case in [
        "${U:?}",
        "${E:?}",
        "${U?}",
        "${U:?oops here}",
        "${x!}",
        "${}",
        "${ x}",
        "${1a}",
        "${#x:-a}",
        "${x:}",
        "${x!y}",
        "${1:=a}",
    ] {
        let ours = fx.ours(case, &[]).map_err(|e| e.message);
        let theirs = fx.bash(case, &[]);
        assert_eq!(ours, theirs, "{case}");
    }
}

#[test]
fn special_parameters() {
    let fx = fixture();
    assert_eq!(fx.ours("$$", &[]).unwrap(), [b"4242".to_vec()]);
    assert_eq!(fx.ours("$$", &[("$", "77")]).unwrap(), [b"77".to_vec()]);
    assert_eq!(
        fx.ours("$- ~root", &[]).unwrap(),
        [b"hB".to_vec(), b"~root".to_vec()]
    );
}

#[test]
fn assignment_operator_records_and_reuses() {
    let fx = fixture();
    let script = parse(b": ${N:=a b} $N \"${M=x}\" ${E:=e}", 1).unwrap();
    let mut vars = fx.vars(&[]);
    let mut host = VarsHost {
        vars: &mut vars,
        last_status: 3,
    };
    let mut ctx = ExpandCtx {
        host: &mut host,
        cwd: fx.dir.path(),
        fs: &fx.sandbox,
        max_brace: 100,
        noglob: false,
        nullglob: false,
        failglob: false,
        dotglob: false,
        max_glob: 100,
    };
    let words = expand_words(&simple(&script).words, &mut ctx).unwrap();
    let _ = &ctx;
    // bash -c ': ${N:=a b} $N "${M=x}" ${E:=e}; printf "[%s]" "$N" "$M" "$E"' gives [a b][x][e]
    assert_eq!(
        [host.vars.get("N"), host.vars.get("M"), host.vars.get("E")],
        [Some("a b"), Some("x"), Some("e")]
    );
    assert_eq!(
        words,
        [":", "a", "b", "a", "b", "x", "e"].map(OsString::from)
    );
}

#[test]
fn nosplit_and_redirect_targets() {
    let fx = fixture();
    let mut vars = fx.vars(&[]);
    let mut host = VarsHost {
        vars: &mut vars,
        last_status: 0,
    };
    let mut ctx = ExpandCtx {
        host: &mut host,
        cwd: fx.dir.path(),
        fs: &fx.sandbox,
        max_brace: 100,
        noglob: false,
        nullglob: false,
        failglob: false,
        dotglob: false,
        max_glob: 100,
    };
    // X=~/a:~/b:$S '*' -> bash: /home/u/a:/home/u/b:a  b\tc (no split, no glob)
    let script = parse(b"X=~/a:~/b:$S*", 1).unwrap();
    let AssignValue::Scalar(value) = &simple(&script).assignments[0].value else {
        panic!()
    };
    assert_eq!(
        expand_word_nosplit(value, &mut ctx).unwrap(),
        b"/home/u/a:/home/u/b:a  b\tc*"
    );
    // Here-document bodies: bash prints `a\"b $x \ \q /home/u "/home/u" 'x'`.
    let script = parse(b"cat <<E\na\\\"b \\$x \\\\ \\q $HOME \"$HOME\" 'x'\nE\n", 1).unwrap();
    let crate::shell::ast::RedirKind::HereDoc { body, .. } = &simple(&script).redirects[0].kind
    else {
        panic!()
    };
    assert_eq!(
        expand_word_nosplit(body, &mut ctx).unwrap(),
        b"a\\\"b $x \\ \\q /home/u \"/home/u\" 'x'\n"
    );
    // Redirect targets: one field, else bash's `ambiguous redirect`.
    let mut target = |s: &str| {
        let script = parse(format!("echo >{s}").as_bytes(), 1).unwrap();
        let crate::shell::ast::RedirKind::Out(w) = &simple(&script).redirects[0].kind else {
            panic!()
        };
        expand_word(w, &mut ctx)
    };
    assert_eq!(target("c.*").unwrap(), [OsString::from("c.md")]);
    assert_eq!(target("\"$S\"").unwrap(), [OsString::from("a  b\tc")]);
    // bash -c 'S="a  b"; echo >$S' -> bash: line 1: $S: ambiguous redirect
    assert_eq!(target("$S").unwrap_err().message, "$S: ambiguous redirect");
    assert_eq!(target("$E").unwrap_err().message, "$E: ambiguous redirect");
    assert_eq!(
        target("*.txt").unwrap_err().message,
        "*.txt: ambiguous redirect"
    );
}

#[test]
fn caps() {
    let fx = fixture();
    let mut vars = fx.vars(&[]);
    let mut host = VarsHost {
        vars: &mut vars,
        last_status: 0,
    };
    let mut ctx = ExpandCtx {
        host: &mut host,
        cwd: fx.dir.path(),
        fs: &fx.sandbox,
        max_brace: 10,
        noglob: false,
        nullglob: false,
        failglob: false,
        dotglob: false,
        max_glob: 3,
    };
    let script = parse(b": {1..20} *", 1).unwrap();
    let words = &simple(&script).words;
    let err = expand_words(&words[1..2], &mut ctx).unwrap_err();
    assert_eq!(err.message, "brace expansion: more than 10 words");
    let err = expand_words(&words[2..3], &mut ctx).unwrap_err();
    assert_eq!(
        err.message,
        "*: pathname expansion matches more than 3 paths"
    );
}
