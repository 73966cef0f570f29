//! The parser: tokens to a [`Script`]: lists of and-or chains of pipelines of commands —
//! simple, compound or function definitions.
//!
//! Grammar (bash's):
//!
//! ```text
//! list      := newline* (and_or ((';' | '&' | newline) newline* and_or)*)? [';' | '&'] newline*
//! and_or    := pipeline (('&&' | '||') newline* pipeline)*
//! pipeline  := '!'* command (('|' | '|&') newline* command)*
//! command   := simple | compound redirect* | function
//! compound  := '{' list '}' | '(' list ')' | if | for | while | until | case | '((' ... '))'
//!            | '[[' cond ']]'
//! function  := NAME '(' ')' newline* compound redirect* | 'function' NAME ['(' ')'] ...
//! simple    := (assignment | redirect)* [word (word | redirect)*]
//! ```
//!
//! Reserved words are recognised where bash does: unquoted, as the first word of a command
//! (and `in`/`do` where the grammar expects them). Nesting (compound commands, `$(...)`) is
//! capped at [`MAX_DEPTH`] levels so that no input can overflow the stack.
//!
//! # Incomplete input and end of file
//!
//! [`parse`] answers [`ParseError::Incomplete`] when the input could go on: an open quote or
//! `${`, a trailing `|`, `&&`, `||` or backslash, an open compound command, a here-document
//! whose delimiter line has not come.
//! An interactive front end reads another line and parses the whole text again. At end of
//! input (end of a `-c` string, of a script, or of stdin), call [`parse_at_eof`] instead: it
//! finishes what bash finishes — a here-document is closed by end of file with bash's
//! warning, a final backslash stays literal (as in `bash -c`) — and turns the rest into
//! [`ParseError::Syntax`] with bash's end-of-file message and line (``unexpected EOF while
//! looking for matching `"'`` on the line of the opening quote; `syntax error: unexpected
//! end of file` on the line after the last).
#![deny(clippy::indexing_slicing)]

use std::sync::Arc;

use super::ast::{
    AndOr, AndOrOp, AssignValue, Assignment, CaseArm, CaseEnd, Command, Compound, CondExpr,
    FunctionDef, Pipeline, RedirKind, Redirect, Script, SimpleCommand, SourceText, Word, WordPart,
};
use super::lexer::{
    ArithEnd, Lexer, MAX_DEPTH, Operator, Src, Tok, Token, is_name_char, is_name_start,
};

pub use super::lexer::{ParseOpts, Warning};

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
    parse_with_opts(input, first_line, ParseOpts::default())
}

/// [`parse`] with the options in force (`extglob`, the aliases): what a front end asks to
/// know whether an input is complete.
pub fn parse_with_opts(
    input: &[u8],
    first_line: usize,
    opts: ParseOpts<'_>,
) -> Result<Script, ParseError> {
    let mut lx = Lexer::new(input, first_line, false);
    lx.opts = opts;
    Parser::with_lexer(lx).script().map(|p| p.script)
}

/// Whether one line of input is a complete command without parsing it: a simple command
/// of plain words (letters, digits, spaces and `_./-+=,:@%^~>`: no quote, expansion,
/// operator, bracket, comment or continuation) whose first word is not a reserved word,
/// with no alias to expand. Such a line cannot go on to the next (it may still be wrong: the
/// parser says so when it runs). `false` says nothing.
pub fn is_plainly_complete(line: &[u8], opts: ParseOpts<'_>) -> bool {
    const RESERVED: [&[u8]; 19] = [
        b"if",
        b"then",
        b"else",
        b"elif",
        b"fi",
        b"do",
        b"done",
        b"case",
        b"esac",
        b"while",
        b"until",
        b"for",
        b"in",
        b"select",
        b"function",
        b"time",
        b"coproc",
        b"!",
        b"{",
    ];
    if opts.aliases.is_some_and(|a| !a.is_empty()) {
        return false;
    }
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let plain = |b: u8| b.is_ascii_alphanumeric() || b" \t_./-+=,:@%^~>".contains(&b);
    if !body.iter().all(|&b| plain(b)) {
        return false;
    }
    let first = body
        .split(|&b| b == b' ' || b == b'\t')
        .find(|w| !w.is_empty());
    first.is_some_and(|w| !RESERVED.contains(&w))
}

/// How many lines the first complete command of `input` spans (with the here-documents it
/// reads), as [`Reader`] would read it from a text that may still grow: `Ok(None)` when the
/// input holds only blank lines and comments, `Err(Incomplete)` when it is not finished yet.
/// One pass over the command: a front end that reads many lines at once finds where the first
/// command ends without parsing each growing prefix again.
pub fn first_command_lines(
    input: &[u8],
    first_line: usize,
    opts: ParseOpts<'_>,
) -> Result<Option<usize>, ParseError> {
    let mut lx = Lexer::new(input, first_line, false);
    lx.opts = opts;
    let mut p = Parser::with_lexer(lx);
    if p.unit()?.is_none() {
        return Ok(None);
    }
    // A command ended by the end of the text counts its last line even without a newline
    // (a here-document's delimiter included).
    let at_end = p.peeked.as_ref().is_some_and(|t| t.tok == Tok::Eof);
    let (text, pos, line, _) = p.lx.into_text();
    let partial = (at_end || pos >= text.bytes().len()) && !input.ends_with(b"\n");
    Ok(Some(line.saturating_sub(first_line) + usize::from(partial)))
}

/// Reads an input that will not grow one complete command at a time, as bash reads a
/// script: a line (or the lines of a compound command, a here-document, a quoted newline),
/// each parsed with the options in force after the one before ran. End of file is handled
/// as by [`parse_at_eof`].
pub struct Reader<'t> {
    text: Src<'t>,
    pos: usize,
    line: usize,
    done: bool,
    /// Aliases whose text (pasted in) is still being read.
    alias_uses: Vec<super::lexer::AliasUse>,
}

impl<'t> Reader<'t> {
    /// A reader of `text`, whose first line is `first_line`.
    pub fn new(text: &'t [u8], first_line: usize) -> Self {
        Reader {
            text: Src::Borrowed(text),
            pos: 0,
            line: first_line,
            done: false,
            alias_uses: Vec::new(),
        }
    }

    /// The next complete command, parsed with `opts`; `None` at the end of the input.
    /// After an error, the reader is done.
    pub fn next_command(&mut self, opts: ParseOpts<'_>) -> Option<Result<Parsed, ParseError>> {
        if self.done {
            return None;
        }
        // The options borrow only for this command: the lexer gets a text it can keep.
        let text: Src<'_> = match &self.text {
            Src::Borrowed(b) => Src::Borrowed(b),
            Src::Owned { buf, base } => Src::Owned {
                buf: buf.clone(),
                base: *base,
            },
        };
        let mut lx = Lexer::resume(text, self.pos, self.line, true, opts);
        lx.alias_uses = std::mem::take(&mut self.alias_uses);
        let mut p = Parser::with_lexer(lx);
        let result = p.unit();
        match result {
            Ok(Some(mut script)) => {
                fill_heredocs(&mut script, std::mem::take(&mut p.lx.bodies));
                let warnings = std::mem::take(&mut p.lx.warnings);
                let (text, pos, line, mut uses) = p.lx.into_text();
                // The next command starts the text: what was read is dropped.
                self.text = match text {
                    Src::Owned { buf, base } => Src::Owned { buf, base },
                    Src::Borrowed(_) => std::mem::replace(&mut self.text, Src::Borrowed(&[])),
                }
                .advance(pos);
                self.pos = 0;
                self.line = line;
                uses.retain(|u| u.end > pos);
                for u in &mut uses {
                    u.start = u.start.saturating_sub(pos);
                    u.end -= pos;
                }
                self.alias_uses = uses;
                Some(Ok(Parsed { script, warnings }))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// Parses an input that will not grow: end of file closes open here-documents (with bash's
/// warning) and every other [`ParseError::Incomplete`] becomes bash's end-of-file
/// [`ParseError::Syntax`]. Never returns `Incomplete`.
pub fn parse_at_eof(input: &[u8], first_line: usize) -> Result<Parsed, ParseError> {
    Parser::new(input, first_line, true).script()
}

struct Parser<'a> {
    lx: Lexer<'a>,
    peeked: Option<Token>,
    /// How deep compound commands nest here (with the lexer's depth for `$(...)`).
    depth: usize,
    /// The last alias pasted in ended with a blank: the word after its text (at or past
    /// this offset) may be an alias too.
    alias_next: Option<usize>,
    /// The last word found not to be an alias (its start, and the pastes before it): it is
    /// not checked twice.
    alias_checked: Option<(usize, usize)>,
}

/// What ends a list.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End<'e> {
    /// End of input (the top level).
    Eof,
    /// One of these reserved words in command position.
    Words(&'e [&'e str]),
    /// `)`: a subshell or a command substitution.
    Paren,
    /// `;;`, `;&`, `;;&` or `esac`: a `case` arm.
    CaseArm,
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
/// The reserved words that start (or would wrongly close) a compound command, where a
/// command begins.
const RESERVED: [&str; 19] = [
    "if", "while", "until", "for", "case", "{", "[[", "function", "select", "coproc", "then",
    "else", "elif", "fi", "do", "done", "esac", "}", "in",
];

/// How a command begins, when not with a plain word: a reserved word, or `(`.
enum Head {
    Reserved(&'static str),
    Paren,
}

fn plain_literal(word: &Word) -> Option<&[u8]> {
    match word.parts.as_slice() {
        [WordPart::Literal(v)] => Some(v),
        _ => None,
    }
}

/// If the word is `NAME=value`, `NAME+=value` or `NAME[sub]=value` (the name unquoted):
/// the assignment, its value a scalar word (the caller turns `NAME=(` into an array).
fn split_assignment(word: &Word) -> Option<Assignment> {
    let Some(WordPart::Literal(first)) = word.parts.first() else {
        return None;
    };
    let name_len = first.iter().take_while(|&&b| is_name_char(b)).count();
    if name_len == 0 || !first.first().is_some_and(|&b| is_name_start(b)) {
        return None;
    }
    let name = String::from_utf8_lossy(first.get(..name_len)?).into_owned();
    match first.get(name_len) {
        Some(b'=') => Some(assignment(name, None, false, word, 0, name_len + 1)),
        Some(b'+') if first.get(name_len + 1) == Some(&b'=') => {
            Some(assignment(name, None, true, word, 0, name_len + 2))
        }
        Some(b'[') => {
            // The subscript runs to the `]` before `=` or `+=`, across the word's parts.
            let mut index = Vec::new();
            let mut depth = 0usize;
            let mut pos = name_len + 1;
            for (k, part) in word.parts.iter().enumerate() {
                match part {
                    WordPart::Literal(bytes) => {
                        let from = if k == 0 { pos } else { 0 };
                        let mut seg_start = from;
                        let mut i = from;
                        while let Some(&b) = bytes.get(i) {
                            match b {
                                b'[' => depth += 1,
                                b']' if depth > 0 => depth -= 1,
                                b']' => {
                                    let rest = bytes.get(i + 1..).unwrap_or_default();
                                    let (append, skip) = if rest.starts_with(b"+=") {
                                        (true, 3)
                                    } else if rest.starts_with(b"=") {
                                        (false, 2)
                                    } else {
                                        return None;
                                    };
                                    if let Some(seg) = bytes.get(seg_start..i)
                                        && !seg.is_empty()
                                    {
                                        index.push(WordPart::Literal(seg.to_vec()));
                                    }
                                    pos = i + skip;
                                    let mut a = assignment(name, None, append, word, k, pos);
                                    a.index = Some(Word::new(index));
                                    return Some(a);
                                }
                                _ => {}
                            }
                            i += 1;
                        }
                        if let Some(seg) = bytes.get(seg_start..)
                            && !seg.is_empty()
                        {
                            index.push(WordPart::Literal(seg.to_vec()));
                        }
                        seg_start = 0;
                        let _ = seg_start;
                    }
                    other => index.push(other.clone()),
                }
            }
            None
        }
        _ => None,
    }
}

/// The assignment whose value starts at byte `at` of the word's part `k`.
fn assignment(
    name: String,
    index: Option<Word>,
    append: bool,
    word: &Word,
    k: usize,
    at: usize,
) -> Assignment {
    let mut parts = Vec::with_capacity(word.parts.len());
    if let Some(WordPart::Literal(first)) = word.parts.get(k) {
        let rest = first.get(at..).unwrap_or_default();
        if !rest.is_empty() {
            parts.push(WordPart::Literal(rest.to_vec()));
        }
    }
    parts.extend(word.parts.iter().skip(k + 1).cloned());
    Assignment {
        name,
        index,
        append,
        value: AssignValue::Scalar(Word::new(parts)),
        text: SourceText::default(),
    }
}

/// Whether a word is a reserved word that ends a list here.
fn is_word(tok: &Token, words: &[&str]) -> bool {
    match &tok.tok {
        Tok::Word(w) => plain_literal(w).is_some_and(|l| words.iter().any(|k| k.as_bytes() == l)),
        _ => false,
    }
}

/// The names of bash's declaration builtins, whose assignment-shaped arguments are
/// assignments (not split, not globbed; `NAME=(...)` is an array).
const DECLARATION: &[&str] = &["declare", "typeset", "local", "export", "readonly"];

impl<'a> Parser<'a> {
    fn new(input: &'a [u8], first_line: usize, at_eof: bool) -> Self {
        Parser::with_lexer(Lexer::new(input, first_line, at_eof))
    }

    fn with_lexer(lx: Lexer<'a>) -> Self {
        let depth = lx.depth;
        Parser {
            lx,
            peeked: None,
            depth,
            alias_next: None,
            alias_checked: None,
        }
    }

    /// At a word where an alias is expanded (`cmd_pos`: command position; else the word
    /// after the text of an alias that ends with a blank): while it is an unquoted alias
    /// name not already being expanded there, pastes the alias's text in its place.
    fn expand_alias(&mut self, cmd_pos: bool) -> Result<(), ParseError> {
        let Some(aliases) = self.lx.opts.aliases else {
            return Ok(());
        };
        // The first word of a text pasted in is checked as the word it replaced was.
        let mut pasted_at = None;
        loop {
            let tok = self.peek()?.clone();
            let Tok::Word(w) = &tok.tok else {
                return Ok(());
            };
            let after_blank = self.alias_next.is_some_and(|from| tok.start >= from);
            if !cmd_pos && !after_blank && pasted_at != Some(tok.start) {
                return Ok(());
            }
            let here = Some((tok.start, self.lx.alias_count));
            if self.alias_checked == here {
                return Ok(());
            }
            let Some(name) = plain_literal(w) else {
                // A quoted word is no alias, and leaves the blank's effect for the next.
                return Ok(());
            };
            let name = String::from_utf8_lossy(name).into_owned();
            let value = match aliases.get(&name) {
                Some(v)
                    if self.lx.slice(tok.start, tok.end) == name.as_bytes()
                        && !self.lx.alias_in_use(&name, tok.start) =>
                {
                    v
                }
                _ => {
                    self.alias_checked = here;
                    if after_blank {
                        self.alias_next = None;
                    }
                    return Ok(());
                }
            };
            self.peeked = None;
            pasted_at = Some(tok.start);
            self.alias_next = value
                .ends_with([' ', '\t'])
                .then_some(tok.start + value.len());
            self.lx
                .paste_alias((tok.start, tok.end, tok.line), &name, value.as_bytes())?;
        }
    }

    /// One complete command at the top level: an and-or list up to the end of its line (or
    /// of the input), its here-documents read. `None`: the input is over.
    fn unit(&mut self) -> Result<Option<Script>, ParseError> {
        self.skip_newlines()?;
        if self.peek()?.tok == Tok::Eof {
            return Ok(None);
        }
        let mut items: Vec<AndOr> = Vec::new();
        loop {
            self.expand_alias(true)?;
            match self.peek()?.tok {
                Tok::Eof => break,
                Tok::Operator(Operator::Newline) if !items.is_empty() => {
                    self.next()?;
                    break;
                }
                _ => {}
            }
            let mut item = self.and_or()?;
            let tok = self.peek()?.clone();
            match tok.tok {
                Tok::Operator(Operator::Semi) => {
                    self.next()?;
                }
                Tok::Operator(Operator::Amp) => {
                    self.next()?;
                    item.background = true;
                }
                Tok::Operator(Operator::Newline) => {
                    self.next()?;
                    items.push(item);
                    break;
                }
                Tok::Eof => {}
                _ => {
                    let tok = self.next()?;
                    return Err(syntax_near(&tok, &self.lx));
                }
            }
            items.push(item);
        }
        if self.lx.has_pending() {
            self.lx.next_token()?;
        }
        Ok(Some(Script { items }))
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

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::Unsupported {
                message: format!(
                    "compound commands nested more than {MAX_DEPTH} deep are not supported by this shell"
                ),
                line: self.lx.line(),
            });
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn script(mut self) -> Result<Parsed, ParseError> {
        let mut script = self.list(End::Eof)?;
        if self.lx.has_pending() {
            // Only reachable without a final newline; the lexer already asked for more or
            // closed them at end of file.
            self.lx.next_token()?;
        }
        fill_heredocs(&mut script, std::mem::take(&mut self.lx.bodies));
        Ok(Parsed {
            script,
            warnings: std::mem::take(&mut self.lx.warnings),
        })
    }

    /// Whether the next token ends a list that ends at `end`.
    fn at_end(&mut self, end: End<'_>) -> Result<bool, ParseError> {
        let tok = self.peek()?;
        Ok(match end {
            End::Eof => tok.tok == Tok::Eof,
            End::Words(words) => is_word(tok, words),
            End::Paren => tok.tok == Tok::Operator(Operator::RParen),
            End::CaseArm => {
                matches!(
                    tok.tok,
                    Tok::Operator(Operator::DSemi | Operator::SemiAnd | Operator::DSemiAnd)
                ) || is_word(tok, &["esac"])
            }
        })
    }

    /// A list of and-or chains up to `end` (not consumed). Only the top level and a `case`
    /// arm may be empty.
    fn list(&mut self, end: End<'_>) -> Result<Script, ParseError> {
        let mut items: Vec<AndOr> = Vec::new();
        loop {
            self.skip_newlines()?;
            self.expand_alias(true)?;
            if self.at_end(end)? {
                break;
            }
            if self.peek()?.tok == Tok::Eof {
                return Err(eof_error(&self.lx));
            }
            let mut item = self.and_or()?;
            let tok = self.peek()?.clone();
            match tok.tok {
                Tok::Operator(Operator::Semi) => {
                    self.next()?;
                }
                Tok::Operator(Operator::Newline) => {
                    self.next()?;
                    item.newline = true;
                }
                Tok::Operator(Operator::Amp) => {
                    self.next()?;
                    item.background = true;
                }
                Tok::Eof => {}
                _ => {
                    if !self.at_end(end)? {
                        let tok = self.next()?;
                        return Err(syntax_near(&tok, &self.lx));
                    }
                }
            }
            items.push(item);
        }
        if items.is_empty() && !matches!(end, End::Eof | End::CaseArm) {
            let tok = self.next()?;
            return Err(syntax_near(&tok, &self.lx));
        }
        Ok(Script { items })
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
        Ok(AndOr {
            first,
            rest,
            line,
            background: false,
            newline: false,
        })
    }

    fn pipeline(&mut self) -> Result<Pipeline, ParseError> {
        let mut negated = false;
        let mut time = None;
        // `!` and `time [-p]` are reserved words only when unquoted, alone, and in command
        // position.
        loop {
            self.expand_alias(true)?;
            let word = match &self.peek()?.tok {
                Tok::Word(w) => plain_literal(w).map(<[u8]>::to_vec),
                _ => None,
            };
            match word.as_deref() {
                Some(b"!") => negated = !negated,
                Some(b"time") => {
                    // `time time cmd` times it once (bash).
                    self.next()?;
                    let posix = matches!(&self.peek()?.tok, Tok::Word(w) if plain_literal(w) == Some(b"-p"));
                    if posix {
                        self.next()?;
                    }
                    time = Some(posix || time == Some(true));
                    continue;
                }
                _ => break,
            }
            self.next()?;
        }
        let mut commands = Vec::new();
        let first = if (negated || time.is_some()) && self.at_list_end()? {
            // `!` alone: bash runs an empty command and negates its status.
            Command::Simple(SimpleCommand {
                line: self.peek()?.line,
                ..SimpleCommand::default()
            })
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
                let dup = Redirect {
                    fd: Some(2),
                    kind: RedirKind::DupOut(1),
                    dup_word: false,
                };
                match commands.last_mut() {
                    Some(Command::Simple(c)) => c.redirects.push(dup),
                    Some(Command::Compound(_, r)) => r.push(dup),
                    Some(Command::Function(_)) | None => {}
                }
            }
            self.skip_newlines()?;
            commands.push(self.command()?);
        }
        Ok(Pipeline {
            negated,
            commands,
            time,
        })
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
                    | Operator::RParen
            ),
            _ => false,
        })
    }

    /// Expects a reserved word; anything else is a syntax error on it.
    fn expect_word(&mut self, word: &str) -> Result<(), ParseError> {
        let tok = self.next()?;
        if is_word(&tok, &[word]) {
            Ok(())
        } else {
            Err(syntax_near(&tok, &self.lx))
        }
    }

    fn command(&mut self) -> Result<Command, ParseError> {
        self.expand_alias(true)?;
        // What the first token is, looked at in place (a simple command's words are then
        // taken from it, not copied).
        let first = self.peek()?;
        let (line, end) = (first.line, first.end);
        let head = match &first.tok {
            Tok::Word(w) => plain_literal(w)
                .and_then(|l| RESERVED.iter().find(|r| r.as_bytes() == l))
                .map(|r| Head::Reserved(r)),
            Tok::Operator(Operator::LParen) => Some(Head::Paren),
            _ => None,
        };
        let compound = match head {
            Some(Head::Reserved(word)) => match word.as_bytes() {
                b"if" => Some(self.if_clause()?),
                b"while" => Some(self.while_clause(false)?),
                b"until" => Some(self.while_clause(true)?),
                b"for" => Some(self.for_clause()?),
                b"case" => Some(self.case_clause()?),
                b"{" => {
                    self.next()?;
                    self.enter()?;
                    let body = self.list(End::Words(&["}"]))?;
                    self.expect_word("}")?;
                    self.leave();
                    Some(Compound::Brace(body))
                }
                b"[[" => Some(self.cond_command()?),
                b"function" => return self.function_keyword(),
                b"select" => {
                    return Err(unsupported(
                        "`select': select loops are not supported by this shell".into(),
                        line,
                    ));
                }
                b"coproc" => {
                    return Err(unsupported(
                        "`coproc': coprocesses are not supported by this shell".into(),
                        line,
                    ));
                }
                _ => {
                    // `then`, `fi`, `}`, ...: a word that closes what was not opened.
                    let tok = self.next()?;
                    return Err(syntax_near(&tok, &self.lx));
                }
            },
            Some(Head::Paren) => {
                self.next()?;
                Some(self.paren_command(line, end)?)
            }
            None => None,
        };
        match compound {
            Some(c) => {
                let redirects = self.trailing_redirects()?;
                Ok(Command::Compound(Box::new(c), redirects))
            }
            None => self.simple_command(),
        }
    }

    /// The redirections after a compound command; a word there is a syntax error.
    fn trailing_redirects(&mut self) -> Result<Vec<Redirect>, ParseError> {
        let mut redirects = Vec::new();
        loop {
            match self.peek()?.tok {
                Tok::IoNumber(_) => redirects.push(self.redirect()?),
                Tok::Operator(op) if op.is_redirect() => redirects.push(self.redirect()?),
                Tok::Word(_) => {
                    let tok = self.next()?;
                    return Err(syntax_near(&tok, &self.lx));
                }
                _ => break,
            }
        }
        Ok(redirects)
    }

    /// After `(`: `((expression))`, or a subshell.
    /// `line` and `end`: the `(` token's line and end.
    fn paren_command(&mut self, line: usize, end: usize) -> Result<Compound, ParseError> {
        if self.lx.slice(end, end + 1) == b"(" {
            let save = (self.lx.pos, self.lx.line);
            self.lx.pos = end + 1;
            let start = self.lx.pos;
            if let Some(mut expr) = self.lx.read_arith(ArithEnd::DoubleParen)? {
                expr.text = self.lx.text(start, self.lx.pos.saturating_sub(2));
                return Ok(Compound::Arith { expr, line });
            }
            (self.lx.pos, self.lx.line) = save;
        }
        self.enter()?;
        let body = self.list(End::Paren)?;
        let close = self.next()?;
        if close.tok != Tok::Operator(Operator::RParen) {
            return Err(syntax_near(&close, &self.lx));
        }
        self.leave();
        Ok(Compound::Subshell(body))
    }

    fn if_clause(&mut self) -> Result<Compound, ParseError> {
        self.next()?;
        self.enter()?;
        let mut branches = Vec::new();
        let mut otherwise = None;
        loop {
            let cond = self.list(End::Words(&["then"]))?;
            self.expect_word("then")?;
            let body = self.list(End::Words(&["elif", "else", "fi"]))?;
            branches.push((cond, body));
            let tok = self.next()?;
            if is_word(&tok, &["elif"]) {
                continue;
            }
            if is_word(&tok, &["else"]) {
                otherwise = Some(self.list(End::Words(&["fi"]))?);
                self.expect_word("fi")?;
            }
            break;
        }
        self.leave();
        Ok(Compound::If {
            branches,
            otherwise,
        })
    }

    fn while_clause(&mut self, until: bool) -> Result<Compound, ParseError> {
        self.next()?;
        self.enter()?;
        let cond = self.list(End::Words(&["do"]))?;
        let body = self.do_group()?;
        self.leave();
        Ok(Compound::While { until, cond, body })
    }

    /// `do list done`.
    fn do_group(&mut self) -> Result<Script, ParseError> {
        self.expect_word("do")?;
        let body = self.list(End::Words(&["done"]))?;
        self.expect_word("done")?;
        Ok(body)
    }

    fn for_clause(&mut self) -> Result<Compound, ParseError> {
        let for_tok = self.next()?;
        let line = for_tok.line;
        self.enter()?;
        // `for ((`: the arithmetic loop.
        self.lx.skip_blanks();
        if self.peeked.is_none() && self.lx.looking_at(b"((") {
            self.lx.pos += 2;
            let init = self.for_part(line, true)?;
            let cond = self.for_part(line, true)?;
            let step = self.for_part(line, false)?;
            // `;` or newlines may come before `do` (or a `{ }` body).
            if self.peek_op()? == Some(Operator::Semi) {
                self.next()?;
            }
            self.skip_newlines()?;
            let body = self.loop_body()?;
            self.leave();
            return Ok(Compound::ArithFor {
                init,
                cond,
                step,
                body,
                line,
            });
        }
        let name_tok = self.next()?;
        let var = match &name_tok.tok {
            Tok::Word(w) => match plain_literal(w) {
                Some(n)
                    if n.first().is_some_and(|&b| is_name_start(b))
                        && n.iter().all(|&b| is_name_char(b)) =>
                {
                    String::from_utf8_lossy(n).into_owned()
                }
                _ => {
                    return Err(ParseError::Syntax {
                        message: format!(
                            "`{}': not a valid identifier",
                            String::from_utf8_lossy(self.lx.slice(name_tok.start, name_tok.end))
                        ),
                        line: name_tok.line,
                    });
                }
            },
            _ => return Err(syntax_near_nl(&name_tok, &self.lx)),
        };
        // `for x; do`, `for x do`, `for x in ...; do`, with newlines before `in` or `do`.
        if self.peek_op()? == Some(Operator::Semi) {
            self.next()?;
        }
        self.skip_newlines()?;
        let mut words = None;
        if is_word(self.peek()?, &["in"]) {
            self.next()?;
            let mut list = Vec::new();
            loop {
                let tok = self.peek()?.clone();
                match tok.tok {
                    Tok::Word(w) => {
                        self.next()?;
                        list.push(w);
                    }
                    Tok::Operator(Operator::Semi | Operator::Newline) => {
                        self.next()?;
                        break;
                    }
                    _ => {
                        let tok = self.next()?;
                        return Err(syntax_near(&tok, &self.lx));
                    }
                }
            }
            self.skip_newlines()?;
            words = Some(list);
        }
        let body = self.loop_body()?;
        self.leave();
        Ok(Compound::For {
            var,
            words,
            body,
            line,
        })
    }

    /// A loop's body: `do list done`, or bash's `{ list; }`.
    fn loop_body(&mut self) -> Result<Script, ParseError> {
        if is_word(self.peek()?, &["{"]) {
            self.next()?;
            let body = self.list(End::Words(&["}"]))?;
            self.expect_word("}")?;
            return Ok(body);
        }
        self.do_group()
    }

    /// One part of `for ((init; cond; step))`; `semi`: it must end with `;`.
    fn for_part(&mut self, line: usize, semi: bool) -> Result<Word, ParseError> {
        let start = self.lx.pos;
        let Some(mut word) = self.lx.read_arith(ArithEnd::ForPart)? else {
            return Err(ParseError::Syntax {
                message: "syntax error: `;' unexpected".into(),
                line,
            });
        };
        let ended_semi = self.lx.slice(self.lx.pos.saturating_sub(1), self.lx.pos) == b";";
        if ended_semi != semi {
            return Err(ParseError::Syntax {
                message: "syntax error: arithmetic expression required".into(),
                line,
            });
        }
        let end = self.lx.pos.saturating_sub(if semi { 1 } else { 2 });
        word.text = self.lx.text(start, end);
        Ok(word)
    }

    fn case_clause(&mut self) -> Result<Compound, ParseError> {
        let case_tok = self.next()?;
        self.enter()?;
        let word_tok = self.next()?;
        let Tok::Word(word) = word_tok.tok else {
            return Err(syntax_near_nl(&word_tok, &self.lx));
        };
        self.skip_newlines()?;
        self.expect_word("in")?;
        let mut arms = Vec::new();
        loop {
            self.skip_newlines()?;
            if is_word(self.peek()?, &["esac"]) {
                self.next()?;
                break;
            }
            if self.peek_op()? == Some(Operator::LParen) {
                self.next()?;
            }
            let mut patterns = Vec::new();
            loop {
                let tok = self.next()?;
                let Tok::Word(w) = tok.tok else {
                    return Err(syntax_near(&tok, &self.lx));
                };
                patterns.push(w);
                let sep = self.next()?;
                match sep.tok {
                    Tok::Operator(Operator::Pipe) => {}
                    Tok::Operator(Operator::RParen) => break,
                    _ => return Err(syntax_near(&sep, &self.lx)),
                }
            }
            let body = self.list(End::CaseArm)?;
            let end = match self.peek_op()? {
                Some(Operator::DSemi) => CaseEnd::Break,
                Some(Operator::SemiAnd) => CaseEnd::FallThrough,
                Some(Operator::DSemiAnd) => CaseEnd::Continue,
                _ => {
                    // `esac` right after the last arm's list.
                    arms.push(CaseArm {
                        patterns,
                        body,
                        end: CaseEnd::Break,
                    });
                    self.expect_word("esac")?;
                    break;
                }
            };
            self.next()?;
            arms.push(CaseArm {
                patterns,
                body,
                end,
            });
        }
        self.leave();
        Ok(Compound::Case {
            word,
            arms,
            line: case_tok.line,
        })
    }

    /// `[[ expression ]]`.
    fn cond_command(&mut self) -> Result<Compound, ParseError> {
        let open = self.next()?;
        self.enter()?;
        let expr = self.cond_or()?;
        let close = self.next()?;
        if !is_word(&close, &["]]"]) {
            if let Tok::Word(_) = close.tok {
                // A word where `]]` should be: bash names no token.
                return Err(ParseError::Syntax {
                    message: "syntax error in conditional expression".into(),
                    line: close.line,
                });
            }
            return Err(self.cond_error(&close));
        }
        self.leave();
        Ok(Compound::Cond {
            expr,
            line: open.line,
        })
    }

    /// bash's message for a token that does not fit in `[[ ]]`.
    fn cond_error(&self, tok: &Token) -> ParseError {
        if tok.tok == Tok::Eof {
            eof_error(&self.lx)
        } else {
            let text = match &tok.tok {
                Tok::Operator(op) => op.text().to_string(),
                _ => String::from_utf8_lossy(self.lx.slice(tok.start, tok.end)).into_owned(),
            };
            ParseError::Syntax {
                message: format!(
                    "syntax error in conditional expression: unexpected token `{text}'"
                ),
                line: tok.line,
            }
        }
    }

    fn cond_or(&mut self) -> Result<CondExpr, ParseError> {
        let mut left = self.cond_and()?;
        while self.peek_op()? == Some(Operator::OrIf) {
            self.next()?;
            self.skip_newlines()?;
            let right = self.cond_and()?;
            left = CondExpr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn cond_and(&mut self) -> Result<CondExpr, ParseError> {
        let mut left = self.cond_not()?;
        while self.peek_op()? == Some(Operator::AndIf) {
            self.next()?;
            self.skip_newlines()?;
            let right = self.cond_not()?;
            left = CondExpr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn cond_not(&mut self) -> Result<CondExpr, ParseError> {
        self.skip_newlines()?;
        if is_word(self.peek()?, &["!"]) {
            self.next()?;
            self.enter()?;
            let inner = self.cond_not()?;
            self.leave();
            return Ok(CondExpr::Not(Box::new(inner)));
        }
        self.cond_primary()
    }

    fn cond_primary(&mut self) -> Result<CondExpr, ParseError> {
        let tok = self.next()?;
        let is_close = is_word(&tok, &["]]"]);
        match tok.tok.clone() {
            Tok::Operator(Operator::LParen) => {
                self.enter()?;
                let inner = self.cond_or()?;
                let close = self.next()?;
                if close.tok != Tok::Operator(Operator::RParen) {
                    return Err(self.cond_error(&close));
                }
                self.leave();
                Ok(CondExpr::Group(Box::new(inner)))
            }
            Tok::Word(w) => {
                if is_close {
                    return Err(self.cond_error(&tok));
                }
                let text = plain_literal(&w).map(<[u8]>::to_vec);
                if let Some(op) = text.as_deref().filter(|t| is_unary_cond(t)) {
                    // A unary operator, unless what follows is a binary operator (`[[ -f
                    // == x ]]` compares the string `-f`).
                    let next = self.peek()?.clone();
                    let next_is_binary = match &next.tok {
                        Tok::Word(nw) => plain_literal(nw).is_some_and(is_binary_cond),
                        Tok::Operator(Operator::Less | Operator::Great) => true,
                        _ => false,
                    };
                    if !next_is_binary {
                        let operand = self.next()?;
                        let Tok::Word(arg) = operand.tok.clone() else {
                            return Err(ParseError::Syntax {
                                message: format!(
                                    "unexpected argument `{}' to conditional unary operator",
                                    token_text(&operand, &self.lx)
                                ),
                                line: operand.line,
                            });
                        };
                        if is_word(&operand, &["]]"]) {
                            return Err(ParseError::Syntax {
                                message: "unexpected argument `]]' to conditional unary operator"
                                    .into(),
                                line: operand.line,
                            });
                        }
                        return Ok(CondExpr::Unary(
                            String::from_utf8_lossy(op).into_owned(),
                            arg,
                        ));
                    }
                }
                // A binary operator?
                let op_tok = self.peek()?.clone();
                let op = match &op_tok.tok {
                    Tok::Word(ow) => plain_literal(ow)
                        .filter(|t| is_binary_cond(t))
                        .map(|t| String::from_utf8_lossy(t).into_owned()),
                    Tok::Operator(Operator::Less) => Some("<".into()),
                    Tok::Operator(Operator::Great) => Some(">".into()),
                    _ => None,
                };
                let Some(op) = op else {
                    // A lone word; anything but `]]`, `&&`, `||`, `)` after it is an error.
                    let ok = match &op_tok.tok {
                        Tok::Word(_) => is_word(&op_tok, &["]]"]),
                        Tok::Operator(Operator::AndIf | Operator::OrIf | Operator::RParen) => true,
                        _ => false,
                    };
                    if !ok {
                        // bash: a word there wants an operator; another token is named.
                        let bad = self.next()?;
                        let message = match bad.tok {
                            Tok::Word(_) => "conditional binary operator expected".to_string(),
                            Tok::Eof => format!(
                                "syntax error in conditional expression: unexpected token `{}'",
                                token_text(&bad, &self.lx)
                            ),
                            _ => format!(
                                "unexpected token `{}', conditional binary operator expected",
                                token_text(&bad, &self.lx)
                            ),
                        };
                        return Err(ParseError::Syntax {
                            message,
                            line: bad.line,
                        });
                    }
                    return Ok(CondExpr::Word(w));
                };
                self.next()?;
                let right = if op == "=~" {
                    self.lx.skip_blanks();
                    let start = self.lx.pos;
                    if let Some(mut r) = self.lx.read_regex_word()? {
                        r.text = self.lx.text(start, self.lx.pos);
                        r
                    } else {
                        let bad = self.next()?;
                        return Err(ParseError::Syntax {
                            message: format!(
                                "unexpected argument `{}' to conditional binary operator",
                                token_text(&bad, &self.lx)
                            ),
                            line: bad.line,
                        });
                    }
                } else {
                    // bash 5.2 reads the pattern of `==`, `!=` and `=` with extended
                    // patterns, whatever `extglob` says.
                    self.lx.ext_word = matches!(op.as_str(), "==" | "!=" | "=");
                    let r = self.next();
                    self.lx.ext_word = false;
                    let r = r?;
                    match r.tok {
                        Tok::Word(rw) if !is_word(&r, &["]]"]) => rw,
                        _ => {
                            return Err(ParseError::Syntax {
                                message: format!(
                                    "unexpected argument `{}' to conditional binary operator",
                                    token_text(&r, &self.lx)
                                ),
                                line: r.line,
                            });
                        }
                    }
                };
                Ok(CondExpr::Binary(w, op, right))
            }
            _ => Err(self.cond_error(&tok)),
        }
    }

    /// `function NAME [()] compound`.
    fn function_keyword(&mut self) -> Result<Command, ParseError> {
        let kw = self.next()?;
        let name_tok = self.next()?;
        let Tok::Word(_) = &name_tok.tok else {
            return Err(syntax_near_nl(&name_tok, &self.lx));
        };
        let name =
            String::from_utf8_lossy(self.lx.slice(name_tok.start, name_tok.end)).into_owned();
        // `function f ()`; in `function f ( list )` the `(` opens the body, a subshell.
        let open = self.peek()?.clone();
        if open.tok == Tok::Operator(Operator::LParen) {
            let after = self.lx.rest_from(open.end);
            let blanks = after
                .iter()
                .take_while(|&&b| matches!(b, b' ' | b'\t'))
                .count();
            if after.get(blanks) == Some(&b')') {
                self.next()?;
                self.next()?;
            }
        }
        self.function_body(name, kw.line)
    }

    /// The body of a function definition (after `name()`): newlines, then a compound command
    /// and its redirections.
    fn function_body(&mut self, name: String, line: usize) -> Result<Command, ParseError> {
        self.skip_newlines()?;
        let tok = self.peek()?.clone();
        let starts_compound = match &tok.tok {
            Tok::Word(w) => matches!(
                plain_literal(w),
                Some(b"{" | b"if" | b"while" | b"until" | b"for" | b"case" | b"[[")
            ),
            Tok::Operator(Operator::LParen) => true,
            _ => false,
        };
        if !starts_compound {
            let tok = self.next()?;
            return Err(syntax_near_nl(&tok, &self.lx));
        }
        self.enter()?;
        let cmd = self.command()?;
        self.leave();
        let Command::Compound(body, redirects) = cmd else {
            return Err(syntax_near_nl(&tok, &self.lx));
        };
        Ok(Command::Function(Arc::new(FunctionDef {
            name,
            body: *body,
            redirects,
            line,
        })))
    }

    fn simple_command(&mut self) -> Result<Command, ParseError> {
        let line = self.peek()?.line;
        let mut cmd = SimpleCommand {
            line,
            ..SimpleCommand::default()
        };
        let mut any = false;
        // bash numbers a simple command with the line its parser had reached when it took
        // the first word: the end of the token after it (`cmd "a<newline>b"` is on line 2).
        let mut first_end = None;
        loop {
            if cmd.words.is_empty() || self.alias_next.is_some() {
                self.expand_alias(cmd.words.is_empty())?;
            }
            // Looked at in place: a word is taken (not copied) once it is known to be one.
            let peeked = self.peek()?;
            let (start, end, tok_line) = (peeked.start, peeked.end, peeked.line);
            let ends = matches!(peeked.tok, Tok::Eof | Tok::Operator(Operator::Newline));
            let is_word = matches!(peeked.tok, Tok::Word(_));
            let redirect = match peeked.tok {
                Tok::IoNumber(_) => true,
                Tok::Operator(op) => op.is_redirect(),
                _ => false,
            };
            if let Some(first) = first_end.take() {
                cmd.line = if ends {
                    first
                } else {
                    self.end_line_at(tok_line, start, end)
                };
            } else if !any {
                first_end = Some(self.end_line_at(tok_line, start, end));
            }
            if redirect {
                any = true;
                let r = self.redirect()?;
                cmd.redirects.push(r);
                continue;
            }
            if !is_word {
                break;
            }
            let tok = self.next()?;
            match tok.tok {
                Tok::Word(word) => {
                    any = true;
                    let declaration = cmd
                        .words
                        .first()
                        .and_then(plain_literal)
                        .is_some_and(|n| DECLARATION.iter().any(|d| d.as_bytes() == n));
                    if (cmd.words.is_empty() || declaration)
                        && let Some(mut a) = split_assignment(&word)
                    {
                        // `NAME=(...)`: a compound (array) assignment.
                        let empty =
                            matches!(&a.value, AssignValue::Scalar(w) if w.parts.is_empty());
                        if empty
                            && self.peek_op()? == Some(Operator::LParen)
                            && self.peek()?.start == tok.end
                        {
                            self.next()?;
                            a.value = AssignValue::Array(self.array_words()?);
                        }
                        a.text = word.text.clone();
                        if let AssignValue::Array(items) = &a.value {
                            let mut text = a.text.bytes().to_vec();
                            text.push(b'(');
                            for (i, w) in items.iter().enumerate() {
                                if i > 0 {
                                    text.push(b' ');
                                }
                                text.extend_from_slice(w.text.bytes());
                            }
                            text.push(b')');
                            a.text = SourceText::new(&text);
                        }
                        if cmd.words.is_empty() {
                            cmd.assignments.push(a);
                        } else {
                            cmd.decl_args.push((cmd.words.len(), a));
                            cmd.words.push(word);
                        }
                        continue;
                    }
                    if cmd.words.is_empty() {
                        // `name ( )`: a function definition.
                        let bare = cmd.assignments.is_empty() && cmd.redirects.is_empty();
                        if bare && self.peek_op()? == Some(Operator::LParen) {
                            self.next()?;
                            let after = self.next()?;
                            if after.tok != Tok::Operator(Operator::RParen) {
                                return Err(syntax_near_nl(&after, &self.lx));
                            }
                            let name = String::from_utf8_lossy(self.lx.slice(tok.start, tok.end))
                                .into_owned();
                            return self.function_body(name, tok.line);
                        }
                    }
                    cmd.words.push(word);
                }
                _ => break,
            }
        }
        if !any {
            let tok = self.next()?;
            return Err(syntax_near(&tok, &self.lx));
        }
        Ok(Command::Simple(cmd))
    }

    /// The line a token starting on `line` at `start` and ending at `end` ends on.
    fn end_line_at(&self, line: usize, start: usize, end: usize) -> usize {
        let text = self.lx.slice(start, end);
        line + text.split(|&b| b == b'\n').count() - 1
    }

    /// The words of `NAME=( ... )` after the `(`, up to the `)` (newlines allowed).
    fn array_words(&mut self) -> Result<Vec<Word>, ParseError> {
        let mut words = Vec::new();
        self.lx.compassign = true;
        let done = loop {
            if let Err(e) = self.skip_newlines() {
                break Err(e);
            }
            let tok = match self.next() {
                Ok(t) => t,
                Err(e) => break Err(e),
            };
            match tok.tok {
                Tok::Word(w) => words.push(w),
                Tok::Operator(Operator::RParen) => break Ok(()),
                _ => break Err(syntax_near(&tok, &self.lx)),
            }
        };
        self.lx.compassign = false;
        done.map(|()| words)
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
        let word = match target.tok {
            Tok::Word(word) => word,
            tok => {
                let target = Token { tok, ..target };
                return Err(syntax_near_nl(&target, &self.lx));
            }
        };
        let kind = match op {
            Operator::Less => RedirKind::In(word),
            Operator::Great => RedirKind::Out(word),
            Operator::Clobber => RedirKind::Clobber(word),
            Operator::DGreat => RedirKind::Append(word),
            Operator::AndGreat => RedirKind::OutErr(word),
            Operator::AndDGreat => RedirKind::AppendOutErr(word),
            Operator::TLess => RedirKind::HereString(word),
            Operator::DLess | Operator::DLessDash => {
                let raw = self.lx.slice(target.start, target.end).to_vec();
                self.lx
                    .push_heredoc(&raw, op == Operator::DLessDash, tok.line);
                RedirKind::HereDoc {
                    body: Word::default(),
                    expand: !raw.iter().any(|b| matches!(b, b'\'' | b'"' | b'\\')),
                    delim: super::lexer::delimiter_text(&raw),
                    strip_tabs: op == Operator::DLessDash,
                }
            }
            Operator::LessGreat => RedirKind::ReadWrite(word),
            Operator::LessAnd | Operator::GreatAnd => {
                let raw = self.lx.slice(target.start, target.end);
                let lit = plain_literal(&word);
                let shown =
                    String::from_utf8_lossy(self.lx.slice(fd_start, target.end)).into_owned();
                match lit {
                    Some(b"-") => {
                        // `<&-` closes stdin.
                        if op == Operator::LessAnd && fd.is_none() {
                            fd = Some(0);
                        }
                        RedirKind::Close
                    }
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
                        return Ok(Redirect {
                            fd,
                            kind: RedirKind::OutErr(word),
                            dup_word: true,
                        });
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
        Ok(Redirect {
            fd,
            kind,
            dup_word: false,
        })
    }
}

/// The text of a token as written.
fn token_text(tok: &Token, lx: &Lexer<'_>) -> String {
    match &tok.tok {
        Tok::Operator(op) => op.text().to_string(),
        Tok::Eof => "newline".into(),
        _ => String::from_utf8_lossy(lx.slice(tok.start, tok.end)).into_owned(),
    }
}

/// The unary operators of `[[ ]]`.
fn is_unary_cond(t: &[u8]) -> bool {
    matches!(
        t,
        b"-a"
            | b"-b"
            | b"-c"
            | b"-d"
            | b"-e"
            | b"-f"
            | b"-g"
            | b"-h"
            | b"-k"
            | b"-p"
            | b"-r"
            | b"-s"
            | b"-t"
            | b"-u"
            | b"-w"
            | b"-x"
            | b"-G"
            | b"-L"
            | b"-N"
            | b"-O"
            | b"-S"
            | b"-z"
            | b"-n"
            | b"-o"
            | b"-v"
            | b"-R"
    )
}

/// The binary operators of `[[ ]]` written as words (`<` and `>` are operator tokens).
fn is_binary_cond(t: &[u8]) -> bool {
    matches!(
        t,
        b"=" | b"=="
            | b"!="
            | b"=~"
            | b"-eq"
            | b"-ne"
            | b"-lt"
            | b"-le"
            | b"-gt"
            | b"-ge"
            | b"-nt"
            | b"-ot"
            | b"-ef"
    )
}

/// Parses the list of a command substitution (`$(` or `<(` already read) with `lx` placed
/// after the parenthesis; gives the list and the lexer after the closing `)`.
pub(super) fn parse_subst(lx: Lexer<'_>, line: usize) -> Result<(Script, Lexer<'_>), ParseError> {
    let mut p = Parser::with_lexer(lx);
    // `$( )`, `$(\n)`: an empty list is allowed here (not in `( )`).
    p.skip_newlines()?;
    let empty = p.peek_op()? == Some(Operator::RParen);
    let listed = if empty {
        Ok(Script::default())
    } else {
        p.list(End::Paren)
    };
    let mut script = match listed {
        Ok(s) => s,
        Err(ParseError::Syntax { message, .. } | ParseError::Incomplete { message })
            if message == "syntax error: unexpected end of file" =>
        {
            return Err(if p.lx.at_eof_mode() {
                ParseError::Syntax {
                    message: "unexpected EOF while looking for matching `)'".into(),
                    line,
                }
            } else {
                ParseError::Incomplete {
                    message: "unexpected EOF while looking for matching `)'".into(),
                }
            });
        }
        Err(e) => return Err(e),
    };
    // The closing `)` was peeked: the lexer is just after it.
    let close = p.next()?;
    if close.tok != Tok::Operator(Operator::RParen) {
        return Err(syntax_near(&close, &p.lx));
    }
    fill_heredocs(&mut script, std::mem::take(&mut p.lx.bodies));
    Ok((script, p.lx))
}

/// Parses a whole text with a lexer set up by the caller (a backquoted command).
pub(super) fn parse_with(lx: Lexer<'_>) -> Result<Parsed, ParseError> {
    Parser::with_lexer(lx).script()
}

/// Gives each here-document redirect its body, in source order (the order the lexer read
/// them).
fn fill_heredocs(script: &mut Script, bodies: Vec<Word>) {
    if bodies.is_empty() {
        return;
    }
    let mut bodies = bodies.into_iter();
    each_redirect(script, &mut |r| {
        if let RedirKind::HereDoc { body, .. } = &mut r.kind {
            *body = bodies.next().unwrap_or_default();
        }
    });
}

/// Calls `f` on every redirection of a list, in source order (not inside `$(...)`, which
/// has its own here-documents).
fn each_redirect(script: &mut Script, f: &mut dyn FnMut(&mut Redirect)) {
    for item in &mut script.items {
        let pipelines =
            std::iter::once(&mut item.first).chain(item.rest.iter_mut().map(|(_, p)| p));
        for p in pipelines {
            for cmd in &mut p.commands {
                match cmd {
                    Command::Simple(c) => c.redirects.iter_mut().for_each(&mut *f),
                    Command::Compound(c, redirects) => {
                        each_compound_redirect(c, f);
                        redirects.iter_mut().for_each(&mut *f);
                    }
                    Command::Function(def) => {
                        if let Some(def) = Arc::get_mut(def) {
                            each_compound_redirect(&mut def.body, f);
                            def.redirects.iter_mut().for_each(&mut *f);
                        }
                    }
                }
            }
        }
    }
}

fn each_compound_redirect(c: &mut Compound, f: &mut dyn FnMut(&mut Redirect)) {
    match c {
        Compound::Brace(s) | Compound::Subshell(s) => each_redirect(s, f),
        Compound::If {
            branches,
            otherwise,
        } => {
            for (cond, body) in branches {
                each_redirect(cond, f);
                each_redirect(body, f);
            }
            if let Some(s) = otherwise {
                each_redirect(s, f);
            }
        }
        Compound::For { body, .. } | Compound::ArithFor { body, .. } => each_redirect(body, f),
        Compound::While { cond, body, .. } => {
            each_redirect(cond, f);
            each_redirect(body, f);
        }
        Compound::Case { arms, .. } => {
            for arm in arms {
                each_redirect(&mut arm.body, f);
            }
        }
        Compound::Arith { .. } | Compound::Cond { .. } => {}
    }
}
