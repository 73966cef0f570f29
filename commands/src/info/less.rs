//! `less` 590 when its output is not a terminal: the files (or stdin) copied as they are,
//! options ignored; a missing file or a directory is reported (on stdout, as less does)
//! and skipped, status 0. The
//! emulation never pages ([`super::pager`]).

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use super::pager;
use crate::Stop;
use crate::{Ctx, FsError, Outcome};

/// Options of less that take a value (`-x4`, `-x 4`).
const WITH_VALUE: &[u8] = b"bhjkoOpPtTxyz#";

#[allow(clippy::unnecessary_wraps)] // the command table's handler signature
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut files: Vec<OsString> = Vec::new();
    let mut it = args.iter();
    let mut options_done = false;
    while let Some(a) = it.next() {
        let b = a.as_bytes();
        if !options_done && b == b"--" {
            options_done = true;
            continue;
        }
        if !options_done && b.len() > 1 && b.starts_with(b"-") && !b.starts_with(b"--") {
            if let Some(&last) = b.last()
                && b.len() == 2
                && WITH_VALUE.contains(&last)
            {
                it.next();
            }
            continue;
        }
        if !options_done && (b.starts_with(b"--") || b.starts_with(b"+")) {
            continue;
        }
        files.push(a.clone());
    }
    let mut o = Outcome::ok();
    if files.is_empty() {
        files.push("-".into());
    }
    for f in &files {
        if pager::is_dir(ctx, f) {
            o.out(format!("{} is a directory\n", f.to_string_lossy()));
            continue;
        }
        match pager::copy(ctx, f, &mut o) {
            Ok(true) => {}
            Ok(false) => return Ok(o),
            Err(e) => {
                let e = if e == FsError::IsADirectory {
                    "is a directory".to_string()
                } else {
                    e.strerror().to_string()
                };
                o.out(format!("{}: {e}\n", f.to_string_lossy()));
            }
        }
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Less;
    use crate::testing::world::{World, text, texts};

    #[test]
    fn copies_as_cat() {
        let w = World::new(texts());
        let (out, err, status) = text(&w.run(Less, &["-N", "nope"]));
        assert_eq!((err.as_str(), status), ("", 0));
        assert_eq!(out, "nope: No such file or directory\n");
        let w = World::empty().stdin(b"x\ny\n");
        assert_eq!(text(&w.run(Less, &[])).0, "x\ny\n");
    }
}
