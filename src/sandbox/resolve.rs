//! Resolution: from an agent's path to the object, through handles, deciding on what is
//! reached.
//!
//! An agent path is walked one component at a time from the root handle. Each directory is
//! opened relative to the one before without following a link (`O_NOFOLLOW`); a link met on
//! the way is read and its target walked the same way (an absolute target is an agent's
//! path: walked from the root when it lies under the mount point, leading out otherwise);
//! `..` goes back to the handle the walk came from, never asks the kernel for a parent. The
//! walk therefore knows, by construction, the *physical* root-relative path of everything
//! it reaches (no `..`, no link in it), and that is what every check is made on — the
//! policy's hidden and read-only rules, the state directory — and what the journal records.
//! The operation then acts relative to the very parent handle the walk ended on; a [`Loc`]
//! rebuilt from a recorded path (undo) reopens its parent with `RESOLVE_NO_SYMLINKS`, so a
//! link planted since fails instead of being followed.
//!
//! What a concurrent stage can still change between the decision and the act is only the
//! *position* of a directory the walk already holds (a rename). The agent cannot move a
//! directory holding hidden or read-only paths (the sandbox refuses), cannot name the state
//! directory, and cannot move anything into it except through the trash; so a held handle is
//! either where the walk computed it or inside the agent's own trashed files.
//!
//! The state directory, when it is `.trash` in the root, is taken out of the agent's
//! namespace rather than made to look missing: at the root, the agent's name `.trash` (and
//! `.trash~`, `.trash~~`, ...) is stored as the same name with one more `~`, so `.trash` is a
//! free name for the agent like any other, and no agent-written name reaches the state
//! directory.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io;
use std::ops::Deref;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cap_fs_ext::DirExt;
use cap_std::fs::Dir;
use rustix::fs::{Mode, OFlags, ResolveFlags};
use trumansh_commands::FsError;

use super::undo_ops::Before;
use super::{Sandbox, map_err};

/// How many symlinks one resolution may follow before giving ELOOP, as Linux's limit.
const MAX_LINK_HOPS: usize = 40;

/// A location inside the root: its physical root-relative path (`.` for the root; parents
/// resolved, no `..`, no link above the final name), with the handle of its parent directory
/// when it was resolved in this process.
#[derive(Clone)]
pub struct Loc {
    /// The physical path relative to the root.
    pub rel: PathBuf,
    /// The parent directory the walk ended on (`None`: reopen `rel`'s parent without links).
    parent: Option<Arc<Dir>>,
    /// The agent wrote the path with a trailing `/`: it names a directory.
    slash: bool,
    /// What the walk that made it found there, when it looked (`Some(None)`: nothing).
    seen: Seen,
}

/// What a walk found at its final name: `None` when it did not look (or found a link).
type Seen = Option<Option<Before>>;

impl fmt::Debug for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Loc")
            .field("rel", &self.rel)
            .field("held", &self.parent.is_some())
            .field("slash", &self.slash)
            .field("seen", &self.seen.is_some())
            .finish()
    }
}

impl PartialEq for Loc {
    fn eq(&self, other: &Self) -> bool {
        self.rel == other.rel && self.slash == other.slash
    }
}

impl Eq for Loc {}

impl Loc {
    /// A location from a recorded physical path (the journal, the trash): its parent is
    /// reopened without following any link when it is acted on.
    pub fn physical(rel: PathBuf) -> Loc {
        let rel = if rel.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            rel
        };
        Loc {
            rel,
            parent: None,
            slash: false,
            seen: None,
        }
    }

    /// What the walk that made this location found at it, if it looked: as fresh as that
    /// walk, so only for a change planned right after it ([`Sandbox::targets`]).
    pub fn seen(&self) -> Seen {
        self.seen
    }

    /// The root itself.
    pub(super) fn is_root(&self) -> bool {
        self.rel == Path::new(".")
    }

    /// Whether the agent wrote the path with a trailing `/`.
    pub(super) fn has_trailing_slash(&self) -> bool {
        self.slash
    }

    /// The final name (`None` for the root).
    pub(super) fn name(&self) -> Option<&OsStr> {
        if self.is_root() {
            None
        } else {
            self.rel.file_name()
        }
    }
}

/// A directory handle, borrowed (the root, a held parent) or owned (reopened).
pub(super) enum DirRef<'a> {
    Borrowed(&'a Dir),
    Owned(Dir),
}

impl Deref for DirRef<'_> {
    type Target = Dir;
    fn deref(&self) -> &Dir {
        match self {
            DirRef::Borrowed(d) => d,
            DirRef::Owned(d) => d,
        }
    }
}

/// One component still to walk; `agent` when the agent wrote it (mapped at the root), not
/// when it comes from a link's target (already physical).
struct Pending {
    name: Vec<u8>,
    agent: bool,
}

/// What the walk found at the final name.
enum Final {
    Missing,
    Link,
    Dir,
    Other,
}

impl Sandbox {
    /// Resolves the components of an agent path (relative to the root, as [`Sandbox::lexical`]
    /// gives them) to a location. `follow`: a final link is followed (as `open` and `stat`
    /// do), else the location is the link itself. `slash`: the path named a directory.
    pub(super) fn walk(&self, comps: &[&[u8]], follow: bool, slash: bool) -> Result<Loc, FsError> {
        let follow = follow || slash;
        if let Some(loc) = self.walk_fast(comps, follow, slash)? {
            return Ok(loc);
        }
        self.walk_slow(comps, follow, slash)
    }

    /// The common case in one system call: no `..`, no link above the final name. The
    /// parent is opened with `RESOLVE_NO_SYMLINKS`; `None` sends the path to the full walk.
    fn walk_fast(
        &self,
        comps: &[&[u8]],
        follow: bool,
        slash: bool,
    ) -> Result<Option<Loc>, FsError> {
        if comps.iter().any(|c| *c == b"..") {
            return Ok(None);
        }
        let Some((last, parents)) = comps.split_last() else {
            return Ok(Some(Self::root_loc(slash)));
        };
        let mut rel: Vec<u8> = Vec::new();
        for (i, c) in parents.iter().enumerate() {
            if i == 0 {
                rel.extend_from_slice(&self.agent_root_name(c));
            } else {
                rel.push(b'/');
                rel.extend_from_slice(c);
            }
        }
        // A name at the root needs no handle of its own: `at` gives the root.
        let parent: Option<Arc<Dir>> = if parents.is_empty() {
            None
        } else {
            match self.open_dir_nosym(Path::new(OsStr::from_bytes(&rel))) {
                Ok(d) => Some(Arc::new(d)),
                // A link on the way (`ELOOP`, or `ENOTDIR` when it is the last one), or
                // something the full walk answers with the right error.
                Err(e) if matches!(e.raw_os_error(), Some(40 | 20 | 18)) => return Ok(None),
                Err(e) => return Err(self.host_err(Path::new(OsStr::from_bytes(&rel)), e)),
            }
        };
        let name = if parents.is_empty() {
            self.agent_root_name(last)
        } else {
            last.to_vec()
        };
        if parents.is_empty() && self.is_state_name(&name) {
            return Err(self.refuse(&name, "the state directory"));
        }
        let mut seen = None;
        if follow || slash {
            let dir = parent.as_deref().unwrap_or(&self.root);
            let (kind, found) = Self::final_look(dir, &name)?;
            match kind {
                Final::Link if follow => return Ok(None),
                Final::Link | Final::Other if slash => return Err(FsError::NotADirectory),
                _ => seen = found,
            }
        }
        if !rel.is_empty() {
            rel.push(b'/');
        }
        rel.extend_from_slice(&name);
        let loc = Loc {
            rel: PathBuf::from(OsString::from_vec(rel)),
            parent,
            slash,
            seen,
        };
        self.check_hidden(&loc)?;
        Ok(Some(loc))
    }

    /// Opens the object a virtual path names (`flags`: how; a final link followed when
    /// `follow` or when the path ends in `/`), for reading it, listing it or asking what it
    /// is. The common case is one system call: with no `..` in the path, the whole path is
    /// opened with `RESOLVE_NO_SYMLINKS`, so it is physical as written and the decision on it
    /// (hidden, the state directory) is the decision on what is opened. A link anywhere sends
    /// the path to the full walk, and the object is opened relative to the parent handle the
    /// walk ended on, without following it.
    pub(super) fn open_object(
        &self,
        vpath: &Path,
        follow: bool,
        flags: OFlags,
    ) -> Result<(std::os::fd::OwnedFd, Loc), FsError> {
        let (comps, slash) = self.lexical(vpath)?;
        let follow = follow || slash;
        let mut flags = flags | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        if !flags.contains(OFlags::PATH) {
            // `openat2` refuses any other flag beside `O_PATH`.
            flags |= OFlags::NOCTTY;
        }
        if slash {
            flags |= OFlags::DIRECTORY;
        }
        if !comps.is_empty() && !comps.iter().any(|c| *c == b"..") {
            let mut rel = self.agent_root_name(comps[0]);
            for c in &comps[1..] {
                rel.push(b'/');
                rel.extend_from_slice(c);
            }
            let loc = Loc {
                rel: PathBuf::from(OsString::from_vec(rel)),
                parent: None,
                slash,
                seen: None,
            };
            self.check_hidden(&loc)?;
            let how =
                ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
            // Following: a final link fails with `ELOOP` under `RESOLVE_NO_SYMLINKS` (with
            // `O_PATH | O_NOFOLLOW` it would be opened itself).
            let fast_flags = if follow {
                flags - OFlags::NOFOLLOW
            } else {
                flags
            };
            match rustix::fs::openat2(&self.root, &loc.rel, fast_flags, Mode::empty(), how) {
                Ok(fd) => return Ok((fd, loc)),
                // A link (in a parent, or the final one to follow), an error the full walk
                // names precisely (`file/x`), or a retry the kernel asks for.
                Err(
                    rustix::io::Errno::LOOP
                    | rustix::io::Errno::NOTDIR
                    | rustix::io::Errno::XDEV
                    | rustix::io::Errno::AGAIN,
                ) => {}
                Err(e) => return Err(self.host_err(&loc.rel, e.into())),
            }
        }
        for _ in 0..4 {
            let loc = self.walk(&comps, follow, slash)?;
            let (dir, name) = self.at(&loc)?;
            match rustix::fs::openat(&*dir, name.unwrap_or(OsStr::new(".")), flags, Mode::empty()) {
                // A path handle of a final name that became a link since the walk: walk again.
                Ok(fd)
                    if follow
                        && flags.contains(OFlags::PATH)
                        && rustix::fs::fstat(&fd).is_ok_and(|st| {
                            rustix::fs::FileType::from_raw_mode(st.st_mode)
                                == rustix::fs::FileType::Symlink
                        }) => {}
                Ok(fd) => return Ok((fd, loc)),
                // The final name became a link since the walk: walk again.
                Err(rustix::io::Errno::LOOP) if follow => {}
                Err(e) => return Err(self.host_err(&loc.rel, e.into())),
            }
        }
        Err(FsError::TooManyLinks)
    }

    /// The full walk: one directory at a time, links followed by hand, `..` on the walk's own
    /// stack of handles.
    fn walk_slow(&self, comps: &[&[u8]], follow: bool, slash: bool) -> Result<Loc, FsError> {
        let mut pending: std::collections::VecDeque<Pending> = comps
            .iter()
            .map(|c| Pending {
                name: c.to_vec(),
                agent: true,
            })
            .collect();
        // The directories entered, with their physical names.
        let mut stack: Vec<(Dir, OsString)> = Vec::new();
        let mut hops = 0usize;
        while let Some(c) = pending.pop_front() {
            self.guard.check()?;
            match c.name.as_slice() {
                b"" | b"." => continue,
                b".." => {
                    match stack.pop() {
                        Some((_, name)) => {
                            // Leaving a directory the walk went through: it must not have
                            // been one the agent cannot see (`secret/../x`).
                            let mut p = phys_of(&stack);
                            p.push(&name);
                            if self.is_hidden_phys(&p) {
                                return Err(self.refuse(
                                    p.as_os_str().as_bytes(),
                                    "hidden by policy (passed through)",
                                ));
                            }
                        }
                        // `/..` is `/` when the root is shown as `/`.
                        None if c.agent && self.mount_comps.is_empty() => {}
                        None => {
                            return Err(
                                self.refuse(&c.name, "escape: a link climbs above the root")
                            );
                        }
                    }
                    continue;
                }
                _ => {}
            }
            let name = if c.agent && stack.is_empty() {
                self.agent_root_name(&c.name)
            } else {
                c.name.clone()
            };
            if stack.is_empty() && self.is_state_name(&name) {
                return Err(self.refuse(&name, "the state directory"));
            }
            if name.len() > 255 {
                return Err(FsError::NameTooLong);
            }
            let is_last = pending.iter().all(|p| p.name == b"." || p.name.is_empty());
            if is_last && !follow {
                if slash
                    && !matches!(
                        Self::final_kind(self.top(&stack), &name)?,
                        Final::Dir | Final::Missing
                    )
                {
                    return Err(FsError::NotADirectory);
                }
                return self.finish(stack, &name, slash, None);
            }
            let (kind, seen) = Self::final_look(self.top(&stack), &name)?;
            match kind {
                Final::Missing | Final::Dir if is_last => {
                    return self.finish(stack, &name, slash, seen);
                }
                Final::Missing => return Err(FsError::NotFound),
                Final::Link => {
                    hops += 1;
                    if hops > MAX_LINK_HOPS {
                        return Err(FsError::TooManyLinks);
                    }
                    let target = self
                        .top(&stack)
                        .read_link_contents(OsStr::from_bytes(&name))
                        .map_err(map_err)?;
                    let bytes = target.as_os_str().as_bytes();
                    if bytes.first() == Some(&b'/') {
                        // An absolute target is an agent's path: walked again from the root
                        // when it lies under the mount point (`ln -s "$PWD/a" l`), leading
                        // out (and dangling) otherwise.
                        let Ok((comps, _)) = self.lexical(Path::new(OsStr::from_bytes(bytes)))
                        else {
                            return Err(self.refuse(&name, "a symlink with an absolute target"));
                        };
                        stack.clear();
                        for part in comps.iter().rev() {
                            pending.push_front(Pending {
                                name: part.to_vec(),
                                agent: true,
                            });
                        }
                        continue;
                    }
                    if bytes.is_empty() {
                        return Err(FsError::NotFound);
                    }
                    for part in bytes.split(|&b| b == b'/').rev() {
                        pending.push_front(Pending {
                            name: part.to_vec(),
                            agent: false,
                        });
                    }
                }
                Final::Dir => {
                    let d = self
                        .top(&stack)
                        .open_dir_nofollow(OsStr::from_bytes(&name))
                        .map_err(map_err)?;
                    stack.push((d, OsString::from_vec(name)));
                }
                Final::Other if is_last => {
                    if slash {
                        return Err(FsError::NotADirectory);
                    }
                    return self.finish(stack, &name, slash, seen);
                }
                Final::Other => return Err(FsError::NotADirectory),
            }
        }
        // Every component was `.`/`..`: a directory on the stack (or the root).
        match stack.pop() {
            None => Ok(Self::root_loc(slash)),
            Some((_, name)) => self.finish(stack, name.as_bytes(), slash, None),
        }
    }

    /// The directory on top of a walk's stack (the root when it is empty).
    fn top<'a>(&'a self, stack: &'a [(Dir, OsString)]) -> &'a Dir {
        stack.last().map_or(&self.root, |(d, _)| d)
    }

    /// The location of `name` in the directory on top of `stack`.
    fn finish(
        &self,
        mut stack: Vec<(Dir, OsString)>,
        name: &[u8],
        slash: bool,
        seen: Seen,
    ) -> Result<Loc, FsError> {
        let mut rel = phys_of(&stack);
        rel.push(OsStr::from_bytes(name));
        let loc = Loc {
            rel,
            parent: stack.pop().map(|(d, _)| Arc::new(d)),
            slash,
            seen,
        };
        self.check_hidden(&loc)?;
        Ok(loc)
    }

    fn root_loc(slash: bool) -> Loc {
        Loc {
            rel: PathBuf::from("."),
            parent: None,
            slash,
            seen: None,
        }
    }

    /// What `name` is in `dir`, without following it.
    fn final_kind(dir: &Dir, name: &[u8]) -> Result<Final, FsError> {
        Self::final_look(dir, name).map(|(kind, _)| kind)
    }

    /// [`Sandbox::final_kind`], with what was found (not for a link).
    fn final_look(dir: &Dir, name: &[u8]) -> Result<(Final, Seen), FsError> {
        match dir.symlink_metadata(OsStr::from_bytes(name)) {
            Ok(m) if m.file_type().is_symlink() => Ok((Final::Link, None)),
            Ok(m) if m.is_dir() => Ok((Final::Dir, Some(Some(Before::of(&m))))),
            Ok(m) => Ok((Final::Other, Some(Some(Before::of(&m))))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok((Final::Missing, Some(None))),
            Err(e) => Err(map_err(e)),
        }
    }

    /// Refuses a location the policy hides (it or a directory above it).
    fn check_hidden(&self, loc: &Loc) -> Result<(), FsError> {
        if self.is_hidden_phys(&loc.rel) {
            return Err(self.refuse(loc.rel.as_os_str().as_bytes(), "hidden by policy"));
        }
        Ok(())
    }

    /// Whether a physical path is hidden by the policy.
    pub(super) fn is_hidden_phys(&self, rel: &Path) -> bool {
        self.rules
            .as_ref()
            .is_some_and(|r| r.has_hidden() && r.is_hidden(rel))
    }

    /// Whether a physical name at the root is the state directory's.
    pub(super) fn is_state_name(&self, name: &[u8]) -> bool {
        self.hidden.as_ref().is_some_and(|h| h.as_bytes() == name)
    }

    /// The physical name at the root of a name the agent wrote: the state directory's name
    /// and its `~` escapes get one more `~`.
    pub(super) fn agent_root_name(&self, name: &[u8]) -> Vec<u8> {
        match &self.hidden {
            Some(h) if is_escape_of(h.as_bytes(), name) => {
                let mut n = name.to_vec();
                n.push(b'~');
                n
            }
            _ => name.to_vec(),
        }
    }

    /// The agent's name for a physical name at the root (`None`: the state directory, which
    /// has none).
    pub(super) fn root_name_for_agent(&self, name: &OsStr) -> Option<OsString> {
        match &self.hidden {
            Some(h) if h.as_os_str() == name => None,
            Some(h) if is_escape_of(h.as_bytes(), name.as_bytes()) => Some(OsString::from_vec(
                name.as_bytes()[..name.len() - 1].to_vec(),
            )),
            _ => Some(name.to_os_string()),
        }
    }

    /// The parent directory handle and the final name of a location: the handle the walk
    /// ended on, or the parent reopened from the root without following any link.
    pub(super) fn at<'a>(
        &'a self,
        loc: &'a Loc,
    ) -> Result<(DirRef<'a>, Option<&'a OsStr>), FsError> {
        let Some(name) = loc.name() else {
            return Ok((DirRef::Borrowed(&self.root), None));
        };
        if let Some(p) = &loc.parent {
            return Ok((DirRef::Borrowed(p), Some(name)));
        }
        match loc.rel.parent() {
            Some(p) if !p.as_os_str().is_empty() => {
                let d = self
                    .open_dir_nosym(p)
                    .map_err(|e| self.host_err(&loc.rel, e))?;
                Ok((DirRef::Owned(d), Some(name)))
            }
            _ => Ok((DirRef::Borrowed(&self.root), Some(name))),
        }
    }

    /// Opens a directory beneath the root by a physical path, refusing any link on the way.
    pub(super) fn open_dir_nosym(&self, rel: &Path) -> io::Result<Dir> {
        let how = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        let mut flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        for _ in 0..8 {
            match rustix::fs::openat2(&self.root, rel, flags, Mode::empty(), how) {
                Ok(fd) => return Ok(Dir::from_std_file(std::fs::File::from(fd))),
                Err(rustix::io::Errno::AGAIN) => {}
                // A directory that can be searched but not listed: a path handle still
                // serves as the base of the operations.
                Err(rustix::io::Errno::ACCESS) if !flags.contains(OFlags::PATH) => {
                    flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW;
                }
                Err(e) => return Err(e.into()),
            }
        }
        Err(io::Error::from_raw_os_error(11))
    }
}

/// The physical path of the directory on top of a walk's stack.
fn phys_of(stack: &[(Dir, OsString)]) -> PathBuf {
    let mut p = PathBuf::new();
    for (_, n) in stack {
        p.push(n);
    }
    p
}

/// Whether `name` is `base` followed by zero or more `~`.
fn is_escape_of(base: &[u8], name: &[u8]) -> bool {
    name.starts_with(base) && name[base.len()..].iter().all(|&b| b == b'~')
}

#[cfg(test)]
mod tests {
    use super::is_escape_of;

    #[test]
    fn escapes() {
        assert!(is_escape_of(b".trash", b".trash"));
        assert!(is_escape_of(b".trash", b".trash~~"));
        assert!(!is_escape_of(b".trash", b".trash2"));
        assert!(!is_escape_of(b".trash", b".tras"));
    }
}
