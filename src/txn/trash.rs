//! The state directory: the trash, the journal of applied effects, and the REPL history.
//!
//! Layout (inside `.trash/` in the root, or `--state-dir`):
//! - `trash/<id>/data` — the trashed object itself (a link stays a link), and
//!   `trash/<id>/info.json` — `{"path": <virtual path>, "time": <unix secs>, "kind": ...}`.
//!   Ids are `<unix-nanos>-<pid>-<counter>`, unique across restarts, and a trash entry is
//!   created with an exclusive `mkdir`, so nothing in the trash is ever overwritten.
//!   An entry an undo made (see [`Bin`]) holds a directory mirroring the root instead, and
//!   its `info.json` says which undo (`"undo": "undo of `LINE`"`).
//! - `txn/` — the journal of transactions (see [`crate::txn::journal`]); `sessions/` — live
//!   sessions' locks; `undo.lock`, `undo-saved` — the journal's lock and saved-bytes count;
//!   `usage` — the quota's count, shared by the sessions (see [`crate::limits`]); `reserve` —
//!   space for removing on a full disk (see [`crate::txn::reserve`]); `audit.jsonl` — the
//!   audit log (see [`crate::audit`]).
//! - `history` — the REPL's line history.

use std::path::{Path, PathBuf};

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
    trash_at(sandbox, &sandbox.locate(vpath)?, vpath, id)
}

/// [`trash_as`] of a location already resolved ([`Sandbox::locate`]); `vpath` is how the
/// agent named it (for the owner's listing).
pub fn trash_at(sandbox: &Sandbox, loc: &Loc, vpath: &Path, id: &str) -> Result<(), FsError> {
    let info = TrashInfo {
        path: vpath.to_string_lossy().into_owned(),
        rel: loc.rel.to_string_lossy().into_owned(),
        time: now_secs(),
        undo: None,
    };
    let entry = new_entry(sandbox, id, &info)?;
    if let Err(e) = sandbox.move_loc_to_state(loc, &entry.join("data")) {
        drop_entry(sandbox, &entry);
        return Err(e);
    }
    Ok(())
}

/// The trash entry where one revert (an undo, a rollback, a recovery) puts what it replaces
/// or removes, made when the first object comes: `trash/<id>/data/` mirrors the root, each
/// object at its root-relative path (a second object for one path gets `.~2~`, `.~3~`...;
/// the bytes an append's undo cuts off are `PATH.tail`), and its `info.json` says which
/// revert (`undo`), with no original location (the owner restores it with `--to`). One entry
/// per revert: undoing a `cp -r` of thousands of files costs one rename each, not a new entry
/// (two new inodes) each.
pub struct Bin {
    note: String,
    entry: Option<PathBuf>,
}

impl Bin {
    /// A bin for the revert `note` describes (``undo of `LINE` ``).
    pub fn new(note: &str) -> Bin {
        Bin {
            note: note.to_string(),
            entry: None,
        }
    }

    /// Moves the object at a location (a file or link a change created) into the bin.
    pub fn take(&mut self, sandbox: &Sandbox, loc: &Loc) -> Result<(), FsError> {
        let dest = self.place(sandbox, &loc.rel, "")?;
        sandbox.stash(loc, &dest)
    }

    /// Copies the bytes of the file at a location, from `offset` on, into the bin (what an
    /// undo is about to replace, or to cut off).
    pub fn copy(&mut self, sandbox: &Sandbox, loc: &Loc, offset: u64) -> Result<(), FsError> {
        let suffix = if offset > 0 { ".tail" } else { "" };
        let dest = self.place(sandbox, &loc.rel, suffix)?;
        with_reserve(sandbox, true, || {
            let _ = sandbox.state_dir().remove_file(&dest);
            sandbox.copy_out(loc, offset, &dest).map(drop)
        })
        .inspect_err(|_| {
            let _ = sandbox.state_dir().remove_file(&dest);
        })
    }

    /// A free path in the bin for a root-relative path, its parents made.
    fn place(&mut self, sandbox: &Sandbox, rel: &Path, suffix: &str) -> Result<PathBuf, FsError> {
        let state = sandbox.state_dir();
        let data = self.entry(sandbox)?.join("data");
        let mut dir = data.clone();
        let mut comps: Vec<&std::ffi::OsStr> = rel.iter().collect();
        let name = comps.pop().unwrap_or_default().to_os_string();
        for c in comps {
            dir.push(c);
            let made = with_reserve(sandbox, true, || match state.create_dir(&dir) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(map_err(e)),
                _ => Ok(()),
            });
            if made.is_err() || !state.symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
                // Something of the bin has that name already: the object goes at the top.
                dir.clone_from(&data);
                break;
            }
        }
        let mut base = name;
        base.push(suffix);
        let mut candidate = dir.join(&base);
        let mut n = 1;
        while state.symlink_metadata(&candidate).is_ok() {
            n += 1;
            let mut numbered = base.clone();
            numbered.push(format!(".~{n}~"));
            candidate = dir.join(numbered);
        }
        Ok(candidate)
    }

    /// The bin's entry, made on first use.
    fn entry(&mut self, sandbox: &Sandbox) -> Result<PathBuf, FsError> {
        if let Some(e) = &self.entry {
            return Ok(e.clone());
        }
        let info = TrashInfo {
            path: sandbox.mount_point().to_string_lossy().into_owned(),
            rel: String::new(),
            time: now_secs(),
            undo: Some(self.note.clone()),
        };
        let entry = new_entry(sandbox, &unique_name("t"), &info)?;
        let made = with_reserve(sandbox, true, || {
            sandbox.guard().state_write(BLOCK_BYTES)?;
            sandbox
                .state_dir()
                .create_dir(entry.join("data"))
                .map_err(map_err)
        });
        if let Err(e) = made {
            drop_entry(sandbox, &entry);
            return Err(e);
        }
        self.entry = Some(entry.clone());
        Ok(entry)
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
    // Seconds: the kernel's tick-old clock is precise enough, and cheaper to read (the
    // journal stamps every line twice).
    let t = rustix::time::clock_gettime(rustix::time::ClockId::RealtimeCoarse);
    u64::try_from(t.tv_sec).unwrap_or(0)
}

/// Seconds since the epoch, for records.
pub fn timestamp() -> u64 {
    now_secs()
}
