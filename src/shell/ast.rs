//! The syntax tree of one input: what the parser builds and the executor walks.
//!
//! Only the subset of bash that trumansh runs is represented: lists, and-or chains, pipelines,
//! simple commands with assignments and redirections. Constructs it does not run (loops,
//! functions, `$(...)`, subshells, `&`) are refused by the parser with
//! [`super::ParseError::Unsupported`].

/// A whole input: and-or lists separated by `;` or newlines, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    pub items: Vec<AndOr>,
}

/// `p1 && p2 || p3`: a first pipeline and the ones chained after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AndOr {
    pub first: Pipeline,
    pub rest: Vec<(AndOrOp, Pipeline)>,
    /// The 1-based input line the list starts on (for `bash: line N: ...`).
    pub line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AndOrOp {
    And,
    Or,
}

/// `! a | b | c`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline {
    pub negated: bool,
    pub commands: Vec<SimpleCommand>,
}

/// `X=1 Y=2 cmd arg >out 2>&1`: assignments, words and redirections in source order within
/// each kind.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    pub assignments: Vec<Assignment>,
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
}

/// `NAME=value` before the command name (or alone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    pub name: String,
    pub value: Word,
}

/// One shell word as written: the concatenation of its parts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word {
    pub parts: Vec<WordPart>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WordPart {
    /// Unquoted text: subject to brace, tilde and glob expansion. Backslash escapes have been
    /// removed and the escaped bytes are given as `Quoted` parts instead.
    Literal(Vec<u8>),
    /// Text that expands to itself: `'...'`, `$'...'` (already decoded), a `\x` escape, or the
    /// literal text inside `"..."`.
    Quoted(Vec<u8>),
    /// `"..."`: its parts are `Quoted` text and parameter expansions; never split or globbed.
    DoubleQuoted(Vec<WordPart>),
    /// `$NAME`, `${NAME}`, `${NAME:-word}`, `$?`, ...
    Param(ParamExp),
}

/// A parameter expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamExp {
    /// The variable name, or a special parameter: `?`, `$`, `#`, `0`..`9`, `@`, `*`, `!`, `-`.
    pub name: String,
    /// `${#NAME}`: the length of the value.
    pub length: bool,
    /// An operator and its word: `${NAME:-word}` and friends.
    pub op: Option<(ParamOp, Word)>,
}

/// The operators of `${NAME<op>word}`. `colon` means the `:` form (null counts as unset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamOp {
    /// `:-` / `-`
    Default { colon: bool },
    /// `:=` / `=`
    Assign { colon: bool },
    /// `:+` / `+`
    Alternative { colon: bool },
    /// `:?` / `?`
    Error { colon: bool },
}

/// A redirection: `[fd]op target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The explicit fd before the operator (`2>`), if any.
    pub fd: Option<u32>,
    pub kind: RedirKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedirKind {
    /// `>` (and `>|`): truncate.
    Out(Word),
    /// `>>`
    Append(Word),
    /// `<`
    In(Word),
    /// `&>` (or `>&word` with a non-number word): stdout and stderr to a file, truncating.
    OutErr(Word),
    /// `&>>`
    AppendOutErr(Word),
    /// `N>&M`, `>&2`: duplicate an output fd.
    DupOut(u32),
    /// `N<&M`: duplicate an input fd.
    DupIn(u32),
    /// `N>&-`, `N<&-`: close.
    Close,
    /// `<<EOF`, `<<-EOF`, `<<'EOF'`: the body, already collected (with leading tabs stripped
    /// for `<<-`). `expand`: the delimiter was unquoted, so `$X` and `\$` are expanded in the
    /// body (the parts are `Quoted` text and `Param`s, as in a double-quoted word).
    HereDoc { body: Word, expand: bool },
    /// `<<< word`: the expanded word plus a newline.
    HereString(Word),
}
