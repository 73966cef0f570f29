//! Path helpers shared by handlers: bash's logical normalisation (`cd -L`), GNU's
//! `.`/`..` operand test, the overlay of an invocation's pending effects, and `rm -r`'s
//! post-order listing of a tree (on [`crate::support::walk`]).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::support::walk::{Follow, Node, Refused, Visit, Walk};
use crate::{Ctx, FileKind, FsError, FsView};

/// How many entries [`walk_post_order`] lists at most.
pub const WALK_ENTRY_CAP: usize = 100_000;

/// The non-empty components of a path's bytes, `.` and `..` kept.
fn components(path: &Path) -> impl Iterator<Item = &OsStr> {
    path.as_os_str()
        .as_bytes()
        .split(|&b| b == b'/')
        .filter(|c| !c.is_empty())
        .map(OsStr::from_bytes)
}

/// Lexical normalisation of an absolute path: drops `.` and empty components, `..` pops the
/// previous component and stays at `/` at the top.
pub fn normalize_lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in components(path) {
        match c.as_bytes() {
            b"." => {}
            b".." => {
                out.pop();
            }
            _ => out.push(c),
        }
    }
    out
}

/// Bash's logical canonicalisation (`sh_canonpath` with `PATH_CHECKDOTDOT`), used by `cd -L`:
/// lexical, except that before a `..` pops a component the path so far must be a directory,
/// so `cd missing/..` fails as in bash. `None` when that check fails.
pub fn normalize_logical(fs: &dyn FsView, path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::from("/");
    for c in components(path) {
        match c.as_bytes() {
            b"." => {}
            b".." => {
                if out.as_os_str() != "/" && !fs.stat(&out, true).is_ok_and(|m| m.is_dir()) {
                    return None;
                }
                out.pop();
            }
            _ => out.push(c),
        }
    }
    Some(out)
}

/// Whether an operand's last component is `.` or `..` (GNU rm's `dot_or_dotdot` on the
/// base name, trailing slashes ignored).
pub fn is_dot_or_dotdot(operand: &OsStr) -> bool {
    let b = operand.as_bytes();
    let trimmed = {
        let mut end = b.len();
        while end > 1 && b[end - 1] == b'/' {
            end -= 1;
        }
        &b[..end]
    };
    let base = trimmed.rsplit(|&c| c == b'/').next().unwrap_or(trimmed);
    base == b"." || base == b".."
}

/// Joins a display name and an entry name the way GNU utilities print it (`d/f`, `d/f` for
/// `d/` too, `/f` under `/`).
pub fn join_display(parent: &OsStr, name: &OsStr) -> OsString {
    let mut s = parent.to_os_string();
    if !parent.as_bytes().ends_with(b"/") {
        s.push("/");
    }
    s.push(name);
    s
}

/// What a link's `-> target` may show. The view never shows a host path above the mount
/// point (design decision 4), and a link that leads out must look like a dangling link, so:
/// - a link that resolves inside the sandbox shows its text;
/// - a dangling relative link shows its text when, joined with the link's (physical)
///   directory, it stays at or beneath the mount point (a plain dangling link inside);
/// - an absolute text shows only when it lies beneath the mount point;
/// - anything else shows no ` -> ` part at all, which is how GNU prints a link whose text
///   it could not read (the `l` type and the text's length still tell it is a link). No
///   placeholder text is invented: an agent reading `name -> ?` might take `?` for a name.
pub fn shown_link_target(ctx: &Ctx, link: &Path) -> Option<OsString> {
    let text = ctx.fs.read_link(link).ok()?;
    if ctx.fs.stat(link, true).is_ok() {
        return Some(text.into_os_string());
    }
    let resolved = if text.is_absolute() {
        normalize_lexical(&text)
    } else {
        let dir = parent_of(link)?;
        let dir = ctx.fs.canonicalize(&dir).unwrap_or(dir);
        normalize_lexical(&dir.join(&text))
    };
    resolved
        .starts_with(ctx.mount_point)
        .then(|| text.into_os_string())
}

/// One entry of a walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkEntry {
    /// The name to show: the operand joined with the entry's relative path.
    pub display: OsString,
    /// The entry's own kind (links are not followed).
    pub kind: FileKind,
    /// The directory could not be read (it is still listed, after its readable content).
    pub error: Option<FsError>,
}

/// Lists a tree post-order (contents before their directory) in the order `read_dir` gives,
/// as GNU `rm -r` visits it through `fts`, on the shared [`Walk`]: stops descending at
/// `max_depth` (the tree is still one effect; only the report is cut) and stops listing at
/// [`WALK_ENTRY_CAP`]. Links are never followed. `display` is not empty (an empty operand
/// never reaches a walk).
pub fn walk_post_order(
    fs: &dyn FsView,
    root: &Path,
    display: &OsStr,
    max_depth: usize,
) -> Vec<WalkEntry> {
    let dir = |node: Node, error: Option<FsError>| WalkEntry {
        display: node.display,
        kind: FileKind::Dir,
        error,
    };
    // A directory that is not entered is listed at once, with the error that kept it closed.
    let refused = |(node, why): (Node, Refused)| match why {
        Refused::Unreadable(e) => dir(node, Some(e)),
        Refused::TooDeep | Refused::Loop => dir(node, None),
    };
    let mut walk = Walk::new(fs, Follow::Never, max_depth);
    if let Err(r) = walk.descend(Walk::root(root.to_path_buf(), display)) {
        return vec![refused(r)];
    }
    let mut out = Vec::new();
    while out.len() < WALK_ENTRY_CAP {
        let Some(visit) = walk.next() else { break };
        match visit {
            Visit::Entry(n) if n.kind == FileKind::Dir => {
                if let Err(r) = walk.descend(n) {
                    out.push(refused(r));
                }
            }
            Visit::Entry(n) | Visit::Broken(n, _) => out.push(WalkEntry {
                display: n.display,
                kind: n.kind,
                error: None,
            }),
            Visit::Leave(n, ()) => out.push(dir(n, None)),
            // Listing mode only.
            Visit::Listed(_) | Visit::Refused(..) => {}
        }
    }
    out
}

/// The parent of an operand path for a create: trailing slashes dropped, then the last
/// component removed (`a/b/` → `a`). `None` when there is no component to create.
pub fn parent_of(path: &Path) -> Option<PathBuf> {
    let b = path.as_os_str().as_bytes();
    let mut end = b.len();
    while end > 1 && b[end - 1] == b'/' {
        end -= 1;
    }
    let b = &b[..end];
    let cut = b.iter().rposition(|&c| c == b'/')?;
    let parent = if cut == 0 { &b[..1] } else { &b[..cut] };
    Some(PathBuf::from(OsStr::from_bytes(parent)))
}

/// What one invocation has already asked for: later operands see earlier ones' effects
/// (`mkdir a a/b`, `rm x x`). Keyed by the lexically normalised path, which is exact unless
/// a link and `..` meet in an operand; then the view answers as if nothing was pending.
#[derive(Debug, Default)]
pub struct Overlay {
    /// `Some(kind)`: created; `None`: removed.
    entries: std::collections::HashMap<PathBuf, Option<FileKind>>,
}

impl Overlay {
    /// The kind at `path`, pending effects first, then the view (`follow`: stat, else lstat).
    pub fn kind(&self, fs: &dyn FsView, path: &Path, follow: bool) -> Result<FileKind, FsError> {
        if path.as_os_str().is_empty() {
            return Err(FsError::NotFound);
        }
        let key = normalize_lexical(path);
        if let Some(v) = self.entries.get(&key) {
            return v.ok_or(FsError::NotFound);
        }
        if key
            .ancestors()
            .skip(1)
            .any(|a| matches!(self.entries.get(a), Some(None)))
        {
            return Err(FsError::NotFound);
        }
        fs.stat(path, follow).map(|m| m.kind)
    }
    /// Records a pending create.
    pub fn create(&mut self, path: &Path, kind: FileKind) {
        self.entries.insert(normalize_lexical(path), Some(kind));
    }
    /// Records a pending removal (the whole subtree).
    pub fn remove(&mut self, path: &Path) {
        let key = normalize_lexical(path);
        self.entries.retain(|k, _| !k.starts_with(&key));
        self.entries.insert(key, None);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::testing::memfs::MemFs;

    #[test]
    fn lexical() {
        assert_eq!(
            normalize_lexical(Path::new("/a/./b/../c/")),
            Path::new("/a/c")
        );
        assert_eq!(normalize_lexical(Path::new("/../..")), Path::new("/"));
        assert_eq!(normalize_lexical(Path::new("//a//b")), Path::new("/a/b"));
    }

    #[test]
    fn logical_checks_dotdot_prefixes() {
        let fs = MemFs::new().dir("/s/d").symlink("/s/l", "d");
        assert_eq!(
            normalize_logical(&fs, Path::new("/s/l/..")),
            Some(PathBuf::from("/s"))
        );
        assert_eq!(normalize_logical(&fs, Path::new("/s/nope/..")), None);
    }

    #[test]
    fn parents_and_overlay() {
        assert_eq!(parent_of(Path::new("/s/a/b/")), Some(PathBuf::from("/s/a")));
        assert_eq!(parent_of(Path::new("/a")), Some(PathBuf::from("/")));
        assert_eq!(parent_of(Path::new("")), None);
        let fs = MemFs::new().file("/s/f", b"");
        let mut ov = Overlay::default();
        ov.create(Path::new("/s/a"), FileKind::Dir);
        assert_eq!(ov.kind(&fs, Path::new("/s/a/."), true), Ok(FileKind::Dir));
        ov.remove(Path::new("/s"));
        assert_eq!(
            ov.kind(&fs, Path::new("/s/f"), true),
            Err(FsError::NotFound)
        );
        assert_eq!(
            ov.kind(&fs, Path::new("/s/a"), true),
            Err(FsError::NotFound)
        );
    }

    #[test]
    fn dots() {
        for d in [".", "..", "./.", "d/..", "../", "a/./"] {
            assert!(is_dot_or_dotdot(OsStr::new(d)), "{d}");
        }
        for d in ["d", ".a", "..b", "/"] {
            assert!(!is_dot_or_dotdot(OsStr::new(d)), "{d}");
        }
    }

    #[test]
    fn walk_is_post_order_in_read_dir_order() {
        let fs = MemFs::new()
            .file("/d/f", b"")
            .file("/d/e/g", b"")
            .symlink("/d/l", "e");
        let names: Vec<_> = walk_post_order(&fs, Path::new("/d"), OsStr::new("d"), 256)
            .into_iter()
            .map(|e| e.display.into_string().unwrap())
            .collect();
        assert_eq!(names, ["d/f", "d/e/g", "d/e", "d/l", "d"]);
    }
}
