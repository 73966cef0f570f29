//! The state directory's reserve: a small file of real blocks (`reserve`, [`RESERVE_BYTES`])
//! written when a session starts, so that removing works on a full disk.
//!
//! `rm` is a rename into the trash, which frees nothing and needs a little space: a journal
//! file and its records, the trash entry's directory and its `info.json`. On a full disk those
//! fail with `ENOSPC`. Whatever removes (a `Trash` change, its journal records, a trash entry)
//! and whatever undo writes may draw on the reserve: on `ENOSPC` one block ([`BLOCK_BYTES`]) of
//! the reserve is released (the file is cut by a block, which frees it) and the write is tried
//! again, a few times at most. Writes of data never draw on it: `echo x > f` on a full disk
//! still fails, as it must. The reserve is topped up again when a session starts and the disk
//! has room. A full reserve covers about 40 removals on a completely full disk (each needs
//! about three blocks).

use std::os::unix::fs::FileExt;

use cap_std::fs::{Dir, OpenOptions};
use trumansh_commands::FsError;

use crate::limits::BLOCK_BYTES;
use crate::sandbox::Sandbox;

/// The reserve's file in the state directory.
pub const RESERVE_FILE: &str = "reserve";

/// How many bytes the reserve holds when full.
pub const RESERVE_BYTES: u64 = 512 * 1024;

/// How many blocks one write may release before it gives up.
const MAX_RELEASES: usize = 8;

/// Writes the reserve up to [`RESERVE_BYTES`] (real blocks: zeros written, not a sparse
/// length). Stops quietly when the disk has no room.
pub fn top_up(state: &Dir) {
    let mut opts = OpenOptions::new();
    opts.read(true).write(true).create(true);
    let Ok(f) = state.open_with(RESERVE_FILE, &opts) else {
        return;
    };
    let f = f.into_std();
    let Ok(len) = f.metadata().map(|m| m.len()) else {
        return;
    };
    let zeros = vec![0u8; 64 * 1024];
    // Whole blocks only: a partial last block (a release cuts by blocks) is rewritten.
    let mut at = len - len % BLOCK_BYTES;
    while at < RESERVE_BYTES {
        let n = (RESERVE_BYTES - at).min(zeros.len() as u64) as usize;
        if f.write_all_at(&zeros[..n], at).is_err() {
            break;
        }
        at += n as u64;
    }
}

/// Releases one block of the reserve. `false` when it is empty (or missing).
pub fn release_block(sandbox: &Sandbox) -> bool {
    let mut opts = OpenOptions::new();
    opts.write(true);
    let Ok(f) = sandbox.state_dir().open_with(RESERVE_FILE, &opts) else {
        return false;
    };
    let Ok(len) = f.metadata().map(|m| m.len()) else {
        return false;
    };
    if len == 0 {
        return false;
    }
    let new = len.saturating_sub(BLOCK_BYTES);
    if f.set_len(new).is_err() {
        return false;
    }
    sandbox.guard().disk_freed(len - new);
    sandbox.audit().event(
        "reserve_released",
        crate::audit::fields([("bytes", (len - new).into()), ("left", new.into())]),
    );
    true
}

/// Runs a write of the state directory; when it fails with `ENOSPC` and `allowed`, releases
/// a block of the reserve and tries again (a few times at most).
pub fn with_reserve<T>(
    sandbox: &Sandbox,
    allowed: bool,
    mut f: impl FnMut() -> Result<T, FsError>,
) -> Result<T, FsError> {
    let mut released = 0;
    loop {
        match f() {
            Err(FsError::NoSpace)
                if allowed && released < MAX_RELEASES && release_block(sandbox) =>
            {
                released += 1;
            }
            r => return r,
        }
    }
}
