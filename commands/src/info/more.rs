//! `more`, util-linux 2.38, when its output is not a terminal: each file after a
//! `::::::::::::::` header with its name (stdin copied as it is), a directory or a missing
//! file reported and skipped, status 0. The emulation never pages ([`super::pager`]).

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use super::pager;
use crate::Stop;
use crate::{Ctx, Outcome};

const RULE: &str = "::::::::::::::";

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
        if !options_done && b.starts_with(b"+") {
            continue;
        }
        if !options_done && b.starts_with(b"--") {
            match b {
                b"--lines" => {
                    it.next();
                }
                b"--silent" | b"--logical" | b"--no-pause" | b"--print-over" | b"--clean-print"
                | b"--squeeze" | b"--plain" => {}
                _ if b.starts_with(b"--lines=") => {}
                _ => {
                    return Err(Stop::Usage(format!(
                        "unrecognized option '{}'",
                        a.to_string_lossy()
                    )));
                }
            }
            continue;
        }
        if !options_done && b.len() > 1 && b.starts_with(b"-") {
            let rest = b.get(1..).unwrap_or_default();
            if rest.iter().all(u8::is_ascii_digit) {
                continue;
            }
            for (k, &c) in rest.iter().enumerate() {
                match c {
                    b'd' | b'l' | b'f' | b'p' | b'c' | b's' | b'u' => {}
                    b'n' => {
                        if k + 1 == rest.len() {
                            it.next();
                        }
                        break;
                    }
                    _ => {
                        return Err(Stop::Usage(format!(
                            "invalid option -- '{}'",
                            char::from(c)
                        )));
                    }
                }
            }
            continue;
        }
        files.push(a.clone());
    }
    let mut o = Outcome::ok();
    if files.is_empty() {
        pager::copy(ctx, "-".as_ref(), &mut o).ok();
        return Ok(o);
    }
    for f in &files {
        let name = f.to_string_lossy();
        if pager::is_dir(ctx, f) {
            o.out(format!("\n*** {name}: directory ***\n\n"));
            continue;
        }
        if let Err(e) = ctx.fs.open(&ctx.resolve(f)) {
            o.err(format!("more: cannot open {name}: {}\n", e.strerror()));
            continue;
        }
        o.out(format!("{RULE}\n{name}\n{RULE}\n"));
        match pager::copy(ctx, f, &mut o) {
            Ok(true) => {}
            Ok(false) => return Ok(o),
            Err(e) => {
                o.err(format!("more: {name}: {}\n", e.strerror()));
            }
        }
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::More;
    use crate::testing::world::{World, text};

    #[test]
    fn headers_as_util_linux() {
        let w = World::empty().stdin(b"x\n");
        assert_eq!(text(&w.run(More, &[])).0, "x\n");
        assert_eq!(
            text(&w.run(More, &["nope"])),
            (
                String::new(),
                "more: cannot open nope: No such file or directory\n".into(),
                0
            )
        );
        assert_eq!(text(&w.run(More, &["-Z"])).2, 1);
    }
}
