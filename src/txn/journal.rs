//! Transactions: one input line is one transaction, journaled as inverses so that it can be
//! undone (`undo`), rolled back when it fails (`--atomic`), or rolled back after a crash.
//!
//! Layout in the state directory:
//!
//! - `txn/seg-<session>-<k>.jsonl` — the session's segments: one open append-only log per
//!   session, records of every transaction it writes (see `src/txn/record.rs` for each kind):
//!   `begin` at the line's first change, then per change a `do` written *before* it is applied
//!   (the inverses that revert it) and a `done` (or `failed`) written *after*, with what the
//!   change left; `end` when the line is over; and the progress of a revert. A line that
//!   changes nothing writes nothing and opens nothing; a line that changes something costs a
//!   few appends to the open segment, never a file created or removed.
//! - `txn/<id>.d/<seq>` — what a change replaced: the bytes of an overwritten file (copied, so
//!   the file keeps its inode), or an object moved aside by a rename over it; made only when a
//!   change saves bytes (an overwrite of one file saves its old bytes once per line).
//! - `txn/horizon` — the newest pruned transaction (committed lines up to it are gone).
//! - `sessions/<session>.lock` — held (`flock`) by a live session, so that recovery never
//!   touches another live session's open transaction.
//! - `undo.lock` — held (`flock`) while a transaction is chosen and reverted (undo, rollback,
//!   recovery) or pruned: two sessions' `undo`s never revert the same line.
//!
//! Ids (`txn-<nanoseconds>-<random>-<n>`) sort by time, so "the last N lines" is the last N
//! committed transactions. Undo costs what the line changed: a trash is undone by one rename
//! back, a `cp -r` by removing what it created, an overwrite by writing the saved bytes back;
//! nothing is proportional to the size of the sandbox.
//!
//! History: `undo` reaches the last `undo_history` committed lines, exactly: it reads the
//! journal (every session's segments) newest first and stops after that many committed lines,
//! counting the lines undone before (a line undone whole stays in the journal, its saved bytes
//! removed, until it is pruned), so that undoing never brings an older line into reach.
//! Pruning moves the horizon over the oldest committed lines (a line still open stays, for
//! recovery) and removes in bulk every file that holds only pruned lines: whole segments, when a
//! session's segment is full, and at each commit that saved bytes. The saved bytes are bounded
//! too: a shared count (`undo-saved`, under the journal's lock) grows with each commit that
//! saved bytes; when it passes `undo_bytes`, the oldest transactions are pruned until the
//! rest fits (the newest line is always kept, whatever it saved), and the count is set to
//! what is left, measured.
//!
//! Reverting never destroys and never guesses (see `src/txn/revert.rs`): each inverse first
//! checks that its object is still what the change left, what it replaces goes to the trash,
//! and what it cannot revert is reported and kept for a later `undo`.
//!
//! Durability: each record is written whole by one `write(2)`, without `fsync` (a line's
//! `begin` goes with its first `do`, and a redirection's renewed `done` with the next record:
//! neither must be on disk sooner); every `do` is on disk before its change, every `done`
//! right after it: a killed process (`kill -9`, a panic, an OOM kill) loses nothing, a power
//! loss may. After a crash the
//! next session rolls back every transaction that has no `end` and whose session is gone, and
//! finishes every revert that was killed part-way, and says so.

use std::collections::HashMap;

/// The maps a line keeps by path: hashed fast (a line's first write hashes its path
/// several times; the keys are few, the seed random per process).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::fs::{Dir, OpenOptions};
use trumansh_commands::{FsError, Op};

use crate::api::{AppliedEffect, MAX_EFFECTS};
use crate::audit::text;
use crate::sandbox::{Before, Fingerprint, Loc, Sandbox, Targets, unique_name};
use crate::txn::record::{
    After, Loaded, Log, Record, RecordRef, blob_bytes, blob_dir, load_all, load_skim, saved_add,
    saved_set, write_horizon,
};
pub use crate::txn::record::{Inverse, RelPath};
use crate::txn::reserve;
pub use crate::txn::revert::{By, Reverted, SkipReason, Skipped};
use crate::txn::revert::{audit, revert};
use crate::txn::trash;

/// Live sessions' lock files.
const SESSIONS_DIR: &str = "sessions";
/// The lock held while transactions are chosen and reverted, or pruned.
const UNDO_LOCK: &str = "undo.lock";

/// What must happen before a change is applied, beyond recording it.
#[derive(Debug, Default)]
pub struct Plan {
    pub undo: Vec<Inverse>,
    /// Move this object aside (to this state-relative path) first.
    pub stash: Option<(Loc, PathBuf)>,
    /// The trash id a `Trash` change must use.
    pub trash_id: Option<String>,
    /// Bytes saved for the undo (an overwrite's old bytes, an object moved aside).
    pub saved: u64,
    /// A write to a file this line already wrote: nothing is saved again; the earlier
    /// record (its seq and inverses), which reverts the file to before the line, is renewed.
    pub renew: Option<(u64, Vec<Inverse>)>,
    /// A write's target as planning found it (`Some(None)`: missing), so that the write
    /// does not look at it again.
    pub target: Option<Option<Before>>,
}

/// A change about to be applied, as recorded.
#[derive(Debug)]
pub struct Pending {
    pub seq: u64,
    pub plan: Plan,
}

/// A redirection's file: the line writes to it after it was opened (a change of its own),
/// so what the open left is renewed when the line goes on or ends.
struct Written {
    seq: u64,
    undo: Vec<Inverse>,
    dirty: bool,
    /// The file the open left open, which the writes go through: what it is now is
    /// looked at on it (`fstat`) rather than by its path.
    file: Option<std::sync::Arc<std::fs::File>>,
}

struct Active {
    id: String,
    next_seq: u64,
    failed: bool,
    saved: u64,
    /// Redirection targets opened by this line, by virtual path.
    written: FastMap<PathBuf, Written>,
    /// Files this line wrote, by physical path: the first record whose inverse takes the
    /// file back to before the line (or to before its appends), so that a loop writing the
    /// same file saves its old bytes once.
    cover: FastMap<Vec<u8>, Cover>,
}

/// See [`Active::cover`].
struct Cover {
    seq: u64,
    undo: Vec<Inverse>,
    /// The inverse restores or removes the whole file (else it cuts appends back).
    full: bool,
}

struct Inner {
    line: String,
    active: Option<Active>,
    /// What the current line applied, for its report (kept even when recording is off): the
    /// first [`MAX_EFFECTS`], and how many more.
    applied: Vec<AppliedEffect>,
    applied_more: usize,
}

/// The session's journal.
pub struct Journal {
    /// `false`: nothing is recorded (the policy's `journal = false`).
    enabled: bool,
    session: String,
    history: usize,
    /// The most bytes the transactions may keep saved (`undo_bytes`).
    undo_bytes: u64,
    inner: Mutex<Inner>,
    /// The session's segments (locked after `inner` when both are, and after the journal's
    /// lock).
    log: Mutex<Log>,
    /// Held while one change is planned, applied and its result recorded: the stages of a
    /// pipeline change the tree one change at a time, in the journal's order, so that undo
    /// (newest first) meets each object as the change left it.
    changing: Mutex<()>,
    /// The session's lock, held while it lives, and the state directory to remove it from.
    lock: Option<(std::fs::File, Dir)>,
    /// The most changes one line may make (`limits.changes`), and how many it made.
    max_changes: AtomicU64,
    line_changes: AtomicU64,
}

impl Journal {
    /// The session's segments.
    fn log(&self) -> std::sync::MutexGuard<'_, Log> {
        self.log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes the turn to change the tree (see `changing`), until the guard is dropped.
    pub fn changing(&self) -> std::sync::MutexGuard<'_, ()> {
        self.changing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Opens the journal of a new session (taking its lock), shares the quota's count with
    /// the other sessions on the root, tops up the state directory's reserve, and rolls back
    /// what crashed sessions left open (and finishes what they left half reverted). Returns
    /// the journal and what was rolled back.
    pub fn open(
        sandbox: &Sandbox,
        history: usize,
        undo_bytes: u64,
        enabled: bool,
    ) -> (Journal, Vec<Reverted>) {
        let state = sandbox.state_dir();
        let session = sandbox.audit().session().to_string();
        let _ = ensure_dir(state, Path::new(crate::txn::record::TXN_DIR));
        let _ = ensure_dir(state, Path::new(SESSIONS_DIR));
        let lock =
            lock_session(state, &session).and_then(|f| state.try_clone().ok().map(|d| (f, d)));
        sandbox.share_usage();
        reserve::top_up(state);
        let journal = Journal {
            enabled,
            session: session.clone(),
            history: history.max(1),
            undo_bytes,
            log: Mutex::new(Log::new(&session)),
            inner: Mutex::new(Inner {
                line: String::new(),
                active: None,
                applied: Vec::new(),
                applied_more: 0,
            }),
            changing: Mutex::new(()),
            lock,
            max_changes: AtomicU64::new(u64::MAX),
            line_changes: AtomicU64::new(0),
        };
        let recovered = journal.recover(sandbox);
        (journal, recovered)
    }

    /// The most changes one line may make (the policy's `limits.changes`).
    pub fn set_max_changes(&self, max: u64) {
        self.max_changes.store(max, Ordering::Relaxed);
    }

    /// Whether the current line tried to make more changes than its limit.
    pub fn over_changes(&self) -> bool {
        self.line_changes.load(Ordering::Relaxed) > self.max_changes.load(Ordering::Relaxed)
    }

    /// A new input line starts (its transaction is created with its first change).
    pub fn begin_line(&self, line: &[u8]) {
        self.line_changes.store(0, Ordering::Relaxed);
        if let Ok(mut inner) = self.inner.lock() {
            inner.line = match text(line) {
                serde_json::Value::String(s) => s,
                _ => String::new(),
            };
            inner.active = None;
            inner.applied.clear();
            inner.applied_more = 0;
        }
    }

    /// Notes a change the current line applied (for the line's report).
    pub fn applied(&self, effect: AppliedEffect) {
        if let Ok(mut inner) = self.inner.lock() {
            if inner.applied.len() < MAX_EFFECTS {
                inner.applied.push(effect);
            } else {
                inner.applied_more += 1;
            }
        }
    }

    /// Bytes a command wrote (`n`; 0 for a write that failed part-way) to a redirection
    /// target the line opened: counted in that open's effect, and what the open left is
    /// recorded again before the next change (or at the end of the line).
    pub fn wrote(&self, path: &Path, n: u64) {
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        if let Some(active) = inner.active.as_mut()
            && let Some(w) = active.written.get_mut(path)
        {
            w.dirty = true;
        }
        if let Some(AppliedEffect::Write { bytes, .. }) = inner
            .applied
            .iter_mut()
            .rev()
            .find(|e| matches!(e, AppliedEffect::Write { path: p, .. } if p == path))
        {
            *bytes += n;
        }
    }

    /// The changes the current line applied, in order, and how many more were not kept.
    pub fn take_applied(&self) -> (Vec<AppliedEffect>, usize) {
        self.inner
            .lock()
            .map(|mut i| {
                let more = std::mem::take(&mut i.applied_more);
                (std::mem::take(&mut i.applied), more)
            })
            .unwrap_or_default()
    }

    /// Plans and records a change before it is applied. `Err` when what the change replaces
    /// could not be saved, or the record could not be written (the change must then not be
    /// applied). A removal (`Trash`) may draw on the state directory's reserve.
    pub fn before(
        &self,
        sandbox: &Sandbox,
        op: &Op,
        targets: &Targets,
        op_name: &str,
    ) -> Result<Pending, FsError> {
        // `limits.changes`: past it, the change fails as on a full quota (and the
        // interpreter stops the line).
        let made = self.line_changes.fetch_add(1, Ordering::Relaxed) + 1;
        if made > self.max_changes.load(Ordering::Relaxed) {
            return Err(FsError::QuotaExceeded);
        }
        if !self.enabled {
            let mut plan = Plan::default();
            if matches!(op, Op::Trash { .. }) {
                plan.trash_id = Some(unique_name("t"));
            }
            return Ok(Pending { seq: 0, plan });
        }
        let removal = matches!(op, Op::Trash { .. });
        let Ok(mut inner) = self.inner.lock() else {
            return Err(FsError::Io);
        };
        let mut log = self.log();
        if inner.active.is_none() {
            // A `begin` in the session's open segment (a directory for saved bytes only when
            // one is needed).
            // Staged: written with the change's `do`, in one `write(2)`.
            let id = unique_name("txn");
            log.stage(
                &id,
                &RecordRef::Begin {
                    session: &self.session,
                    line: &inner.line,
                    time: trash::timestamp(),
                },
            );
            inner.active = Some(Active {
                id,
                next_seq: 1,
                failed: false,
                saved: 0,
                written: FastMap::default(),
                cover: FastMap::default(),
            });
        }
        let Some(active) = inner.active.as_mut() else {
            return Err(FsError::Io);
        };
        flush_written(sandbox, &mut log, active);
        let seq = active.next_seq;
        active.next_seq += 1;
        let blob = Blob {
            id: &active.id,
            seq,
        };
        let key = match (op, targets.first()) {
            (Op::WriteFile { .. }, Ok(loc)) => Some(RelPath::of(sandbox, loc).bytes().to_vec()),
            _ => None,
        };
        if !matches!(op, Op::WriteFile { .. }) {
            // Another change with an inverse of its own: a later write must be revertible
            // back to what that change left, so it is recorded in full again.
            active.cover.clear();
        }
        let append = matches!(op, Op::WriteFile { append: true, .. });
        let covered = key
            .as_ref()
            .and_then(|k| active.cover.get(k))
            .filter(|c| c.full || append);
        let plan = if let Some(c) = covered {
            Plan {
                renew: Some((c.seq, c.undo.clone())),
                ..Plan::default()
            }
        } else {
            let plan = plan(sandbox, op, targets, &blob)?;
            if let Some(k) = key {
                let full = match plan.undo.first() {
                    Some(Inverse::Restore { .. } | Inverse::Remove { .. }) => Some(true),
                    Some(Inverse::Truncate { .. }) => Some(false),
                    _ => None,
                };
                if let Some(full) = full {
                    active.cover.insert(
                        k,
                        Cover {
                            seq,
                            undo: plan.undo.clone(),
                            full,
                        },
                    );
                }
            }
            plan
        };
        log.append(
            sandbox,
            &active.id,
            &RecordRef::Do {
                seq,
                op: op_name,
                path: &op_path(op),
                undo: &plan.undo,
            },
            removal,
        )?;
        active.saved += plan.saved;
        Ok(Pending { seq, plan })
    }

    /// Records what a change left, right after it was applied (`ok`) or failed: one
    /// fingerprint per inverse, which every revert compares with the object before it acts.
    pub fn after(
        &self,
        sandbox: &Sandbox,
        op: &Op,
        pending: &Pending,
        ok: bool,
        file: Option<&std::sync::Arc<std::fs::File>>,
    ) {
        if !self.enabled || pending.seq == 0 {
            return;
        }
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        let Some(active) = inner.active.as_mut() else {
            return;
        };
        if ok
            && pending.plan.renew.is_none()
            && let Op::WriteFile { path, data, .. } = op
            && data.is_empty()
        {
            // A redirection's first open in the line: the command writes to the file next,
            // so what it left is recorded once the writes are done (before the next change,
            // or with the line's `end`), in the same `write(2)`. A crash before that leaves
            // the change without its `done`, as a crash during any change does.
            active.written.insert(
                path.clone(),
                Written {
                    seq: pending.seq,
                    undo: pending.plan.undo.clone(),
                    dirty: true,
                    file: file.cloned(),
                },
            );
            return;
        }
        let after = fingerprints(sandbox, &pending.plan.undo);
        let removal = matches!(op, Op::Trash { .. });
        let seq = pending.seq;
        let record = if ok {
            Record::Done { seq, after }
        } else {
            active.failed = true;
            Record::Failed {
                seq,
                after: Some(after),
            }
        };
        let mut log = self.log();
        let _ = log.append(sandbox, &active.id, &record, removal);
        if ok && let Some((first, undo)) = &pending.plan.renew {
            // What the file is now is what the earlier record's revert will find.
            let after = fingerprints(sandbox, undo);
            let _ = log.append(
                sandbox,
                &active.id,
                &Record::Done { seq: *first, after },
                removal,
            );
        }
        drop(log);
        if ok
            && let Op::WriteFile { path, data, .. } = op
            && data.is_empty()
        {
            // A redirection's open: the command writes to the file next.
            let (seq, undo) = match &pending.plan.renew {
                Some((first, undo)) => (*first, undo.clone()),
                None => (seq, pending.plan.undo.clone()),
            };
            active.written.insert(
                path.clone(),
                Written {
                    seq,
                    undo,
                    dirty: false,
                    file: file.cloned(),
                },
            );
        }
    }

    /// Whether a change of the current line failed.
    pub fn line_failed(&self) -> bool {
        self.inner
            .lock()
            .is_ok_and(|i| i.active.as_ref().is_some_and(|a| a.failed))
    }

    /// The line is over: commits its transaction (and prunes the history), or rolls it back
    /// when `rollback` is set. Returns the rollback's report.
    pub fn end_line(&self, sandbox: &Sandbox, status: i32, rollback: bool) -> Option<Reverted> {
        let mut active = self.inner.lock().ok()?.active.take()?;
        flush_written(sandbox, &mut self.log(), &mut active);
        let Active { id, saved, .. } = active;
        if rollback {
            let _ = self.log().flush(sandbox);
            let _lock = lock_undo(sandbox.state_dir());
            let loaded = load_all(sandbox.state_dir(), sandbox.state_in_root());
            let reverted = match loaded.txns.get(&id) {
                Some(Ok(txn)) => revert(
                    sandbox,
                    &mut self.log(),
                    txn,
                    &loaded,
                    &self.session,
                    By::Rollback,
                ),
                found => {
                    let reason = match found {
                        Some(Err(reason)) => reason.clone(),
                        _ => "cannot read its records".to_string(),
                    };
                    let r = Reverted::refused(&id, reason);
                    audit(sandbox, By::Rollback, &r);
                    r
                }
            };
            return Some(reverted);
        }
        let mut log = self.log();
        let _ = log.append(
            sandbox,
            &id,
            &Record::End {
                status,
                time: trash::timestamp(),
                closed_by: None,
            },
            true,
        );
        let rolled = log.roll_if_full();
        drop(log);
        self.prune(sandbox, saved, rolled);
        None
    }

    /// Reverts the last `n` committed lines (newest first), within the last `undo_history`
    /// committed lines. Lists what was reverted — fewer than `n` when the history is shorter;
    /// none when there is nothing to undo — with the transactions whose journal was refused
    /// (reported, not counted, kept for the owner). A line left partly reverted (something
    /// changed since) is kept and counts again for the next `undo`.
    pub fn undo(&self, sandbox: &Sandbox, n: usize) -> Vec<Reverted> {
        let state = sandbox.state_dir();
        let _lock = lock_undo(state);
        let active_id = self
            .inner
            .lock()
            .ok()
            .and_then(|i| i.active.as_ref().map(|a| a.id.clone()));
        let loaded = load_all(state, sandbox.state_in_root());
        let mut log = self.log();
        let mut out: Vec<Reverted> = Vec::new();
        let mut counted = 0;
        let mut window = 0;
        for (id, txn) in loaded.txns.iter().rev() {
            if counted >= n || window >= self.history || *id <= loaded.horizon {
                break;
            }
            if Some(id) == active_id.as_ref() {
                continue;
            }
            let txn = match txn {
                Ok(txn) => txn,
                Err(reason) => {
                    let r = Reverted::refused(id, reason.clone());
                    audit(sandbox, By::Undo, &r);
                    out.push(r);
                    continue;
                }
            };
            if !txn.closed {
                continue; // another session's open line
            }
            window += 1;
            if txn.is_undone() {
                continue; // undone before: it still counts in the history
            }
            let reverted = revert(sandbox, &mut log, txn, &loaded, &self.session, By::Undo);
            if reverted.is_empty() {
                continue; // a line whose every change failed: nothing to count
            }
            counted += 1;
            out.push(reverted);
        }
        out
    }

    /// Rolls back transactions left open by sessions that are gone, and finishes reverts that
    /// were killed part-way.
    fn recover(&self, sandbox: &Sandbox) -> Vec<Reverted> {
        let state = sandbox.state_dir();
        let _lock = lock_undo(state);
        let loaded = load_all(state, sandbox.state_in_root());
        let mut log = self.log();
        let mut out = Vec::new();
        for (id, txn) in &loaded.txns {
            let txn = match txn {
                Ok(txn) => txn,
                Err(reason) => {
                    // Refused: never acted on; the owner's log says why (`undo` reports it).
                    sandbox.audit().event(
                        "journal_refused",
                        crate::audit::fields([
                            ("txn", id.clone().into()),
                            ("reason", reason.clone().into()),
                        ]),
                    );
                    continue;
                }
            };
            // No revert is under way (we hold the lock): one that began and did not end was
            // killed.
            if txn.closed && !txn.revert_interrupted {
                continue;
            }
            let owner = txn.session.clone();
            if !txn.closed && owner != self.session && session_alive(state, &owner) {
                continue; // a live session's open line
            }
            let reverted = revert(sandbox, &mut log, txn, &loaded, &self.session, By::Recovery);
            if !txn.closed && !owner.is_empty() && owner != self.session {
                let _ = state.remove_file(Path::new(SESSIONS_DIR).join(format!("{owner}.lock")));
            }
            out.push(reverted);
        }
        out
    }

    /// After a commit: adds what the line saved to the shared saved-bytes count, and prunes
    /// the oldest lines while the journal holds more than the history (checked when the
    /// session's segment is full, and at each commit that saved bytes) or the saved bytes are
    /// over `undo_bytes` (the newest line that saved bytes is always kept). Pruning moves the
    /// horizon over the oldest committed lines (so what `undo` reaches is always the newest
    /// lines; a line still open stays in the journal whatever the horizon, for recovery),
    /// removes their saved bytes, and removes every file of the journal that holds only
    /// pruned lines — whole segments, in bulk.
    fn prune(&self, sandbox: &Sandbox, saved: u64, rolled: bool) {
        let state = sandbox.state_dir();
        if !rolled && saved == 0 {
            return;
        }
        let _lock = lock_undo(state);
        let mut total = saved_add(state, saved as i64).unwrap_or_else(|| {
            let t = saved_exactly(
                sandbox,
                &load_skim(state, sandbox.state_in_root(), self.log().skims()),
            );
            saved_set(state, t);
            t
        });
        if !rolled && saved == 0 && total <= self.undo_bytes {
            return;
        }
        let loaded = load_skim(state, sandbox.state_in_root(), self.log().skims());
        let with_blobs = blob_ids(state);
        let closed: Vec<&crate::txn::record::Txn> = loaded
            .txns
            .values()
            .filter_map(|t| t.as_ref().ok())
            .filter(|t| t.closed)
            .collect();
        let count_cut = closed.len().saturating_sub(self.history);
        let newest_saving = closed.iter().rposition(|t| with_blobs.contains(&t.id));
        let mut horizon = loaded.horizon.clone();
        let mut freed = 0u64;
        for (k, txn) in closed.iter().enumerate() {
            let over = total.saturating_sub(freed) > self.undo_bytes;
            if (k >= count_cut && !over) || (over && Some(k) == newest_saving) {
                break;
            }
            horizon.clone_from(&txn.id);
            if with_blobs.contains(&txn.id) {
                // What the pruned line saved leaves the quota (measured: it is small).
                let bytes = blob_bytes(state, &txn.id);
                let usage = sandbox.state_usage(&blob_dir(&txn.id));
                let _ = state.remove_dir_all(blob_dir(&txn.id));
                sandbox.credit(usage);
                if txn.counted {
                    freed += bytes;
                }
            }
        }
        if horizon != loaded.horizon {
            write_horizon(state, &horizon);
        }
        // Saved bytes of lines pruned before (a crash between the horizon and their removal).
        for id in with_blobs.iter().filter(|id| **id <= horizon) {
            if !loaded.txns.contains_key(id.as_str()) {
                let usage = sandbox.state_usage(&blob_dir(id));
                let _ = state.remove_dir_all(blob_dir(id));
                sandbox.credit(usage);
            }
        }
        self.drop_pruned_files(sandbox, &loaded, &horizon);
        self.log().forget_pruned(&horizon);
        if freed > 0 {
            total = saved_add(state, -(freed as i64)).unwrap_or(0);
        }
        if total > self.undo_bytes {
            // The count drifted (a crash between a commit and its count): measure it.
            let loaded = load_skim(state, sandbox.state_in_root(), self.log().skims());
            saved_set(state, saved_exactly(sandbox, &loaded));
        }
    }

    /// Removes the journal's files that hold only pruned lines (at or below `horizon`, not
    /// open, not refused), except the segment a live session writes to.
    fn drop_pruned_files(&self, sandbox: &Sandbox, loaded: &Loaded, horizon: &str) {
        let state = sandbox.state_dir();
        let current = self.log().current();
        let mut newest: HashMap<&str, u64> = HashMap::new();
        for f in &loaded.files {
            if let Some((session, k)) = &f.seg {
                let e = newest.entry(session.as_str()).or_insert(*k);
                *e = (*e).max(*k);
            }
        }
        for f in &loaded.files {
            let pruned = f.all_pruned(horizon, |id| match loaded.txns.get(id) {
                None => true,
                Some(Ok(t)) => t.closed,
                Some(Err(_)) => false,
            });
            if !pruned || f.name == current {
                continue;
            }
            if let Some((session, k)) = &f.seg
                && newest.get(session.as_str()) == Some(k)
                && *session != self.session
                && session_alive(state, session)
            {
                continue; // a live session's open segment
            }
            let _ = state.remove_file(Path::new(crate::txn::record::TXN_DIR).join(&f.name));
            self.log().forget(&f.name);
            sandbox.credit(crate::limits::Usage {
                bytes: f.len,
                entries: 1,
            });
        }
    }
}

/// The transactions that keep saved bytes (a `txn/<id>.d` directory).
fn blob_ids(state: &Dir) -> std::collections::BTreeSet<String> {
    state
        .read_dir(crate::txn::record::TXN_DIR)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".d").map(str::to_string))
        .collect()
}

/// The bytes committed transactions keep saved, measured.
fn saved_exactly(sandbox: &Sandbox, loaded: &Loaded) -> u64 {
    let state = sandbox.state_dir();
    blob_ids(state)
        .iter()
        .filter(|id| {
            loaded
                .txns
                .get(*id)
                .is_some_and(|t| t.as_ref().is_ok_and(|t| t.counted))
        })
        .map(|id| blob_bytes(state, id))
        .sum()
}

impl Drop for Journal {
    fn drop(&mut self) {
        // An open transaction at the end of a session (a front end that stopped mid-line) is
        // committed as it stands.
        if let Ok(mut inner) = self.inner.lock()
            && let Some(active) = inner.active.take()
        {
            let _ = self.log().append_raw(
                &active.id,
                &Record::End {
                    status: 0,
                    time: trash::timestamp(),
                    closed_by: None,
                },
            );
        }
        if let Some((file, state)) = self.lock.take() {
            let _ =
                state.remove_file(Path::new(SESSIONS_DIR).join(format!("{}.lock", self.session)));
            drop(file);
        }
    }
}

/// Renews what redirections' files were left as, for those the line wrote to since (staged:
/// written with the record that follows, the next change's `do` or the line's `end`).
fn flush_written(sandbox: &Sandbox, log: &mut Log, active: &mut Active) {
    let Active { written, id, .. } = active;
    for w in written.values_mut().filter(|w| w.dirty) {
        w.dirty = false;
        let after = match (&w.file, w.undo.as_slice()) {
            (Some(f), [_]) => vec![Some(Fingerprint::of_file(f))],
            _ => fingerprints(sandbox, &w.undo),
        };
        log.stage(id, &Record::Done { seq: w.seq, after });
    }
}

/// What a change left: the fingerprint of each inverse's subject.
fn fingerprints(sandbox: &Sandbox, undo: &[Inverse]) -> After {
    undo.iter()
        .map(|inv| inv.subject().map(|s| s.fingerprint(sandbox)))
        .collect()
}

/// What a change needs recorded (and saved) so that it can be reverted.
fn plan(sandbox: &Sandbox, op: &Op, targets: &Targets, blob: &Blob) -> Result<Plan, FsError> {
    let mut plan = Plan::default();
    // An op whose location does not resolve fails on it, and changes nothing to revert.
    let Ok(loc) = targets.first() else {
        return Ok(plan);
    };
    match op {
        Op::CreateDir { .. } | Op::Symlink { .. } => {
            if looked(sandbox, loc).is_none() {
                plan.undo.push(Inverse::Remove {
                    at: RelPath::of(sandbox, loc),
                });
            }
        }
        Op::WriteFile { append, .. } => plan_write(sandbox, loc, *append, blob, &mut plan)?,
        Op::Touch { create, .. } => match looked(sandbox, loc) {
            None if *create => plan.undo.push(Inverse::Remove {
                at: RelPath::of(sandbox, loc),
            }),
            None => {}
            Some(b) => plan.undo.push(Inverse::Times {
                at: RelPath::of(sandbox, loc),
                times: b.times,
            }),
        },
        Op::Trash { .. } => {
            let id = unique_name("t");
            plan.undo.push(Inverse::Untrash {
                at: RelPath::of(sandbox, loc),
                trash_id: id.clone(),
            });
            plan.trash_id = Some(id);
        }
        Op::Rename { .. } => {
            if let Ok(b) = targets.second() {
                let a = loc;
                plan.undo.push(Inverse::RenameBack {
                    from: RelPath::of(sandbox, a),
                    to: RelPath::of(sandbox, b),
                });
                let src = looked(sandbox, a);
                match looked(sandbox, b) {
                    Some(t) if !t.is_dir && src.is_some_and(|s| !s.is_dir) => {
                        let blob = blob.path();
                        plan.undo.push(Inverse::Unstash {
                            at: RelPath::of(sandbox, b),
                            blob: blob.to_string_lossy().into_owned(),
                        });
                        make_blob_dir(sandbox, &blob);
                        plan.saved += t.len;
                        plan.stash = Some((b.clone(), blob));
                    }
                    Some(t) if t.is_dir && src.is_some_and(|s| s.is_dir) => {
                        plan.undo.push(Inverse::Mkdir {
                            at: RelPath::of(sandbox, b),
                            mode: t.mode,
                        });
                    }
                    _ => {}
                }
            }
        }
        Op::Copy { .. } => {
            if let Ok(dst) = targets.second() {
                if looked(sandbox, loc).is_some_and(|s| s.is_symlink) {
                    if looked(sandbox, dst).is_none() {
                        plan.undo.push(Inverse::Remove {
                            at: RelPath::of(sandbox, dst),
                        });
                    }
                } else {
                    plan_write(sandbox, dst, false, blob, &mut plan)?;
                }
            }
        }
        Op::SetMode { .. } => {
            if let Some(b) = looked(sandbox, loc) {
                plan.undo.push(Inverse::Mode {
                    at: RelPath::of(sandbox, loc),
                    mode: b.mode,
                });
            }
        }
        Op::HardLink { .. } => {
            if let Ok(dst) = targets.second()
                && looked(sandbox, dst).is_none()
            {
                plan.undo.push(Inverse::Remove {
                    at: RelPath::of(sandbox, dst),
                });
            }
        }
        Op::Truncate { len, create, .. } => match looked(sandbox, loc) {
            None if *create => plan.undo.push(Inverse::Remove {
                at: RelPath::of(sandbox, loc),
            }),
            None => {}
            Some(b) if !b.is_file => {}
            // Grown: cut back to the old length.
            Some(b) if *len >= b.len => plan.undo.push(Inverse::Truncate {
                at: RelPath::of(sandbox, loc),
                len: b.len,
                times: b.times,
            }),
            // Cut: the bytes it loses are saved.
            Some(_) => plan_write(sandbox, loc, false, blob, &mut plan)?,
        },
    }
    Ok(plan)
}

/// The inverse of a write to a resolved location: remove what it creates, cut back what it
/// appends to, or save the bytes it overwrites.
fn plan_write(
    sandbox: &Sandbox,
    loc: &Loc,
    append: bool,
    blob: &Blob,
    plan: &mut Plan,
) -> Result<(), FsError> {
    let before = looked(sandbox, loc);
    plan.target = Some(before);
    match before {
        None => plan.undo.push(Inverse::Remove {
            at: RelPath::of(sandbox, loc),
        }),
        Some(b) if !b.is_file => {}
        Some(b) if append => plan.undo.push(Inverse::Truncate {
            at: RelPath::of(sandbox, loc),
            len: b.len,
            times: b.times,
        }),
        Some(b) => {
            let blob = blob.path();
            make_blob_dir(sandbox, &blob);
            plan.saved += sandbox.save_bytes(loc, &blob)?;
            plan.undo.push(Inverse::Restore {
                at: RelPath::of(sandbox, loc),
                blob: blob.to_string_lossy().into_owned(),
                mode: b.mode,
                times: b.times,
            });
        }
    }
    Ok(())
}

/// Where a change's saved bytes go (`txn/<id>.d/<seq>`), made only when it saves some.
struct Blob<'a> {
    id: &'a str,
    seq: u64,
}

impl Blob<'_> {
    fn path(&self) -> PathBuf {
        blob_dir(self.id).join(self.seq.to_string())
    }
}

/// What is at a change's location before it: what the walk that resolved it just now found
/// there, or a look now.
fn looked(sandbox: &Sandbox, loc: &Loc) -> Option<Before> {
    loc.seen().unwrap_or_else(|| sandbox.before(loc))
}

/// The path an op names, for the journal's readers.
fn op_path(op: &Op) -> String {
    let p = match op {
        Op::CreateDir { path, .. }
        | Op::WriteFile { path, .. }
        | Op::Touch { path, .. }
        | Op::Trash { path }
        | Op::SetMode { path, .. }
        | Op::Symlink { path, .. }
        | Op::Truncate { path, .. } => path.as_path(),
        Op::Rename { from, .. } | Op::Copy { from, .. } | Op::HardLink { from, .. } => {
            from.as_path()
        }
    };
    match text(p.as_os_str().as_bytes()) {
        serde_json::Value::String(s) => s,
        _ => String::new(),
    }
}

/// Creates the directory a blob goes in.
fn make_blob_dir(sandbox: &Sandbox, blob: &Path) {
    if let Some(dir) = blob.parent() {
        let _ = ensure_dir(sandbox.state_dir(), dir);
    }
}

fn ensure_dir(dir: &Dir, p: &Path) -> std::io::Result<()> {
    match dir.create_dir(p) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(e),
        _ => Ok(()),
    }
}

/// Creates and locks this session's lock file.
fn lock_session(state: &Dir, session: &str) -> Option<std::fs::File> {
    let mut opts = OpenOptions::new();
    opts.create(true).write(true);
    let f = state
        .open_with(
            Path::new(SESSIONS_DIR).join(format!("{session}.lock")),
            &opts,
        )
        .ok()?
        .into_std();
    f.lock().ok()?;
    Some(f)
}

/// Whether a session still holds its lock.
fn session_alive(state: &Dir, session: &str) -> bool {
    let Ok(f) = state.open(Path::new(SESSIONS_DIR).join(format!("{session}.lock"))) else {
        return false;
    };
    let f = f.into_std();
    match f.try_lock() {
        Ok(()) => {
            let _ = f.unlock();
            false
        }
        Err(_) => true,
    }
}

/// Takes the journal's lock (waiting for another session's revert to end); released when
/// the file is dropped. `None` when it cannot be taken (a read-only state directory): the
/// caller goes on alone.
fn lock_undo(state: &Dir) -> Option<std::fs::File> {
    let mut opts = OpenOptions::new();
    opts.create(true).write(true);
    let f = state.open_with(UNDO_LOCK, &opts).ok()?.into_std();
    f.lock().ok()?;
    Some(f)
}
