//! Pathname expansion: matching `*`, `?` and `[...]` patterns against the sandbox through
//! [`FsView`], with bash 5.2's defaults (no `dotglob`, `globskipdots` on, no `nullglob`,
//! no `globstar`, C-locale byte order).
//!
//! A pattern is a sequence of [`PatByte`]s: a byte and whether it was quoted. Only unquoted
//! `*`, `?`, `[` are special, so `"*".txt` matches only a file named `*.txt`. The pattern is
//! split at `/` and walked one component at a time: components without special characters
//! are appended as they are, the others list their directory.
#![deny(clippy::indexing_slicing)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use trumansh_commands::{FileKind, FsView};

use super::pattern::{Pattern, Syntax, skips_dot_names};

/// One byte of a pattern and whether it was quoted (then it only matches itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PatByte {
    pub b: u8,
    pub quoted: bool,
}

/// More paths matched than the cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TooMany;

/// The shell options pathname expansion follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Options {
    /// `dotglob`: `*`, `?` and `[...]` match a leading `.` (never `.` and `..`).
    pub dotglob: bool,
    /// `globstar`: `**` alone in a component matches any depth of directories.
    pub globstar: bool,
    /// `extglob`: `?(...)`, `*(...)`, `+(...)`, `@(...)`, `!(...)`.
    pub extglob: bool,
    /// `globskipdots` (bash 5.2's default): `.` and `..` are never matched.
    pub skipdots: bool,
}

/// Whether the pattern has an unquoted `*`, `?` or `[` (with `extglob`, also `+(`, `@(`,
/// `!(`); else it is not a pattern at all.
pub(crate) fn has_glob(pat: &[PatByte], extglob: bool) -> bool {
    pat.iter().enumerate().any(|(i, &p)| {
        !p.quoted
            && match p.b {
                b'*' | b'?' | b'[' => true,
                b'+' | b'@' | b'!' => {
                    extglob && pat.get(i + 1).is_some_and(|q| !q.quoted && q.b == b'(')
                }
                _ => false,
            }
    })
}

pub(crate) fn os_to_bytes(s: &std::ffi::OsStr) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        s.as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        s.to_string_lossy().into_owned().into_bytes()
    }
}

pub(crate) fn bytes_to_os(v: Vec<u8>) -> OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        OsString::from_vec(v)
    }
    #[cfg(not(unix))]
    {
        OsString::from(String::from_utf8_lossy(&v).into_owned())
    }
}

/// Expands a pattern into the matching paths, sorted in byte order. An empty result means no
/// match (the caller keeps the word). Relative patterns give relative paths, resolved
/// against `cwd`.
pub(crate) fn glob(
    pat: &[PatByte],
    cwd: &Path,
    fs: &dyn FsView,
    max: usize,
    opts: Options,
) -> Result<Vec<Vec<u8>>, TooMany> {
    let Options {
        dotglob, globstar, ..
    } = opts;
    let comps: Vec<&[PatByte]> = pat.split(|p| p.b == b'/').collect();
    // (as shown, real virtual path)
    let mut found: Vec<(Vec<u8>, PathBuf)> = Vec::new();
    let mut comps_iter = comps.iter().enumerate().peekable();
    if pat.first().is_some_and(|p| p.b == b'/') {
        comps_iter.next();
        found.push((b"/".to_vec(), PathBuf::from("/")));
    } else {
        found.push((Vec::new(), cwd.to_path_buf()));
    }
    let last = comps.len().saturating_sub(1);
    let mut globbed = false;
    for (i, comp) in comps_iter {
        let is_last = i == last;
        if comp.is_empty() {
            if is_last {
                // `*/`: directories only, shown with the slash.
                found.retain(|(_, real)| fs.stat(real, true).is_ok_and(|m| m.is_dir()));
            }
            for (shown, _) in &mut found {
                shown.push(b'/');
            }
            continue;
        }
        if !has_glob(comp, opts.extglob) {
            let name: Vec<u8> = comp.iter().map(|p| p.b).collect();
            let os = bytes_to_os(name.clone());
            for (shown, real) in &mut found {
                join_shown(shown, &name);
                real.push(&os);
            }
            if globbed {
                // After a wildcard, a literal component must exist.
                found.retain(|(_, real)| fs.stat(real, false).is_ok());
            }
            continue;
        }
        globbed = true;
        let mut next = Vec::new();
        if globstar && comp.len() == 2 && comp.iter().all(|p| p.b == b'*' && !p.quoted) {
            // `**` (globstar): any depth of directories, this one included; last, everything
            // below as well.
            for (shown, real) in &found {
                if !is_last {
                    next.push((shown.clone(), real.clone()));
                } else if !shown.is_empty() {
                    // The directory itself, as `dir/`.
                    let mut s = shown.clone();
                    if s.last() != Some(&b'/') {
                        s.push(b'/');
                    }
                    next.push((s, real.clone()));
                }
                descend(fs, shown, real, is_last, dotglob, max, &mut next, 0)?;
            }
            found = next;
            if is_last {
                found.retain(|(s, _)| !s.is_empty());
            }
            continue;
        }
        let matcher = Pattern::new(
            comp,
            Syntax {
                extglob: opts.extglob,
                fold: false,
            },
        );
        let skips_dots = skips_dot_names(comp, opts.extglob);
        for (shown, real) in &found {
            let Ok(entries) = fs.read_dir(real) else {
                continue;
            };
            // `.` and `..` are there to match when `globskipdots` is off.
            let dots = (!opts.skipdots)
                .then_some([(".", FileKind::Dir), ("..", FileKind::Dir)])
                .into_iter()
                .flatten()
                .map(|(n, k)| (OsString::from(n), k));
            for (entry_name, kind) in dots.chain(entries.into_iter().map(|e| (e.name, e.kind))) {
                let name = os_to_bytes(&entry_name);
                if !name_matches(&matcher, skips_dots, &name, dotglob) {
                    continue;
                }
                let path = real.join(&entry_name);
                if !is_last {
                    let dir = match kind {
                        FileKind::Dir => true,
                        FileKind::Symlink => fs.stat(&path, true).is_ok_and(|m| m.is_dir()),
                        _ => false,
                    };
                    if !dir {
                        continue;
                    }
                }
                let mut s = shown.clone();
                join_shown(&mut s, &name);
                next.push((s, path));
                if next.len() > max {
                    return Err(TooMany);
                }
            }
        }
        found = next;
        if found.is_empty() {
            break;
        }
    }
    if !globbed {
        return Ok(Vec::new());
    }
    let mut out: Vec<Vec<u8>> = found.into_iter().map(|(s, _)| s).collect();
    out.sort();
    Ok(out)
}

/// The directories below `real` (and, when `all`, the other entries too), for `**`.
#[allow(clippy::too_many_arguments)]
fn descend(
    fs: &dyn FsView,
    shown: &[u8],
    real: &Path,
    all: bool,
    dotglob: bool,
    max: usize,
    out: &mut Vec<(Vec<u8>, PathBuf)>,
    depth: usize,
) -> Result<(), TooMany> {
    if depth > 64 {
        return Ok(());
    }
    let Ok(entries) = fs.read_dir(real) else {
        return Ok(());
    };
    for e in entries {
        let name = os_to_bytes(&e.name);
        if name.first() == Some(&b'.') && !dotglob {
            continue;
        }
        // bash's `**` does not follow links to directories.
        let dir = e.kind == FileKind::Dir;
        if !dir && !all {
            continue;
        }
        let mut s = shown.to_vec();
        join_shown(&mut s, &name);
        let path = real.join(&e.name);
        out.push((s.clone(), path.clone()));
        if out.len() > max {
            return Err(TooMany);
        }
        if dir {
            descend(fs, &s, &path, all, dotglob, max, out, depth + 1)?;
        }
    }
    Ok(())
}

fn join_shown(shown: &mut Vec<u8>, name: &[u8]) {
    if !shown.is_empty() && shown.last() != Some(&b'/') {
        shown.push(b'/');
    }
    shown.extend_from_slice(name);
}

/// Whether a file name matches one pattern component (compiled as `matcher`; `skips_dots`:
/// [`skips_dot_names`] of it). A leading `.` must be matched by a literal `.` (bash without
/// `dotglob`; `.` and `..` always).
fn name_matches(matcher: &Pattern, skips_dots: bool, name: &[u8], dotglob: bool) -> bool {
    let dot = name.first() == Some(&b'.');
    if dot && (!dotglob || name == b"." || name == b"..") {
        return !skips_dots && matcher.is_match_name(name, true);
    }
    matcher.is_match(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(s: &str) -> Vec<PatByte> {
        s.bytes().map(|b| PatByte { b, quoted: false }).collect()
    }

    fn fnmatch(p: &[PatByte], name: &[u8]) -> bool {
        Pattern::new(p, Syntax::default()).is_match(name)
    }

    fn matches(p: &[PatByte], name: &[u8]) -> bool {
        let m = Pattern::new(p, Syntax::default());
        name_matches(&m, skips_dot_names(p, false), name, false)
    }

    // Checked with bash 5.2: `[[ NAME == PATTERN ]]` gives the same answers.
    #[test]
    fn fnmatch_basics() {
        assert!(fnmatch(&pat("*.txt"), b"a.txt"));
        assert!(!fnmatch(&pat("*.txt"), b"a.txt.bak"));
        assert!(fnmatch(&pat("a?c"), b"abc"));
        assert!(!fnmatch(&pat("a?c"), b"ac"));
        assert!(fnmatch(&pat("[abc]x"), b"bx"));
        assert!(fnmatch(&pat("[!abc]x"), b"dx"));
        assert!(fnmatch(&pat("[^abc]x"), b"dx"));
        assert!(!fnmatch(&pat("[!abc]x"), b"ax"));
        assert!(fnmatch(&pat("[a-c]"), b"b"));
        assert!(fnmatch(&pat("[]]"), b"]"));
        assert!(fnmatch(&pat("[a-]"), b"-"));
        assert!(fnmatch(&pat("[[:digit:]]*"), b"1abc"));
        assert!(!fnmatch(&pat("[[:alpha:]]"), b"1"));
        assert!(fnmatch(&pat("[x"), b"[x"));
        assert!(fnmatch(&pat("*a*b*c*"), b"xxaxxbxxcxx"));
        assert!(fnmatch(&pat("**"), b""));
        let mut quoted = pat("*");
        for p in &mut quoted {
            p.quoted = true;
        }
        assert!(!fnmatch(&quoted, b"x"));
        assert!(fnmatch(&quoted, b"*"));
    }

    #[test]
    fn fnmatch_is_not_exponential() {
        let p = pat(&"*a".repeat(50));
        let name = "a".repeat(10_000);
        let _ = fnmatch(&p, name.as_bytes());
    }

    #[test]
    fn leading_dot() {
        assert!(!matches(&pat("*"), b".x"));
        assert!(matches(&pat(".*"), b".x"));
        assert!(!matches(&pat("[.]x"), b".x"));
        assert!(!matches(&pat("?x"), b".x"));
    }

    #[test]
    fn extended_patterns_are_globs() {
        assert!(has_glob(&pat("@(a)"), true));
        assert!(!has_glob(&pat("@(a)"), false));
        assert!(!has_glob(&pat("a@b!c+"), true));
        assert!(has_glob(&pat("x?"), false));
    }
}
