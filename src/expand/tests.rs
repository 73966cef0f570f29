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

use super::{
    ExpandCtx, ExpandError, Host, VarsHost, expand_word, expand_word_nosplit, expand_words,
};
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

/// The shell a case runs in: positional parameters and `set -u` on top of [`VarsHost`].
#[derive(Clone, Copy, Default)]
struct Shell<'s> {
    args: &'s [&'s str],
    nounset: bool,
}

struct PosHost<'a, 's> {
    inner: VarsHost<'a>,
    shell: Shell<'s>,
}

impl Host for PosHost<'_, '_> {
    fn param(&self, name: &str) -> Option<String> {
        match name {
            "#" => Some(self.shell.args.len().to_string()),
            "0" => self.inner.param(name),
            n if n.bytes().all(|b| b.is_ascii_digit()) => n
                .parse::<usize>()
                .ok()
                .and_then(|i| self.shell.args.get(i.checked_sub(1)?))
                .map(|a| (*a).to_string()),
            n => self.inner.param(n),
        }
    }
    fn positional(&self) -> Vec<String> {
        self.shell.args.iter().map(|a| (*a).to_string()).collect()
    }
    fn assign(&mut self, name: &str, value: String) -> Result<(), String> {
        self.inner.assign(name, value)
    }
    fn command_subst(&mut self, script: &Script) -> Result<Vec<u8>, ExpandError> {
        self.inner.command_subst(script)
    }
    fn arith(&mut self, text: &str) -> Result<i64, ExpandError> {
        self.inner.arith(text)
    }
    fn nounset(&self) -> bool {
        self.shell.nounset
    }
    fn names_with_prefix(&self, prefix: &str) -> Vec<String> {
        self.inner.names_with_prefix(prefix)
    }
    fn attributes(&self, name: &str) -> String {
        self.inner.attributes(name)
    }
}

fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

impl Fixture {
    /// The fixture's variables (exported, as bash gets them from its environment) and the
    /// case's (plain shell variables).
    fn vars(&self, extra: &[(&str, &str)]) -> Vars {
        let mut v = Vars::default();
        for (k, val) in &self.vars {
            v.set(k, (*val).to_string(), true);
        }
        for (k, val) in extra {
            v.set(k, (*val).to_string(), false);
        }
        v.set("PWD", self.dir.path().to_string_lossy().into_owned(), true);
        v
    }

    fn ours(&self, words: &str, extra: &[(&str, &str)]) -> Result<Vec<Vec<u8>>, ExpandError> {
        self.ours_in(Shell::default(), words, extra)
    }

    fn ours_in(
        &self,
        shell: Shell,
        words: &str,
        extra: &[(&str, &str)],
    ) -> Result<Vec<Vec<u8>>, ExpandError> {
        let script = parse(format!(": {words}").as_bytes(), 1).unwrap();
        let cmd = simple(&script);
        let mut vars = self.vars(extra);
        let mut host = PosHost {
            inner: VarsHost {
                vars: &mut vars,
                last_status: 0,
            },
            shell,
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
            globstar: false,
            extglob: false,
            globskipdots: true,
            max_glob: 10_000,
            max_words: usize::MAX,
            max_bytes: usize::MAX,
        };
        let fields = expand_words(&cmd.words[1..], &mut ctx)?;
        Ok(fields.into_iter().map(OsString::into_vec).collect())
    }

    fn bash(&self, words: &str, extra: &[(&str, &str)]) -> Result<Vec<Vec<u8>>, String> {
        self.bash_in(Shell::default(), words, extra)
    }

    /// bash's fields, or its error message without the `bash: line 1: ` prefix.
    fn bash_in(
        &self,
        shell: Shell,
        words: &str,
        extra: &[(&str, &str)],
    ) -> Result<Vec<Vec<u8>>, String> {
        // bash ignores IFS from the environment: set the extra variables in the script.
        let mut sets = String::new();
        if !shell.args.is_empty() {
            sets.push_str("set --");
            for a in shell.args {
                let _ = write!(sets, " {}", sh_quote(a));
            }
            sets.push_str("; ");
        }
        for (k, v) in extra {
            let _ = write!(sets, "{k}={}; ", sh_quote(v));
        }
        if shell.nounset {
            sets.push_str("set -u; ");
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
    // words that expand to themselves (no expander), and their neighbours that do not
    "plain a'' '' \"\" ''\"\" x\\ y '~' a=b = +x @x !x a+b \\[x] \"[x]\" '{a,b}' ]x",
    "[x] a@b @ ! + .h*",
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
        globstar: false,
        extglob: false,
        globskipdots: true,
        max_glob: 100,
        max_words: usize::MAX,
        max_bytes: usize::MAX,
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
        globstar: false,
        extglob: false,
        globskipdots: true,
        max_glob: 100,
        max_words: usize::MAX,
        max_bytes: usize::MAX,
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
        globstar: false,
        extglob: false,
        globskipdots: true,
        max_glob: 3,
        max_words: usize::MAX,
        max_bytes: usize::MAX,
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

// ---------------------------------------------------------------------------------------
// `${...}` operators, against bash.

/// The variables of the operator cases.
const OP_VARS: &[(&str, &str)] = &[
    ("X", "/usr/local/lib/file.tar.gz"),
    ("Y", "a*b?c[d]"),
    ("Z", "hello World"),
    ("W", "a/b/c"),
    ("Q", "it's \"q\""),
    ("N", "3"),
    ("R", "&"),
    ("B", "a\\b"),
    ("C", "a\tb\x01\x7f"),
    ("M", "ABC D\u{e9}f"),
    ("V", "*x"),
    ("P", "\\*"),
    ("PH", "#h"),
    ("PD", "%d"),
    ("IX", "Z"),
    ("IN", "N"),
    ("IE", ""),
    ("IB", "a b"),
    ("IP", "1"),
    (
        "EE",
        "a\\tb\\x41\\u00e9\\u0041\\101\\q\\'\\\"\\?\\e\\x{42}\\cA\\0end",
    ),
    ("PP", "a\\nb \\\\ \\[x\\] \\101 \\x \\s \\v \\V \\e\\a"),
    ("xya", "1"),
    ("xyb", "2"),
    ("xy", "3"),
    ("ZB", "[c]d"),
];

/// Word lists whose fields (or error) must equal bash's, with [`OP_VARS`] set.
const OP_CASES: &[(&[&str], &str)] = &[
    // `#` `##` `%` `%%`
    (
        &[],
        "${X#*/} ${X##*/} ${X%.*} ${X%%.*} ${X#/usr} ${X%gz} ${X#nomatch}",
    ),
    (
        &[],
        "\"${X##}\" \"${X%}\" \"${X#*}\" \"${X##*}\" \"${X%*}\" \"${X%%*}\" \"${X#?}\" \"${X##?}\"",
    ),
    (
        &[],
        "\"${X%[a-z]}\" \"${X%%[a-z.]*}\" \"${X#[!/]}\" \"${X#[/]}\" \"${X#[[:punct:]]}\" \"${X%%[[:alpha:]]*}\"",
    ),
    (
        &[],
        "\"${Y#a\\*}\" \"${Y#\"a*\"}\" \"${Y%\\[d\\]}\" \"${Y%'[d]'}\" \"${Y%[d]}\" \"${Y%[d]]}\"",
    ),
    (
        &[],
        "\"${Y#*\\?}\" \"${Y#*[?]}\" \"${Y#a[*]b}\" ${Y#a?b} \"${Y%%[\"[\"]*}\"",
    ),
    (
        &[],
        ". \"${E#a}\" \"${E%*}\" \"${U#a}\" \"${U%%*}\" ${U#a} ${E%x}",
    ),
    (
        &[],
        "\"${HOME#~}\" ${HOME#~/} \"${HOME#\"~\"}\" \"${PWD#$HOME}\" \"${HOME%/*}\"",
    ),
    (
        &[],
        "${G%.txt} ${G#\\*} \"${G#$G}\" \"${G#\"$G\"}\" ${G#*} . ${G##*}",
    ),
    (
        &[],
        "${V#$P} \"${V#$P}\" \"${V#\"$P\"}\" \"${B#a\\\\}\" \"${B%\\\\*}\" \"${B%$P}\"",
    ),
    (
        &[],
        "${Z#$E} \"${Z%\"$E\"}\" ${Z#h*o} ${Z##h*o} ${Z%o*} ${Z%%o*}",
    ),
    // `/` `//` `/#` `/%`
    (
        &[],
        "\"${X/lib/LIB}\" \"${X//\\//_}\" ${X//\\//_} \"${X/#\\/usr/U}\" \"${X/%gz/GZ}\" \"${X/%.*/}\" \"${X/.*}\" \"${X//[a-c]}\"",
    ),
    (
        &[],
        "\"${Z/o/0}\" \"${Z//o/0}\" \"${Z//o}\" \"${Z//[lo]/<&>}\" \"${Z/*o/z}\" \"${Z//*o/z}\" \"${Z/o*/z}\"",
    ),
    (
        &[],
        "\"${Z/#*/z}\" \"${Z/%*/z}\" \"${Z//?/}\" \"${Z// /_}\" \"${Z//}\" \"${Z/}\" \"${Z/o/}\" \"${Z//l/}\"",
    ),
    (
        &[],
        "\"${Z/#/>}\" \"${Z/%/<}\" \"${Z/#h/H}\" \"${Z/#o/O}\" \"${Z/%d/D}\" \"${Z/%o/O}\" \"${Z/#}\" \"${Z/%}\"",
    ),
    (
        &[],
        ". \"${E/a/b}\" \"${E/#/b}\" \"${E/%/b}\" \"${E/*/b}\" \"${E//*/b}\" \"${E/x*/b}\" \"${U/a/b}\" \"${U/#/b}\" \"${E/*/&x}\"",
    ),
    (
        &[],
        "\"${Z/$R}\" \"${Z/l/$R$R}\" \"${Z/l/\"$R\"}\" ${Z/l/$R} \"${Z/l/\\&}\" \"${Z/l/'&'}\" \"${Z/l/\\\\&}\" \"${Z/l/&&}\" ${Z/W/&&}",
    ),
    (
        &[],
        "\"${Z/l/$B}\" \"${Z/l/\"$B\"}\" \"${Z/l/\\\\}\" \"${Z/l/x\\y}\" \"${Z/l/'\\&'}\" \"${Z/l/~}\" ${Z/ / }",
    ),
    (
        &[],
        "\"${Z/$PH/x}\" \"${Z/$PD/x}\" \"${Z//$PH/x}\" \"${Z/\\#h/x}\" \"${Z/#\\#h/x}\" \"${Z/#%h/x}\"",
    ),
    (
        &[],
        "\"${W///}\" \"${W///_}\" \"${W////_}\" \"${W/\\//_}\" \"${W//'/'/_}\" \"${W//\"/\"/_}\" \"${W///x/}\"",
    ),
    // bash's quirks: it counts `[*` as 2 bytes long, and wants `*'*'` to match the whole rest.
    (
        &[],
        "\"${ZB/[*/x}\" \"${ZB/#[*/x}\" \"${ZB/%[*/x}\" \"${ZB##[*}\" \"${ZB//[?/x}\"",
    ),
    (
        &[],
        "\"${ZB/[*d/x}\" \"${Y/*'*'/}\" \"${Y/*'*'b/}\" \"${Y/#$P'*'}\" \"${Y//\\*/-}\"",
    ),
    (
        &[],
        "\"${Y/*\\\\*/-}\" \"${Y/*[*]/-}\" \"${Y/%*'*'/-}\" \"${Y//*'?'/-}\"",
    ),
    (
        &[],
        "\"${Z/[[:upper:]]/u}\" \"${Z//[![:alpha:]]/-}\" \"${Z/l?/L}\" \"${Z//l?/L}\" \"${Z/%l*/L}\" ${Z/o W/*}",
    ),
    // `:offset:length`
    (
        &[],
        "\"${Z:2}\" \"${Z:2:3}\" \"${Z: -2}\" \"${Z:(-2)}\" \"${Z:-2}\" \"${Z: -3:1}\" \"${Z:1:-1}\" \"${Z:1: -2}\"",
    ),
    (
        &[],
        ". \"${Z:11}\" \"${Z:12}\" \"${Z: -11}\" \"${Z: -12}\" \"${Z:0:0}\" \"${Z::2}\" \"${Z: }\" \"${Z:1:}\"",
    ),
    (
        &[],
        ". \"${Z:1+1:2*1}\" \"${Z:x}\" \"${Z:\"1\"}\" \"${Z:N}\" \"${Z:$N:N}\" \"${Z:N?1:2}\" \"${Z:0?2:0:1}\" ${Z:3}",
    ),
    (
        &[],
        ". \"${U:1}\" \"${U:1:-1}\" \"${E:0:1}\" \"${U:a+}\" \"${Z:20:1/0}\" \"${X:${N}:2}\" \"${M:5:1}\"",
    ),
    // `^` `^^` `,` `,,`
    (
        &[],
        "\"${Z^}\" \"${Z^^}\" \"${Z,}\" \"${Z,,}\" \"${Z^^[lo]}\" \"${Z^[h]}\" \"${Z^[e]}\" \"${Z,,[W]}\"",
    ),
    (
        &[],
        ". \"${Z^^o}\" \"${Z^^'o'}\" \"${Z^^\"[lo]\"}\" \"${Z^^*}\" \"${Z^^?}\" \"${Z^^l*}\" \"${E^^}\" \"${U^}\"",
    ),
    (
        &[],
        "\"${M,,}\" \"${M^^}\" \"${M,}\" \"${M,,[A-C]}\" ${Z^^} ${Z,,[[:upper:]]}",
    ),
    (
        &[],
        "\"${Z~}\" \"${Z~~}\" \"${Z~[wo]}\" \"${Z~~[a-f]}\" \"${Z~h}\" \"${M~~}\" ${Z~~o}",
    ),
    (&["ab", "Cd"], "\"${@~}\" \"${@~~}\" \"${*~}\" ${0~~}"),
    // `@Q` and the other transformations
    (
        &[],
        "\"${Z@Q}\" ${Z@Q} \"${Q@Q}\" \"${E@Q}\" \"${U@Q}\" \"${C@Q}\" \"${S@Q}\" \"${B@Q}\" \"${M@Q}\"",
    ),
    (
        &[],
        ". \"${Z@U}\" \"${Z@L}\" \"${Z@u}\" \"${Z@K}\" \"${Z@k}\" \"${Z@a}\" \"${Z@A}\" \"${HOME@a}\" \"${HOME@A}\"",
    ),
    (
        &[],
        ". \"${U@a}\" \"${U@A}\" \"${U@Z}\" \"${E@A}\" \"${E@E}\" \"${EE@E}\" \"${PP@P}\"",
    ),
    // `${!X}` and `${!prefix*}`
    (
        &[],
        "${!IX} \"${!IX}\" ${!IX#h} ${!IX:1:3} ${!IX^^} ${!IX:-d} ${!IX@Q} ${!IN} \"${!IX/o/0}\" ${!IP}",
    ),
    (
        &["Z", "N"],
        "${!1} ${!#} \"${!IP}\" ${!2:-unset} ${!3:-unset}",
    ),
    (&["Z", "a b"], "${!1} ${!#}"),
    (
        &[],
        "${!xy*} \"${!xy@}\" \"${!xy*}\" ${!zzq*} \"${!zzq@}\" . \"${!zzq*}\"",
    ),
    // positional parameters
    (
        &["a b", "c", "", "d"],
        "\"${@:1}\" \"${@:2}\" \"${@:0}\" \"${@:0:1}\" \"${@:1:2}\" \"${@: -1}\" \"${@: -2:1}\"",
    ),
    (
        &["a b", "c", "", "d"],
        ". \"${@:5}\" \"${@:6}\" \"${*:2}\" ${*:2} x\"${@:2}\"y \"${@:1:1}\" \"${@: -5}\" \"${@:(-6)}\"",
    ),
    (
        &["a b", "c", "", "d"],
        "\"${@#a}\" \"${*#a}\" ${@##*} \"${1%b}\" \"${@%%[bc]}\" \"${@/c/C}\" \"${@^^}\"",
    ),
    (
        &["a b", "c", "", "d"],
        "\"${@@Q}\" \"${*@Q}\" ${@@Q} \"${@,}\" \"${@@A}\" \"${*@A}\" \"${@@a}\" \"${1@A}\" \"${@@U}\"",
    ),
    (
        &["a b", "c", "", "d"],
        "\"${@:-x}\" \"${@:+y}\" \"${*:-x}\" ${@:-x} \"${#@}\" ${#*} \"${0#b}\" \"${0:1}\" \"${0^^}\" \"${0@Q}\"",
    ),
    (
        &[],
        ". \"${@:1}\" \"${@#a}\" \"${*:1}\" \"${@^^}\" \"${@@Q}\" \"${*%a}\" \"${@/a/b}\" \"${@:0:0}\" \"${@:1:0}\"",
    ),
    (
        &[],
        ". \"${@:0}\" x\"${@:1}\"y \"${@:-}\" \"${@-x}\" \"${@+y}\" \"${@:+y}\" \"${*+y}\" \"${*:5}\" \"${@: -5}\"",
    ),
    (
        &[""],
        ". \"${@-x}\" \"${@:-x}\" \"${@+y}\" \"${@:+y}\" \"${*:-x}\" \"${@#a}\" \"${@:1}\" \"${@: -5}\"",
    ),
    (
        &["a", ""],
        ". \"${@:-x}\" \"${*:-x}\" \"${@:+y}\" \"${@@Q}\" ${@/#/-}",
    ),
    // nesting and quoting inside the words
    (
        &[],
        "\"${U:-${Z#h}}\" ${U:-${Z%d}} \"${Z#${U:-h}}\" \"${Z/${N}/x}\" \"${Z#\"${U:-hel}\"}\" ${U:-${Z/o/${N}}}",
    ),
    (
        &[],
        "\"${Z/o/\"}\"}\" \"${Z/o/'}'}\" ${Z/o/\\}} \"${U:-'a}b'}\" \"${U:-\"}\"}\" \"${Z#'hel'}\" \"${Z#$'\\x68'}\"",
    ),
];

#[test]
fn bash_agrees_on_operators() {
    if !have_bash() {
        return;
    }
    let fx = fixture();
    let show = |r: Result<Vec<Vec<u8>>, String>| {
        r.map(|v| {
            v.iter()
                .map(|f| f.escape_ascii().to_string())
                .collect::<Vec<_>>()
        })
    };
    let mut failures = Vec::new();
    for (args, case) in OP_CASES {
        let shell = Shell {
            args,
            nounset: false,
        };
        let ours = show(fx.ours_in(shell, case, OP_VARS).map_err(|e| e.message));
        let theirs = show(fx.bash_in(shell, case, OP_VARS));
        if ours != theirs {
            failures.push(format!(
                "args {args:?} case {case}\n  ours:  {ours:?}\n  bash:  {theirs:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn bash_agrees_on_operator_errors() {
    if !have_bash() {
        return;
    }
    let fx = fixture();
    let cases: &[(Shell, &str)] = &[
        (Shell::default(), "${Z:1:-20}"),
        (Shell::default(), "${Z:1: -20}"),
        (Shell::default(), "${Z:'1'}"),
        (Shell::default(), "${Z:1+}"),
        (Shell::default(), "${Z:1:2:3}"),
        (Shell::default(), "${Z:a b}"),
        (Shell::default(), "${Z:}"),
        (Shell::default(), "${Z@Z}"),
        (Shell::default(), "${Z@}"),
        (Shell::default(), "${Z@QQ}"),
        (Shell::default(), "${!$}"),
        (Shell::default(), "${#^^}"),
        (Shell::default(), "${?,}"),
        (Shell::default(), "${-^}"),
        (Shell::default(), "${#%}"),
        (Shell::default(), "${#=}"),
        (Shell::default(), "${#/}"),
        (Shell::default(), "${#+}"),
        (Shell::default(), "${#~}"),
        (Shell::default(), "${Z:$((1/0))}"),
        (Shell::default(), "${Z:1/0}"),
        (Shell::default(), "${Z:0:1/0}"),
        (Shell::default(), "${?~~}"),
        (Shell::default(), "${!IE}"),
        (Shell::default(), "${!IB}"),
        (Shell::default(), "${!UNSETVAR}"),
        (Shell::default(), "${!UNSETVAR:-x}"),
        (Shell::default(), "${@:=x}"),
        (
            Shell {
                args: &["Z", "N"],
                nounset: false,
            },
            "${!@}",
        ),
        (
            Shell {
                args: &["a", "b"],
                nounset: false,
            },
            "${@:1:-1}",
        ),
        (
            Shell {
                args: &[],
                nounset: true,
            },
            "${U#a}",
        ),
        (
            Shell {
                args: &[],
                nounset: true,
            },
            "${U:1}",
        ),
        (
            Shell {
                args: &[],
                nounset: true,
            },
            "${U@Q}",
        ),
        (
            Shell {
                args: &[],
                nounset: true,
            },
            "${U/a/b} ${U^}",
        ),
        (
            Shell {
                args: &[],
                nounset: true,
            },
            "${1:1}",
        ),
        (
            Shell {
                args: &[],
                nounset: true,
            },
            "${!IX#h} ${!IU:-d}",
        ),
        (
            Shell {
                args: &[],
                nounset: true,
            },
            "${!UU}",
        ),
    ];
    let mut failures = Vec::new();
    for (shell, case) in cases {
        let ours = fx.ours_in(*shell, case, OP_VARS).map_err(|e| e.message);
        let theirs = fx.bash_in(*shell, case, OP_VARS);
        if ours != theirs {
            failures.push(format!("{case}\n  ours:  {ours:?}\n  bash:  {theirs:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn nounset_spares_at_star_and_defaults() {
    if !have_bash() {
        return;
    }
    let fx = fixture();
    let shell = Shell {
        args: &[],
        nounset: true,
    };
    let case = ". ${@:1} ${*#a} ${@@Q} ${U:-d} ${U-e} ${U+x} ${!xy*} \"${@}\"";
    let ours = fx.ours_in(shell, case, OP_VARS).map_err(|e| e.message);
    assert_eq!(ours, fx.bash_in(shell, case, OP_VARS), "{case}");
}

const EXPAND_SOUP: &[&str] = &[
    " ",
    "a",
    "X",
    "Y",
    "1",
    "0",
    "-1",
    "\"",
    "'",
    "\\",
    "$",
    "${",
    "}",
    "${X",
    "${Y",
    "${@",
    "${*",
    "${#",
    "${!",
    "${!X",
    "#",
    "##",
    "%",
    "%%",
    "/",
    "//",
    "/#",
    "/%",
    ":",
    "::",
    ": -",
    "(",
    ")",
    "^",
    "^^",
    ",",
    ",,",
    "@",
    "@Q",
    "@E",
    "@P",
    "@A",
    "@a",
    "@u",
    "*",
    "?",
    "[",
    "]",
    "[!",
    "[:alpha:]",
    "&",
    "~",
    "\\\\",
    "\u{e9}",
    "\u{ff}",
    "$'\\t'",
    "-",
    "+",
    "=",
    "${X#*}",
    "${Y/b/&}",
    "${Y:1:-1}",
    "${@:1}",
    "${X^^}",
    "${!X}",
    "\"${Y%.*}\"",
    "${*@Q}",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

    #[test]
    fn operator_soup_never_panics(
        idx in proptest::collection::vec(0..EXPAND_SOUP.len(), 0..40)
    ) {
        let fx = soup_fixture();
        let input: String = idx.iter().map(|&i| EXPAND_SOUP[i]).collect();
        if let Ok(script) = parse(format!(": {input}").as_bytes(), 1)
            && let Some(Command::Simple(_)) = script.items.first().map(|i| &i.first.commands[0])
        {
            for nounset in [false, true] {
                let shell = Shell {
                    args: &["a b", "", "c*"],
                    nounset,
                };
                let _ = fx.ours_in(shell, &input, &[("X", "Y"), ("Y", "a/b.c*d"), ("N", "-1")]);
            }
        }
    }
}

fn soup_fixture() -> &'static Fixture {
    static FX: std::sync::OnceLock<Fixture> = std::sync::OnceLock::new();
    FX.get_or_init(fixture)
}
