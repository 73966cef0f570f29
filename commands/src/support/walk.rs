//! The one directory walk: iterative (a stack of open directories, never recursion), in the
//! order `read_dir` gives (GNU's `fts` without sorting), with the depth cap of the policy
//! (`ctx.walk_depth`), the follow modes of `-P`/`-H`/`-L`, loop detection when links are
//! followed, and both orders: every entry is reported when it is met (pre-order), and a
//! directory that was descended into is reported again when it is done ([`Visit::Leave`],
//! post-order: `rm -r`, `find -depth`, `du`).
//!
//! The consumer keeps the decisions that differ per command: it asks to descend into a
//! directory ([`Walk::descend`]) and gets the reason when that is refused (too deep, a loop,
//! unreadable), so that `grep -r` can skip excluded directories and say `recursive directory
//! loop`, and `rm -r` can list an unreadable directory with its error. Each open directory
//! can carry data of the consumer's, given back at its `Leave` (`find -delete`: whether
//! everything in it went; `cp -r`: its destination); an order hook sees every directory's
//! entries before they are reported (`cp -r` reads by inode number); `looped` and
//! `too_deep` answer before the consumer commits to a directory.
//!
//! Listing mode ([`Walk::listing`], `ls -R`): a directory's entries are all reported, then
//! [`Visit::Listed`] (the directory still open, its data at [`Walk::data_mut`]), then the
//! directories the consumer queued with [`Walk::descend_later`] are entered one after the
//! other in queue order, each as a directory of its own (its entries, its `Listed`, its
//! queued ones, its `Leave`), and only then the directory's [`Visit::Leave`]. A queued
//! directory that cannot be entered comes back as [`Visit::Refused`] when its turn comes.
//! Neither event is ever reported to a walk that does not ask for them.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use crate::support::paths::join_display;
use crate::{DirEntry, FileKind, FsError, FsView};

/// Which links the walk follows below its roots. `-H` (command-line links only) is
/// [`Follow::Never`] with a root the caller resolved by following its operand, as GNU's
/// `FTS_COMFOLLOW` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    /// `-P`: never; a link is an entry of kind `Symlink`.
    Never,
    /// `-L`: every link; an entry has the kind of its target, and a directory that is one
    /// of its own ancestors is refused as a loop.
    Always,
}

/// One object met by the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// The path to give the view.
    pub path: PathBuf,
    /// The name to show: the root's as given, joined with the names below it (a root shown
    /// as the empty string shows its entries bare, as `grep -r` with no operand does).
    pub display: OsString,
    /// The entry's kind: its own, or its target's when the walk follows links.
    pub kind: FileKind,
    /// How many directories are open above it (a root's entries are at depth 1).
    pub depth: usize,
}

/// What the walk reports.
#[derive(Debug)]
pub enum Visit<T = ()> {
    /// An entry, met in directory order. A directory is only entered if the consumer
    /// calls [`Walk::descend`] with it.
    Entry(Node),
    /// A link the walk had to follow could not be: its display and the error.
    Broken(Node, FsError),
    /// A directory whose entries have all been reported (post-order), with the data the
    /// consumer gave it when it was entered.
    Leave(Node, T),
    /// Listing mode only: the directory whose entries have all been reported; it is still
    /// open (its data is [`Walk::data_mut`]'s) and what [`Walk::descend_later`] queues now
    /// is entered next.
    Listed(Node),
    /// A directory queued with [`Walk::descend_later`] that could not be entered when its
    /// turn came, why, and its data.
    Refused(Node, Refused, T),
}

/// Why [`Walk::descend`] did not enter a directory.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// The walk is already `max_depth` directories deep.
    TooDeep,
    /// Following links, the directory is one of its own ancestors.
    Loop,
    /// The directory could not be read.
    Unreadable(FsError),
}

/// A directory that [`Walk::descend_with`] did not enter, with the data it was given.
pub type Refusal<T> = (Node, Refused, T);

/// Reorders (or filters, or completes) a directory's entries before they are reported:
/// the directory, the data it was entered with, its entries in `read_dir` order.
pub type Order<'a, T> = Box<dyn FnMut(&Node, &T, &mut Vec<DirEntry>) + 'a>;

struct Frame<T> {
    node: Node,
    entries: std::vec::IntoIter<DirEntry>,
    /// `(dev, ino)` when following links, for loop detection.
    id: Option<(u64, u64)>,
    data: T,
    /// Directories queued by [`Walk::descend_later`], entered once `entries` are done.
    later: VecDeque<(Node, T)>,
    /// Whether [`Visit::Listed`] was reported (listing mode).
    listed: bool,
}

/// An iterative walk over the view; see the module doc. Each open directory carries a `T`
/// of the consumer's ([`Walk::descend_with`]), given back at its [`Visit::Leave`].
pub struct Walk<'a, T = ()> {
    fs: &'a dyn FsView,
    follow: Follow,
    max_depth: usize,
    stack: Vec<Frame<T>>,
    order: Option<Order<'a, T>>,
    listing: bool,
}

impl<'a> Walk<'a> {
    pub fn new(fs: &'a dyn FsView, follow: Follow, max_depth: usize) -> Self {
        Walk::carrying(fs, follow, max_depth)
    }

    /// A root node for a directory operand (not checked here: the caller has statted it).
    pub fn root(path: PathBuf, display: &OsStr) -> Node {
        Node {
            path,
            display: display.to_os_string(),
            kind: FileKind::Dir,
            depth: 0,
        }
    }
}

impl<T: Default> Walk<'_, T> {
    /// Enters a directory: its entries come next, then its [`Visit::Leave`]. Refused, in
    /// this order of checks (`grep -r`'s), when the directory is one of its ancestors (links
    /// followed), when the walk is already `max_depth` deep, or when it cannot be read.
    pub fn descend(&mut self, node: Node) -> Result<(), (Node, Refused)> {
        self.open(node, T::default(), true)
            .map_err(|(node, why, _)| (node, why))
    }

    /// [`Walk::descend`] without the depth cap: for a command-line root, which is read
    /// whatever the limit on what is below it.
    pub fn enter(&mut self, node: Node) -> Result<(), (Node, Refused)> {
        self.open(node, T::default(), false)
            .map_err(|(node, why, _)| (node, why))
    }
}

impl<'a, T> Walk<'a, T> {
    /// A walk whose open directories carry a `T` each.
    pub fn carrying(fs: &'a dyn FsView, follow: Follow, max_depth: usize) -> Self {
        Walk {
            fs,
            follow,
            max_depth,
            stack: Vec::new(),
            order: None,
            listing: false,
        }
    }

    /// Listing mode (see the module doc): [`Visit::Listed`] is reported when a directory's
    /// entries are done, before the directories queued with [`Walk::descend_later`].
    #[must_use]
    pub fn listing(mut self) -> Self {
        self.listing = true;
        self
    }

    /// Queues a directory to be entered (as [`Walk::descend_with`] does, with its checks)
    /// once the entries of the directory being reported are done, after those queued
    /// before it. A refusal comes back then, as [`Visit::Refused`]. With no directory
    /// open, the data comes back at once.
    pub fn descend_later(&mut self, node: Node, data: T) -> Result<(), (Node, T)> {
        match self.stack.last_mut() {
            Some(top) => {
                top.later.push_back((node, data));
                Ok(())
            }
            None => Err((node, data)),
        }
    }

    /// Every directory's entries go through `order` before they are reported (`cp` reads
    /// by inode number).
    #[must_use]
    pub fn ordered(mut self, order: impl FnMut(&Node, &T, &mut Vec<DirEntry>) + 'a) -> Self {
        self.order = Some(Box::new(order));
        self
    }

    /// [`Walk::descend`] with the directory's data.
    pub fn descend_with(&mut self, node: Node, data: T) -> Result<(), Refusal<T>> {
        self.open(node, data, true)
    }

    /// [`Walk::enter`] with the directory's data.
    pub fn enter_with(&mut self, node: Node, data: T) -> Result<(), Refusal<T>> {
        self.open(node, data, false)
    }

    /// The data of the directory whose entries are being reported.
    pub fn data_mut(&mut self) -> Option<&mut T> {
        self.stack.last_mut().map(|f| &mut f.data)
    }

    /// The open directories, outermost first, with their data.
    pub fn open_dirs(&self) -> impl DoubleEndedIterator<Item = (&Node, &T)> {
        self.stack.iter().map(|f| (&f.node, &f.data))
    }

    /// Whether [`Walk::descend`] would now be refused as [`Refused::TooDeep`].
    pub fn too_deep(&self) -> bool {
        self.stack.len() >= self.max_depth
    }

    /// Following links, the open directory that `node` is (a loop), checked before the
    /// consumer decides anything about it (`find` names the ancestor).
    pub fn looped(&self, node: &Node) -> Option<&Node> {
        if self.follow != Follow::Always {
            return None;
        }
        let id = self.id_of(node)?;
        self.stack
            .iter()
            .find(|f| f.id == Some(id))
            .map(|f| &f.node)
    }

    fn id_of(&self, node: &Node) -> Option<(u64, u64)> {
        self.fs.stat(&node.path, true).ok().map(|m| (m.dev, m.ino))
    }

    fn open(&mut self, node: Node, data: T, capped: bool) -> Result<(), Refusal<T>> {
        let id = if self.follow == Follow::Always {
            self.id_of(&node)
        } else {
            None
        };
        if id.is_some() && self.stack.iter().any(|f| f.id == id) {
            return Err((node, Refused::Loop, data));
        }
        if capped && self.too_deep() {
            return Err((node, Refused::TooDeep, data));
        }
        match self.fs.read_dir(&node.path) {
            Ok(mut entries) => {
                if let Some(order) = &mut self.order {
                    order(&node, &data, &mut entries);
                }
                self.stack.push(Frame {
                    node,
                    entries: entries.into_iter(),
                    id,
                    data,
                    later: VecDeque::new(),
                    listed: false,
                });
                Ok(())
            }
            Err(e) => Err((node, Refused::Unreadable(e), data)),
        }
    }
}

impl<T> Iterator for Walk<'_, T> {
    type Item = Visit<T>;

    fn next(&mut self) -> Option<Visit<T>> {
        let (depth, entry) = loop {
            let depth = self.stack.len();
            let top = self.stack.last_mut()?;
            if let Some(entry) = top.entries.next() {
                break (depth, entry);
            }
            if self.listing && !top.listed {
                top.listed = true;
                return Some(Visit::Listed(top.node.clone()));
            }
            match top.later.pop_front() {
                Some((node, data)) => {
                    if let Err((node, why, data)) = self.open(node, data, true) {
                        return Some(Visit::Refused(node, why, data));
                    }
                }
                None => return self.stack.pop().map(|f| Visit::Leave(f.node, f.data)),
            }
        };
        let top = self.stack.last_mut()?;
        let path = top.node.path.join(&entry.name);
        let display = if top.node.display.is_empty() {
            entry.name.clone()
        } else {
            join_display(&top.node.display, &entry.name)
        };
        let mut node = Node {
            path,
            display,
            kind: entry.kind,
            depth,
        };
        if entry.kind == FileKind::Symlink && self.follow == Follow::Always {
            match self.fs.stat(&node.path, true) {
                Ok(m) => node.kind = m.kind,
                Err(e) => return Some(Visit::Broken(node, e)),
            }
        }
        Some(Visit::Entry(node))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::testing::memfs::MemFs;

    fn tree() -> MemFs {
        MemFs::new()
            .dir("/t/a/b")
            .file("/t/a/b/f", b"")
            .file("/t/a/g", b"")
            .file("/t/h", b"")
            .symlink("/t/up", "/t")
    }

    /// Walks everything it may, as `(event, display)` lines.
    fn trace(fs: &MemFs, follow: Follow, max_depth: usize) -> Vec<String> {
        let mut w = Walk::new(fs, follow, max_depth);
        let mut out = Vec::new();
        w.enter(Walk::root(PathBuf::from("/t"), OsStr::new("t")))
            .unwrap();
        while let Some(v) = w.next() {
            match v {
                Visit::Entry(n) if n.kind == FileKind::Dir => {
                    let shown = n.display.to_string_lossy().into_owned();
                    match w.descend(n) {
                        Ok(()) => out.push(format!("pre {shown}")),
                        Err((_, why)) => out.push(format!("refused {shown} {why:?}")),
                    }
                }
                Visit::Entry(n) => {
                    out.push(format!("{:?} {}", n.kind, n.display.to_string_lossy()));
                }
                Visit::Broken(n, e) => {
                    out.push(format!("broken {} {e}", n.display.to_string_lossy()));
                }
                Visit::Leave(n, ()) => out.push(format!("post {}", n.display.to_string_lossy())),
                Visit::Listed(n) => out.push(format!("listed {}", n.display.to_string_lossy())),
                Visit::Refused(n, why, ()) => {
                    out.push(format!("refused {} {why:?}", n.display.to_string_lossy()));
                }
            }
        }
        out
    }

    /// A listing walk as `ls -R` does it: every directory's entries (sorted by name) are
    /// gathered, printed at `Listed` as one line, and its subdirectories queued in
    /// reverse name order (to show that the queue's order, not the directory's, rules).
    fn listing(fs: &MemFs, follow: Follow, max_depth: usize) -> Vec<String> {
        type Gathered = (Vec<String>, Vec<Node>);
        let mut w: Walk<Gathered> = Walk::carrying(fs, follow, max_depth).listing();
        let root = Walk::root(PathBuf::from("/t"), OsStr::new("t"));
        w.enter_with(root, Gathered::default()).unwrap();
        let mut out = Vec::new();
        while let Some(v) = w.next() {
            match v {
                Visit::Entry(n) | Visit::Broken(n, _) => {
                    let name = n.path.file_name().unwrap().to_string_lossy().into_owned();
                    let (names, dirs) = w.data_mut().unwrap();
                    names.push(format!("{name}@{}", n.depth));
                    if n.kind == FileKind::Dir {
                        dirs.push(n);
                    }
                }
                Visit::Listed(n) => {
                    let (mut names, mut dirs) = std::mem::take(w.data_mut().unwrap());
                    names.sort();
                    out.push(format!(
                        "{}: {}",
                        n.display.to_string_lossy(),
                        names.join(" ")
                    ));
                    dirs.sort_by(|a, b| b.path.cmp(&a.path));
                    for d in dirs {
                        w.descend_later(d, Gathered::default()).unwrap();
                    }
                }
                Visit::Refused(n, why, (names, _)) => {
                    assert!(names.is_empty());
                    out.push(format!("refused {} {why:?}", n.display.to_string_lossy()));
                }
                Visit::Leave(n, (names, _)) => {
                    assert!(names.is_empty());
                    out.push(format!("post {}", n.display.to_string_lossy()));
                }
            }
        }
        out
    }

    fn wide() -> MemFs {
        tree()
            .dir("/t/c/d")
            .file("/t/c/e", b"")
            .file("/t/a/b/.x", b"")
    }

    #[test]
    fn listing_mode_lists_each_directory_whole_then_its_queue_in_order() {
        let t = listing(&wide(), Follow::Never, 100);
        assert_eq!(
            t,
            [
                "t: a@1 c@1 h@1 up@1",
                "t/c: d@2 e@2",
                "t/c/d: ",
                "post t/c/d",
                "post t/c",
                "t/a: b@2 g@2",
                "t/a/b: .x@3 f@3",
                "post t/a/b",
                "post t/a",
                "post t"
            ]
        );
    }

    #[test]
    fn listing_mode_refuses_queued_directories_in_turn() {
        // Unreadable: reported when its turn comes, after the queued ones before it.
        let fs = wide().fail("/t/c", FsError::Io);
        let t = listing(&fs, Follow::Never, 100);
        assert_eq!(
            t,
            [
                "t: a@1 c@1 h@1 up@1",
                "refused t/c Unreadable(Io)",
                "t/a: b@2 g@2",
                "t/a/b: .x@3 f@3",
                "post t/a/b",
                "post t/a",
                "post t"
            ]
        );
        // The depth cap counts the directories open above the queued one, as descend does.
        let t = listing(&wide(), Follow::Never, 2);
        assert!(t.contains(&"refused t/a/b TooDeep".to_string()), "{t:?}");
        assert!(t.contains(&"refused t/c/d TooDeep".to_string()), "{t:?}");
        assert!(t.contains(&"t/a: b@2 g@2".to_string()), "{t:?}");
        // Following links, a queued ancestor is a loop; its ancestors are still open.
        let t = listing(&wide(), Follow::Always, 100);
        assert_eq!(
            t.get(1).map(String::as_str),
            Some("refused t/up Loop"),
            "{t:?}"
        );
    }

    #[test]
    fn descend_later_needs_an_open_directory() {
        let fs = tree();
        let mut w: Walk<u8> = Walk::carrying(&fs, Follow::Never, 100).listing();
        let root = Walk::root(PathBuf::from("/t"), OsStr::new("t"));
        assert_eq!(w.descend_later(root, 7).map_err(|(_, d)| d), Err(7));
    }

    #[test]
    fn pre_and_post_order_in_directory_order() {
        let t = trace(&tree(), Follow::Never, 100);
        assert_eq!(
            t,
            [
                "pre t/a",
                "pre t/a/b",
                "File t/a/b/f",
                "post t/a/b",
                "File t/a/g",
                "post t/a",
                "File t/h",
                "Symlink t/up",
                "post t"
            ]
        );
    }

    #[test]
    fn depth_cap_refuses_before_reading() {
        let t = trace(&tree(), Follow::Never, 2);
        assert!(t.contains(&"refused t/a/b TooDeep".to_string()), "{t:?}");
        assert!(!t.iter().any(|l| l.contains("t/a/b/f")));
    }

    #[test]
    fn following_links_detects_loops() {
        let t = trace(&tree(), Follow::Always, 100);
        assert!(t.contains(&"refused t/up Loop".to_string()), "{t:?}");
        let fs = tree().symlink("/t/gone", "/nowhere");
        let t = trace(&fs, Follow::Always, 100);
        assert!(
            t.contains(&"broken t/gone No such file or directory".to_string()),
            "{t:?}"
        );
    }

    #[test]
    fn unreadable_directories_are_reported_per_entry() {
        let fs = tree().fail("/t/a/b", FsError::Io);
        let t = trace(&fs, Follow::Never, 100);
        assert!(
            t.contains(&"refused t/a/b Unreadable(Io)".to_string()),
            "{t:?}"
        );
        assert!(t.contains(&"File t/a/g".to_string()));
    }

    #[test]
    fn an_empty_root_display_shows_bare_names() {
        let fs = tree();
        let mut w = Walk::new(&fs, Follow::Never, 100);
        w.enter(Walk::root(PathBuf::from("/t"), OsStr::new("")))
            .unwrap();
        let Some(Visit::Entry(n)) = w.next() else {
            panic!()
        };
        assert_eq!(n.display, "a");
    }

    #[test]
    fn data_comes_back_at_leave_and_the_order_hook_sorts() {
        let fs = tree();
        let mut w: Walk<usize> = Walk::carrying(&fs, Follow::Never, 100)
            .ordered(|_, _, entries| entries.sort_by(|a, b| b.name.cmp(&a.name)));
        w.enter_with(Walk::root(PathBuf::from("/t"), OsStr::new("t")), 0)
            .unwrap();
        let mut out = Vec::new();
        while let Some(v) = w.next() {
            match v {
                Visit::Entry(n) if n.kind == FileKind::Dir => {
                    let depth = n.depth;
                    w.descend_with(n, depth).unwrap();
                }
                Visit::Entry(n) | Visit::Broken(n, _) => {
                    *w.data_mut().unwrap() += 10;
                    out.push(n.display.to_string_lossy().into_owned());
                }
                Visit::Leave(n, d) => out.push(format!("{} {d}", n.display.to_string_lossy())),
                Visit::Listed(_) | Visit::Refused(..) => panic!("listing mode only"),
            }
        }
        assert_eq!(
            out,
            [
                "t/up", "t/h", "t/a/g", "t/a/b/f", "t/a/b 12", "t/a 11", "t 20"
            ]
        );
    }

    #[test]
    fn looped_names_the_ancestor() {
        let fs = tree();
        let mut w = Walk::new(&fs, Follow::Always, 100);
        w.enter(Walk::root(PathBuf::from("/t"), OsStr::new("t")))
            .unwrap();
        let up = Node {
            path: PathBuf::from("/t/up"),
            display: "t/up".into(),
            kind: FileKind::Dir,
            depth: 1,
        };
        assert_eq!(w.looped(&up).map(|n| n.display.clone()), Some("t".into()));
        assert!(!w.too_deep());
    }
}
