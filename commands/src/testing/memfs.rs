//! An in-memory [`FsView`] for tests: a tree built in a few lines, resolved the way the kernel
//! resolves a path (links followed component by component, `..` physical, a trailing slash
//! demanding a directory), with an optional root above which nothing exists — the same shape
//! the runtime's contained view has at its mount point.
//!
//! ```
//! use trumansh_commands::memfs::MemFs;
//! let fs = MemFs::new().dir("/s/d").file("/s/d/f", b"x").symlink("/s/l", "d");
//! ```

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::{DirEntry, FileKind, FsError, FsView, Meta, ReadSeek};

/// How many links one resolution may follow before `ELOOP`, as Linux's 40.
const MAX_LINKS: usize = 40;

/// The default time of every node: 2023-11-14 22:13:20 UTC, fixed so tests are stable.
pub const DEFAULT_TIME: Duration = Duration::from_secs(1_700_000_000);

#[derive(Debug, Clone)]
enum Body {
    Dir(Vec<OsString>),
    File(Vec<u8>),
    Symlink(PathBuf),
    /// A fifo, socket or device (`FileKind::is_special`).
    Special(FileKind),
}

#[derive(Debug, Clone)]
struct Node {
    body: Body,
    perm: u32,
    ino: u64,
    atime: SystemTime,
    mtime: SystemTime,
    /// An error `read_dir`/`open` give for this node (an unreadable directory, say).
    fail: Option<FsError>,
}

/// An in-memory sandbox view. Paths are virtual absolute paths, as for any [`FsView`].
#[derive(Debug, Clone)]
pub struct MemFs {
    /// Physical absolute path → node. Only paths beneath `root` are ever stored.
    nodes: HashMap<PathBuf, Node>,
    root: PathBuf,
    next_ino: u64,
}

impl Default for MemFs {
    fn default() -> Self {
        MemFs::new()
    }
}

/// Splits a virtual path into its components, keeping `.` and `..` (unlike
/// [`Path::components`], which drops an inner `.` and so would let `file/.` pass).
fn parts(path: &Path) -> (Vec<&OsStr>, bool) {
    let bytes = path.as_os_str().as_bytes();
    let trailing_slash = bytes.len() > 1 && bytes.ends_with(b"/");
    let v = bytes
        .split(|&b| b == b'/')
        .filter(|c| !c.is_empty())
        .map(OsStr::from_bytes)
        .collect();
    (v, trailing_slash)
}

impl MemFs {
    /// An empty tree whose root is `/`.
    pub fn new() -> Self {
        MemFs::rooted("/")
    }

    /// An empty tree where only `root` and what lies beneath it exist: `root/..` is not found,
    /// as at the runtime's mount point.
    pub fn rooted(root: impl AsRef<Path>) -> Self {
        let root = root.as_ref().to_path_buf();
        let mut fs = MemFs {
            nodes: HashMap::new(),
            root: PathBuf::from("/"),
            next_ino: 2,
        };
        fs.insert(Path::new("/"), Body::Dir(Vec::new()), 0o755);
        let mut cur = PathBuf::from("/");
        for c in parts(&root).0 {
            cur.push(c);
            fs.insert_child(&cur, Body::Dir(Vec::new()), 0o755);
        }
        // Now forget everything above the root.
        fs.nodes.retain(|p, _| p.starts_with(&root));
        fs.root = root;
        fs
    }

    fn insert(&mut self, path: &Path, body: Body, perm: u32) {
        let t = SystemTime::UNIX_EPOCH + DEFAULT_TIME;
        let ino = self.next_ino;
        self.next_ino += 1;
        self.nodes.insert(
            path.to_path_buf(),
            Node {
                body,
                perm,
                ino,
                atime: t,
                mtime: t,
                fail: None,
            },
        );
    }

    /// Inserts (or replaces) `path` and links it into its parent's entry list.
    fn insert_child(&mut self, path: &Path, body: Body, perm: u32) {
        if let (Some(parent), Some(name)) = (path.parent(), path.file_name())
            && let Some(Node {
                body: Body::Dir(children),
                ..
            }) = self.nodes.get_mut(parent)
            && !children.iter().any(|c| c == name)
        {
            children.push(name.to_os_string());
        }
        self.insert(path, body, perm);
    }

    /// Creates the parents of a builder path as directories (`mkdir -p`), returning the
    /// normalised absolute path.
    fn prepare(&mut self, path: &str) -> PathBuf {
        let mut cur = PathBuf::from("/");
        let (comps, _) = parts(Path::new(path));
        let n = comps.len();
        for (i, c) in comps.into_iter().enumerate() {
            cur.push(c);
            if i + 1 < n && !self.nodes.contains_key(&cur) && cur.starts_with(&self.root) {
                self.insert_child(&cur, Body::Dir(Vec::new()), 0o755);
            }
        }
        cur
    }

    /// Adds a directory (and its missing parents).
    #[must_use]
    pub fn dir(mut self, path: &str) -> Self {
        let p = self.prepare(path);
        if !self.nodes.contains_key(&p) {
            self.insert_child(&p, Body::Dir(Vec::new()), 0o755);
        }
        self
    }

    /// Adds a regular file with `data` (and its missing parents).
    #[must_use]
    pub fn file(mut self, path: &str, data: &[u8]) -> Self {
        let p = self.prepare(path);
        self.insert_child(&p, Body::File(data.to_vec()), 0o644);
        self
    }

    /// Adds a symbolic link at `path` whose stored target is `target`.
    #[must_use]
    pub fn symlink(mut self, path: &str, target: &str) -> Self {
        let p = self.prepare(path);
        self.insert_child(&p, Body::Symlink(PathBuf::from(target)), 0o777);
        self
    }

    /// Adds a fifo, socket or device (`kind` must be special). As in the sandbox, a fifo
    /// cannot be opened (`WouldBlock`), a socket neither (`NoDevice`), and a device reads as
    /// empty.
    #[must_use]
    pub fn special(mut self, path: &str, kind: FileKind) -> Self {
        let p = self.prepare(path);
        self.insert_child(&p, Body::Special(kind), 0o644);
        self
    }

    /// Sets the permission bits of an existing node.
    #[must_use]
    pub fn perm(mut self, path: &str, perm: u32) -> Self {
        if let Some(n) = self.nodes.get_mut(Path::new(path)) {
            n.perm = perm;
        }
        self
    }

    /// Sets the access and modification times of an existing node.
    #[must_use]
    pub fn times(mut self, path: &str, atime: SystemTime, mtime: SystemTime) -> Self {
        if let Some(n) = self.nodes.get_mut(Path::new(path)) {
            n.atime = atime;
            n.mtime = mtime;
        }
        self
    }

    /// Makes `read_dir`/`open` of an existing node fail with `err` (stat still works), to
    /// model an unreadable directory or file.
    #[must_use]
    pub fn fail(mut self, path: &str, err: FsError) -> Self {
        if let Some(n) = self.nodes.get_mut(Path::new(path)) {
            n.fail = Some(err);
        }
        self
    }

    /// A proper ancestor of the root: it can be walked through on the way down, but it does
    /// not exist itself.
    fn is_above_root(&self, p: &Path) -> bool {
        self.root.starts_with(p) && self.root != p
    }

    fn node(&self, p: &Path) -> Option<&Node> {
        if p.starts_with(&self.root) {
            self.nodes.get(p)
        } else {
            None
        }
    }

    /// Resolves a virtual path to the physical path of an existing node.
    fn resolve(&self, path: &Path, follow_last: bool) -> Result<PathBuf, FsError> {
        if !path.is_absolute() {
            return Err(FsError::NotFound);
        }
        let (comps, trailing_slash) = parts(path);
        // Remaining components, innermost last so `pop` takes the next one.
        let mut todo: Vec<OsString> = comps.iter().rev().map(|c| c.to_os_string()).collect();
        let mut cur = PathBuf::from("/");
        let mut links = 0;
        while let Some(c) = todo.pop() {
            let is_last = todo.is_empty();
            // Every step starts from a directory that must exist (or lead down to the root).
            if !self.is_above_root(&cur) {
                match self.node(&cur) {
                    None => return Err(FsError::NotFound),
                    Some(Node {
                        body: Body::Dir(_), ..
                    }) => {}
                    Some(_) => return Err(FsError::NotADirectory),
                }
            }
            if c == "." {
                continue;
            }
            if c == ".." {
                cur.pop();
                continue;
            }
            let next = cur.join(&c);
            if self.is_above_root(&next) {
                cur = next;
                continue;
            }
            let Some(node) = self.node(&next) else {
                return Err(FsError::NotFound);
            };
            if let Body::Symlink(target) = &node.body
                && (!is_last || follow_last || trailing_slash)
            {
                links += 1;
                if links > MAX_LINKS {
                    return Err(FsError::TooManyLinks);
                }
                let (tparts, _) = parts(target);
                for t in tparts.iter().rev() {
                    todo.push(t.to_os_string());
                }
                if target.is_absolute() {
                    cur = PathBuf::from("/");
                }
                continue;
            }
            cur = next;
        }
        match self.node(&cur) {
            None => Err(FsError::NotFound),
            Some(n) if trailing_slash && !matches!(n.body, Body::Dir(_)) => {
                Err(FsError::NotADirectory)
            }
            Some(_) => Ok(cur),
        }
    }

    fn meta(&self, p: &Path, n: &Node) -> Meta {
        let (kind, len, nlink) = match &n.body {
            Body::Dir(children) => {
                let subdirs = children
                    .iter()
                    .filter(|c| {
                        matches!(
                            self.nodes.get(&p.join(c)),
                            Some(Node {
                                body: Body::Dir(_),
                                ..
                            })
                        )
                    })
                    .count() as u64;
                (FileKind::Dir, 4096, 2 + subdirs)
            }
            Body::File(d) => (FileKind::File, d.len() as u64, 1),
            Body::Symlink(t) => (FileKind::Symlink, t.as_os_str().len() as u64, 1),
            Body::Special(kind) => (*kind, 0, 1),
        };
        let blocks = if kind == FileKind::Symlink {
            0
        } else {
            len.div_ceil(4096) * 8
        };
        Meta {
            kind,
            len,
            perm: n.perm,
            nlink,
            ino: n.ino,
            dev: 1,
            blocks,
            atime: n.atime,
            mtime: n.mtime,
            ctime: n.mtime,
        }
    }
}

/// A reader over a directory: `read(2)` gives `EISDIR`.
struct DirReader;

impl Read for DirReader {
    fn read(&mut self, _buf: &mut [u8]) -> std::io::Result<usize> {
        Err(std::io::Error::from(std::io::ErrorKind::IsADirectory))
    }
}

impl std::io::Seek for DirReader {
    fn seek(&mut self, _pos: std::io::SeekFrom) -> std::io::Result<u64> {
        Ok(0)
    }
}

impl FsView for MemFs {
    fn stat(&self, path: &Path, follow: bool) -> Result<Meta, FsError> {
        let p = self.resolve(path, follow)?;
        let n = self.node(&p).ok_or(FsError::NotFound)?;
        Ok(self.meta(&p, n))
    }

    fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>, FsError> {
        let p = self.resolve(path, true)?;
        let n = self.node(&p).ok_or(FsError::NotFound)?;
        if let Some(e) = &n.fail {
            return Err(e.clone());
        }
        let Body::Dir(children) = &n.body else {
            return Err(FsError::NotADirectory);
        };
        Ok(children
            .iter()
            .filter_map(|c| {
                let child = self.nodes.get(&p.join(c))?;
                let kind = match child.body {
                    Body::Dir(_) => FileKind::Dir,
                    Body::File(_) => FileKind::File,
                    Body::Symlink(_) => FileKind::Symlink,
                    Body::Special(kind) => kind,
                };
                Some(DirEntry {
                    name: c.clone(),
                    kind,
                })
            })
            .collect())
    }

    fn open(&self, path: &Path) -> Result<Box<dyn ReadSeek + '_>, FsError> {
        let p = self.resolve(path, true)?;
        let n = self.node(&p).ok_or(FsError::NotFound)?;
        if let Some(e) = &n.fail {
            return Err(e.clone());
        }
        match &n.body {
            Body::File(d) => Ok(Box::new(std::io::Cursor::new(d.as_slice()))),
            Body::Dir(_) => Ok(Box::new(DirReader)),
            Body::Special(FileKind::Fifo) => Err(FsError::WouldBlock),
            Body::Special(FileKind::Socket) => Err(FsError::NoDevice),
            Body::Special(_) | Body::Symlink(_) => Ok(Box::new(std::io::empty())),
        }
    }

    fn read_link(&self, path: &Path) -> Result<PathBuf, FsError> {
        let p = self.resolve(path, false)?;
        match self.node(&p).map(|n| &n.body) {
            Some(Body::Symlink(t)) => Ok(t.clone()),
            Some(_) => Err(FsError::InvalidArgument),
            None => Err(FsError::NotFound),
        }
    }

    fn canonicalize(&self, path: &Path) -> Result<PathBuf, FsError> {
        self.resolve(path, true)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn fs() -> MemFs {
        MemFs::rooted("/s")
            .dir("/s/d")
            .file("/s/d/f", b"hello")
            .symlink("/s/l", "d")
            .symlink("/s/abs", "/s/d/f")
            .symlink("/s/out", "../etc")
            .symlink("/s/loop", "loop")
    }

    #[test]
    fn follows_links_and_dotdot_physically() {
        let fs = fs();
        assert!(fs.stat(Path::new("/s/l"), true).unwrap().is_dir());
        assert!(fs.stat(Path::new("/s/l"), false).unwrap().is_symlink());
        assert_eq!(
            fs.canonicalize(Path::new("/s/l/f")).unwrap(),
            Path::new("/s/d/f")
        );
        assert_eq!(
            fs.canonicalize(Path::new("/s/l/../d/./f")).unwrap(),
            Path::new("/s/d/f")
        );
        assert_eq!(fs.read(Path::new("/s/abs")).unwrap(), b"hello");
    }

    #[test]
    fn nothing_exists_above_the_root() {
        let fs = fs();
        assert_eq!(fs.stat(Path::new("/s/.."), true), Err(FsError::NotFound));
        assert_eq!(fs.stat(Path::new("/"), true), Err(FsError::NotFound));
        assert_eq!(fs.stat(Path::new("/s/out"), true), Err(FsError::NotFound));
        assert!(fs.stat(Path::new("/s/out"), false).is_ok());
        assert!(fs.stat(Path::new("/s"), true).unwrap().is_dir());
    }

    #[test]
    fn errors_are_the_kernels() {
        let fs = fs();
        assert_eq!(
            fs.stat(Path::new("/s/d/f/"), true),
            Err(FsError::NotADirectory)
        );
        assert_eq!(
            fs.stat(Path::new("/s/d/f/."), true),
            Err(FsError::NotADirectory)
        );
        assert_eq!(
            fs.stat(Path::new("/s/loop"), true),
            Err(FsError::TooManyLinks)
        );
        assert_eq!(fs.read(Path::new("/s/d")), Err(FsError::IsADirectory));
        assert_eq!(fs.read_link(Path::new("/s/l")).unwrap(), Path::new("d"));
        assert_eq!(
            fs.read_link(Path::new("/s/d")),
            Err(FsError::InvalidArgument)
        );
        assert_eq!(fs.stat(Path::new(""), true), Err(FsError::NotFound));
    }

    #[test]
    fn read_dir_keeps_insertion_order() {
        let fs = MemFs::new().file("/b", b"").dir("/a").symlink("/c", "a");
        let names: Vec<_> = fs
            .read_dir(Path::new("/"))
            .unwrap()
            .into_iter()
            .map(|e| (e.name, e.kind))
            .collect();
        assert_eq!(
            names,
            vec![
                ("b".into(), FileKind::File),
                ("a".into(), FileKind::Dir),
                ("c".into(), FileKind::Symlink)
            ]
        );
        assert_eq!(fs.stat(Path::new("/"), true).unwrap().nlink, 3);
    }
}
