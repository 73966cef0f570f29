//! Printing a syntax tree back as bash does (`declare -f`, `type`, `set`, and the text a
//! `$(...)` keeps): bash's canonical layout — four-blank indentation, one command a line
//! inside a function, each followed by `;`, redirections re-spaced (`> file`, `2>&1`),
//! here-document bodies after the line that opens them — with each word as it was written
//! ([`Word::text`]), except that a `$(...)` inside it is re-printed from its parse.
//!
//! bash's command tree is binary: `a; b; c` is `(a; b); c`, `a && b || c` is
//! `(a && b) || c`, `a | b | c` is `a | (b | c)`. Where a here-document body goes, and
//! whether a command starts a line, depend on that shape, so the printer walks the lists of
//! [`Script`], [`AndOr`] and [`Pipeline`] as that tree.
#![deny(clippy::indexing_slicing)]

use super::ast::{
    AndOr, AndOrOp, AssignValue, CaseEnd, Command, Compound, CondExpr, FunctionDef, Pipeline,
    RedirKind, Redirect, Script, SimpleCommand, Word, WordPart,
};

/// How far each level is indented.
const STEP: usize = 4;

/// The most text one print makes: a long `elif` chain is indented deeper at each branch (as
/// bash does), so its text grows with the square of its length; past this it is cut.
pub const MAX_TEXT: usize = 16 << 20;

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
pub(crate) fn source_text(raw: &[u8], out: &mut Vec<u8>, ansi: AnsiDecoder<'_>) {
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

/// Decodes the text after `$'`: the bytes and how many were read.
pub(crate) type AnsiDecoder<'d> = &'d dyn Fn(&[u8]) -> Option<(Vec<u8>, usize)>;

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
    /// The pipeline about to be printed is timed (`Some(true)`: `time -p`).
    timed: Option<bool>,
}

impl<'a> Printer<'a> {
    fn put(&mut self, bytes: &[u8]) {
        if self.out.len() < MAX_TEXT {
            self.out.extend_from_slice(bytes);
        }
    }

    fn spaces(&mut self, n: usize) {
        if self.out.len() < MAX_TEXT {
            self.out.resize(self.out.len() + n, b' ');
        }
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
                self.open(false);
                self.seq(items);
                self.connector(Conn::Amp, false);
                self.close();
            }
            Some(_) => self.seq(items),
        }
    }

    /// The and-or lists of a list, the last one without its separator: `(a; b); c`, each
    /// connection opened first, then closed after its second command (a loop, not a
    /// recursion: a list may be long).
    fn seq(&mut self, items: &'a [AndOr]) {
        let Some((first, rest)) = items.split_first() else {
            return;
        };
        for _ in rest {
            self.open(false);
        }
        self.and_or(first);
        let mut prev = first;
        for item in rest {
            let conn = if prev.background {
                Conn::Amp
            } else if prev.newline {
                Conn::Newline
            } else {
                Conn::Semi
            };
            self.connector(conn, true);
            self.and_or(item);
            self.close();
            prev = item;
        }
    }

    /// `(a && b) || c`.
    fn and_or(&mut self, a: &'a AndOr) {
        for _ in &a.rest {
            self.open(false);
        }
        self.pipeline(&a.first);
        for (op, p) in &a.rest {
            self.connector(
                match op {
                    AndOrOp::And => Conn::And,
                    AndOrOp::Or => Conn::Or,
                },
                true,
            );
            self.pipeline(p);
            self.close();
        }
    }

    /// `a | (b | c)`, the `!` before it all.
    fn pipeline(&mut self, p: &'a Pipeline) {
        let Some((last, init)) = p.commands.split_last() else {
            return;
        };
        self.timed = p.time;
        for (i, cmd) in init.iter().enumerate() {
            self.open(i == 0 && p.negated);
            self.command_node(cmd, false);
            self.connector(Conn::Pipe, true);
        }
        self.command_node(last, init.is_empty() && p.negated);
        for _ in init {
            self.close();
        }
    }

    fn command_node(&mut self, cmd: &'a Command, invert: bool) {
        self.start();
        self.prefixes(invert);
        self.command(cmd);
    }

    /// `time [-p] ` (once, for the pipeline that starts here), then `! `.
    fn prefixes(&mut self, invert: bool) {
        match self.timed.take() {
            Some(true) => self.put(b"time -p "),
            Some(false) => self.put(b"time "),
            None => {}
        }
        if invert {
            self.put(b"! ");
        }
    }

    /// Starts a connection: its first command goes where the connection does.
    fn open(&mut self, invert: bool) {
        self.start();
        self.prefixes(invert);
        self.skip_indent += 1;
        self.connections += 1;
    }

    /// Ends a connection: here-document bodies still waiting go now.
    fn close(&mut self) {
        if !self.deferred.is_empty() {
            self.flush_heredocs(b"");
        }
        self.connections = self.connections.saturating_sub(1);
    }

    /// The separator between a connection's two commands (`second`: there is one after it;
    /// not after a final `&`).
    fn connector(&mut self, conn: Conn, second: bool) {
        match conn {
            Conn::Amp | Conn::Pipe => {
                self.flush_heredocs(if conn == Conn::Amp { b" &" } else { b" |" });
                if conn == Conn::Pipe || second {
                    self.put(b" ");
                    self.skip_indent += 1;
                }
            }
            Conn::And | Conn::Or => {
                self.flush_heredocs(if conn == Conn::And { b" && " } else { b" || " });
                if second {
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
                    if second {
                        self.skip_indent += 1;
                    }
                }
            }
        }
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
        if self.out.len() >= MAX_TEXT {
            return;
        }
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

    /// `if`: an `elif` is an `if` in the `else` branch (each opened in turn, then closed
    /// innermost first).
    fn if_command(&mut self, branches: &'a [(Script, Script)], otherwise: Option<&'a Script>) {
        let n = branches.len();
        let has_else = |i: usize| i + 1 < n || otherwise.is_some();
        for (i, (cond, body)) in branches.iter().enumerate() {
            if i > 0 {
                self.start();
            }
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
            if has_else(i) {
                self.semicolon();
                self.newline(b"else\n");
                self.indent += STEP;
            }
            if i + 1 == n
                && let Some(s) = otherwise
            {
                self.list(&s.items);
            }
        }
        for i in (0..n).rev() {
            if has_else(i) {
                if !self.deferred.is_empty() {
                    self.flush_heredocs(b"");
                }
                self.indent -= STEP;
            }
            self.semicolon();
            self.newline(b"fi");
        }
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
            CondExpr::And(..) | CondExpr::Or(..) => {
                // `(a && b) || c`: down the left operands in a loop (a chain may be long).
                let mut rights: Vec<(&[u8], &CondExpr)> = Vec::new();
                let mut left = e;
                loop {
                    match left {
                        CondExpr::And(l, r) => {
                            rights.push((b" && ", r));
                            left = l;
                        }
                        CondExpr::Or(l, r) => {
                            rights.push((b" || ", r));
                            left = l;
                        }
                        _ => break,
                    }
                }
                self.cond(left);
                for (op, r) in rights.into_iter().rev() {
                    self.put(op);
                    self.cond(r);
                }
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

/// `'text'`, each `'` written `'\''` (a lone `'` is `\'`): bash's `sh_single_quote`, for
/// printed words, `${X@Q}` and `set -x`.
pub(crate) fn single_quote(text: &[u8], out: &mut Vec<u8>) {
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
