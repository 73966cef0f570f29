//! The limits that hold while a line runs: its deadline, its output caps, and the sandbox's
//! write and file-count quotas.
//!
//! The deadline is checked by every sandbox operation and every read of an open file, and by
//! the executor on every write of output: once it has passed, file access fails
//! (`FsError::TimedOut`) and output is dropped, so a runaway walk or pipeline unwinds in a few
//! microseconds; the shell then reports it once (status 124, as `timeout(1)`).
//!
//! The quota counts what the sandbox holds, trash and undo data included. It is measured by
//! one walk of the root and the state directory the first time anything is changed (a
//! session that only reads never pays for it), then kept up to date by every write.
//!
//! The count is shared by every session on the root: it lives in a small file in the state
//! directory (`usage`: a magic number, bytes, entries), read and rewritten under an `flock` of
//! that file by each charge ([`Guard::share_usage`]), so that three sessions together stay
//! within the quota as one would. A charge costs one `flock`, one `pread`, one `pwrite` and one
//! unlock (a few microseconds). A write's data is charged from a lease the session holds
//! ahead ([`Guard::take`]): small writes take the lock once every [`LEASE_BYTES`], a large
//! copy once per grant of up to [`GRANT_BYTES`], not once per 8 KiB read; what is held past
//! [`LEASE_BYTES`] is given back when the write ends, and all of it when the session ends (a
//! session killed leaves the count high by at most that, until it is measured again). An
//! empty file means "not measured": a session empties it
//! when it starts and after an undo or a purge, and the next charge measures under the lock.
//! A session without the file (the owner's tools, a sandbox opened alone) counts by itself.

use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use trumansh_commands::FsError;

use crate::io::Stream;

/// Every allocation of the process, counted (an atomic add each), so that a line that grows
/// memory by any path stops at its budget (`limits.heap_bytes`, see [`Guard`]) with
/// one message instead of the session aborting when the system refuses memory.
#[global_allocator]
static HEAP: cap::Cap<std::alloc::System> = cap::Cap::new(std::alloc::System, usize::MAX);

/// Bytes the process has allocated and not freed.
pub(crate) fn heap_in_use() -> u64 {
    HEAP.allocated() as u64
}

/// A failure to inject, for the fault-injection tests (never set by a front end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The disk fills up once this many more bytes of file data have been written (`ENOSPC`).
    DiskFullAfter(u64),
    /// The disk fills up once this many more bytes have been written, counting everything the
    /// state directory writes too: journal records (their bytes; a new journal file a block of
    /// [`BLOCK_BYTES`]), trash entries (a block for the directory, a block for its
    /// `info.json`). Space released (the state directory's reserve) is given back.
    NoSpaceAfter(u64),
    /// Opening a file with this name fails with `EIO`.
    Unreadable(std::ffi::OsString),
    /// A file with this name vanishes right after its directory was listed.
    VanishOnList(std::ffi::OsString),
}

/// What a new file or directory costs in the [`Fault::NoSpaceAfter`] model: one block.
pub const BLOCK_BYTES: u64 = 4096;

/// The most a write's data is charged ahead of what it has written (see the module doc).
pub const GRANT_BYTES: u64 = 1 << 20;

/// What a session keeps charged ahead between writes ([`Guard::take`]), so that a line of
/// small writes (`echo x >> f`) takes the usage file's lock once every this many bytes.
pub const LEASE_BYTES: u64 = 64 << 10;

/// The first 8 bytes of a measured usage file.
const USAGE_MAGIC: &[u8; 8] = b"tsh-use1";

/// What the sandbox holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub bytes: u64,
    /// Files, directories and links.
    pub entries: u64,
}

/// The monotonic clock at the kernel's tick (a few milliseconds): the line's deadline is
/// polled by every sandbox operation and expansion step, and this clock is read without
/// the cost of the precise one. Nanoseconds.
pub(crate) fn coarse_nanos() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::MonotonicCoarse);
    u64::try_from(t.tv_sec)
        .unwrap_or(0)
        .saturating_mul(1_000_000_000)
        .saturating_add(u64::try_from(t.tv_nsec).unwrap_or(0))
}

/// Runtime limits of one session.
pub struct Guard {
    /// When the guard was made, on [`coarse_nanos`]'s clock.
    base: u64,
    /// Nanoseconds after `base` at which the running line must stop; 0 when none.
    deadline: AtomicU64,
    expired: AtomicBool,
    /// Set from outside (the REPL's Ctrl-C, an MCP client's cancellation): the running line
    /// stops as at its deadline.
    cancelled: Arc<AtomicBool>,
    /// The owner's own operations (undo, rollback, recovery) run: no deadline, no quota.
    owner: AtomicBool,
    pub(crate) quota_bytes: u64,
    pub(crate) file_quota: u64,
    /// `None` until measured (when no usage file is shared).
    usage: Mutex<Option<Usage>>,
    /// The usage file shared by the sessions on the root, when there is one.
    shared: Mutex<Option<std::fs::File>>,
    /// Bytes charged to the usage ahead of the writes that will use them ([`Guard::take`]).
    lease: Mutex<u64>,
    /// Whether a quota was hit on the current line.
    quota_hit: AtomicBool,
    caps: [u64; 2],
    /// Bytes one line may allocate beyond what the process held when it began (0: no cap).
    heap_cap: u64,
    /// What the process held when the line began.
    heap_base: AtomicU64,
    /// Whether the line stopped at `heap_cap`.
    heap_hit: AtomicBool,
    used: [AtomicU64; 2],
    truncated: [AtomicBool; 2],
    fault: Mutex<Option<Fault>>,
}

impl Guard {
    pub fn new(quota_bytes: u64, file_quota: u64) -> Guard {
        Guard {
            base: coarse_nanos(),
            deadline: AtomicU64::new(0),
            expired: AtomicBool::new(false),
            cancelled: Arc::new(AtomicBool::new(false)),
            owner: AtomicBool::new(false),
            quota_bytes,
            file_quota,
            usage: Mutex::new(None),
            shared: Mutex::new(None),
            lease: Mutex::new(0),
            quota_hit: AtomicBool::new(false),
            caps: [u64::MAX; 2],
            heap_cap: 0,
            heap_base: AtomicU64::new(0),
            heap_hit: AtomicBool::new(false),
            used: [AtomicU64::new(0), AtomicU64::new(0)],
            truncated: [AtomicBool::new(false), AtomicBool::new(false)],
            fault: Mutex::new(None),
        }
    }

    /// Sets (or clears) the fault to inject.
    pub fn inject(&self, fault: Option<Fault>) {
        if let Ok(mut f) = self.fault.lock() {
            *f = fault;
        }
    }

    /// The injected fault, if any.
    pub(crate) fn fault(&self) -> Option<Fault> {
        self.fault.lock().ok().and_then(|f| f.clone())
    }

    /// Counts written bytes against an injected disk-full fault: `Err` once the disk is full.
    pub(crate) fn disk_write(&self, n: u64) -> Result<(), FsError> {
        self.consume(n, false)
    }

    /// Counts bytes the state directory writes (journal records, trash entries) against an
    /// injected [`Fault::NoSpaceAfter`]: `Err` once the disk is full.
    pub fn state_write(&self, n: u64) -> Result<(), FsError> {
        self.consume(n, true)
    }

    /// Space was freed (the state directory's reserve): an injected full disk has it again.
    pub fn disk_freed(&self, n: u64) {
        if let Ok(mut f) = self.fault.lock()
            && let Some(Fault::DiskFullAfter(left) | Fault::NoSpaceAfter(left)) = f.as_mut()
        {
            *left = left.saturating_add(n);
        }
    }

    fn consume(&self, n: u64, state: bool) -> Result<(), FsError> {
        if self.owner.load(Ordering::Relaxed) {
            // A rollback writes back bytes the failed change freed.
            return Ok(());
        }
        let Ok(mut f) = self.fault.lock() else {
            return Ok(());
        };
        let left = match f.as_mut() {
            Some(Fault::DiskFullAfter(left)) if !state => left,
            Some(Fault::NoSpaceAfter(left)) => left,
            _ => return Ok(()),
        };
        if *left < n {
            *left = 0;
            return Err(FsError::NoSpace);
        }
        *left -= n;
        Ok(())
    }

    /// Sets the per-line output caps (stdout, stderr).
    pub fn set_output_caps(&mut self, stdout: u64, stderr: u64) {
        self.caps = [stdout, stderr];
    }

    /// Sets the memory one line may allocate (`limits.heap_bytes`; 0: no cap).
    pub fn set_heap_cap(&mut self, bytes: u64) {
        self.heap_cap = bytes;
    }

    /// Whether the line stopped because it allocated more than `limits.heap_bytes`.
    pub fn heap_hit(&self) -> bool {
        self.heap_hit.load(Ordering::Relaxed)
    }

    /// The memory cap of one line.
    pub fn heap_cap(&self) -> u64 {
        self.heap_cap
    }

    /// A line starts: its deadline is `limit` from now (none when zero); output counters and
    /// flags are reset.
    pub fn start_line(&self, limit: Duration) {
        let at = if limit.is_zero() {
            0
        } else {
            let ns = u128::from(coarse_nanos().saturating_sub(self.base)) + limit.as_nanos();
            u64::try_from(ns).unwrap_or(u64::MAX).max(1)
        };
        self.deadline.store(at, Ordering::Relaxed);
        self.expired.store(false, Ordering::Relaxed);
        self.cancelled.store(false, Ordering::Relaxed);
        self.quota_hit.store(false, Ordering::Relaxed);
        self.heap_hit.store(false, Ordering::Relaxed);
        self.heap_base.store(heap_in_use(), Ordering::Relaxed);
        for i in 0..2 {
            self.used[i].store(0, Ordering::Relaxed);
            self.truncated[i].store(false, Ordering::Relaxed);
        }
    }

    /// No deadline (between lines, and for the owner's own operations such as undo).
    pub fn clear_deadline(&self) {
        self.deadline.store(0, Ordering::Relaxed);
    }

    /// Enters or leaves the owner's mode: undo and rollback must finish whatever the limits.
    pub fn set_owner(&self, on: bool) {
        self.owner.store(on, Ordering::Relaxed);
    }

    /// The flag that cancels the running line (shared with whoever may cancel it).
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.cancelled)
    }

    /// Whether the running line was cancelled.
    pub fn cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Whether the line's deadline has passed, or the line was cancelled (remembered once
    /// seen), or the deadline of the command running on this thread under `timeout` has
    /// passed ([`child_expired`]; not remembered: the rest of the line goes on).
    pub fn expired(&self) -> bool {
        self.line_expired() || child_expired()
    }

    /// Whether the line's own deadline has passed, or the line was cancelled (remembered
    /// once seen).
    pub fn line_expired(&self) -> bool {
        if self.owner.load(Ordering::Relaxed) {
            return false;
        }
        if self.expired.load(Ordering::Relaxed) {
            return true;
        }
        if self.cancelled.load(Ordering::Relaxed) {
            self.expired.store(true, Ordering::Relaxed);
            return true;
        }
        // Memory is checked where the deadline is: every sandbox operation, every flush of
        // output, every command and expansion step polls here.
        if self.heap_cap != 0 && self.deadline.load(Ordering::Relaxed) != 0 {
            let base = self.heap_base.load(Ordering::Relaxed);
            if heap_in_use().saturating_sub(base) > self.heap_cap {
                self.heap_hit.store(true, Ordering::Relaxed);
                self.expired.store(true, Ordering::Relaxed);
                return true;
            }
        }
        let at = self.deadline.load(Ordering::Relaxed);
        if at == 0 {
            return false;
        }
        let now = coarse_nanos().saturating_sub(self.base);
        if now >= at {
            self.expired.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// `Err(TimedOut)` once the deadline has passed.
    pub fn check(&self) -> Result<(), FsError> {
        if self.expired() {
            Err(FsError::TimedOut)
        } else {
            Ok(())
        }
    }

    /// Counts `len` bytes of output on `stream`; returns how many of them may still be shown
    /// (fewer once the line's cap is reached, which is then remembered).
    pub fn admit(&self, stream: Stream, len: usize) -> usize {
        let i = usize::from(stream == Stream::Stderr);
        let cap = self.caps[i];
        let before = self.used[i].fetch_add(len as u64, Ordering::Relaxed);
        if before.saturating_add(len as u64) <= cap {
            return len;
        }
        self.truncated[i].store(true, Ordering::Relaxed);
        usize::try_from(cap.saturating_sub(before))
            .unwrap_or(0)
            .min(len)
    }

    /// Whether `stream`'s cap was reached on this line, and the cap.
    pub fn truncated(&self, stream: Stream) -> Option<u64> {
        let i = usize::from(stream == Stream::Stderr);
        self.truncated[i]
            .load(Ordering::Relaxed)
            .then_some(self.caps[i])
    }

    /// Whether a quota refused a write on this line.
    pub fn quota_hit(&self) -> bool {
        self.quota_hit.load(Ordering::Relaxed)
    }

    /// Shares the usage count with the other sessions on the root through `file` (the state
    /// directory's `usage` file), and forgets what was counted so far: the next charge
    /// measures under the file's lock.
    pub fn share_usage(&self, file: std::fs::File) {
        if let Ok(mut shared) = self.shared.lock() {
            *shared = Some(file);
        }
        self.forget_usage();
    }

    /// Runs `f` on the usage, shared through the usage file under its lock when there is
    /// one; `f` says whether it changed it. An unknown usage is measured first with
    /// `measure`, or, without one, `f` does not run (`None`).
    fn with_usage<T, M: FnOnce() -> Usage>(
        &self,
        measure: Option<M>,
        f: impl FnOnce(&mut Usage) -> (T, bool),
    ) -> Option<T> {
        let shared = self.shared.lock().ok()?;
        if let Some(file) = shared.as_ref() {
            let locked = file.lock().is_ok();
            let mut buf = [0u8; 24];
            let known = file.read_exact_at(&mut buf, 0).is_ok() && &buf[..8] == USAGE_MAGIC;
            let usage = if known {
                Some(Usage {
                    bytes: u64::from_le_bytes(buf[8..16].try_into().unwrap_or_default()),
                    entries: u64::from_le_bytes(buf[16..24].try_into().unwrap_or_default()),
                })
            } else {
                measure.map(|m| m())
            };
            let out = usage.map(|mut usage| {
                let (out, changed) = f(&mut usage);
                if changed || !known {
                    buf[..8].copy_from_slice(USAGE_MAGIC);
                    buf[8..16].copy_from_slice(&usage.bytes.to_le_bytes());
                    buf[16..24].copy_from_slice(&usage.entries.to_le_bytes());
                    let _ = file.write_all_at(&buf, 0);
                }
                out
            });
            if locked {
                let _ = file.unlock();
            }
            return out;
        }
        drop(shared);
        let mut local = self.usage.lock().ok()?;
        if local.is_none() {
            *local = Some(measure?());
        }
        local.as_mut().map(|u| f(u).0)
    }

    /// The usage, measuring it first with `measure` when not known yet.
    pub(crate) fn usage_with(&self, measure: impl FnOnce() -> Usage) -> Usage {
        self.with_usage(Some(measure), |u| (*u, false))
            .unwrap_or_default()
    }

    /// Gives back what was removed, when the usage is known (never measures for it).
    pub fn credit(&self, freed: Usage) {
        let _ = self.with_usage(None::<fn() -> Usage>, |u| {
            u.bytes = u.bytes.saturating_sub(freed.bytes);
            u.entries = u.entries.saturating_sub(freed.entries);
            ((), true)
        });
    }

    /// Adds bytes the audit log appended (negative: dropped) to the usage when it is known
    /// (never measures for it: a measure counts the log as it is), never refused: the owner's
    /// record is written whatever the quota. The log's budget bounds it.
    pub fn account(&self, bytes: i64) {
        let _ = self.with_usage(None::<fn() -> Usage>, |u| {
            u.bytes = u.bytes.saturating_add_signed(bytes);
            ((), bytes != 0)
        });
    }

    /// Charges `need` bytes of data about to be written: from what is held ahead when it
    /// covers them (no lock), else by a [`Guard::grant`] of what is missing plus up to `ahead`
    /// more, kept for the next writes. Fails, charging nothing, past the quota.
    pub(crate) fn take(
        &self,
        need: u64,
        ahead: u64,
        measure: impl FnOnce() -> Usage,
    ) -> Result<(), FsError> {
        let mut lease = self.lease.lock().map_err(|_| FsError::Io)?;
        if let Some(left) = lease.checked_sub(need) {
            *lease = left;
            return Ok(());
        }
        let short = need - *lease;
        let got = self.grant(i64::try_from(short).unwrap_or(i64::MAX), ahead, 0, measure)?;
        *lease = (*lease + got.max(0) as u64).saturating_sub(need);
        Ok(())
    }

    /// Bytes this session holds ahead of its writes ([`Guard::take`]).
    pub(crate) fn held(&self) -> u64 {
        self.lease.lock().map_or(0, |l| *l)
    }

    /// Gives back what is held ahead past `keep` bytes (after a large write; all of it at
    /// the session's end).
    pub(crate) fn trim_lease(&self, keep: u64) {
        let Ok(mut lease) = self.lease.lock() else {
            return;
        };
        if *lease > keep {
            let excess = *lease - keep;
            *lease = keep;
            drop(lease);
            self.credit(Usage {
                bytes: excess,
                entries: 0,
            });
        }
    }

    /// Forgets the usage (after an undo or a purge), to be measured again when next needed.
    pub fn forget_usage(&self) {
        // A measure counts what is there: nothing is held ahead of it.
        if let Ok(mut lease) = self.lease.lock() {
            *lease = 0;
        }
        if let Ok(shared) = self.shared.lock()
            && let Some(file) = shared.as_ref()
        {
            let locked = file.lock().is_ok();
            let _ = file.set_len(0);
            if locked {
                let _ = file.unlock();
            }
        }
        if let Ok(mut u) = self.usage.lock() {
            *u = None;
        }
    }

    /// Charges `bytes` and `entries` against the quotas (negative to credit). Fails, charging
    /// nothing, when a quota would be passed by a positive charge.
    pub(crate) fn charge(
        &self,
        bytes: i64,
        entries: i64,
        measure: impl FnOnce() -> Usage,
    ) -> Result<(), FsError> {
        self.grant(bytes, 0, entries, measure).map(drop)
    }

    /// Charges `need` bytes (and `entries`), and up to `extra` more bytes ahead when they fit
    /// under the quota; returns the bytes charged (at least `need`). Fails, charging nothing,
    /// when `need` (or a positive `entries`) would pass a quota.
    pub(crate) fn grant(
        &self,
        need: i64,
        extra: u64,
        entries: i64,
        measure: impl FnOnce() -> Usage,
    ) -> Result<i64, FsError> {
        let owner = self.owner.load(Ordering::Relaxed);
        let (quota_bytes, file_quota) = (self.quota_bytes, self.file_quota);
        let r = self.with_usage(Some(measure), |u| {
            let nb = u.bytes.saturating_add_signed(need);
            let ne = u.entries.saturating_add_signed(entries);
            if !owner && ((need > 0 && nb > quota_bytes) || (entries > 0 && ne > file_quota)) {
                return (Err(FsError::QuotaExceeded), false);
            }
            // Ahead, at most half of what is left: a session writing at the same time
            // still finds room near the quota.
            let ahead = if need > 0 {
                extra.min(quota_bytes.saturating_sub(nb) / 2)
            } else {
                0
            };
            u.bytes = nb.saturating_add(ahead);
            u.entries = ne;
            (Ok(need.saturating_add(ahead as i64)), true)
        });
        match r {
            Some(Err(e)) => {
                self.quota_hit.store(true, Ordering::Relaxed);
                Err(e)
            }
            Some(Ok(n)) => Ok(n),
            None => Ok(need),
        }
    }

    /// Whether a line is running with a deadline (for readers that check it).
    fn has_deadline(&self) -> bool {
        self.deadline.load(Ordering::Relaxed) != 0
    }
}

std::thread_local! {
    /// The deadline of the command this thread runs for `timeout` (the earliest of nested
    /// ones), if any: [`Guard::expired`] answers true past it on this thread only, so the
    /// command stops as at the line's deadline while the other stages of the line go on.
    static CHILD_DEADLINE: std::cell::Cell<Option<Instant>> = const { std::cell::Cell::new(None) };
}

/// The deadline of the `timeout` command this thread runs for, to hand to the threads it
/// starts (pipeline stages).
pub fn child_deadline() -> Option<Instant> {
    CHILD_DEADLINE.with(std::cell::Cell::get)
}

/// Whether the deadline of the `timeout` command this thread runs for has passed.
pub fn child_expired() -> bool {
    child_deadline().is_some_and(|at| Instant::now() >= at)
}

/// While alive, this thread runs a command under a deadline (`timeout`): the earlier of `at`
/// and the one already in force. Dropping it restores the previous one.
pub struct ChildDeadline {
    previous: Option<Instant>,
}

impl ChildDeadline {
    pub fn enter(at: Instant) -> ChildDeadline {
        let previous = child_deadline();
        let at = previous.map_or(at, |p| p.min(at));
        CHILD_DEADLINE.with(|c| c.set(Some(at)));
        ChildDeadline { previous }
    }
}

impl Drop for Guard {
    /// What is held ahead goes back to the shared count when the session ends.
    fn drop(&mut self) {
        self.trim_lease(0);
    }
}

impl Drop for ChildDeadline {
    fn drop(&mut self) {
        CHILD_DEADLINE.with(|c| c.set(self.previous));
    }
}

/// A reader of an open file that stops with `ETIME` when the line's deadline passes.
pub struct DeadlineReader<'a, R> {
    pub inner: R,
    pub guard: &'a Guard,
}

impl<R: Read> Read for DeadlineReader<'_, R> {
    /// Reads, waiting (in short sleeps, up to the deadline) while a non-blocking source — a
    /// FIFO whose writer has not written yet — has nothing to give.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.guard.has_deadline() && self.guard.expired() {
                return Err(io::Error::from(io::ErrorKind::TimedOut));
            }
            match self.inner.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                r => return r,
            }
        }
    }
}

impl<R: Seek> Seek for DeadlineReader<'_, R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn output_caps_admit_up_to_the_cap() {
        let mut g = Guard::new(100, 10);
        g.set_output_caps(10, 4);
        g.start_line(Duration::ZERO);
        assert_eq!(g.admit(Stream::Stdout, 6), 6);
        assert_eq!(g.truncated(Stream::Stdout), None);
        assert_eq!(g.admit(Stream::Stdout, 6), 4);
        assert_eq!(g.admit(Stream::Stdout, 6), 0);
        assert_eq!(g.truncated(Stream::Stdout), Some(10));
        assert_eq!(g.admit(Stream::Stderr, 4), 4);
        assert_eq!(g.truncated(Stream::Stderr), None);
        g.start_line(Duration::ZERO);
        assert_eq!(g.truncated(Stream::Stdout), None);
        assert_eq!(g.admit(Stream::Stdout, 10), 10);
    }

    #[test]
    fn deadline_expires_and_resets() {
        let g = Guard::new(100, 10);
        g.start_line(Duration::ZERO);
        assert!(g.check().is_ok());
        g.start_line(Duration::from_nanos(1));
        // The clock moves by the kernel's tick (at most 10 ms).
        std::thread::sleep(Duration::from_millis(25));
        assert_eq!(g.check(), Err(FsError::TimedOut));
        g.start_line(Duration::from_secs(60));
        assert!(!g.expired());
    }

    #[test]
    fn child_deadline_is_per_thread_and_not_remembered() {
        let g = Guard::new(100, 10);
        g.start_line(Duration::from_secs(60));
        {
            let _child = ChildDeadline::enter(Instant::now());
            assert!(g.expired());
            assert!(!g.line_expired());
            // Another thread (another stage of the line) goes on.
            std::thread::scope(|s| {
                assert!(!s.spawn(|| g.expired()).join().unwrap_or(true));
            });
            // A later deadline nested inside does not extend it.
            let _inner = ChildDeadline::enter(Instant::now() + Duration::from_secs(60));
            assert!(g.expired());
        }
        assert!(!g.expired());
        assert!(child_deadline().is_none());
    }

    #[test]
    fn quotas_refuse_without_charging() {
        let g = Guard::new(100, 3);
        let measure = || Usage {
            bytes: 90,
            entries: 2,
        };
        assert!(g.charge(10, 1, measure).is_ok());
        assert_eq!(g.charge(1, 0, measure), Err(FsError::QuotaExceeded));
        assert_eq!(g.charge(0, 1, measure), Err(FsError::QuotaExceeded));
        assert!(g.quota_hit());
        assert!(g.charge(-50, -1, measure).is_ok());
        assert!(g.charge(40, 1, measure).is_ok());
        assert_eq!(
            g.usage_with(Usage::default),
            Usage {
                bytes: 90,
                entries: 3
            }
        );
    }
    /// The usage file the sessions on a root share, opened as a session opens it.
    fn usage_file(path: &std::path::Path) -> std::fs::File {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .unwrap()
    }

    #[test]
    fn small_writes_are_taken_from_a_lease_given_back_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("usage");
        let open = || usage_file(&path);
        let measure = || Usage {
            bytes: 0,
            entries: 0,
        };
        let shared = |g: &Guard| g.usage_with(measure).bytes;
        let (a, b) = (Guard::new(1000, 10), Guard::new(1000, 10));
        a.share_usage(open());
        b.share_usage(open());
        // The first write charges 10 and 100 ahead; the next ones come from that.
        assert_eq!(a.take(10, 100, measure), Ok(()));
        assert_eq!(shared(&b), 110);
        for _ in 0..10 {
            assert_eq!(a.take(10, 100, measure), Ok(()));
        }
        assert_eq!(shared(&b), 110);
        // Past the lease: what is missing plus ahead (at most half of what is left).
        assert_eq!(a.take(10, 100, measure), Ok(()));
        assert_eq!(shared(&b), 220);
        // The other session cannot take what is held ahead...
        assert_eq!(b.take(781, 0, measure), Err(FsError::QuotaExceeded));
        assert_eq!(b.take(780, 0, measure), Ok(()));
        // ...and the quota holds exactly for the holder too: 100 held, none left.
        assert_eq!(a.take(101, 0, measure), Err(FsError::QuotaExceeded));
        assert_eq!(a.take(100, 0, measure), Ok(()));
        assert_eq!(shared(&b), 1000);
        // What is still held goes back when the session ends.
        b.credit(Usage {
            bytes: 500,
            entries: 0,
        });
        assert_eq!(a.take(10, 100, measure), Ok(()));
        assert_eq!(shared(&b), 610);
        drop(a);
        assert_eq!(shared(&b), 510);
    }

    #[test]
    fn two_guards_sharing_a_usage_file_count_together() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("usage");
        let open = || usage_file(&path);
        let (a, b) = (Guard::new(100, 10), Guard::new(100, 10));
        a.share_usage(open());
        b.share_usage(open());
        let measured = std::cell::Cell::new(0);
        let measure = || {
            measured.set(measured.get() + 1);
            Usage {
                bytes: 50,
                entries: 2,
            }
        };
        assert!(a.charge(30, 1, measure).is_ok());
        // b sees a's charge (no second measure).
        assert_eq!(b.charge(30, 0, measure), Err(FsError::QuotaExceeded));
        assert_eq!(measured.get(), 1);
        assert!(b.charge(20, 0, measure).is_ok());
        assert_eq!(
            a.usage_with(measure),
            Usage {
                bytes: 100,
                entries: 3
            }
        );
        // A grant takes at most half of what is left ahead.
        b.credit(Usage {
            bytes: 40,
            entries: 0,
        });
        assert_eq!(a.grant(10, 1000, 0, measure), Ok(10 + 15));
        // Forgotten: a credit does not measure; the next charge does.
        b.forget_usage();
        a.credit(Usage {
            bytes: 5,
            entries: 0,
        });
        assert_eq!(measured.get(), 1);
        assert!(a.charge(1, 0, measure).is_ok());
        assert_eq!(measured.get(), 2);
        assert_eq!(b.usage_with(measure).bytes, 51);
    }

    #[test]
    fn no_space_counts_state_writes_and_frees() {
        let g = Guard::new(100, 10);
        g.inject(Some(Fault::NoSpaceAfter(10)));
        assert!(g.state_write(8).is_ok());
        assert_eq!(g.disk_write(4), Err(FsError::NoSpace));
        g.disk_freed(4096);
        assert!(g.state_write(4000).is_ok());
        g.inject(Some(Fault::DiskFullAfter(0)));
        assert!(g.state_write(4000).is_ok(), "data-only fault");
        assert_eq!(g.disk_write(1), Err(FsError::NoSpace));
    }
}
