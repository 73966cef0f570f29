//! The journal on disk: its records, how they are appended, and the reader that validates
//! every record before anything acts on it.
//!
//! Each session appends to its own segments, `txn/seg-<session>-<k>.jsonl` ([`Log`]): one
//! record a line, `<txn id> <json>`, written with one `write(2)`. A segment is created by its
//! first record (a session that changes nothing creates none) and the session moves to the
//! next one between lines once it holds [`SEGMENT_BYTES`]. The records of one transaction:
//!
//! - `begin` — the line and the session; first, once.
//! - `do` — one change, written *before* it is applied: its sequence number, and the inverses
//!   that revert it (in the order they run).
//! - `done` / `failed` — written *after* the change was applied (or failed): what it left,
//!   one [`Fingerprint`] per inverse (`null` where there is nothing to check). A later record
//!   for the same change replaces an earlier one (a redirection's file is written after it
//!   was opened: its record is renewed when the line writes to it).
//! - `end` — the line is over (committed).
//! - `revert_begin`, `revert_step` (one inverse applied), `revert_end` — an undo, a rollback or
//!   a recovery at work, in the segment of the session that reverts (any session may revert
//!   any line): if it is killed, the next start knows which inverses were applied and
//!   finishes the rest. `revert_begin` carries an `order`, so that the reverts of one line,
//!   whatever segments hold them, are read in the order they ran.
//! - `dropped` — a line rolled back or recovered whole: it is no longer in the journal.
//!
//! The line's own records are in one segment (the one holding its `begin`); [`load_all`]
//! gathers each transaction's records from every file, then its reverts in their order. The
//! files of an older version, `txn/<id>.jsonl` (one transaction, records without the id), are
//! read the same way. Saved bytes stay in `txn/<id>.d/<seq>`, made only when a change saves
//! bytes. `txn/horizon` holds the newest pruned transaction: committed lines up to it are out
//! of the journal (see [`crate::txn::journal`] for pruning).
//!
//! The reader refuses a transaction — it is then reported and left for the owner, never acted
//! on — when its id is not one the journal makes, a line is not a record (except a torn last
//! line of a file, which a crash mid-write leaves), the records are out of order, or any path
//! in an inverse is not a normalized relative path inside its area: `at`, `from`, `to` relative
//! to the root (no `..`, `.` or empty component, not absolute, no NUL, not in the state
//! directory), `blob` exactly `txn/<id>.d/<seq>` of its own change, `trash_id` of the trash's
//! shape.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::{Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use cap_std::fs::{Dir, File, OpenOptions};
use serde::Deserialize;

use super::json::ToJson;
use trumansh_commands::FsError;

use crate::limits::BLOCK_BYTES;
use crate::sandbox::{Fingerprint, Loc, STATE_DIR_NAME, Sandbox, Times, map_err};
use crate::txn::reserve::with_reserve;

/// The journal's directory in the state directory.
pub const TXN_DIR: &str = "txn";

/// The most the reader takes of one journal file: the transactions of a larger one are refused
/// (a line's records are never read in part: a line missing its `end` would be rolled back).
const MAX_TXN_FILE: u64 = 256 << 20;

/// A session starts a new segment when its current one holds this much (between lines: a
/// line's records are in one segment), and the journal is then pruned.
pub(crate) const SEGMENT_BYTES: u64 = 1 << 20;

/// A root-relative path, stored losslessly: text when it is UTF-8, bytes otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum RelPath {
    Text(String),
    Bytes(Vec<u8>),
}

impl RelPath {
    /// The journal's path for a location (normalized, physical: see
    /// [`Sandbox::journal_rel`]).
    pub(crate) fn of(sandbox: &Sandbox, loc: &Loc) -> RelPath {
        let rel = sandbox.journal_rel(loc);
        let bytes = rel.as_os_str().as_bytes();
        match std::str::from_utf8(bytes) {
            Ok(s) => RelPath::Text(s.to_string()),
            Err(_) => RelPath::Bytes(bytes.to_vec()),
        }
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            RelPath::Text(s) => s.as_bytes(),
            RelPath::Bytes(b) => b,
        }
    }

    pub(crate) fn path(&self) -> PathBuf {
        PathBuf::from(std::ffi::OsString::from_vec(self.bytes().to_vec()))
    }

    pub(crate) fn loc(&self) -> Loc {
        Loc::physical(self.path())
    }
}

/// One step that reverts (part of) a change. A change's inverses run in the listed order.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "undo", rename_all = "snake_case")]
pub enum Inverse {
    /// The change created this (file, link or directory): remove it (to the trash).
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

/// What an inverse acts on, whose state the change's `done` record fingerprints.
#[derive(Debug, Clone)]
pub(crate) enum Subject {
    /// A location in the root.
    Root(Loc),
    /// A path in the state directory (a trash entry's data, a stashed object).
    State(PathBuf),
}

impl Subject {
    pub(crate) fn fingerprint(&self, sandbox: &Sandbox) -> Fingerprint {
        match self {
            Subject::Root(loc) => sandbox.fingerprint(loc),
            Subject::State(p) => sandbox.state_fingerprint(p),
        }
    }
}

impl Inverse {
    /// Whether this inverse is safe to run for a change that failed (it restores a recorded
    /// state, whatever part of the change happened), as opposed to a move, which is only
    /// right if the change happened.
    pub(crate) fn restores_state(&self) -> bool {
        matches!(
            self,
            Inverse::Remove { .. }
                | Inverse::Restore { .. }
                | Inverse::Truncate { .. }
                | Inverse::Times { .. }
                | Inverse::Mode { .. }
        )
    }

    /// The object whose state is checked before this inverse runs.
    pub(crate) fn subject(&self) -> Option<Subject> {
        match self {
            Inverse::Remove { at }
            | Inverse::Restore { at, .. }
            | Inverse::Truncate { at, .. }
            | Inverse::Times { at, .. }
            | Inverse::Mode { at, .. } => Some(Subject::Root(at.loc())),
            Inverse::RenameBack { to, .. } => Some(Subject::Root(to.loc())),
            Inverse::Untrash { trash_id, .. } => Some(Subject::State(
                Path::new("trash").join(trash_id).join("data"),
            )),
            Inverse::Unstash { blob, .. } => Some(Subject::State(PathBuf::from(blob))),
            Inverse::Mkdir { .. } => None,
        }
    }

    /// The root paths this inverse changes (checked against the policy).
    pub(crate) fn root_paths(&self) -> Vec<&RelPath> {
        match self {
            Inverse::RenameBack { from, to } => vec![to, from],
            _ => vec![self.shown()],
        }
    }

    /// The path shown when this inverse is left undone: the object it would act on.
    pub(crate) fn shown(&self) -> &RelPath {
        match self {
            Inverse::RenameBack { to, .. } => to,
            Inverse::Remove { at }
            | Inverse::Restore { at, .. }
            | Inverse::Truncate { at, .. }
            | Inverse::Untrash { at, .. }
            | Inverse::Unstash { at, .. }
            | Inverse::Mkdir { at, .. }
            | Inverse::Times { at, .. }
            | Inverse::Mode { at, .. } => at,
        }
    }
}

/// What a change left: one fingerprint per inverse (`None`: nothing to check).
pub(crate) type After = Vec<Option<Fingerprint>>;

/// One line of a transaction's journal.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Record {
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
    Done {
        seq: u64,
        after: After,
    },
    Failed {
        seq: u64,
        #[serde(default)]
        after: Option<After>,
    },
    End {
        status: i32,
        time: u64,
        /// Set when a rollback or a recovery closed the line, leaving inverses to retry.
        #[serde(default)]
        closed_by: Option<String>,
    },
    RevertBegin {
        session: String,
        by: String,
        time: u64,
        /// Orders the reverts of one line, whose records may be in several segments
        /// (nanoseconds, above the line's last revert's).
        #[serde(default)]
        order: u64,
    },
    RevertStep {
        seq: u64,
        i: usize,
    },
    RevertEnd {
        kept: usize,
    },
    /// The line is gone (rolled back or recovered whole, never committed): readers skip it.
    Dropped {},
    /// A change's record read by [`load_skim`]: checked to be JSON, not read.
    #[serde(skip)]
    Skimmed,
}

/// A session's journal: the segments it appends to, one open at a time. Every record is one
/// line, `<txn id> <json>`, written with one `write(2)`; a session writes only to its own
/// segments (its lines' records, and those of the reverts it makes of any line), so that a
/// record cut off half-written can be cut off again.
pub(crate) struct Log {
    session: String,
    /// The current segment's number.
    k: u64,
    /// The current segment, opened (created) at the first record.
    cur: Option<Segment>,
    /// Records staged ([`Log::stage`]): written with the next record, in the same `write(2)`.
    staged: Vec<u8>,
    /// The staged records, as [`load_skim`] reads them.
    staged_skims: Vec<(String, Record)>,
    /// What this session wrote to its segments, as [`load_skim`] reads them.
    skims: Skims,
}

/// The records a session wrote to its own segments, by file name, in the form
/// [`load_skim`] reads them in: pruning never reads back, nor parses, what the session
/// wrote itself. A file is taken from here only while its length on disk is the length
/// written (a segment that held bytes before the session opened it is never here).
#[derive(Default)]
pub(crate) struct Skims {
    /// By file name (a few: the segments not pruned yet).
    files: Vec<(String, Skim)>,
}

/// What a session wrote to one segment: each transaction's records in order, without the
/// records [`load_skim`] does not read (a change's, which it skims to [`Record::Skimmed`]).
struct Skim {
    len: u64,
    txns: Vec<(String, Vec<Record>)>,
    /// The ids of the lines forgotten once pruned ([`Skims::forget_pruned`]), sorted: the
    /// file still holds them, and records of theirs elsewhere are a pruned line's.
    forgotten: Vec<String>,
}

impl Skim {
    fn push(&mut self, id: &str, skim: Option<Record>) {
        match self.txns.last_mut() {
            Some((last, records)) if last == id => records.extend(skim),
            _ => {
                // A line's records as held are mostly its `begin` and its `end`.
                let mut records = Vec::with_capacity(2);
                records.extend(skim);
                self.txns.push((id.to_string(), records));
            }
        }
    }
}

impl Skims {
    /// Forgets a file (removed from the journal).
    pub(crate) fn forget(&mut self, name: &str) {
        self.files.retain(|(n, _)| n != name);
    }

    fn at(&self, name: &str) -> Option<usize> {
        self.files.iter().rposition(|(n, _)| n == name)
    }

    fn get(&self, name: &str) -> Option<&Skim> {
        self.at(name)
            .and_then(|i| self.files.get(i))
            .map(|(_, s)| s)
    }

    fn get_mut(&mut self, name: &str) -> Option<&mut Skim> {
        self.at(name)
            .and_then(|i| self.files.get_mut(i))
            .map(|(_, s)| s)
    }

    /// Forgets the lines pruned up to `horizon` (closed or dropped, at or below it), which
    /// [`load_skim`] would skip: a file left with none holds only pruned lines, as it would
    /// if they were read.
    fn forget_pruned(&mut self, horizon: &str) {
        for (_, skim) in &mut self.files {
            let (gone, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut skim.txns)
                .into_iter()
                .partition(|(id, records)| {
                    id.as_str() <= horizon
                        && records
                            .iter()
                            .any(|r| matches!(r, Record::End { .. } | Record::Dropped {}))
                });
            skim.txns = kept;
            // Mostly in order already (a revert's records of an older line come later).
            skim.forgotten.extend(gone.into_iter().map(|(id, _)| id));
            skim.forgotten.sort();
            skim.forgotten.dedup();
        }
    }

    /// Whether a line was forgotten once pruned (see [`Skim::forgotten`]).
    fn forgot(&self, id: &str) -> bool {
        self.files
            .iter()
            .any(|(_, s)| s.forgotten.binary_search_by(|f| f.as_str().cmp(id)).is_ok())
    }
}

impl Record {
    /// A `begin` as [`load_skim`] reads it: without its session, line and time.
    fn skimmed_begin() -> Record {
        Record::Begin {
            session: String::new(),
            line: String::new(),
            time: 0,
        }
    }

    /// The record as [`load_skim`] reads it: a `begin` without its content; none for a
    /// change's record (which it only checks to be JSON).
    fn skim(&self) -> Option<Record> {
        match self {
            Record::Do { .. }
            | Record::Done { .. }
            | Record::Failed { .. }
            | Record::RevertStep { .. }
            | Record::Skimmed => None,
            Record::Begin { .. } => Some(Record::skimmed_begin()),
            other => Some(other.clone()),
        }
    }
}

/// A record as the journal writes it: its JSON, and what [`Skims`] hold of it.
pub(crate) trait Journaled: ToJson {
    fn skim(&self) -> Option<Record>;
}

impl Journaled for Record {
    fn skim(&self) -> Option<Record> {
        Record::skim(self)
    }
}

/// A line's `begin` and a change's `do`, written from borrowed parts (one of each per line
/// that changes something): the same JSON as [`Record::Begin`] and [`Record::Do`].
pub(crate) enum RecordRef<'a> {
    Begin {
        session: &'a str,
        line: &'a str,
        time: u64,
    },
    Do {
        seq: u64,
        op: &'a str,
        path: &'a str,
        undo: &'a [Inverse],
    },
}

impl Journaled for RecordRef<'_> {
    fn skim(&self) -> Option<Record> {
        match self {
            RecordRef::Begin { .. } => Some(Record::skimmed_begin()),
            RecordRef::Do { .. } => None,
        }
    }
}

struct Segment {
    file: File,
    /// Its length: a record that fails half-written is cut off again.
    len: u64,
    /// Its name (in [`TXN_DIR`]).
    name: String,
}

impl Log {
    pub(crate) fn new(session: &str) -> Log {
        Log {
            session: session.to_string(),
            k: 1,
            cur: None,
            staged: Vec::new(),
            staged_skims: Vec::new(),
            skims: Skims::default(),
        }
    }

    /// What this session wrote to its segments (see [`load_skim`]).
    pub(crate) fn skims(&self) -> &Skims {
        &self.skims
    }

    /// Forgets what it wrote to a file (removed from the journal).
    pub(crate) fn forget(&mut self, name: &str) {
        self.skims.forget(name);
    }

    /// Forgets what it wrote of the lines pruned up to `horizon` (see [`Skims`]).
    pub(crate) fn forget_pruned(&mut self, horizon: &str) {
        if !horizon.is_empty() {
            self.skims.forget_pruned(horizon);
        }
    }

    /// The current segment's name (in [`TXN_DIR`]).
    pub(crate) fn current(&self) -> String {
        seg_name(&self.session, self.k)
    }

    /// Starts a new segment (created at its first record) when the current one holds
    /// [`SEGMENT_BYTES`] or more: `true` when it did (the journal is then pruned).
    pub(crate) fn roll_if_full(&mut self) -> bool {
        if self.staged.is_empty() && self.cur.as_ref().is_some_and(|s| s.len >= SEGMENT_BYTES) {
            self.cur = None;
            self.k += 1;
            true
        } else {
            false
        }
    }

    /// Appends one record of transaction `id` with one `write(2)`; a record that could not be
    /// written whole is cut off. `reserve`: the write may draw on the state directory's
    /// reserve. The segment is created by its first record. In the fault model
    /// ([`crate::limits::Fault::NoSpaceAfter`]) a new segment costs a block, and a record the
    /// blocks it adds to the segment (none while it fits in the last one).
    pub(crate) fn append(
        &mut self,
        sandbox: &Sandbox,
        id: &str,
        record: &impl Journaled,
        reserve: bool,
    ) -> Result<(), FsError> {
        let staged = self.staged.len();
        if !push_record(&mut self.staged, id, record) {
            self.staged.truncate(staged);
            return Err(FsError::Io);
        }
        self.write(sandbox, staged, Some((id, record.skim())), reserve)
    }

    /// Writes what is staged, if anything (before the journal is read).
    pub(crate) fn flush(&mut self, sandbox: &Sandbox) -> Result<(), FsError> {
        if self.staged.is_empty() {
            return Ok(());
        }
        self.write(sandbox, self.staged.len(), None, true)
    }

    /// Writes the staged bytes — the records staged before (`staged` bytes of them), then
    /// `record`'s line — with one `write(2)`. On failure what was staged before waits for
    /// the next record (a line's `begin` is never lost).
    fn write(
        &mut self,
        sandbox: &Sandbox,
        staged: usize,
        record: Option<(&str, Option<Record>)>,
        reserve: bool,
    ) -> Result<(), FsError> {
        let Log {
            session,
            k,
            cur,
            staged: line,
            staged_skims,
            skims,
        } = self;
        let mut record = record;
        let result = with_reserve(sandbox, reserve, || {
            if cur.is_none() {
                sandbox.guard().state_write(BLOCK_BYTES)?;
                let name = seg_name(session, *k);
                let mut opts = OpenOptions::new();
                opts.create(true).append(true);
                let file = sandbox
                    .state_dir()
                    .open_with(Path::new(TXN_DIR).join(&name), &opts)
                    .map_err(map_err)?;
                let len = file.metadata().map_err(map_err)?.len();
                if len == 0 {
                    skims.forget(&name);
                    skims.files.push((
                        name.clone(),
                        Skim {
                            len: 0,
                            txns: Vec::new(),
                            forgotten: Vec::new(),
                        },
                    ));
                }
                *cur = Some(Segment { file, len, name });
            }
            let Some(seg) = cur.as_mut() else {
                return Err(FsError::Io);
            };
            // The disk gives a file whole blocks: a record within the segment's last block
            // takes no new space, one that crosses into new blocks takes them.
            let blocks = |len: u64| len.div_ceil(BLOCK_BYTES).max(1);
            let new = blocks(seg.len + line.len() as u64) - blocks(seg.len);
            sandbox.guard().state_write(new * BLOCK_BYTES)?;
            match seg.file.write_all(line) {
                Ok(()) => {
                    let before = seg.len;
                    seg.len += line.len() as u64;
                    if let Some(skim) = skims.get_mut(&seg.name)
                        && skim.len == before
                    {
                        skim.len = seg.len;
                        for (id, r) in staged_skims.drain(..) {
                            skim.push(&id, Some(r));
                        }
                        if let Some((id, record)) = record.take() {
                            skim.push(id, record);
                        }
                    } else {
                        staged_skims.clear();
                        skims.forget(&seg.name);
                    }
                    Ok(())
                }
                Err(e) => {
                    let _ = seg.file.set_len(seg.len);
                    Err(map_err(e))
                }
            }
        });
        match result {
            Ok(()) => line.clear(),
            Err(_) => line.truncate(staged),
        }
        result
    }

    /// Stages a record, to be written with the next one in a single `write(2)`: what must be
    /// on disk only before the next record is (a line's `begin` before its first `do`; what a
    /// redirection's file was left as, before the next change or the line's `end`).
    pub(crate) fn stage(&mut self, id: &str, record: &impl Journaled) {
        let staged = self.staged.len();
        if push_record(&mut self.staged, id, record) {
            if let Some(skim) = record.skim() {
                self.staged_skims.push((id.to_string(), skim));
            }
        } else {
            self.staged.truncate(staged);
        }
    }

    /// Appends one record to the open segment, without the reserve or the fault model (a
    /// session's end); nothing when no segment is open (the session changed nothing).
    pub(crate) fn append_raw(&mut self, id: &str, record: &Record) -> std::io::Result<()> {
        let Some(seg) = self.cur.as_mut() else {
            return Ok(());
        };
        if !push_record(&mut self.staged, id, record) {
            return Err(std::io::Error::other("record"));
        }
        seg.file.write_all(&self.staged)?;
        seg.len += self.staged.len() as u64;
        self.staged.clear();
        // The session ends: nothing prunes with what it wrote any more.
        self.staged_skims.clear();
        self.skims.files.clear();
        Ok(())
    }
}

/// Appends one record's line, `<id> <json>\n`, to `out`: `false` when it cannot be made
/// (`out` may then hold part of it).
fn push_record(out: &mut Vec<u8>, id: &str, record: &impl Journaled) -> bool {
    out.extend_from_slice(id.as_bytes());
    out.push(b' ');
    if !record.to_json(out) {
        return false;
    }
    out.push(b'\n');
    true
}

/// A segment's file name: `seg-<session>-<k>.jsonl`.
pub(crate) fn seg_name(session: &str, k: u64) -> String {
    format!("seg-{session}-{k}.jsonl")
}

/// The session and number of a segment's file name.
fn parse_seg_name(name: &str) -> Option<(String, u64)> {
    let (session, k) = name
        .strip_prefix("seg-")?
        .strip_suffix(".jsonl")?
        .rsplit_once('-')?;
    if valid_id(session, "s").is_err() || k.is_empty() || k.len() > 20 {
        return None;
    }
    Some((session.to_string(), k.parse().ok()?))
}

/// One change of a loaded transaction.
#[derive(Debug, Clone)]
pub(crate) struct Change {
    pub seq: u64,
    pub op: String,
    pub path: String,
    pub undo: Vec<Inverse>,
    /// What it left (`None`: no `done` or `failed` record: it was under way at a crash).
    pub after: Option<After>,
    pub failed: bool,
    /// Which inverses a revert already applied.
    pub reverted: Vec<bool>,
}

impl Change {
    /// Whether an inverse still has to run.
    pub(crate) fn pending(&self, i: usize) -> bool {
        let Some(inv) = self.undo.get(i) else {
            return false;
        };
        !self.reverted.get(i).copied().unwrap_or(false) && (!self.failed || inv.restores_state())
    }

    pub(crate) fn has_pending(&self) -> bool {
        (0..self.undo.len()).any(|i| self.pending(i))
    }
}

/// A transaction as read and validated.
#[derive(Debug, Clone)]
pub(crate) struct Txn {
    pub id: String,
    pub session: String,
    pub line: String,
    pub changes: Vec<Change>,
    /// It has an `end` record.
    pub closed: bool,
    /// Its line was committed (`end` written by the line itself, not by a rollback or a
    /// recovery): its saved bytes are in the saved-bytes count.
    pub counted: bool,
    /// A revert began on it before.
    pub reverted_before: bool,
    /// The last revert that began did not end (it was killed).
    pub revert_interrupted: bool,
    /// Rolled back or recovered whole: no longer a line of the journal.
    pub dropped: bool,
    /// The `order` of its last revert.
    pub last_order: u64,
}

impl Txn {
    /// A line committed as it ran, as [`build`] makes it of its `begin` and `end` skimmed
    /// (see [`load_skim`]).
    fn committed(id: &str) -> Txn {
        Txn {
            id: id.to_string(),
            session: String::new(),
            line: String::new(),
            changes: Vec::new(),
            closed: true,
            counted: true,
            reverted_before: false,
            revert_interrupted: false,
            dropped: false,
            last_order: 0,
        }
    }

    pub(crate) fn has_pending(&self) -> bool {
        self.changes.iter().any(Change::has_pending)
    }

    /// A committed line that was undone whole: kept (its journal only) so that it still
    /// counts in the undo history, which is thus exactly the last `undo_history` lines.
    pub(crate) fn is_undone(&self) -> bool {
        self.closed && self.reverted_before && !self.revert_interrupted && !self.has_pending()
    }
}

/// The journal as read: every transaction not pruned, validated.
pub(crate) struct Loaded {
    /// By id, oldest first: the transaction, or why it is refused. Closed transactions at or
    /// below the horizon are pruned (not here); open and refused ones always are.
    pub txns: BTreeMap<String, Result<Txn, String>>,
    /// The journal's files (segments, and the one-transaction files of older versions).
    pub files: Vec<JournalFile>,
    /// Closed transactions up to this id are pruned (`""`: none).
    pub horizon: String,
}

/// One file of the journal.
pub(crate) struct JournalFile {
    pub name: String,
    /// The session that writes it, and its number (`None`: a file of an older version).
    pub seg: Option<(String, u64)>,
    pub len: u64,
    /// The transactions it holds records of (but those in `plain_max`).
    pub ids: BTreeSet<String>,
    /// The newest of the session's own plain committed lines it holds (see [`load`]), whose
    /// ids are not listed in `ids`: each is committed, so it is pruned once the horizon
    /// reaches it.
    pub plain_max: Option<String>,
}

impl JournalFile {
    /// Whether every line it holds is pruned by `horizon` — at or below it, and closed or
    /// out of the journal (`closed` says which of `ids` are).
    pub(crate) fn all_pruned(&self, horizon: &str, closed: impl Fn(&str) -> bool) -> bool {
        self.plain_max.as_deref().is_none_or(|id| id <= horizon)
            && self
                .ids
                .iter()
                .all(|id| id.as_str() <= horizon && closed(id))
    }
}

/// The records of one transaction found in one file, in order.
struct Part {
    file: usize,
    records: Vec<Record>,
}

/// Reads and validates the whole journal: each transaction's records from every file (its
/// own lines in the segment of its session, the reverts of it in the reverters'), with the
/// reverts in their order.
pub(crate) fn load_all(state: &Dir, state_in_root: bool) -> Loaded {
    load(state, state_in_root, None)
}

/// [`load_all`] for pruning, which needs each line's state (open, committed, refused,
/// dropped) but not its changes: the records of changes (`do`, `done`, `failed`,
/// `revert_step`: most of the bytes) and of `begin`s are only checked to be JSON, and the
/// transactions have no changes, session or line. A line whose change record is JSON of the wrong shape is thus not refused
/// here (it is by [`load_all`], which undo uses).
///
/// `own`: what the session wrote, read from memory rather than from its files.
pub(crate) fn load_skim(state: &Dir, state_in_root: bool, own: &Skims) -> Loaded {
    load(state, state_in_root, Some(own))
}

/// One record of a file: its JSON, or the record as [`Skims`] hold it.
#[derive(Clone, Copy)]
enum Line<'a> {
    Json(&'a [u8]),
    Held(&'a Record),
}

/// What was found of one file: its bytes, or the records [`Skims`] hold of it.
enum Content<'a> {
    Bytes(Vec<u8>),
    Held(&'a [(String, Vec<Record>)]),
}

/// Whether a record's JSON is a change's (see [`load_skim`]).
fn is_change_record(json: &[u8]) -> bool {
    [
        &br#"{"t":"do","#[..],
        br#"{"t":"done","#,
        br#"{"t":"failed","#,
        br#"{"t":"revert_step","#,
    ]
    .iter()
    .any(|p| json.starts_with(p))
}

fn load<'a>(state: &Dir, state_in_root: bool, skims: Option<&'a Skims>) -> Loaded {
    let skim = skims.is_some();
    let horizon = read_horizon(state);
    let mut files = Vec::new();
    let mut contents: Vec<(Option<String>, Content<'a>)> = Vec::new();
    let mut errors: BTreeMap<String, String> = BTreeMap::new();
    let mut names: Vec<String> = state
        .read_dir(TXN_DIR)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| {
            Path::new(n).extension().is_some_and(|x| x == "jsonl")
                && (n.starts_with("seg-") || n.starts_with("txn-"))
        })
        .collect();
    names.sort();
    for name in names {
        let seg = parse_seg_name(&name);
        // A file of an older version: one transaction, its records without the id.
        let legacy = if seg.is_none() {
            let Some(id) = name.strip_suffix(".jsonl") else {
                continue;
            };
            if let Err(e) = valid_id(id, "txn") {
                errors.insert(id.to_string(), format!("transaction id: {e}"));
                continue;
            }
            Some(id.to_string())
        } else {
            None
        };
        let path = Path::new(TXN_DIR).join(&name);
        if let Some(held) = skims.and_then(|s| s.get(&name))
            && state.metadata(&path).is_ok_and(|m| m.len() == held.len)
        {
            files.push(JournalFile {
                name,
                seg,
                len: held.len,
                ids: BTreeSet::new(),
                plain_max: None,
            });
            contents.push((None, Content::Held(&held.txns)));
            continue;
        }
        let bytes = match read_capped(state, &path) {
            Ok(b) => b,
            Err(e) => {
                if let Some(id) = &legacy {
                    errors.insert(id.clone(), e);
                }
                continue;
            }
        };
        files.push(JournalFile {
            name,
            seg,
            len: bytes.len() as u64,
            ids: BTreeSet::new(),
            plain_max: None,
        });
        contents.push((legacy, Content::Bytes(bytes)));
    }
    // First the ids of every line (borrowed: a record's id is copied only where it is kept);
    // the lines of pruned transactions (at or below the horizon, with an `end`) are not
    // parsed.
    let mut lines: Vec<(usize, usize, &str, Line<'_>)> = Vec::new();
    let mut pruned: HashSet<&str> = HashSet::new();
    // The session's own committed lines that changed things and were never reverted — a
    // `begin` and an `end` as held — are not gathered record by record: unless another
    // file holds records of theirs, each is a committed transaction as it stands.
    let mut plain: Vec<(usize, &str, &[Record])> = Vec::new();
    for (index, ((legacy, content), file)) in contents.iter().zip(files.iter_mut()).enumerate() {
        let bytes = match content {
            Content::Bytes(bytes) => bytes,
            Content::Held(txns) => {
                // Written by this session: ids of the journal's shape, records whole.
                let mut n = 0;
                for (id, records) in *txns {
                    if is_plain_commit(records) {
                        if file.plain_max.as_ref().is_none_or(|m| m < id) {
                            file.plain_max = Some(id.clone());
                        }
                        if !horizon.is_empty() && id.as_str() <= horizon.as_str() {
                            pruned.insert(id);
                        } else {
                            plain.push((index, id, records));
                        }
                        n += records.len();
                        continue;
                    }
                    file.ids.insert(id.clone());
                    for record in records {
                        if !horizon.is_empty()
                            && id.as_str() <= horizon.as_str()
                            && matches!(record, Record::End { .. } | Record::Dropped {})
                        {
                            pruned.insert(id);
                        }
                        lines.push((index, n, id, Line::Held(record)));
                        n += 1;
                    }
                }
                continue;
            }
        };
        let too_large = bytes.len() as u64 > MAX_TXN_FILE;
        let bytes = bytes
            .get(..bytes.len().min(MAX_TXN_FILE as usize))
            .unwrap_or_default();
        // The piece after the last newline is empty, or a record torn by a crash (ignored).
        let Some(end) = bytes.iter().rposition(|&b| b == b'\n') else {
            continue;
        };
        let whole = bytes.get(..end).unwrap_or_default();
        let mut last_id: Option<&str> = None;
        let mut from = 0;
        let ends = memchr::memchr_iter(b'\n', whole).chain(std::iter::once(whole.len()));
        for (n, to) in ends.enumerate() {
            let line = whole.get(from..to).unwrap_or_default();
            from = to + 1;
            let (id, json) = if let Some(id) = legacy {
                (id.as_str(), line)
            } else {
                let (id, json) = match memchr::memchr(b' ', line) {
                    Some(at) => (line.get(..at).unwrap_or_default(), line.get(at + 1..)),
                    None => (line, None),
                };
                let id = std::str::from_utf8(id).unwrap_or("");
                // A transaction's records are together: its id is checked once.
                if Some(id) != last_id && valid_id(id, "txn").is_err() {
                    // Not a record of any transaction: the file's last one is refused.
                    let last = file
                        .ids
                        .last()
                        .cloned()
                        .unwrap_or_else(|| file.name.clone());
                    errors.entry(last.clone()).or_insert_with(|| {
                        format!("{} line {}: not a journal record", file.name, n + 1)
                    });
                    file.ids.insert(last);
                    continue;
                }
                (id, json.unwrap_or_default())
            };
            // A transaction's records are together in a file: its id is added once.
            if Some(id) != last_id {
                file.ids.insert(id.to_string());
                last_id = Some(id);
            }
            if too_large {
                errors
                    .entry(id.to_string())
                    .or_insert_with(|| format!("{}: over {MAX_TXN_FILE} bytes", file.name));
            }
            if !horizon.is_empty()
                && id <= horizon.as_str()
                && (json.starts_with(br#"{"t":"end""#) || json.starts_with(br#"{"t":"dropped""#))
            {
                pruned.insert(id);
            }
            lines.push((index, n, id, Line::Json(json)));
        }
    }
    let mut parts: BTreeMap<&str, Vec<Part>> = BTreeMap::new();
    // The records of one transaction in one file follow each other: they are gathered into
    // a run, added to its parts at once.
    let mut run: Option<(usize, &str, Vec<Record>)> = None;
    let mut previous: Option<(&str, bool)> = None;
    for (index, n, id, line) in lines {
        let is_pruned = match previous {
            Some((seen, p)) if seen == id => p,
            _ => pruned.contains(id) || skims.is_some_and(|s| s.forgot(id)),
        };
        previous = Some((id, is_pruned));
        if is_pruned {
            continue;
        }
        let record = match line {
            Line::Held(record) => Ok(record.clone()),
            Line::Json(json) if skim && is_change_record(json) => {
                serde_json::from_slice::<serde::de::IgnoredAny>(json).map(|_| Record::Skimmed)
            }
            Line::Json(json) if skim && json.starts_with(br#"{"t":"begin","#) => {
                // Its session and line are not needed to prune.
                serde_json::from_slice::<serde::de::IgnoredAny>(json)
                    .map(|_| Record::skimmed_begin())
            }
            Line::Json(json) => serde_json::from_slice::<Record>(json),
        };
        match record {
            Ok(r) => match &mut run {
                Some((i, rid, records)) if *i == index && *rid == id => records.push(r),
                _ => {
                    if let Some((i, rid, records)) = run.replace((index, id, vec![r])) {
                        push_part(&mut parts, rid, i, records);
                    }
                }
            },
            Err(e) => {
                errors
                    .entry(id.to_string())
                    .or_insert_with(|| format!("record {}: not a journal record ({e})", n + 1));
            }
        }
    }
    if let Some((i, rid, records)) = run {
        push_part(&mut parts, rid, i, records);
    }
    // Gathered, then made a map at once (sorted in bulk: far fewer comparisons of long ids
    // than an insert each).
    let mut txns: Vec<(String, Result<Txn, String>)> = Vec::new();
    for (index, id, records) in plain {
        match parts.get_mut(id) {
            None if !errors.contains_key(id) => {
                txns.push((id.to_string(), Ok(Txn::committed(id))));
                continue;
            }
            Some(list) => list.push(Part {
                file: index,
                records: records.to_vec(),
            }),
            None => {}
        }
        // Records elsewhere, or refused: listed, so that its state decides for the file.
        if let Some(file) = files.get_mut(index) {
            file.ids.insert(id.to_string());
        }
    }
    for (id, list) in parts {
        let own = list
            .iter()
            .any(|p| matches!(p.records.first(), Some(Record::Begin { .. })));
        if !own && !horizon.is_empty() && id <= horizon.as_str() {
            // A revert's records of a line pruned since (its own file is gone).
            errors.remove(id);
            continue;
        }
        let txn = match errors.remove(id) {
            Some(e) => Err(e),
            None => assemble(list).and_then(|records| build(id, records, state_in_root)),
        };
        match txn {
            Ok(t) if t.dropped => {}
            Ok(t) if t.closed && id <= horizon.as_str() => {}
            t => txns.push((id.to_string(), t)),
        }
    }
    for (id, e) in errors {
        if !pruned.contains(id.as_str()) && !skims.is_some_and(|s| s.forgot(&id)) {
            txns.push((id, Err(e)));
        }
    }
    Loaded {
        txns: txns.into_iter().collect(),
        files,
        horizon,
    }
}

/// Whether a line's records, as [`Skims`] hold them, are those of a line committed as it
/// ran: its `begin` and its own `end`, nothing reverted.
fn is_plain_commit(records: &[Record]) -> bool {
    matches!(
        records,
        [
            Record::Begin { .. },
            Record::End {
                closed_by: None,
                ..
            }
        ]
    )
}

/// Adds records of transaction `id` read in file `index` to its parts.
fn push_part<'a>(
    parts: &mut BTreeMap<&'a str, Vec<Part>>,
    id: &'a str,
    index: usize,
    mut records: Vec<Record>,
) {
    let list = parts.entry(id).or_default();
    match list.last_mut() {
        Some(p) if p.file == index => p.records.append(&mut records),
        _ => list.push(Part {
            file: index,
            records,
        }),
    }
}

/// One transaction's records in order: its own (in the file holding its `begin`), then each
/// revert's (wherever its records are), in the reverts' order.
fn assemble(parts: Vec<Part>) -> Result<Vec<Record>, String> {
    let mut base = Vec::new();
    let mut groups: Vec<(u64, Vec<Record>)> = Vec::new();
    for part in parts {
        let own = matches!(part.records.first(), Some(Record::Begin { .. }));
        if own && !base.is_empty() {
            return Err("a second begin".into());
        }
        let mut in_group = false;
        for r in part.records {
            if let Record::RevertBegin { order, .. } = &r {
                groups.push((*order, Vec::new()));
                in_group = true;
            }
            match groups.last_mut() {
                Some((_, g)) if in_group => g.push(r),
                _ if own => base.push(r),
                _ => return Err("a record outside its line and its reverts".into()),
            }
        }
    }
    groups.sort_by_key(|(order, _)| *order);
    base.extend(groups.into_iter().flat_map(|(_, g)| g));
    Ok(base)
}

/// A journal file's bytes (at most [`MAX_TXN_FILE`]: the rest is left out as if torn).
fn read_capped(state: &Dir, path: &Path) -> Result<Vec<u8>, String> {
    let f = state.open(path).map_err(|e| format!("cannot read: {e}"))?;
    let mut bytes = Vec::new();
    f.take(MAX_TXN_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    Ok(bytes)
}

/// The file holding the horizon: the newest pruned transaction's id.
const HORIZON_FILE: &str = "horizon";

/// Closed transactions up to this id are pruned (`""`: none yet).
pub(crate) fn read_horizon(state: &Dir) -> String {
    state
        .read_to_string(Path::new(TXN_DIR).join(HORIZON_FILE))
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| valid_id(s, "txn").is_ok())
        .unwrap_or_default()
}

/// Moves the horizon (written whole, then renamed over the old one).
pub(crate) fn write_horizon(state: &Dir, id: &str) {
    let tmp = Path::new(TXN_DIR).join("horizon.new");
    if state.write(&tmp, id.as_bytes()).is_ok() {
        let _ = state.rename(&tmp, state, Path::new(TXN_DIR).join(HORIZON_FILE));
    }
}

/// Checks the records' order and every inverse, and gathers them by change.
fn build(id: &str, records: Vec<Record>, state_in_root: bool) -> Result<Txn, String> {
    let mut txn = Txn {
        id: id.to_string(),
        session: String::new(),
        line: String::new(),
        changes: Vec::new(),
        closed: false,
        counted: false,
        reverted_before: false,
        revert_interrupted: false,
        dropped: false,
        last_order: 0,
    };
    let mut index: HashMap<u64, usize> = HashMap::new();
    for (n, record) in records.into_iter().enumerate() {
        let at = |msg: String| format!("record {}: {msg}", n + 1);
        match record {
            Record::Begin {
                session,
                line,
                time: _,
            } => {
                if n != 0 {
                    return Err(at("a second begin".into()));
                }
                txn.session = session;
                txn.line = line;
            }
            _ if n == 0 => return Err(at("the first record is not a begin".into())),
            Record::Do {
                seq,
                op,
                path,
                undo,
            } => {
                if txn.closed || txn.reverted_before {
                    return Err(at("a change after the end".into()));
                }
                if txn.changes.last().is_some_and(|c| c.seq >= seq) || seq == 0 {
                    return Err(at(format!("change {seq} out of order")));
                }
                for inv in &undo {
                    check_inverse(id, seq, inv, state_in_root)
                        .map_err(|e| at(format!("change {seq}: {e}")))?;
                }
                index.insert(seq, txn.changes.len());
                txn.changes.push(Change {
                    seq,
                    op,
                    path,
                    reverted: vec![false; undo.len()],
                    undo,
                    after: None,
                    failed: false,
                });
            }
            Record::Done { seq, after } => {
                let c = change_mut(&mut txn, &index, seq).map_err(at)?;
                set_after(c, seq, after).map_err(at)?;
            }
            Record::Failed { seq, after } => {
                let c = change_mut(&mut txn, &index, seq).map_err(at)?;
                if let Some(after) = after {
                    set_after(c, seq, after).map_err(at)?;
                }
                c.failed = true;
            }
            Record::End { closed_by, .. } => {
                if txn.closed {
                    return Err(at("a second end".into()));
                }
                txn.closed = true;
                txn.counted = closed_by.is_none() && !txn.reverted_before;
            }
            Record::RevertBegin { order, .. } => {
                txn.last_order = txn.last_order.max(order);
                txn.reverted_before = true;
                txn.revert_interrupted = true;
            }
            Record::RevertStep { seq, i } => {
                if !txn.revert_interrupted {
                    return Err(at("a revert step outside a revert".into()));
                }
                let c = change_mut(&mut txn, &index, seq).map_err(at)?;
                match c.reverted.get_mut(i) {
                    Some(done) => *done = true,
                    None => return Err(at(format!("change {seq} has no inverse {i}"))),
                }
            }
            Record::RevertEnd { .. } => {
                if !txn.revert_interrupted {
                    return Err(at("a revert end outside a revert".into()));
                }
                txn.revert_interrupted = false;
            }
            Record::Dropped {} => txn.dropped = true,
            Record::Skimmed => {}
        }
    }
    Ok(txn)
}

/// Records what a change left: one state per inverse, or the record is invalid.
fn set_after(c: &mut Change, seq: u64, after: After) -> Result<(), String> {
    if after.len() != c.undo.len() {
        return Err(format!(
            "change {seq}: {} states for {} inverses",
            after.len(),
            c.undo.len()
        ));
    }
    c.after = Some(after);
    Ok(())
}

fn change_mut<'a>(
    txn: &'a mut Txn,
    index: &HashMap<u64, usize>,
    seq: u64,
) -> Result<&'a mut Change, String> {
    index
        .get(&seq)
        .and_then(|&i| txn.changes.get_mut(i))
        .ok_or_else(|| format!("no change {seq}"))
}

/// Checks every path and name an inverse holds.
fn check_inverse(id: &str, seq: u64, inv: &Inverse, state_in_root: bool) -> Result<(), String> {
    let rel = |p: &RelPath, root_ok: bool, what: &str| {
        valid_rel(p.bytes(), root_ok, state_in_root).map_err(|e| format!("{what}: {e}"))
    };
    let blob_ok = |blob: &str| {
        if blob == format!("{TXN_DIR}/{id}.d/{seq}") {
            Ok(())
        } else {
            Err(format!(
                "blob {blob:?} is not this change's ({TXN_DIR}/{id}.d/{seq})"
            ))
        }
    };
    let mode_ok = |mode: u32| {
        if mode <= 0o7777 {
            Ok(())
        } else {
            Err(format!("mode {mode:o}: not a permission mode"))
        }
    };
    match inv {
        Inverse::Remove { at } | Inverse::Truncate { at, .. } => rel(at, false, "at"),
        Inverse::Restore { at, blob, mode, .. } => {
            rel(at, false, "at")?;
            blob_ok(blob)?;
            mode_ok(*mode)
        }
        Inverse::Untrash { at, trash_id } => {
            rel(at, false, "at")?;
            valid_id(trash_id, "t").map_err(|e| format!("trash_id: {e}"))
        }
        Inverse::RenameBack { from, to } => {
            rel(from, false, "from")?;
            rel(to, false, "to")
        }
        Inverse::Unstash { at, blob } => {
            rel(at, false, "at")?;
            blob_ok(blob)
        }
        Inverse::Mkdir { at, mode } => {
            rel(at, false, "at")?;
            mode_ok(*mode)
        }
        Inverse::Times { at, .. } => rel(at, true, "at"),
        Inverse::Mode { at, mode } => {
            rel(at, true, "at")?;
            mode_ok(*mode)
        }
    }
}

/// A normalized root-relative path: not empty, not absolute, no NUL, no empty, `.` or `..`
/// component, no component over 255 bytes, not in the state directory when it is in the
/// root. The root itself (`.`) only where `root_ok`.
pub(crate) fn valid_rel(b: &[u8], root_ok: bool, state_in_root: bool) -> Result<(), String> {
    let shown = String::from_utf8_lossy(b);
    if b == b"." {
        return if root_ok {
            Ok(())
        } else {
            Err("the root itself".into())
        };
    }
    if b.is_empty() {
        return Err("an empty path".into());
    }
    if b.len() > 4095 {
        return Err("a path too long".into());
    }
    if b[0] == b'/' {
        return Err(format!("{shown:?} is absolute"));
    }
    if b.contains(&0) {
        return Err(format!("{shown:?} holds a NUL byte"));
    }
    for c in b.split(|&x| x == b'/') {
        match c {
            b"" => return Err(format!("{shown:?} has an empty component")),
            b"." | b".." => return Err(format!("{shown:?} is not normalized")),
            c if c.len() > 255 => return Err(format!("{shown:?} has a component too long")),
            _ => {}
        }
    }
    if state_in_root && b.split(|&x| x == b'/').next() == Some(STATE_DIR_NAME.as_bytes()) {
        return Err(format!("{shown:?} is in the state directory"));
    }
    Ok(())
}

/// A name [`crate::sandbox::unique_name`] makes with `prefix`:
/// `PREFIX-<20 digits>-<digits>-<digits>`.
pub(crate) fn valid_id(s: &str, prefix: &str) -> Result<(), String> {
    let mut parts = s.split('-');
    let ok = s.len() <= 80
        && parts.next() == Some(prefix)
        && parts
            .next()
            .is_some_and(|t| t.len() == 20 && t.bytes().all(|b| b.is_ascii_digit()))
        // The process's random number (lowercase hex; a process id in older journals).
        && parts.next().is_some_and(|n| {
            !n.is_empty()
                && n.len() <= 20
                && n.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
        && parts.next().is_some_and(|n| {
            !n.is_empty() && n.len() <= 20 && n.bytes().all(|b| b.is_ascii_digit())
        })
        && parts.next().is_none();
    if ok {
        Ok(())
    } else {
        Err(format!("{s:?} is not a name the journal makes"))
    }
}

/// Where a transaction keeps the bytes and objects its changes replaced: `txn/<id>.d/`.
pub(crate) fn blob_dir(id: &str) -> PathBuf {
    Path::new(TXN_DIR).join(format!("{id}.d"))
}

/// The bytes a transaction's saved objects hold.
pub(crate) fn blob_bytes(state: &Dir, id: &str) -> u64 {
    state.read_dir(blob_dir(id)).map_or(0, |entries| {
        entries
            .flatten()
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len())
            .sum()
    })
}

/// The count of the bytes committed transactions keep saved, shared by the sessions (read
/// and written under the journal's lock).
const SAVED_FILE: &str = "undo-saved";

/// Adds `delta` to the saved-bytes count and returns it; `None` when the count is not known
/// (missing), to be computed from the transactions.
pub(crate) fn saved_add(state: &Dir, delta: i64) -> Option<u64> {
    use std::os::unix::fs::FileExt;
    let f = state.open(SAVED_FILE).ok()?.into_std();
    let mut buf = [0u8; 8];
    f.read_exact_at(&mut buf, 0).ok()?;
    let now = u64::from_le_bytes(buf);
    if delta == 0 {
        return Some(now);
    }
    let new = now.saturating_add_signed(delta);
    saved_set(state, new);
    Some(new)
}

/// Sets the saved-bytes count (rewritten in place: a truncating rewrite costs a flush on
/// some file systems).
pub(crate) fn saved_set(state: &Dir, total: u64) {
    use std::os::unix::fs::FileExt;
    let mut opts = OpenOptions::new();
    opts.write(true).create(true);
    if let Ok(f) = state.open_with(SAVED_FILE, &opts) {
        let _ = f.into_std().write_all_at(&total.to_le_bytes(), 0);
    }
}

/// A line of text for a path in records and messages.
pub(crate) fn text_of(p: &Path) -> String {
    String::from_utf8_lossy(p.as_os_str().as_bytes()).into_owned()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_checked() {
        for ok in ["a", "a/b", ".a", "..a", "a..", "a/.b/c", "é/x"] {
            assert!(valid_rel(ok.as_bytes(), false, true).is_ok(), "{ok}");
        }
        for bad in [
            "", "/a", "a/", "/", "a//b", "./a", "a/.", "a/..", "../a", "..", "a/../b", ".trash",
            ".trash/x", "a\0b",
        ] {
            assert!(valid_rel(bad.as_bytes(), false, true).is_err(), "{bad:?}");
        }
        assert!(valid_rel(b".", false, true).is_err());
        assert!(valid_rel(b".", true, true).is_ok());
        assert!(valid_rel(b".trash", false, false).is_ok());
        assert!(valid_rel(&[b'x'; 256], false, false).is_err());
    }

    #[test]
    fn a_plain_commit_is_the_transaction_its_records_build() {
        let id = "txn-01795590714603051917-41a92fe0198d-7";
        let line = |closed_by: Option<&str>| {
            vec![
                Record::Begin {
                    session: String::new(),
                    line: String::new(),
                    time: 0,
                },
                Record::End {
                    status: 1,
                    time: 5,
                    closed_by: closed_by.map(str::to_string),
                },
            ]
        };
        let records = line(None);
        assert!(is_plain_commit(&records));
        let built = build(id, records, false).unwrap();
        assert_eq!(format!("{built:?}"), format!("{:?}", Txn::committed(id)));
        let closed_by = line(Some("rollback"));
        assert!(!is_plain_commit(&closed_by));
    }

    #[test]
    fn segment_names_round_trip() {
        let s = crate::sandbox::unique_name("s");
        assert_eq!(parse_seg_name(&seg_name(&s, 7)), Some((s.clone(), 7)));
        for bad in [
            "seg-x-1.jsonl".to_string(),
            "seg-.jsonl".to_string(),
            format!("seg-{s}-.jsonl"),
            format!("seg-{s}-1.json"),
            format!("seg-{s}-x.jsonl"),
            format!("{s}-1.jsonl"),
        ] {
            assert!(parse_seg_name(&bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn reverts_are_read_in_their_order_whatever_their_segment() {
        let begin = Record::Begin {
            session: "s".into(),
            line: "l".into(),
            time: 0,
        };
        let change = Record::Do {
            seq: 1,
            op: "write".into(),
            path: "/x".into(),
            undo: vec![Inverse::Remove {
                at: RelPath::Text("x".into()),
            }],
        };
        let end = Record::End {
            status: 0,
            time: 0,
            closed_by: None,
        };
        let revert = |order| Record::RevertBegin {
            session: "s".into(),
            by: "undo".into(),
            time: 0,
            order,
        };
        // The line's own segment holds a revert killed part-way (order 5); another session's
        // segment an earlier revert that ended (order 2).
        let parts = vec![
            Part {
                file: 0,
                records: vec![
                    begin,
                    change,
                    end,
                    revert(5),
                    Record::RevertStep { seq: 1, i: 0 },
                ],
            },
            Part {
                file: 1,
                records: vec![revert(2), Record::RevertEnd { kept: 1 }],
            },
        ];
        let txn = build("t", assemble(parts).unwrap(), true).unwrap();
        assert!(txn.closed && txn.revert_interrupted, "{txn:?}");
        assert_eq!(txn.last_order, 5);
        // A revert's records with no line of their own are refused.
        let orphan = vec![Part {
            file: 0,
            records: vec![Record::RevertStep { seq: 1, i: 0 }],
        }];
        assert!(assemble(orphan).is_err());
    }

    #[test]
    fn ids_have_the_journals_shape() {
        let id = crate::sandbox::unique_name("txn");
        assert!(valid_id(&id, "txn").is_ok(), "{id}");
        assert!(valid_id(&crate::sandbox::unique_name("t"), "t").is_ok());
        for bad in [
            "txn",
            "txn-1-2-3",
            "t-00000000000000000001-2-3",
            "txn-00000000000000000001-2-3-4",
            "txn-00000000000000000001-2-",
            "txn-00000000000000000001-../x-3",
            "txn-00000000000000000001-2F-3",
            "txn-00000000000000000001-2-3a",
            "../txn-00000000000000000001-2-3",
        ] {
            assert!(valid_id(bad, "txn").is_err(), "{bad}");
        }
    }
}
