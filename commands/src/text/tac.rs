//! `tac [OPTION]... [FILE]...`, GNU coreutils 9.1: each input's records in reverse order.
//! A record ends with the separator (`\n`, or `-s STRING`), or starts with it under `-b`;
//! the last one may lack it and is printed as it is (`printf 'a\nb' | tac` is `ba\n`). Each
//! input is read whole, as GNU does with a pipe; the output streams. `-r` is not supported.

use std::ffi::OsString;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::input::{open_input, operands_or_stdin};
use crate::text::lines::{EXHAUSTED, RecordError, Sink, read_held};
use crate::{Ctx, FsError, Outcome, quote, quote_if_needed};

/// Write each FILE to standard output, last line first.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "tac [OPTION]... [FILE]...")]
pub struct TacArgs {
    /// attach the separator before instead of after
    #[arg(short = 'b', long = "before")]
    before: bool,
    /// interpret the separator as a regular expression
    #[arg(short = 'r', long = "regex")]
    regex: bool,
    /// use STRING as the separator instead of newline
    #[arg(short = 's', long = "separator", value_name = "STRING")]
    separator: Option<OsString>,
    files: Vec<OsString>,
}

/// Where each record starts, for a literal separator.
fn record_starts(data: &[u8], sep: &[u8], before: bool) -> Vec<usize> {
    let mut starts = vec![0];
    if sep.is_empty() {
        return starts;
    }
    let mut i = 0;
    while let Some(p) = find(data.get(i..).unwrap_or_default(), sep) {
        let at = i + p;
        let start = if before { at } else { at + sep.len() };
        if start != 0 && start < data.len() {
            starts.push(start);
        }
        i = at + sep.len();
    }
    starts.dedup();
    starts
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.len() == 1 {
        let b = needle.first().copied()?;
        return hay.iter().position(|&c| c == b);
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<TacArgs>(args)?;
    if a.regex {
        return Err(Stop::Fail("--regex is not supported here".into()));
    }
    let sep: Vec<u8> = a.separator.map_or_else(
        || b"\n".to_vec(),
        |s| std::os::unix::ffi::OsStrExt::as_bytes(s.as_os_str()).to_vec(),
    );
    let mut o = Outcome::ok();
    let mut sink = Sink::new();
    let mut status = 0;
    for name in &operands_or_stdin(a.files) {
        let mut data = Vec::new();
        let read = match open_input(ctx, name) {
            Ok(mut r) => match read_held(ctx, r.as_mut()) {
                Ok(d) => {
                    data = d;
                    Ok(())
                }
                Err(RecordError::Io(e)) => Err(e),
                Err(RecordError::TooLong) => {
                    sink.drain(&mut o);
                    o.err(format!("{}: {EXHAUSTED}\n", ctx.name));
                    return Ok(o.with_status(1));
                }
            },
            Err(e) => {
                sink.drain(&mut o);
                o.err(format!(
                    "tac: failed to open {} for reading: {}\n",
                    quote(name),
                    e.strerror()
                ));
                status = 1;
                continue;
            }
        };
        if let Err(e) = read {
            // GNU seeks its files: a directory fails there, with EINVAL.
            let why = match e {
                FsError::IsADirectory => "Invalid argument",
                e => e.strerror(),
            };
            sink.drain(&mut o);
            o.err(format!(
                "tac: {}: read error: {why}\n",
                quote_if_needed(name)
            ));
            status = 1;
            continue;
        }
        let starts = record_starts(&data, &sep, a.before);
        let mut end = data.len();
        for &start in starts.iter().rev() {
            sink.buf
                .extend_from_slice(data.get(start..end).unwrap_or_default());
            end = start;
            if !sink.poll(&mut o, ctx) {
                return Ok(o.with_status(status));
            }
        }
    }
    sink.drain(&mut o);
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {
    use crate::testing::world::{World, text, texts};

    fn tac(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Tac, args))
    }

    #[test]
    fn reverses_as_gnu() {
        // Expected outputs from GNU coreutils 9.1 tac, LC_ALL=C.
        let w = World::new(texts().file("/s/ab", b"a\nb").file("/s/ab2", b"a\nb\n"));
        assert_eq!(tac(&w, &["colon.txt"]).0, "1:2:3:4\ng\nd:e:f\na:b:c\n");
        assert_eq!(tac(&w, &["ab"]).0, "ba\n");
        assert_eq!(tac(&w, &["-b", "ab2"]).0, "\n\nba");
        assert_eq!(tac(&w, &["-s", "", "ab2"]).0, "a\nb\n");
        assert_eq!(
            tac(&w, &["-s", ":", "colon.txt"]).0,
            "4\n3:2:f\ng\n1:e:c\nd:b:a:"
        );
        let w = World::new(texts().file("/s/xy", b"aXYbXYc"));
        assert_eq!(tac(&w, &["-s", "XY", "xy"]).0, "cbXYaXY");
        assert_eq!(
            tac(&w, &["nope", "d", "xy"]),
            (
                "aXYbXYc".into(),
                "tac: failed to open 'nope' for reading: No such file or directory\n\
                 tac: d: read error: Invalid argument\n"
                    .into(),
                1
            )
        );
    }
}
