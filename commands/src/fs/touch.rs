//! `touch [OPTION]... FILE...`, GNU coreutils: one [`Op::Touch`] per operand (creating the
//! file unless `-c`). Missing parents are reported beforehand with GNU's text. Dates (`-d`,
//! `-t [[CC]YY]MMDDhhmm[.ss]`) are parsed by [`crate::support::datetime`], as `date -d` parses them.

use std::ffi::OsString;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::datetime::{parse_date, parse_stamp, tz_offset};
use crate::support::paths::{Overlay, parent_of};
use crate::{Ctx, Effect, FileKind, FsError, Op, Outcome, quote};

const MISSING: &str = "missing file operand";

/// Update the access and modification times of each FILE to the current time.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "touch [OPTION]... FILE...")]
pub struct TouchArgs {
    /// change only the access time
    #[arg(short = 'a')]
    access: bool,
    /// do not create any files
    #[arg(short = 'c', long = "no-create")]
    no_create: bool,
    /// parse STRING and use it instead of current time
    #[arg(short = 'd', long = "date", value_name = "STRING")]
    date: Option<String>,
    /// (ignored)
    #[arg(short = 'f')]
    force: bool,
    /// change only the modification time
    #[arg(short = 'm')]
    modification: bool,
    /// use this file's times instead of current time
    #[arg(short = 'r', long = "reference", value_name = "FILE")]
    reference: Option<OsString>,
    /// use `[[CC]YY]MMDDhhmm[.ss]` instead of current time
    #[arg(short = 't', value_name = "STAMP")]
    stamp: Option<String>,
    /// change the specified time: access/atime/use, or modify/mtime
    #[arg(long = "time", value_name = "WORD")]
    time: Option<String>,
    files: Vec<OsString>,
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<TouchArgs>(args)?;
    let (mut access, mut modify) = (a.access, a.modification);
    match a.time.as_deref() {
        None => {}
        Some("access" | "atime" | "use") => access = true,
        Some("modify" | "mtime") => modify = true,
        Some(other) => {
            return Err(Stop::Usage(format!(
                "invalid argument {} for '--time'\nValid arguments are:\n  - 'atime', 'access', 'use'\n  - 'mtime', 'modify'",
                quote(other)
            )));
        }
    }
    if a.files.is_empty() {
        return Err(Stop::Usage(MISSING.into()));
    }
    let offset = tz_offset(ctx);
    let invalid = |s: &str| {
        let mut o = Outcome::status(1);
        o.err(format!("{}: invalid date format {}\n", ctx.name, quote(s)));
        o
    };
    let (mut atime, mut mtime) = (ctx.now, ctx.now);
    if let Some(r) = &a.reference {
        match ctx.fs.stat(&ctx.resolve(r), true) {
            Ok(m) => (atime, mtime) = (m.atime, m.mtime),
            Err(e) => {
                let mut o = Outcome::status(1);
                o.err(format!(
                    "{}: failed to get attributes of {}: {e}\n",
                    ctx.name,
                    quote(r)
                ));
                return Ok(o);
            }
        }
    }
    if let Some(d) = &a.date {
        match parse_date(d, ctx.now, offset) {
            Some(t) => (atime, mtime) = (t, t),
            None => return Ok(invalid(d)),
        }
    }
    if let Some(s) = &a.stamp {
        match parse_stamp(s, ctx.now, offset) {
            Some(t) => (atime, mtime) = (t, t),
            None => return Ok(invalid(s)),
        }
    }
    // Neither -a nor -m: both times.
    let both = access == modify;
    let atime = (both || access).then_some(atime);
    let mtime = (both || modify).then_some(mtime);
    let mut o = Outcome::ok();
    let mut status = 0;
    let mut overlay = Overlay::default();
    for f in &a.files {
        // `touch -` touches stdout, which is not a file here.
        if f == "-" {
            continue;
        }
        let path = ctx.resolve(f);
        let exists =
            overlay.kind(ctx.fs, &path, true).is_ok() || overlay.kind(ctx.fs, &path, false).is_ok();
        if !exists {
            if a.no_create {
                continue;
            }
            let parent = match parent_of(&path) {
                Some(p) => overlay.kind(ctx.fs, &p, true),
                None => Err(FsError::NotFound),
            };
            let err = match parent {
                Ok(FileKind::Dir) => None,
                Ok(_) => Some(FsError::NotADirectory),
                Err(e) => Some(e),
            };
            if let Some(e) = err {
                o.err(format!("{}: cannot touch {}: {e}\n", ctx.name, quote(f)));
                status = 1;
                continue;
            }
            overlay.create(&path, FileKind::File);
        }
        let context = if exists {
            format!("{}: setting times of {}", ctx.name, quote(f))
        } else {
            format!("{}: cannot touch {}", ctx.name, quote(f))
        };
        o.effect(Effect::new(
            Op::Touch {
                path,
                atime,
                mtime,
                create: !a.no_create,
            },
            context,
        ));
    }
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::{Duration, SystemTime};

    use crate::Op;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{NOW, World, ops, text};

    #[allow(clippy::unnecessary_wraps)] // reads as the `Option` fields it fills
    fn at(secs: u64) -> Option<SystemTime> {
        Some(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
    }

    fn touch_op(p: &str, atime: Option<SystemTime>, mtime: Option<SystemTime>, create: bool) -> Op {
        Op::Touch {
            path: PathBuf::from(p),
            atime,
            mtime,
            create,
        }
    }

    fn world() -> World {
        World::new(MemFs::rooted("/s").dir("/s/d").file("/s/f", b"").times(
            "/s/f",
            SystemTime::UNIX_EPOCH + Duration::from_secs(5),
            SystemTime::UNIX_EPOCH + Duration::from_secs(7),
        ))
    }

    #[test]
    fn creates_and_sets_times() {
        let w = world();
        let now = at(NOW.as_secs());
        assert_eq!(
            ops(&w.run(crate::CommandName::Touch, &["f", "new", "new"])),
            [
                touch_op("/s/f", now, now, true),
                touch_op("/s/new", now, now, true),
                touch_op("/s/new", now, now, true)
            ]
        );
        assert_eq!(
            ops(&w.run(crate::CommandName::Touch, &["-c", "nope", "f"])),
            [touch_op("/s/f", now, now, false)]
        );
        assert_eq!(
            ops(&w.run(crate::CommandName::Touch, &["-a", "f"])),
            [touch_op("/s/f", now, None, true)]
        );
        assert_eq!(
            ops(&w.run(crate::CommandName::Touch, &["-m", "f"])),
            [touch_op("/s/f", None, now, true)]
        );
        assert_eq!(
            ops(&w.run(crate::CommandName::Touch, &["-r", "f", "d"])),
            [touch_op("/s/d", at(5), at(7), true)]
        );
    }

    #[test]
    fn dates_as_gnu() {
        // `touch -d/-t ... g; stat -c %y g` with GNU 9.1, TZ unset (UTC).
        let w = world();
        let one = |args: &[&str]| ops(&w.run(crate::CommandName::Touch, args));
        let t = at(1_577_934_240); // 2020-01-02 03:04:00
        assert_eq!(
            one(&["-d", "2020-01-02 03:04", "f"]),
            [touch_op("/s/f", t, t, true)]
        );
        assert_eq!(
            one(&["-t", "202001020304", "f"]),
            [touch_op("/s/f", t, t, true)]
        );
        assert_eq!(
            one(&["-t", "2001020304", "f"]),
            [touch_op("/s/f", t, t, true)]
        );
        let t5 = at(1_577_934_245);
        assert_eq!(
            one(&["-t", "202001020304.05", "f"]),
            [touch_op("/s/f", t5, t5, true)]
        );
        assert_eq!(
            one(&["-d", "2020-01-02T03:04:05", "f"]),
            [touch_op("/s/f", t5, t5, true)]
        );
        assert_eq!(
            one(&["-d", "@1577934245", "f"]),
            [touch_op("/s/f", t5, t5, true)]
        );
        let midnight = at(1_577_923_200);
        assert_eq!(
            one(&["-d", "2020-01-02", "f"]),
            [touch_op("/s/f", midnight, midnight, true)]
        );
        let y = at(NOW.as_secs() - 86_400);
        assert_eq!(
            one(&["-d", "yesterday", "f"]),
            [touch_op("/s/f", y, y, true)]
        );
        // `TZ=UTC-2`: local 03:04 is 01:04 UTC.
        let w = world().var("TZ", "UTC-2", true);
        let t = at(1_577_934_240 - 7200);
        assert_eq!(
            ops(&w.run(crate::CommandName::Touch, &["-d", "2020-01-02 03:04", "f"])),
            [touch_op("/s/f", t, t, true)]
        );
    }

    #[test]
    fn errors_as_gnu() {
        let w = world();
        let cases: &[(&[&str], &str)] = &[
            (&["-d", "foo", "f"], "touch: invalid date format 'foo'\n"),
            (&["-t", "x", "f"], "touch: invalid date format 'x'\n"),
            (
                &["-d", "2020-13-01", "f"],
                "touch: invalid date format '2020-13-01'\n",
            ),
            (
                &["nope/x"],
                "touch: cannot touch 'nope/x': No such file or directory\n",
            ),
            (&["f/x"], "touch: cannot touch 'f/x': Not a directory\n"),
            (
                &["-r", "nope", "f"],
                "touch: failed to get attributes of 'nope': No such file or directory\n",
            ),
            (
                &[],
                "touch: missing file operand\nTry 'touch --help' for more information.\n",
            ),
            (
                &["-d"],
                "touch: option requires an argument -- 'd'\nTry 'touch --help' for more information.\n",
            ),
        ];
        for (args, err) in cases {
            let o = w.run(crate::CommandName::Touch, args);
            assert_eq!(text(&o), (String::new(), (*err).to_string(), 1), "{args:?}");
            assert!(ops(&o).is_empty(), "{args:?}");
        }
    }
}
