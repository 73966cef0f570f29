//! `touch [OPTION]... FILE...`, GNU coreutils: one [`Op::Touch`] per operand (creating the
//! file unless `-c`). Missing parents are reported beforehand with GNU's text. Dates are
//! parsed here without a time crate: `@EPOCH`, `YYYY-MM-DD[ HH:MM[:SS]]`, `...THH:MM:SS`,
//! `now`, `yesterday`, `tomorrow`, and `-t [[CC]YY]MMDDhhmm[.ss]`, in UTC unless the session's
//! `TZ` is a fixed offset (`UTC-2`, `EST5`).

use std::ffi::OsString;
use std::time::{Duration, SystemTime};

use crate::args::{parse_args, usage_error};
use crate::paths::{Overlay, parent_of};
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

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Seconds since the epoch of a local wall-clock time, or `None` if a field is out of range.
fn epoch(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64, offset: i64) -> Option<i64> {
    if !(1..=12).contains(&mo)
        || d < 1
        || d > days_in_month(y, mo)
        || !(0..=23).contains(&h)
        || !(0..=59).contains(&mi)
        || !(0..=60).contains(&s)
    {
        return None;
    }
    Some(days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s - offset)
}

/// The session's UTC offset in seconds: 0, or the fixed offset of a POSIX `TZ` such as
/// `UTC-2` or `EST5` (whose sign is inverted: `EST5` is five hours behind UTC).
fn tz_offset(ctx: &Ctx) -> i64 {
    let Some(tz) = ctx.vars.get("TZ") else {
        return 0;
    };
    let tz = tz.trim_start_matches(':');
    let rest = tz.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    if rest.is_empty() || rest.len() == tz.len() {
        return 0;
    }
    let (sign, digits) = match rest.as_bytes()[0] {
        b'-' => (1, &rest[1..]),
        b'+' => (-1, &rest[1..]),
        _ => (-1, rest),
    };
    let mut parts = digits.split(':').map(|p| p.parse::<i64>().ok());
    match (parts.next().flatten(), parts.next()) {
        (Some(h), None) if h <= 24 => sign * h * 3600,
        (Some(h), Some(Some(m))) if h <= 24 && m < 60 => sign * (h * 3600 + m * 60),
        _ => 0,
    }
}

fn from_epoch(secs: i64, nanos: u32) -> SystemTime {
    let base = if secs >= 0 {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs.unsigned_abs())
    } else {
        SystemTime::UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs())
    };
    base + Duration::from_nanos(u64::from(nanos))
}

fn num(s: &str) -> Option<i64> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// Parses `-d STRING` (the common forms of GNU's `parse_datetime`).
#[allow(clippy::many_single_char_names)] // y, mo, d, h, mi: the date fields
fn parse_date(s: &str, now: SystemTime, offset: i64) -> Option<SystemTime> {
    let t = s.trim();
    let day = Duration::from_secs(86_400);
    match t.to_ascii_lowercase().as_str() {
        "now" | "today" => return Some(now),
        "yesterday" => return now.checked_sub(day),
        "tomorrow" => return now.checked_add(day),
        _ => {}
    }
    if let Some(e) = t.strip_prefix('@') {
        let (int, frac) = e.split_once('.').unwrap_or((e, ""));
        let (neg, digits) = match int.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, int.strip_prefix('+').unwrap_or(int)),
        };
        let secs = num(digits)?;
        let nanos = if frac.is_empty() {
            0
        } else {
            num(frac)?;
            format!("{frac:0<9}")[..9].parse::<u32>().ok()?
        };
        return Some(from_epoch(if neg { -secs } else { secs }, nanos));
    }
    // YYYY-MM-DD, then an optional time after a space or `T`, then an optional `Z`/`UTC`.
    let (date, time) = match t.find([' ', 'T']) {
        Some(i) => (&t[..i], t[i + 1..].trim()),
        None => (t, ""),
    };
    let mut d = date.split('-');
    let (y, mo, da) = (num(d.next()?)?, num(d.next()?)?, num(d.next()?)?);
    if d.next().is_some() {
        return None;
    }
    let (mut offset, time) = match time.strip_suffix('Z').or_else(|| time.strip_suffix("UTC")) {
        Some(rest) => (0, rest.trim()),
        None => (offset, time),
    };
    let (h, mi, sec, nanos) = if time.is_empty() {
        (0, 0, 0, 0)
    } else {
        let mut p = time.split(':');
        let h = num(p.next()?)?;
        let mi = num(p.next()?)?;
        let (sec, nanos) = match p.next() {
            None => (0, 0),
            Some(sv) => {
                let (si, frac) = sv.split_once('.').unwrap_or((sv, ""));
                let n = if frac.is_empty() {
                    0
                } else {
                    num(frac)?;
                    format!("{frac:0<9}")[..9].parse::<u32>().ok()?
                };
                (num(si)?, n)
            }
        };
        if p.next().is_some() {
            return None;
        }
        (h, mi, sec, nanos)
    };
    if time.is_empty() && t.len() != date.len() {
        offset = 0;
    }
    Some(from_epoch(epoch(y, mo, da, h, mi, sec, offset)?, nanos))
}

/// Parses `-t [[CC]YY]MMDDhhmm[.ss]`.
fn parse_stamp(s: &str, now: SystemTime, offset: i64) -> Option<SystemTime> {
    let (main, secs) = match s.split_once('.') {
        Some((m, ss)) if ss.len() == 2 => (m, num(ss)?),
        Some(_) => return None,
        None => (s, 0),
    };
    num(main)?;
    let field = |i: usize| main.get(i..i + 2).and_then(num);
    let now_year = {
        let secs = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64)
            + offset;
        // Year of a day count, inverting days_from_civil by search (cheap: a few steps).
        let days = secs.div_euclid(86_400);
        let mut y = 1970 + days / 366;
        while days_from_civil(y + 1, 1, 1) <= days {
            y += 1;
        }
        y
    };
    let (year, rest) = match main.len() {
        8 => (now_year, 0),
        10 => {
            let yy = field(0)?;
            (if yy >= 69 { 1900 + yy } else { 2000 + yy }, 2)
        }
        12 => (field(0)? * 100 + field(2)?, 4),
        _ => return None,
    };
    let (mo, d, h, mi) = (
        field(rest)?,
        field(rest + 2)?,
        field(rest + 4)?,
        field(rest + 6)?,
    );
    Some(from_epoch(epoch(year, mo, d, h, mi, secs, offset)?, 0))
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Outcome {
    let a = match parse_args::<TouchArgs>("touch", args, 1) {
        Ok(a) => a,
        Err(o) => return o,
    };
    let (mut access, mut modify) = (a.access, a.modification);
    match a.time.as_deref() {
        None => {}
        Some("access" | "atime" | "use") => access = true,
        Some("modify" | "mtime") => modify = true,
        Some(other) => {
            return usage_error(
                "touch",
                &format!(
                    "invalid argument {} for '--time'\nValid arguments are:\n  - 'atime', 'access', 'use'\n  - 'mtime', 'modify'",
                    quote(other)
                ),
                1,
            );
        }
    }
    if a.files.is_empty() {
        return usage_error("touch", MISSING, 1);
    }
    let offset = tz_offset(ctx);
    let invalid = |s: &str| {
        let mut o = Outcome::status(1);
        o.err(format!("touch: invalid date format {}\n", quote(s)));
        o
    };
    let (mut atime, mut mtime) = (ctx.now, ctx.now);
    if let Some(r) = &a.reference {
        match ctx.fs.stat(&ctx.resolve(r), true) {
            Ok(m) => (atime, mtime) = (m.atime, m.mtime),
            Err(e) => {
                let mut o = Outcome::status(1);
                o.err(format!(
                    "touch: failed to get attributes of {}: {e}\n",
                    quote(r)
                ));
                return o;
            }
        }
    }
    if let Some(d) = &a.date {
        match parse_date(d, ctx.now, offset) {
            Some(t) => (atime, mtime) = (t, t),
            None => return invalid(d),
        }
    }
    if let Some(s) = &a.stamp {
        match parse_stamp(s, ctx.now, offset) {
            Some(t) => (atime, mtime) = (t, t),
            None => return invalid(s),
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
                o.err(format!("touch: cannot touch {}: {e}\n", quote(f)));
                status = 1;
                continue;
            }
            overlay.create(&path, FileKind::File);
        }
        let context = if exists {
            format!("touch: setting times of {}", quote(f))
        } else {
            format!("touch: cannot touch {}", quote(f))
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
    o.with_status(status)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::{Duration, SystemTime};

    use crate::Op;
    use crate::memfs::MemFs;
    use crate::testutil::{NOW, World, ops, text};

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
            ops(&w.run(super::run, &["f", "new", "new"])),
            [
                touch_op("/s/f", now, now, true),
                touch_op("/s/new", now, now, true),
                touch_op("/s/new", now, now, true)
            ]
        );
        assert_eq!(
            ops(&w.run(super::run, &["-c", "nope", "f"])),
            [touch_op("/s/f", now, now, false)]
        );
        assert_eq!(
            ops(&w.run(super::run, &["-a", "f"])),
            [touch_op("/s/f", now, None, true)]
        );
        assert_eq!(
            ops(&w.run(super::run, &["-m", "f"])),
            [touch_op("/s/f", None, now, true)]
        );
        assert_eq!(
            ops(&w.run(super::run, &["-r", "f", "d"])),
            [touch_op("/s/d", at(5), at(7), true)]
        );
    }

    #[test]
    fn dates_as_gnu() {
        // `touch -d/-t ... g; stat -c %y g` with GNU 9.1, TZ unset (UTC).
        let w = world();
        let one = |args: &[&str]| ops(&w.run(super::run, args));
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
            ops(&w.run(super::run, &["-d", "2020-01-02 03:04", "f"])),
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
            let o = w.run(super::run, args);
            assert_eq!(text(&o), (String::new(), (*err).to_string(), 1), "{args:?}");
            assert!(ops(&o).is_empty(), "{args:?}");
        }
    }
}
