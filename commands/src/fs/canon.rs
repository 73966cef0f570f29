//! GNU's `canonicalize_filename_mode` on the sandbox view, shared by `readlink` and
//! `realpath`: links, `.` and `..` resolved component by component, with the three
//! existence modes (`-e`, `-f`, `-m`) and `realpath -s` (no links expanded).
//!
//! A link whose text may not be shown ([`shown_link_target`]: it leads out of the sandbox)
//! reads as a link whose text could not be read: an error in `-e`/`-f`, a missing component
//! in `-m`. The directories above the mount point are taken as existing directories (the
//! agent's path to its tree), never statted.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use crate::support::paths::shown_link_target;
use crate::{Ctx, FileKind, FsError, Outcome, quote_if_needed};

/// How many links one resolution follows at most (glibc's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// Which components must exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exist {
    /// `-e`: every component.
    All,
    /// `-f` (realpath's default): every component but the last.
    AllButLast,
    /// `-m`: none.
    Missing,
}

/// The components of a path's bytes, empty ones dropped.
fn parts(path: &[u8]) -> impl Iterator<Item = OsString> + '_ {
    path.split(|&b| b == b'/')
        .filter(|c| !c.is_empty())
        .map(|c| OsStr::from_bytes(c).to_os_string())
}

fn joined(stack: &[OsString]) -> PathBuf {
    let mut p = PathBuf::from("/");
    for c in stack {
        p.push(c);
    }
    p
}

/// The kind at `path` (`lstat`, or `stat` with `follow`), a strict ancestor of the mount
/// point counting as a directory.
fn kind_at(ctx: &Ctx, path: &Path, follow: bool) -> Result<FileKind, FsError> {
    if ctx.mount_point.starts_with(path) && ctx.mount_point != path {
        return Ok(FileKind::Dir);
    }
    ctx.fs.stat(path, follow).map(|m| m.kind)
}

/// Canonicalizes `path` (absolute, as [`Ctx::resolve`] gives it). `links`: expand links (not
/// with `realpath -s`). The error is the errno GNU reports.
pub fn canonicalize(ctx: &Ctx, path: &Path, mode: Exist, links: bool) -> Result<PathBuf, FsError> {
    let bytes = path.as_os_str().as_bytes();
    if bytes.is_empty() {
        return Err(FsError::NotFound);
    }
    let mut rest: VecDeque<OsString> = parts(bytes).collect();
    // A trailing slash asks for a directory, as a further component would.
    let mut trailing = bytes.ends_with(b"/");
    let mut stack: Vec<OsString> = Vec::new();
    let mut followed = 0usize;
    while let Some(c) = rest.pop_front() {
        match c.as_bytes() {
            b"." => continue,
            b".." => {
                stack.pop();
                continue;
            }
            _ => {}
        }
        stack.push(c);
        let here = joined(&stack);
        let need_dir = !rest.is_empty() || trailing;
        let kind = kind_at(ctx, &here, !links);
        match kind {
            Ok(FileKind::Symlink) if links => {
                followed += 1;
                if followed > MAX_LINKS {
                    if mode == Exist::Missing {
                        continue;
                    }
                    return Err(FsError::TooManyLinks);
                }
                let Some(text) = shown_link_target(ctx, &here) else {
                    if mode == Exist::Missing {
                        continue;
                    }
                    return Err(FsError::NotFound);
                };
                stack.pop();
                let tb = text.as_bytes();
                if tb.starts_with(b"/") {
                    stack.clear();
                }
                if rest.is_empty() && tb.ends_with(b"/") {
                    trailing = true;
                }
                for (i, p) in parts(tb).collect::<Vec<_>>().into_iter().enumerate() {
                    rest.insert(i, p);
                }
            }
            Ok(FileKind::Dir) => {}
            Ok(_) if need_dir && mode != Exist::Missing => return Err(FsError::NotADirectory),
            Ok(_) => {}
            Err(e) => match mode {
                Exist::All => return Err(e),
                Exist::AllButLast if need_dir || e != FsError::NotFound => return Err(e),
                _ => {}
            },
        }
    }
    Ok(joined(&stack))
}

/// Whether `prefix` is a component-wise prefix of `path` (`/` is one of every path).
/// How [`print_each`] ends and reports each operand.
pub struct Shown {
    /// `-z`: NUL instead of newline; `None`: nothing (`readlink -n`).
    pub end: Option<u8>,
    /// Whether a failure is reported on stderr (`readlink -v`, `realpath` without `-q`).
    pub report: bool,
}

/// The loop `readlink` and `realpath` share: one line per operand with what `name_of` gives,
/// or (when `shown.report`) `NAME: OPERAND: ERROR`; status 1 when any operand failed.
pub fn print_each(
    ctx: &Ctx,
    mut o: Outcome,
    files: &[OsString],
    shown: &Shown,
    mut name_of: impl FnMut(&OsString) -> Result<OsString, FsError>,
) -> Outcome {
    let mut status = 0;
    for f in files {
        match name_of(f) {
            Ok(text) => {
                let mut line = text.into_vec();
                line.extend(shown.end);
                o.out(line);
            }
            Err(e) => {
                status = 1;
                if shown.report {
                    o.err(format!("{}: {}: {e}\n", ctx.name, quote_if_needed(f)));
                }
            }
        }
        if !ctx.flush(&mut o) {
            break;
        }
    }
    o.with_status(status)
}

pub fn path_prefix(prefix: &Path, path: &Path) -> bool {
    let p: Vec<_> = parts(prefix.as_os_str().as_bytes()).collect();
    let q: Vec<_> = parts(path.as_os_str().as_bytes()).collect();
    q.starts_with(&p)
}

/// `path` relative to the directory `base` (both canonical): `..` for each component of
/// `base` past the common prefix, then the rest of `path`; `.` when they are the same.
pub fn relative(path: &Path, base: &Path) -> OsString {
    let p: Vec<_> = parts(path.as_os_str().as_bytes()).collect();
    let b: Vec<_> = parts(base.as_os_str().as_bytes()).collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out: Vec<&OsStr> = Vec::new();
    for _ in common..b.len() {
        out.push(OsStr::new(".."));
    }
    for c in p.iter().skip(common) {
        out.push(c);
    }
    if out.is_empty() {
        return OsString::from(".");
    }
    let mut s = OsString::new();
    for (i, c) in out.iter().enumerate() {
        if i > 0 {
            s.push("/");
        }
        s.push(c);
    }
    s
}
