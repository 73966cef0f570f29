//! `tail [OPTION]... [FILE]...`, GNU coreutils: the last lines or bytes of each file, or
//! everything from line/byte N on (`-n +N`, `-c +N`). The end of a file is found by seeking
//! and reading backwards in chunks (see [`crate::text::headtail`]), so a huge file costs bounded
//! memory; a pipe is read once, keeping only what may still be part of the tail (up to the
//! session's hold cap: past it `memory exhausted`, status 1). The obsolete `-N[bcl][f]` / `+N...` forms are accepted where GNU accepts them.
//!
//! Following (`-f`, `-F`, `--follow`) would never end here: the normal tail is printed, then
//! one line per followable file says following is not supported, status 1. Standard input is
//! a pipe and is not followed, as in GNU.

use std::ffi::{OsStr, OsString};
use std::io::{Read, SeekFrom};
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::argmatch::argmatch;
use crate::support::args::parse_args;
use crate::support::input::{names_stdin, operands_or_stdin};
use crate::support::size::parse_size;
use crate::text::headtail::{
    CHUNK, copy_range, digit_option, header, last_lines_start, length, open_error, read_failure,
    size_error,
};
use crate::text::lines::EXHAUSTED;
use crate::{Ctx, FileKind, FsError, Outcome, ReadSeek, quote};

const NOT_SUPPORTED: &str = "following is not supported in this shell";

/// Print the last 10 lines of each FILE to standard output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "tail [OPTION]... [FILE]...")]
pub struct TailArgs {
    /// output the last NUM bytes; or use -c +NUM to output starting with byte NUM of each file
    #[arg(short = 'c', long = "bytes", value_name = "[+]NUM", action = clap::ArgAction::Append, overrides_with = "lines")]
    bytes: Vec<OsString>,
    /// output appended data as the file grows (not supported here)
    #[arg(short = 'f', long = "follow", value_name = "HOW", num_args = 0..=1, default_missing_value = "descriptor")]
    follow: Option<String>,
    /// same as --follow=name --retry
    #[arg(short = 'F')]
    follow_name: bool,
    /// output the last NUM lines, instead of the last 10; or use -n +NUM to skip NUM-1 lines at the start
    #[arg(short = 'n', long = "lines", value_name = "[+]NUM", action = clap::ArgAction::Append, overrides_with = "bytes")]
    lines: Vec<OsString>,
    /// with --follow=name, reopen a FILE which has not changed size after N iterations
    #[arg(long = "max-unchanged-stats", value_name = "N")]
    max_unchanged_stats: Option<String>,
    /// with -f, terminate after process ID, PID dies
    #[arg(long = "pid", value_name = "PID")]
    pid: Option<String>,
    /// never output headers giving file names
    #[arg(
        short = 'q',
        long = "quiet",
        alias = "silent",
        overrides_with = "verbose"
    )]
    quiet: bool,
    /// keep trying to open a file if it is inaccessible
    #[arg(long = "retry")]
    retry: bool,
    /// with -f, sleep for approximately N seconds between iterations
    #[arg(short = 's', long = "sleep-interval", value_name = "N")]
    sleep: Option<String>,
    /// always output headers giving file names
    #[arg(short = 'v', long = "verbose", overrides_with = "quiet")]
    verbose: bool,
    /// line delimiter is NUL, not newline
    #[arg(short = 'z', long = "zero-terminated")]
    zero: bool,
    files: Vec<OsString>,
}

/// What to print of each input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Count {
    lines: bool,
    /// From unit N on (`+N`), rather than the last N.
    from_start: bool,
    n: u64,
}

/// GNU's `parse_obsolete_option`: `-N[bcl][f]` or `+N[bcl][f]` as the only option, with at
/// most one file operand. `None`: not the obsolete form.
fn obsolete(args: &[OsString]) -> Option<Result<(Count, bool), Stop>> {
    let first = args.first()?.as_bytes();
    let second = args.get(1).map(|a| a.as_bytes());
    let shape_ok = match args.len() {
        1 => true,
        2 => {
            second.is_some_and(|s| !(s.len() > 1 && s.first() == Some(&b'-')))
                || second == Some(b"--")
        }
        3 => second == Some(b"--"),
        _ => false,
    };
    if !shape_ok {
        return None;
    }
    let from_start = match first.first() {
        Some(b'+') => true,
        Some(b'-') => {
            let body = first.get(1..).unwrap_or_default();
            let probe = usize::from(body.first() == Some(&b'c'));
            body.get(probe)?;
            false
        }
        _ => return None,
    };
    let body = first.get(1..).unwrap_or_default();
    let digits = body.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut p = digits;
    let mut lines = true;
    let mut default = 10u64;
    match body.get(p) {
        Some(b'b') => {
            default *= 512;
            lines = false;
            p += 1;
        }
        Some(b'c') => {
            lines = false;
            p += 1;
        }
        Some(b'l') => p += 1,
        _ => {}
    }
    let mut follow = false;
    if body.get(p) == Some(&b'f') {
        follow = true;
        p += 1;
    }
    if p != body.len() {
        return None;
    }
    let n = if digits == 0 {
        default
    } else {
        let number = body.get(..digits).unwrap_or_default();
        let mut n = 0u64;
        for &d in number {
            match n
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(d - b'0')))
            {
                Some(v) => n = v,
                None => {
                    return Some(Err(Stop::Fail(format!(
                        "invalid number: {}: Numerical result out of range",
                        quote(OsStr::from_bytes(first))
                    ))));
                }
            }
        }
        if body.get(digits) == Some(&b'b') {
            match n.checked_mul(512) {
                Some(v) => n = v,
                None => {
                    return Some(Err(Stop::Fail(format!(
                        "invalid number: {}: Numerical result out of range",
                        quote(OsStr::from_bytes(first))
                    ))));
                }
            }
        }
        n
    };
    Some(Ok((
        Count {
            lines,
            from_start,
            n,
        },
        follow,
    )))
}

/// Parses `-n`/`-c` values in order; a leading `+` anywhere makes GNU count from the start.
fn parse_count(values: &[OsString], lines: bool, count: &mut Count) -> Result<(), Stop> {
    for v in values {
        let b = v.as_bytes();
        let digits = if b.first() == Some(&b'+') {
            count.from_start = true;
            b
        } else {
            b.strip_prefix(b"-").unwrap_or(b)
        };
        match parse_size(digits) {
            Ok(n) => {
                count.lines = lines;
                count.n = n;
            }
            Err(e) => return Err(size_error(lines, digits, e)),
        }
    }
    Ok(())
}

/// `--follow=HOW`, as GNU's `XARGMATCH`.
fn follow_mode(how: &str) -> Result<(), Stop> {
    argmatch("--follow", how, &[("descriptor", 0u8), ("name", 1)]).map(|_| ())
}

/// Checks the values of the options that only matter when following.
fn check_follow_values(a: &TailArgs) -> Result<(), Stop> {
    if let Some(s) = &a.sleep
        && !s.trim_start().parse::<f64>().is_ok_and(|v| v >= 0.0)
    {
        return Err(Stop::Fail(format!(
            "invalid number of seconds: {}",
            quote(s)
        )));
    }
    if let Some(p) = &a.pid
        && parse_size(p.as_bytes()).is_err()
    {
        return Err(Stop::Fail(format!("invalid PID: {}", quote(p))));
    }
    if let Some(m) = &a.max_unchanged_stats
        && parse_size(m.as_bytes()).is_err()
    {
        return Err(Stop::Fail(format!(
            "invalid maximum number of unchanged stats between opens: {}",
            quote(m)
        )));
    }
    Ok(())
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut count = Count {
        lines: true,
        from_start: false,
        n: 10,
    };
    let mut follow = false;
    let mut rest = args;
    match obsolete(args) {
        Some(Ok((c, f))) => {
            count = c;
            follow = f;
            rest = args.get(1..).unwrap_or_default();
        }
        Some(Err(stop)) => return Err(stop),
        None => {}
    }
    if let Some(d) = digit_option(
        rest,
        "cfFnqsvz",
        "cns",
        &[
            "bytes",
            "lines",
            "sleep-interval",
            "pid",
            "max-unchanged-stats",
        ],
    ) {
        return Err(Stop::Fail(format!("option used in invalid context -- {d}")));
    }
    let a = parse_args::<TailArgs>(rest)?;
    if let Some(how) = &a.follow {
        follow_mode(how)?;
    }
    parse_count(&a.bytes, false, &mut count)?;
    parse_count(&a.lines, true, &mut count)?;
    check_follow_values(&a)?;
    follow |= a.follow.is_some() || a.follow_name;
    let retry = a.retry || a.follow_name;
    let by_descriptor = a
        .follow
        .as_deref()
        .is_some_and(|h| "descriptor".starts_with(h))
        && !a.follow_name;
    if count.from_start {
        count.n = count.n.saturating_sub(1);
    }
    let eol = if a.zero { 0 } else { b'\n' };
    let mut o = Outcome::ok();
    if retry && !follow {
        o.err("tail: warning: --retry ignored; --retry is useful only when following\n");
    } else if a.retry && by_descriptor {
        o.err("tail: warning: --retry only effective for the initial open\n");
    }
    if a.pid.is_some() && !follow {
        o.err("tail: warning: PID ignored; --pid=PID is useful only when following\n");
    }
    let files = operands_or_stdin(a.files);
    let show_headers = if a.quiet {
        false
    } else {
        a.verbose || files.len() > 1
    };
    let mut status = 0;
    let mut first = true;
    let mut followable: Vec<&OsString> = Vec::new();
    let mut waiting = false;
    for name in &files {
        let is_stdin = name == "-" || names_stdin(ctx, name);
        let mut reader: Box<dyn ReadSeek + '_> = if is_stdin {
            Box::new(ctx.stdin.seekable())
        } else {
            match ctx.fs.open(&ctx.resolve(name)) {
                Ok(r) => r,
                Err(e) => {
                    o.err(open_error(ctx.name, name, &e));
                    status = 1;
                    waiting |= retry;
                    continue;
                }
            }
        };
        if show_headers {
            header(&mut o, &mut first, name);
        }
        let kind = if is_stdin {
            FileKind::File
        } else {
            ctx.fs
                .stat(&ctx.resolve(name), true)
                .map_or(FileKind::File, |m| m.kind)
        };
        let result = if kind == FileKind::Dir {
            Err(FsError::IsADirectory)
        } else if is_stdin || kind.is_special() {
            // A pipe or a fifo cannot seek: read once, holding only what may still be part
            // of the tail, as GNU reads a pipe.
            match tail_stream(reader.as_mut(), count, eol, &mut o, ctx) {
                Err(Failure::Exhausted) => {
                    o.err(format!("{}: {EXHAUSTED}\n", ctx.name));
                    return Ok(o.with_status(1));
                }
                Err(Failure::Read(e)) => Err(e),
                Ok(()) => Ok(()),
            }
        } else {
            tail_one(reader.as_mut(), count, eol, &mut o, ctx)
        };
        match result {
            Ok(()) => {
                if !is_stdin {
                    followable.push(name);
                }
            }
            Err(e) => {
                o.err(read_failure(ctx.name, name, &e));
                status = 1;
                if follow && kind == FileKind::Dir {
                    o.err(format!(
                        "{}: {}: cannot follow end of this type of file; giving up on this name\n",
                        ctx.name,
                        crate::quote_if_needed(name)
                    ));
                }
            }
        }
    }
    if follow {
        if followable.is_empty() && !waiting {
            if files.iter().any(|f| f != "-") {
                o.err("tail: no files remaining\n");
                status = 1;
            }
        } else {
            let names: Vec<&OsString> = if followable.is_empty() {
                files.iter().filter(|f| *f != "-").collect()
            } else {
                followable
            };
            for name in names {
                o.err(format!(
                    "{}: cannot follow {}: {NOT_SUPPORTED}\n",
                    ctx.name,
                    quote(name)
                ));
            }
            status = 1;
        }
    }
    Ok(o.with_status(status))
}

/// Why reading a stream's tail stopped.
enum Failure {
    Read(FsError),
    /// The tail to hold is larger than the session's hold cap.
    Exhausted,
}

/// The tail of a stream that cannot seek (stdin, a fifo), read once: only the chunks that
/// may still hold part of the last `n` lines (or bytes) are kept, as GNU's `pipe_lines`
/// does, up to the session's hold cap (past it: `memory exhausted`).
fn tail_stream(
    r: &mut dyn Read,
    count: Count,
    eol: u8,
    o: &mut Outcome,
    ctx: &Ctx,
) -> Result<(), Failure> {
    let n = count.n;
    if count.from_start {
        if count.lines {
            return skip_lines(r, n, eol, o, ctx).map_err(Failure::Read);
        }
        let mut skip = n;
        let mut buf = vec![0u8; CHUNK];
        loop {
            let got = read_some(r, &mut buf)?;
            if got == 0 {
                return Ok(());
            }
            let chunk = buf.get(..got).unwrap_or_default();
            let from = usize::try_from(skip.min(got as u64)).unwrap_or(got);
            skip -= from as u64;
            o.out(chunk.get(from..).unwrap_or_default());
            if !ctx.flush(o) {
                return Ok(());
            }
        }
    }
    if n == 0 {
        return Ok(());
    }
    let hold = ctx.hold_bytes();
    // Chunks with their count of delimiters, and the totals.
    let mut kept: std::collections::VecDeque<(Vec<u8>, u64)> = std::collections::VecDeque::new();
    let (mut total, mut eols) = (0u64, 0u64);
    loop {
        let mut buf = vec![0u8; CHUNK];
        let got = read_some(r, &mut buf)?;
        if got == 0 {
            break;
        }
        buf.truncate(got);
        let c = memchr::memchr_iter(eol, &buf).count() as u64;
        total += got as u64;
        eols += c;
        kept.push_back((buf, c));
        while let Some((front, fe)) = kept.front() {
            let rest_bytes = total - front.len() as u64;
            let not_needed = if count.lines {
                eols - fe > n
            } else {
                rest_bytes >= n
            };
            if !not_needed {
                break;
            }
            total = rest_bytes;
            eols -= fe;
            kept.pop_front();
        }
        if total > hold {
            return Err(Failure::Exhausted);
        }
        if ctx.expired() {
            return Ok(());
        }
    }
    let mut all = Vec::new();
    if all
        .try_reserve(usize::try_from(total).unwrap_or(usize::MAX))
        .is_err()
    {
        return Err(Failure::Exhausted);
    }
    for (c, _) in kept {
        all.extend_from_slice(&c);
    }
    let len = all.len() as u64;
    let mut cur = std::io::Cursor::new(all);
    let start = if count.lines {
        last_lines_start(&mut cur, len, n, eol).map_err(Failure::Read)?
    } else {
        len.saturating_sub(n)
    };
    copy_range(&mut cur, start, len, o, ctx).map_err(Failure::Read)
}

/// One read, retried when interrupted.
fn read_some(r: &mut dyn Read, buf: &mut [u8]) -> Result<usize, Failure> {
    loop {
        match r.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Failure::Read(FsError::from_io(&e))),
        }
    }
}

/// Prints the tail of one seekable input.
fn tail_one(
    r: &mut dyn ReadSeek,
    count: Count,
    eol: u8,
    o: &mut Outcome,
    ctx: &Ctx,
) -> Result<(), FsError> {
    match count {
        Count {
            from_start: true,
            lines: true,
            n,
        } => {
            r.seek(SeekFrom::Start(0))
                .map_err(|e| FsError::from_io(&e))?;
            skip_lines(r, n, eol, o, ctx)
        }
        Count {
            from_start: true,
            lines: false,
            n,
        } => {
            let len = length(r)?;
            copy_range(r, n, len, o, ctx)
        }
        Count {
            from_start: false,
            lines,
            n,
        } => {
            let len = length(r)?;
            let start = if lines {
                last_lines_start(r, len, n, eol)?
            } else {
                len.saturating_sub(n)
            };
            copy_range(r, start, len, o, ctx)
        }
    }
}

/// Skips `n` lines, then prints the rest, in chunks.
fn skip_lines(
    r: &mut dyn Read,
    n: u64,
    eol: u8,
    o: &mut Outcome,
    ctx: &Ctx,
) -> Result<(), FsError> {
    let mut left = n;
    let mut buf = vec![0u8; CHUNK];
    loop {
        let got = r.read(&mut buf).map_err(|e| FsError::from_io(&e))?;
        if got == 0 {
            return Ok(());
        }
        let chunk = buf.get(..got).unwrap_or_default();
        if left == 0 {
            o.out(chunk);
            if !ctx.flush(o) {
                return Ok(());
            }
            continue;
        }
        for (i, &c) in chunk.iter().enumerate() {
            if c == eol {
                left -= 1;
                if left == 0 {
                    o.out(chunk.get(i + 1..).unwrap_or_default());
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {

    use crate::testing::world::{World, text, texts};

    fn world() -> World {
        World::new(texts())
    }

    fn tail(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Tail, args))
    }

    #[test]
    fn counts() {
        // Expected outputs from GNU coreutils 9.1, LC_ALL=C, on the same files.
        let w = world();
        assert_eq!(tail(&w, &["-n", "2", "lines.txt"]).0, "line 29\nline 30\n");
        assert_eq!(tail(&w, &["-2", "lines.txt"]).0, "line 29\nline 30\n");
        assert_eq!(
            tail(&w, &["+28", "lines.txt"]).0,
            "line 28\nline 29\nline 30\n"
        );
        assert_eq!(tail(&w, &["-n+2", "colon.txt"]).0, "d:e:f\ng\n1:2:3:4\n");
        assert_eq!(tail(&w, &["-c", "5", "nonl.txt"]).0, "t end");
        assert_eq!(tail(&w, &["-c", "+5", "nonl.txt"]).0, "ewline at end");
        assert_eq!(tail(&w, &["-3c", "nonl.txt"]).0, "end");
        assert_eq!(tail(&w, &["-n", "+0", "nonl.txt"]).0, "no newline at end");
        assert_eq!(
            tail(&w, &["-n", "-+3", "lines.txt"]).0,
            "line 28\nline 29\nline 30\n"
        );
        assert_eq!(tail(&w, &["-l", "lines.txt"]).0.lines().count(), 10);
        let w = world().stdin(b"a\nb\nc");
        assert_eq!(tail(&w, &["-n", "2"]).0, "b\nc");
    }

    #[test]
    fn errors_and_headers() {
        // GNU coreutils 9.1, LC_ALL=C.
        let w = world();
        assert_eq!(
            tail(&w, &["-n", "1", "d", "nope", "lines.txt"]),
            (
                "==> d <==\n\n==> lines.txt <==\nline 30\n".into(),
                "tail: error reading 'd': Is a directory\ntail: cannot open 'nope' for reading: No such file or directory\n".into(),
                1
            )
        );
        assert_eq!(
            tail(&w, &["-2", "lines.txt", "nonl.txt"]).1,
            "tail: option used in invalid context -- 2\n"
        );
        assert_eq!(
            tail(&w, &["-c", "2x", "lines.txt"]).1,
            "tail: invalid number of bytes: '2x'\n"
        );
        assert_eq!(
            tail(&w, &["-n", "+-3", "lines.txt"]).1,
            "tail: invalid number of lines: '+-3'\n"
        );
        assert_eq!(
            tail(&w, &["--follow=x", "nonl.txt"]).1,
            "tail: invalid argument 'x' for '--follow'\nValid arguments are:\n  - 'descriptor'\n  - 'name'\nTry 'tail --help' for more information.\n"
        );
        assert_eq!(
            tail(&w, &["--pid=1", "-n1", "nonl.txt"]),
            (
                "no newline at end".into(),
                "tail: warning: PID ignored; --pid=PID is useful only when following\n".into(),
                0
            )
        );
    }

    #[test]
    fn follow_never_hangs() {
        let w = world().stdin(b"hi\n");
        assert_eq!(
            tail(&w, &["-f", "-n1", "nonl.txt"]),
            (
                "no newline at end".into(),
                "tail: cannot follow 'nonl.txt': following is not supported in this shell\n".into(),
                1
            )
        );
        // `echo hi | tail -f`: a pipe is not followed (GNU exits 0).
        assert_eq!(tail(&w, &["-f"]), ("hi\n".into(), String::new(), 0));
        // GNU: `tail -f d` gives up on the directory; `tail -n 1 -f nope` has nothing left.
        assert_eq!(
            tail(&w, &["-f", "d"]).1,
            "tail: error reading 'd': Is a directory\ntail: d: cannot follow end of this type of file; giving up on this name\ntail: no files remaining\n"
        );
        assert_eq!(
            tail(&w, &["-n", "1", "-f", "nope"]).1,
            "tail: cannot open 'nope' for reading: No such file or directory\ntail: no files remaining\n"
        );
    }

    #[test]
    fn a_pipe_is_read_once_keeping_only_the_tail() {
        // Expectations from GNU tail 9.1 on the same stdin (30 000 lines, no final newline).
        let mut data = String::new();
        for i in 1..=30_000 {
            let _ = std::fmt::Write::write_fmt(&mut data, format_args!("line {i}\n"));
        }
        data.push_str("tail");
        let w = World::new(texts()).stdin(data.as_bytes());
        assert_eq!(tail(&w, &["-n", "3"]).0, "line 29999\nline 30000\ntail");
        assert_eq!(tail(&w, &["-c", "5"]).0, "\ntail");
        assert_eq!(
            tail(&w, &["-n", "+29999"]).0,
            "line 29999\nline 30000\ntail"
        );
        assert_eq!(tail(&w, &["-c", "+240000"]).0.len(), 78_899);
        assert_eq!(tail(&w, &["-n", "1"]).0, "tail");
        assert_eq!(tail(&w, &["-z", "-n", "1"]).0.len(), data.len());
        assert_eq!(tail(&w, &["-n", "0"]).0, "");
        assert_eq!(tail(&w, &["-c", "300000"]).0.len(), 300_000);
    }
}
