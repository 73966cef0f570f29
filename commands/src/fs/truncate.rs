//! `truncate [-co] [-s [+-<>/%]SIZE] [-r RFILE] FILE...`, GNU coreutils 9.1: one
//! [`Op::Truncate`] per file, the new length computed here from the view (the file's size,
//! or the reference file's). Block sizes (`-o`) are the sandbox's 4096.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::size::{SizeError, parse_size};
use crate::{Ctx, Effect, FileKind, FsError, Op, Outcome, quote};

/// The I/O block size `-o` counts in (`st_blksize` of the sandbox's filesystem).
const IO_BLOCK: u64 = 4096;

/// Shrink or extend the size of each FILE to the specified size
#[derive(clap::Parser, Debug)]
#[command(override_usage = "truncate OPTION... FILE...")]
pub struct TruncateArgs {
    /// do not create any files
    #[arg(short = 'c', long = "no-create")]
    no_create: bool,
    /// treat SIZE as number of IO blocks instead of bytes
    #[arg(short = 'o', long = "io-blocks")]
    io_blocks: bool,
    /// base size on RFILE
    #[arg(short = 'r', long = "reference", value_name = "RFILE")]
    reference: Option<OsString>,
    /// set or adjust the file size by SIZE bytes
    #[arg(
        short = 's',
        long = "size",
        value_name = "SIZE",
        allow_hyphen_values = true
    )]
    size: Option<OsString>,
    files: Vec<OsString>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rel {
    Set,
    Extend,
    Reduce,
    AtMost,
    AtLeast,
    RoundDown,
    RoundUp,
}

fn parse_spec(s: &OsString, blocks: bool) -> Result<(Rel, u64), Stop> {
    let b = s.as_bytes();
    let trimmed = b.trim_ascii_start();
    let (rel, rest) = match trimmed.split_first() {
        Some((b'+', r)) => (Rel::Extend, r),
        Some((b'-', r)) => (Rel::Reduce, r),
        Some((b'<', r)) => (Rel::AtMost, r),
        Some((b'>', r)) => (Rel::AtLeast, r),
        Some((b'/', r)) => (Rel::RoundDown, r),
        Some((b'%', r)) => (Rel::RoundUp, r),
        _ => (Rel::Set, trimmed),
    };
    let invalid = || Stop::Fail(format!("Invalid number: {}", quote(s)));
    if rest.trim_ascii_start().first() == Some(&b'-') {
        return Err(invalid());
    }
    let n = parse_size(rest).map_err(|e| match e {
        SizeError::Overflow => Stop::Fail(format!(
            "Invalid number: {}: Value too large for defined data type",
            quote(s)
        )),
        SizeError::Invalid => invalid(),
    })?;
    if i64::try_from(n).is_err() {
        return Err(Stop::Fail(format!(
            "Invalid number: {}: Value too large for defined data type",
            quote(s)
        )));
    }
    let n = if blocks {
        n.checked_mul(IO_BLOCK)
            .filter(|&v| i64::try_from(v).is_ok())
            .ok_or_else(|| {
                Stop::Fail(format!(
                    "Invalid number: {}: Value too large for defined data type",
                    quote(s)
                ))
            })?
    } else {
        n
    };
    if n == 0 && matches!(rel, Rel::RoundDown | Rel::RoundUp) {
        return Err(Stop::Fail("division by zero".into()));
    }
    Ok((rel, n))
}

fn new_len(rel: Rel, n: u64, cur: u64) -> Option<u64> {
    let v = match rel {
        Rel::Set => n,
        Rel::Extend => cur.checked_add(n)?,
        Rel::Reduce => cur.saturating_sub(n),
        Rel::AtMost => cur.min(n),
        Rel::AtLeast => cur.max(n),
        Rel::RoundDown => cur / n * n,
        Rel::RoundUp => cur.div_ceil(n).checked_mul(n)?,
    };
    i64::try_from(v).is_ok().then_some(v)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<TruncateArgs>(args)?;
    if a.size.is_none() && a.reference.is_none() {
        return Err(Stop::Usage(
            "you must specify either '--size' or '--reference'".into(),
        ));
    }
    let spec = a
        .size
        .as_ref()
        .map(|s| parse_spec(s, a.io_blocks))
        .transpose()?;
    if a.reference.is_some() && spec.is_some_and(|(r, _)| r == Rel::Set) {
        return Err(Stop::Usage(
            "you must specify a relative '--size' with '--reference'".into(),
        ));
    }
    if a.files.is_empty() {
        return Err(Stop::Usage("missing file operand".into()));
    }
    let ref_len = match &a.reference {
        None => None,
        Some(r) => match ctx.fs.stat(&ctx.resolve(r), true) {
            Ok(m) => Some(m.len),
            Err(e) => return Err(Stop::Fail(format!("cannot stat {}: {e}", quote(r)))),
        },
    };
    let mut o = Outcome::ok();
    let mut status = 0;
    for f in &a.files {
        let cannot = format!("truncate: cannot open {} for writing", quote(f));
        let path = if f.is_empty() {
            Err(FsError::NotFound)
        } else {
            Ok(ctx.resolve(f))
        };
        let meta = path.clone().and_then(|p| ctx.fs.stat(&p, true));
        let cur = match (&meta, &path) {
            (Ok(m), _) if m.kind == FileKind::Dir => {
                o.err(format!("{cannot}: {}\n", FsError::IsADirectory));
                status = 1;
                continue;
            }
            (Ok(m), _) => m.len,
            (Err(FsError::NotFound), Ok(_)) if a.no_create => continue,
            (Err(FsError::NotFound), Ok(p)) if ctx.fs.stat(p, false).is_err() => 0,
            (Err(e), _) => {
                o.err(format!("{cannot}: {e}\n"));
                status = 1;
                continue;
            }
        };
        let Ok(path) = path else { continue };
        let base = ref_len.unwrap_or(cur);
        let len = match spec {
            None => Some(base),
            Some((rel, n)) => new_len(rel, n, base),
        };
        let Some(len) = len else {
            o.err(format!(
                "truncate: overflow extending size of file {}\n",
                quote(f)
            ));
            status = 1;
            continue;
        };
        o.effect(Effect::new(
            Op::Truncate {
                path,
                len,
                create: !a.no_create,
            },
            cannot,
        ));
    }
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::CommandName::Truncate;
    use crate::Op;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .file("/s/f", b"12345")
                .file("/s/r", &[b'x'; 21])
                .dir("/s/d"),
        )
    }

    fn tr(p: &str, len: u64, create: bool) -> Op {
        Op::Truncate {
            path: PathBuf::from(p),
            len,
            create,
        }
    }

    #[test]
    fn sizes_as_gnu() {
        let w = world();
        let cases: &[(&str, u64)] = &[
            ("10", 10),
            ("+5", 10),
            ("-3", 2),
            ("-100", 0),
            ("<3", 3),
            ("<9", 5),
            (">20", 20),
            (">2", 5),
            ("/4", 4),
            ("%7", 7),
            ("1K", 1024),
            ("2KB", 2000),
            ("1KiB", 1024),
        ];
        for (s, len) in cases {
            assert_eq!(
                ops(&w.run(Truncate, &["-s", s, "f"])),
                [tr("/s/f", *len, true)],
                "{s}"
            );
        }
        assert_eq!(
            ops(&w.run(Truncate, &["-o", "-s", "2", "j"])),
            [tr("/s/j", 8192, true)]
        );
        assert_eq!(
            ops(&w.run(Truncate, &["-r", "r", "n"])),
            [tr("/s/n", 21, true)]
        );
        assert_eq!(
            ops(&w.run(Truncate, &["-s", "+1", "-r", "r", "f"])),
            [tr("/s/f", 22, true)]
        );
        assert_eq!(
            ops(&w.run(Truncate, &["-c", "-s", "3", "nope", "f"])),
            [tr("/s/f", 3, false)]
        );
    }

    #[test]
    fn errors_as_gnu() {
        let w = world();
        let cases: &[(&[&str], &str)] = &[
            (
                &["-s", "0", "d"],
                "truncate: cannot open 'd' for writing: Is a directory\n",
            ),
            (&["-s", "x", "f"], "truncate: Invalid number: 'x'\n"),
            (&["-s", "-r", "f"], "truncate: Invalid number: '-r'\n"),
            (
                &["f"],
                "truncate: you must specify either '--size' or '--reference'\nTry 'truncate --help' for more information.\n",
            ),
            (
                &["-r", "nope", "n"],
                "truncate: cannot stat 'nope': No such file or directory\n",
            ),
            (
                &["-s", "3"],
                "truncate: missing file operand\nTry 'truncate --help' for more information.\n",
            ),
            (
                &["-r", "f", "-s", "5", "f"],
                "truncate: you must specify a relative '--size' with '--reference'\nTry 'truncate --help' for more information.\n",
            ),
            (&["-s", "%0", "f"], "truncate: division by zero\n"),
            (
                &["-s", "99999999999999999999", "f"],
                "truncate: Invalid number: '99999999999999999999': Value too large for defined data type\n",
            ),
        ];
        for (args, err) in cases {
            let o = w.run(Truncate, args);
            assert_eq!(text(&o), (String::new(), (*err).to_string(), 1), "{args:?}");
            assert!(ops(&o).is_empty(), "{args:?}");
        }
    }
}
