//! Scratch files: where a command spills what it cannot hold in memory (`sort`'s sorted
//! runs), as GNU's tools spill to `$TMPDIR`.
//!
//! A scratch file is created in the state directory's `tmp/` (through the state `Dir`
//! handle: never in the agent's tree) and unlinked at once, so the agent never sees it, the
//! journal never records it, and it is gone when its handle is dropped, even after a crash.
//! Its bytes are charged to the write quota as they are written (in grants, as a write's
//! data is: see [`crate::limits`]) and given back when it is dropped; a write past the quota
//! fails with `EDQUOT`, one past an injected full disk with `ENOSPC`. A file left between its
//! creation and its unlinking by a crash is removed when a session opens the sandbox
//! ([`sweep`]).

use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::fs::{Dir, OpenOptions};
use trumansh_commands::FsError;

use super::Sandbox;
use crate::limits::{GRANT_BYTES, Usage};

/// The state directory's subdirectory for scratch files.
pub const SCRATCH_DIR: &str = "tmp";

/// A number for the next scratch file's name (with the process id: unique on the host).
static NEXT: AtomicU64 = AtomicU64::new(0);

/// An open, unlinked scratch file charged to the quota (see the module doc).
pub struct Scratch<'a> {
    file: std::fs::File,
    sandbox: &'a Sandbox,
    /// The read/write offset.
    pos: u64,
    /// The file's size (its highest written offset).
    len: u64,
    /// Bytes charged to the quota (at least `len`; the rest is given back on drop).
    charged: u64,
}

impl Sandbox {
    /// A new scratch file (see the module doc).
    pub fn scratch(&self) -> Result<Scratch<'_>, FsError> {
        self.guard.check()?;
        match self.state.create_dir(SCRATCH_DIR) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(super::map_err(e)),
        }
        let mut opts = OpenOptions::new();
        opts.read(true).write(true).create_new(true);
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let name = Path::new(SCRATCH_DIR).join(format!("{}-{n}", std::process::id()));
            match self.state.open_with(&name, &opts) {
                Ok(f) => {
                    // Unlinked at once: nothing to clean up, whatever happens next.
                    let _ = self.state.remove_file(&name);
                    return Ok(Scratch {
                        file: f.into_std(),
                        sandbox: self,
                        pos: 0,
                        len: 0,
                        charged: 0,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(super::map_err(e)),
            }
        }
    }

    /// The most bytes a command may hold in memory at once: the policy's `read_bytes`.
    pub fn hold_bytes(&self) -> u64 {
        self.read_cap
    }
}

/// Removes what crashed sessions left in the scratch directory (a file between its creation
/// and its unlinking).
pub fn sweep(state: &Dir) {
    let Ok(entries) = state.read_dir(SCRATCH_DIR) else {
        return;
    };
    for entry in entries.flatten() {
        let _ = state.remove_file(Path::new(SCRATCH_DIR).join(entry.file_name()));
    }
}

impl Write for Scratch<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let sandbox = self.sandbox;
        if sandbox.guard.expired() {
            return Err(io::Error::from(io::ErrorKind::TimedOut));
        }
        let end = self.pos.saturating_add(buf.len() as u64);
        if end > self.charged {
            let need = i64::try_from(end - self.charged).unwrap_or(i64::MAX);
            match sandbox
                .guard
                .grant(need, GRANT_BYTES, 0, || sandbox.measure())
            {
                Ok(got) => self.charged += u64::try_from(got).unwrap_or(0),
                Err(e) => {
                    sandbox.audit.event(
                        "limit",
                        crate::audit::fields([("limit", "write_quota_bytes".into())]),
                    );
                    return Err(match e {
                        FsError::NoSpace => io::Error::from(io::ErrorKind::StorageFull),
                        _ => io::Error::from(io::ErrorKind::QuotaExceeded),
                    });
                }
            }
        }
        if end > self.len {
            let grown = end - self.len.max(self.pos);
            if sandbox.guard.state_write(grown).is_err() {
                return Err(io::Error::from(io::ErrorKind::StorageFull));
            }
        }
        let n = self.file.write(buf)?;
        self.pos += n as u64;
        self.len = self.len.max(self.pos);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Read for Scratch<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.sandbox.guard.expired() {
            return Err(io::Error::from(io::ErrorKind::TimedOut));
        }
        let n = self.file.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for Scratch<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.pos = self.file.seek(to)?;
        Ok(self.pos)
    }
}

impl Drop for Scratch<'_> {
    fn drop(&mut self) {
        if self.charged > 0 {
            self.sandbox.guard.credit(Usage {
                bytes: self.charged,
                entries: 0,
            });
            if self.len > 0 {
                self.sandbox.guard.disk_freed(self.len);
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::io::{Read, Seek, SeekFrom, Write};
    use std::sync::Arc;

    use super::super::{Guard, Sandbox, SandboxConfig};

    fn sandbox(dir: &std::path::Path, quota: u64) -> Sandbox {
        let mut config = SandboxConfig::new(dir);
        config.write_quota_bytes = quota;
        Sandbox::open_with(&config, Arc::new(Guard::new(quota, 1000))).unwrap()
    }

    #[test]
    fn scratch_is_unlinked_charged_and_given_back() {
        let dir = tempfile::tempdir().unwrap();
        let sb = sandbox(dir.path(), 1 << 30);
        let before = sb.usage().bytes;
        {
            let mut f = sb.scratch().unwrap();
            f.write_all(&b"x".repeat(10_000)).unwrap();
            assert!(sb.usage().bytes >= before + 10_000);
            f.seek(SeekFrom::Start(0)).unwrap();
            let mut back = Vec::new();
            f.read_to_end(&mut back).unwrap();
            assert_eq!(back.len(), 10_000);
            let tmp = dir.path().join(".trash").join(super::SCRATCH_DIR);
            assert_eq!(std::fs::read_dir(tmp).unwrap().count(), 0);
        }
        assert_eq!(sb.usage().bytes, before);
    }

    #[test]
    fn scratch_past_the_quota_fails_with_edquot() {
        let dir = tempfile::tempdir().unwrap();
        let sb = sandbox(dir.path(), 50_000);
        let mut f = sb.scratch().unwrap();
        let e = f.write_all(&b"x".repeat(100_000)).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::QuotaExceeded);
    }

    #[test]
    fn sweep_removes_leftovers() {
        let dir = tempfile::tempdir().unwrap();
        let sb = sandbox(dir.path(), 1 << 30);
        let tmp = dir.path().join(".trash").join(super::SCRATCH_DIR);
        std::fs::create_dir_all(&tmp).unwrap();
        std::fs::write(tmp.join("1-1"), b"left").unwrap();
        super::sweep(&sb.state);
        assert_eq!(std::fs::read_dir(tmp).unwrap().count(), 0);
    }
}
