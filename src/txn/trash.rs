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

use crate::sandbox::{Sandbox, map_err, unique_name};

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
}

/// Moves `vpath` to a fresh trash entry and returns its id.
pub fn trash(sandbox: &Sandbox, vpath: &Path) -> Result<String, FsError> {
    let id = unique_name("t");
    trash_as(sandbox, vpath, &id)?;
    Ok(id)
}

/// Moves `vpath` to the trash entry `id` (a fresh name from [`unique_name`]; the journal
/// records it before the move). The entry is made with an exclusive `mkdir`, so nothing in
/// the trash is ever overwritten.
pub fn trash_as(sandbox: &Sandbox, vpath: &Path, id: &str) -> Result<(), FsError> {
    let loc = sandbox.locate(vpath)?;
    let state = sandbox.state_dir();
    ensure_dir(state, Path::new("trash"))?;
    let entry = PathBuf::from("trash").join(id);
    state.create_dir(&entry).map_err(map_err)?;
    let info = TrashInfo {
        path: vpath.to_string_lossy().into_owned(),
        rel: loc.rel.to_string_lossy().into_owned(),
        time: now_secs(),
    };
    let json = serde_json::to_vec(&info).map_err(|_| FsError::Io)?;
    state
        .write(entry.join("info.json"), json)
        .map_err(map_err)?;
    if let Err(e) = sandbox.move_loc_to_state(&loc, &entry.join("data")) {
        let _ = state.remove_file(entry.join("info.json"));
        let _ = state.remove_dir(&entry);
        return Err(e);
    }
    Ok(())
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
