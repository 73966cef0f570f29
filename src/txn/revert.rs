//! Reverting a transaction (for `undo`, an `--atomic` rollback and crash recovery) without
//! ever destroying anything:
//!
//! - Before each inverse, the object it acts on is compared with what the change left (the
//!   change's `done` record: type, inode, size, modification time). If it changed since (the
//!   host edited it, another session wrote it), the inverse — and the rest of that change's —
//!   is left undone and reported (`undo: f: changed since; left as is`), and the transaction
//!   is kept so that a later `undo` can try again. An inverse the current policy forbids
//!   (a read-only or hidden path) is left the same way.
//! - What an inverse replaces or removes goes to the trash: a file the change created is moved
//!   there, the bytes an overwrite's undo replaces (or an append's undo cuts off) are copied
//!   there first. Only an empty directory is removed outright (it holds nothing).
//! - Progress is journaled (`revert_begin`, one `revert_step` per inverse applied,
//!   `revert_end`), so that a revert killed part-way is finished at the next start. An
//!   inverse applied but not yet marked is recognised by its result and not run twice.
//!
//! The caller holds the journal's lock (see [`crate::txn::journal`]): two reverts never work
//! on one transaction at once.

use std::collections::HashSet;
use std::path::PathBuf;

use trumansh_commands::FsError;

use crate::audit::fields;
use crate::sandbox::{Blocked, Fingerprint, Sandbox};
use crate::txn::record::{
    Change, Inverse, Loaded, Log, Record, Txn, blob_bytes, blob_dir, saved_add,
};
use crate::txn::trash;

/// Who reverts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// The agent's (or the host's) `undo`.
    Undo,
    /// `--atomic`: the line failed.
    Rollback,
    /// The next start, for a line (or a revert) a crashed session left half done.
    Recovery,
}

impl By {
    pub fn as_str(self) -> &'static str {
        match self {
            By::Undo => "undo",
            By::Rollback => "rollback",
            By::Recovery => "recovery",
        }
    }
}

/// Why an inverse was left undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// The object is no longer what the change left.
    Changed,
    /// The policy makes the path read-only.
    ReadOnly,
    /// The policy hides the path (it is not named to the agent).
    Hidden,
}

/// An object a revert left as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Its virtual path (as the agent names it).
    pub path: PathBuf,
    pub reason: SkipReason,
}

impl Skipped {
    /// The report line, after `undo: ` (the path as `shown`).
    pub fn message(&self, shown: &str) -> String {
        match self.reason {
            SkipReason::Changed => format!("{shown}: changed since; left as is"),
            SkipReason::ReadOnly => format!("{shown}: Read-only file system; left as is"),
            SkipReason::Hidden => "a change to a hidden path was left as is".to_string(),
        }
    }
}

/// A reverted transaction, for the messages of `undo`, `--atomic` and recovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reverted {
    pub id: String,
    /// The input line, as typed.
    pub line: String,
    /// How many changes were reverted.
    pub changes: usize,
    /// Inverses that failed to apply, each with its error (`OP PATH: error`).
    pub errors: Vec<String>,
    /// Objects left as they are (changed since, or protected by the policy).
    pub skipped: Vec<Skipped>,
    /// The transaction's journal is invalid: why. Nothing was done; it is kept for the owner.
    pub refused: Option<String>,
    /// Something is left to revert: the transaction is kept, for a later `undo`.
    pub kept: bool,
    /// This finished a revert (an undo or a rollback) that was killed part-way.
    pub finished: bool,
}

impl Reverted {
    fn new(txn_id: &str, line: &str) -> Reverted {
        Reverted {
            id: txn_id.to_string(),
            line: line.to_string(),
            changes: 0,
            errors: Vec::new(),
            skipped: Vec::new(),
            refused: None,
            kept: false,
            finished: false,
        }
    }

    /// A transaction whose journal was refused.
    pub(crate) fn refused(txn_id: &str, reason: String) -> Reverted {
        let mut r = Reverted::new(txn_id, "");
        r.refused = Some(reason);
        r.kept = true;
        r
    }

    /// Whether it did or reports anything.
    pub(crate) fn is_empty(&self) -> bool {
        self.changes == 0
            && self.errors.is_empty()
            && self.skipped.is_empty()
            && self.refused.is_none()
    }
}

/// What one inverse came to.
enum Outcome {
    /// Applied now, or found already applied.
    Done,
    Skip(SkipReason),
    Error(FsError),
}

/// Reverts what is left of a transaction, newest change first, its progress recorded in the
/// reverting session's segment (`log`). When nothing is left, a committed line stays in the
/// journal as undone (its saved bytes removed) and any other is dropped; else it is kept,
/// closed, for a later `undo`. `loaded`: the journal as read (for the lines after this one).
/// The caller holds the journal's lock.
pub(crate) fn revert(
    sandbox: &Sandbox,
    file: &mut Log,
    txn: &Txn,
    loaded: &Loaded,
    session: &str,
    by: By,
) -> Reverted {
    let state = sandbox.state_dir();
    let mut out = Reverted::new(&txn.id, &txn.line);
    out.finished = txn.revert_interrupted;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    // The marker first: a revert killed after this is finished at the next start.
    let marker = file.append(
        sandbox,
        &txn.id,
        &Record::RevertBegin {
            session: session.to_string(),
            by: by.as_str().to_string(),
            time: trash::timestamp(),
            order: now.max(txn.last_order + 1),
        },
        true,
    );
    match marker {
        Ok(()) => {}
        Err(e) => {
            out.errors
                .push(format!("cannot write the journal: {}", e.strerror()));
            out.kept = true;
            audit(sandbox, by, &out);
            return out;
        }
    }
    let mut bin = trash::Bin::new(&format!(
        "{} of `{}`",
        by.as_str(),
        txn.line.trim_end_matches('\n')
    ));
    let mut newer: Option<HashSet<Vec<u8>>> = None;
    let mut kept = 0;
    sandbox.guard().set_owner(true);
    for change in txn.changes.iter().rev() {
        let had_pending = change.has_pending();
        let mut complete = true;
        for (i, inv) in change.undo.iter().enumerate() {
            if !change.pending(i) {
                continue;
            }
            match step(sandbox, txn, loaded, change, i, &mut newer, &mut bin) {
                Outcome::Done => {
                    let _ = file.append(
                        sandbox,
                        &txn.id,
                        &Record::RevertStep { seq: change.seq, i },
                        true,
                    );
                }
                Outcome::Skip(reason) => {
                    out.skipped.push(Skipped {
                        path: sandbox.virtual_path(&inv.shown().loc()),
                        reason,
                    });
                    complete = false;
                }
                Outcome::Error(e) => {
                    out.errors
                        .push(format!("{} {}: {}", change.op, change.path, e.strerror()));
                    complete = false;
                }
            }
            if !complete {
                // The change's later inverses depend on this one (a rename back, then the
                // object it replaced moved back): they wait with it.
                kept += change.undo.len() - i;
                break;
            }
        }
        if complete && !change.failed && (had_pending || !txn.reverted_before) {
            out.changes += 1;
        }
    }
    sandbox.guard().set_owner(false);
    sandbox.guard().forget_usage();
    let _ = file.append(sandbox, &txn.id, &Record::RevertEnd { kept }, true);
    if kept == 0 {
        if txn.closed {
            // Undone whole: the line stays in the history (its journal only), so that the
            // history is exactly the last `undo_history` lines; its saved bytes go.
            if txn.counted {
                saved_add(state, -(blob_bytes(state, &txn.id) as i64));
            }
            let _ = state.remove_dir_all(blob_dir(&txn.id));
        } else {
            // A rollback, or a recovery of a line that was never committed: nothing of it
            // is left to keep (its records go with their segments).
            let _ = file.append(sandbox, &txn.id, &Record::Dropped {}, true);
            let _ = state.remove_dir_all(blob_dir(&txn.id));
        }
    } else {
        out.kept = true;
        if !txn.closed {
            // A rollback or a recovery that left something: the line is closed, so that
            // `undo` can try again.
            let _ = file.append(
                sandbox,
                &txn.id,
                &Record::End {
                    status: -1,
                    time: trash::timestamp(),
                    closed_by: Some(by.as_str().to_string()),
                },
                true,
            );
        }
    }
    audit(sandbox, by, &out);
    out
}

/// Runs inverse `i` of a change: the policy first, then the object's state, then the
/// inverse itself.
fn step(
    sandbox: &Sandbox,
    txn: &Txn,
    loaded: &Loaded,
    change: &Change,
    i: usize,
    newer: &mut Option<HashSet<Vec<u8>>>,
    bin: &mut trash::Bin,
) -> Outcome {
    let Some(inv) = change.undo.get(i) else {
        return Outcome::Done;
    };
    for p in inv.root_paths() {
        match sandbox.policy_blocks(&p.path()) {
            Some(Blocked::Hidden) => return Outcome::Skip(SkipReason::Hidden),
            Some(Blocked::ReadOnly) => return Outcome::Skip(SkipReason::ReadOnly),
            None => {}
        }
    }
    if let Some(subject) = inv.subject() {
        let now = subject.fingerprint(sandbox);
        let unchanged = if let Some(after) = &change.after {
            // What the change left was recorded: the object must still be that.
            after
                .get(i)
                .copied()
                .flatten()
                .is_none_or(|left| now.same_as(&left))
        } else {
            // The change was under way when its session died: nothing says what it left.
            // It is reverted unless a later transaction changed the object since.
            let touched = newer.get_or_insert_with(|| touched_after(loaded, &txn.id));
            !inv.root_paths().iter().any(|p| touched.contains(p.bytes()))
        };
        if !unchanged {
            return if already_done(sandbox, inv, &now) {
                Outcome::Done
            } else {
                Outcome::Skip(SkipReason::Changed)
            };
        }
    }
    match apply(sandbox, inv, bin) {
        Ok(()) => Outcome::Done,
        Err(Applied::Changed) => Outcome::Skip(SkipReason::Changed),
        Err(Applied::Failed(e)) => Outcome::Error(e),
    }
}

/// Whether an inverse's result is already there (a revert killed after the inverse and
/// before its step was journaled): its subject is `now`.
fn already_done(sandbox: &Sandbox, inv: &Inverse, now: &Fingerprint) -> bool {
    let present =
        |p: &crate::txn::record::RelPath| sandbox.fingerprint(&p.loc()) != Fingerprint::Absent;
    match inv {
        Inverse::Remove { .. } => *now == Fingerprint::Absent,
        Inverse::Restore { blob, times, .. } => {
            let saved = sandbox.state_fingerprint(std::path::Path::new(blob));
            matches!(saved, Fingerprint::File { size, .. }
                if now.size_mtime() == Some((size, times.mtime)))
        }
        Inverse::Truncate { len, times, .. } => now.size_mtime() == Some((*len, times.mtime)),
        Inverse::Times { times, .. } => now.size_mtime().map(|(_, m)| m) == Some(times.mtime),
        Inverse::Untrash { at, .. } | Inverse::Unstash { at, .. } => {
            *now == Fingerprint::Absent && present(at)
        }
        Inverse::RenameBack { from, .. } => *now == Fingerprint::Absent && present(from),
        Inverse::Mkdir { .. } | Inverse::Mode { .. } => false,
    }
}

enum Applied {
    /// The object is not what the inverse can act on (a directory with entries in it).
    Changed,
    Failed(FsError),
}

impl From<FsError> for Applied {
    fn from(e: FsError) -> Applied {
        Applied::Failed(e)
    }
}

/// Applies one inverse; what it replaces or removes goes to the trash first.
fn apply(sandbox: &Sandbox, inv: &Inverse, bin: &mut trash::Bin) -> Result<(), Applied> {
    match inv {
        Inverse::Remove { at } => {
            let loc = at.loc();
            match sandbox.fingerprint(&loc) {
                Fingerprint::Absent => Ok(()),
                Fingerprint::Dir { .. } => {
                    // An empty directory holds nothing to keep; one with entries in it was
                    // changed since (its entries are not this change's).
                    if !sandbox.is_empty_dir(&loc) {
                        return Err(Applied::Changed);
                    }
                    sandbox.remove_created(&loc).map_err(|e| match e {
                        FsError::NotEmpty => Applied::Changed,
                        e => Applied::Failed(e),
                    })
                }
                _ => {
                    bin.take(sandbox, &loc)?;
                    Ok(())
                }
            }
        }
        Inverse::Restore {
            at,
            blob,
            mode,
            times,
        } => {
            let loc = at.loc();
            match sandbox.fingerprint(&loc) {
                Fingerprint::File { size, .. } if size > 0 => {
                    bin.copy(sandbox, &loc, 0)?;
                }
                Fingerprint::File { .. } | Fingerprint::Absent => {}
                _ => return Err(Applied::Changed),
            }
            Ok(sandbox.restore_bytes(&loc, std::path::Path::new(blob), *mode, *times)?)
        }
        Inverse::Truncate { at, len, times } => {
            let loc = at.loc();
            match sandbox.fingerprint(&loc) {
                Fingerprint::File { size, .. } if size > *len => {
                    bin.copy(sandbox, &loc, *len)?;
                }
                Fingerprint::File { .. } => {}
                _ => return Err(Applied::Changed),
            }
            Ok(sandbox.truncate_to(&loc, *len, *times)?)
        }
        Inverse::Untrash { at, trash_id } => {
            let entry = std::path::Path::new("trash").join(trash_id);
            sandbox.unstash(&entry.join("data"), &at.loc())?;
            let _ = sandbox.state_dir().remove_dir_all(&entry);
            Ok(())
        }
        Inverse::RenameBack { from, to } => Ok(sandbox.rename_rel(&to.loc(), &from.loc())?),
        Inverse::Unstash { at, blob } => {
            Ok(sandbox.unstash(std::path::Path::new(blob), &at.loc())?)
        }
        Inverse::Mkdir { at, mode } => Ok(sandbox.make_dir_rel(&at.loc(), *mode)?),
        Inverse::Times { at, times } => {
            sandbox.set_times_rel(&at.loc(), *times);
            Ok(())
        }
        Inverse::Mode { at, mode } => Ok(sandbox.set_mode_rel(&at.loc(), *mode)?),
    }
}

/// The root paths the transactions after `id` change (for a change that has no record of
/// what it left).
fn touched_after(loaded: &Loaded, id: &str) -> HashSet<Vec<u8>> {
    let mut out = HashSet::new();
    for (_, t) in loaded
        .txns
        .range::<str, _>((std::ops::Bound::Excluded(id), std::ops::Bound::Unbounded))
    {
        if let Ok(t) = t {
            for c in &t.changes {
                for inv in &c.undo {
                    for p in inv.root_paths() {
                        out.insert(p.bytes().to_vec());
                    }
                }
            }
        }
    }
    out
}

/// Audits a revert (`undo`, `rollback` or `recovery`), with the true paths of what it left.
pub(crate) fn audit(sandbox: &Sandbox, by: By, r: &Reverted) {
    let skipped: Vec<serde_json::Value> = r
        .skipped
        .iter()
        .map(|s| {
            serde_json::Value::Object(fields([
                ("path", crate::txn::record::text_of(&s.path).into()),
                (
                    "reason",
                    match s.reason {
                        SkipReason::Changed => "changed since",
                        SkipReason::ReadOnly => "read-only by policy",
                        SkipReason::Hidden => "hidden by policy",
                    }
                    .into(),
                ),
            ]))
        })
        .collect();
    let mut f = fields([
        ("txn", r.id.clone().into()),
        ("line", r.line.clone().into()),
        ("changes", r.changes.into()),
        ("errors", r.errors.clone().into()),
        ("skipped", serde_json::Value::Array(skipped)),
        ("kept", r.kept.into()),
    ]);
    if let Some(reason) = &r.refused {
        f.insert("refused".into(), reason.clone().into());
    }
    if r.finished {
        f.insert("finished_interrupted".into(), true.into());
    }
    sandbox.audit().event(by.as_str(), f);
}
