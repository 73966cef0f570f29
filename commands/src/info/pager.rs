//! What `less` and `more` share: with no terminal to page on, they copy their input to
//! stdout as it is, streamed in chunks (as they do when stdout is not a terminal). The
//! emulation never pages, even for an interactive session: its output is not a terminal
//! the handler could drive.

use std::ffi::OsStr;
use std::io::Read;

use crate::support::input::open_input;
use crate::{Ctx, FsError, Outcome};

/// Copies one operand (`-`: stdin) into the outcome, flushing as it goes; `Ok(false)` when
/// nobody reads any more.
pub fn copy(ctx: &Ctx, operand: &OsStr, o: &mut Outcome) -> Result<bool, FsError> {
    let mut r = open_input(ctx, operand)?;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => return Ok(true),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(FsError::from_io(&e)),
        };
        o.out(buf.get(..n).unwrap_or_default());
        if !ctx.flush(o) {
            return Ok(false);
        }
    }
}

/// Whether an operand is a directory (links followed).
pub fn is_dir(ctx: &Ctx, operand: &OsStr) -> bool {
    operand != "-"
        && ctx
            .fs
            .stat(&ctx.resolve(operand), true)
            .is_ok_and(|m| m.is_dir())
}
