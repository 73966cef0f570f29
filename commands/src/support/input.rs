//! Reading operands: a file through the view, or `-` (and no operand) as the command's stdin,
//! always as a stream so that a large file is never held whole.

use std::ffi::{OsStr, OsString};
use std::io::Read;

use crate::{CommandName, Ctx, FsError, Outcome, Stdin, quote_if_needed};

/// The operands to read: those given, or `-` (stdin) when there are none, as GNU's filters
/// do (`cat`, `head`, `sort`...).
pub fn operands_or_stdin(files: Vec<OsString>) -> Vec<OsString> {
    if files.is_empty() {
        vec![OsString::from("-")]
    } else {
        files
    }
}

/// Whether an operand names the command's own stdin by a device path: `/dev/stdin` or
/// `/dev/fd/0` (as Linux's links to fd 0 do), however it is written (`/dev//stdin`).
pub fn names_stdin(ctx: &Ctx, operand: &OsStr) -> bool {
    let path = crate::normalize_lexical(&ctx.resolve(operand));
    path == std::path::Path::new("/dev/stdin") || path == std::path::Path::new("/dev/fd/0")
}

/// Opens an operand for reading, as a stream: `-`, `/dev/stdin` and `/dev/fd/0` are the
/// command's stdin; anything else a file (links followed). A directory opens, and its first
/// read fails with `IsADirectory`.
pub fn open_input<'a>(ctx: &'a Ctx, operand: &OsStr) -> Result<Box<dyn Read + 'a>, FsError> {
    if operand == "-" || names_stdin(ctx, operand) {
        Ok(Box::new(ctx.stdin))
    } else {
        ctx.fs
            .open(&ctx.resolve(operand))
            .map(|r| Box::new(r) as Box<dyn Read>)
    }
}

/// `cmd: name: strerror` with the name quoted only where GNU's `quotef` would (`wc`, `head`,
/// `grep`, `cat` style).
pub fn operand_error(cmd: CommandName, operand: &OsStr, e: &FsError) -> String {
    format!("{cmd}: {}: {}\n", quote_if_needed(operand), e.strerror())
}

/// Prints a prompt on stderr and reads one answer line from stdin: yes when it starts with
/// `y` or `Y` (`rm -i`, `cp -i`, `mv -i`); an empty stdin answers no.
pub fn ask(o: &mut Outcome, stdin: &Stdin, question: &str) -> bool {
    o.err(question);
    stdin
        .read_line()
        .is_some_and(|l| matches!(l.first(), Some(b'y' | b'Y')))
}
