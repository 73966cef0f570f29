//! Printing a syntax tree back as bash does (`declare -f`, `type`, `set`, and the text a
//! `$(...)` keeps): bash's canonical layout — four-blank indentation, one command a line
//! inside a function, each followed by `;`, redirections re-spaced (`> file`, `2>&1`),
//! here-document bodies after the line that opens them — with each word as it was written
//! ([`Word::text`]), except that a `$(...)` inside it is re-printed from its parse.
//!
//! bash's command tree is binary: `a; b; c` is `(a; b); c`, `a && b || c` is
//! `(a && b) || c`, `a | b | c` is `a | (b | c)`. Where a here-document body goes, and
//! whether a command starts a line, depend on that shape, so the printer walks the lists of
//! [`Script`], [`AndOr`] and [`Pipeline`] as that tree ([`Node`]).
#![deny(clippy::indexing_slicing)]

use super::ast::{
    AndOr, AndOrOp, AssignValue, CaseEnd, Command, Compound, CondExpr, FunctionDef, Pipeline,
    RedirKind, Redirect, Script, SimpleCommand, Word, WordPart,
};

/// How far each level is indented.
const STEP: usize = 4;

/// The words that make bash print `function NAME` rather than `NAME`.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc",
];

/// A function as `declare -f NAME` prints it (no final newline):
/// `NAME () \n{ \n    body\n}`.
pub fn function_text(def: &FunctionDef) -> Vec<u8> {
    let mut p = Printer::default();
    if RESERVED.contains(&def.name.as_str()) {
        p.put(b"function ");
    }
    p.put(def.name.as_bytes());
    p.put(b" () \n");
    p.indent += STEP;
    p.in_function += 1;
    p.put(b"{ \n");
    p.function_body(def);
    p.indent -= STEP;
    p.in_function -= 1;
    p.function_close(def);
    p.out
}

/// The text bash keeps for a `$(...)`, `<(...)` or `>(...)` (`open` is its opening): the
/// list re-printed, a blank before it if it starts with `(` (not to read as `$((`).
pub(crate) fn subst_text(open: &[u8], script: &Script) -> Vec<u8> {
    let mut p = Printer {
        comsub: true,
        ..Printer::default()
    };
    p.list(&script.items);
    let mut out = open.to_vec();
    if p.out.first() == Some(&b'(') {
        out.push(b' ');
    }
    out.extend_from_slice(&p.out);
    out.push(b')');
    out
}

/// Appends source text as bash keeps it in a word: `\`-newline pairs (line continuations)
/// removed except inside single quotes, `$'...'` decoded (by `ansi`, given the text after
/// `$'`: the bytes and the length read) and single-quoted, `$"..."` as `"..."`.
pub(crate) fn source_text(
    raw: &[u8],
    out: &mut Vec<u8>,
    ansi: &dyn Fn(&[u8]) -> Option<(Vec<u8>, usize)>,
) {
    #[derive(PartialEq)]
    enum Q {
        None,
        Single,
        Double,
    }
    let mut q = Q::None;
    let mut i = 0;
    while let Some(&b) = raw.get(i) {
        let next = raw.get(i + 1).copied();
        match (&q, b) {
            (Q::Single, b'\'') | (Q::Double, b'"') => q = Q::None,
            (Q::Single, _) => {}
            (Q::None | Q::Double, b'\\') => {
                match next {
                    Some(b'\n') => {}
                    Some(c) => out.extend_from_slice(&[b, c]),
                    None => out.push(b),
                }
                i += 2;
                continue;
            }
            (Q::None, b'\'') => q = Q::Single,
            (Q::None, b'"') => q = Q::Double,
            (Q::None, b'$') if next == Some(b'\'') => {
                if let Some((text, len)) = ansi(raw.get(i + 2..).unwrap_or_default()) {
                    single_quote(&text, out);
                    i += 2 + len;
                    continue;
                }
            }
            (Q::None, b'$') if next == Some(b'"') => {
                i += 1;
                continue;
            }
            _ => {}
        }
        out.push(b);
        i += 1;
    }
}

/// The separators of bash's command tree.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Conn {
    Semi,
    Newline,
    Amp,
    Pipe,
    And,
    Or,
}

/// A node of bash's binary command tree, over the lists of the AST.
#[derive(Clone, Copy)]
enum Node<'a> {
    /// The and-or lists of a list, the last one without its separator.
    Seq(&'a [AndOr]),
    /// The first `n` pipelines of an and-or list.
    AndOr(&'a AndOr, usize),
    /// The commands of a pipeline from the `n`th on.
    Pipe(&'a Pipeline, usize),
    Cmd(&'a Command),
}

#[derive(Default)]
struct Printer<'a> {
    out: Vec<u8>,
    indent: usize,
    /// Commands still to start without indentation (they go on the current line).
    skip_indent: usize,
    /// The last separator was replaced by here-document bodies.
    was_heredoc: bool,
    /// How many connections (`;`, `&&`, `|`...) are being printed.
    connections: usize,
    /// Here-documents whose bodies wait for the separator after their command.
    deferred: Vec<&'a Redirect>,
    in_function: usize,
    /// Printing a `$(...)`: newlines between commands stay newlines.
    comsub: bool,
}

impl<'a> Printer<'a> {
    fn put(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    fn spaces(&mut self, n: usize) {
        self.out.resize(self.out.len() + n, b' ');
    }

    /// A new line at the current indentation, then `s`.
    fn newline(&mut self, s: &[u8]) {
        self.put(b"\n");
        self.spaces(self.indent);
        self.put(s);
    }

    /// `;`, unless the text already ends a command with `&` or a newline.
    fn semicolon(&mut self) {
        if !matches!(self.out.last(), Some(b'&' | b'\n')) {
            self.put(b";");
        }
    }

    /// Where a command starts: indentation, unless it goes on the current line.
    fn start(&mut self) {
        if self.skip_indent > 0 {
            self.skip_indent -= 1;
        } else {
            self.spaces(self.indent);
        }
    }

    /// A whole list: its and-or lists with their separators (a final `&` kept).
    fn list(&mut self, items: &'a [AndOr]) {
        match items.split_last() {
            None => {}
            Some((last, _)) if last.background => {
                self.connection(Node::Seq(items), Conn::Amp, None, false);
            }
            Some(_) => self.node(Node::Seq(items), false),
        }
    }

    fn node(&mut self, node: Node<'a>, invert: bool) {
        match node {
            Node::Seq(items) => match items.split_last() {
                Some((last, [])) => self.node(Node::AndOr(last, last.rest.len() + 1), false),
                Some((last, rest)) => {
                    let conn = rest.last().map_or(Conn::Semi, |a| {
                        if a.background {
                            Conn::Amp
                        } else if a.newline {
                            Conn::Newline
                        } else {
                            Conn::Semi
                        }
                    });
                    let second = Node::AndOr(last, last.rest.len() + 1);
                    self.connection(Node::Seq(rest), conn, Some(second), false);
                }
                None => {}
            },
            Node::AndOr(a, n) => {
                if n <= 1 {
                    self.node(Node::Pipe(&a.first, 0), false);
                } else if let Some((op, p)) = a.rest.get(n - 2) {
                    let conn = match op {
                        AndOrOp::And => Conn::And,
                        AndOrOp::Or => Conn::Or,
                    };
                    self.connection(Node::AndOr(a, n - 1), conn, Some(Node::Pipe(p, 0)), false);
                }
            }
            Node::Pipe(p, i) => {
                let invert = invert || (i == 0 && p.negated);
                let Some(cmd) = p.commands.get(i) else {
                    return;
                };
                if i + 1 < p.commands.len() {
                    self.connection(
                        Node::Cmd(cmd),
                        Conn::Pipe,
                        Some(Node::Pipe(p, i + 1)),
                        invert,
                    );
                } else {
                    self.node(Node::Cmd(cmd), invert);
                }
            }
            Node::Cmd(cmd) => {
                self.start();
                if invert {
                    self.put(b"! ");
                }
                self.command(cmd);
            }
        }
    }

    /// Two commands and the separator between them (`second` is missing after a final `&`).
    fn connection(&mut self, first: Node<'a>, conn: Conn, second: Option<Node<'a>>, invert: bool) {
        self.start();
        if invert {
            self.put(b"! ");
        }
        self.skip_indent += 1;
        self.connections += 1;
        self.node(first, false);
        match conn {
            Conn::Amp | Conn::Pipe => {
                self.flush_heredocs(if conn == Conn::Amp { b" &" } else { b" |" });
                if conn == Conn::Pipe || second.is_some() {
                    self.put(b" ");
                    self.skip_indent += 1;
                }
            }
            Conn::And | Conn::Or => {
                self.flush_heredocs(if conn == Conn::And { b" && " } else { b" || " });
                if second.is_some() {
                    self.skip_indent += 1;
                }
            }
            Conn::Semi | Conn::Newline => {
                let sep: &[u8] = if self.comsub && conn == Conn::Newline {
                    b"\n"
                } else {
                    b";"
                };
                if self.deferred.is_empty() {
                    if self.was_heredoc {
                        self.was_heredoc = false;
                    } else {
                        self.put(sep);
                    }
                } else {
                    self.flush_heredocs(if self.in_function > 0 { b"" } else { b";" });
                }
                if self.in_function > 0 {
                    self.put(b"\n");
                } else {
                    if conn == Conn::Semi {
                        self.put(b" ");
                    }
                    if second.is_some() {
                        self.skip_indent += 1;
                    }
                }
            }
        }
        if let Some(second) = second {
            self.node(second, false);
        }
        if !self.deferred.is_empty() {
            self.flush_heredocs(b"");
        }
        self.connections -= 1;
    }

    /// The separator `sep`, then the bodies of the here-documents waiting for it. A lone
    /// `;` is not printed: the bodies end the line.
    fn flush_heredocs(&mut self, sep: &[u8]) {
        let shown = !sep.is_empty() && sep != b";";
        if shown {
            self.put(sep);
        }
        if !self.deferred.is_empty() {
            let docs = std::mem::take(&mut self.deferred);
            self.heredoc_bodies(&docs);
            if shown {
                self.put(b" ");
            }
        }
    }

    fn heredoc_bodies(&mut self, docs: &[&Redirect]) {
        self.put(b"\n");
        for r in docs {
            if let RedirKind::HereDoc { body, delim, .. } = &r.kind {
                self.put(body.text.bytes());
                self.put(delim);
                self.put(b"\n");
            }
        }
        self.was_heredoc = true;
    }

    fn command(&mut self, cmd: &'a Command) {
        match cmd {
            Command::Simple(s) => self.simple(s),
            Command::Compound(c, redirects) => {
                self.compound(c);
                if !redirects.is_empty() {
                    self.put(b" ");
                    self.redirects(redirects);
                }
            }
            Command::Function(def) => {
                self.put(b"function ");
                self.put(def.name.as_bytes());
                self.put(b" () \n");
                self.spaces(self.indent);
                self.put(b"{ \n");
                self.in_function += 1;
                self.indent += STEP;
                self.function_body(def);
                self.indent -= STEP;
                self.in_function -= 1;
                self.function_close(def);
            }
        }
    }

    /// What goes between a function's `{` and `}`: a `{ }` body's list, or the compound
    /// command itself.
    fn function_body(&mut self, def: &'a FunctionDef) {
        match &def.body {
            Compound::Brace(script) => self.list(&script.items),
            other => {
                self.start();
                self.compound(other);
                if !def.redirects.is_empty() {
                    self.put(b" ");
                    self.redirects(&def.redirects);
                }
            }
        }
        if !self.deferred.is_empty() {
            self.flush_heredocs(b"");
        }
    }

    fn function_close(&mut self, def: &'a FunctionDef) {
        if matches!(def.body, Compound::Brace(_)) && !def.redirects.is_empty() {
            self.newline(b"} ");
            self.redirects(&def.redirects);
        } else {
            self.newline(b"}");
        }
    }

    fn simple(&mut self, s: &'a SimpleCommand) {
        let mut first = true;
        for a in &s.assignments {
            if !first {
                self.put(b" ");
            }
            first = false;
            self.put(a.text.bytes());
        }
        for (i, w) in s.words.iter().enumerate() {
            if !first {
                self.put(b" ");
            }
            first = false;
            match s.decl_args.iter().find(|(k, _)| *k == i) {
                Some((_, a)) if matches!(a.value, AssignValue::Array(_)) => {
                    self.put(a.text.bytes());
                }
                _ => self.word(w),
            }
        }
        if !s.redirects.is_empty() {
            if !first {
                self.put(b" ");
            }
            self.redirects(&s.redirects);
        }
    }

    fn word(&mut self, w: &Word) {
        match &w.text.0 {
            Some(t) => self.out.extend_from_slice(t),
            None => fallback_word(&w.parts, &mut self.out),
        }
    }

    fn words(&mut self, words: &[Word], sep: &[u8]) {
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                self.put(sep);
            }
            self.word(w);
        }
    }

    fn compound(&mut self, c: &'a Compound) {
        match c {
            Compound::Brace(script) => {
                self.put(b"{ ");
                if self.in_function == 0 {
                    self.skip_indent += 1;
                } else {
                    self.put(b"\n");
                    self.indent += STEP;
                }
                self.list(&script.items);
                if !self.deferred.is_empty() {
                    self.flush_heredocs(b"");
                }
                if self.in_function > 0 {
                    self.put(b"\n");
                    self.indent -= STEP;
                    self.spaces(self.indent);
                } else {
                    self.semicolon();
                    self.put(b" ");
                }
                self.put(b"}");
            }
            Compound::Subshell(script) => {
                self.put(b"( ");
                self.skip_indent += 1;
                self.list(&script.items);
                if !self.deferred.is_empty() {
                    self.flush_heredocs(b"");
                }
                self.put(b" )");
            }
            Compound::If {
                branches,
                otherwise,
            } => self.if_command(branches, otherwise.as_ref()),
            Compound::For {
                var, words, body, ..
            } => {
                self.put(b"for ");
                self.put(var.as_bytes());
                self.put(b" in ");
                match words {
                    Some(words) => self.words(words, b" "),
                    None => self.put(b"\"$@\""),
                }
                self.put(b";");
                self.loop_body(body);
            }
            Compound::ArithFor {
                init,
                cond,
                step,
                body,
                ..
            } => {
                self.put(b"for ((");
                self.for_part(init);
                self.put(b"; ");
                self.for_part(cond);
                self.put(b"; ");
                self.for_part(step);
                self.put(b"))");
                self.loop_body(body);
            }
            Compound::While { until, cond, body } => {
                self.put(if *until { b"until " } else { b"while " });
                self.skip_indent += 1;
                self.list(&cond.items);
                if !self.deferred.is_empty() {
                    self.flush_heredocs(b"");
                }
                self.semicolon();
                self.put(b" do\n");
                self.indent += STEP;
                self.list(&body.items);
                if !self.deferred.is_empty() {
                    self.flush_heredocs(b"");
                }
                self.indent -= STEP;
                self.semicolon();
                self.newline(b"done");
            }
            Compound::Case { word, arms, .. } => {
                self.put(b"case ");
                self.word(word);
                self.put(b" in ");
                if !arms.is_empty() {
                    self.indent += STEP;
                    for arm in arms {
                        self.newline(b"");
                        self.words(&arm.patterns, b" | ");
                        self.put(b")\n");
                        self.indent += STEP;
                        self.list(&arm.body.items);
                        self.indent -= STEP;
                        if !self.deferred.is_empty() {
                            self.flush_heredocs(b"");
                        }
                        self.newline(match arm.end {
                            CaseEnd::Break => b";;",
                            CaseEnd::FallThrough => b";&",
                            CaseEnd::Continue => b";;&",
                        });
                    }
                    self.indent -= STEP;
                }
                self.newline(b"esac");
            }
            Compound::Arith { expr, .. } => {
                self.put(b"((");
                self.word(expr);
                self.put(b"))");
            }
            Compound::Cond { expr, .. } => {
                self.put(b"[[ ");
                self.cond(expr);
                self.put(b" ]]");
            }
        }
    }

    /// `do list done` of the `for` loops, after their heads.
    fn loop_body(&mut self, body: &'a Script) {
        self.newline(b"do\n");
        self.indent += STEP;
        self.list(&body.items);
        if !self.deferred.is_empty() {
            self.flush_heredocs(b"");
        }
        self.semicolon();
        self.indent -= STEP;
        self.newline(b"done");
    }

    /// One part of `for ((...))`: leading blanks dropped, `1` when empty.
    fn for_part(&mut self, w: &Word) {
        let mut text = Vec::new();
        match &w.text.0 {
            Some(t) => text.extend_from_slice(t),
            None => fallback_word(&w.parts, &mut text),
        }
        let start = text
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t' | b'\n'))
            .unwrap_or(text.len());
        match text.get(start..) {
            Some(t) if !t.is_empty() => self.put(t),
            _ => self.put(b"1"),
        }
    }

    /// `if`: an `elif` is an `if` in the `else` branch.
    fn if_command(&mut self, branches: &'a [(Script, Script)], otherwise: Option<&'a Script>) {
        let Some(((cond, body), rest)) = branches.split_first() else {
            return;
        };
        self.put(b"if ");
        self.skip_indent += 1;
        self.list(&cond.items);
        self.semicolon();
        self.put(b" then\n");
        self.indent += STEP;
        self.list(&body.items);
        if !self.deferred.is_empty() {
            self.flush_heredocs(b"");
        }
        self.indent -= STEP;
        if !rest.is_empty() || otherwise.is_some() {
            self.semicolon();
            self.newline(b"else\n");
            self.indent += STEP;
            if rest.is_empty() {
                if let Some(s) = otherwise {
                    self.list(&s.items);
                }
            } else {
                self.start();
                self.if_command(rest, otherwise);
            }
            if !self.deferred.is_empty() {
                self.flush_heredocs(b"");
            }
            self.indent -= STEP;
        }
        self.semicolon();
        self.newline(b"fi");
    }

    fn cond(&mut self, e: &CondExpr) {
        match e {
            CondExpr::Word(w) => {
                self.put(b"-n ");
                self.word(w);
            }
            CondExpr::Unary(op, w) => {
                self.put(op.as_bytes());
                self.put(b" ");
                self.word(w);
            }
            CondExpr::Binary(l, op, r) => {
                self.word(l);
                self.put(b" ");
                self.put(op.as_bytes());
                self.put(b" ");
                self.word(r);
            }
            CondExpr::Not(inner) => {
                // bash flips a flag on the expression: `! ! x` prints as `x`.
                let mut inner = inner.as_ref();
                let mut negated = true;
                while let CondExpr::Not(i) = inner {
                    negated = !negated;
                    inner = i;
                }
                if negated {
                    self.put(b"! ");
                }
                self.cond(inner);
            }
            CondExpr::Group(inner) => {
                self.put(b"( ");
                self.cond(inner);
                self.put(b" )");
            }
            CondExpr::And(l, r) => {
                self.cond(l);
                self.put(b" && ");
                self.cond(r);
            }
            CondExpr::Or(l, r) => {
                self.cond(l);
                self.put(b" || ");
                self.cond(r);
            }
        }
    }

    /// The redirections of a command on one line; here-document bodies after it (or after
    /// the separator that follows, inside a connection).
    fn redirects(&mut self, redirects: &'a [Redirect]) {
        let mut docs: Vec<&'a Redirect> = Vec::new();
        self.was_heredoc = false;
        for (i, r) in redirects.iter().enumerate() {
            if i > 0 {
                self.put(b" ");
            }
            if let RedirKind::HereDoc {
                delim,
                expand,
                strip_tabs,
                ..
            } = &r.kind
            {
                if let Some(fd) = r.fd.filter(|&n| n != 0) {
                    self.put(fd.to_string().as_bytes());
                }
                self.put(if *strip_tabs { b"<<-" } else { b"<<" });
                if *expand {
                    self.put(delim);
                } else {
                    single_quote(delim, &mut self.out);
                }
                docs.push(r);
            } else {
                self.redirect(r);
            }
        }
        if !docs.is_empty() {
            if self.connections > 0 {
                self.deferred = docs;
            } else {
                self.heredoc_bodies(&docs);
            }
        }
    }

    fn redirect(&mut self, r: &Redirect) {
        // The fd is shown unless it is the operator's own (bash's `<>` counts 1 as its own).
        let fd = |default: u32, own: u32, out: &mut Vec<u8>| {
            let n = r.fd.unwrap_or(default);
            if n != own {
                out.extend_from_slice(n.to_string().as_bytes());
            }
        };
        let (op, target): (&[u8], &Word) = match &r.kind {
            RedirKind::In(w) => {
                fd(0, 0, &mut self.out);
                (b"< ", w)
            }
            RedirKind::Out(w) => {
                fd(1, 1, &mut self.out);
                (b"> ", w)
            }
            RedirKind::Clobber(w) => {
                fd(1, 1, &mut self.out);
                (b">| ", w)
            }
            RedirKind::Append(w) => {
                fd(1, 1, &mut self.out);
                (b">> ", w)
            }
            RedirKind::ReadWrite(w) => {
                fd(0, 1, &mut self.out);
                (b"<> ", w)
            }
            RedirKind::HereString(w) => {
                fd(0, 0, &mut self.out);
                (b"<<< ", w)
            }
            RedirKind::OutErr(w) if r.dup_word => (b">&", w),
            RedirKind::OutErr(w) => (b"&> ", w),
            RedirKind::AppendOutErr(w) => (b"&>> ", w),
            RedirKind::DupOut(n) => {
                let text = format!("{}>&{n}", r.fd.unwrap_or(1));
                self.put(text.as_bytes());
                return;
            }
            RedirKind::DupIn(n) => {
                let text = format!("{}<&{n}", r.fd.unwrap_or(0));
                self.put(text.as_bytes());
                return;
            }
            RedirKind::Close => {
                let text = format!("{}>&-", r.fd.unwrap_or(1));
                self.put(text.as_bytes());
                return;
            }
            RedirKind::HereDoc { .. } => return,
        };
        self.put(op);
        self.word(target);
    }
}

/// `'text'`, each `'` written `'\''` (a lone `'` is `\'`).
fn single_quote(text: &[u8], out: &mut Vec<u8>) {
    if text == b"'" {
        out.extend_from_slice(b"\\'");
        return;
    }
    out.push(b'\'');
    for &b in text {
        if b == b'\'' {
            out.extend_from_slice(b"'\\''");
        } else {
            out.push(b);
        }
    }
    out.push(b'\'');
}

/// A word with no source text kept (built by the shell, not read): written from its parts
/// so that it reads back the same.
fn fallback_word(parts: &[WordPart], out: &mut Vec<u8>) {
    for part in parts {
        match part {
            WordPart::Literal(v) => out.extend_from_slice(v),
            WordPart::Quoted(v) => single_quote(v, out),
            WordPart::DoubleQuoted(inner) => {
                out.push(b'"');
                for p in inner {
                    match p {
                        WordPart::Quoted(v) => {
                            for &b in v {
                                if matches!(b, b'$' | b'`' | b'"' | b'\\') {
                                    out.push(b'\\');
                                }
                                out.push(b);
                            }
                        }
                        other => fallback_word(std::slice::from_ref(other), out),
                    }
                }
                out.push(b'"');
            }
            WordPart::Param(p) => {
                out.extend_from_slice(b"${");
                out.extend_from_slice(p.name.as_bytes());
                out.push(b'}');
            }
            WordPart::CommandSubst(s) => out.extend_from_slice(&subst_text(b"$(", s)),
            WordPart::Arith(w) => {
                out.extend_from_slice(b"$((");
                match &w.text.0 {
                    Some(t) => out.extend_from_slice(t),
                    None => fallback_word(&w.parts, out),
                }
                out.extend_from_slice(b"))");
            }
            WordPart::ProcessSubst { script, out: o } => {
                let open: &[u8] = if *o { b">(" } else { b"<(" };
                out.extend_from_slice(&subst_text(open, script));
            }
        }
    }
}

#[cfg(test)]
#[path = "print_tests.rs"]
mod tests;
