//! Operations on resolved locations, for the journal (saving what a change replaces and
//! putting it back) and for the quotas. The journal records root-relative locations, so undo
//! does not depend on the mount point or the cwd; every operation still goes through the
//! root handle, so it cannot leave the root either.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt, SystemTimeSpec};
use cap_std::fs::{Dir, MetadataExt, OpenOptions};
use serde::Deserialize;
use trumansh_commands::FsError;

use super::{Loc, Sandbox, Usage, copy_tree, map_err, remove_tree, to_system_time};

/// The usage file shared by the sessions on a root, in the state directory.
pub const USAGE_FILE: &str = "usage";

/// Access and modification times, as (seconds, nanoseconds) since the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct Times {
    pub atime: (i64, i64),
    pub mtime: (i64, i64),
}

/// What an object was before a change, for the journal.
#[derive(Debug, Clone, Copy)]
pub struct Before {
    pub is_dir: bool,
    pub is_file: bool,
    pub is_symlink: bool,
    pub len: u64,
    pub nlink: u64,
    pub mode: u32,
    pub times: Times,
    /// Its device and inode.
    pub dev: u64,
    pub ino: u64,
}

impl Before {
    pub(super) fn of(m: &cap_std::fs::Metadata) -> Before {
        Before {
            is_dir: m.is_dir(),
            is_file: m.is_file(),
            is_symlink: m.file_type().is_symlink(),
            len: m.len(),
            nlink: m.nlink(),
            mode: m.mode() & 0o7777,
            times: Times {
                atime: (m.atime(), m.atime_nsec()),
                mtime: (m.mtime(), m.mtime_nsec()),
            },
            dev: m.dev(),
            ino: m.ino(),
        }
    }
}

/// What an object is, to tell whether it changed since a change left it: its type, inode,
/// and for files and links their size and modification time (nanoseconds). A directory is
/// its inode only (its size and times change with its entries). Our own inverses restore
/// times exactly, so a chain of changes to one object checks step by step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(tag = "k", rename_all = "snake_case")]
pub enum Fingerprint {
    /// Nothing is there.
    Absent,
    File {
        ino: u64,
        size: u64,
        mtime: (i64, i64),
    },
    Dir {
        ino: u64,
    },
    Link {
        ino: u64,
        size: u64,
        mtime: (i64, i64),
    },
    /// A fifo, socket or device.
    Other {
        ino: u64,
    },
    /// It could not be looked at (never the same as anything).
    Unknown,
}

impl Fingerprint {
    fn of(m: &cap_std::fs::Metadata) -> Fingerprint {
        let ft = m.file_type();
        let (ino, size, mtime) = (m.ino(), m.len(), (m.mtime(), m.mtime_nsec()));
        if ft.is_symlink() {
            Fingerprint::Link { ino, size, mtime }
        } else if ft.is_dir() {
            Fingerprint::Dir { ino }
        } else if ft.is_file() {
            Fingerprint::File { ino, size, mtime }
        } else {
            Fingerprint::Other { ino }
        }
    }

    /// What an open file is now (`fstat`): a redirection's file, which the line wrote
    /// through its descriptor, as it is at its path unless it was moved since.
    pub fn of_file(f: &std::fs::File) -> Fingerprint {
        Fingerprint::of_result(cap_std::fs::Metadata::from_file(f))
    }

    fn of_result(r: io::Result<cap_std::fs::Metadata>) -> Fingerprint {
        match r {
            Ok(m) => Fingerprint::of(&m),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Fingerprint::Absent,
            Err(_) => Fingerprint::Unknown,
        }
    }

    /// Whether two fingerprints name the same, unchanged object (`Unknown` never does).
    pub fn same_as(&self, other: &Fingerprint) -> bool {
        *self != Fingerprint::Unknown && self == other
    }

    /// A file's or link's size and modification time.
    pub fn size_mtime(&self) -> Option<(u64, (i64, i64))> {
        match *self {
            Fingerprint::File { size, mtime, .. } | Fingerprint::Link { size, mtime, .. } => {
                Some((size, mtime))
            }
            _ => None,
        }
    }
}

/// Why the policy keeps an inverse from changing a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocked {
    /// The path is hidden by the policy (or is the state directory).
    Hidden,
    /// The path is read-only by the policy.
    ReadOnly,
}

/// A reader whose bytes are charged to the write quota and which stops at the deadline.
/// Its reads are charged through the session's lease ([`crate::limits::Guard::take`]): a
/// small write takes the shared usage file's lock once every
/// [`crate::limits::LEASE_BYTES`]; a large one ahead, in grants of up to
/// [`crate::limits::GRANT_BYTES`] (one lock per grant), what is left past the lease given
/// back on drop.
pub struct Metered<'a, R> {
    inner: R,
    sandbox: &'a Sandbox,
    /// Whether a read was charged already.
    started: bool,
}

impl<R> Metered<'_, R> {
    /// Fails once the line's deadline has passed.
    fn check(&self) -> io::Result<()> {
        if self.sandbox.guard.expired() {
            return Err(io::Error::from(io::ErrorKind::TimedOut));
        }
        Ok(())
    }

    /// Charges `n` bytes about to be written (see the type's doc).
    fn charge(&mut self, n: u64) -> io::Result<()> {
        let ahead = if self.started {
            crate::limits::GRANT_BYTES
        } else {
            crate::limits::LEASE_BYTES
        };
        if n > 0 && self.sandbox.take(n, ahead).is_err() {
            return Err(io::Error::from(io::ErrorKind::QuotaExceeded));
        }
        self.started |= n > 0;
        if self.sandbox.guard.disk_write(n).is_err() {
            return Err(io::Error::from(io::ErrorKind::StorageFull));
        }
        Ok(())
    }
}

impl<R: Read> Read for Metered<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.check()?;
        let n = self.inner.read(buf)?;
        self.charge(n as u64)?;
        Ok(n)
    }
}

impl<'d> Metered<'_, &'d [u8]> {
    /// The next piece (at most `max` bytes) of data held in memory, charged as [`Read`]
    /// charges what it reads, without copying it; empty at the end.
    pub(super) fn piece(&mut self, max: usize) -> io::Result<&'d [u8]> {
        self.check()?;
        let (piece, rest) = self.inner.split_at(max.min(self.inner.len()));
        self.charge(piece.len() as u64)?;
        self.inner = rest;
        Ok(piece)
    }
}

/// Copies `data` to `out` as [`io::copy`] would, in reads of up to 8 KiB, without zeroing an
/// 8 KiB buffer for a short copy (what `io::copy` does on each call from a reader without
/// its own `read_buf`, such as [`Metered`]): the first read goes to a small buffer, a larger
/// one is made only for data that fills it.
pub(super) fn copy(data: &mut dyn Read, out: &mut dyn io::Write) -> io::Result<u64> {
    let mut small = [0u8; 512];
    let mut large = Vec::new();
    let mut total = 0u64;
    loop {
        let buf: &mut [u8] = if large.is_empty() {
            &mut small
        } else {
            &mut large
        };
        let n = match data.read(buf) {
            Ok(0) => return Ok(total),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        out.write_all(&buf[..n])?;
        total += n as u64;
        if n == buf.len() && large.is_empty() {
            large = vec![0; 8 * 1024];
        }
    }
}

impl<R> Drop for Metered<'_, R> {
    fn drop(&mut self) {
        if self.started {
            // A credit never measures: if another session had the count measured again
            // meanwhile, the measure already left out what was not written.
            self.sandbox.guard.trim_lease(crate::limits::LEASE_BYTES);
        }
    }
}

impl Sandbox {
    /// Wraps the data of a write so that it counts against the quota.
    pub(super) fn metered<R: Read>(&self, inner: R) -> Metered<'_, R> {
        Metered {
            inner,
            sandbox: self,
            started: false,
        }
    }

    /// Charges `need` bytes of a write's data (see [`Metered`]), with up to `ahead` more.
    fn take(&self, need: u64, ahead: u64) -> Result<(), FsError> {
        let r = self.guard.take(need, ahead, || self.measure());
        if r.is_err() {
            self.audit.event(
                "limit",
                crate::audit::fields([("limit", "write_quota_bytes".into())]),
            );
        }
        r
    }

    /// Shares the quota's count with every session on this root: the state directory's
    /// `usage` file (see [`crate::limits`]). Without it (it cannot be opened), the session
    /// counts alone.
    pub fn share_usage(&self) {
        let mut opts = OpenOptions::new();
        opts.read(true).write(true).create(true);
        if let Ok(f) = self.state.open_with(USAGE_FILE, &opts) {
            self.guard.share_usage(f.into_std());
        }
    }

    /// What is at a location now (not following a final link).
    pub fn fingerprint(&self, loc: &Loc) -> Fingerprint {
        match self.at(loc) {
            Ok((dir, Some(name))) => Fingerprint::of_result(dir.symlink_metadata(name)),
            Ok((dir, None)) => Fingerprint::of_result(dir.dir_metadata()),
            // Its parent is gone (or is a link now): so is the object, where it was.
            Err(FsError::NotFound | FsError::NotADirectory | FsError::TooManyLinks) => {
                Fingerprint::Absent
            }
            Err(_) => Fingerprint::Unknown,
        }
    }

    /// What is at a path of the state directory now (not following a final link).
    pub fn state_fingerprint(&self, path: &Path) -> Fingerprint {
        Fingerprint::of_result(self.state.symlink_metadata(path))
    }

    /// Whether a location is a directory with nothing in it.
    pub fn is_empty_dir(&self, loc: &Loc) -> bool {
        self.open_dir_at(loc)
            .and_then(|d| d.entries().map_err(super::map_err))
            .is_ok_and(|mut entries| entries.next().is_none())
    }

    /// The path the journal records for a location: its physical root-relative path (no `.`,
    /// no `..`, no link above the final name; the root is `.`), which the walk that found it
    /// computed.
    pub fn journal_rel(&self, loc: &Loc) -> PathBuf {
        loc.rel.clone()
    }

    /// Whether the state directory is inside the root (and `.trash` at the root is it).
    pub fn state_in_root(&self) -> bool {
        self.hidden.is_some()
    }

    /// Whether the current policy keeps an inverse from changing this root-relative,
    /// normalized path: hidden (or the state directory), or read-only.
    pub fn policy_blocks(&self, rel: &Path) -> Option<Blocked> {
        if let (Some(hidden), Some(std::path::Component::Normal(first))) =
            (&self.hidden, rel.components().next())
            && hidden.as_os_str() == first
        {
            return Some(Blocked::Hidden);
        }
        let rules = self.rules.as_ref()?;
        if rules.is_hidden(rel) {
            Some(Blocked::Hidden)
        } else if rules.is_read_only(rel) {
            Some(Blocked::ReadOnly)
        } else {
            None
        }
    }

    /// Copies the bytes of a regular file at a location from `offset` on (not following a
    /// final link) to a new file `dest` in the state directory: what an undo is about to
    /// replace or cut, kept in the trash. Returns the bytes copied.
    pub fn copy_out(&self, loc: &Loc, offset: u64, dest: &Path) -> Result<u64, FsError> {
        let mut src = self.open_read(loc)?;
        io::Seek::seek(&mut src, io::SeekFrom::Start(offset)).map_err(map_err)?;
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true);
        let mut out = self.state.open_with(dest, &opts).map_err(map_err)?;
        io::copy(&mut src, &mut out).map_err(map_err)
    }

    /// Charges bytes and entries against the quotas (measuring the sandbox the first time).
    pub fn charge(&self, bytes: i64, entries: i64) -> Result<(), FsError> {
        let r = self.guard.charge(bytes, entries, || self.measure());
        if r.is_err() {
            self.audit.event(
                "limit",
                crate::audit::fields([(
                    "limit",
                    if entries > 0 {
                        "file_quota"
                    } else {
                        "write_quota_bytes"
                    }
                    .into(),
                )]),
            );
        }
        r
    }

    /// What the sandbox holds, as the quotas count it (less what this session holds ahead
    /// of its writes).
    pub fn usage(&self) -> Usage {
        let mut u = self.guard.usage_with(|| self.measure());
        // What this session holds ahead of its writes is not used yet (`df` shows it so).
        u.bytes = u.bytes.saturating_sub(self.guard.held());
        u
    }

    /// What a directory of the state directory holds (itself included).
    pub fn state_usage(&self, dir: &Path) -> Usage {
        let mut usage = Usage {
            bytes: 0,
            entries: 1,
        };
        add_tree(&self.state, dir, None, &mut usage);
        usage
    }

    /// Gives back to the quota what was removed (only when the usage is already known).
    pub fn credit(&self, freed: Usage) {
        self.guard.credit(freed);
    }

    /// What the root and the state directory hold now.
    /// The state directory's trash, saved undo data and audit log's bytes count (the log is
    /// bounded by its budget, see [`crate::audit`]); the other records (history, locks) do
    /// not.
    pub fn measure(&self) -> Usage {
        let mut usage = Usage::default();
        add_tree(
            &self.root,
            Path::new("."),
            self.hidden.as_deref(),
            &mut usage,
        );
        for sub in ["trash", "txn"] {
            add_tree(&self.state, Path::new(sub), None, &mut usage);
        }
        usage.bytes = usage
            .bytes
            .saturating_add(crate::audit::log_bytes(&self.state));
        usage
    }

    /// What is at a location now (not following a final link), or `None`.
    pub fn before(&self, loc: &Loc) -> Option<Before> {
        self.lstat(loc).ok().map(|m| Before::of(&m))
    }

    /// Copies a regular file's bytes to `blob` (a path in the state directory), streaming;
    /// the copy counts against the quota.
    pub fn save_bytes(&self, loc: &Loc, blob: &Path) -> Result<u64, FsError> {
        let src = self.open_read(loc)?;
        let mut dst = self.state.create(blob).map_err(map_err)?;
        let mut metered = self.metered(src);
        copy(&mut metered, &mut dst).map_err(map_err)
    }

    /// Puts saved bytes back into a location (created if missing), with its mode and times.
    pub fn restore_bytes(
        &self,
        loc: &Loc,
        blob: &Path,
        mode: u32,
        times: Times,
    ) -> Result<(), FsError> {
        let mut src = self.state.open(blob).map_err(map_err)?;
        self.write_from(loc, &mut src, false)?;
        let _ = self.chmod_at(loc, mode);
        self.set_times_rel(loc, times);
        Ok(())
    }

    /// Cuts a file back to `len` bytes (undo of an append) and restores its times.
    pub fn truncate_to(&self, loc: &Loc, len: u64, times: Times) -> Result<(), FsError> {
        let (dir, name) = self.at(loc)?;
        let mut opts = OpenOptions::new();
        opts.write(true).follow(FollowSymlinks::No);
        let f = dir
            .open_with(name.ok_or(FsError::IsADirectory)?, &opts)
            .map_err(map_err)?;
        f.set_len(len).map_err(map_err)?;
        self.guard.forget_usage();
        self.set_times_rel(loc, times);
        Ok(())
    }

    /// Sets access and modification times (never through a final link).
    pub fn set_times_rel(&self, loc: &Loc, times: Times) {
        let at = |(s, n): (i64, i64)| {
            Some(SystemTimeSpec::Absolute(
                cap_std::time::SystemTime::from_std(to_system_time(s, n)),
            ))
        };
        if let Ok((dir, Some(name))) = self.at(loc) {
            let _ = dir.set_symlink_times(name, at(times.atime), at(times.mtime));
        }
    }

    /// Sets permission bits on a location (not a link).
    pub fn set_mode_rel(&self, loc: &Loc, mode: u32) -> Result<(), FsError> {
        if self.lstat(loc)?.file_type().is_symlink() {
            return Ok(());
        }
        self.chmod_at(loc, mode)
    }

    /// Removes what a change created: a file or link, or an (empty) directory. A missing
    /// object is fine (the change may never have been applied).
    pub fn remove_created(&self, loc: &Loc) -> Result<(), FsError> {
        let (dir, name) = self.at(loc)?;
        let Some(name) = name else {
            return Err(FsError::InvalidArgument);
        };
        let r = match dir.symlink_metadata(name) {
            Ok(m) if m.is_dir() => dir.remove_dir(name),
            Ok(_) => dir.remove_file_or_symlink(name),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => Err(e),
        };
        self.guard.forget_usage();
        r.map_err(map_err)
    }

    /// Renames between two locations; refuses to replace anything at `to`.
    pub fn rename_rel(&self, from: &Loc, to: &Loc) -> Result<(), FsError> {
        if self.lstat(to).is_ok() {
            return Err(FsError::AlreadyExists);
        }
        let (da, na) = self.at(from)?;
        let (db, nb) = self.at(to)?;
        let (Some(na), Some(nb)) = (na, nb) else {
            return Err(FsError::InvalidArgument);
        };
        da.rename(na, &db, nb).map_err(map_err)
    }

    /// Creates an empty directory with a mode (undo of a rename over an empty directory).
    pub fn make_dir_rel(&self, loc: &Loc, mode: u32) -> Result<(), FsError> {
        let (dir, name) = self.at(loc)?;
        let Some(name) = name else {
            return Ok(());
        };
        match dir.create_dir(name) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(()),
            Err(e) => return Err(map_err(e)),
        }
        let _ = self.chmod_at(loc, mode);
        Ok(())
    }

    /// Moves an object at a location into the state directory (`dest`, state-relative).
    pub fn stash(&self, loc: &Loc, dest: &Path) -> Result<(), FsError> {
        let (dir, name) = self.at(loc)?;
        let Some(name) = name else {
            return Err(FsError::InvalidArgument);
        };
        match dir.rename(name, &self.state, dest) {
            Ok(()) => Ok(()),
            Err(e) if e.raw_os_error() == Some(18) => {
                copy_tree(&dir, Path::new(name), &self.state, dest, 0)?;
                remove_tree(&dir, Path::new(name), 0)
            }
            Err(e) => Err(map_err(e)),
        }
    }

    /// Moves an object from the state directory (`src`, state-relative; a link stays a link)
    /// back to a location. Refuses to replace anything there.
    pub fn unstash(&self, src: &Path, loc: &Loc) -> Result<(), FsError> {
        if self.lstat(loc).is_ok() {
            return Err(FsError::AlreadyExists);
        }
        self.state.symlink_metadata(src).map_err(map_err)?;
        let (dir, name) = self.at(loc)?;
        let Some(name) = name else {
            return Err(FsError::AlreadyExists);
        };
        match self.state.rename(src, &dir, name) {
            Ok(()) => Ok(()),
            Err(e) if e.raw_os_error() == Some(18) => {
                copy_tree(&self.state, src, &dir, Path::new(name), 0)?;
                remove_tree(&self.state, src, 0)
            }
            Err(e) => Err(map_err(e)),
        }
    }

    /// The virtual path of a location, for messages.
    pub fn virtual_path(&self, loc: &Loc) -> PathBuf {
        self.virtual_of(&loc.rel)
    }
}

/// Adds what `start` in `dir` holds (iteratively; links not followed) to `usage`, leaving
/// out an entry named `skip` at the start.
fn add_tree(dir: &Dir, start: &Path, skip: Option<&std::ffi::OsStr>, usage: &mut Usage) {
    let mut stack: Vec<PathBuf> = vec![start.to_path_buf()];
    while let Some(path) = stack.pop() {
        let Ok(entries) = dir.read_dir(&path) else {
            continue;
        };
        for entry in entries.flatten() {
            if path == start && skip.is_some_and(|s| s == entry.file_name()) {
                continue;
            }
            usage.entries += 1;
            let Ok(ft) = entry.file_type() else {
                continue;
            };
            if ft.is_dir() {
                stack.push(path.join(entry.file_name()));
            } else if ft.is_file()
                && let Ok(m) = entry.metadata()
            {
                usage.bytes += m.len();
            }
        }
    }
}
