//! `cp [OPTION]... SOURCE... DEST`, GNU coreutils 9.1: one [`Op::Copy`] per file or link,
//! one [`Op::CreateDir`] per directory, the tree walked here (iteratively, depth-capped) in
//! GNU's order: each directory's entries by inode number, as `savedir` sorts them for a fast
//! read. Everything GNU checks before writing is checked here, so its diagnostics are GNU's,
//! including the partial copy GNU leaves when a directory is copied into itself (it stops when
//! the walk reaches the directory it created).
//!
//! Modes: a new file or directory gets the source's permission bits less a 022 umask, as GNU
//! does without `-p` (a [`Op::SetMode`] after the copy when that differs from the default);
//! `-p`/`-a` keep mode and times (directories get theirs once their content is copied).
//! Replacing an existing destination by a link (`-P`, `-d`, `-a`, `-r`) moves the old one to
//! the trash first, as `rm` would. Prompts (`-i`) go to stderr and read their answers from
//! the command's stdin; an empty stdin answers no.
//!
//! The target logic (`-t`, `-T`, a last operand that is a directory) is shared with `mv`.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::Stop;
use crate::fs::target::{has_trailing_slash, plan, same, strip_slashes};
use crate::support::args::parse_args;
use crate::support::paths::{Overlay, join_display, parent_of};
use crate::support::walk::{self, Follow, Refused, Visit, Walk};
use crate::{Ctx, DirEntry, Effect, FileKind, FsError, Meta, Op, Outcome, quote};

/// The permission bits a new object gets from a shell with umask 022.
const UMASK: u32 = 0o022;

/// Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY.
#[derive(clap::Parser, Debug)]
#[command(
    override_usage = "cp [OPTION]... [-T] SOURCE DEST\n  or:  cp [OPTION]... SOURCE... DIRECTORY\n  or:  cp [OPTION]... -t DIRECTORY SOURCE..."
)]
pub struct CpArgs {
    /// same as -dR --preserve=all
    #[arg(short = 'a', long = "archive")]
    archive: bool,
    /// same as --no-dereference --preserve=links
    #[arg(short = 'd')]
    d: bool,
    /// if an existing destination file cannot be opened, remove it and try again
    #[arg(short = 'f', long = "force")]
    force: bool,
    /// prompt before overwrite
    #[arg(short = 'i', long = "interactive", overrides_with = "no_clobber")]
    interactive: bool,
    /// always follow symbolic links in SOURCE
    #[arg(short = 'L', long = "dereference", overrides_with = "no_dereference")]
    dereference: bool,
    /// do not overwrite an existing file
    #[arg(short = 'n', long = "no-clobber", overrides_with = "interactive")]
    no_clobber: bool,
    /// never follow symbolic links in SOURCE
    #[arg(short = 'P', long = "no-dereference", overrides_with = "dereference")]
    no_dereference: bool,
    /// same as --preserve=mode,ownership,timestamps
    #[arg(short = 'p')]
    preserve: bool,
    /// copy directories recursively
    #[arg(short = 'r', short_alias = 'R', long = "recursive")]
    recursive: bool,
    /// copy all SOURCE arguments into DIRECTORY
    #[arg(short = 't', long = "target-directory", value_name = "DIRECTORY")]
    target: Option<OsString>,
    /// treat DEST as a normal file
    #[arg(short = 'T', long = "no-target-directory")]
    no_target: bool,
    /// explain what is being done
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
    operands: Vec<OsString>,
}

/// The inputs of one invocation and what it has produced so far.
struct Job<'a> {
    ctx: &'a Ctx<'a>,
    /// Follow links in sources: all of them (`-L`), only the operands (never here: `-H` is
    /// not offered), or none (`-P`, `-d`, `-a`, `-r`).
    follow: bool,
    recursive: bool,
    preserve: bool,
    verbose: bool,
    no_clobber: bool,
    interactive: bool,
    overlay: Overlay,
    out: Outcome,
    status: i32,
}

/// A directory being copied: its entries still to visit.
/// What a source directory being copied carries on the walk.
struct Frame {
    dst: PathBuf,
    dst_shown: OsString,
    /// The physical path of the source directory (to find the destination inside it).
    canon: Option<PathBuf>,
    meta: Meta,
    created: bool,
}

/// One source and its destination, as typed and resolved.
#[derive(Clone, Copy)]
struct Node<'p> {
    src: &'p OsStr,
    src_path: &'p Path,
    dst: &'p OsStr,
    dst_path: &'p Path,
}

/// Where the top-level destination directory lies inside the source tree, if it does.
struct Inside {
    /// The physical directory that will hold the new destination.
    parent: PathBuf,
    /// Whether the destination exists already (then it is a real entry of `parent`).
    exists: bool,
    /// The destination's physical path.
    dst: PathBuf,
}

impl Job<'_> {
    fn error(&mut self, msg: &str) {
        self.out.err(format!("{}: {msg}\n", self.ctx.name));
        self.status = 1;
    }

    fn ask(&mut self, question: &str) -> bool {
        crate::support::input::ask(&mut self.out, self.ctx.stdin, question)
    }

    fn src_meta(&self, path: &Path, top: bool) -> Result<Meta, FsError> {
        let _ = top;
        self.ctx.fs.stat(path, self.follow)
    }

    /// The kind at a destination, pending effects first.
    fn dst_kind(&self, path: &Path, follow: bool) -> Result<FileKind, FsError> {
        self.overlay.kind(self.ctx.fs, path, follow)
    }

    fn verbose_line(&self, src: &OsStr, dst: &OsStr) -> Option<Vec<u8>> {
        self.verbose
            .then(|| format!("{} -> {}\n", quote(src), quote(dst)).into_bytes())
    }

    /// Copies one operand.
    fn operand(&mut self, src: &OsStr, dst: &OsStr) {
        let src_path = self.ctx.resolve(src);
        let dst_path = self.ctx.resolve(dst);
        let sm = match self.src_meta(&src_path, true) {
            Ok(m) => m,
            Err(e) => return self.error(&format!("cannot stat {}: {e}", quote(src))),
        };
        if sm.is_dir() && !self.recursive {
            return self.error(&format!(
                "-r not specified; omitting directory {}",
                quote(src)
            ));
        }
        let Some(exists) = self.check_dst(src, &sm, &src_path, dst, &dst_path) else {
            return;
        };
        let node = Node {
            src,
            src_path: &src_path,
            dst,
            dst_path: &dst_path,
        };
        if sm.is_dir() {
            self.tree(&node, sm, exists);
        } else {
            self.leaf(&node, &sm, exists);
        }
    }

    /// GNU's checks of an existing destination. `None`: nothing to do (an error was
    /// printed, or the answer was no). `Some(exists)`: go on; whether it exists.
    fn check_dst(
        &mut self,
        src: &OsStr,
        sm: &Meta,
        src_path: &Path,
        dst: &OsStr,
        dst_path: &Path,
    ) -> Option<bool> {
        let slash = has_trailing_slash(dst);
        let existing = match self.dst_kind(dst_path, true) {
            // `file/`: the kernel's stat says ENOTDIR, whatever the view answers.
            Ok(k) if slash && k != FileKind::Dir => {
                self.error(&format!("cannot stat {}: Not a directory", quote(dst)));
                return None;
            }
            Ok(k) => Some(k),
            Err(FsError::NotFound) => {
                // A dangling link in the way: GNU will not create its target.
                if !sm.is_dir()
                    && !(sm.is_symlink())
                    && self
                        .ctx
                        .fs
                        .stat(dst_path, false)
                        .is_ok_and(|m| m.is_symlink())
                {
                    self.error(&format!(
                        "not writing through dangling symlink {}",
                        quote(dst)
                    ));
                    return None;
                }
                if slash && !sm.is_dir() {
                    self.error(&format!(
                        "cannot create regular file {}: Not a directory",
                        quote(dst)
                    ));
                    return None;
                }
                None
            }
            Err(e) => {
                self.error(&format!("cannot stat {}: {e}", quote(dst)));
                return None;
            }
        };
        let Some(kind) = existing else {
            return Some(false);
        };
        // A link copied as a link replaces the destination itself; otherwise the
        // destination's final link is written through.
        let dm_follow = !(sm.is_symlink());
        if let Ok(dm) = self.ctx.fs.stat(dst_path, dm_follow) {
            let same_file = same(sm, &dm)
                || (sm.is_symlink()
                    && self
                        .ctx
                        .fs
                        .stat(src_path, true)
                        .is_ok_and(|t| same(&t, &dm)));
            if same_file {
                self.error(&format!(
                    "{} and {} are the same file",
                    quote(src),
                    quote(dst)
                ));
                return None;
            }
        }
        let dst_kind = if sm.is_symlink() {
            self.dst_kind(dst_path, false).unwrap_or(kind)
        } else {
            kind
        };
        if sm.is_dir() {
            if dst_kind != FileKind::Dir {
                self.error(&format!(
                    "cannot overwrite non-directory {} with directory {}",
                    quote(dst),
                    quote(src)
                ));
                return None;
            }
            return Some(true);
        }
        if dst_kind == FileKind::Dir {
            self.error(&format!(
                "cannot overwrite directory {} with non-directory",
                quote(dst)
            ));
            return None;
        }
        if self.no_clobber {
            return None;
        }
        if self.interactive && !self.ask(&format!("{}: overwrite {}? ", self.ctx.name, quote(dst)))
        {
            return None;
        }
        Some(true)
    }

    /// Copies a file, link or other object (not a directory).
    fn leaf(&mut self, n: &Node, sm: &Meta, exists: bool) {
        let Node {
            src,
            src_path,
            dst,
            dst_path,
        } = *n;
        if sm.kind.is_special() {
            return self.special(n, sm, exists);
        }
        let as_link = sm.is_symlink();
        if as_link && exists {
            self.overlay.remove(dst_path);
            self.out.effect(Effect::new(
                Op::Trash {
                    path: dst_path.to_path_buf(),
                },
                format!("{}: cannot remove {}", self.ctx.name, quote(dst)),
            ));
        }
        let what = if as_link {
            "cannot create symbolic link"
        } else {
            "cannot create regular file"
        };
        let mut e = Effect::new(
            Op::Copy {
                from: src_path.to_path_buf(),
                to: dst_path.to_path_buf(),
                links_as_links: as_link,
                preserve: self.preserve,
            },
            format!("{}: {what} {}", self.ctx.name, quote(dst)),
        );
        if let Some(v) = self.verbose_line(src, dst) {
            e = e.on_ok(v);
        }
        self.out.effect(e);
        self.overlay.create(dst_path, sm.kind);
        let wanted = sm.perm & 0o777 & !UMASK;
        if !as_link && !self.preserve && !exists && wanted != 0o666 & !UMASK {
            self.set_mode(dst, dst_path, wanted);
        }
    }

    /// A fifo, socket or device. Without `-r` GNU reads it as a file: a device's bytes are
    /// copied into a regular file, a socket cannot be opened (`ENXIO`), and a fifo is not
    /// opened here (it would wait for a writer). With `-r` GNU makes a new fifo or special
    /// file, which the sandbox cannot: GNU's message for a `mknod` refused.
    fn special(&mut self, n: &Node, sm: &Meta, exists: bool) {
        if self.recursive {
            let what = if sm.kind == FileKind::Fifo {
                "fifo"
            } else {
                "special file"
            };
            return self.error(&format!(
                "cannot create {what} {}: Operation not permitted",
                quote(n.dst)
            ));
        }
        let data = match self.ctx.fs.read(n.src_path) {
            Ok(data) => data,
            Err(e) => {
                return self.error(&format!("cannot open {} for reading: {e}", quote(n.src)));
            }
        };
        let mut e = Effect::new(
            Op::WriteFile {
                path: n.dst_path.to_path_buf(),
                data,
                append: false,
            },
            format!(
                "{}: cannot create regular file {}",
                self.ctx.name,
                quote(n.dst)
            ),
        );
        if let Some(v) = self.verbose_line(n.src, n.dst) {
            e = e.on_ok(v);
        }
        self.out.effect(e);
        self.overlay.create(n.dst_path, FileKind::File);
        let wanted = sm.perm & 0o777 & !UMASK;
        if !self.preserve && !exists && wanted != 0o666 & !UMASK {
            self.set_mode(n.dst, n.dst_path, wanted);
        }
    }

    fn set_mode(&mut self, dst: &OsStr, dst_path: &Path, mode: u32) {
        self.out.effect(Effect::new(
            Op::SetMode {
                path: dst_path.to_path_buf(),
                mode,
            },
            format!(
                "{}: preserving permissions for {}",
                self.ctx.name,
                quote(dst)
            ),
        ));
    }

    /// Where the destination lies inside the source tree, physically, if it does.
    fn inside(&self, src_path: &Path, dst_path: &Path, exists: bool) -> Option<Inside> {
        let canon_src = self.ctx.fs.canonicalize(src_path).ok()?;
        let dst = strip_slashes(dst_path);
        let parent = self.ctx.fs.canonicalize(&parent_of(&dst)?).ok()?;
        let full = parent.join(dst.file_name()?);
        full.starts_with(&canon_src).then_some(Inside {
            parent,
            exists,
            dst: full,
        })
    }

    /// Creates the destination of a source directory (unless it exists): the data the
    /// directory carries on the walk. `None` when it could not be created (the error is
    /// printed): GNU does not descend into the source then.
    fn open_frame(
        &mut self,
        n: &Node,
        sm: Meta,
        exists: bool,
        canon: Option<PathBuf>,
    ) -> Option<Frame> {
        let created = !exists;
        if created {
            let path = strip_slashes(n.dst_path);
            let context = format!(
                "{}: cannot create directory {}",
                self.ctx.name,
                quote(n.dst)
            );
            // A missing parent (or one outside): mkdir's ENOENT, before anything is asked.
            if let Some(Err(e)) = parent_of(&path).map(|p| self.dst_kind(&p, true)) {
                self.out.err(format!("{context}: {e}\n"));
                self.status = 1;
                return None;
            }
            let mut e = Effect::new(
                Op::CreateDir {
                    path: path.clone(),
                    mode: None,
                    exist_ok: false,
                },
                context,
            );
            if let Some(v) = self.verbose_line(n.src, n.dst) {
                e = e.on_ok(v);
            }
            self.out.effect(e);
            // Applied now: a directory the executor could not make (read-only, a quota) is
            // not descended into either (its failure was reported with the effect).
            if self.ctx.apply_now(&mut self.out)
                && !self.ctx.fs.stat(&path, false).is_ok_and(|m| m.is_dir())
            {
                self.status = 1;
                return None;
            }
            self.overlay.create(n.dst_path, FileKind::Dir);
        }
        Some(Frame {
            dst: n.dst_path.to_path_buf(),
            dst_shown: n.dst.to_os_string(),
            canon,
            meta: sm,
            created,
        })
    }

    /// Enters a source directory whose destination was begun; an unreadable one is
    /// finished at once. `Err` when the copy stops (the destination is inside it).
    fn enter(
        &mut self,
        walk: &mut Walk<Frame>,
        node: walk::Node,
        frame: Frame,
        top: (&OsStr, &OsStr, Option<&Inside>),
        root: bool,
    ) -> Result<(), ()> {
        let entered = if root {
            walk.enter_with(node, frame)
        } else {
            walk.descend_with(node, frame)
        };
        if let Err((node, why, frame)) = entered {
            if let Refused::Unreadable(e) = why {
                self.error(&format!("cannot access {}: {e}", quote(&node.display)));
            }
            self.leave(&frame, top)?;
        }
        Ok(())
    }

    /// Done with a source directory's entries: the destination, when it is being created
    /// in this directory, comes last (the newest inode), and GNU stops the whole copy
    /// there; otherwise the directory is finished.
    fn leave(
        &mut self,
        f: &Frame,
        (src, dst, inside): (&OsStr, &OsStr, Option<&Inside>),
    ) -> Result<(), ()> {
        if let (Some(i), Some(c)) = (inside, &f.canon)
            && !i.exists
            && *c == i.parent
        {
            self.copy_into_itself(src, dst);
            return Err(());
        }
        self.close_frame(f);
        Ok(())
    }

    fn copy_into_itself(&mut self, src: &OsStr, dst: &OsStr) {
        self.error(&format!(
            "cannot copy a directory, {}, into itself, {}",
            quote(src),
            quote(dst)
        ));
        // The directories already begun keep what they got; their modes and times are not
        // fixed, as GNU leaves them.
    }

    /// Finishes a directory: its mode and times once its content is in.
    fn close_frame(&mut self, f: &Frame) {
        let path = strip_slashes(&f.dst);
        if self.preserve {
            self.set_mode(&f.dst_shown, &path, f.meta.perm);
            self.out.effect(Effect::new(
                Op::Touch {
                    path,
                    atime: Some(f.meta.atime),
                    mtime: Some(f.meta.mtime),
                    create: false,
                },
                format!(
                    "{}: preserving times for {}",
                    self.ctx.name,
                    quote(&f.dst_shown)
                ),
            ));
        } else if f.created {
            let wanted = f.meta.perm & 0o777 & !UMASK;
            if wanted != 0o777 & !UMASK {
                self.set_mode(&f.dst_shown, &path, wanted);
            }
        }
    }

    /// Copies a directory tree, pre-order, on the shared walk, each directory's entries
    /// by inode number as GNU reads them (those that cannot be `lstat`ed, or `stat`ed under
    /// `-L`, are skipped).
    fn tree(&mut self, n: &Node, sm: Meta, exists: bool) {
        let (src, dst) = (n.src, n.dst);
        let inside = self.inside(n.src_path, n.dst_path, exists);
        let top = (src, dst, inside.as_ref());
        let (fs, follow) = (self.ctx.fs, self.follow);
        let mut walk: Walk<Frame> = Walk::carrying(fs, Follow::Never, self.ctx.walk_depth).ordered(
            move |dir, _, entries| {
                let mut v: Vec<(DirEntry, u64)> = std::mem::take(entries)
                    .into_iter()
                    .filter_map(|e| {
                        let m = fs.stat(&dir.path.join(&e.name), follow).ok()?;
                        Some((e, m.ino))
                    })
                    .collect();
                v.sort_by_key(|&(_, ino)| ino);
                entries.extend(v.into_iter().map(|(e, _)| e));
            },
        );
        let canon = self.ctx.fs.canonicalize(n.src_path).ok();
        let Some(first) = self.open_frame(n, sm, exists, canon) else {
            return;
        };
        let root = Walk::root(n.src_path.to_path_buf(), src);
        if self.enter(&mut walk, root, first, top, true).is_err() {
            return;
        }
        while let Some(visit) = walk.next() {
            let s = match visit {
                Visit::Leave(_, done) => {
                    if self.leave(&done, top).is_err() {
                        return;
                    }
                    continue;
                }
                Visit::Entry(s) | Visit::Broken(s, _) => s,
                // Listing mode only.
                Visit::Listed(_) | Visit::Refused(..) => continue,
            };
            // Skipped by the order hook when it cannot be statted.
            let Ok(m) = self.ctx.fs.stat(&s.path, self.follow) else {
                continue;
            };
            let Some(name) = s.path.file_name().map(OsStr::to_os_string) else {
                continue;
            };
            let Some(parent) = walk.data_mut() else { break };
            let d_path = parent.dst.join(&name);
            let d_shown = join_display(&parent.dst_shown, &name);
            let child_canon = parent.canon.as_ref().map(|c| {
                if m.is_dir() && self.follow {
                    self.ctx
                        .fs
                        .canonicalize(&s.path)
                        .unwrap_or_else(|_| c.join(&name))
                } else {
                    c.join(&name)
                }
            });
            let node = Node {
                src: &s.display,
                src_path: &s.path,
                dst: &d_shown,
                dst_path: &d_path,
            };
            if !m.is_dir() {
                if let Some(exists) = self.check_dst(&s.display, &m, &s.path, &d_shown, &d_path) {
                    self.leaf(&node, &m, exists);
                }
                continue;
            }
            // Reaching the destination itself: GNU stops the whole copy here.
            if let (Some(i), Some(c)) = (&inside, &child_canon)
                && *c == i.dst
            {
                self.copy_into_itself(src, dst);
                return;
            }
            if walk
                .open_dirs()
                .any(|(_, f)| f.canon.is_some() && f.canon == child_canon)
            {
                self.error(&format!(
                    "cannot copy cyclic symbolic link {}",
                    quote(&s.display)
                ));
                continue;
            }
            if walk.too_deep() {
                self.error(&format!(
                    "cannot access {}: {}",
                    quote(&s.display),
                    FsError::NameTooLong
                ));
                continue;
            }
            let Some(exists) = self.check_dst(&s.display, &m, &s.path, &d_shown, &d_path) else {
                continue;
            };
            let Some(f) = self.open_frame(&node, m, exists, child_canon) else {
                continue;
            };
            if self.enter(&mut walk, s, f, top, false).is_err() {
                return;
            }
        }
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<CpArgs>(args)?;
    let pairs = plan(ctx, &a.operands, a.target.as_ref(), a.no_target)?;
    let recursive = a.recursive || a.archive;
    // GNU: -L follows; -P, -d and -a never; -r alone never either (FreeBSD's choice);
    // plain cp follows.
    let follow = if a.dereference {
        true
    } else {
        !(a.no_dereference || a.d || a.archive || recursive)
    };
    let mut job = Job {
        ctx,
        follow,
        recursive,
        preserve: a.preserve || a.archive,
        verbose: a.verbose,
        no_clobber: a.no_clobber,
        interactive: a.interactive,
        overlay: Overlay::default(),
        out: Outcome::ok(),
        status: 0,
    };
    let _ = a.force;
    for p in &pairs {
        job.operand(&p.src, &p.dst);
    }
    Ok(job.out.with_status(job.status))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::Op;

    use crate::testing::world::{World, copy_tree, ops, text, transcript};

    fn world() -> World {
        World::new(
            copy_tree()
                .file("/s/run.sh", b"#!/bin/sh\n")
                .perm("/s/run.sh", 0o755),
        )
    }

    fn copy(from: &str, to: &str, links: bool, preserve: bool) -> Op {
        Op::Copy {
            from: PathBuf::from(from),
            to: PathBuf::from(to),
            links_as_links: links,
            preserve,
        }
    }

    fn mkdir(p: &str) -> Op {
        Op::CreateDir {
            path: PathBuf::from(p),
            mode: None,
            exist_ok: false,
        }
    }

    #[test]
    fn errors_as_gnu() {
        // GNU coreutils 9.1, LC_ALL=C, on the same tree.
        let w = world();
        let cases: &[(&[&str], &str)] = &[
            (
                &[],
                "cp: missing file operand\nTry 'cp --help' for more information.\n",
            ),
            (
                &["f"],
                "cp: missing destination file operand after 'f'\nTry 'cp --help' for more information.\n",
            ),
            (&["f", "f"], "cp: 'f' and 'f' are the same file\n"),
            (&["f", "lf"], "cp: 'f' and 'lf' are the same file\n"),
            (&["lf", "f"], "cp: 'lf' and 'f' are the same file\n"),
            (&["-d", "lf", "f"], "cp: 'lf' and 'f' are the same file\n"),
            (
                &["d", "e"],
                "cp: -r not specified; omitting directory 'd'\n",
            ),
            (
                &["ld", "x"],
                "cp: -r not specified; omitting directory 'ld'\n",
            ),
            (
                &["nope", "x"],
                "cp: cannot stat 'nope': No such file or directory\n",
            ),
            (
                &["f", "g", "h"],
                "cp: target 'h': No such file or directory\n",
            ),
            (&["f", "d", "g"], "cp: target 'g': Not a directory\n"),
            (
                &["-r", "d", "f"],
                "cp: cannot overwrite non-directory 'f' with directory 'd'\n",
            ),
            (
                &["-r", "e/", "f"],
                "cp: cannot overwrite non-directory 'f' with directory 'e/'\n",
            ),
            (
                &["-T", "f", "e"],
                "cp: cannot overwrite directory 'e' with non-directory\n",
            ),
            (
                &["f", "dd"],
                "cp: cannot overwrite directory 'dd/f' with non-directory\n",
            ),
            (
                &["-t", "f", "d"],
                "cp: target directory 'f': Not a directory\n",
            ),
            (
                &["-t", "nope", "f"],
                "cp: target directory 'nope': No such file or directory\n",
            ),
            (
                &["-T", "f", "g", "h"],
                "cp: extra operand 'h'\nTry 'cp --help' for more information.\n",
            ),
            // A directory that cannot be created is not descended into: one line.
            (
                &["-r", "d", "nope/d"],
                "cp: cannot create directory 'nope/d': No such file or directory\n",
            ),
            (
                &["-rv", "d", "/etc/d"],
                "cp: cannot create directory '/etc/d': No such file or directory\n",
            ),
            (&["f", "f/"], "cp: cannot stat 'f/': Not a directory\n"),
            (
                &["f", "nf/"],
                "cp: cannot create regular file 'nf/': Not a directory\n",
            ),
            (
                &["f", "dang"],
                "cp: not writing through dangling symlink 'dang'\n",
            ),
            (
                &["dang", "x"],
                "cp: cannot stat 'dang': No such file or directory\n",
            ),
            (
                &["-z"],
                "cp: invalid option -- 'z'\nTry 'cp --help' for more information.\n",
            ),
        ];
        for (args, err) in cases {
            let o = w.run(crate::CommandName::Cp, args);
            assert_eq!(text(&o), (String::new(), (*err).to_string(), 1), "{args:?}");
            assert!(ops(&o).is_empty(), "{args:?}");
        }
    }

    #[test]
    fn files_and_links() {
        let w = world();
        let o = w.run(crate::CommandName::Cp, &["-v", "f", "new"]);
        assert_eq!(ops(&o), [copy("/s/f", "/s/new", false, false)]);
        assert_eq!(transcript(&o), "'f' -> 'new'\n");
        // Into a directory (a link to one too), several sources, one missing.
        let o = w.run(crate::CommandName::Cp, &["nope", "f", "g", "ld"]);
        assert_eq!(
            ops(&o),
            [
                copy("/s/f", "/s/ld/f", false, false),
                copy("/s/g", "/s/ld/g", false, false)
            ]
        );
        assert_eq!(o.status, 1);
        // Links: followed by default, copied as links with -P/-d/-a/-r; an existing
        // destination is trashed first.
        assert_eq!(
            ops(&w.run(crate::CommandName::Cp, &["lf", "n"])),
            [copy("/s/lf", "/s/n", false, false)]
        );
        assert_eq!(
            ops(&w.run(crate::CommandName::Cp, &["-P", "lf", "g"])),
            [
                Op::Trash {
                    path: PathBuf::from("/s/g")
                },
                copy("/s/lf", "/s/g", true, false)
            ]
        );
        assert_eq!(
            ops(&w.run(crate::CommandName::Cp, &["-r", "ld", "n"])),
            [copy("/s/ld", "/s/n", true, false)]
        );
        assert_eq!(
            ops(&w.run(crate::CommandName::Cp, &["-P", "dang", "n"])),
            [copy("/s/dang", "/s/n", true, false)]
        );
        // -n skips quietly; -i asks on stderr and an empty stdin says no (status 0).
        assert_eq!(
            text(&w.run(crate::CommandName::Cp, &["-n", "f", "g"])),
            (String::new(), String::new(), 0)
        );
        let o = w.run(crate::CommandName::Cp, &["-i", "f", "g"]);
        assert_eq!(text(&o), (String::new(), "cp: overwrite 'g'? ".into(), 0));
        assert!(ops(&o).is_empty());
        let w2 = world().stdin(b"y\n");
        assert_eq!(
            ops(&w2.run(crate::CommandName::Cp, &["-i", "f", "g"])),
            [copy("/s/f", "/s/g", false, false)]
        );
        // An executable keeps its x bits (umask 022) without -p; -p preserves.
        assert_eq!(
            ops(&w.run(crate::CommandName::Cp, &["run.sh", "r2"])),
            [
                copy("/s/run.sh", "/s/r2", false, false),
                Op::SetMode {
                    path: PathBuf::from("/s/r2"),
                    mode: 0o755
                }
            ]
        );
        assert_eq!(
            ops(&w.run(crate::CommandName::Cp, &["-p", "run.sh", "r2"])),
            [copy("/s/run.sh", "/s/r2", false, true)]
        );
    }

    #[test]
    fn trees() {
        let w = world();
        // GNU `cp -rv d d2`: the directory first, then its entries by inode.
        let o = w.run(crate::CommandName::Cp, &["-rv", "d", "d2"]);
        assert_eq!(
            ops(&o),
            [
                mkdir("/s/d2"),
                mkdir("/s/d2/sub"),
                copy("/s/d/x", "/s/d2/x", false, false)
            ]
        );
        assert_eq!(
            transcript(&o),
            "'d' -> 'd2'\n'd/sub' -> 'd2/sub'\n'd/x' -> 'd2/x'\n"
        );
        // Into an existing directory holding `d`: merged, existing directories silent.
        let o = w.run(crate::CommandName::Cp, &["-rv", "d", "e"]);
        assert_eq!(transcript(&o), "'d/sub' -> 'e/d/sub'\n'd/x' -> 'e/d/x'\n");
        // -a: links as links, modes and times after the content.
        let o = w.run(crate::CommandName::Cp, &["-a", "d", "a2"]);
        let got = ops(&o);
        assert_eq!(got.first(), Some(&mkdir("/s/a2")));
        assert!(matches!(got.last(), Some(Op::Touch { create: false, .. })));
        // Into itself: GNU copies until it meets the new directory, then stops.
        let o = w.run(crate::CommandName::Cp, &["-rv", "d", "d/sub/new"]);
        assert_eq!(
            transcript(&o),
            "'d' -> 'd/sub/new'\n'd/sub' -> 'd/sub/new/sub'\ncp: cannot copy a directory, 'd', into itself, 'd/sub/new'\n"
        );
        assert_eq!(o.status, 1);
        let o = w.run(crate::CommandName::Cp, &["-r", "d", "d"]);
        assert_eq!(
            ops(&o),
            [
                mkdir("/s/d/d"),
                mkdir("/s/d/d/sub"),
                copy("/s/d/x", "/s/d/d/x", false, false)
            ]
        );
        assert_eq!(
            text(&o).1,
            "cp: cannot copy a directory, 'd', into itself, 'd/d'\n"
        );
        assert_eq!(
            text(&w.run(crate::CommandName::Cp, &["-r", "d", "ld"])).1,
            "cp: cannot copy a directory, 'd', into itself, 'ld/d'\n"
        );
    }
}
