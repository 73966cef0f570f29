//! Parser tests: snapshots of the syntax tree for every construct, and the exact error texts
//! bash 5.2 gives (each `bash:` expectation below was produced by running the input through
//! `bash -c` or `printf '...' | bash` on this machine; `bash_agrees` re-checks the error
//! messages live when bash is installed).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fmt::Write as _;

use proptest::prelude::*;

use super::ast::{
    AssignValue, Command, ParamOp, Pipeline, RedirKind, Script, SimpleCommand, Word, WordPart,
};
use super::parser::{ParseError, parse, parse_at_eof};

// ---------------------------------------------------------------------------------------
// A compact rendering of the tree for snapshots:
//   {L:..} Literal, {Q:..} Quoted, {DQ:..} DoubleQuoted, {$X} {$#X} {$X:-word} parameters.

fn bytes(v: &[u8]) -> String {
    v.escape_ascii().to_string()
}

fn word(w: &Word) -> String {
    w.parts.iter().map(part).collect()
}

fn part(p: &WordPart) -> String {
    match p {
        WordPart::Literal(v) => format!("{{L:{}}}", bytes(v)),
        WordPart::Quoted(v) => format!("{{Q:{}}}", bytes(v)),
        WordPart::DoubleQuoted(ps) => format!("{{DQ:{}}}", ps.iter().map(part).collect::<String>()),
        WordPart::CommandSubst(script) => format!("{{$(:{})}}", script.items.len()),
        WordPart::Arith(w) => format!("{{$((:{}))}}", word(w)),
        WordPart::ProcessSubst { out, .. } => format!("{{{}(...)}}", if *out { ">" } else { "<" }),
        WordPart::Param(pe) => {
            let bang = if pe.indirect || matches!(pe.op, Some((ParamOp::Names { .. }, _))) {
                "!"
            } else {
                ""
            };
            let hash = if pe.length { "#" } else { "" };
            let mut s = format!("{{${hash}{bang}{}", pe.name);
            if let Some(index) = &pe.index {
                let _ = write!(s, "[{}]", word(index));
            }
            if let Some((op, w)) = &pe.op {
                let w = word(w);
                let colon = |c: &bool| if *c { ":" } else { "" };
                let _ = match op {
                    ParamOp::Default { colon: c } => write!(s, "{}-{w}", colon(c)),
                    ParamOp::Assign { colon: c } => write!(s, "{}={w}", colon(c)),
                    ParamOp::Alternative { colon: c } => write!(s, "{}+{w}", colon(c)),
                    ParamOp::Error { colon: c } => write!(s, "{}?{w}", colon(c)),
                    ParamOp::RemovePrefix { longest } => {
                        write!(s, "{}{w}", if *longest { "##" } else { "#" })
                    }
                    ParamOp::RemoveSuffix { longest } => {
                        write!(s, "{}{w}", if *longest { "%%" } else { "%" })
                    }
                    ParamOp::Replace { all, anchor, rep } => {
                        let rep = rep.as_ref().map(|r| format!("/{}", word(r)));
                        write!(
                            s,
                            "/{}{anchor:?}:{w}{}",
                            if *all { "/" } else { "" },
                            rep.unwrap_or_default()
                        )
                    }
                    ParamOp::Substring { length } => {
                        let len = length.as_ref().map(|l| format!(":{}", word(l)));
                        write!(s, ":({w}){}", len.unwrap_or_default())
                    }
                    ParamOp::Case { upper, all, toggle } => {
                        let c = match (upper, toggle) {
                            (_, true) => "~",
                            (true, _) => "^",
                            (false, _) => ",",
                        };
                        write!(s, "{c}{}{w}", if *all { c } else { "" })
                    }
                    ParamOp::Transform(c) => write!(s, "@{}{w}", char::from(*c).escape_default()),
                    ParamOp::Names { at } => write!(s, "{}", if *at { "@" } else { "*" }),
                };
            }
            s.push('}');
            s
        }
    }
}

fn command(c: &SimpleCommand) -> String {
    let mut out = Vec::new();
    for a in &c.assignments {
        let value = match &a.value {
            AssignValue::Scalar(w) => word(w),
            AssignValue::Array(ws) => {
                format!("({})", ws.iter().map(word).collect::<Vec<_>>().join(" "))
            }
        };
        let op = if a.append { "+=" } else { "=" };
        out.push(format!("{}{op}{value}", a.name));
    }
    for w in &c.words {
        out.push(word(w));
    }
    for r in &c.redirects {
        let fd = r.fd.map(|n| n.to_string()).unwrap_or_default();
        let k = match &r.kind {
            RedirKind::Out(w) => format!(">{}", word(w)),
            RedirKind::Clobber(w) => format!(">|{}", word(w)),
            RedirKind::Append(w) => format!(">>{}", word(w)),
            RedirKind::In(w) => format!("<{}", word(w)),
            RedirKind::OutErr(w) => format!("&>{}", word(w)),
            RedirKind::AppendOutErr(w) => format!("&>>{}", word(w)),
            RedirKind::DupOut(n) => format!(">&{n}"),
            RedirKind::DupIn(n) => format!("<&{n}"),
            RedirKind::Close => ">&-".to_string(),
            RedirKind::HereDoc { body, expand, .. } => {
                format!("<<{}{}", if *expand { "" } else { "(quoted)" }, word(body))
            }
            RedirKind::HereString(w) => format!("<<<{}", word(w)),
            RedirKind::ReadWrite(w) => format!("<>{}", word(w)),
        };
        out.push(format!("{fd}{k}"));
    }
    format!("[{}]", out.join(" "))
}

fn any_command(c: &Command) -> String {
    match c {
        Command::Simple(c) => command(c),
        Command::Compound(c, r) => format!("{{compound {c:?} {r:?}}}"),
        Command::Function(f) => format!("{{function {}}}", f.name),
    }
}

fn pipeline(p: &Pipeline) -> String {
    let cmds: Vec<String> = p.commands.iter().map(any_command).collect();
    format!("{}{}", if p.negated { "! " } else { "" }, cmds.join(" | "))
}

fn script(s: &Script) -> String {
    let mut out = String::new();
    for item in &s.items {
        let _ = write!(out, "  line {}: {}", item.line, pipeline(&item.first));
        for (op, p) in &item.rest {
            let op = match op {
                super::ast::AndOrOp::And => "&&",
                super::ast::AndOrOp::Or => "||",
            };
            let _ = write!(out, " {op} {}", pipeline(p));
        }
        out.push('\n');
    }
    out
}

fn show(inputs: &[&str]) -> String {
    let mut out = String::new();
    for input in inputs {
        let _ = writeln!(out, "$ {}", input.escape_debug());
        match parse(input.as_bytes(), 1) {
            Ok(s) => out.push_str(&script(&s)),
            Err(e) => {
                let _ = writeln!(out, "  {e:?}");
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Snapshots.

#[test]
fn words_and_quoting() {
    insta::assert_snapshot!(show(&[
        "echo hello world",
        "echo a\"b\"'c' d",
        "echo 'it''s' \"a \\$ \\\\ \\\" \\` \\x\" b",
        "echo \\a\\ b \\\\",
        "echo a\\\nb",
        "echo \"a\\\nb\"",
        "echo 'multi\nline' next",
        "echo $'a\\tb\\x41\\101\\u00e9\\e\\cA\\q\\'x' $'nul\\0dropped'",
        "echo $\"translated\"",
        "echo a#b # a comment",
        "# only a comment",
        "echo $ \"$\" a$",
        "echo {a,b} ~/x * [a] }",
        "echo \"\" ''",
    ]));
}

#[test]
fn parameters() {
    insta::assert_snapshot!(show(&[
        "echo $X ${X} $X_1a ${#X} $? $$ $# $0 $1 ${10} $@ $* $! $- ${#}",
        "echo \"$X\" \"${X}y\" \"$Xy\"",
        "echo ${X:-a b} ${X-w} ${X:=w} ${X=w} ${X:+w} ${X+w} ${X:?msg here} ${X?}",
        "echo ${X:-$Y} ${X:-\"q $Y\"} \"${X:-'a'}\" ${X:-'a'} ${X:-${Y:-z}}",
        "echo ${x!} ${} ${ x} ${1a} ${#x:-a} ${x:} ${x!y}",
        "echo ${X:-\\}} \"${X:-\\}}\" ${X:-{a\\}} ${X:-a{b}c}x",
    ]));
}

#[test]
fn parameter_operators() {
    insta::assert_snapshot!(show(&[
        "echo ${X#a*} ${X##a*} ${X%.*} ${X%%.*} ${X#} ${X%\\\\} ${X%\\}}",
        "echo \"${X#'*'}\" \"${X#\"*\"}\" \"${X%\\*}\" \"${X#$P}\" ${X#~}",
        "echo ${X/a/b} ${X//a/b} ${X/#a/b} ${X/%a/b} ${X/a} ${X//} ${X/} ${X/a/}",
        "echo ${X///} ${X///a} ${X//\\//_} ${X//#a/b} ${X/#} ${X/\\#a/b} \"${X/a/'&'}\"",
        "echo ${X:1} ${X:1:2} ${X: -1} ${X:(-1)} ${X:a?1:2} ${X:a?1:2:3} ${X:$N:N} ${X::} ${X:\"1\"}",
        "echo ${X^} ${X^^} ${X,} ${X,,} ${X^^[ab]} ${X,'a'}",
        "echo ${X@Q} ${X@E} ${X@P} ${X@A} ${X@a} ${X@U} ${X@u} ${X@L} ${X@K} ${X@} ${X@QQ}",
        "echo ${!X} ${!X:-d} ${!X#a} ${!1} ${!#} ${!@} ${!*} ${!?} ${!pre*} ${!pre@} ${!pre@Q}",
        "echo ${!} ${!-x} ${!:-y} ${!$} ${#@} ${#@Q} ${@:1} ${*#a} ${@/a/b} ${0^^}",
        "echo \"${X:-'a}b'}\" \"${X/a/\"}\"}\" ${X#'}'} ${X:-${Y#a}} ${X~} ${X~~[a]}",
    ]));
}

#[test]
fn operators_and_lists() {
    insta::assert_snapshot!(show(&[
        "a; b",
        "a && b || c",
        "a | b | c",
        "! a | b",
        "! ! a",
        "!",
        "echo !",
        "a |& b",
        "a &&\n\n  # comment\n  b",
        "a |\n b",
        "a;\n\nb\nc;",
        "\n\n  a\n",
        "",
        "a \\\n  b",
    ]));
}

#[test]
fn assignments() {
    insta::assert_snapshot!(show(&[
        "X=1",
        "X=1 Y=$X cmd a=b",
        "X= cmd",
        "X=~/a:~/b",
        "X+=more",
        "\"X\"=1",
        "X\\=1",
        "1X=2",
        "_x1=\"a b\"",
        "cmd X=1",
    ]));
}

#[test]
fn redirections() {
    insta::assert_snapshot!(show(&[
        "echo a > out >> app < in >| clob",
        "echo a 2> err 2>> err2 2>&1 >&2 3>&- 0<&3 <&-",
        "echo a &> both &>> both2 >& f",
        "echo a 2>&1x",
        "cat <<< \"here $X\"",
        "echo a >$X 2>\"e f\"",
        "echo 12>x 12 >x",
    ]));
}

#[test]
fn heredocs() {
    insta::assert_snapshot!(show(&[
        "cat <<EOF\nhello $X\n\\$HOME \\\\ \\q \"q\" 'q'\nEOF\n",
        "cat <<'EOF'\nno $X \\$ here\nEOF\n",
        "cat <<\"EOF\"\n$X\nEOF\n",
        "cat <<\\EOF\n$X\nEOF\n",
        "cat <<-EOF\n\t\ttabs\n\tEOF\n",
        "cat <<A; cat <<-B\na body\nA\n\tb body\n\tB\necho after\n",
        "cat <<EOF | grep x\nx1\nEOF\n",
        "cat <<EOF\nEOF",
        "cat <<E\"O\"F\n$X\nEOF\n",
        "cat <<EOF\nno newline at end\nEOF",
    ]));
}

#[test]
fn line_numbers() {
    insta::assert_snapshot!(show(&[
        "a\nb\n\nc; d\ne \\\nf\ng 'x\ny'\nh",
        "cat <<EOF\n1\n2\nEOF\nnext",
    ]));
}

#[test]
fn unsupported() {
    insta::assert_snapshot!(show(&[
        "for i in 1 2; do echo $i; done",
        "while true; do :; done",
        "if true; then echo; fi",
        "X=1 && { echo; }",
        "echo a | while read x; do :; done",
        "[[ -f x ]]",
        "then",
        "function f { :; }",
        "f() { :; }",
        "f ( ) { :; }",
        "(cd x)",
        "((x++))",
        "echo $(date)",
        "echo \"$(date)\"",
        "echo `date`",
        "echo $((1+2))",
        "echo $[1+2]",
        "diff <(ls) >(cat)",
        "sleep 1 &",
        "a & b",
        "coproc cat",
        "time ls",
        "a=(1 2)",
        "a[0]=x",
        "echo ${X#pre} ",
        "echo ${X%suf}",
        "echo ${X/a/b}",
        "echo ${X:1:2}",
        "echo ${X^^}",
        "echo ${!X}",
        "echo ${X[0]}",
        "cat <>f",
        "echo >&$fd",
        "echo {fd}>x",
        "cat <<EOF\n$(date)\nEOF\n",
        "echo 'for' \"if\" x for",
        "X=1 if",
    ]));
}

// ---------------------------------------------------------------------------------------
// Errors, with bash's exact texts.

fn syntax(input: &str) -> (String, usize) {
    match parse(input.as_bytes(), 1) {
        Err(ParseError::Syntax { message, line }) => (message, line),
        other => panic!("{input:?}: expected a syntax error, got {other:?}"),
    }
}

fn incomplete(input: &str) -> String {
    match parse(input.as_bytes(), 1) {
        Err(ParseError::Incomplete { message }) => message,
        other => panic!("{input:?}: expected incomplete, got {other:?}"),
    }
}

fn at_eof(input: &str) -> Result<(String, Vec<String>), (String, usize)> {
    match parse_at_eof(input.as_bytes(), 1) {
        Ok(p) => Ok((
            script(&p.script),
            p.warnings
                .iter()
                .map(|w| format!("line {}: {}", w.line, w.message))
                .collect(),
        )),
        Err(ParseError::Syntax { message, line }) => Err((message, line)),
        Err(e) => panic!("{input:?}: {e:?}"),
    }
}

/// Inputs and the error bash 5.2 prints for them (`printf '%s' INPUT | bash`), without the
/// `bash: line N: ` prefix.
const SYNTAX_ERRORS: &[(&str, &str, usize)] = &[
    ("echo ;;", "syntax error near unexpected token `;;'", 1),
    ("echo a;;", "syntax error near unexpected token `;;'", 1),
    ("echo >", "syntax error near unexpected token `newline'", 1),
    (
        "echo a >\n",
        "syntax error near unexpected token `newline'",
        1,
    ),
    ("echo a; ;", "syntax error near unexpected token `;'", 1),
    ("; a", "syntax error near unexpected token `;'", 1),
    ("| a", "syntax error near unexpected token `|'", 1),
    (
        "echo a && || b",
        "syntax error near unexpected token `||'",
        1,
    ),
    ("&& a", "syntax error near unexpected token `&&'", 1),
    ("echo a | ; b", "syntax error near unexpected token `;'", 1),
    ("echo >&", "syntax error near unexpected token `newline'", 1),
    ("echo (", "syntax error near unexpected token `newline'", 1),
    ("echo )", "syntax error near unexpected token `)'", 1),
    ("a=b)", "syntax error near unexpected token `)'", 1),
    (")", "syntax error near unexpected token `)'", 1),
    ("echo <<", "syntax error near unexpected token `newline'", 1),
    ("echo < <", "syntax error near unexpected token `<'", 1),
    ("echo > >", "syntax error near unexpected token `>'", 1),
    ("echo > ;", "syntax error near unexpected token `;'", 1),
    ("echo > 2>x", "syntax error near unexpected token `2'", 1),
    ("echo a (b)", "syntax error near unexpected token `('", 1),
    ("X=1 f()", "syntax error near unexpected token `('", 1),
    (
        ":\n:\necho ;;",
        "syntax error near unexpected token `;;'",
        3,
    ),
    ("a ;&", "syntax error near unexpected token `;&'", 1),
];

#[test]
fn syntax_errors() {
    for (input, message, line) in SYNTAX_ERRORS {
        assert_eq!(syntax(input), ((*message).to_string(), *line), "{input:?}");
    }
}

#[test]
fn incomplete_inputs() {
    assert_eq!(
        incomplete("echo \"abc"),
        "unexpected EOF while looking for matching `\"'"
    );
    assert_eq!(
        incomplete("echo 'abc"),
        "unexpected EOF while looking for matching `''"
    );
    assert_eq!(
        incomplete("echo $'abc"),
        "unexpected EOF while looking for matching `''"
    );
    assert_eq!(
        incomplete("echo ${X"),
        "unexpected EOF while looking for matching `}'"
    );
    assert_eq!(
        incomplete("echo ${X:-a"),
        "unexpected EOF while looking for matching `}'"
    );
    assert_eq!(
        incomplete("echo a |"),
        "syntax error: unexpected end of file"
    );
    assert_eq!(
        incomplete("echo a |\n"),
        "syntax error: unexpected end of file"
    );
    assert_eq!(
        incomplete("echo a &&"),
        "syntax error: unexpected end of file"
    );
    assert_eq!(
        incomplete("echo a ||\n\n"),
        "syntax error: unexpected end of file"
    );
    assert_eq!(incomplete("echo a \\"), "");
    assert_eq!(
        incomplete("cat <<EOF\nhi\n"),
        "warning: here-document at line 1 delimited by end-of-file (wanted `EOF')"
    );
    assert_eq!(
        incomplete("cat <<EOF"),
        "warning: here-document at line 1 delimited by end-of-file (wanted `EOF')"
    );
}

/// End of file: what `printf INPUT | bash` prints (checked by hand, see the module doc).
#[test]
fn end_of_file() {
    let q = "unexpected EOF while looking for matching `\"'".to_string();
    assert_eq!(at_eof("echo \"a\nb\n"), Err((q.clone(), 1)));
    assert_eq!(at_eof("echo a\necho \"a\nb"), Err((q, 2)));
    let eof = "syntax error: unexpected end of file".to_string();
    assert_eq!(at_eof("echo a |\n\n"), Err((eof.clone(), 3)));
    assert_eq!(at_eof("echo a &&"), Err((eof, 1)));
    assert_eq!(
        at_eof("echo ${X\n\n"),
        Err((
            "unexpected EOF while looking for matching `}'".to_string(),
            1
        ))
    );
    let w = |line: usize, d: &str, at: usize| {
        format!(
            "line {at}: warning: here-document at line {line} delimited by end-of-file (wanted `{d}')"
        )
    };
    assert_eq!(
        at_eof("cat <<EOF\nhi\n"),
        Ok((
            "  line 1: [{L:cat} <<{Q:hi\\n}]\n".to_string(),
            vec![w(1, "EOF", 2)]
        ))
    );
    assert_eq!(
        at_eof("cat <<EOF; cat <<-E2\nhi\n"),
        Ok((
            "  line 1: [{L:cat} <<{Q:hi\\n}]\n  line 1: [{L:cat} <<]\n".to_string(),
            vec![w(1, "EOF", 2), w(1, "E2", 2)]
        ))
    );
    assert_eq!(
        at_eof("echo a\ncat <<EOF\nhi"),
        Ok((
            "  line 1: [{L:echo} {L:a}]\n  line 2: [{L:cat} <<{Q:hi\\n}]\n".to_string(),
            vec![w(2, "EOF", 3)]
        ))
    );
    // bash -c 'echo a \' keeps the backslash.
    assert_eq!(
        at_eof("echo a \\"),
        Ok(("  line 1: [{L:echo} {L:a} {Q:\\\\}]\n".to_string(), vec![]))
    );
}

#[test]
fn first_line_offsets_numbers() {
    let s = parse(b"a\nb", 10).unwrap();
    assert_eq!(s.items.iter().map(|i| i.line).collect::<Vec<_>>(), [10, 11]);
    assert_eq!(
        parse(b"a\n;;", 7),
        Err(ParseError::Syntax {
            message: "syntax error near unexpected token `;;'".into(),
            line: 8
        })
    );
}

/// Re-checks the syntax error texts against the installed bash.
#[test]
fn bash_agrees() {
    if std::process::Command::new("bash")
        .arg("--version")
        .output()
        .is_err()
    {
        return;
    }
    for (input, message, line) in SYNTAX_ERRORS {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("printf '%s' {} | bash", shell_quote(input)))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr
            .lines()
            .find(|l| l.contains("syntax error"))
            .unwrap_or_default();
        assert_eq!(first, format!("bash: line {line}: {message}"), "{input:?}");
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

// ---------------------------------------------------------------------------------------
// Robustness: any bytes give an answer, quickly.

const SOUP: &[&str] = &[
    " ", "\n", "\t", "a", "X", "=", "\"", "'", "\\", "$", "{", "}", "(", ")", "${", "$'", "`", ";",
    ";;", "&", "&&", "|", "||", "<", ">", ">>", "<<", "<<-", "<<<", "2>", ">&", "&>", "#", "~",
    "*", "?", "[", "]", ",", "..", "1", "EOF", "!", "for", "if", ":-", ":=", "\\\n", "\u{e9}",
    "\u{0}", "\u{ff}", "%", "/", "//", "^", "^^", ",,", "@", "@Q", "@P", ":1", ": -", "#*", "${!",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(input in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = parse(&input, 1);
        let _ = parse_at_eof(&input, 1);
    }

    #[test]
    fn token_soup_never_panics(idx in proptest::collection::vec(0..SOUP.len(), 0..80)) {
        let input: String = idx.iter().map(|&i| SOUP[i]).collect();
        let _ = parse(input.as_bytes(), 1);
        let _ = parse_at_eof(input.as_bytes(), 1);
    }
}

#[test]
fn large_inputs_are_fast() {
    let start = std::time::Instant::now();
    let cases: Vec<Vec<u8>> = vec![
        "echo a; ".repeat(15_000).into_bytes(),
        "a | ".repeat(25_000).into_bytes(),
        "\"".repeat(100_000).into_bytes(),
        "${X:-".repeat(20_000).into_bytes(),
        "{".repeat(100_000).into_bytes(),
        format!("cat <<EOF\n{}EOF\n", "line\n".repeat(20_000)).into_bytes(),
        format!("cat {}\n{}", "<<EOF ".repeat(5_000), "x\n".repeat(20_000)).into_bytes(),
        "\\\n".repeat(50_000).into_bytes(),
        "x".repeat(100_000).into_bytes(),
        "'a'\"b\"$c".repeat(10_000).into_bytes(),
        "\n".repeat(100_000).into_bytes(),
    ];
    for c in &cases {
        let _ = parse(c, 1);
        let _ = parse_at_eof(c, 1);
    }
    assert!(start.elapsed().as_secs() < 10, "took {:?}", start.elapsed());
}

// ---------------------------------------------------------------------------------------
// Parse options: extended patterns, aliases, one complete command at a time.

fn with_opts(input: &str, extglob: bool, aliases: &[(&str, &str)]) -> String {
    let map: std::collections::BTreeMap<String, String> = aliases
        .iter()
        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
        .collect();
    let opts = super::ParseOpts {
        extglob,
        aliases: (!aliases.is_empty()).then_some(&map),
    };
    let mut reader = super::Reader::new(input.as_bytes(), 1);
    let mut out = String::new();
    while let Some(next) = reader.next_command(opts) {
        match next {
            Ok(p) => out.push_str(&flat(&p.script)),
            Err(e) => {
                let _ = writeln!(out, "  {e:?}");
            }
        }
    }
    out
}

/// A list as text: simple commands' words with `'...'` for quoted parts, `"..."` for
/// double-quoted ones; other commands as `{compound}`.
fn flat(s: &Script) -> String {
    fn flat_part(p: &WordPart) -> String {
        match p {
            WordPart::Literal(v) => bytes(v),
            WordPart::Quoted(v) => format!("'{}'", bytes(v)),
            WordPart::DoubleQuoted(ps) => {
                format!("\"{}\"", ps.iter().map(flat_part).collect::<String>())
            }
            WordPart::Param(p) => format!("${}", p.name),
            _ => "?".into(),
        }
    }
    let mut out = String::new();
    for item in &s.items {
        let cmds: Vec<String> = item
            .first
            .commands
            .iter()
            .map(|c| match c {
                Command::Simple(c) => {
                    let mut w: Vec<String> = c
                        .assignments
                        .iter()
                        .map(|a| format!("{}=", a.name))
                        .collect();
                    w.extend(
                        c.words
                            .iter()
                            .map(|w| w.parts.iter().map(flat_part).collect::<String>()),
                    );
                    w.join(" ")
                }
                _ => "{compound}".into(),
            })
            .collect();
        let _ = writeln!(out, "  line {}: {}", item.line, cmds.join(" | "));
    }
    out
}

#[test]
fn extended_patterns_are_one_word_with_extglob() {
    // Checked with bash 5.2 (`shopt -s extglob` on the line before).
    assert_eq!(
        with_opts("echo @(a b|c)x !(*.txt) +(a;b) ?(<) *(\"q)\")", true, &[]),
        "  line 1: echo @(a b|c)x !(*.txt) +(a;b) ?(<) *(\"'q)'\")\n"
    );
    assert_eq!(
        with_opts("echo @(a\nb)x", true, &[]),
        "  line 1: echo @(a\\nb)x\n"
    );
    assert_eq!(
        with_opts("echo @((a))", true, &[]),
        "  line 1: echo @((a))\n"
    );
    assert_eq!(
        with_opts("echo @(a", true, &[]),
        "  Syntax { message: \"unexpected EOF while looking for matching `)'\", line: 1 }\n"
    );
    assert_eq!(
        with_opts("echo @(a)(b)", true, &[]),
        "  Syntax { message: \"syntax error near unexpected token `('\", line: 1 }\n"
    );
    // Without the option, `(` is an operator; `@`, `!x`, `x+y` are plain words.
    assert_eq!(
        with_opts("echo @(a)", false, &[]),
        "  Syntax { message: \"syntax error near unexpected token `('\", line: 1 }\n"
    );
    assert_eq!(
        with_opts("echo @ a@b !x x+y", false, &[]),
        "  line 1: echo @ a@b !x x+y\n"
    );
    // `[[ == ]]` reads its pattern with extended patterns, whatever the option.
    assert!(parse(b"[[ ab == @(ab|c d) ]]", 1).is_ok());
    assert!(parse(b"[[ ab != +(a) && x = !(y) ]]", 1).is_ok());
    assert!(parse(b"[[ @(ab) == x ]]", 1).is_err());
    // A front end asking whether the input is complete.
    assert!(matches!(
        super::parse_with_opts(
            b"case x in\n@(a|\n",
            1,
            super::ParseOpts {
                extglob: true,
                aliases: None
            }
        ),
        Err(ParseError::Incomplete { .. })
    ));
}

#[test]
fn reader_reads_one_complete_command_at_a_time() {
    // Each line is a command; a compound command or a here-document takes its lines.
    let text = "echo a; echo b\n\nif true\nthen echo c\nfi\ncat <<E\nbody\nE\necho $LINENO\n";
    let mut reader = super::Reader::new(text.as_bytes(), 1);
    let mut units = Vec::new();
    while let Some(next) = reader.next_command(super::ParseOpts::default()) {
        let script = next.unwrap().script;
        units.push(script.items.iter().map(|i| i.line).collect::<Vec<_>>());
    }
    assert_eq!(units, vec![vec![1, 1], vec![3], vec![6], vec![9]]);
    // What parses before a syntax error is given first; the error ends the input.
    assert_eq!(
        with_opts("echo a\necho (\necho b\n", false, &[]),
        "  line 1: echo a\n  Syntax { message: \"syntax error near unexpected token `newline'\", line: 2 }\n"
    );
    // Line continuations and comments.
    assert_eq!(
        with_opts("echo a \\\n b # c\n# d\n", false, &[]),
        "  line 1: echo a b\n"
    );
}

#[test]
fn aliases_expand_in_command_position() {
    let a = &[
        ("e", "echo "),
        ("q", "\"a b\""),
        ("ll", "ls -l"),
        ("c", "if true; then echo"),
        ("self", "echo x; self"),
    ];
    assert_eq!(with_opts("ll x", false, a), "  line 1: ls -l x\n");
    assert_eq!(with_opts("e q q", false, a), "  line 1: echo \"'a b'\" q\n");
    assert_eq!(
        with_opts("e \"q\" q", false, a),
        "  line 1: echo \"'q'\" \"'a b'\"\n"
    );
    assert_eq!(
        with_opts("echo ll; x=1 ll", false, a),
        "  line 1: echo ll\n  line 1: x= ls -l\n"
    );
    assert_eq!(
        with_opts("\\ll; 'll'", false, a),
        "  line 1: 'l'l\n  line 1: 'll'\n"
    );
    assert_eq!(
        with_opts("self", false, a),
        "  line 1: echo x\n  line 1: self\n"
    );
    assert_eq!(with_opts("c yes; fi", false, a), "  line 1: {compound}\n");
    // Not in a for's words or as an argument.
    let mut r = super::Reader::new(b"for ll in ll; do ll; done", 1);
    let map: std::collections::BTreeMap<String, String> =
        [("ll".to_string(), "ls -l".to_string())].into();
    let opts = super::ParseOpts {
        extglob: false,
        aliases: Some(&map),
    };
    let got = r.next_command(opts).unwrap().unwrap().script;
    let want = parse(b"for ll in ll; do ls -l; done", 1).unwrap();
    assert_eq!(script(&got), script(&want));
    // A text pasting more and more aliases stops at the cap.
    let many: Vec<(String, String)> = (0..12)
        .map(|i| (format!("a{i}"), format!("a{};a{};a{}", i + 1, i + 1, i + 1)))
        .collect();
    let refs: Vec<(&str, &str)> = many.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert!(with_opts("a0", false, &refs).contains("Unsupported"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn options_never_panic(idx in proptest::collection::vec(0..SOUP.len(), 0..60)) {
        let input: String = idx.iter().map(|&i| SOUP[i]).collect();
        let _ = with_opts(&input, true, &[("a", "echo @(x "), ("b", "a b "), ("c", "'"), ("d", "$(b")]);
        let _ = with_opts(&format!("@({input})"), true, &[]);
    }
}

/// A line the chunker takes as complete without parsing it never needs the next line: over
/// every line of up to three words from a vocabulary of plain words, reserved words and
/// operators, `is_plainly_complete` is true only where the parser finds no incomplete input.
#[test]
fn plainly_complete_lines_are_complete() {
    use crate::shell::{ParseError, ParseOpts, is_plainly_complete, parse_with_opts};
    let words: &[&str] = &[
        "echo", "x", "if", "then", "fi", "for", "in", "do", "done", "while", "case", "esac", "{",
        "}", "!", "time", "function", "f()", ">>", ">", "a=1", "|", "&&", "\\", "'", "\"", "$(",
        "`", "<<E", "#", "[[", "select", "coproc", "until", "x.txt", "-n", "+1", "",
    ];
    let opts = ParseOpts {
        extglob: true,
        aliases: None,
    };
    let mut plain = 0;
    for a in words {
        for b in words {
            for c in words {
                let line = format!("{a} {b} {c}\n");
                if is_plainly_complete(line.as_bytes(), opts) {
                    plain += 1;
                    assert!(
                        !matches!(
                            parse_with_opts(line.as_bytes(), 1, opts),
                            Err(ParseError::Incomplete { .. })
                        ),
                        "{line:?}"
                    );
                }
            }
        }
    }
    assert!(plain > 1000, "{plain}");
    // Aliases may paste in anything: no line is taken as plain while some are defined.
    let aliases = std::collections::BTreeMap::from([("x".to_string(), "if true".to_string())]);
    let with = ParseOpts {
        extglob: true,
        aliases: Some(&aliases),
    };
    assert!(!is_plainly_complete(b"echo hi\n", with));
    assert!(is_plainly_complete(b"echo xxxx >> fill.txt\n", opts));
}
