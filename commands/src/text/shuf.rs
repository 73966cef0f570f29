//! `shuf [OPTION]... [FILE]`, `shuf -e [OPTION]... [ARG]...`, `shuf -i LO-HI [OPTION]...`,
//! GNU coreutils 9.1: a random permutation of the input lines, the operands or a range.
//!
//! The randomness is not the host's: a splitmix64 generator seeded from the time the command
//! runs at (`ctx.now`, so two runs in one session differ, as GNU's do), or, with
//! `--random-source=FILE`, from the bytes of FILE read through the view (the same file gives
//! the same permutation, as with GNU, though not GNU's permutation). Only the shape of the
//! output can be compared with GNU's. `-n` picks by a partial Fisher-Yates over indices, so
//! `-i 1-1000000000 -n 3` does not build the range; `-r` without `-n` repeats until the
//! output is no longer read.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::input::{open_input, operand_error};
use crate::text::lines::{EXHAUSTED, RecordError, read_held};
use crate::{CommandName, Ctx, Effect, Op, Outcome, quote};

/// Write a random permutation of the input lines to standard output.
#[derive(clap::Parser, Debug)]
#[command(
    override_usage = "shuf [OPTION]... [FILE]\n  or:  shuf -e [OPTION]... [ARG]...\n  \
                            or:  shuf -i LO-HI [OPTION]..."
)]
pub struct ShufArgs {
    /// treat each ARG as an input line
    #[arg(short = 'e', long = "echo")]
    echo: bool,
    /// treat each number LO through HI as an input line
    #[arg(short = 'i', long = "input-range", value_name = "LO-HI", action = clap::ArgAction::Append)]
    range: Vec<OsString>,
    /// output at most COUNT lines
    #[arg(short = 'n', long = "head-count", value_name = "COUNT")]
    count: Vec<OsString>,
    /// write result to FILE instead of standard output
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<OsString>,
    /// get random bytes from FILE
    #[arg(long = "random-source", value_name = "FILE")]
    random_source: Option<OsString>,
    /// output lines can be repeated
    #[arg(short = 'r', long = "repeat")]
    repeat: bool,
    /// line delimiter is NUL, not newline
    #[arg(short = 'z', long = "zero-terminated")]
    zero: bool,
    operands: Vec<OsString>,
}

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`), without modulo bias.
    fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let v = self.next();
            if v < zone {
                return v % n;
            }
        }
    }
}

/// xstrtoumax for the parts of `-i`: optional blanks, digits, nothing after.
fn number(s: &[u8]) -> Option<u64> {
    let t = s.trim_ascii_start();
    if t.is_empty() || !t.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(t).ok()?.parse().ok()
}

/// `-i LO-HI`: the range, or the part GNU quotes in its diagnostic.
fn range(arg: &[u8]) -> Result<(u64, u64), String> {
    let bad = |part: &[u8]| {
        format!(
            "invalid input range: {}",
            quote(std::ffi::OsStr::from_bytes(part))
        )
    };
    let (lo, hi) = match arg.iter().position(|&c| c == b'-') {
        Some(p) => (arg.get(..p).unwrap_or_default(), arg.get(p + 1..)),
        None => (arg, None),
    };
    let Some(l) = number(lo) else {
        return Err(bad(lo));
    };
    let Some(hi) = hi else {
        return Err(bad(lo));
    };
    let Some(h) = number(hi) else {
        return Err(bad(hi));
    };
    if h < l && h.checked_add(1) != Some(l) {
        return Err(bad(arg));
    }
    if l == 0 && h == u64::MAX {
        return Err(bad(arg));
    }
    Ok((l, h))
}

/// What is shuffled.
enum Items {
    Lines(Vec<Vec<u8>>),
    Range(u64, u64),
}

impl Items {
    fn len(&self) -> u64 {
        match self {
            Items::Lines(v) => v.len() as u64,
            Items::Range(lo, hi) => (hi + 1).saturating_sub(*lo),
        }
    }
    fn write(&self, i: u64, buf: &mut Vec<u8>) {
        match self {
            Items::Lines(v) => {
                if let Some(l) = usize::try_from(i).ok().and_then(|i| v.get(i)) {
                    buf.extend_from_slice(l);
                }
            }
            Items::Range(lo, _) => buf.extend_from_slice((lo + i).to_string().as_bytes()),
        }
    }
}

fn split_lines(data: &[u8], delim: u8) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = data.split(|&c| c == delim).map(<[u8]>::to_vec).collect();
    if data.last() == Some(&delim) || data.is_empty() {
        v.pop();
    }
    v
}

fn seed(ctx: &Ctx, source: Option<&OsString>) -> Result<u64, Stop> {
    let Some(name) = source else {
        let t = ctx
            .now
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        #[allow(clippy::cast_possible_truncation)]
        return Ok((t as u64) ^ ((t >> 64) as u64));
    };
    let mut buf = [0u8; 64];
    let mut got = 0;
    match open_input(ctx, name) {
        Ok(mut r) => {
            while got < buf.len() {
                match r.read(buf.get_mut(got..).unwrap_or_default()) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(e) => {
                        return Err(Stop::Fail(format!(
                            "{}: {}",
                            quote(name),
                            crate::FsError::from_io(&e)
                        )));
                    }
                }
            }
        }
        Err(e) => {
            return Err(Stop::Fail(format!("{}: {e}", quote(name))));
        }
    }
    if got == 0 {
        return Err(Stop::Fail(format!("{}: end of file", quote(name))));
    }
    // FNV-1a over what was read.
    Ok(buf
        .get(..got)
        .unwrap_or_default()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        }))
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<ShufArgs>(args)?;
    if a.range.len() > 1 {
        return Err(Stop::Fail("multiple -i options specified".into()));
    }
    let mut count: Option<u64> = None;
    for c in &a.count {
        match number(c.as_bytes()) {
            Some(n) => count = Some(count.map_or(n, |m: u64| m.min(n))),
            None => {
                return Err(Stop::Fail(format!("invalid line count: {}", quote(c))));
            }
        }
    }
    if a.echo && !a.range.is_empty() {
        return Err(Stop::Usage("cannot combine -e and -i options".into()));
    }
    let delim = if a.zero { b'\0' } else { b'\n' };
    let items = if let Some(r) = a.range.first() {
        if let Some(x) = a.operands.first() {
            return Err(Stop::Usage(format!("extra operand {}", quote(x))));
        }
        let (lo, hi) = range(r.as_bytes()).map_err(Stop::Fail)?;
        Items::Range(lo, hi)
    } else if a.echo {
        Items::Lines(a.operands.iter().map(|s| s.as_bytes().to_vec()).collect())
    } else {
        if let Some(x) = a.operands.get(1) {
            return Err(Stop::Usage(format!("extra operand {}", quote(x))));
        }
        let name = a.operands.first().cloned().unwrap_or_else(|| "-".into());
        let read = open_input(ctx, &name)
            .map_err(RecordError::Io)
            .and_then(|mut r| read_held(ctx, r.as_mut()));
        let data = match read {
            Ok(d) => d,
            Err(RecordError::Io(e)) => {
                let mut o = Outcome::status(1);
                o.err(operand_error(CommandName::Shuf, &name, &e));
                return Ok(o);
            }
            Err(RecordError::TooLong) => return Err(Stop::Fail(EXHAUSTED.into())),
        };
        Items::Lines(split_lines(&data, delim))
    };
    let mut rng = Rng(seed(ctx, a.random_source.as_ref())?);
    let total = items.len();
    let mut o = Outcome::ok();
    let to_file = a.output.is_some();
    let mut buf = Vec::new();
    if a.repeat {
        if total == 0 {
            if count == Some(0) {
                return Ok(o);
            }
            return Err(Stop::Fail("no lines to repeat".into()));
        }
        let mut left = count;
        while left != Some(0) {
            items.write(rng.below(total), &mut buf);
            buf.push(delim);
            left = left.map(|n| n - 1);
            if buf.len() < 8192 {
                continue;
            }
            if to_file {
                // Endless repetition into a file stops at 1 MiB.
                if left.is_none() && buf.len() >= 1 << 20 {
                    break;
                }
                continue;
            }
            o.out(std::mem::take(&mut buf));
            if !ctx.flush(&mut o) || (left.is_none() && ctx.spill.is_none()) {
                return Ok(o);
            }
        }
    } else {
        let n = count.map_or(total, |c| c.min(total));
        // Partial Fisher-Yates on a sparse view of the indices.
        let mut moved: HashMap<u64, u64> = HashMap::new();
        for i in 0..n {
            let j = i + rng.below(total - i);
            let vj = moved.get(&j).copied().unwrap_or(j);
            let vi = moved.get(&i).copied().unwrap_or(i);
            moved.insert(j, vi);
            items.write(vj, &mut buf);
            buf.push(delim);
            if buf.len() >= 8192 && !to_file {
                o.out(std::mem::take(&mut buf));
                if !ctx.flush(&mut o) {
                    return Ok(o);
                }
            }
        }
    }
    match &a.output {
        Some(f) => {
            o.effect(Effect::new(
                Op::WriteFile {
                    path: ctx.resolve(f),
                    data: buf,
                    append: false,
                },
                format!("shuf: {}", quote(f)),
            ));
        }
        None => {
            o.out(buf);
        }
    }
    Ok(o)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::CommandName::Shuf;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text};

    fn sorted(s: &str) -> Vec<String> {
        let mut v: Vec<String> = s.lines().map(String::from).collect();
        v.sort();
        v
    }

    #[test]
    fn permutes() {
        let w = World::new(MemFs::rooted("/s").file("/s/f", b"a\nb\nc"));
        assert_eq!(sorted(&text(&w.run(Shuf, &["f"])).0), ["a", "b", "c"]);
        assert_eq!(
            sorted(&text(&w.run(Shuf, &["-i", "1-5"])).0),
            ["1", "2", "3", "4", "5"]
        );
        assert_eq!(
            text(&w.run(Shuf, &["-n", "2", "-e", "x", "y", "z"]))
                .0
                .lines()
                .count(),
            2
        );
        assert_eq!(
            text(&w.run(Shuf, &["-i", "1-1000000000", "-n", "3"]))
                .0
                .lines()
                .count(),
            3
        );
        assert_eq!(
            text(&w.run(Shuf, &["-r", "-n", "5", "-e", "q"])).0,
            "q\nq\nq\nq\nq\n"
        );
        assert_eq!(text(&w.run(Shuf, &["-z", "-e", "q"])).0, "q\0");
        assert_eq!(text(&w.run(Shuf, &["-n", "0", "f"])).0, "");
        assert_eq!(text(&w.run(Shuf, &["-i", "5-4"])).0, "");
        let a = text(&w.run(Shuf, &["--random-source=f", "-i", "1-50"])).0;
        let b = text(&w.run(Shuf, &["--random-source=f", "-i", "1-50"])).0;
        assert_eq!(a, b);
        let o = w.run(Shuf, &["-o", "out", "-e", "z"]);
        assert_eq!(ops(&o).len(), 1);
    }

    #[test]
    fn errors() {
        let w = World::empty();
        let err = |args: &[&str]| text(&w.run(Shuf, args)).1;
        assert_eq!(err(&["-i", "5-1"]), "shuf: invalid input range: '5-1'\n");
        assert_eq!(err(&["-i", "1-a"]), "shuf: invalid input range: 'a'\n");
        assert_eq!(err(&["-i", "1"]), "shuf: invalid input range: '1'\n");
        assert_eq!(err(&["-i", "1-3x"]), "shuf: invalid input range: '3x'\n");
        assert_eq!(
            err(&["-n", "-1", "-e", "a"]),
            "shuf: invalid line count: '-1'\n"
        );
        assert_eq!(
            err(&["nofile"]),
            "shuf: nofile: No such file or directory\n"
        );
        assert_eq!(err(&["-r", "-e"]), "shuf: no lines to repeat\n");
        assert!(
            err(&["-e", "-i", "1-2"]).starts_with("shuf: cannot combine -e and -i options\nTry")
        );
        assert!(err(&["a", "b"]).starts_with("shuf: extra operand 'b'\nTry"));
        assert_eq!(
            err(&["-i", "1-2", "-i", "1-2"]),
            "shuf: multiple -i options specified\n"
        );
    }
}
