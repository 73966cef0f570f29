//! `date [OPTION]... [+FORMAT]`, GNU coreutils 9.1: prints the session's time (`Ctx::now`), a
//! parsed date (`-d`, each line of `-f`), or a file's mtime (`-r`), in `+FORMAT`, ISO 8601
//! (`-I`), RFC 5322 (`-R`) or RFC 3339 form. Parsing and formatting live in
//! [`crate::support::datetime`]; time zones are fixed offsets from the exported `TZ` (a named zone such
//! as `Europe/Paris` is treated as UTC; see that module).
//!
//! Setting the clock (`-s`, `date MMDDhhmm[[CC]YY][.ss]`) is refused as the kernel refuses an
//! unprivileged user: `date: cannot set date: Operation not permitted`, then the date is
//! printed anyway and the status is 1, exactly as GNU does without `CAP_SYS_TIME`.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::argmatch::argmatch;
use crate::support::args::parse_args;
use crate::support::datetime::to_epoch;
use crate::support::datetime::{
    Zone, broken_down, parse_datetime, parse_stamp, session_zone, strftime,
};
use crate::support::input::open_input;
use crate::{Ctx, FsError, Outcome, quote_if_needed, quote_locale};

const DEFAULT_FORMAT: &[u8] = b"%a %b %e %H:%M:%S %Z %Y";
const MULTIPLE: &str = "multiple output formats specified";
const EXCLUSIVE: &str = "the options to specify dates for printing are mutually exclusive";
const PRINT_AND_SET: &str = "the options to print and set the time may not be used together";
const CANNOT_SET: &str = "date: cannot set date: Operation not permitted\n";

/// Display the current time in the given FORMAT, or set the system date.
#[derive(clap::Parser, Debug)]
#[command(
    override_usage = "date [OPTION]... [+FORMAT]\n  or:  date [-u|--utc|--universal] [MMDDhhmm[[CC]YY][.ss]]"
)]
pub struct DateArgs {
    /// display time described by STRING, not 'now'
    #[arg(short = 'd', long = "date", value_name = "STRING")]
    date: Option<OsString>,
    /// like --date; once for each line of DATEFILE
    #[arg(short = 'f', long = "file", value_name = "DATEFILE")]
    file: Option<OsString>,
    /// output date/time in ISO 8601 format (FMT: 'date', 'hours', 'minutes', 'seconds', 'ns')
    #[arg(
        short = 'I',
        long = "iso-8601",
        value_name = "FMT",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "date",
        action = clap::ArgAction::Append
    )]
    iso: Vec<String>,
    /// output date and time in RFC 5322 format
    #[arg(short = 'R', long = "rfc-email", visible_alias = "rfc-2822", alias = "rfc-822", action = clap::ArgAction::Count)]
    rfc_email: u8,
    /// output date/time in RFC 3339 format (FMT: 'date', 'seconds', 'ns')
    #[arg(long = "rfc-3339", value_name = "FMT", action = clap::ArgAction::Append)]
    rfc_3339: Vec<String>,
    /// display the last modification time of FILE
    #[arg(short = 'r', long = "reference", value_name = "FILE")]
    reference: Option<OsString>,
    /// set time described by STRING (refused: the sandbox cannot change the clock)
    #[arg(short = 's', long = "set", value_name = "STRING")]
    set: Option<OsString>,
    /// print or set Coordinated Universal Time (UTC)
    #[arg(short = 'u', long = "utc", visible_alias = "universal")]
    utc: bool,
    operands: Vec<OsString>,
}

/// GNU's short `-I` takes an optional attached value (`-Iseconds`), which the shared getopt
/// does not know: rewrite it as the long option before parsing.
fn normalize_iso(args: &[OsString]) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut takes_next = false;
    let mut done = false;
    for a in args {
        let b = a.as_bytes();
        if done || takes_next {
            takes_next = false;
            out.push(a.clone());
            continue;
        }
        if b == b"--" {
            done = true;
        } else if let Some(rest) = b.strip_prefix(b"-I") {
            let mut s = OsString::from("--iso-8601");
            if !rest.is_empty() {
                s.push("=");
                s.push(OsStr::from_bytes(rest));
            }
            out.push(s);
            continue;
        } else if b.len() == 2 && matches!(b, [b'-', b'd' | b'f' | b'r' | b's']) {
            takes_next = true;
        }
        out.push(a.clone());
    }
    out
}

/// One date, formatted, with its newline.
fn show(secs: i64, nsec: u32, zone: &Zone, format: &[u8]) -> Vec<u8> {
    let mut line = strftime(format, &broken_down(secs, nsec, zone));
    line.push(b'\n');
    line
}

fn invalid_date(s: &OsStr) -> String {
    format!("invalid date {}", quote_locale(s))
}

fn parse_os(s: &OsStr, ctx: &Ctx, zone: &Zone) -> Option<(i64, u32)> {
    parse_datetime(s.to_str()?, ctx.now, zone)
}

/// `date MMDDhhmm[[CC]YY][.ss]` as `touch -t` spells it: `[[CC]YY]MMDDhhmm[.ss]`.
fn posix_time(s: &OsStr, ctx: &Ctx, offset: i64) -> Option<(i64, u32)> {
    let s = s.to_str()?;
    let (main, secs) = match s.split_once('.') {
        Some((m, ss)) => (m, Some(ss)),
        None => (s, None),
    };
    if main.len() < 8 {
        return None;
    }
    let (head, year) = main.split_at(8);
    let mut stamp = format!("{year}{head}");
    if let Some(ss) = secs {
        stamp.push('.');
        stamp.push_str(ss);
    }
    parse_stamp(&stamp, ctx.now, offset).map(to_epoch)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<DateArgs>(&normalize_iso(args))?;
    let zone = if a.utc {
        Zone::utc()
    } else {
        session_zone(ctx)
    };
    // The output format from the options, in GNU's order of checks.
    let mut format: Option<Vec<u8>> = None;
    for v in &a.iso {
        let f: &[u8] = argmatch(
            "--iso-8601",
            v,
            &[
                ("hours", b"%Y-%m-%dT%H%:z".as_slice()),
                ("minutes", b"%Y-%m-%dT%H:%M%:z"),
                ("date", b"%Y-%m-%d"),
                ("seconds", b"%Y-%m-%dT%H:%M:%S%:z"),
                ("ns", b"%Y-%m-%dT%H:%M:%S,%N%:z"),
            ],
        )?;
        if format.is_some() {
            return Err(Stop::Fail(MULTIPLE.into()));
        }
        format = Some(f.to_vec());
    }
    for v in &a.rfc_3339 {
        let f: &[u8] = argmatch(
            "--rfc-3339",
            v,
            &[
                ("date", b"%Y-%m-%d".as_slice()),
                ("seconds", b"%Y-%m-%d %H:%M:%S%:z"),
                ("ns", b"%Y-%m-%d %H:%M:%S.%N%:z"),
            ],
        )?;
        if format.is_some() {
            return Err(Stop::Fail(MULTIPLE.into()));
        }
        format = Some(f.to_vec());
    }
    for _ in 0..a.rfc_email {
        if format.is_some() {
            return Err(Stop::Fail(MULTIPLE.into()));
        }
        format = Some(b"%a, %d %b %Y %H:%M:%S %z".to_vec());
    }
    let specified = usize::from(a.date.is_some())
        + usize::from(a.file.is_some())
        + usize::from(a.reference.is_some());
    if specified > 1 {
        return Err(Stop::Usage(EXCLUSIVE.into()));
    }
    if a.set.is_some() && specified > 0 {
        return Err(Stop::Usage(PRINT_AND_SET.into()));
    }
    if let Some(extra) = a.operands.get(1) {
        return Err(Stop::Usage(format!(
            "extra operand {}",
            quote_locale(extra)
        )));
    }
    let mut set_operand = None;
    if let Some(op) = a.operands.first() {
        if let Some(f) = op.as_bytes().strip_prefix(b"+") {
            if format.is_some() {
                return Err(Stop::Fail(MULTIPLE.into()));
            }
            format = Some(f.to_vec());
        } else if a.set.is_some() || specified > 0 {
            return Err(Stop::Usage(format!(
                "the argument {} lacks a leading '+';\nwhen using an option to specify date(s), any non-option\nargument must be a format string beginning with '+'",
                quote_locale(op)
            )));
        } else {
            set_operand = Some(op);
        }
    }
    let format = format.unwrap_or_else(|| DEFAULT_FORMAT.to_vec());
    let mut o = Outcome::ok();
    if let Some(file) = &a.file {
        return Ok(batch(ctx, file, &zone, &format));
    }
    let when = if let Some(r) = &a.reference {
        match ctx.fs.stat(&ctx.resolve(r), true) {
            Ok(m) => to_epoch(m.mtime),
            Err(e) => return Err(Stop::Fail(format!("{}: {e}", quote_if_needed(r)))),
        }
    } else if let Some(s) = a.date.as_ref().or(a.set.as_ref()) {
        match parse_os(s, ctx, &zone) {
            Some(t) => t,
            None => return Err(Stop::Fail(invalid_date(s))),
        }
    } else if let Some(op) = set_operand {
        match posix_time(op, ctx, zone.offset) {
            Some(t) => t,
            None => return Err(Stop::Fail(invalid_date(op))),
        }
    } else {
        to_epoch(ctx.now)
    };
    let mut status = 0;
    if a.set.is_some() || set_operand.is_some() {
        o.err(CANNOT_SET);
        status = 1;
    }
    o.out(show(when.0, when.1, &zone, &format));
    Ok(o.with_status(status))
}

/// `-f DATEFILE`: one date per line; a bad line is reported and the rest still printed.
fn batch(ctx: &Ctx, file: &OsStr, zone: &Zone, format: &[u8]) -> Outcome {
    let mut o = Outcome::ok();
    let mut data = Vec::new();
    let read = open_input(ctx, file)
        .and_then(|mut r| r.read_to_end(&mut data).map_err(|e| FsError::from_io(&e)));
    match read {
        Ok(_) => {}
        // GNU 9.1 treats a read error (a directory) as the end of the input, silently.
        Err(crate::FsError::IsADirectory) => return o,
        Err(e) => {
            o.err(format!("{}: {}: {e}\n", ctx.name, quote_if_needed(file)));
            return o.with_status(1);
        }
    }
    let mut status = 0;
    let body = data.strip_suffix(b"\n").unwrap_or(&data);
    if data.is_empty() {
        return o;
    }
    for line in body.split(|&b| b == b'\n') {
        let line = OsStr::from_bytes(line);
        if let Some((s, n)) = parse_os(line, ctx, zone) {
            o.out(show(s, n, zone, format));
        } else {
            o.err(format!("{}: {}\n", ctx.name, invalid_date(line)));
            status = 1;
        }
    }
    o.with_status(status)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .dir("/s/d")
                .file("/s/f", b"")
                .times(
                    "/s/f",
                    SystemTime::UNIX_EPOCH,
                    SystemTime::UNIX_EPOCH + Duration::from_secs(1_709_208_000),
                )
                .file("/s/dates", b"@0\nfoo\n2024-02-29 12:00\n"),
        )
    }

    fn date(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Date, args))
    }

    fn ok(out: &str) -> (String, String, i32) {
        (out.into(), String::new(), 0)
    }

    #[test]
    fn now_in_formats() {
        // ctx.now is 2024-01-02 03:04:05 UTC; expected text from
        // `TZ=UTC date -d @1704164645 ...`, GNU coreutils 9.1, LC_ALL=C.
        let w = world();
        assert_eq!(date(&w, &[]), ok("Tue Jan  2 03:04:05 UTC 2024\n"));
        assert_eq!(
            date(
                &w,
                &["+%F %T %s %j %a %A %b %B %u %w %U %W %V %G %y %C %e %-d %_H %I %p"]
            ),
            ok(
                "2024-01-02 03:04:05 1704164645 002 Tue Tuesday Jan January 2 2 00 01 01 2024 24 20  2 2  3 03 AM\n"
            )
        );
        assert_eq!(date(&w, &["-I"]), ok("2024-01-02\n"));
        assert_eq!(date(&w, &["-Iseconds"]), ok("2024-01-02T03:04:05+00:00\n"));
        assert_eq!(date(&w, &["--iso-8601=m"]), ok("2024-01-02T03:04+00:00\n"));
        assert_eq!(date(&w, &["-Ih"]), ok("2024-01-02T03+00:00\n"));
        assert_eq!(
            date(&w, &["-Ins"]),
            ok("2024-01-02T03:04:05,000000000+00:00\n")
        );
        assert_eq!(date(&w, &["-R"]), ok("Tue, 02 Jan 2024 03:04:05 +0000\n"));
        assert_eq!(
            date(&w, &["--rfc-3339=ns"]),
            ok("2024-01-02 03:04:05.000000000+00:00\n")
        );
        assert_eq!(
            date(&w, &["--rfc-3339=s"]),
            ok("2024-01-02 03:04:05+00:00\n")
        );
        assert_eq!(date(&w, &["--rfc-3339=date"]), ok("2024-01-02\n"));
        // Relative to ctx.now (GNU's rules: a relative item keeps the time of day, a day
        // name goes to midnight), as GNU 9.1 computes them from its own clock.
        assert_eq!(
            date(&w, &["-d", "yesterday", "+%F %T"]),
            ok("2024-01-01 03:04:05\n")
        );
        assert_eq!(
            date(&w, &["-d", "next friday", "+%F %T"]),
            ok("2024-01-05 00:00:00\n")
        );
        assert_eq!(
            date(&w, &["-d", "2 hours ago", "+%F %T"]),
            ok("2024-01-02 01:04:05\n")
        );
    }

    #[test]
    fn zones() {
        // `TZ=... date -d @0`, GNU 9.1 (glibc without the named zone's file: UTC, `Foo`).
        let est = world().var("TZ", "EST5", true);
        assert_eq!(
            date(&est, &["-d", "@0"]),
            ok("Wed Dec 31 19:00:00 EST 1969\n")
        );
        assert_eq!(
            date(&est, &["-u", "-d", "@0"]),
            ok("Thu Jan  1 00:00:00 UTC 1970\n")
        );
        assert_eq!(
            date(&est, &["-d", "1970-01-01", "+%s %z"]),
            ok("18000 -0500\n")
        );
        let named = world().var("TZ", "Foo/Bar", true);
        assert_eq!(
            date(&named, &["-d", "@0"]),
            ok("Thu Jan  1 00:00:00 Foo 1970\n")
        );
        let quoted = world().var("TZ", "<+05>-5", true);
        assert_eq!(
            date(&quoted, &["-d", "@0", "+%H %Z %:z"]),
            ok("05 +05 +05:00\n")
        );
        // Not exported: a real `date` would not see it.
        let local = world().var("TZ", "EST5", false);
        assert_eq!(date(&local, &["-d", "@0", "+%H"]), ok("00\n"));
    }

    #[test]
    fn reference_and_batch() {
        let w = world();
        assert_eq!(date(&w, &["-r", "f", "+%s"]), ok("1709208000\n"));
        assert_eq!(
            date(&w, &["-r", "nope"]),
            (
                String::new(),
                "date: nope: No such file or directory\n".into(),
                1
            )
        );
        assert_eq!(
            date(&w, &["-f", "dates", "+%F %T"]),
            (
                "1970-01-01 00:00:00\n2024-02-29 12:00:00\n".into(),
                "date: invalid date 'foo'\n".into(),
                1
            )
        );
        assert_eq!(
            date(&w, &["-f", "nope"]),
            (
                String::new(),
                "date: nope: No such file or directory\n".into(),
                1
            )
        );
        // GNU 9.1: a directory reads as an empty file.
        assert_eq!(date(&w, &["-f", "d"]), ok(""));
        let w = world().stdin(b"@86400\n");
        assert_eq!(date(&w, &["-f", "-", "+%F"]), ok("1970-01-02\n"));
    }

    #[test]
    fn setting_is_refused() {
        // As an unprivileged user (`setpriv --reuid=65534 date ...`), GNU 9.1.
        let w = world();
        assert_eq!(
            date(&w, &["-s", "2024-01-01"]),
            (
                "Mon Jan  1 00:00:00 UTC 2024\n".into(),
                "date: cannot set date: Operation not permitted\n".into(),
                1
            )
        );
        assert_eq!(
            date(&w, &["0101000024.30"]),
            (
                "Mon Jan  1 00:00:30 UTC 2024\n".into(),
                "date: cannot set date: Operation not permitted\n".into(),
                1
            )
        );
        assert_eq!(
            date(&w, &["01010000"]),
            (
                "Mon Jan  1 00:00:00 UTC 2024\n".into(),
                "date: cannot set date: Operation not permitted\n".into(),
                1
            )
        );
        assert_eq!(
            date(&w, &["13010000"]),
            (String::new(), "date: invalid date '13010000'\n".into(), 1)
        );
        assert_eq!(
            date(&w, &["-s", "foo"]),
            (String::new(), "date: invalid date 'foo'\n".into(), 1)
        );
    }

    #[test]
    fn errors_as_gnu() {
        let w = world();
        let try_help = "Try 'date --help' for more information.\n";
        let cases: &[(&[&str], String)] = &[
            (&["-d", "foo"], "date: invalid date 'foo'\n".into()),
            (
                &["-Ix"],
                format!(
                    "date: invalid argument 'x' for '--iso-8601'\nValid arguments are:\n  - 'hours'\n  - 'minutes'\n  - 'date'\n  - 'seconds'\n  - 'ns'\n{try_help}"
                ),
            ),
            (
                &["--rfc-3339=x"],
                format!(
                    "date: invalid argument 'x' for '--rfc-3339'\nValid arguments are:\n  - 'date'\n  - 'seconds'\n  - 'ns'\n{try_help}"
                ),
            ),
            (
                &["--rfc-3339"],
                format!("date: option '--rfc-3339' requires an argument\n{try_help}"),
            ),
            (
                &["-I", "-R"],
                "date: multiple output formats specified\n".into(),
            ),
            (
                &["-R", "+%s"],
                "date: multiple output formats specified\n".into(),
            ),
            (
                &["-I", "-I"],
                "date: multiple output formats specified\n".into(),
            ),
            (
                &["+%s", "+%s"],
                format!("date: extra operand '+%s'\n{try_help}"),
            ),
            (
                &["-d", "@0", "x"],
                format!(
                    "date: the argument 'x' lacks a leading '+';\nwhen using an option to specify date(s), any non-option\nargument must be a format string beginning with '+'\n{try_help}"
                ),
            ),
            (
                &["-d", "@0", "-r", "f"],
                format!(
                    "date: the options to specify dates for printing are mutually exclusive\n{try_help}"
                ),
            ),
            (
                &["-d", "@0", "-s", "@0"],
                format!(
                    "date: the options to print and set the time may not be used together\n{try_help}"
                ),
            ),
            (
                &["-d"],
                format!("date: option requires an argument -- 'd'\n{try_help}"),
            ),
            (&["-x"], format!("date: invalid option -- 'x'\n{try_help}")),
        ];
        for (args, err) in cases {
            assert_eq!(date(&w, args), (String::new(), err.clone(), 1), "{args:?}");
        }
    }
}
