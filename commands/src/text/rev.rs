//! `rev [options] [file ...]`, util-linux 2.38: reverses each line's characters (bytes in the
//! C locale, where a byte above 127 is an invalid character that ends the file with
//! `rev: NAME: N: Invalid or incomplete multibyte or wide character`). `-` is a file name,
//! not stdin; stdin is read when there is no operand. Lines stream.

use std::ffi::{OsStr, OsString};
use std::io::Read;

use crate::Stop;
use crate::support::args::{help_of, parse_args};
use crate::support::input::open_input;
use crate::text::lines::{EXHAUSTED, RecordError, Records, Sink};
use crate::{Ctx, FsError, Outcome};

/// Reverse lines characterwise.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "rev [options] [file ...]")]
pub struct RevArgs {
    /// display this help
    #[arg(short = 'h', hide = true)]
    help: bool,
    /// display version
    #[arg(short = 'V', hide = true)]
    version: bool,
    files: Vec<OsString>,
}

const ILSEQ: &str = "Invalid or incomplete multibyte or wide character";

/// Why an input ended early.
enum Stopped {
    /// A diagnostic; the next file is read.
    Input(String),
    /// A line longer than the hold cap: `rev: memory exhausted`, and nothing more is read.
    Exhausted,
}

/// Reverses one input, one line held at a time (at most the session's hold cap).
fn rev_one(
    records: &mut Records,
    label: &str,
    sink: &mut Sink,
    o: &mut Outcome,
    ctx: &Ctx,
) -> Result<bool, Stopped> {
    let cap = usize::try_from(ctx.hold_bytes()).unwrap_or(usize::MAX);
    let mut line = Vec::new();
    let mut count = 0u64;
    loop {
        line.clear();
        match records.append_capped(&mut line, cap) {
            Ok(false) => return Ok(true),
            Ok(true) => {}
            Err(RecordError::TooLong) => return Err(Stopped::Exhausted),
            Err(RecordError::Io(e)) => {
                return Err(Stopped::Input(format!(
                    "rev: {label}: {count}: {}\n",
                    e.strerror()
                )));
            }
        }
        if line.iter().any(|&b| b >= 0x80) {
            return Err(Stopped::Input(format!("rev: {label}: {count}: {ILSEQ}\n")));
        }
        count += 1;
        // A NUL ends the line as `wcslen` sees it; what follows it is lost.
        let (body, newline) = match line.iter().position(|&b| b == 0) {
            Some(nul) => (line.get(..nul).unwrap_or_default(), false),
            None => match line.split_last() {
                Some((b'\n', body)) => (body, true),
                _ => (&line[..], false),
            },
        };
        sink.buf.extend(body.iter().rev());
        if newline {
            sink.buf.push(b'\n');
        }
        if !sink.poll(o, ctx) {
            return Ok(false);
        }
    }
}

fn open<'a>(ctx: &'a Ctx, name: &OsStr) -> Result<Box<dyn Read + 'a>, FsError> {
    if name == "-" {
        ctx.fs
            .open(&ctx.resolve(name))
            .map(|r| Box::new(r) as Box<dyn Read>)
    } else {
        open_input(ctx, name)
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<RevArgs>(args)?;
    if a.help {
        let mut o = Outcome::ok();
        o.out(help_of::<RevArgs>());
        return Ok(o);
    }
    if a.version {
        return Err(Stop::Version);
    }
    let mut o = Outcome::ok();
    let mut sink = Sink::new();
    let mut status = 0;
    if a.files.is_empty() {
        let mut records = Records::from_reader(Box::new(ctx.stdin), b'\n');
        match rev_one(&mut records, "stdin", &mut sink, &mut o, ctx) {
            Ok(_) => {}
            Err(Stopped::Input(msg)) => {
                sink.drain(&mut o);
                o.err(msg);
                status = 1;
            }
            Err(Stopped::Exhausted) => return Ok(exhausted(sink, o)),
        }
    }
    for name in &a.files {
        let mut records = match open(ctx, name) {
            Ok(r) => Records::from_reader(r, b'\n'),
            Err(e) => {
                sink.drain(&mut o);
                o.err(format!(
                    "rev: cannot open {}: {}\n",
                    name.to_string_lossy(),
                    e.strerror()
                ));
                status = 1;
                continue;
            }
        };
        match rev_one(
            &mut records,
            &name.to_string_lossy(),
            &mut sink,
            &mut o,
            ctx,
        ) {
            Ok(true) => {}
            Ok(false) => break,
            Err(Stopped::Input(msg)) => {
                sink.drain(&mut o);
                o.err(msg);
                status = 1;
            }
            Err(Stopped::Exhausted) => return Ok(exhausted(sink, o)),
        }
    }
    sink.drain(&mut o);
    Ok(o.with_status(status))
}

/// What was reversed so far, then `rev: memory exhausted` (status 1).
fn exhausted(mut sink: Sink, mut o: Outcome) -> Outcome {
    sink.drain(&mut o);
    o.err(format!("rev: {EXHAUSTED}\n"));
    o.with_status(1)
}

#[cfg(test)]
mod tests {
    use crate::testing::world::{World, text, texts};

    fn rev(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Rev, args))
    }

    #[test]
    fn reverses_as_util_linux() {
        // Expected outputs from util-linux 2.38.1 rev, LC_ALL=C.
        let w = World::new(texts().file("/s/hi", b"ok\n\xffab\nmore\n"));
        assert_eq!(rev(&w, &["colon.txt"]).0, "c:b:a\nf:e:d\ng\n4:3:2:1\n");
        assert_eq!(rev(&w, &["nonl.txt"]).0, "dne ta enilwen on");
        assert_eq!(
            rev(&w, &["hi", "nope", "d", "colon.txt"]),
            (
                "ko\nc:b:a\nf:e:d\ng\n4:3:2:1\n".into(),
                "rev: hi: 1: Invalid or incomplete multibyte or wide character\n\
                 rev: cannot open nope: No such file or directory\n\
                 rev: d: 0: Is a directory\n"
                    .into(),
                1
            )
        );
        let w = World::new(texts()).stdin(b"a\tb\r\nxy\0z\n");
        assert_eq!(rev(&w, &[]).0, "\rb\ta\nyx");
        assert_eq!(
            rev(&w, &["-"]).1,
            "rev: cannot open -: No such file or directory\n"
        );
    }
}
