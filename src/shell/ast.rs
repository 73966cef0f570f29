//! The syntax tree of one input: what the parser builds and the interpreter walks.
//!
//! bash's grammar: lists of and-or chains of pipelines of commands; a command is simple,
//! compound (`{ }`, `( )`, `if`, `for`, `while`/`until`, `case`, `(( ))`, `[[ ]]`) with its
//! own redirections, or a function definition. Words keep their quoting as [`WordPart`]s;
//! command substitutions are parsed when the word is (as bash 5.2 does), so a syntax error
//! inside `$(...)` is reported before anything runs and a loop never parses twice.

use std::sync::Arc;

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
    /// Ended by `&`: run in the background.
    pub background: bool,
    /// Ended by a newline rather than `;` (a `$(...)` prints it back as a newline).
    pub newline: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AndOrOp {
    And,
    Or,
}

/// `! a | b | c`, `time [-p] a | b`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pipeline {
    pub negated: bool,
    pub commands: Vec<Command>,
    /// `time`: the pipeline's times are reported after it (`Some(true)`: `time -p`, POSIX's
    /// format).
    pub time: Option<bool>,
}

/// One element of a pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Simple(SimpleCommand),
    /// A compound command and the redirections written after it (`done < f`, `} > out`).
    Compound(Box<Compound>, Vec<Redirect>),
    /// `name() compound`, `function name { ...; }`.
    Function(Arc<FunctionDef>),
}

/// A function definition: its body runs, with its redirections, each time it is called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionDef {
    pub name: String,
    pub body: Compound,
    pub redirects: Vec<Redirect>,
    /// The line the definition starts on.
    pub line: usize,
}

/// The compound commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compound {
    /// `{ list; }`
    Brace(Script),
    /// `( list )`: runs on a copy of the shell's state.
    Subshell(Script),
    /// `if c1; then b1; elif c2; then b2; else b3; fi`
    If {
        branches: Vec<(Script, Script)>,
        otherwise: Option<Script>,
    },
    /// `for NAME [in WORDS]; do body; done` (no `in`: the positional parameters).
    For {
        var: String,
        words: Option<Vec<Word>>,
        body: Script,
        line: usize,
    },
    /// `for ((init; cond; step)); do body; done`: each part as text to expand.
    ArithFor {
        init: Word,
        cond: Word,
        step: Word,
        body: Script,
        line: usize,
    },
    /// `while cond; do body; done` (`until`: the condition negated).
    While {
        until: bool,
        cond: Script,
        body: Script,
    },
    /// `case WORD in pattern|pattern) list ;; ... esac`
    Case {
        word: Word,
        arms: Vec<CaseArm>,
        line: usize,
    },
    /// `(( expression ))`: the text to expand, then evaluate.
    Arith { expr: Word, line: usize },
    /// `[[ expression ]]`
    Cond { expr: CondExpr, line: usize },
}

/// One `pattern) list ;;` of a `case`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseArm {
    pub patterns: Vec<Word>,
    pub body: Script,
    pub end: CaseEnd,
}

/// How a `case` arm ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseEnd {
    /// `;;`: the `case` is done.
    Break,
    /// `;&`: run the next arm's list too.
    FallThrough,
    /// `;;&`: test the next arms' patterns.
    Continue,
}

/// The expression of `[[ ]]`: operands are words that are expanded but never split or
/// globbed; the right side of `==`/`!=` is a pattern, of `=~` a regular expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CondExpr {
    /// A lone word: true when it is not empty.
    Word(Word),
    /// `-f word`, `-z word`, ...
    Unary(String, Word),
    /// `a == b`, `a -lt b`, `a =~ re`, `a < b`, ...
    Binary(Word, String, Word),
    Not(Box<CondExpr>),
    /// `( expression )`.
    Group(Box<CondExpr>),
    And(Box<CondExpr>, Box<CondExpr>),
    Or(Box<CondExpr>, Box<CondExpr>),
}

/// `X=1 Y=2 cmd arg >out 2>&1`: assignments, words and redirections in source order within
/// each kind.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    pub assignments: Vec<Assignment>,
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    /// The arguments of a declaration builtin (`local`, `declare`, `export`, ...) that are
    /// assignments, by their index in `words`: expanded as assignments, not split.
    pub decl_args: Vec<(usize, Assignment)>,
    /// The 1-based line the command starts on (`$LINENO`, `bash: line N:`).
    pub line: usize,
}

/// `NAME=value`, `NAME+=value`, `NAME[sub]=value`, `NAME=(a b c)` before the command name
/// (or alone, or as an argument of `declare`/`local`/`export`/`readonly`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    pub name: String,
    /// `NAME[sub]=`: the subscript as written (expanded when assigned).
    pub index: Option<Word>,
    /// `+=`: append to the value (or the array).
    pub append: bool,
    pub value: AssignValue,
    /// The assignment as bash prints it back: the word as written, `NAME=(a b)` with its
    /// elements joined by single blanks.
    pub text: SourceText,
}

/// The value of an assignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssignValue {
    Scalar(Word),
    /// `(a b [3]=c)`: the words of a compound assignment, each maybe `[sub]=value`.
    Array(Vec<Word>),
}

/// One shell word as written: the concatenation of its parts.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Word {
    pub parts: Vec<WordPart>,
    /// The word as bash keeps it to print it back (`declare -f`): the source text, with
    /// each `$(...)` re-printed from its parse. Not part of the word's meaning.
    pub text: SourceText,
}

impl Word {
    /// A word of these parts, with no source text.
    pub fn new(parts: Vec<WordPart>) -> Self {
        Word {
            parts,
            text: SourceText::default(),
        }
    }
}

#[allow(clippy::missing_fields_in_debug)]
impl std::fmt::Debug for Word {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The text is left out: it only says how the word was spelled.
        f.debug_struct("Word").field("parts", &self.parts).finish()
    }
}

/// Text kept to print a construct back as bash does. It never takes part in comparisons:
/// two words that mean the same are equal whatever their spelling.
#[derive(Clone, Default)]
pub struct SourceText(pub Option<Arc<[u8]>>);

impl SourceText {
    pub fn new(bytes: &[u8]) -> Self {
        SourceText(Some(Arc::from(bytes)))
    }

    /// The text, empty when none was kept.
    pub fn bytes(&self) -> &[u8] {
        self.0.as_deref().unwrap_or_default()
    }
}

impl PartialEq for SourceText {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for SourceText {}

impl std::fmt::Debug for SourceText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(self.bytes()))
    }
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
    /// `$(list)` or `` `list` ``: parsed with the word.
    CommandSubst(Arc<Script>),
    /// `$((expression))`: the text, expanded as in double quotes, then evaluated.
    Arith(Word),
    /// `<(list)` (`out`: `>(list)`): a path to the list's output (or input).
    ProcessSubst { script: Arc<Script>, out: bool },
}

/// A parameter expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamExp {
    /// The variable name, or a special parameter: `?`, `$`, `#`, `0`..`9`, `@`, `*`, `!`, `-`.
    pub name: String,
    /// `${NAME[sub]}`: the subscript as written (`@` and `*` for all elements).
    pub index: Option<Word>,
    /// `${#NAME}`: the length of the value.
    pub length: bool,
    /// `${!NAME}`: indirection (the value names the parameter to expand); with `index`
    /// `@`/`*`, the array's keys; `${!prefix*}`/`${!prefix@}` is [`ParamOp::Names`].
    pub indirect: bool,
    /// An operator and its word: `${NAME:-word}` and friends.
    pub op: Option<(ParamOp, Word)>,
}

/// The operators of `${NAME<op>word}`. `colon` means the `:` form (null counts as unset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamOp {
    /// `:-` / `-`
    Default { colon: bool },
    /// `:=` / `=`
    Assign { colon: bool },
    /// `:+` / `+`
    Alternative { colon: bool },
    /// `:?` / `?`
    Error { colon: bool },
    /// `#` / `##`: remove the shortest / longest matching prefix.
    RemovePrefix { longest: bool },
    /// `%` / `%%`: remove the shortest / longest matching suffix.
    RemoveSuffix { longest: bool },
    /// `/pat/rep`, `//pat/rep` (all), `/#pat/rep` (anchored at the start), `/%pat/rep` (end);
    /// the word is the pattern; the replacement is in [`ParamExp`]'s `op` second word,
    /// stored as `Replace.rep`.
    Replace {
        all: bool,
        anchor: Anchor,
        rep: Option<Word>,
    },
    /// `:offset` / `:offset:length`: the words are arithmetic text.
    Substring { length: Option<Word> },
    /// `^`, `^^`, `,`, `,,` (the word is the pattern); `toggle`: `~`, `~~` (bash's case
    /// toggling, `upper` unused).
    Case {
        upper: bool,
        all: bool,
        toggle: bool,
    },
    /// `@Q`, `@E`, `@P`, `@A`, `@a`, `@U`, `@u`, `@L`, `@K`, `@k`.
    Transform(u8),
    /// `${!prefix*}` / `${!prefix@}`: the names of the variables starting with the name.
    Names { at: bool },
}

/// Where `${X/pat/rep}` anchors its pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    None,
    Start,
    End,
}

/// A redirection: `[fd]op target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The explicit fd before the operator (`2>`), if any.
    pub fd: Option<u32>,
    pub kind: RedirKind,
    /// `>&word` written for [`RedirKind::OutErr`] (bash prints it back that way, not as
    /// `&>`).
    pub dup_word: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedirKind {
    /// `>`: truncate (refused on an existing file under `set -C`).
    Out(Word),
    /// `>|`: truncate, even under `set -C`.
    Clobber(Word),
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
    /// `N<>word`: open for reading and writing.
    ReadWrite(Word),
    /// `N>&-`, `N<&-`: close.
    Close,
    /// `<<EOF`, `<<-EOF`, `<<'EOF'`: the body, already collected (with leading tabs stripped
    /// for `<<-`, which `strip_tabs` tells). `expand`: the delimiter was unquoted, so `$X` and `\$` are expanded in the
    /// body (the parts are `Quoted` text and `Param`s, as in a double-quoted word).
    HereDoc {
        body: Word,
        expand: bool,
        /// The delimiter, quotes removed.
        delim: Vec<u8>,
        strip_tabs: bool,
    },
    /// `<<< word`: the expanded word plus a newline.
    HereString(Word),
}
