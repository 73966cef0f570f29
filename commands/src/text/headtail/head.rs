//! `head [OPTION]... [FILE]...`, GNU coreutils: the first lines or bytes of each file, or all
//! but the last ones (`-n -N`, `-c -N`). Reads stop as soon as the count is reached, so
//! `head -n 1` of a huge file reads one chunk; `-n -N` finds its cut point by reading the file
//! backwards (see [`crate::text::headtail`]), so memory stays bounded either way. The obsolete
//! `-N[bcklmqvz]` form is accepted as the first argument, as GNU does.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::input::{names_stdin, operands_or_stdin};
use crate::support::size::parse_size;
use crate::text::headtail::{
    CHUNK, copy_range, digit_option, header, last_lines_start, length, open_error, read_failure,
    size_error,
};
use crate::{Ctx, FileKind, FsError, Outcome, ReadSeek};

/// Print the first 10 lines of each FILE to standard output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "head [OPTION]... [FILE]...")]
pub struct HeadArgs {
    /// print the first NUM bytes of each file; with the leading '-', print all but the last NUM bytes of each file
    #[arg(short = 'c', long = "bytes", value_name = "[-]NUM", action = clap::ArgAction::Append, overrides_with = "lines")]
    bytes: Vec<OsString>,
    /// print the first NUM lines instead of the first 10; with the leading '-', print all but the last NUM lines of each file
    #[arg(short = 'n', long = "lines", value_name = "[-]NUM", action = clap::ArgAction::Append, overrides_with = "bytes")]
    lines: Vec<OsString>,
    /// never print headers giving file names
    #[arg(
        short = 'q',
        long = "quiet",
        alias = "silent",
        overrides_with = "verbose"
    )]
    quiet: bool,
    /// always print headers giving file names
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
    /// All but the last `n` (a leading `-`).
    elide: bool,
    n: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Headers {
    Auto,
    Never,
    Always,
}

/// The obsolete first argument `-N[bcklmqvz]...`: its count and flags, or the GNU error.
fn obsolete(
    arg: &[u8],
    count: &mut Count,
    headers: &mut Headers,
    zero: &mut bool,
) -> Result<(), Stop> {
    let body = arg.get(1..).unwrap_or_default();
    let digits = body.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut number = body.get(..digits).unwrap_or_default().to_vec();
    let mut multiplier = None;
    count.lines = true;
    for &c in body.get(digits..).unwrap_or_default() {
        match c {
            b'c' => {
                count.lines = false;
                multiplier = None;
            }
            b'b' | b'k' | b'm' => {
                count.lines = false;
                multiplier = Some(c);
            }
            b'l' => count.lines = true,
            b'q' => *headers = Headers::Never,
            b'v' => *headers = Headers::Always,
            b'z' => *zero = true,
            _ => {
                return Err(Stop::Usage(format!(
                    "invalid trailing option -- {}",
                    char::from(c)
                )));
            }
        }
    }
    number.extend(multiplier);
    match parse_size(&number) {
        Ok(n) => count.n = n,
        Err(e) => return Err(size_error(count.lines, &number, e)),
    }
    Ok(())
}

/// Parses `-n`/`-c` values in order, as GNU validates each one as it meets it.
fn parse_count(values: &[OsString], lines: bool, count: &mut Count) -> Result<(), Stop> {
    for v in values {
        let b = v.as_bytes();
        let (elide, digits) = match b.strip_prefix(b"-") {
            Some(rest) => (true, rest),
            None => (false, b),
        };
        match parse_size(digits) {
            Ok(n) => {
                *count = Count { lines, elide, n };
            }
            Err(e) => return Err(size_error(lines, digits, e)),
        }
    }
    Ok(())
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut count = Count {
        lines: true,
        elide: false,
        n: 10,
    };
    let mut headers = Headers::Auto;
    let mut zero = false;
    let mut rest = args;
    if let Some((first, tail)) = args.split_first() {
        let b = first.as_bytes();
        if b.len() > 1 && b.first() == Some(&b'-') && b.get(1).is_some_and(u8::is_ascii_digit) {
            obsolete(b, &mut count, &mut headers, &mut zero)?;
            rest = tail;
        }
    }
    if let Some(d) = digit_option(rest, "cnqvz", "cn", &["bytes", "lines"]) {
        return Err(Stop::Usage(format!("invalid trailing option -- {d}")));
    }
    let a = parse_args::<HeadArgs>(rest)?;
    parse_count(&a.bytes, false, &mut count)?;
    parse_count(&a.lines, true, &mut count)?;
    if a.quiet {
        headers = Headers::Never;
    } else if a.verbose {
        headers = Headers::Always;
    }
    zero |= a.zero;
    let eol = if zero { 0 } else { b'\n' };
    let files = operands_or_stdin(a.files);
    let show_headers = match headers {
        Headers::Auto => files.len() > 1,
        Headers::Never => false,
        Headers::Always => true,
    };
    let mut o = Outcome::ok();
    let mut status = 0;
    let mut first = true;
    for name in &files {
        let is_stdin = name == "-" || names_stdin(ctx, name);
        let mut reader: Box<dyn ReadSeek + '_> = if is_stdin {
            Box::new(ctx.stdin.seekable())
        } else {
            let path = ctx.resolve(name);
            match ctx.fs.open(&path) {
                Ok(r) => r,
                Err(e) => {
                    o.err(open_error(ctx.name, name, &e));
                    status = 1;
                    continue;
                }
            }
        };
        if show_headers {
            header(&mut o, &mut first, name);
        }
        let result = if !is_stdin
            && ctx
                .fs
                .stat(&ctx.resolve(name), true)
                .is_ok_and(|m| m.kind == FileKind::Dir)
        {
            Err(FsError::IsADirectory)
        } else {
            head_one(reader.as_mut(), count, eol, &mut o, ctx)
        };
        match result {
            Ok(_) => {}
            Err(e) => {
                o.err(read_failure(ctx.name, name, &e));
                status = 1;
            }
        }
    }
    Ok(o.with_status(status))
}

/// Prints the head of one input; returns how many bytes it consumed.
fn head_one(
    r: &mut dyn ReadSeek,
    count: Count,
    eol: u8,
    o: &mut Outcome,
    ctx: &Ctx,
) -> Result<u64, FsError> {
    match count {
        Count {
            elide: false,
            lines: true,
            n,
        } => first_lines(r, n, eol, o, ctx),
        Count {
            elide: false,
            lines: false,
            n,
        } => {
            let mut taken = r.take(n);
            let mut used = 0u64;
            let mut buf = vec![0u8; CHUNK];
            loop {
                let got = taken.read(&mut buf).map_err(|e| FsError::from_io(&e))?;
                if got == 0 {
                    return Ok(used);
                }
                o.out(buf.get(..got).unwrap_or_default());
                used += got as u64;
                if !ctx.flush(o) {
                    return Ok(used);
                }
            }
        }
        Count {
            elide: true,
            lines,
            n,
        } => {
            let len = length(r)?;
            let end = if lines {
                last_lines_start(r, len, n, eol)?
            } else {
                len.saturating_sub(n)
            };
            copy_range(r, 0, end, o, ctx)?;
            Ok(len)
        }
    }
}

/// Prints up to `n` lines, reading in chunks and stopping at the `n`th terminator.
fn first_lines(
    r: &mut dyn ReadSeek,
    n: u64,
    eol: u8,
    o: &mut Outcome,
    ctx: &Ctx,
) -> Result<u64, FsError> {
    let mut left = n;
    let mut used = 0u64;
    let mut buf = vec![0u8; CHUNK];
    while left > 0 {
        let got = r.read(&mut buf).map_err(|e| FsError::from_io(&e))?;
        if got == 0 {
            break;
        }
        let chunk = buf.get(..got).unwrap_or_default();
        let mut end = got;
        for (i, &c) in chunk.iter().enumerate() {
            if c == eol {
                left -= 1;
                if left == 0 {
                    end = i + 1;
                    break;
                }
            }
        }
        o.out(chunk.get(..end).unwrap_or_default());
        used += end as u64;
        if !ctx.flush(o) {
            break;
        }
    }
    Ok(used)
}

#[cfg(test)]
mod tests {

    use crate::testing::world::{World, text, texts};

    fn world() -> World {
        World::new(texts())
    }

    fn head(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Head, args))
    }

    #[test]
    fn counts() {
        // Expected outputs from GNU coreutils 9.1, LC_ALL=C, on the same files.
        let w = world();
        assert_eq!(head(&w, &["-n", "2", "lines.txt"]).0, "line 1\nline 2\n");
        assert_eq!(head(&w, &["-3", "lines.txt"]).0, "line 1\nline 2\nline 3\n");
        assert_eq!(head(&w, &["-3c", "lines.txt"]).0, "lin");
        assert_eq!(head(&w, &["-n", "-28", "lines.txt"]).0, "line 1\nline 2\n");
        assert_eq!(head(&w, &["-c", "-5", "nonl.txt"]).0, "no newline a");
        assert_eq!(head(&w, &["-n", "-0", "nonl.txt"]).0, "no newline at end");
        assert_eq!(head(&w, &["-n", "-1", "nonl.txt"]).0, "");
        assert_eq!(head(&w, &["-5", "-n2", "lines.txt"]).0, "line 1\nline 2\n");
        assert_eq!(
            head(&w, &["-c", "3", "-n", "2", "lines.txt"]).0,
            "line 1\nline 2\n"
        );
        assert_eq!(head(&w, &["--lines=2", "--bytes=3", "lines.txt"]).0, "lin");
        assert_eq!(head(&w, &["-n", "K", "lines.txt"]).0.lines().count(), 30);
    }

    #[test]
    fn headers_and_errors() {
        // GNU coreutils 9.1, LC_ALL=C.
        let w = world();
        assert_eq!(
            head(&w, &["-n1", "lines.txt", "d", "nope", "nonl.txt"]),
            (
                "==> lines.txt <==\nline 1\n\n==> d <==\n\n==> nonl.txt <==\nno newline at end"
                    .into(),
                "head: error reading 'd': Is a directory\nhead: cannot open 'nope' for reading: No such file or directory\n".into(),
                1
            )
        );
        assert_eq!(
            head(&w, &["-n1", "nonl.txt", "empty.txt", "lines.txt"]).0,
            "==> nonl.txt <==\nno newline at end\n==> empty.txt <==\n\n==> lines.txt <==\nline 1\n"
        );
        assert_eq!(
            head(&w, &["-n", "2x", "lines.txt"]).1,
            "head: invalid number of lines: '2x'\n"
        );
        assert_eq!(
            head(&w, &["-n", "1Y", "lines.txt"]).1,
            "head: invalid number of lines: '1Y': Value too large for defined data type\n"
        );
        assert_eq!(
            head(&w, &["lines.txt", "-3"]),
            (
                String::new(),
                "head: invalid trailing option -- 3\nTry 'head --help' for more information.\n"
                    .into(),
                1
            )
        );
        assert_eq!(
            head(&w, &["-3x", "lines.txt"]).1,
            "head: invalid trailing option -- x\nTry 'head --help' for more information.\n"
        );
    }

    #[test]
    fn stdin_is_read_on() {
        // `head -c 3 - - < nonl.txt`, GNU coreutils 9.1.
        let w = world().stdin(b"no newline at end");
        assert_eq!(
            head(&w, &["-c", "3", "-", "-"]).0,
            "==> standard input <==\nno \n==> standard input <==\nnew"
        );
    }
}
