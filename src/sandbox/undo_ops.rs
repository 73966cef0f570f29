//! Operations on resolved locations, for the journal (saving what a change replaces and
//! putting it back) and for the quotas. The journal records root-relative locations, so undo
//! does not depend on the mount point or the cwd; every operation still goes through the
//! root handle, so it cannot leave the root either.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt, SystemTimeSpec};
use cap_std::fs::{Dir, MetadataExt, OpenOptions};
use serde::{Deserialize, Serialize};
use trumansh_commands::FsError;

use super::{Loc, Sandbox, Usage, copy_tree, map_err, remove_tree, to_system_time};

/// Access and modification times, as (seconds, nanoseconds) since the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
    pub mode: u32,
    pub times: Times,
}

/// A reader whose bytes are charged to the write quota and which stops at the deadline.
pub struct Metered<'a, R> {
    inner: R,
    sandbox: &'a Sandbox,
}

impl<R: Read> Read for Metered<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.sandbox.guard.expired() {
            return Err(io::Error::from(io::ErrorKind::TimedOut));
        }
        let n = self.inner.read(buf)?;
        if n > 0 && self.sandbox.charge(n as i64, 0).is_err() {
            return Err(io::Error::from(io::ErrorKind::QuotaExceeded));
        }
        if self.sandbox.guard.disk_write(n as u64).is_err() {
            return Err(io::Error::from(io::ErrorKind::StorageFull));
        }
        Ok(n)
    }
}

impl Sandbox {
    /// Wraps the data of a write so that it counts against the quota.
    pub(super) fn metered<R: Read>(&self, inner: R) -> Metered<'_, R> {
        Metered {
            inner,
            sandbox: self,
        }
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

    /// What the sandbox holds, as the quotas count it.
    pub fn usage(&self) -> Usage {
        self.guard.usage_with(|| self.measure())
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
    /// The state directory's trash and saved undo data count; the owner's own records
    /// (audit log, history, locks) do not.
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
        usage
    }

    /// What is at a location now (not following a final link), or `None`.
    pub fn before(&self, loc: &Loc) -> Option<Before> {
        let m = self.lstat(loc).ok()?;
        Some(Before {
            is_dir: m.is_dir(),
            is_file: m.is_file(),
            is_symlink: m.file_type().is_symlink(),
            len: m.len(),
            mode: m.mode() & 0o7777,
            times: Times {
                atime: (m.atime(), m.atime_nsec()),
                mtime: (m.mtime(), m.mtime_nsec()),
            },
        })
    }

    /// Copies a regular file's bytes to `blob` (a path in the state directory), streaming;
    /// the copy counts against the quota.
    pub fn save_bytes(&self, loc: &Loc, blob: &Path) -> Result<u64, FsError> {
        let src = self.open_read(loc)?;
        let mut dst = self.state.create(blob).map_err(map_err)?;
        let mut metered = Metered {
            inner: src,
            sandbox: self,
        };
        io::copy(&mut metered, &mut dst).map_err(map_err)
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

    /// The location a virtual path names (for the journal), or `None` when it names nothing
    /// the agent may reach.
    pub fn loc_of(&self, vpath: &Path) -> Option<Loc> {
        self.locate(vpath).ok()
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
