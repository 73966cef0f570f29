//! The parser: tokens to a [`Script`] of and-or lists of pipelines of simple commands.
//!
//! Grammar (bash's, restricted to what trumansh runs):
//!
//! ```text
//! script    := newline* (and_or ((';' | newline) newline* and_or)*)? [';'] newline* EOF
//! and_or    := pipeline (('&&' | '||') newline* pipeline)*
//! pipeline  := '!'* command (('|' | '|&') newline* command)*
//! command   := (assignment | redirect)* [word (word | redirect)*]
//! ```
//!
//! Constructs bash would parse but trumansh does not run are refused as soon as their token is
//! seen ([`ParseError::Unsupported`]): reserved words in command position, `name()`, `(`,
//! `((`, `&`, `coproc`, arrays, and (in the lexer) `$(...)`, backquotes, `$((...))`,
//! process substitution.
//!
//! # Incomplete input and end of file
//!
//! [`parse`] answers [`ParseError::Incomplete`] when the input could go on: an open quote or
//! `${`, a trailing `|`, `&&`, `||` or backslash, a here-document whose delimiter line has not
//! come.
//! An interactive front end reads another line and parses the whole text again. At end of
//! input (end of a `-c` string, of a script, or of stdin), call [`parse_at_eof`] instead: it
//! finishes what bash finishes — a here-document is closed by end of file with bash's
//! warning, a final backslash stays literal (as in `bash -c`) — and turns the rest into
//! [`ParseError::Syntax`] with bash's end-of-file message and line (``unexpected EOF while
//! looking for matching `"'`` on the line of the opening quote; `syntax error: unexpected
//! end of file` on the line after the last).
#![deny(clippy::indexing_slicing)]

use super::ast::{
    AndOr, AndOrOp, Assignment, ParamExp, Pipeline, RedirKind, Redirect, Script, SimpleCommand,
    Word, WordPart,
};
use super::lexer::{Lexer, Operator, Tok, Token, is_name_char, is_name_start};

pub use super::lexer::Warning;

/// Why an input could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The input is not finished (open quote, pending here-document, trailing `|`, `&&`, `\`):
    /// read another line and parse again. The message is what bash says at end of file (empty
    /// for a final `\`, on which bash says nothing); see [`parse_at_eof`].
    Incomplete { message: String },
    /// A syntax error, with bash's text without the shell prefix, e.g.
    /// ``syntax error near unexpected token `;;'``, and the 1-based line it is on. For
    /// `syntax error near unexpected token` bash also echoes the offending line:
    /// ``bash: line N: `echo ;;'``.
    Syntax { message: String, line: usize },
    /// A construct trumansh does not run (loops, functions, `$(...)`, ...): one bash-style line,
    /// status 2.
    Unsupported { message: String, line: usize },
}

/// The parse of a complete input at end of file: the script and the warnings to print first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed {
    pub script: Script,
    pub warnings: Vec<Warning>,
}

/// Parses a complete input (one or more lines). `first_line` numbers its first line.
pub fn parse(input: &[u8], first_line: usize) -> Result<Script, ParseError> {
    Parser::new(input, first_line, false)
        .script()
        .map(|p| p.script)
}

/// Parses an input that will not grow: end of file closes open here-documents (with bash's
/// warning) and every other [`ParseError::Incomplete`] becomes bash's end-of-file
/// [`ParseError::Syntax`]. Never returns `Incomplete`.
pub fn parse_at_eof(input: &[u8], first_line: usize) -> Result<Parsed, ParseError> {
    Parser::new(input, first_line, true).script()
}

const COMPOUND: &str = "compound commands are not supported by this shell (it runs simple commands, pipelines, and ; && || lists)";

/// Bash's reserved words, which open or continue compound commands in command position.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "{", "}", "[[", "]]", "coproc",
];

struct Parser<'a> {
    lx: Lexer<'a>,
    peeked: Option<Token>,
}

fn syntax_near(tok: &Token, lx: &Lexer<'_>) -> ParseError {
    let text = match &tok.tok {
        Tok::Operator(op) => op.text().to_string(),
        Tok::Word(_) | Tok::IoNumber(_) => {
            String::from_utf8_lossy(lx.slice(tok.start, tok.end)).into_owned()
        }
        Tok::Eof => return eof_error(lx),
    };
    ParseError::Syntax {
        message: format!("syntax error near unexpected token `{text}'"),
        line: tok.line,
    }
}

/// Like [`syntax_near`], but end of input counts as the newline that ends the line (where a
/// word must follow: `echo >`, `f (`), as bash reports it.
fn syntax_near_nl(tok: &Token, lx: &Lexer<'_>) -> ParseError {
    if tok.tok == Tok::Eof {
        return ParseError::Syntax {
            message: "syntax error near unexpected token `newline'".into(),
            line: tok.line,
        };
    }
    syntax_near(tok, lx)
}

fn eof_error(lx: &Lexer<'_>) -> ParseError {
    let message = "syntax error: unexpected end of file".to_string();
    if lx.at_eof_mode() {
        ParseError::Syntax {
            message,
            line: lx.line(),
        }
    } else {
        ParseError::Incomplete { message }
    }
}

fn unsupported(message: String, line: usize) -> ParseError {
    ParseError::Unsupported { message, line }
}

/// The word as a single unquoted literal, if it is one (reserved words must be unquoted).
fn plain_literal(word: &Word) -> Option<&[u8]> {
    match word.parts.as_slice() {
        [WordPart::Literal(v)] => Some(v),
        _ => None,
    }
}

/// If the word is `NAME=value` or `NAME+=value` (the name unquoted): the name, whether it
/// appends, and the value's parts.
fn split_assignment(word: &Word) -> Option<(String, bool, Word)> {
    let Some(WordPart::Literal(first)) = word.parts.first() else {
        return None;
    };
    let eq = first.iter().position(|&b| b == b'=')?;
    let (name, append) = match first.get(..eq) {
        Some([head @ .., b'+']) => (head, true),
        Some(n) => (n, false),
        None => return None,
    };
    let valid =
        name.first().is_some_and(|&b| is_name_start(b)) && name.iter().all(|&b| is_name_char(b));
    if !valid {
        return None;
    }
    let name = String::from_utf8_lossy(name).into_owned();
    let mut parts = Vec::with_capacity(word.parts.len());
    let rest = first.get(eq + 1..).unwrap_or_default();
    if !rest.is_empty() {
        parts.push(WordPart::Literal(rest.to_vec()));
    }
    parts.extend(word.parts.iter().skip(1).cloned());
    Some((name, append, Word { parts }))
}

/// Whether the word looks like `NAME[...]=...` (an array element assignment).
fn is_array_assignment(word: &Word) -> bool {
    let Some(WordPart::Literal(first)) = word.parts.first() else {
        return false;
    };
    let name_len = first.iter().take_while(|&&b| is_name_char(b)).count();
    name_len > 0
        && first.first().is_some_and(|&b| is_name_start(b))
        && first.get(name_len) == Some(&b'[')
        && first.windows(2).any(|w| w == b"]=")
}

impl<'a> Parser<'a> {
    fn new(input: &'a [u8], first_line: usize, at_eof: bool) -> Self {
        Parser {
            lx: Lexer::new(input, first_line, at_eof),
            peeked: None,
        }
    }

    fn peek(&mut self) -> Result<&Token, ParseError> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lx.next_token()?);
        }
        match &self.peeked {
            Some(t) => Ok(t),
            None => Err(eof_error(&self.lx)),
        }
    }

    fn next(&mut self) -> Result<Token, ParseError> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.lx.next_token(),
        }
    }

    fn peek_op(&mut self) -> Result<Option<Operator>, ParseError> {
        Ok(match self.peek()?.tok {
            Tok::Operator(op) => Some(op),
            _ => None,
        })
    }

    fn skip_newlines(&mut self) -> Result<(), ParseError> {
        while self.peek_op()? == Some(Operator::Newline) {
            self.next()?;
        }
        Ok(())
    }

    fn script(mut self) -> Result<Parsed, ParseError> {
        let mut items = Vec::new();
        loop {
            self.skip_newlines()?;
            if self.peek()?.tok == Tok::Eof {
                break;
            }
            items.push(self.and_or()?);
            let tok = self.next()?;
            match tok.tok {
                Tok::Operator(Operator::Semi | Operator::Newline) | Tok::Eof => {}
                Tok::Operator(Operator::Amp) => {
                    return Err(unsupported(
                        "`&': background jobs are not supported by this shell (commands run in the foreground)".into(),
                        tok.line,
                    ));
                }
                _ => return Err(syntax_near(&tok, &self.lx)),
            }
            if tok.tok == Tok::Eof {
                break;
            }
        }
        if self.lx.has_pending() {
            // Only reachable without a final newline; the lexer already asked for more or
            // closed them at end of file.
            self.lx.next_token()?;
        }
        let mut script = Script { items };
        fill_heredocs(&mut script, std::mem::take(&mut self.lx.bodies));
        Ok(Parsed {
            script,
            warnings: std::mem::take(&mut self.lx.warnings),
        })
    }

    fn and_or(&mut self) -> Result<AndOr, ParseError> {
        let line = self.peek()?.line;
        let first = self.pipeline()?;
        let mut rest = Vec::new();
        loop {
            let op = match self.peek_op()? {
                Some(Operator::AndIf) => AndOrOp::And,
                Some(Operator::OrIf) => AndOrOp::Or,
                _ => break,
            };
            self.next()?;
            self.skip_newlines()?;
            rest.push((op, self.pipeline()?));
        }
        Ok(AndOr { first, rest, line })
    }

    fn pipeline(&mut self) -> Result<Pipeline, ParseError> {
        let mut negated = false;
        // `!` is a reserved word only when unquoted, alone, and in command position.
        loop {
            let is_bang =
                matches!(&self.peek()?.tok, Tok::Word(w) if plain_literal(w) == Some(b"!"));
            if !is_bang {
                break;
            }
            self.next()?;
            negated = !negated;
        }
        let mut commands = Vec::new();
        let first = if negated && self.at_list_end()? {
            // `!` alone: bash runs an empty command and negates its status.
            SimpleCommand::default()
        } else {
            self.command()?
        };
        commands.push(first);
        loop {
            let pipe_amp = match self.peek_op()? {
                Some(Operator::Pipe) => false,
                Some(Operator::PipeAmp) => true,
                _ => break,
            };
            self.next()?;
            if pipe_amp {
                // `a |& b` is `a 2>&1 | b`, the dup applied after a's own redirections.
                if let Some(last) = commands.last_mut() {
                    last.redirects.push(Redirect {
                        fd: Some(2),
                        kind: RedirKind::DupOut(1),
                    });
                }
            }
            self.skip_newlines()?;
            commands.push(self.command()?);
        }
        Ok(Pipeline { negated, commands })
    }

    /// Whether the next token ends a list element (`;`, newline, end, `&&`, `||`, `&`).
    fn at_list_end(&mut self) -> Result<bool, ParseError> {
        Ok(match self.peek()?.tok {
            Tok::Eof => true,
            Tok::Operator(op) => matches!(
                op,
                Operator::Semi
                    | Operator::Newline
                    | Operator::AndIf
                    | Operator::OrIf
                    | Operator::Amp
            ),
            _ => false,
        })
    }

    fn command(&mut self) -> Result<SimpleCommand, ParseError> {
        let mut cmd = SimpleCommand::default();
        let first = self.peek()?.clone();
        match &first.tok {
            Tok::Word(w) => {
                if let Some(lit) = plain_literal(w)
                    && let Some(&kw) = RESERVED.iter().find(|k| k.as_bytes() == lit)
                {
                    let message = match kw {
                        "function" => {
                            "`function': function definitions are not supported by this shell"
                                .to_string()
                        }
                        "coproc" => {
                            "`coproc': coprocesses are not supported by this shell".to_string()
                        }
                        "time" => {
                            "`time': the time keyword is not supported by this shell".to_string()
                        }
                        _ => format!("`{kw}': {COMPOUND}"),
                    };
                    return Err(unsupported(message, first.line));
                }
            }
            Tok::Operator(Operator::LParen) => {
                let message = if self.lx.slice(first.end, first.end + 1) == b"(" {
                    "`((': arithmetic commands are not supported by this shell".to_string()
                } else {
                    "`(': subshells are not supported by this shell (it runs simple commands, pipelines, and ; && || lists)".to_string()
                };
                return Err(unsupported(message, first.line));
            }
            _ => {}
        }
        let mut any = false;
        loop {
            let tok = self.peek()?.clone();
            match tok.tok {
                Tok::Word(word) => {
                    self.next()?;
                    any = true;
                    if cmd.words.is_empty() {
                        if let Some((name, append, mut value)) = split_assignment(&word) {
                            if value.parts.is_empty() && self.peek_op()? == Some(Operator::LParen) {
                                let p = self.peek()?;
                                if p.start == tok.end {
                                    return Err(unsupported(
                                        format!(
                                            "`{name}=(...)': arrays are not supported by this shell"
                                        ),
                                        tok.line,
                                    ));
                                }
                            }
                            if append {
                                // `X+=v` is `X="${X}"v` for the scalars trumansh has.
                                let mut parts =
                                    vec![WordPart::DoubleQuoted(vec![WordPart::Param(ParamExp {
                                        name: name.clone(),
                                        length: false,
                                        op: None,
                                    })])];
                                parts.append(&mut value.parts);
                                value = Word { parts };
                            }
                            cmd.assignments.push(Assignment { name, value });
                            continue;
                        }
                        if is_array_assignment(&word) {
                            return Err(unsupported(
                                "`NAME[...]=': arrays are not supported by this shell".to_string(),
                                tok.line,
                            ));
                        }
                        // `name ( )`: a function definition.
                        let bare = cmd.assignments.is_empty() && cmd.redirects.is_empty();
                        if bare && self.peek_op()? == Some(Operator::LParen) {
                            self.next()?;
                            let after = self.next()?;
                            if after.tok == Tok::Operator(Operator::RParen) {
                                return Err(unsupported(
                                    format!(
                                        "`{}()': function definitions are not supported by this shell",
                                        String::from_utf8_lossy(self.lx.slice(tok.start, tok.end))
                                    ),
                                    tok.line,
                                ));
                            }
                            return Err(syntax_near_nl(&after, &self.lx));
                        }
                    }
                    cmd.words.push(word);
                }
                Tok::IoNumber(_) => {
                    any = true;
                    let r = self.redirect()?;
                    cmd.redirects.push(r);
                }
                Tok::Operator(op) if op.is_redirect() => {
                    any = true;
                    let r = self.redirect()?;
                    cmd.redirects.push(r);
                }
                _ => break,
            }
        }
        if !any {
            let tok = self.next()?;
            return Err(syntax_near(&tok, &self.lx));
        }
        Ok(cmd)
    }

    fn redirect(&mut self) -> Result<Redirect, ParseError> {
        let mut tok = self.next()?;
        let mut fd = None;
        let fd_start = tok.start;
        if let Tok::IoNumber(n) = tok.tok {
            fd = Some(n);
            tok = self.next()?;
        }
        let Tok::Operator(op) = tok.tok else {
            return Err(syntax_near(&tok, &self.lx));
        };
        let target = self.next()?;
        let Tok::Word(word) = target.tok.clone() else {
            return Err(syntax_near_nl(&target, &self.lx));
        };
        let kind = match op {
            Operator::Less => RedirKind::In(word),
            Operator::Great | Operator::Clobber => RedirKind::Out(word),
            Operator::DGreat => RedirKind::Append(word),
            Operator::AndGreat => RedirKind::OutErr(word),
            Operator::AndDGreat => RedirKind::AppendOutErr(word),
            Operator::TLess => RedirKind::HereString(word),
            Operator::DLess | Operator::DLessDash => {
                let raw = self.lx.slice(target.start, target.end);
                self.lx
                    .push_heredoc(raw, op == Operator::DLessDash, tok.line);
                RedirKind::HereDoc {
                    body: Word::default(),
                    expand: !raw.iter().any(|b| matches!(b, b'\'' | b'"' | b'\\')),
                }
            }
            Operator::LessGreat => {
                return Err(unsupported(
                    "`<>': read-write redirection is not supported by this shell".into(),
                    tok.line,
                ));
            }
            Operator::LessAnd | Operator::GreatAnd => {
                let raw = self.lx.slice(target.start, target.end);
                let lit = plain_literal(&word);
                let shown =
                    String::from_utf8_lossy(self.lx.slice(fd_start, target.end)).into_owned();
                match lit {
                    Some(b"-") => RedirKind::Close,
                    Some(digits) if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) => {
                        match std::str::from_utf8(digits)
                            .ok()
                            .and_then(|s| s.parse::<u32>().ok())
                        {
                            Some(n) if op == Operator::GreatAnd => RedirKind::DupOut(n),
                            Some(n) => RedirKind::DupIn(n),
                            None => {
                                return Err(unsupported(
                                    format!("`{shown}': file descriptor out of range"),
                                    tok.line,
                                ));
                            }
                        }
                    }
                    // `>&file` with no fd is `&>file`.
                    Some(_) if op == Operator::GreatAnd && fd.is_none() && !raw.is_empty() => {
                        RedirKind::OutErr(word)
                    }
                    _ => {
                        return Err(unsupported(
                            format!(
                                "`{shown}': duplicating to a computed or moved file descriptor is not supported by this shell"
                            ),
                            tok.line,
                        ));
                    }
                }
            }
            _ => return Err(syntax_near(&tok, &self.lx)),
        };
        Ok(Redirect { fd, kind })
    }
}

/// Gives each here-document redirect its body, in source order (the order the lexer read
/// them).
fn fill_heredocs(script: &mut Script, bodies: Vec<Word>) {
    let mut bodies = bodies.into_iter();
    for item in &mut script.items {
        let pipelines =
            std::iter::once(&mut item.first).chain(item.rest.iter_mut().map(|(_, p)| p));
        for p in pipelines {
            for cmd in &mut p.commands {
                for r in &mut cmd.redirects {
                    if let RedirKind::HereDoc { body, .. } = &mut r.kind {
                        *body = bodies.next().unwrap_or_default();
                    }
                }
            }
        }
    }
}
