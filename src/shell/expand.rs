//! Placeholder expansion.

use std::ffi::OsString;
use std::path::Path;

use trumansh_commands::{FsView, Vars};

use super::ast::Word;

/// What expansion may look at.
pub struct ExpandCtx<'a> {
    pub vars: &'a Vars,
    /// `$?`
    pub last_status: i32,
    /// The logical cwd, for relative globs.
    pub cwd: &'a Path,
    /// Directory listings for globs.
    pub fs: &'a dyn FsView,
    /// Cap on the fields one brace expansion may produce.
    pub max_brace: usize,
    /// Cap on the paths one glob may match.
    pub max_glob: usize,
}

/// Why expansion failed; `message` is bash's text without the shell prefix
/// (`X: parameter null or not set`, `${x: bad substitution`), status is 1 (or 2 for a
/// bad substitution... as bash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpandError {
    pub message: String,
    pub status: i32,
    /// Assignments made by `${X:=y}` happen even so; they are returned in `ExpandCtx` users'
    /// own bookkeeping — see `assignments` in the result of `expand_words`.
    pub fatal: bool,
}

/// Expands command words into fields: brace, tilde, parameter expansion, word splitting,
/// pathname expansion, quote removal. `${X:=y}` assignments are pushed into `assigned`.
pub fn expand_words(
    words: &[Word],
    ctx: &ExpandCtx,
    assigned: &mut Vec<(String, String)>,
) -> Result<Vec<OsString>, ExpandError> {
    let _ = (words, ctx, assigned);
    Ok(Vec::new())
}

/// Expands one word without splitting or globbing (assignment values, here-document bodies,
/// here-strings); tilde expansion applies only where bash applies it (assignment values).
pub fn expand_word_nosplit(
    word: &Word,
    ctx: &ExpandCtx,
    assigned: &mut Vec<(String, String)>,
) -> Result<Vec<u8>, ExpandError> {
    let _ = (word, ctx, assigned);
    Ok(Vec::new())
}

/// Expands a redirection target: like a command word, but it must give exactly one field
/// (bash: `ambiguous redirect` otherwise).
pub fn expand_word(
    word: &Word,
    ctx: &ExpandCtx,
    assigned: &mut Vec<(String, String)>,
) -> Result<Vec<OsString>, ExpandError> {
    expand_words(std::slice::from_ref(word), ctx, assigned)
}
