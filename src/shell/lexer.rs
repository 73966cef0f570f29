//! The tokenizer: turns input bytes into words (with their quoting kept as [`WordPart`]s),
//! operators and redirection operators, and collects here-document bodies.
//!
//! It follows bash's lexer. A command substitution (`$(...)`, backquotes, `<(...)`) is parsed
//! by a nested parser over the same input as soon as it is met, as bash 5.2 does; arithmetic
//! text (`$((...))`, `((...))`) is kept as a word to expand, then evaluate. Word-level
//! constructs trumansh does not run yet are refused early ([`ParseError::Unsupported`]).
//!
//! Everything is indexed with `get`, never `[]`: any byte sequence must give a token or an
//! error, never a panic. Nesting (`${X:-${Y:-...}}`) is capped at [`MAX_DEPTH`] so that a
//! hostile input cannot overflow the stack.
#![deny(clippy::indexing_slicing)]

use std::collections::BTreeMap;
use std::rc::Rc;

use super::ast::{Anchor, ParamExp, ParamOp, SourceText, Word, WordPart};
use super::parser::ParseError;

/// How many alias texts one complete command may paste in (each may hold more aliases).
pub(crate) const MAX_ALIAS_EXPANSIONS: usize = 1000;

/// The shell options the syntax depends on, as they are when a complete command is read
/// (bash reads, then runs, one complete command at a time: `shopt -s extglob` or `alias`
/// take effect from the next one).
#[derive(Debug, Clone, Copy, Default)]
pub struct ParseOpts<'a> {
    /// `shopt -s extglob`: `?(...)`, `*(...)`, `+(...)`, `@(...)`, `!(...)` are one word.
    pub extglob: bool,
    /// The aliases to expand (`shopt -s expand_aliases`), by name; `None`: none.
    pub aliases: Option<&'a BTreeMap<String, String>>,
}

/// The text a lexer reads: the caller's, or its own once an alias was pasted in (from
/// `base` on: what was read before it is dropped without a copy).
#[derive(Debug, Clone)]
pub(crate) enum Src<'a> {
    Borrowed(&'a [u8]),
    Owned { buf: Rc<[u8]>, base: usize },
}

impl<'a> Src<'a> {
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Src::Borrowed(b) => b,
            Src::Owned { buf, base } => buf.get(*base..).unwrap_or_default(),
        }
    }

    /// The text from `pos` on.
    pub(crate) fn advance(self, pos: usize) -> Src<'a> {
        match self {
            Src::Borrowed(b) => Src::Borrowed(b.get(pos..).unwrap_or_default()),
            Src::Owned { buf, base } => Src::Owned {
                buf,
                base: base + pos,
            },
        }
    }
}

/// An alias whose text is being read: its name and where its text ends.
#[derive(Debug, Clone)]
pub(crate) struct AliasUse {
    pub name: String,
    pub start: usize,
    pub end: usize,
}

/// How deep `${...}` and quotes may nest inside one word.
pub(crate) const MAX_DEPTH: usize = 64;

/// The operators (control and redirection) of the language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operator {
    Semi,
    DSemi,
    SemiAnd,
    DSemiAnd,
    Amp,
    AndIf,
    Pipe,
    PipeAmp,
    OrIf,
    LParen,
    RParen,
    Newline,
    // Redirections.
    Less,
    Great,
    DGreat,
    Clobber,
    DLess,
    DLessDash,
    TLess,
    LessAnd,
    GreatAnd,
    LessGreat,
    AndGreat,
    AndDGreat,
}

impl Operator {
    /// The operator as written, for `syntax error near unexpected token`.
    pub(crate) fn text(self) -> &'static str {
        match self {
            Operator::Semi => ";",
            Operator::DSemi => ";;",
            Operator::SemiAnd => ";&",
            Operator::DSemiAnd => ";;&",
            Operator::Amp => "&",
            Operator::AndIf => "&&",
            Operator::Pipe => "|",
            Operator::PipeAmp => "|&",
            Operator::OrIf => "||",
            Operator::LParen => "(",
            Operator::RParen => ")",
            Operator::Newline => "newline",
            Operator::Less => "<",
            Operator::Great => ">",
            Operator::DGreat => ">>",
            Operator::Clobber => ">|",
            Operator::DLess => "<<",
            Operator::DLessDash => "<<-",
            Operator::TLess => "<<<",
            Operator::LessAnd => "<&",
            Operator::GreatAnd => ">&",
            Operator::LessGreat => "<>",
            Operator::AndGreat => "&>",
            Operator::AndDGreat => "&>>",
        }
    }

    pub(crate) fn is_redirect(self) -> bool {
        matches!(
            self,
            Operator::Less
                | Operator::Great
                | Operator::DGreat
                | Operator::Clobber
                | Operator::DLess
                | Operator::DLessDash
                | Operator::TLess
                | Operator::LessAnd
                | Operator::GreatAnd
                | Operator::LessGreat
                | Operator::AndGreat
                | Operator::AndDGreat
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    Word(Word),
    Operator(Operator),
    /// `N>` and friends: the fd digits written right before a redirection operator.
    IoNumber(u32),
    Eof,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub tok: Tok,
    /// The 1-based line the token starts on.
    pub line: usize,
    /// Byte offsets of the token in the input.
    pub start: usize,
    pub end: usize,
}

/// A here-document whose delimiter was read and whose body comes after the next newline.
#[derive(Debug)]
struct PendingDoc {
    delim: Vec<u8>,
    strip_tabs: bool,
    expand: bool,
    line: usize,
}

/// A warning bash prints but goes on (a here-document closed by end of file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub line: usize,
    /// The text without the `bash: line N: ` prefix.
    pub message: String,
}

/// What ends arithmetic text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArithEnd {
    /// `))`: `$((...))` and `((...))`.
    DoubleParen,
    /// `]`: `$[...]`.
    Bracket,
    /// `;` or `))`: one part of `for ((...; ...; ...))`.
    ForPart,
    /// `:` or `}`: the offset of `${X:offset:length}` (a `:` that answers a `?` at depth 0
    /// is the conditional operator's, as bash's `skiparith` reads it).
    SubstrOffset,
    /// `}`: the length of `${X:offset:length}`.
    SubstrLength,
}

/// How the word of `${X<op>word}` is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpWord {
    /// `${X:-word}` and friends, `${X@Q}`: as double-quoted text when the `${` is.
    Rhs,
    /// The pattern of `#`, `%`, `^`, `,` and the string of `${X/pat/string}`: unquoted text.
    Pattern,
    /// The pattern of `${X/pat/string}`: unquoted text up to a `/` (`all`: `//`, where a
    /// leading `/` belongs to the pattern).
    SubstPattern { all: bool },
}

/// Where a run of text is being read: the rules for `\`, quotes and the end differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quoting {
    /// Inside `"..."`.
    Dq,
    /// An unquoted here-document body: like `"..."` but `"` is plain text.
    HereDoc,
}

pub(crate) struct Lexer<'a> {
    text: Src<'a>,
    pub(super) pos: usize,
    pub(super) line: usize,
    /// At end of input, finish what bash finishes (here-documents, a final `\`) instead of
    /// asking for more.
    at_eof: bool,
    pending: Vec<PendingDoc>,
    /// Bodies of completed here-documents, in the order their operators appeared.
    pub bodies: Vec<Word>,
    pub warnings: Vec<Warning>,
    pub(super) depth: usize,
    /// Inside `"..."` or an unquoted here-document: in `${X:-word}`, `'` is then plain text.
    in_dq: bool,
    /// The subscript read after the name of the `${...}` being read (`${a[1]}`), given to
    /// its [`ParamExp`] once it is complete.
    subscript: Option<Word>,
    /// The options the input is read with.
    pub(crate) opts: ParseOpts<'a>,
    /// Reading the right side of `[[ x == pattern ]]`: extended patterns are words even
    /// without `extglob` (bash 5.2).
    pub(super) ext_word: bool,
    /// Reading the words of a compound assignment (`a=(...)`): a word that starts with a
    /// subscript (`[a b]=v`) keeps the blanks inside its brackets.
    pub(super) compassign: bool,
    /// The aliases whose text is being read (not expanded again in it).
    pub(crate) alias_uses: Vec<AliasUse>,
    /// Alias texts pasted in by this lexer.
    pub(crate) alias_count: usize,
    /// The `$(...)`, `<(...)` and `>(...)` read so far (start, end, text re-printed from
    /// the parse): bash keeps a word's text with them re-printed ([`Lexer::text`]).
    substs: Vec<(usize, usize, Vec<u8>)>,
}

fn is_meta(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

pub(crate) fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

pub(crate) fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn is_special_param(b: u8) -> bool {
    matches!(
        b,
        b'?' | b'$' | b'#' | b'@' | b'*' | b'!' | b'-' | b'0'..=b'9'
    )
}

/// Appends unquoted bytes, merging with a previous `Literal`.
fn push_lit(parts: &mut Vec<WordPart>, bytes: &[u8]) {
    if let Some(WordPart::Literal(v)) = parts.last_mut() {
        v.extend_from_slice(bytes);
    } else {
        parts.push(WordPart::Literal(bytes.to_vec()));
    }
}

/// Appends quoted bytes, merging with a previous `Quoted` (an empty one still counts: `''`).
fn push_quoted(parts: &mut Vec<WordPart>, bytes: &[u8]) {
    if let Some(WordPart::Quoted(v)) = parts.last_mut() {
        v.extend_from_slice(bytes);
    } else {
        parts.push(WordPart::Quoted(bytes.to_vec()));
    }
}

fn unsupported(what: &str, line: usize) -> ParseError {
    ParseError::Unsupported {
        message: format!("{what} is not supported by this shell"),
        line,
    }
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a [u8], first_line: usize, at_eof: bool) -> Self {
        Self::resume(
            Src::Borrowed(src),
            0,
            first_line,
            at_eof,
            ParseOpts::default(),
        )
    }

    /// A lexer on `text` from `pos` (on line `line`).
    pub(crate) fn resume(
        text: Src<'a>,
        pos: usize,
        line: usize,
        at_eof: bool,
        opts: ParseOpts<'a>,
    ) -> Self {
        Lexer {
            text,
            pos,
            line,
            at_eof,
            pending: Vec::new(),
            bodies: Vec::new(),
            warnings: Vec::new(),
            depth: 0,
            in_dq: false,
            subscript: None,
            opts,
            ext_word: false,
            compassign: false,
            alias_uses: Vec::new(),
            alias_count: 0,
            substs: Vec::new(),
        }
    }

    /// The text read.
    pub(crate) fn src(&self) -> &[u8] {
        self.text.bytes()
    }

    /// Gives up the text (with what was pasted in) and the position reached.
    pub(crate) fn into_text(self) -> (Src<'a>, usize, usize, Vec<AliasUse>) {
        (self.text, self.pos, self.line, self.alias_uses)
    }

    /// A lexer for text nested in this one's (`$(...)`), from the current position.
    fn nested(&self) -> Lexer<'a> {
        let mut sub = Lexer::resume(
            self.text.clone(),
            self.pos,
            self.line,
            self.at_eof,
            self.opts,
        );
        sub.depth = self.depth;
        sub.alias_uses.clone_from(&self.alias_uses);
        sub.alias_count = self.alias_count;
        sub
    }

    /// Whether the alias `name` is being expanded where a word starting at `at` is.
    pub(crate) fn alias_in_use(&self, name: &str, at: usize) -> bool {
        self.alias_uses.iter().any(|u| u.name == name && at < u.end)
    }

    /// Pastes an alias's text in place of its word (`start..end`) and goes back to read it.
    pub(crate) fn paste_alias(
        &mut self,
        (start, end, line): (usize, usize, usize),
        name: &str,
        value: &[u8],
    ) -> Result<(), ParseError> {
        self.alias_count += 1;
        if self.alias_count > MAX_ALIAS_EXPANSIONS {
            return Err(ParseError::Unsupported {
                message: format!(
                    "{name}: more than {MAX_ALIAS_EXPANSIONS} aliases expanded in one command are not supported by this shell"
                ),
                line,
            });
        }
        let src = self.src();
        let mut text = Vec::with_capacity(src.len() + value.len());
        text.extend_from_slice(src.get(..start).unwrap_or_default());
        text.extend_from_slice(value);
        text.extend_from_slice(src.get(end..).unwrap_or_default());
        let grown = value.len().wrapping_sub(end - start);
        self.alias_uses.retain(|u| u.end > start);
        for u in &mut self.alias_uses {
            if u.end >= end {
                u.end = u.end.wrapping_add(grown);
            }
        }
        self.alias_uses.push(AliasUse {
            name: name.to_string(),
            start,
            end: start + value.len(),
        });
        self.text = Src::Owned {
            buf: Rc::from(text),
            base: 0,
        };
        self.pos = start;
        self.line = line;
        Ok(())
    }

    pub(crate) fn line(&self) -> usize {
        self.line
    }

    pub(crate) fn at_eof_mode(&self) -> bool {
        self.at_eof
    }

    /// The input bytes between two offsets (empty when out of range).
    pub(crate) fn slice(&self, start: usize, end: usize) -> &[u8] {
        self.src().get(start..end).unwrap_or_default()
    }

    /// The text bash keeps for the input between two offsets: line continuations removed
    /// and each `$(...)` read in that range replaced by its re-print.
    pub(crate) fn text(&mut self, start: usize, end: usize) -> SourceText {
        // The usual word: no substitution read in it, nothing for `source_text` to change.
        let plain = self.slice(start, end);
        if self.substs.iter().all(|&(s, ..)| s >= end)
            && memchr::memchr2(b'\\', b'$', plain).is_none()
        {
            return SourceText::new(plain);
        }
        let (mut substs, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.substs)
            .into_iter()
            .partition(|&(s, ..)| s < end);
        self.substs = later;
        // An outer substitution first: it holds the ones read inside it.
        substs.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut out = Vec::with_capacity(end.saturating_sub(start));
        let mut at = start;
        // `$'...'` is kept decoded.
        let ansi = |rest: &[u8]| {
            let mut sub = Lexer::new(rest, 1, true);
            sub.read_ansi_c(1).ok().map(|v| (v, sub.pos))
        };
        for (s, e, printed) in substs {
            if s < at || e > end {
                continue;
            }
            super::print::source_text(self.slice(at, s), &mut out, &ansi);
            out.extend_from_slice(&printed);
            at = e;
        }
        super::print::source_text(self.slice(at, end), &mut out, &ansi);
        SourceText::new(&out)
    }

    /// The input from an offset on.
    pub(crate) fn rest_from(&self, start: usize) -> &[u8] {
        self.src().get(start..).unwrap_or_default()
    }

    fn peek(&self) -> Option<u8> {
        self.src().get(self.pos).copied()
    }

    fn peek_at(&self, n: usize) -> Option<u8> {
        self.src().get(self.pos + n).copied()
    }

    /// Consumes one byte, counting lines.
    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.pos += 1;
        if b == b'\n' {
            self.count_line(self.pos - 1);
        }
        Some(b)
    }

    /// Counts the newline at `at`: one of the input's, not of an alias's text (bash does
    /// not count those).
    fn count_line(&mut self, at: usize) {
        if !self
            .alias_uses
            .iter()
            .any(|u| (u.start..u.end).contains(&at))
        {
            self.line += 1;
        }
    }

    fn incomplete(&self, message: String, line: usize) -> ParseError {
        if self.at_eof {
            ParseError::Syntax { message, line }
        } else {
            ParseError::Incomplete { message }
        }
    }

    fn eof_matching(&self, what: &str, line: usize) -> ParseError {
        self.incomplete(
            format!("unexpected EOF while looking for matching `{what}'"),
            line,
        )
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::Unsupported {
                message: format!(
                    "quotes and expansions nested more than {MAX_DEPTH} deep are not supported by this shell"
                ),
                line: self.line,
            });
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Registers a here-document whose body starts after the next newline token.
    pub(crate) fn push_heredoc(&mut self, raw_delim: &[u8], strip_tabs: bool, line: usize) {
        let expand = !raw_delim.iter().any(|b| matches!(b, b'\'' | b'"' | b'\\'));
        self.pending.push(PendingDoc {
            delim: delimiter_text(raw_delim),
            strip_tabs,
            expand,
            line,
        });
    }

    /// Whether here-documents still wait for their bodies.
    pub(crate) fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The next token. Blanks, comments and backslash-newline pairs between tokens are skipped.
    pub(crate) fn next_token(&mut self) -> Result<Token, ParseError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t') => self.pos += 1,
                Some(b'\\') if self.peek_at(1) == Some(b'\n') => {
                    self.pos += 2;
                    self.count_line(self.pos - 1);
                    if self.peek().is_none() && !self.at_eof {
                        // A line continued at the end of the input: the command goes on.
                        return Err(ParseError::Incomplete {
                            message: String::new(),
                        });
                    }
                }
                Some(b'#') => {
                    while let Some(b) = self.peek() {
                        if b == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
        let start = self.pos;
        let line = self.line;
        let tok = |tok: Tok, end: usize| Token {
            tok,
            line,
            start,
            end,
        };
        let Some(b) = self.peek() else {
            self.finish_pending_at_eof()?;
            return Ok(tok(Tok::Eof, start));
        };
        let two = self.peek_at(1);
        let three = self.peek_at(2);
        let (op, len) = match (b, two, three) {
            (b'\n', _, _) => {
                self.bump();
                self.read_heredoc_bodies()?;
                return Ok(tok(Tok::Operator(Operator::Newline), start + 1));
            }
            (b';', Some(b';'), Some(b'&')) => (Operator::DSemiAnd, 3),
            (b';', Some(b';'), _) => (Operator::DSemi, 2),
            (b';', Some(b'&'), _) => (Operator::SemiAnd, 2),
            (b';', _, _) => (Operator::Semi, 1),
            (b'&', Some(b'&'), _) => (Operator::AndIf, 2),
            (b'&', Some(b'>'), Some(b'>')) => (Operator::AndDGreat, 3),
            (b'&', Some(b'>'), _) => (Operator::AndGreat, 2),
            (b'&', _, _) => (Operator::Amp, 1),
            (b'|', Some(b'|'), _) => (Operator::OrIf, 2),
            (b'|', Some(b'&'), _) => (Operator::PipeAmp, 2),
            (b'|', _, _) => (Operator::Pipe, 1),
            (b'(', _, _) => (Operator::LParen, 1),
            (b')', _, _) => (Operator::RParen, 1),
            (b'<' | b'>', Some(b'('), _) => {
                self.pos += 2;
                let script = self.read_subst(line)?;
                let mut parts = vec![WordPart::ProcessSubst {
                    script: std::sync::Arc::new(script),
                    out: b == b'>',
                }];
                let rest = self.read_word()?;
                parts.extend(rest.parts);
                let mut word = Word::new(parts);
                word.text = self.text(start, self.pos);
                return Ok(tok(Tok::Word(word), self.pos));
            }
            (b'<', Some(b'<'), Some(b'<')) => (Operator::TLess, 3),
            (b'<', Some(b'<'), Some(b'-')) => (Operator::DLessDash, 3),
            (b'<', Some(b'<'), _) => (Operator::DLess, 2),
            (b'<', Some(b'&'), _) => (Operator::LessAnd, 2),
            (b'<', Some(b'>'), _) => (Operator::LessGreat, 2),
            (b'<', _, _) => (Operator::Less, 1),
            (b'>', Some(b'>'), _) => (Operator::DGreat, 2),
            (b'>', Some(b'|'), _) => (Operator::Clobber, 2),
            (b'>', Some(b'&'), _) => (Operator::GreatAnd, 2),
            (b'>', _, _) => (Operator::Great, 1),
            _ => {
                // `2>`: digits glued to a redirection operator are its fd.
                if b.is_ascii_digit() {
                    let mut end = self.pos;
                    while self.src().get(end).is_some_and(u8::is_ascii_digit) {
                        end += 1;
                    }
                    if matches!(self.src().get(end), Some(b'<' | b'>')) {
                        let digits = self.slice(start, end);
                        if let Some(n) = std::str::from_utf8(digits)
                            .ok()
                            .and_then(|s| s.parse::<u32>().ok())
                        {
                            self.pos = end;
                            return Ok(tok(Tok::IoNumber(n), end));
                        }
                    }
                }
                let mut word = self.read_word()?;
                word.text = self.text(start, self.pos);
                // `{fd}>file`: bash allocates a descriptor into a variable.
                if matches!(self.peek(), Some(b'<' | b'>')) {
                    let raw = self.slice(start, self.pos);
                    if raw.len() > 2
                        && raw.first() == Some(&b'{')
                        && raw.last() == Some(&b'}')
                        && raw
                            .get(1..raw.len() - 1)
                            .is_some_and(|n| n.iter().all(|&c| is_name_char(c)))
                    {
                        return Err(unsupported(
                            "`{name}>': redirection to a named file descriptor",
                            line,
                        ));
                    }
                }
                return Ok(tok(Tok::Word(word), self.pos));
            }
        };
        self.pos += len;
        Ok(tok(Tok::Operator(op), self.pos))
    }

    /// Reads one word up to an unquoted metacharacter.
    fn read_word(&mut self) -> Result<Word, ParseError> {
        let mut parts: Vec<WordPart> = Vec::new();
        let mut lit_start = self.pos;
        // `[key with blanks]=value` in `a=(...)`: up to the `]` before `=` as one piece.
        let subscript_end = if self.compassign && self.peek() == Some(b'[') {
            self.subscript_end()
        } else {
            None
        };
        // Runs of plain bytes are copied in one go.
        macro_rules! flush {
            () => {
                if lit_start < self.pos {
                    push_lit(&mut parts, self.slice(lit_start, self.pos));
                }
            };
        }
        while let Some(b) = self.peek() {
            if is_meta(b) && subscript_end.is_none_or(|end| self.pos >= end) {
                break;
            }
            match b {
                b'\\' | b'\'' | b'"' | b'$' | b'`' => {
                    flush!();
                    self.read_special(b, &mut parts)?;
                    lit_start = self.pos;
                }
                b'?' | b'*' | b'+' | b'@' | b'!'
                    if (self.opts.extglob || self.ext_word) && self.peek_at(1) == Some(b'(') =>
                {
                    flush!();
                    self.read_ext_group(&mut parts)?;
                    lit_start = self.pos;
                }
                _ => self.pos += 1,
            }
        }
        flush!();
        Ok(Word::new(parts))
    }

    /// Where the bracketed part at the read position (`[`) ends, when a `]` closes it on the
    /// same line (quotes skipped over), as bash reads it in `a=(...)`; `None`: an ordinary
    /// word.
    fn subscript_end(&self) -> Option<usize> {
        let rest = self.src().get(self.pos..)?;
        let mut depth = 0usize;
        let mut i = 0;
        while let Some(&b) = rest.get(i) {
            match b {
                b'[' => depth += 1,
                b']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(self.pos + i + 1);
                    }
                }
                b'\\' => i += 1,
                b'\'' | b'"' => {
                    let close = rest.get(i + 1..)?.iter().position(|&c| c == b)?;
                    i += close + 1;
                }
                b'\n' => return None,
                _ => {}
            }
            i += 1;
        }
        None
    }

    /// Reads an extended pattern (`@(a|b c)`, on its operator) into a word's parts: up to
    /// the matching `)`, with blanks, `|`, `;`, `&`, `<`, `>` and newlines as plain text and
    /// quotes and expansions as in a word.
    fn read_ext_group(&mut self, parts: &mut Vec<WordPart>) -> Result<(), ParseError> {
        let line = self.line;
        self.enter()?;
        let mut lit_start = self.pos;
        self.pos += 2;
        let mut depth = 0usize;
        loop {
            let Some(b) = self.peek() else {
                return Err(self.eof_matching(")", line));
            };
            match b {
                b'(' => {
                    depth += 1;
                    self.pos += 1;
                }
                b')' => {
                    self.pos += 1;
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                b'\\' | b'\'' | b'"' | b'$' | b'`' => {
                    if lit_start < self.pos {
                        push_lit(parts, self.slice(lit_start, self.pos));
                    }
                    self.read_special(b, parts)?;
                    lit_start = self.pos;
                }
                _ => {
                    self.bump();
                }
            }
        }
        if lit_start < self.pos {
            push_lit(parts, self.slice(lit_start, self.pos));
        }
        self.leave();
        Ok(())
    }

    /// Reads a quote, escape or `$` construct of unquoted text (a word or the word of an
    /// unquoted `${X:-word}`), appending its part.
    fn read_special(&mut self, b: u8, parts: &mut Vec<WordPart>) -> Result<(), ParseError> {
        let line = self.line;
        match b {
            b'\\' => {
                self.pos += 1;
                match self.peek() {
                    Some(b'\n') => {
                        self.bump();
                        if self.peek().is_none() && !self.at_eof {
                            // The word goes on on the next line, not read yet.
                            return Err(ParseError::Incomplete {
                                message: String::new(),
                            });
                        }
                    }
                    Some(c) => {
                        self.pos += 1;
                        push_quoted(parts, &[c]);
                    }
                    None => {
                        if !self.at_eof {
                            return Err(ParseError::Incomplete {
                                message: String::new(),
                            });
                        }
                        // bash -c 'echo a\' keeps the backslash.
                        push_quoted(parts, b"\\");
                    }
                }
            }
            b'\'' => {
                self.pos += 1;
                let start = self.pos;
                loop {
                    match self.bump() {
                        Some(b'\'') => break,
                        Some(_) => {}
                        None => return Err(self.eof_matching("'", line)),
                    }
                }
                let text = self.slice(start, self.pos - 1);
                push_quoted(parts, text);
            }
            b'"' => {
                self.pos += 1;
                let inner = self.read_dq(Quoting::Dq, line)?;
                parts.push(WordPart::DoubleQuoted(inner));
            }
            b'`' => {
                let script = self.read_backquote(line, false)?;
                parts.push(WordPart::CommandSubst(std::sync::Arc::new(script)));
            }
            _ => {
                // `$`
                match self.peek_at(1) {
                    Some(b'\'') => {
                        self.pos += 2;
                        let text = self.read_ansi_c(line)?;
                        push_quoted(parts, &text);
                    }
                    Some(b'"') => {
                        // `$"..."`: a translatable string; the C locale translates nothing.
                        self.pos += 2;
                        let inner = self.read_dq(Quoting::Dq, line)?;
                        parts.push(WordPart::DoubleQuoted(inner));
                    }
                    _ => match self.read_dollar()? {
                        Some(p) => parts.push(p),
                        None => push_lit(parts, b"$"),
                    },
                }
            }
        }
        Ok(())
    }

    /// Reads the inside of `"..."` (after the opening quote) or of an unquoted here-document
    /// body (to the end of the input): `Quoted` text and parameter expansions.
    fn read_dq(&mut self, ctx: Quoting, open_line: usize) -> Result<Vec<WordPart>, ParseError> {
        self.enter()?;
        let outer_dq = std::mem::replace(&mut self.in_dq, true);
        let mut parts: Vec<WordPart> = Vec::new();
        let mut text: Vec<u8> = Vec::new();
        loop {
            let Some(b) = self.peek() else {
                if ctx == Quoting::Dq {
                    return Err(self.eof_matching("\"", open_line));
                }
                break;
            };
            match b {
                b'"' if ctx == Quoting::Dq => {
                    self.pos += 1;
                    break;
                }
                b'\\' => {
                    self.pos += 1;
                    match self.peek() {
                        Some(b'\n') => {
                            self.bump();
                        }
                        Some(c @ (b'$' | b'`' | b'\\')) => {
                            self.pos += 1;
                            text.push(c);
                        }
                        Some(b'"') if ctx == Quoting::Dq => {
                            self.pos += 1;
                            text.push(b'"');
                        }
                        _ => text.push(b'\\'),
                    }
                }
                b'`' => {
                    let line = self.line;
                    let script = self.read_backquote(line, true)?;
                    if !text.is_empty() {
                        parts.push(WordPart::Quoted(std::mem::take(&mut text)));
                    }
                    parts.push(WordPart::CommandSubst(std::sync::Arc::new(script)));
                }
                b'$' => {
                    if let Some(p) = self.read_dollar()? {
                        if !text.is_empty() {
                            parts.push(WordPart::Quoted(std::mem::take(&mut text)));
                        }
                        parts.push(p);
                    } else {
                        text.push(b'$');
                    }
                }
                _ => {
                    self.bump();
                    text.push(b);
                }
            }
        }
        if !text.is_empty() {
            parts.push(WordPart::Quoted(text));
        }
        self.in_dq = outer_dq;
        self.leave();
        Ok(parts)
    }

    /// Reads a `$` construct at `self.pos` (which is on the `$`). `None`: a lone `$`, which
    /// is then plain text (consumed).
    fn read_dollar(&mut self) -> Result<Option<WordPart>, ParseError> {
        let line = self.line;
        let next = self.peek_at(1);
        match next {
            Some(b'{') => {
                self.pos += 2;
                let outer = self.subscript.take();
                let mut part = self.read_brace_param(line)?;
                if let WordPart::Param(p) = &mut part {
                    p.index = self.subscript.take();
                }
                self.subscript = outer;
                Ok(Some(part))
            }
            Some(b'(') => {
                if self.peek_at(2) == Some(b'(') {
                    let save = (self.pos, self.line);
                    self.pos += 3;
                    if let Some(text) = self.read_arith(ArithEnd::DoubleParen)? {
                        return Ok(Some(WordPart::Arith(text)));
                    }
                    // `$( (list) )` written without the blank: a command substitution.
                    (self.pos, self.line) = save;
                }
                self.pos += 2;
                let script = self.read_subst(line)?;
                Ok(Some(WordPart::CommandSubst(std::sync::Arc::new(script))))
            }
            Some(b'[') => {
                // `$[...]`: bash's old arithmetic expansion.
                self.pos += 2;
                match self.read_arith(ArithEnd::Bracket)? {
                    Some(text) => Ok(Some(WordPart::Arith(text))),
                    None => Err(self.eof_matching("]", line)),
                }
            }
            Some(c) if is_name_start(c) => {
                self.pos += 1;
                let start = self.pos;
                while self.peek().is_some_and(is_name_char) {
                    self.pos += 1;
                }
                let name = String::from_utf8_lossy(self.slice(start, self.pos)).into_owned();
                Ok(Some(param(name)))
            }
            Some(c) if is_special_param(c) => {
                self.pos += 2;
                Ok(Some(param(char::from(c).to_string())))
            }
            _ => {
                self.pos += 1;
                Ok(None)
            }
        }
    }

    /// Reads a parameter name at `self.pos`: an identifier, digits, or one special character.
    fn read_param_name(&mut self) -> Option<String> {
        let start = self.pos;
        let first = self.peek()?;
        if is_name_start(first) {
            while self.peek().is_some_and(is_name_char) {
                self.pos += 1;
            }
        } else if first.is_ascii_digit() {
            while self.peek().is_some_and(|b| b.is_ascii_digit()) {
                self.pos += 1;
            }
        } else if is_special_param(first) {
            self.pos += 1;
        } else {
            return None;
        }
        Some(String::from_utf8_lossy(self.slice(start, self.pos)).into_owned())
    }

    /// Reads `${...}` after the `${`: `${NAME}`, `${#NAME}`, `${!NAME}` (indirection, which
    /// takes the operators too), `${!prefix*}`/`${!prefix@}`, and `${NAME<op>word}` for every
    /// operator of bash 5.2 (arrays, `${NAME[...]}`, are refused). What bash only rejects when
    /// it expands (`${X:}`, `${x!}`, `${X@QQ}`) is kept for expansion to report.
    fn read_brace_param(&mut self, line: usize) -> Result<WordPart, ParseError> {
        self.enter()?;
        let inner_start = self.pos;
        // `${#X}`: length. `${#}` is `$#`, and `${#...}` that is not `#NAME}` is `$#` followed
        // by whatever comes (an operator, or a bad substitution).
        if self.peek() == Some(b'#') && self.peek_at(1) != Some(b'}') {
            let save = self.pos;
            self.pos += 1;
            if let Some(name) = self.read_param_name() {
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    self.leave();
                    return Ok(WordPart::Param(ParamExp {
                        name,
                        index: None,
                        length: true,
                        indirect: false,
                        op: None,
                    }));
                }
                if self.peek() == Some(b'[')
                    && is_name_start(name.as_bytes().first().copied().unwrap_or(0))
                {
                    self.pos += 1;
                    let sub = self.read_subscript(line)?;
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        self.leave();
                        self.subscript = Some(sub);
                        return Ok(WordPart::Param(ParamExp {
                            name,
                            index: None,
                            length: true,
                            indirect: false,
                            op: None,
                        }));
                    }
                }
            }
            self.pos = save;
        }
        // `${!NAME}`, `${!1}`, `${!#}` (indirection), `${!prefix*}`; `${!}` and `${!-x}` are
        // `$!` itself.
        let mut indirect = false;
        if self.peek() == Some(b'!') {
            match self.peek_at(1) {
                Some(c) if is_name_start(c) => {
                    self.pos += 1;
                    let start = self.pos;
                    while self.peek().is_some_and(is_name_char) {
                        self.pos += 1;
                    }
                    if let (Some(c @ (b'*' | b'@')), Some(b'}')) = (self.peek(), self.peek_at(1)) {
                        let name =
                            String::from_utf8_lossy(self.slice(start, self.pos)).into_owned();
                        self.pos += 2;
                        self.leave();
                        return Ok(WordPart::Param(ParamExp {
                            name,
                            index: None,
                            length: false,
                            indirect: false,
                            op: Some((ParamOp::Names { at: c == b'@' }, Word::default())),
                        }));
                    }
                    self.pos = start;
                    indirect = true;
                }
                Some(c) if c.is_ascii_digit() || matches!(c, b'#' | b'?' | b'@' | b'*') => {
                    self.pos += 1;
                    indirect = true;
                }
                _ => {}
            }
        }
        let Some(name) = self.read_param_name() else {
            return self.bad_substitution(inner_start, line);
        };
        if self.peek() == Some(b'[') && name.as_bytes().first().copied().is_some_and(is_name_start)
        {
            self.pos += 1;
            self.subscript = Some(self.read_subscript(line)?);
        }
        // bash reads `${#^}`, `${?,}`, `${-~}` as names (`#^`...), so bad substitutions; and
        // refuses `${#%}`, `${#=}`, `${#+}`, `${#/}`.
        let special = !indirect && matches!(name.as_str(), "#" | "?" | "-");
        if special && matches!(self.peek(), Some(b'^' | b',' | b'~'))
            || (!indirect
                && name == "#"
                && matches!(self.peek(), Some(b'%' | b'=' | b'+' | b'/'))
                && self.peek_at(1) == Some(b'}'))
        {
            return self.bad_substitution(inner_start, line);
        }
        let (op, word) = match (self.peek(), self.peek_at(1)) {
            (Some(b'}'), _) => {
                self.pos += 1;
                self.leave();
                return Ok(WordPart::Param(ParamExp {
                    name,
                    index: None,
                    length: false,
                    indirect,
                    op: None,
                }));
            }
            (Some(b':'), Some(c @ (b'-' | b'=' | b'+' | b'?'))) => {
                self.pos += 2;
                (param_op(c, true), self.read_op_word(line, OpWord::Rhs)?.0)
            }
            (Some(b':'), Some(b'}')) => return self.bad_substitution(inner_start, line),
            (Some(b':'), _) => {
                // `${X:offset}`, `${X:offset:length}`: arithmetic text.
                self.pos += 1;
                let offset = self.read_substring_part(ArithEnd::SubstrOffset)?;
                let length = if self.src().get(self.pos.wrapping_sub(1)) == Some(&b':') {
                    Some(self.read_substring_part(ArithEnd::SubstrLength)?)
                } else {
                    None
                };
                (ParamOp::Substring { length }, offset)
            }
            (Some(c @ (b'-' | b'=' | b'+' | b'?')), _) => {
                self.pos += 1;
                (param_op(c, false), self.read_op_word(line, OpWord::Rhs)?.0)
            }
            (Some(c @ (b'#' | b'%')), _) => {
                self.pos += 1;
                let longest = self.eat(c);
                let word = self.read_op_word(line, OpWord::Pattern)?.0;
                let op = if c == b'#' {
                    ParamOp::RemovePrefix { longest }
                } else {
                    ParamOp::RemoveSuffix { longest }
                };
                (op, word)
            }
            (Some(b'/'), _) => {
                self.pos += 1;
                let all = self.eat(b'/');
                let anchor = if all {
                    Anchor::None
                } else if self.eat(b'#') {
                    Anchor::Start
                } else if self.eat(b'%') {
                    Anchor::End
                } else {
                    Anchor::None
                };
                let (pattern, slash) = self.read_op_word(line, OpWord::SubstPattern { all })?;
                let rep = if slash {
                    Some(self.read_op_word(line, OpWord::Pattern)?.0)
                } else {
                    None
                };
                (ParamOp::Replace { all, anchor, rep }, pattern)
            }
            (Some(c @ (b'^' | b',' | b'~')), _) => {
                self.pos += 1;
                let all = self.eat(c);
                let word = self.read_op_word(line, OpWord::Pattern)?.0;
                (
                    ParamOp::Case {
                        upper: c == b'^',
                        all,
                        toggle: c == b'~',
                    },
                    word,
                )
            }
            (Some(b'@'), _) => {
                // `${X@Q}`: one operator letter. Anything else (`${X@}`, `${X@QQ}`) is kept
                // as `Transform(0)` with the text as its word, a bad substitution when the
                // parameter is set.
                self.pos += 1;
                let word = self.read_op_word(line, OpWord::Rhs)?.0;
                match word.parts.as_slice() {
                    [WordPart::Literal(v)] if v.len() == 1 => {
                        let c = v.first().copied().unwrap_or(0);
                        (ParamOp::Transform(c), Word::default())
                    }
                    _ => (ParamOp::Transform(0), word),
                }
            }
            _ => return self.bad_substitution(inner_start, line),
        };
        self.leave();
        Ok(WordPart::Param(ParamExp {
            name,
            index: None,
            length: false,
            indirect,
            op: Some((op, word)),
        }))
    }

    /// Consumes `b` if it is next.
    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// The offset or the length of `${X:offset:length}`, up to its `:` or `}` (consumed).
    fn read_substring_part(&mut self, end: ArithEnd) -> Result<Word, ParseError> {
        // `read_arith` never gives `None` for these ends (a `)` is plain text there).
        Ok(self.read_arith(end)?.unwrap_or_default())
    }

    /// Skips to the `}` closing a bad `${...}` and gives it as a parameter whose name is the
    /// text inside, which is never a valid name: expanding it reports `${...}: bad
    /// substitution`, at run time as bash does.
    fn bad_substitution(
        &mut self,
        inner_start: usize,
        line: usize,
    ) -> Result<WordPart, ParseError> {
        let mut depth = 0usize;
        loop {
            match self.bump() {
                None => return Err(self.eof_matching("}", line)),
                Some(b'{') => depth += 1,
                Some(b'}') => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                Some(b'\\') => {
                    self.bump();
                }
                _ => {}
            }
        }
        let inner = String::from_utf8_lossy(self.slice(inner_start, self.pos - 1)).into_owned();
        self.leave();
        Ok(param(inner))
    }

    /// Reads the word of `${X<op>word}` up to its `}` (consumed), or for the pattern of
    /// `${X/pattern/string}` up to an unquoted `/` (consumed; the flag says it was met).
    /// Blanks and operators are plain text here; quotes, escapes and `$` work as in a word.
    ///
    /// In `"${X:-word}"` ([`OpWord::Rhs`] inside double quotes) bash reads the word as
    /// double-quoted text: `'` is plain (though `'...'` still hides a `}` from the end of the
    /// expansion) and a backslash only escapes `$`, backquote, `"`, backslash and `}`. The
    /// patterns and the replacement string are read as unquoted text even there (bash:
    /// quotes inside them quote, `"${X#'*'}"` removes a literal `*`). Whether the result may
    /// be split and globbed is decided at expansion time from where the `${...}` stands.
    fn read_op_word(&mut self, line: usize, mode: OpWord) -> Result<(Word, bool), ParseError> {
        let outer_dq = self.in_dq;
        if mode != OpWord::Rhs {
            self.in_dq = false;
        }
        let result = self.read_op_word_inner(line, mode);
        self.in_dq = outer_dq;
        result
    }

    fn read_op_word_inner(
        &mut self,
        line: usize,
        mode: OpWord,
    ) -> Result<(Word, bool), ParseError> {
        let mut parts: Vec<WordPart> = Vec::new();
        let mut lit_start = self.pos;
        let start = self.pos;
        // Inside `'...'` of a double-quoted `${X:-...}`: `}` does not end the word.
        let mut in_sq = false;
        macro_rules! flush {
            () => {
                if lit_start < self.pos {
                    push_lit(&mut parts, self.slice(lit_start, self.pos));
                }
            };
        }
        let mut slash = false;
        loop {
            let Some(b) = self.peek() else {
                return Err(self.eof_matching("}", line));
            };
            match b {
                // Plain braces do not nest here: `${X:-a{b}c}` is `a{b` then `c}` (bash).
                b'}' if !in_sq => {
                    flush!();
                    self.pos += 1;
                    break;
                }
                // `${X//pat/rep}`: a `/` right at the start is part of the pattern (bash).
                b'/' if matches!(mode, OpWord::SubstPattern { all } if !(all && self.pos == start)) =>
                {
                    flush!();
                    self.pos += 1;
                    slash = true;
                    break;
                }
                b'\'' if self.in_dq => {
                    in_sq = !in_sq;
                    self.pos += 1;
                }
                b'"' if in_sq => self.pos += 1,
                b'\\' if self.in_dq => {
                    flush!();
                    self.pos += 1;
                    match self.peek() {
                        Some(b'\n') => {
                            self.bump();
                        }
                        Some(c @ (b'$' | b'`' | b'"' | b'\\' | b'}')) => {
                            self.pos += 1;
                            push_quoted(&mut parts, &[c]);
                        }
                        _ => push_lit(&mut parts, b"\\"),
                    }
                    lit_start = self.pos;
                }
                b'\\' | b'\'' | b'"' | b'$' | b'`' => {
                    flush!();
                    self.read_special(b, &mut parts)?;
                    lit_start = self.pos;
                }
                _ => {
                    self.bump();
                }
            }
        }
        Ok((Word::new(parts), slash))
    }

    /// Reads `$'...'` after the opening quote and decodes its escapes as bash does.
    #[allow(clippy::many_single_char_names)] // b, c, d, v, n: bytes and digit values
    fn read_ansi_c(&mut self, line: usize) -> Result<Vec<u8>, ParseError> {
        let mut out = Vec::new();
        // After `\0` (a NUL) bash drops the rest of the string.
        let mut truncated = false;
        loop {
            let Some(b) = self.bump() else {
                return Err(self.eof_matching("'", line));
            };
            match b {
                b'\'' => break,
                b'\\' => {
                    let Some(c) = self.bump() else {
                        return Err(self.eof_matching("'", line));
                    };
                    let mut push = |bytes: &[u8]| {
                        if !truncated {
                            out.extend_from_slice(bytes);
                        }
                    };
                    match c {
                        b'a' => push(b"\x07"),
                        b'b' => push(b"\x08"),
                        b'e' | b'E' => push(b"\x1b"),
                        b'f' => push(b"\x0c"),
                        b'n' => push(b"\n"),
                        b'r' => push(b"\r"),
                        b't' => push(b"\t"),
                        b'v' => push(b"\x0b"),
                        b'\\' | b'\'' | b'"' | b'?' => push(&[c]),
                        b'0'..=b'7' => {
                            let mut v = u32::from(c - b'0');
                            for _ in 0..2 {
                                match self.peek() {
                                    Some(d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            let byte = (v & 0xff) as u8;
                            if byte == 0 {
                                truncated = true;
                            } else {
                                push(&[byte]);
                            }
                        }
                        b'x' | b'u' | b'U' => {
                            let max = match c {
                                b'x' => 2,
                                b'u' => 4,
                                _ => 8,
                            };
                            let mut v: u32 = 0;
                            let mut n = 0;
                            while n < max {
                                match self.peek().and_then(|d| char::from(d).to_digit(16)) {
                                    Some(d) => {
                                        v = v.wrapping_mul(16).wrapping_add(d);
                                        self.pos += 1;
                                        n += 1;
                                    }
                                    None => break,
                                }
                            }
                            if n == 0 {
                                push(&[b'\\', c]);
                            } else if c == b'x' {
                                if v == 0 {
                                    truncated = true;
                                } else {
                                    push(&[(v & 0xff) as u8]);
                                }
                            } else if v == 0 {
                                truncated = true;
                            } else if v < 0x80 {
                                push(&[v as u8]);
                            } else if c == b'u' {
                                // The shell runs in the C locale, where bash cannot encode a
                                // non-ASCII character and keeps the escape, in upper case.
                                push(format!("\\u{v:04X}").as_bytes());
                            } else {
                                push(format!("\\U{v:08X}").as_bytes());
                            }
                        }
                        b'c' => match self.bump() {
                            Some(d) => {
                                let v = d.to_ascii_uppercase() ^ 0x40;
                                if v == 0 {
                                    truncated = true;
                                } else {
                                    push(&[v]);
                                }
                            }
                            None => return Err(self.eof_matching("'", line)),
                        },
                        _ => push(&[b'\\', c]),
                    }
                }
                _ => {
                    if !truncated {
                        out.push(b);
                    }
                }
            }
        }
        Ok(out)
    }

    /// After a newline token: reads the bodies of the here-documents started on that line.
    fn read_heredoc_bodies(&mut self) -> Result<(), ParseError> {
        let pending = std::mem::take(&mut self.pending);
        let text = self.text.clone();
        let src = text.bytes();
        for doc in pending {
            let body_line = self.line;
            let mut body: Vec<u8> = Vec::new();
            let mut closed = false;
            while self.pos < src.len() {
                let rest = src.get(self.pos..).unwrap_or_default();
                let (content, has_nl) = match rest.iter().position(|&c| c == b'\n') {
                    Some(i) => (rest.get(..i).unwrap_or_default(), true),
                    None => (rest, false),
                };
                self.pos += content.len() + usize::from(has_nl);
                let content = if doc.strip_tabs {
                    let tabs = content.iter().take_while(|&&c| c == b'\t').count();
                    content.get(tabs..).unwrap_or_default()
                } else {
                    content
                };
                if content == doc.delim.as_slice() {
                    if has_nl {
                        self.line += 1;
                    }
                    closed = true;
                    break;
                }
                body.extend_from_slice(content);
                body.push(b'\n');
                if has_nl {
                    self.line += 1;
                }
            }
            if !closed {
                // Bash names the last line it read.
                let last = if src.last() == Some(&b'\n') {
                    self.line.saturating_sub(1).max(doc.line)
                } else {
                    self.line
                };
                let message = format!(
                    "warning: here-document at line {} delimited by end-of-file (wanted `{}')",
                    doc.line,
                    String::from_utf8_lossy(&doc.delim)
                );
                if !self.at_eof {
                    return Err(ParseError::Incomplete { message });
                }
                self.warnings.push(Warning {
                    line: last,
                    message,
                });
            }
            let mut word = if doc.expand {
                let mut sub = Lexer::new(&body, body_line, true);
                sub.opts = self.opts;
                sub.depth = self.depth;
                let parts = sub.read_dq(Quoting::HereDoc, body_line)?;
                Word::new(parts)
            } else {
                Word::new(vec![WordPart::Quoted(body.clone())])
            };
            word.text = SourceText::new(&body);
            self.bodies.push(word);
        }
        Ok(())
    }

    /// Reads the list of `$(...)` or `<(...)` after the opening parenthesis, with a parser
    /// of its own over the same input, up to the closing `)`.
    fn read_subst(&mut self, line: usize) -> Result<super::ast::Script, ParseError> {
        self.enter()?;
        let open = self.pos.saturating_sub(2);
        let sub = self.nested();
        let (script, sub) = super::parser::parse_subst(sub, line)?;
        self.pos = sub.pos;
        self.line = sub.line;
        if sub.alias_count > self.alias_count {
            // Aliases were pasted in inside: the text went on from there.
            self.alias_count = sub.alias_count;
            self.text = sub.text;
            self.alias_uses = sub.alias_uses;
        }
        self.warnings.extend(sub.warnings);
        self.leave();
        let printed = super::print::subst_text(self.slice(open, open + 2), &script);
        self.substs.push((open, self.pos, printed));
        Ok(script)
    }

    /// Reads `` `...` `` after the opening backquote: the text up to the closing one, with
    /// `\$`, `` \` `` and `\\` (and `\"` inside double quotes) unescaped, parsed as a list.
    fn read_backquote(
        &mut self,
        line: usize,
        in_dq: bool,
    ) -> Result<super::ast::Script, ParseError> {
        self.enter()?;
        self.pos += 1;
        let mut text = Vec::new();
        loop {
            match self.bump() {
                None => return Err(self.eof_matching("`", line)),
                Some(b'`') => break,
                Some(b'\\') => match self.peek() {
                    Some(c @ (b'$' | b'`' | b'\\')) => {
                        self.pos += 1;
                        text.push(c);
                    }
                    Some(b'"') if in_dq => {
                        self.pos += 1;
                        text.push(b'"');
                    }
                    _ => text.push(b'\\'),
                },
                Some(c) => text.push(c),
            }
        }
        let mut sub = Lexer::new(&text, line, true);
        sub.opts = self.opts;
        sub.depth = self.depth;
        let parsed = super::parser::parse_with(sub)?;
        self.warnings.extend(parsed.warnings);
        self.leave();
        Ok(parsed.script)
    }

    /// Reads arithmetic text (after `$((`, `((` or `$[`) up to its end, as a word whose
    /// parts are expanded as in double quotes: parameters, command substitutions, `"`
    /// removed, `\` escaping `$`, backquote, `"` and `\`. Parentheses must balance. `None`:
    /// a `)` at depth 0 not followed by another (then it was not arithmetic). For
    /// [`ArithEnd::ForPart`], a `;` at depth 0 also ends the part (the `;` is consumed).
    pub(super) fn read_arith(&mut self, end: ArithEnd) -> Result<Option<Word>, ParseError> {
        self.enter()?;
        let line = self.line;
        let mut parts: Vec<WordPart> = Vec::new();
        let mut text: Vec<u8> = Vec::new();
        let mut depth = 0usize;
        let substr = matches!(end, ArithEnd::SubstrOffset | ArithEnd::SubstrLength);
        // `?` seen at depth 0 in a substring offset, each owed a `:`.
        let mut pending_colons = 0usize;
        let flush = |parts: &mut Vec<WordPart>, text: &mut Vec<u8>| {
            if !text.is_empty() {
                parts.push(WordPart::Literal(std::mem::take(text)));
            }
        };
        loop {
            let Some(b) = self.peek() else {
                let what = match end {
                    ArithEnd::Bracket => "]",
                    ArithEnd::SubstrOffset | ArithEnd::SubstrLength => "}",
                    _ => ")",
                };
                return Err(self.eof_matching(what, line));
            };
            match b {
                b'}' if substr => {
                    self.pos += 1;
                    break;
                }
                b'?' if end == ArithEnd::SubstrOffset && depth == 0 => {
                    pending_colons += 1;
                    self.pos += 1;
                    text.push(b);
                }
                b':' if end == ArithEnd::SubstrOffset && depth == 0 => {
                    self.pos += 1;
                    if pending_colons == 0 {
                        break;
                    }
                    pending_colons -= 1;
                    text.push(b);
                }
                b')' if substr && depth == 0 => {
                    self.pos += 1;
                    text.push(b);
                }
                b'(' => {
                    depth += 1;
                    self.pos += 1;
                    text.push(b);
                }
                b')' if depth > 0 => {
                    depth -= 1;
                    self.pos += 1;
                    text.push(b);
                }
                b')' if end != ArithEnd::Bracket => {
                    if self.peek_at(1) != Some(b')') {
                        self.leave();
                        return Ok(None);
                    }
                    self.pos += 2;
                    break;
                }
                b']' if end == ArithEnd::Bracket && depth == 0 => {
                    self.pos += 1;
                    break;
                }
                b';' if end == ArithEnd::ForPart && depth == 0 => {
                    self.pos += 1;
                    flush(&mut parts, &mut text);
                    self.leave();
                    return Ok(Some(Word::new(parts)));
                }
                b'\\' => {
                    self.pos += 1;
                    match self.peek() {
                        Some(b'\n') => {
                            self.bump();
                        }
                        Some(c @ (b'$' | b'`' | b'"' | b'\\')) => {
                            self.pos += 1;
                            text.push(c);
                        }
                        _ => text.push(b'\\'),
                    }
                }
                b'"' => {
                    self.pos += 1;
                    flush(&mut parts, &mut text);
                    let inner = self.read_dq(Quoting::Dq, self.line)?;
                    parts.push(WordPart::DoubleQuoted(inner));
                }
                b'`' => {
                    flush(&mut parts, &mut text);
                    let l = self.line;
                    let script = self.read_backquote(l, false)?;
                    parts.push(WordPart::CommandSubst(std::sync::Arc::new(script)));
                }
                b'$' => match self.read_dollar()? {
                    Some(p) => {
                        flush(&mut parts, &mut text);
                        parts.push(p);
                    }
                    None => text.push(b'$'),
                },
                _ => {
                    self.bump();
                    text.push(b);
                }
            }
        }
        flush(&mut parts, &mut text);
        self.leave();
        Ok(Some(Word::new(parts)))
    }

    /// Reads the right side of `=~` in `[[ ]]`: a word in which `(`, `)` and `|` are plain
    /// text (balanced parentheses may hold blanks), up to a blank or `]]` at depth 0.
    pub(super) fn read_regex_word(&mut self) -> Result<Option<Word>, ParseError> {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
        let mut parts: Vec<WordPart> = Vec::new();
        let mut lit_start = self.pos;
        let mut depth = 0usize;
        let start = self.pos;
        macro_rules! flush {
            () => {
                if lit_start < self.pos {
                    push_lit(&mut parts, self.slice(lit_start, self.pos));
                }
            };
        }
        while let Some(b) = self.peek() {
            match b {
                b'(' => {
                    depth += 1;
                    self.pos += 1;
                }
                b')' if depth > 0 => {
                    depth -= 1;
                    self.pos += 1;
                }
                b' ' | b'\t' if depth > 0 => self.pos += 1,
                b'|' => self.pos += 1,
                b'\\' | b'\'' | b'"' | b'$' | b'`' => {
                    flush!();
                    self.read_special(b, &mut parts)?;
                    lit_start = self.pos;
                }
                _ if is_meta(b) => break,
                _ => self.pos += 1,
            }
        }
        flush!();
        Ok((self.pos > start).then_some(Word::new(parts)))
    }

    /// Reads an array subscript after its `[`, up to the matching `]`: text with parameter
    /// expansions, command substitutions and quotes, as in double quotes.
    fn read_subscript(&mut self, line: usize) -> Result<Word, ParseError> {
        self.enter()?;
        let mut parts: Vec<WordPart> = Vec::new();
        let mut text: Vec<u8> = Vec::new();
        let mut depth = 0usize;
        loop {
            let Some(b) = self.peek() else {
                return Err(self.eof_matching("}", line));
            };
            match b {
                b'[' => {
                    depth += 1;
                    self.pos += 1;
                    text.push(b);
                }
                b']' if depth > 0 => {
                    depth -= 1;
                    self.pos += 1;
                    text.push(b);
                }
                b']' => {
                    self.pos += 1;
                    break;
                }
                b'\\' | b'\'' | b'"' | b'$' | b'`' => {
                    if !text.is_empty() {
                        parts.push(WordPart::Literal(std::mem::take(&mut text)));
                    }
                    self.read_special(b, &mut parts)?;
                }
                _ => {
                    self.bump();
                    text.push(b);
                }
            }
        }
        if !text.is_empty() {
            parts.push(WordPart::Literal(text));
        }
        self.leave();
        Ok(Word::new(parts))
    }

    /// Whether the input at the current position starts with `bytes`.
    pub(super) fn looking_at(&self, bytes: &[u8]) -> bool {
        self.rest_from(self.pos).starts_with(bytes)
    }

    /// Skips blanks (not newlines) at the current position.
    pub(super) fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    /// At end of input with here-documents pending (no newline after their operator).
    fn finish_pending_at_eof(&mut self) -> Result<(), ParseError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        // Reading bodies at end of input closes each one with a warning (or asks for more).
        self.read_heredoc_bodies()
    }
}

fn param(name: String) -> WordPart {
    WordPart::Param(ParamExp {
        name,
        index: None,
        length: false,
        indirect: false,
        op: None,
    })
}

fn param_op(c: u8, colon: bool) -> ParamOp {
    match c {
        b'-' => ParamOp::Default { colon },
        b'=' => ParamOp::Assign { colon },
        b'+' => ParamOp::Alternative { colon },
        _ => ParamOp::Error { colon },
    }
}

/// The delimiter of `<<word`: the word with quotes removed (bash does not expand it).
pub(super) fn delimiter_text(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut it = raw.iter().copied();
    let mut quote: Option<u8> = None;
    while let Some(b) = it.next() {
        match (quote, b) {
            (None, b'\'' | b'"') => quote = Some(b),
            (Some(q), _) if q == b => quote = None,
            (None | Some(b'"'), b'\\') => {
                if let Some(c) = it.next() {
                    if quote.is_some() && !matches!(c, b'$' | b'`' | b'"' | b'\\' | b'\n') {
                        out.push(b'\\');
                    }
                    out.push(c);
                }
            }
            _ => out.push(b),
        }
    }
    out
}
