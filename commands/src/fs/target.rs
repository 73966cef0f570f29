//! Where `cp` and `mv` put each source (GNU's target planning): `-t DIR`, `-T`, or a last
//! operand that is a directory; and the small path facts both need (trailing slashes, "same
//! file"). Shared by the `fs` family so that no handler imports another (later `ln`,
//! `install`).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::support::paths::join_display;
use crate::{Ctx, Meta, Stop, quote};

/// One source and where it goes, both as typed (for messages) and resolved.
pub struct Pair {
    pub src: OsString,
    pub dst: OsString,
}

/// Decides the destination of every source as GNU's `cp`/`mv` do: `-t DIR`, `-T`, or a last
/// operand that is a directory (links followed). `Err` is the whole command's failure.
pub fn plan(
    ctx: &Ctx,
    operands: &[OsString],
    target: Option<&OsString>,
    no_target: bool,
) -> Result<Vec<Pair>, Stop> {
    if let Some(t) = target {
        if no_target {
            return Err(Stop::Fail(
                "cannot combine --target-directory (-t) and --no-target-directory (-T)".into(),
            ));
        }
        match ctx.fs.stat(&ctx.resolve(t), true) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(Stop::Fail(format!(
                    "target directory {}: Not a directory",
                    quote(t)
                )));
            }
            Err(e) => return Err(Stop::Fail(format!("target directory {}: {e}", quote(t)))),
        }
        if operands.is_empty() {
            return Err(Stop::Usage("missing file operand".into()));
        }
        return Ok(operands
            .iter()
            .map(|s| Pair {
                src: s.clone(),
                dst: into_dir(t, s),
            })
            .collect());
    }
    let (Some((last, sources)), true) = (operands.split_last(), !operands.is_empty()) else {
        return Err(Stop::Usage("missing file operand".into()));
    };
    if sources.is_empty() {
        return Err(Stop::Usage(format!(
            "missing destination file operand after {}",
            quote(last)
        )));
    }
    if no_target {
        if let Some(extra) = operands.get(2) {
            return Err(Stop::Usage(format!("extra operand {}", quote(extra))));
        }
        return Ok(vec![Pair {
            src: sources.first().cloned().unwrap_or_default(),
            dst: last.clone(),
        }]);
    }
    let is_dir = ctx.fs.stat(&ctx.resolve(last), true);
    match is_dir {
        Ok(m) if m.is_dir() => Ok(sources
            .iter()
            .map(|s| Pair {
                src: s.clone(),
                dst: into_dir(last, s),
            })
            .collect()),
        _ if sources.len() == 1 => Ok(vec![Pair {
            src: sources.first().cloned().unwrap_or_default(),
            dst: last.clone(),
        }]),
        Ok(_) => Err(Stop::Fail(format!(
            "target {}: Not a directory",
            quote(last)
        ))),
        Err(e) => Err(Stop::Fail(format!("target {}: {e}", quote(last)))),
    }
}

/// `DIR/BASE` where BASE is the source's last component without trailing slashes.
fn into_dir(dir: &OsStr, src: &OsStr) -> OsString {
    let b = src.as_bytes();
    let end = b.iter().rposition(|&c| c != b'/').map_or(0, |i| i + 1);
    let trimmed = b.get(..end).unwrap_or_default();
    let base = trimmed.rsplit(|&c| c == b'/').next().unwrap_or(trimmed);
    let base = if base.is_empty() { b } else { base };
    join_display(dir, OsStr::from_bytes(base))
}

/// Whether an operand ends with a slash (more than a lone `/`).
pub fn has_trailing_slash(name: &OsStr) -> bool {
    let b = name.as_bytes();
    b.len() > 1 && b.ends_with(b"/")
}

/// A path without its trailing slashes (`d/` → `d`), for the effects.
pub fn strip_slashes(p: &Path) -> PathBuf {
    let b = p.as_os_str().as_bytes();
    let end = b
        .iter()
        .rposition(|&c| c != b'/')
        .map_or(b.len().min(1), |i| i + 1);
    PathBuf::from(OsStr::from_bytes(b.get(..end).unwrap_or(b)))
}

/// Whether two metadata name the same object.
pub fn same(a: &Meta, b: &Meta) -> bool {
    a.ino == b.ino && a.dev == b.dev
}
