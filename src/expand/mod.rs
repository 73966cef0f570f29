//! Word expansion, in bash's order: brace expansion, tilde expansion, parameter expansion,
//! word splitting, pathname expansion, quote removal.
//!
//! After braces, a word becomes a string of [`Ch`]: each byte carries whether it was quoted
//! (never split, never a glob character) and whether it came out of an unquoted expansion
//! (only those bytes are split on `IFS`). A zero-width mark records that quotes were present,
//! so `""` and `"$EMPTY"` give one empty field while an unquoted empty `$EMPTY` gives none.
#![deny(clippy::indexing_slicing)]

use std::ffi::OsString;
use std::path::Path;

use trumansh_commands::{FsView, Vars};

use crate::shell::ast::{ParamOp, Script, Word, WordPart};
use crate::shell::{is_name_char, is_name_start};
use brace::{BraceError, Unit};
use glob::PatByte;

pub mod arith;
mod brace;
pub(crate) mod glob;
mod param_ops;
pub(crate) mod pattern;
#[cfg(test)]
mod tests;

/// The shell expansion runs in: its parameters, and the interpreter for what expansion
/// runs (`$(...)`, `$((...))`) and assigns (`${X:=v}`).
pub trait Host {
    /// A parameter's value (`None`: unset): a variable, `$1`.., `$#`, `$?`, `$$`, `$0`, ...
    fn param(&self, name: &str) -> Option<String>;
    /// Whether the line must stop now (its deadline passed, it was cancelled): expansion
    /// stops with an error that prints nothing (the caller reports the deadline).
    fn expired(&self) -> bool {
        false
    }
    /// The positional parameters, for `$@` and `$*`.
    fn positional(&self) -> Vec<String>;
    /// Assigns a variable (`${X:=v}`); `Err`: bash's message (`X: readonly variable`).
    fn assign(&mut self, name: &str, value: String) -> Result<(), String>;
    /// Runs a command substitution and gives its output (trailing newlines still there).
    fn command_subst(&mut self, script: &Script) -> Result<Vec<u8>, ExpandError>;
    /// Evaluates arithmetic text (already expanded).
    fn arith(&mut self, text: &str) -> Result<i64, ExpandError>;
    /// `set -u`: expanding an unset parameter is an error.
    fn nounset(&self) -> bool {
        false
    }
    /// `<(list)`: runs the list and gives the path its output can be read at (`/dev/fd/63`).
    fn process_subst(&mut self, script: &Script, out: bool) -> Result<String, ExpandError> {
        let _ = script;
        let what = if out { ">(...)" } else { "<(...)" };
        Err(ExpandError::plain(format!(
            "{what}: process substitution is not available here"
        )))
    }
    /// All the elements of an array (a scalar is an array of one; unset: none).
    fn elements(&mut self, name: &str) -> Vec<String> {
        self.param(name).into_iter().collect()
    }
    /// The subscripts of an array in order (`${!a[@]}`).
    fn keys(&mut self, name: &str) -> Vec<String> {
        self.param(name)
            .map(|_| "0".to_string())
            .into_iter()
            .collect()
    }
    /// One element (`${a[sub]}`; the subscript expanded, not yet evaluated).
    fn element(&mut self, name: &str, sub: &str) -> Result<Option<String>, ExpandError> {
        Ok(if sub.trim() == "0" {
            self.param(name)
        } else {
            None
        })
    }
    /// The names of the set variables that start with `prefix`, in C-locale order
    /// (`${!prefix*}`).
    fn names_with_prefix(&self, prefix: &str) -> Vec<String> {
        let _ = prefix;
        Vec::new()
    }
    /// A variable's attributes as `${X@a}` shows them (`x`: exported), also for a variable
    /// declared without a value; empty for none.
    fn attributes(&self, name: &str) -> String {
        let _ = name;
        String::new()
    }
}

/// A host of plain variables: no positional parameters; command substitution is not
/// available (used where no interpreter runs, and in tests).
pub struct VarsHost<'a> {
    pub vars: &'a mut Vars,
    /// `$?`
    pub last_status: i32,
}

impl Host for VarsHost<'_> {
    fn param(&self, name: &str) -> Option<String> {
        match name {
            "?" => Some(self.last_status.to_string()),
            "$" => Some(self.vars.get("$").unwrap_or("4242").to_string()),
            "#" => Some("0".into()),
            "0" => Some("bash".into()),
            "-" => Some("hB".into()),
            "@" | "*" | "!" => None,
            n if n.bytes().all(|b| b.is_ascii_digit()) => None,
            n => self.vars.get(n).map(str::to_string),
        }
    }
    fn positional(&self) -> Vec<String> {
        Vec::new()
    }
    fn assign(&mut self, name: &str, value: String) -> Result<(), String> {
        self.vars.set(name, value, false);
        Ok(())
    }
    fn command_subst(&mut self, _: &Script) -> Result<Vec<u8>, ExpandError> {
        Err(ExpandError::plain(
            "command substitution: not available here".into(),
        ))
    }
    fn arith(&mut self, text: &str) -> Result<i64, ExpandError> {
        arith::eval(text, &mut VarsArith(self.vars)).map_err(|e| ExpandError::fatal(e.message))
    }
    fn names_with_prefix(&self, prefix: &str) -> Vec<String> {
        self.vars
            .iter()
            .filter(|(name, var)| name.starts_with(prefix) && var.value.is_some())
            .map(|(name, _)| name.to_string())
            .collect()
    }
    fn attributes(&self, name: &str) -> String {
        match self.vars.var(name) {
            Some(v) if v.exported => "x".into(),
            _ => String::new(),
        }
    }
}

/// Arithmetic on plain variables (for [`VarsHost`]).
struct VarsArith<'v>(&'v mut Vars);

impl arith::ArithEnv for VarsArith<'_> {
    fn get(&mut self, name: &str, sub: arith::Subscript<'_>) -> Option<String> {
        match sub {
            arith::Subscript::None | arith::Subscript::Index(0) => {
                self.0.get(name).map(str::to_string)
            }
            _ => None,
        }
    }
    fn set(&mut self, name: &str, _: arith::Subscript<'_>, value: i64) -> Result<(), String> {
        self.0.set(name, value.to_string(), false);
        Ok(())
    }
    fn is_assoc(&self, _: &str) -> bool {
        false
    }
}

/// What expansion may look at.
pub struct ExpandCtx<'a> {
    pub host: &'a mut dyn Host,
    /// The logical cwd, for relative globs.
    pub cwd: &'a Path,
    /// Directory listings for globs.
    pub fs: &'a dyn FsView,
    /// Cap on the fields one brace expansion may produce.
    pub max_brace: usize,
    /// Cap on the paths one glob may match.
    pub max_glob: usize,
    /// Caps on what one command's words expand to together (fields, bytes): brace and
    /// pathname expansion are checked as they go, before the words are built.
    pub max_words: usize,
    pub max_bytes: usize,
    /// `set -f`: no pathname expansion.
    pub noglob: bool,
    /// `shopt -s nullglob`, `failglob`, `dotglob`, `globstar`.
    pub nullglob: bool,
    pub failglob: bool,
    pub dotglob: bool,
    pub globstar: bool,
    /// `shopt -s extglob`: patterns (pathname expansion, `${X#pat}`...) take `?(...)`,
    /// `*(...)`, `+(...)`, `@(...)` and `!(...)`.
    pub extglob: bool,
    /// `shopt -u globskipdots`: `.` and `..` can be matched (by a pattern starting with `.`).
    pub globskipdots: bool,
}

/// Why expansion failed; `message` is bash's text without the shell prefix
/// (`X: parameter null or not set`, `${x!}: bad substitution`, `$X: ambiguous redirect`).
/// `status` is 1 for all of them, as in bash. Assignments made by `${X:=y}` before the
/// error are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpandError {
    pub message: String,
    pub status: i32,
    /// What the error ends.
    pub ends: Ends,
}

/// What an expansion error ends, as in a non-interactive bash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ends {
    /// The command only (`$X: ambiguous redirect`).
    Command,
    /// The rest of the command line (a bad substitution found as it is read, an arithmetic
    /// error, a readonly variable assigned); a subshell exits.
    Line,
    /// The shell (`${X?}`, `set -u`, a bad `${X@op}`).
    Shell,
}

impl ExpandError {
    /// An error that abandons the command line.
    pub fn fatal(message: String) -> Self {
        ExpandError {
            message,
            status: 1,
            ends: Ends::Line,
        }
    }
    /// An error that ends a non-interactive shell.
    pub fn exits(message: String) -> Self {
        ExpandError {
            message,
            status: 1,
            ends: Ends::Shell,
        }
    }
    pub fn plain(message: String) -> Self {
        ExpandError {
            message,
            status: 1,
            ends: Ends::Command,
        }
    }
}

/// Expands command words into fields: brace, tilde, parameter expansion, word splitting,
/// pathname expansion, quote removal. `${X:=y}` assigns through the host at once.
pub fn expand_words(words: &[Word], ctx: &mut ExpandCtx) -> Result<Vec<OsString>, ExpandError> {
    let mut out = Vec::with_capacity(words.len());
    let mut budget = Budget {
        words: ctx.max_words,
        bytes: ctx.max_bytes,
    };
    for word in words {
        if let Some(field) = plain_word(word) {
            budget.take(ctx, field.as_slice())?;
            out.extend(field.map(glob::bytes_to_os));
            continue;
        }
        for fields in expand_one(word, ctx, &mut budget)? {
            out.push(glob::bytes_to_os(fields));
        }
    }
    Ok(out)
}

/// What one command's words may still expand to.
struct Budget {
    words: usize,
    bytes: usize,
}

impl Budget {
    fn take(&mut self, ctx: &ExpandCtx, fields: &[Vec<u8>]) -> Result<(), ExpandError> {
        if ctx.host.expired() {
            return Err(ExpandError::fatal(String::new()));
        }
        let bytes = fields
            .iter()
            .map(|f| f.len().saturating_add(1))
            .fold(0usize, usize::saturating_add);
        if fields.len() > self.words {
            return Err(too_many_words(ctx.max_words));
        }
        if bytes > self.bytes {
            return Err(too_many_bytes(ctx.max_bytes));
        }
        self.words -= fields.len();
        self.bytes -= bytes;
        Ok(())
    }
}

fn too_many_words(max: usize) -> ExpandError {
    ExpandError::plain(format!(
        "expansion too large: more than {max} words for one command (limits.expansion_words)"
    ))
}

fn too_many_bytes(max: usize) -> ExpandError {
    ExpandError::plain(format!(
        "expansion too large: more than {} for one command's words (limits.expansion_bytes)",
        crate::io::human_bytes(max as u64)
    ))
}

/// Expands one word without splitting or globbing (assignment values, here-document bodies,
/// here-strings). Tilde expansion applies at the start and after each unquoted `:`, as in
/// assignment values; here-document bodies have no unquoted text, so it never applies there.
pub fn expand_word_nosplit(word: &Word, ctx: &mut ExpandCtx) -> Result<Vec<u8>, ExpandError> {
    let mut ex = Expander { ctx };
    let mut out: Vec<Ch> = Vec::new();
    let mut at_start = true;
    for part in &word.parts {
        match part {
            WordPart::Literal(bytes) => {
                let mut i = 0usize;
                while let Some(&b) = bytes.get(i) {
                    if b == b'~' && at_start {
                        let rest = bytes.get(i..).unwrap_or_default();
                        let end = rest
                            .iter()
                            .position(|&c| c == b'/' || c == b':')
                            .unwrap_or(rest.len());
                        // The prefix must not run into a quoted part.
                        let complete = end < rest.len() || ends_word(word, part);
                        if complete
                            && let Some(home) = ex.tilde(rest.get(1..end).unwrap_or_default())
                        {
                            push_bytes(&mut out, &home, Q);
                            i += end;
                            at_start = false;
                            continue;
                        }
                    }
                    at_start = b == b':';
                    out.push(Ch::new(b, 0));
                    i += 1;
                }
            }
            other => {
                at_start = false;
                ex.part(other, true, &mut out)?;
            }
        }
    }
    Ok(plain_bytes(&out))
}

/// The bytes of expanded text, the items of `$@` joined by blanks.
fn plain_bytes(chars: &[Ch]) -> Vec<u8> {
    chars
        .iter()
        .filter(|c| !c.is_mark() || c.f & BRK != 0)
        .map(|c| c.b)
        .collect()
}

/// Expands a word into a pattern (`case`, `[[ == ]]`): no splitting, no globbing; quoted
/// bytes match only themselves.
pub fn expand_pattern(word: &Word, ctx: &mut ExpandCtx) -> Result<Pattern, ExpandError> {
    let mut ex = Expander { ctx };
    let mut out: Vec<Ch> = Vec::new();
    for (k, part) in word.parts.iter().enumerate() {
        match part {
            WordPart::Literal(bytes) => {
                let mut v: &[u8] = bytes;
                if k == 0 && v.first() == Some(&b'~') {
                    let end = v.iter().position(|&c| c == b'/').unwrap_or(v.len());
                    if (end < v.len() || word.parts.len() == 1)
                        && let Some(home) = ex.tilde(v.get(1..end).unwrap_or_default())
                    {
                        push_bytes(&mut out, &home, Q);
                        v = v.get(end..).unwrap_or_default();
                    }
                }
                push_bytes(&mut out, v, 0);
            }
            // The values of unquoted expansions are pattern text (`case x in $P)`).
            other => ex.part(other, false, &mut out)?,
        }
    }
    Ok(Pattern(
        out.iter()
            .filter(|c| !c.is_mark() || c.f & BRK != 0)
            .map(|c| glob::PatByte {
                b: c.b,
                quoted: c.quoted() || c.f & BRK != 0,
            })
            .collect(),
    ))
}

/// A shell pattern: bytes and whether each was quoted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern(Vec<glob::PatByte>);

impl Pattern {
    /// Whether the whole of `text` matches (`extglob`: with the extended operators; `fold`:
    /// ignoring ASCII case, `nocasematch`).
    pub fn matches(&self, text: &[u8], extglob: bool, fold: bool) -> bool {
        pattern::Pattern::new(&self.0, pattern::Syntax { extglob, fold }).is_match(text)
    }
    /// The pattern's text as written after expansion (quoted bytes as they are).
    pub fn text(&self) -> Vec<u8> {
        self.0.iter().map(|p| p.b).collect()
    }
    /// As an extended regular expression (`[[ =~ ]]`): quoted bytes match themselves.
    pub fn regex_source(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.0.len());
        for p in &self.0 {
            if p.quoted && b"\\.[]()*+?{}|^$".contains(&p.b) {
                out.push(b'\\');
            }
            out.push(p.b);
        }
        out
    }
}

/// Whether a literal part is the word's last (so a tilde prefix running to its end is whole).
fn ends_word(word: &Word, part: &WordPart) -> bool {
    word.parts.last().is_some_and(|l| std::ptr::eq(l, part))
}

/// Expands a redirection target: like a command word, but it must give exactly one field
/// (bash: `$X: ambiguous redirect` otherwise).
pub fn expand_word(word: &Word, ctx: &mut ExpandCtx) -> Result<Vec<OsString>, ExpandError> {
    let fields = expand_words(std::slice::from_ref(word), ctx)?;
    if fields.len() != 1 {
        return Err(ExpandError::plain(format!(
            "{}: ambiguous redirect",
            String::from_utf8_lossy(&display_word(word))
        )));
    }
    Ok(fields)
}

/// The word written back as shell text, for messages (`$X: ambiguous redirect`) and `set -x`.
pub fn display_word(word: &Word) -> Vec<u8> {
    let mut out = Vec::new();
    for p in &word.parts {
        display_part(p, &mut out);
    }
    out
}

fn display_part(part: &WordPart, out: &mut Vec<u8>) {
    match part {
        WordPart::Literal(v) | WordPart::Quoted(v) => out.extend_from_slice(v),
        WordPart::DoubleQuoted(parts) => {
            out.push(b'"');
            for p in parts {
                display_part(p, out);
            }
            out.push(b'"');
        }
        WordPart::CommandSubst(_) => out.extend_from_slice(b"$(...)"),
        WordPart::Arith(_) => out.extend_from_slice(b"$((...))"),
        WordPart::ProcessSubst { out: to, .. } => {
            out.extend_from_slice(if *to { b">(...)" } else { b"<(...)" });
        }
        WordPart::Param(p) => {
            let simple = !p.length
                && !p.indirect
                && p.op.is_none()
                && (p.name.len() == 1 || p.name.bytes().all(is_name_char));
            if simple {
                out.push(b'$');
                out.extend_from_slice(p.name.as_bytes());
                return;
            }
            out.extend_from_slice(b"${");
            if p.length {
                out.push(b'#');
            }
            if p.indirect || matches!(p.op, Some((ParamOp::Names { .. }, _))) {
                out.push(b'!');
            }
            out.extend_from_slice(p.name.as_bytes());
            if let Some((op, w)) = &p.op {
                display_op(op, w, out);
            }
            out.push(b'}');
        }
    }
}

/// The operator of `${X<op>word}` and its words, as written.
fn display_op(op: &ParamOp, w: &Word, out: &mut Vec<u8>) {
    let word = display_word(w);
    let (head, tail): (&[u8], Option<&Word>) = match op {
        ParamOp::Default { colon } => (if *colon { b":-" } else { b"-" }, None),
        ParamOp::Assign { colon } => (if *colon { b":=" } else { b"=" }, None),
        ParamOp::Alternative { colon } => (if *colon { b":+" } else { b"+" }, None),
        ParamOp::Error { colon } => (if *colon { b":?" } else { b"?" }, None),
        ParamOp::RemovePrefix { longest } => (if *longest { b"##" } else { b"#" }, None),
        ParamOp::RemoveSuffix { longest } => (if *longest { b"%%" } else { b"%" }, None),
        ParamOp::Replace { all, anchor, rep } => {
            out.push(b'/');
            if *all {
                out.push(b'/');
            }
            match anchor {
                crate::shell::ast::Anchor::Start => out.push(b'#'),
                crate::shell::ast::Anchor::End => out.push(b'%'),
                crate::shell::ast::Anchor::None => {}
            }
            out.extend_from_slice(&word);
            if let Some(r) = rep {
                out.push(b'/');
                out.extend_from_slice(&display_word(r));
            }
            return;
        }
        ParamOp::Substring { length } => (b":", length.as_ref()),
        ParamOp::Case { upper, all, toggle } => match (upper, all, toggle) {
            (_, true, true) => (b"~~", None),
            (_, false, true) => (b"~", None),
            (true, true, false) => (b"^^", None),
            (true, false, false) => (b"^", None),
            (false, true, false) => (b",,", None),
            (false, false, false) => (b",", None),
        },
        ParamOp::Transform(c) => {
            out.push(b'@');
            if *c != 0 {
                out.push(*c);
            }
            (b"", None)
        }
        ParamOp::Names { at } => {
            out.push(if *at { b'@' } else { b'*' });
            return;
        }
    };
    out.extend_from_slice(head);
    out.extend_from_slice(&word);
    if let Some(t) = tail {
        out.push(b':');
        out.extend_from_slice(&display_word(t));
    }
}

/// Flag bits of a [`Ch`].
const Q: u8 = 1; // quoted: not split, not a glob character
const SPLIT: u8 = 2; // the result of an unquoted expansion: split on IFS
const MARK: u8 = 4; // zero-width: quotes were here, so the field exists even if empty
const BRK: u8 = 8; // with MARK: the field ends here (between the items of `$@`)

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ch {
    b: u8,
    f: u8,
}

impl Ch {
    fn new(b: u8, f: u8) -> Self {
        Ch { b, f }
    }
    fn mark() -> Self {
        Ch { b: 0, f: MARK }
    }
    /// The end of one item of `$@` (a blank where the items are joined).
    fn brk() -> Self {
        Ch {
            b: b' ',
            f: MARK | BRK,
        }
    }
    fn is_mark(self) -> bool {
        self.f & MARK != 0
    }
    fn quoted(self) -> bool {
        self.f & Q != 0
    }
}

fn push_bytes(out: &mut Vec<Ch>, bytes: &[u8], f: u8) {
    out.extend(bytes.iter().map(|&b| Ch::new(b, f)));
}

struct Expander<'c, 'a> {
    ctx: &'c mut ExpandCtx<'a>,
}

/// Expands one word that is not plain (see [`plain_word`]) into its fields (bytes).
fn expand_one(
    word: &Word,
    ctx: &mut ExpandCtx,
    budget: &mut Budget,
) -> Result<Vec<Vec<u8>>, ExpandError> {
    // Brace expansion on the word as written.
    let mut units: Vec<Unit<&WordPart>> = Vec::new();
    for part in &word.parts {
        match part {
            WordPart::Literal(v) => units.extend(v.iter().map(|&b| Unit::Byte(b))),
            other => units.push(Unit::Other(other)),
        }
    }
    let has_brace = units.iter().any(|u| matches!(u, Unit::Byte(b'{')));
    let words = if has_brace {
        brace::expand(&units, ctx.max_brace.min(budget.words), budget.bytes).map_err(
            |e| match e {
                BraceError::TooMany if budget.words < ctx.max_brace => {
                    too_many_words(ctx.max_words)
                }
                BraceError::TooMany => ExpandError::plain(format!(
                    "brace expansion: more than {} words",
                    ctx.max_brace
                )),
                BraceError::TooDeep => ExpandError::plain(format!(
                    "brace expansion: groups nested more than {} deep",
                    brace::MAX_NESTING
                )),
                BraceError::Oversized => too_many_bytes(ctx.max_bytes),
            },
        )?
    } else {
        vec![units]
    };
    let mut ex = Expander { ctx };
    let mut out = Vec::new();
    for units in words {
        let chars = ex.units(&units)?;
        let ifs = ex.lookup("IFS");
        let ifs = ifs.as_deref().unwrap_or(" \t\n").as_bytes().to_vec();
        for field in split(&chars, &ifs) {
            let found = ex.glob_field(&field)?;
            budget.take(ex.ctx, &found)?;
            out.push(found);
        }
    }
    Ok(out.into_iter().flatten().collect())
}

/// A word that expands to itself — quoted text, and unquoted text where no brace, tilde or
/// glob expansion can apply — as its one field (`Some(None)`: none, for empty unquoted text),
/// without the expander; `None` for any other word.
#[allow(clippy::option_option)] // not plain; plain, no field; plain, its field
fn plain_word(word: &Word) -> Option<Option<Vec<u8>>> {
    // Unquoted bytes that may start an expansion (extglob's `+(` `@(` `!(` among them).
    let special = |b: &u8| matches!(b, b'{' | b'~' | b'*' | b'?' | b'[' | b'+' | b'@' | b'!');
    let mut out = Vec::new();
    let mut quoted = false;
    for part in &word.parts {
        match part {
            WordPart::Literal(v) if !v.iter().any(special) => out.extend_from_slice(v),
            WordPart::Quoted(v) => {
                quoted = true;
                out.extend_from_slice(v);
            }
            WordPart::DoubleQuoted(parts) => {
                quoted = true;
                for p in parts {
                    match p {
                        WordPart::Quoted(v) => out.extend_from_slice(v),
                        _ => return None,
                    }
                }
            }
            _ => return None,
        }
    }
    Some(if out.is_empty() && !quoted {
        None
    } else {
        Some(out)
    })
}

/// Splits on IFS the bytes flagged `SPLIT` (bash's rules: IFS white space is trimmed and
/// runs of it count once; each other IFS byte ends a field, even an empty one).
fn split(chars: &[Ch], ifs: &[u8]) -> Vec<Vec<Ch>> {
    let is_ifs = |c: &Ch| c.f & SPLIT != 0 && c.f & Q == 0 && ifs.contains(&c.b);
    let is_ws = |b: u8| matches!(b, b' ' | b'\t' | b'\n');
    let mut fields = Vec::new();
    let mut cur: Vec<Ch> = Vec::new();
    let mut exists = false;
    let mut i = 0usize;
    while let Some(c) = chars.get(i) {
        if c.f & BRK != 0 {
            if !cur.is_empty() || exists {
                fields.push(std::mem::take(&mut cur));
            }
            exists = false;
            i += 1;
            continue;
        }
        if !is_ifs(c) {
            if c.is_mark() {
                exists = true;
            } else {
                cur.push(*c);
            }
            i += 1;
            continue;
        }
        // A delimiter: IFS white space around at most one other IFS byte.
        let mut hard = false;
        while let Some(d) = chars.get(i) {
            if !is_ifs(d) {
                break;
            }
            if is_ws(d.b) {
                i += 1;
            } else if hard {
                break;
            } else {
                hard = true;
                i += 1;
            }
        }
        if hard || !cur.is_empty() || exists {
            fields.push(std::mem::take(&mut cur));
        }
        exists = false;
    }
    if !cur.is_empty() || exists {
        fields.push(cur);
    }
    fields
}

impl Expander<'_, '_> {
    /// A variable's value.
    fn lookup(&self, name: &str) -> Option<String> {
        self.ctx.host.param(name)
    }

    /// The value of a parameter (`None`: unset); `$*` joined with the first byte of IFS.
    fn param_value(&self, name: &str) -> Option<String> {
        match name {
            "@" | "*" => {
                let items = self.ctx.host.positional();
                if items.is_empty() {
                    return None;
                }
                let sep = match self.lookup("IFS") {
                    Some(ifs) => ifs.chars().next().map(String::from).unwrap_or_default(),
                    None => " ".into(),
                };
                Some(items.join(&sep))
            }
            n => self.ctx.host.param(n),
        }
    }

    /// `~`, `~+`, `~-`; `None` leaves the prefix as written (`~user`, or unset variables).
    fn tilde(&self, name: &[u8]) -> Option<Vec<u8>> {
        match name {
            b"" => self.lookup("HOME").map(String::into_bytes),
            b"+" => Some(self.lookup("PWD").map_or_else(
                || glob::os_to_bytes(self.ctx.cwd.as_os_str()),
                String::into_bytes,
            )),
            b"-" => self.lookup("OLDPWD").map(String::into_bytes),
            _ => None,
        }
    }

    /// Tilde expansion at `units[i]` (a `~`): the expansion and the index after the prefix.
    /// The prefix runs to an unquoted `/` (or `:` in assignment-like words) and must be
    /// entirely unquoted.
    fn tilde_at(
        &self,
        units: &[Unit<&WordPart>],
        i: usize,
        colon_ends: bool,
    ) -> Option<(Vec<u8>, usize)> {
        let mut j = i + 1;
        let mut name = Vec::new();
        loop {
            match units.get(j) {
                None | Some(Unit::Byte(b'/')) => break,
                Some(Unit::Byte(b':')) if colon_ends => break,
                Some(Unit::Byte(b)) => name.push(*b),
                Some(Unit::Other(_)) => return None,
            }
            j += 1;
        }
        self.tilde(&name).map(|v| (v, j))
    }

    /// Tilde and parameter expansion of one brace-expanded word.
    fn units(&mut self, units: &[Unit<&WordPart>]) -> Result<Vec<Ch>, ExpandError> {
        let mut out = Vec::with_capacity(units.len());
        // `NAME=...`: bash also expands `~` after the `=` and after each `:`.
        let name_len = units
            .iter()
            .take_while(|u| matches!(u, Unit::Byte(b) if is_name_char(*b)))
            .count();
        let assign_like = name_len > 0
            && matches!(units.first(), Some(Unit::Byte(b)) if is_name_start(*b))
            && matches!(units.get(name_len), Some(Unit::Byte(b'=')));
        let mut i = 0usize;
        while let Some(u) = units.get(i) {
            match u {
                Unit::Byte(b'~') => {
                    let at_start = i == 0
                        || (assign_like
                            && i > name_len
                            && matches!(units.get(i - 1), Some(Unit::Byte(b'=' | b':'))));
                    if at_start && let Some((v, next)) = self.tilde_at(units, i, assign_like) {
                        push_bytes(&mut out, &v, Q);
                        i = next;
                        continue;
                    }
                    out.push(Ch::new(b'~', 0));
                }
                Unit::Byte(b) => out.push(Ch::new(*b, 0)),
                Unit::Other(part) => self.part(part, false, &mut out)?,
            }
            i += 1;
        }
        Ok(out)
    }

    /// Expands a quoted part or a parameter. `quoted`: inside `"..."` (or a context that is
    /// never split).
    fn part(
        &mut self,
        part: &WordPart,
        quoted: bool,
        out: &mut Vec<Ch>,
    ) -> Result<(), ExpandError> {
        match part {
            WordPart::Literal(v) => {
                push_bytes(out, v, if quoted { Q } else { 0 });
            }
            WordPart::Quoted(v) => {
                out.push(Ch::mark());
                push_bytes(out, v, Q);
            }
            WordPart::DoubleQuoted(parts) => {
                // `"$@"` (and `"${@:2}"`, `"${!prefix@}"`...) with nothing to give makes no
                // field at all.
                let only_at = !parts.is_empty()
                    && parts
                        .iter()
                        .all(|p| matches!(p, WordPart::Param(pe) if param_ops::is_at_list(pe)));
                if !only_at {
                    out.push(Ch::mark());
                }
                for p in parts {
                    self.part(p, true, out)?;
                }
            }
            WordPart::Param(p) => self.param(p, quoted, out)?,
            WordPart::CommandSubst(script) => {
                let mut bytes = self.ctx.host.command_subst(script)?;
                while bytes.last() == Some(&b'\n') {
                    bytes.pop();
                }
                push_bytes(out, &bytes, if quoted { Q } else { SPLIT });
            }
            WordPart::Arith(word) => {
                let text = expand_word_nosplit(word, self.ctx)?;
                let value = self.ctx.host.arith(&String::from_utf8_lossy(&text))?;
                push_bytes(
                    out,
                    value.to_string().as_bytes(),
                    if quoted { Q } else { SPLIT },
                );
            }
            WordPart::ProcessSubst { script, out: to } => {
                let path = self.ctx.host.process_subst(script, *to)?;
                push_bytes(out, path.as_bytes(), Q);
            }
        }
        Ok(())
    }

    /// The op word of `${X:-word}`: tilde at its start, its unquoted text splittable when the
    /// expansion is unquoted.
    fn op_word(&mut self, word: &Word, quoted: bool, out: &mut Vec<Ch>) -> Result<(), ExpandError> {
        let f = if quoted { Q } else { SPLIT };
        for (k, part) in word.parts.iter().enumerate() {
            match part {
                WordPart::Literal(v) => {
                    let mut v: &[u8] = v;
                    if k == 0 && !quoted && v.first() == Some(&b'~') {
                        let end = v.iter().position(|&c| c == b'/').unwrap_or(v.len());
                        let complete = end < v.len() || word.parts.len() == 1;
                        if complete
                            && let Some(home) = self.tilde(v.get(1..end).unwrap_or_default())
                        {
                            push_bytes(out, &home, Q);
                            v = v.get(end..).unwrap_or_default();
                        }
                    }
                    push_bytes(out, v, f);
                }
                other => self.part(other, quoted, out)?,
            }
        }
        Ok(())
    }

    /// The op word as a plain string (for `:=` and `:?`).
    fn op_word_string(&mut self, word: &Word) -> Result<Vec<u8>, ExpandError> {
        let mut chars = Vec::new();
        self.op_word(word, true, &mut chars)?;
        Ok(chars.iter().filter(|c| !c.is_mark()).map(|c| c.b).collect())
    }

    /// Pathname expansion of one field, then quote removal.
    fn glob_field(&self, field: &[Ch]) -> Result<Vec<Vec<u8>>, ExpandError> {
        let pat: Vec<PatByte> = field
            .iter()
            .map(|c| PatByte {
                b: c.b,
                quoted: c.quoted(),
            })
            .collect();
        let plain: Vec<u8> = field.iter().map(|c| c.b).collect();
        if self.ctx.noglob || !glob::has_glob(&pat, self.ctx.extglob) {
            return Ok(vec![plain]);
        }
        match glob::glob(
            &pat,
            self.ctx.cwd,
            self.ctx.fs,
            self.ctx.max_glob,
            glob::Options {
                dotglob: self.ctx.dotglob,
                globstar: self.ctx.globstar,
                extglob: self.ctx.extglob,
                skipdots: self.ctx.globskipdots,
            },
        ) {
            Ok(found) if found.is_empty() && self.ctx.nullglob => Ok(Vec::new()),
            Ok(found) if found.is_empty() && self.ctx.failglob => Err(ExpandError::fatal(format!(
                "no match: {}",
                String::from_utf8_lossy(&plain)
            ))),
            Ok(found) if found.is_empty() => Ok(vec![plain]),
            Ok(found) => Ok(found),
            Err(glob::TooMany) => Err(ExpandError::plain(format!(
                "{}: pathname expansion matches more than {} paths",
                String::from_utf8_lossy(&plain),
                self.ctx.max_glob
            ))),
        }
    }
}

/// `[@]` or `[*]`: all the elements (`Some(true)` for `*`).
fn all_subscript(sub: &Word) -> Option<bool> {
    match sub.parts.as_slice() {
        [WordPart::Literal(v)] if v.as_slice() == b"@" => Some(false),
        [WordPart::Literal(v)] if v.as_slice() == b"*" => Some(true),
        _ => None,
    }
}

/// A name that can be expanded: an identifier, digits, or one special parameter.
fn valid_param_name(name: &str) -> bool {
    let b = name.as_bytes();
    match b {
        [] => false,
        [c] => is_name_start(*c) || c.is_ascii_digit() || b"?$#@*!-".contains(c),
        [first, ..] => {
            (is_name_start(*first) && b.iter().all(|&c| is_name_char(c)))
                || b.iter().all(u8::is_ascii_digit)
        }
    }
}
