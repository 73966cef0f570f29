//! The state directory: the trash, the journal of applied effects, and the REPL history.
//!
//! Layout (inside `.trash/` in the root, or `--state-dir`):
//! - `trash/<id>/data` — the trashed object itself (a link stays a link), and
//!   `trash/<id>/info.json` — `{"path": <virtual path>, "time": <unix secs>, "kind": ...}`.
//!   Ids are `<unix-nanos>-<pid>-<counter>`, unique across restarts, and a trash entry is
//!   created with an exclusive `mkdir`, so nothing in the trash is ever overwritten.
//! - `txn/` — the journal of transactions (see [`crate::txn::journal`]); `sessions/` — live
//!   sessions' locks; `audit.jsonl` — the audit log (see [`crate::audit`]).
//! - `history` — the REPL's line history.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use cap_std::fs::Dir;
use serde::Serialize;
use trumansh_commands::FsError;

use crate::limits::BLOCK_BYTES;
use crate::sandbox::{Loc, Sandbox, map_err, unique_name};
use crate::txn::reserve::with_reserve;

/// What the trash records about one item.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct TrashInfo {
    /// The virtual path the item had (as the agent saw it).
    pub path: String,
    /// Where it was, relative to the root (`""` when unknown: entries from older versions).
    #[serde(default)]
    pub rel: String,
    /// When it was trashed (seconds since the epoch).
    pub time: u64,
    /// Set when an undo (or a rollback, a recovery) put it here rather than `rm`: what it was
    /// reverting, e.g. ``undo of `echo x > f` `` (absent for `rm`'s entries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<String>,
}

/// Moves `vpath` to a fresh trash entry and returns its id.
pub fn trash(sandbox: &Sandbox, vpath: &Path) -> Result<String, FsError> {
    let id = unique_name("t");
    trash_as(sandbox, vpath, &id)?;
    Ok(id)
}

/// Moves `vpath` to the trash entry `id` (a fresh name from [`unique_name`]; the journal
/// records it before the move). The entry is made with an exclusive `mkdir`, so nothing in
/// the trash is ever overwritten. On a full disk the entry draws on the state directory's
/// reserve ([`crate::txn::reserve`]): removing must work when nothing else does.
pub fn trash_as(sandbox: &Sandbox, vpath: &Path, id: &str) -> Result<(), FsError> {
    let info = TrashInfo {
        path: vpath.to_string_lossy().into_owned(),
        rel: sandbox
            .physical_of(vpath)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default(),
        time: now_secs(),
        undo: None,
    };
    let entry = new_entry(sandbox, id, &info)?;
    if let Err(e) = sandbox.move_to_state(vpath, &entry.join("data")) {
        drop_entry(sandbox, &entry);
        return Err(e);
    }
    Ok(())
}

/// Moves the object at a location to a new trash entry (an undo removing what a change
/// created); `note` says which undo. Returns the entry's id.
pub fn trash_loc(sandbox: &Sandbox, loc: &Loc, note: &str) -> Result<String, FsError> {
    let id = unique_name("t");
    let entry = new_entry(sandbox, &id, &undo_info(sandbox, loc, note))?;
    if let Err(e) = sandbox.stash(loc, &entry.join("data")) {
        drop_entry(sandbox, &entry);
        return Err(e);
    }
    Ok(id)
}

/// Copies the bytes of the file at a location, from `offset` on, to a new trash entry (an
/// undo about to replace them, or to cut them off). Returns the entry's id.
pub fn trash_copy(
    sandbox: &Sandbox,
    loc: &Loc,
    offset: u64,
    note: &str,
) -> Result<String, FsError> {
    let id = unique_name("t");
    let entry = new_entry(sandbox, &id, &undo_info(sandbox, loc, note))?;
    let data = entry.join("data");
    if let Err(e) = with_reserve(sandbox, true, || {
        let _ = sandbox.state_dir().remove_file(&data);
        sandbox.copy_out(loc, offset, &data).map(drop)
    }) {
        let _ = sandbox.state_dir().remove_file(&data);
        drop_entry(sandbox, &entry);
        return Err(e);
    }
    Ok(id)
}

fn undo_info(sandbox: &Sandbox, loc: &Loc, note: &str) -> TrashInfo {
    TrashInfo {
        path: sandbox.virtual_path(loc).to_string_lossy().into_owned(),
        rel: loc.rel.to_string_lossy().into_owned(),
        time: now_secs(),
        undo: Some(note.to_string()),
    }
}

/// Makes the trash entry `trash/<id>/` with its `info.json` (drawing on the reserve on a full
/// disk); returns its path in the state directory.
fn new_entry(sandbox: &Sandbox, id: &str, info: &TrashInfo) -> Result<PathBuf, FsError> {
    let state = sandbox.state_dir();
    ensure_dir(state, Path::new("trash"))?;
    let entry = PathBuf::from("trash").join(id);
    with_reserve(sandbox, true, || {
        sandbox.guard().state_write(BLOCK_BYTES)?;
        // Exclusive: nothing in the trash is ever overwritten.
        state.create_dir(&entry).map_err(map_err)
    })?;
    let json = serde_json::to_vec(info).map_err(|_| FsError::Io)?;
    let written = with_reserve(sandbox, true, || {
        sandbox.guard().state_write(BLOCK_BYTES)?;
        state.write(entry.join("info.json"), &json).map_err(map_err)
    });
    if let Err(e) = written {
        drop_entry(sandbox, &entry);
        return Err(e);
    }
    Ok(entry)
}

/// Removes an entry whose object never arrived.
fn drop_entry(sandbox: &Sandbox, entry: &Path) {
    let _ = sandbox.state_dir().remove_file(entry.join("info.json"));
    let _ = sandbox.state_dir().remove_dir(entry);
}

fn ensure_dir(dir: &Dir, p: &Path) -> Result<(), FsError> {
    match dir.create_dir(p) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(map_err(e)),
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Seconds since the epoch, for records.
pub fn timestamp() -> u64 {
    now_secs()
}
