//! Transactions: one input line is one transaction, journaled as inverses so that it can be
//! undone (`undo`), rolled back when it fails (`--atomic`), or rolled back after a crash.
//!
//! Layout in the state directory:
//!
//! - `txn/<id>.jsonl` — the line's records, written *before* each change is applied
//!   (write-ahead): `begin` (the line, the session), one `do` per change with the list of
//!   inverses that revert it, `failed` for a change that could not be applied, and `end` when
//!   the line is over. A transaction exists only for a line that changed something.
//! - `txn/<id>.d/<seq>` — what a change replaced: the bytes of an overwritten file (copied, so
//!   the file keeps its inode), or an object moved aside by a rename over it.
//! - `sessions/<session>.lock` — held (`flock`) by a live session, so that recovery never
//!   touches another live session's open transaction.
//!
//! Ids (`txn-<nanoseconds>-<random>-<n>`) sort by time, so "the last N lines" is the last N
//! committed directories. Undo costs what the line changed: a trash is undone by one rename
//! back, a `cp -r` by removing what it created, an overwrite by writing the saved bytes back;
//! nothing is proportional to the size of the sandbox. Only the last `history` transactions
//! are kept (older ones are pruned with their saved bytes).
//!
//! Durability: records are written with one `write(2)` each, without `fsync`: a killed
//! process (`kill -9`, a panic, an OOM kill) loses nothing, a power loss may. After a crash the
//! next session rolls back every transaction that has no `end` and whose session is gone, and
//! says so.

use std::io::{BufRead, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use cap_std::fs::{Dir, File, OpenOptions};
use serde::{Deserialize, Serialize};
use trumansh_commands::{FsError, FsView, Op};

use crate::api::{AppliedEffect, MAX_EFFECTS};
use crate::audit::{fields, text};
use crate::sandbox::{Loc, Sandbox, Times, unique_name};
use crate::txn::trash;

/// The journal's directory in the state directory.
const TXN_DIR: &str = "txn";
/// Live sessions' lock files.
const SESSIONS_DIR: &str = "sessions";
/// How many transactions beyond the history are kept before pruning.
const PRUNE_SLACK: usize = 16;

/// A root-relative path, stored losslessly: text when it is UTF-8, bytes otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RelPath {
    Text(String),
    Bytes(Vec<u8>),
}

impl RelPath {
    fn of(loc: &Loc) -> RelPath {
        let bytes = loc.rel.as_os_str().as_bytes();
        match std::str::from_utf8(bytes) {
            Ok(s) => RelPath::Text(s.to_string()),
            Err(_) => RelPath::Bytes(bytes.to_vec()),
        }
    }

    fn loc(&self) -> Loc {
        let rel = match self {
            RelPath::Text(s) => PathBuf::from(s),
            RelPath::Bytes(b) => PathBuf::from(std::ffi::OsString::from_vec(b.clone())),
        };
        Loc::physical(rel)
    }
}

/// One step that reverts (part of) a change. A change's inverses run in the listed order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "undo", rename_all = "snake_case")]
pub enum Inverse {
    /// The change created this (file, link or directory): remove it.
    Remove { at: RelPath },
    /// The change overwrote a file: put the saved bytes, mode and times back.
    Restore {
        at: RelPath,
        blob: String,
        mode: u32,
        times: Times,
    },
    /// The change appended to a file: cut it back.
    Truncate { at: RelPath, len: u64, times: Times },
    /// The change moved this to the trash: move it back.
    Untrash { at: RelPath, trash_id: String },
    /// The change renamed `from` to `to`: rename it back.
    RenameBack { from: RelPath, to: RelPath },
    /// The change replaced this object, which was moved aside to `blob`: move it back.
    Unstash { at: RelPath, blob: String },
    /// The change replaced this empty directory: make it again.
    Mkdir { at: RelPath, mode: u32 },
    /// The change set times: set the old ones.
    Times { at: RelPath, times: Times },
    /// The change set the mode: set the old one.
    Mode { at: RelPath, mode: u32 },
}

impl Inverse {
    /// Whether this inverse is safe to run for a change that failed (it restores a recorded
    /// state, whatever part of the change happened), as opposed to a move, which is only
    /// right if the change happened.
    fn restores_state(&self) -> bool {
        matches!(
            self,
            Inverse::Remove { .. }
                | Inverse::Restore { .. }
                | Inverse::Truncate { .. }
                | Inverse::Times { .. }
                | Inverse::Mode { .. }
        )
    }
}

/// One line of a transaction's journal.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
enum Record {
    Begin {
        session: String,
        line: String,
        time: u64,
    },
    Do {
        seq: u64,
        op: String,
        path: String,
        undo: Vec<Inverse>,
    },
    Failed {
        seq: u64,
    },
    End {
        status: i32,
        time: u64,
    },
}

/// What must happen before a change is applied, beyond recording it.
#[derive(Debug, Default)]
pub struct Plan {
    pub undo: Vec<Inverse>,
    /// Move this object aside (to this state-relative path) first.
    pub stash: Option<(Loc, PathBuf)>,
    /// The trash id a `Trash` change must use.
    pub trash_id: Option<String>,
}

/// A change about to be applied, as recorded.
#[derive(Debug)]
pub struct Pending {
    pub seq: u64,
    pub plan: Plan,
}

/// A reverted transaction, for the messages of `undo`, `--atomic` and recovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reverted {
    pub id: String,
    /// The input line, as typed.
    pub line: String,
    /// How many changes were reverted.
    pub changes: usize,
    /// Inverses that could not be applied (the sandbox was changed behind the journal's
    /// back), each with its error.
    pub errors: Vec<String>,
}

struct Active {
    id: String,
    file: File,
    next_seq: u64,
    changes: usize,
    failed: bool,
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
    /// About how many transactions the journal holds (counted at start, then by commits),
    /// so that pruning lists the directory once per [`PRUNE_SLACK`] commits, not each time.
    held: std::sync::atomic::AtomicUsize,
    inner: Mutex<Inner>,
    /// The session's lock, held while it lives, and the state directory to remove it from.
    lock: Option<(std::fs::File, Dir)>,
}

impl Journal {
    /// Opens the journal of a new session (taking its lock) and rolls back what crashed
    /// sessions left open. Returns the journal and what was rolled back.
    pub fn open(sandbox: &Sandbox, history: usize, enabled: bool) -> (Journal, Vec<Reverted>) {
        let state = sandbox.state_dir();
        let session = sandbox.audit().session().to_string();
        let _ = ensure_dir(state, Path::new(TXN_DIR));
        let _ = ensure_dir(state, Path::new(SESSIONS_DIR));
        let lock =
            lock_session(state, &session).and_then(|f| state.try_clone().ok().map(|d| (f, d)));
        let journal = Journal {
            enabled,
            session,
            history: history.max(1),
            held: std::sync::atomic::AtomicUsize::new(txn_ids(state).len()),
            inner: Mutex::new(Inner {
                line: String::new(),
                active: None,
                applied: Vec::new(),
                applied_more: 0,
            }),
            lock,
        };
        let recovered = journal.recover(sandbox);
        (journal, recovered)
    }

    /// A new input line starts (its transaction is created with its first change).
    pub fn begin_line(&self, line: &[u8]) {
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

    /// Bytes a command wrote to a redirection target the line opened: counted in that open's
    /// effect.
    pub fn wrote(&self, path: &Path, n: u64) {
        if let Ok(mut inner) = self.inner.lock()
            && let Some(AppliedEffect::Write { bytes, .. }) = inner
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
    /// could not be saved (the change must then not be applied).
    pub fn before(&self, sandbox: &Sandbox, op: &Op, op_name: &str) -> Result<Pending, FsError> {
        if !self.enabled {
            let mut plan = Plan::default();
            if matches!(op, Op::Trash { .. }) {
                plan.trash_id = Some(unique_name("t"));
            }
            return Ok(Pending { seq: 0, plan });
        }
        let Ok(mut inner) = self.inner.lock() else {
            return Err(FsError::Io);
        };
        if inner.active.is_none() {
            // One file per transaction (a directory for saved bytes only when one is needed:
            // creating a directory costs more than the rest of a small line).
            let id = unique_name("txn");
            let mut opts = OpenOptions::new();
            opts.create_new(true).append(true);
            let file = sandbox
                .state_dir()
                .open_with(journal_path(&id), &opts)
                .map_err(crate::sandbox::map_err)?;
            let mut active = Active {
                id,
                file,
                next_seq: 1,
                changes: 0,
                failed: false,
            };
            append(
                &mut active.file,
                &Record::Begin {
                    session: self.session.clone(),
                    line: inner.line.clone(),
                    time: trash::timestamp(),
                },
            )?;
            inner.active = Some(active);
        }
        let Some(active) = inner.active.as_mut() else {
            return Err(FsError::Io);
        };
        let seq = active.next_seq;
        active.next_seq += 1;
        let blob = blob_dir(&active.id).join(seq.to_string());
        let plan = plan(sandbox, op, &blob)?;
        append(
            &mut active.file,
            &Record::Do {
                seq,
                op: op_name.to_string(),
                path: op_path(op),
                undo: plan.undo.clone(),
            },
        )?;
        active.changes += 1;
        Ok(Pending { seq, plan })
    }

    /// Records that a change could not be applied.
    pub fn failed(&self, seq: u64) {
        if let Ok(mut inner) = self.inner.lock()
            && let Some(active) = inner.active.as_mut()
        {
            active.failed = true;
            let _ = append(&mut active.file, &Record::Failed { seq });
        }
    }

    /// Whether a change of the current line failed.
    pub fn line_failed(&self) -> bool {
        self.inner
            .lock()
            .is_ok_and(|i| i.active.as_ref().is_some_and(|a| a.failed))
    }

    /// The line is over: commits its transaction, or rolls it back when `rollback` is set.
    /// Returns the rollback's report.
    pub fn end_line(&self, sandbox: &Sandbox, status: i32, rollback: bool) -> Option<Reverted> {
        let active = self.inner.lock().ok()?.active.take()?;
        let Active { id, mut file, .. } = active;
        if rollback {
            drop(file);
            let reverted = revert_txn(sandbox, &id);
            audit_reverted(sandbox, "rollback", &reverted);
            return Some(reverted);
        }
        let _ = append(
            &mut file,
            &Record::End {
                status,
                time: trash::timestamp(),
            },
        );
        drop(file);
        let held = self.held.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if held > self.history + PRUNE_SLACK {
            self.prune(sandbox);
        }
        None
    }

    /// Reverts the last `n` committed lines (newest first). `Ok` lists what was reverted
    /// (fewer than `n` when the history is shorter); `Err` when there is nothing to undo.
    pub fn undo(&self, sandbox: &Sandbox, n: usize) -> Vec<Reverted> {
        let active_id = self
            .inner
            .lock()
            .ok()
            .and_then(|i| i.active.as_ref().map(|a| a.id.clone()));
        let mut out = Vec::new();
        let mut ids = txn_ids(sandbox.state_dir());
        ids.reverse();
        for id in ids {
            if out.len() >= n {
                break;
            }
            if Some(&id) == active_id.as_ref() {
                continue;
            }
            let records = read_records(sandbox.state_dir(), &id);
            if !records.iter().any(|r| matches!(r, Record::End { .. })) {
                continue; // another session's open line
            }
            let reverted = revert_txn(sandbox, &id);
            if reverted.changes == 0 && reverted.errors.is_empty() {
                continue; // a line whose every change failed: nothing to count
            }
            audit_reverted(sandbox, "undo", &reverted);
            out.push(reverted);
        }
        out
    }

    /// Rolls back transactions left open by sessions that are gone.
    fn recover(&self, sandbox: &Sandbox) -> Vec<Reverted> {
        let state = sandbox.state_dir();
        let mut out = Vec::new();
        for id in txn_ids(state) {
            let records = read_records(state, &id);
            if records.iter().any(|r| matches!(r, Record::End { .. })) {
                continue;
            }
            let owner = records.iter().find_map(|r| match r {
                Record::Begin { session, .. } => Some(session.clone()),
                _ => None,
            });
            if let Some(owner) = &owner
                && owner != &self.session
                && session_alive(state, owner)
            {
                continue;
            }
            let reverted = revert_txn(sandbox, &id);
            audit_reverted(sandbox, "recovery", &reverted);
            if let Some(owner) = owner {
                let _ = state.remove_file(Path::new(SESSIONS_DIR).join(format!("{owner}.lock")));
            }
            out.push(reverted);
        }
        out
    }

    /// Keeps the last `history` committed transactions.
    fn prune(&self, sandbox: &Sandbox) {
        let state = sandbox.state_dir();
        let ids = txn_ids(state);
        self.held
            .store(ids.len(), std::sync::atomic::Ordering::Relaxed);
        if ids.len() <= self.history {
            return;
        }
        let excess = ids.len() - self.history;
        let mut pruned = 0;
        for id in ids {
            if pruned >= excess {
                break;
            }
            let records = read_records(state, &id);
            if !records.iter().any(|r| matches!(r, Record::End { .. })) {
                continue;
            }
            // What the pruned transaction held leaves the quota (measured: it is small, and
            // the sandbox as a whole is never walked again for it).
            let mut held = sandbox.state_usage(&blob_dir(&id));
            if let Ok(m) = state.metadata(journal_path(&id)) {
                held.bytes += m.len();
            }
            remove_txn(state, &id);
            sandbox.credit(held);
            pruned += 1;
        }
        self.held
            .fetch_sub(pruned, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        // An open transaction at the end of a session (a front end that stopped mid-line) is
        // committed as it stands.
        if let Ok(mut inner) = self.inner.lock()
            && let Some(mut active) = inner.active.take()
        {
            let _ = append(
                &mut active.file,
                &Record::End {
                    status: 0,
                    time: trash::timestamp(),
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

/// What a change needs recorded (and saved) so that it can be reverted.
fn plan(sandbox: &Sandbox, op: &Op, blob: &Path) -> Result<Plan, FsError> {
    let mut plan = Plan::default();
    match op {
        Op::CreateDir { path, .. } => {
            if let Some(loc) = sandbox.loc_of(path)
                && sandbox.before(&loc).is_none()
            {
                plan.undo.push(Inverse::Remove {
                    at: RelPath::of(&loc),
                });
            }
        }
        Op::WriteFile { path, append, .. } => {
            if let Ok(loc) = sandbox.resolve_write_target(path) {
                plan_write(sandbox, &loc, *append, blob, &mut plan)?;
            }
        }
        Op::Touch { path, create, .. } => {
            if let Ok(loc) = sandbox.resolve_write_target(path) {
                match sandbox.before(&loc) {
                    None if *create => plan.undo.push(Inverse::Remove {
                        at: RelPath::of(&loc),
                    }),
                    None => {}
                    Some(b) => plan.undo.push(Inverse::Times {
                        at: RelPath::of(&loc),
                        times: b.times,
                    }),
                }
            }
        }
        Op::Trash { path } => {
            if let Some(loc) = sandbox.loc_of(path) {
                let id = unique_name("t");
                plan.undo.push(Inverse::Untrash {
                    at: RelPath::of(&loc),
                    trash_id: id.clone(),
                });
                plan.trash_id = Some(id);
            }
        }
        Op::Rename { from, to } => {
            if let (Some(a), Some(b)) = (sandbox.loc_of(from), sandbox.loc_of(to)) {
                plan.undo.push(Inverse::RenameBack {
                    from: RelPath::of(&a),
                    to: RelPath::of(&b),
                });
                let src = sandbox.before(&a);
                match sandbox.before(&b) {
                    Some(t) if !t.is_dir && src.is_some_and(|s| !s.is_dir) => {
                        plan.undo.push(Inverse::Unstash {
                            at: RelPath::of(&b),
                            blob: blob.to_string_lossy().into_owned(),
                        });
                        make_blob_dir(sandbox, blob);
                        plan.stash = Some((b, blob.to_path_buf()));
                    }
                    Some(t) if t.is_dir && src.is_some_and(|s| s.is_dir) => {
                        plan.undo.push(Inverse::Mkdir {
                            at: RelPath::of(&b),
                            mode: t.mode,
                        });
                    }
                    _ => {}
                }
            }
        }
        Op::Copy {
            from,
            to,
            links_as_links,
            ..
        } => {
            let src_is_link = *links_as_links
                && sandbox
                    .stat(from, false)
                    .is_ok_and(|m| m.kind == trumansh_commands::FileKind::Symlink);
            if src_is_link {
                if let Some(loc) = sandbox.loc_of(to)
                    && sandbox.before(&loc).is_none()
                {
                    plan.undo.push(Inverse::Remove {
                        at: RelPath::of(&loc),
                    });
                }
            } else if let Ok(loc) = sandbox.resolve_write_target(to) {
                plan_write(sandbox, &loc, false, blob, &mut plan)?;
            }
        }
        Op::SetMode { path, .. } => {
            if let Ok(loc) = sandbox.resolve_write_target(path)
                && let Some(b) = sandbox.before(&loc)
            {
                plan.undo.push(Inverse::Mode {
                    at: RelPath::of(&loc),
                    mode: b.mode,
                });
            }
        }
    }
    Ok(plan)
}

/// The inverse of a write to a resolved location: remove what it creates, cut back what it
/// appends to, or save the bytes it overwrites.
fn plan_write(
    sandbox: &Sandbox,
    loc: &Loc,
    append: bool,
    blob: &Path,
    plan: &mut Plan,
) -> Result<(), FsError> {
    match sandbox.before(loc) {
        None => plan.undo.push(Inverse::Remove {
            at: RelPath::of(loc),
        }),
        Some(b) if !b.is_file => {}
        Some(b) if append => plan.undo.push(Inverse::Truncate {
            at: RelPath::of(loc),
            len: b.len,
            times: b.times,
        }),
        Some(b) => {
            make_blob_dir(sandbox, blob);
            sandbox.save_bytes(loc, blob)?;
            plan.undo.push(Inverse::Restore {
                at: RelPath::of(loc),
                blob: blob.to_string_lossy().into_owned(),
                mode: b.mode,
                times: b.times,
            });
        }
    }
    Ok(())
}

/// The path an op names, for the journal's readers.
fn op_path(op: &Op) -> String {
    let p = match op {
        Op::CreateDir { path, .. }
        | Op::WriteFile { path, .. }
        | Op::Touch { path, .. }
        | Op::Trash { path }
        | Op::SetMode { path, .. } => path.as_path(),
        Op::Rename { from, .. } | Op::Copy { from, .. } => from.as_path(),
    };
    match text(p.as_os_str().as_bytes()) {
        serde_json::Value::String(s) => s,
        _ => String::new(),
    }
}

/// Audits a reverted transaction (`undo`, `rollback` or `recovery`).
fn audit_reverted(sandbox: &Sandbox, event: &str, r: &Reverted) {
    sandbox.audit().event(
        event,
        fields([
            ("txn", r.id.clone().into()),
            ("line", r.line.clone().into()),
            ("changes", r.changes.into()),
            ("errors", r.errors.clone().into()),
        ]),
    );
}

/// Reverts one transaction (its changes in reverse order) and removes it from the journal.
pub fn revert_txn(sandbox: &Sandbox, id: &str) -> Reverted {
    let state = sandbox.state_dir();
    let records = read_records(state, id);
    let failed: Vec<u64> = records
        .iter()
        .filter_map(|r| match r {
            Record::Failed { seq } => Some(*seq),
            _ => None,
        })
        .collect();
    let line = records
        .iter()
        .find_map(|r| match r {
            Record::Begin { line, .. } => Some(line.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let mut changes = 0;
    let mut errors = Vec::new();
    sandbox.guard().set_owner(true);
    for r in records.iter().rev() {
        let Record::Do {
            seq,
            op,
            path,
            undo,
        } = r
        else {
            continue;
        };
        let was_failed = failed.contains(seq);
        changes += usize::from(!was_failed);
        for inv in undo {
            if was_failed && !inv.restores_state() {
                continue;
            }
            if let Err(e) = apply_inverse(sandbox, inv) {
                errors.push(format!("{op} {path}: {e}"));
            }
        }
    }
    sandbox.guard().set_owner(false);
    sandbox.guard().forget_usage();
    remove_txn(state, id);
    Reverted {
        id: id.to_string(),
        line,
        changes,
        errors,
    }
}

fn apply_inverse(sandbox: &Sandbox, inv: &Inverse) -> Result<(), FsError> {
    match inv {
        Inverse::Remove { at } => sandbox.remove_created(&at.loc()),
        Inverse::Restore {
            at,
            blob,
            mode,
            times,
        } => sandbox.restore_bytes(&at.loc(), Path::new(blob), *mode, *times),
        Inverse::Truncate { at, len, times } => sandbox.truncate_to(&at.loc(), *len, *times),
        Inverse::Untrash { at, trash_id } => {
            let entry = Path::new("trash").join(trash_id);
            sandbox.unstash(&entry.join("data"), &at.loc())?;
            let _ = sandbox.state_dir().remove_dir_all(&entry);
            Ok(())
        }
        Inverse::RenameBack { from, to } => sandbox.rename_rel(&to.loc(), &from.loc()),
        Inverse::Unstash { at, blob } => sandbox.unstash(Path::new(blob), &at.loc()),
        Inverse::Mkdir { at, mode } => sandbox.make_dir_rel(&at.loc(), *mode),
        Inverse::Times { at, times } => {
            sandbox.set_times_rel(&at.loc(), *times);
            Ok(())
        }
        Inverse::Mode { at, mode } => sandbox.set_mode_rel(&at.loc(), *mode),
    }
}

/// A transaction's journal: `txn/<id>.jsonl`.
fn journal_path(id: &str) -> PathBuf {
    Path::new(TXN_DIR).join(format!("{id}.jsonl"))
}

/// Where a transaction keeps the bytes and objects its changes replaced: `txn/<id>.d/`.
fn blob_dir(id: &str) -> PathBuf {
    Path::new(TXN_DIR).join(format!("{id}.d"))
}

/// Creates the directory a blob goes in.
fn make_blob_dir(sandbox: &Sandbox, blob: &Path) {
    if let Some(dir) = blob.parent() {
        let _ = ensure_dir(sandbox.state_dir(), dir);
    }
}

/// Removes a transaction from the journal.
fn remove_txn(state: &Dir, id: &str) {
    let _ = state.remove_dir_all(blob_dir(id));
    let _ = state.remove_file(journal_path(id));
}

/// The transaction ids in the journal, oldest first.
fn txn_ids(state: &Dir) -> Vec<String> {
    let mut ids: Vec<String> = state
        .read_dir(TXN_DIR)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter_map(|n| {
                    n.strip_suffix(".jsonl")
                        .filter(|id| id.starts_with("txn-"))
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids
}

/// A transaction's records; a torn last line (a crash mid-write) is ignored.
fn read_records(state: &Dir, id: &str) -> Vec<Record> {
    let Ok(f) = state.open(journal_path(id)) else {
        return Vec::new();
    };
    std::io::BufReader::new(f)
        .split(b'\n')
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_slice(&line).ok())
        .collect()
}

fn append(file: &mut File, record: &Record) -> Result<(), FsError> {
    let mut line = serde_json::to_vec(record).map_err(|_| FsError::Io)?;
    line.push(b'\n');
    file.write_all(&line).map_err(crate::sandbox::map_err)
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
