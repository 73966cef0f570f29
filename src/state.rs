//! The state directory: the trash, the journal of applied effects, and the REPL history.
//!
//! Layout (inside `.trash/` in the root, or `--state-dir`):
//! - `trash/<id>/data` — the trashed object itself (a link stays a link), and
//!   `trash/<id>/info.json` — `{"path": <virtual path>, "time": <unix secs>, "kind": ...}`.
//!   Ids are `<unix-nanos>-<pid>-<counter>`, unique across restarts, and a trash entry is
//!   created with an exclusive `mkdir`, so nothing in the trash is ever overwritten.
//! - `journal.jsonl` — one JSON object per applied effect, with the transaction (input line)
//!   it belongs to and what is needed to revert it (issue 4 builds `undo` on it).
//! - `history` — the REPL's line history.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use cap_std::fs::{Dir, OpenOptions};
use serde::Serialize;
use trumansh_commands::FsError;

use crate::sandbox::{Sandbox, map_err, unique_name};

/// What the trash records about one item.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct TrashInfo {
    /// The virtual path the item had.
    pub path: String,
    /// When it was trashed (seconds since the epoch).
    pub time: u64,
}

/// Moves `vpath` to a fresh trash entry and returns its id.
pub fn trash(sandbox: &Sandbox, vpath: &Path) -> Result<String, FsError> {
    let state = sandbox.state_dir();
    ensure_dir(state, Path::new("trash"))?;
    let mut id = unique_name("t");
    let mut tries = 0;
    loop {
        match state.create_dir(Path::new("trash").join(&id)) {
            Ok(()) => break,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 100 => {
                tries += 1;
                id = unique_name("t");
            }
            Err(e) => return Err(map_err(e)),
        }
    }
    let entry = PathBuf::from("trash").join(&id);
    let info = TrashInfo {
        path: vpath.to_string_lossy().into_owned(),
        time: now_secs(),
    };
    let json = serde_json::to_vec(&info).map_err(|_| FsError::Io)?;
    state
        .write(entry.join("info.json"), json)
        .map_err(map_err)?;
    if let Err(e) = sandbox.move_to_state(vpath, &entry.join("data")) {
        let _ = state.remove_file(entry.join("info.json"));
        let _ = state.remove_dir(&entry);
        return Err(e);
    }
    Ok(id)
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

/// One journal record.
#[derive(Debug, Serialize)]
pub struct JournalRecord<'a> {
    /// The transaction: the input line's number in this session.
    pub txn: u64,
    /// What was done, e.g. `create_dir`, `write`, `append`, `trash`, `touch`, `rename`.
    pub op: &'a str,
    /// The virtual path(s) concerned.
    pub path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<&'a str>,
    /// How to revert it: e.g. the trash id, the previous length of an appended file, or the
    /// state-relative path that holds the bytes an overwrite replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undo: Option<serde_json::Value>,
    pub time: u64,
}

/// Appends a record to `journal.jsonl` (best effort: a journal failure never blocks the
/// agent's command, but it is reported to the owner's audit).
pub fn journal(sandbox: &Sandbox, record: &JournalRecord) {
    let Ok(mut line) = serde_json::to_vec(record) else {
        return;
    };
    line.push(b'\n');
    let mut opts = OpenOptions::new();
    opts.create(true).append(true);
    if let Ok(mut f) = sandbox.state_dir().open_with("journal.jsonl", &opts) {
        let _ = f.write_all(&line);
    }
}

/// Seconds since the epoch, for records.
pub fn timestamp() -> u64 {
    now_secs()
}
