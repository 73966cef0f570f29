//! `cmp [OPTION]... FILE1 [FILE2 [SKIP1 [SKIP2]]]`, GNU diffutils 3.8: compares two files
//! byte by byte (`-b -l -s -n LIMIT -i SKIP1[:SKIP2]`). Both inputs are read as streams, a
//! block at a time. Exit status 0 same, 1 different, 2 trouble.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;

use crate::support::args::parse_args;
use crate::support::input::open_input;
use crate::{Ctx, FsError, Outcome, Stop};

/// Compare two files byte by byte.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "cmp [OPTION]... FILE1 [FILE2 [SKIP1 [SKIP2]]]")]
pub struct CmpArgs {
    /// print differing bytes
    #[arg(short = 'b', long = "print-bytes")]
    print_bytes: bool,
    /// skip first SKIP bytes of both inputs (or SKIP1:SKIP2)
    #[arg(short = 'i', long = "ignore-initial", value_name = "SKIP")]
    ignore_initial: Option<OsString>,
    /// output byte numbers and differing byte values
    #[arg(short = 'l', long = "verbose")]
    verbose: bool,
    /// compare at most LIMIT bytes
    #[arg(short = 'n', long = "bytes", value_name = "LIMIT")]
    bytes: Option<OsString>,
    /// suppress all normal output
    #[arg(short = 's', long = "quiet", visible_alias = "silent")]
    silent: bool,
    operands: Vec<OsString>,
}

fn usage(msg: &str) -> Stop {
    Stop::FailWith(
        format!("{msg}\ncmp: Try 'cmp --help' for more information."),
        2,
    )
}

/// A byte count with the suffixes GNU's `xstrtoumax` takes (`kB`, `K`, `KiB`, `M`...);
/// too large saturates.
fn number(v: &[u8]) -> Option<u64> {
    let digits = v.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let n = v.get(..digits)?.iter().fold(0u64, |n, &d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    });
    let suffix = v.get(digits..).unwrap_or_default();
    if suffix.is_empty() {
        return Some(n);
    }
    let (unit, rest) = suffix.split_first()?;
    let power = match unit {
        b'b' if rest.is_empty() => return Some(n.saturating_mul(512)),
        b'c' if rest.is_empty() => return Some(n),
        b'w' if rest.is_empty() => return Some(n.saturating_mul(2)),
        b'k' | b'K' => 1,
        b'M' => 2,
        b'G' => 3,
        b'T' => 4,
        b'P' => 5,
        b'E' => 6,
        b'Z' => 7,
        b'Y' => 8,
        _ => return None,
    };
    let base: u64 = match rest {
        b"" | b"iB" => 1024,
        b"B" => 1000,
        _ => return None,
    };
    Some((0..power).fold(n, |n, _| n.saturating_mul(base)))
}

#[allow(clippy::many_single_char_names)]
fn skip_value(v: &OsStr) -> Result<(u64, Option<u64>), Stop> {
    let b = v.as_bytes();
    let bad = || {
        usage(&format!(
            "invalid --ignore-initial value '{}'",
            v.to_string_lossy()
        ))
    };
    match b.iter().position(|&c| c == b':') {
        Some(p) => {
            let x = number(b.get(..p).unwrap_or_default()).ok_or_else(bad)?;
            let y = number(b.get(p + 1..).unwrap_or_default()).ok_or_else(bad)?;
            Ok((x, Some(y)))
        }
        None => Ok((number(b).ok_or_else(bad)?, None)),
    }
}

/// `sprintc`: a byte as `cat -v` shows it.
fn sprintc(c: u8) -> String {
    let mut s = String::new();
    let mut c = c;
    if c >= 128 {
        s.push_str("M-");
        c -= 128;
    }
    if c < 32 {
        s.push('^');
        s.push(char::from(c + 64));
    } else if c == 127 {
        s.push_str("^?");
    } else {
        s.push(char::from(c));
    }
    s
}

/// A block reader over one operand.
struct Input<'a> {
    name: String,
    r: Box<dyn Read + 'a>,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
}

impl Input<'_> {
    /// The next byte, `None` at the end.
    fn next(&mut self) -> Result<Option<u8>, FsError> {
        if self.pos >= self.buf.len() {
            if self.eof {
                return Ok(None);
            }
            self.buf.resize(64 * 1024, 0);
            let n = loop {
                match self.r.read(&mut self.buf) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(FsError::from_io(&e)),
                }
            };
            self.buf.truncate(n);
            self.pos = 0;
            if n == 0 {
                self.eof = true;
                return Ok(None);
            }
        }
        let c = self.buf.get(self.pos).copied();
        self.pos += 1;
        Ok(c)
    }

    fn skip(&mut self, n: u64) -> Result<(), FsError> {
        for _ in 0..n {
            if self.next()?.is_none() {
                break;
            }
        }
        Ok(())
    }
}

#[allow(clippy::too_many_lines)]
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a: CmpArgs = parse_args(args).map_err(|e| match e {
        Stop::Usage(m) | Stop::UsageWith(m, _) => usage(&m),
        other => other,
    })?;
    let mut skips = [0u64, 0u64];
    if let Some(v) = &a.ignore_initial {
        let (x, y) = skip_value(v)?;
        skips = [x, y.unwrap_or(x)];
    }
    let limit = match &a.bytes {
        Some(v) => number(v.as_bytes())
            .ok_or_else(|| usage(&format!("invalid --bytes value '{}'", v.to_string_lossy())))?,
        None => u64::MAX,
    };
    let ops = &a.operands;
    let Some(file0) = ops.first() else {
        return Err(usage("missing operand after 'cmp'"));
    };
    if let Some(extra) = ops.get(4) {
        return Err(usage(&format!(
            "extra operand '{}'",
            extra.to_string_lossy()
        )));
    }
    for (f, v) in ops.iter().skip(2).enumerate() {
        let (x, _) = skip_value(v).map_err(|_| {
            usage(&format!(
                "invalid --ignore-initial value '{}'",
                v.to_string_lossy()
            ))
        })?;
        if v.as_bytes().contains(&b':') {
            return Err(usage(&format!(
                "invalid --ignore-initial value '{}'",
                v.to_string_lossy()
            )));
        }
        if let Some(s) = skips.get_mut(f) {
            *s = x;
        }
        if f == 0 && ops.len() == 3 {
            // One SKIP operand: it is SKIP1 only.
        }
    }
    if a.verbose && a.silent {
        return Err(usage("options -l and -s are incompatible"));
    }
    let dash = OsString::from("-");
    let file1 = ops.get(1).unwrap_or(&dash);
    let names = [
        file0.to_string_lossy().into_owned(),
        file1.to_string_lossy().into_owned(),
    ];

    let mut o = Outcome::ok();
    let fail = |o: Outcome, name: &str, e: &FsError| -> Result<Outcome, Stop> {
        Err(Stop::FailWith(format!("{name}: {}", e.strerror()), 2).after(o))
    };
    let mut inputs = Vec::with_capacity(2);
    for (name, op) in names.iter().zip([file0, file1]) {
        match open_input(ctx, op) {
            Ok(r) => inputs.push(Input {
                name: name.clone(),
                r,
                buf: Vec::new(),
                pos: 0,
                eof: false,
            }),
            Err(e) => return fail(o, name, &e),
        }
    }
    let (Some(mut in1), Some(mut in0)) = (inputs.pop(), inputs.pop()) else {
        return Ok(o);
    };
    // Offsets are as wide as the smaller regular file's compared part (GNU's offset_width).
    let mut max = limit;
    for (op, skip) in [file0, file1].iter().zip(skips) {
        if *op != "-"
            && let Ok(m) = ctx.fs.stat(&ctx.resolve(op), true)
            && m.is_file()
        {
            max = max.min(m.len.saturating_sub(skip));
        }
    }
    let width = max.to_string().len();
    if let Err(e) = in0.skip(skips[0]) {
        return fail(o, &names[0], &e);
    }
    if let Err(e) = in1.skip(skips[1]) {
        return fail(o, &names[1], &e);
    }
    let mut byte: u64 = 0;
    let mut line: u64 = 1;
    let mut status = 0;
    let mut out = Vec::new();
    while byte < limit {
        let c0 = match in0.next() {
            Ok(c) => c,
            Err(e) => return fail(o, &in0.name, &e),
        };
        let c1 = match in1.next() {
            Ok(c) => c,
            Err(e) => return fail(o, &in1.name, &e),
        };
        match (c0, c1) {
            (Some(x), Some(y)) => {
                byte += 1;
                if x != y {
                    status = 1;
                    if a.silent {
                        break;
                    }
                    if a.verbose {
                        if a.print_bytes {
                            out.extend_from_slice(
                                format!(
                                    "{byte:>width$} {x:3o} {:<4} {y:3o} {}\n",
                                    sprintc(x),
                                    sprintc(y)
                                )
                                .as_bytes(),
                            );
                        } else {
                            out.extend_from_slice(
                                format!("{byte:>width$} {x:3o} {y:3o}\n").as_bytes(),
                            );
                        }
                        if out.len() >= 64 * 1024 {
                            o.out(std::mem::take(&mut out));
                            if !ctx.flush(&mut o) {
                                return Ok(o.with_status(1));
                            }
                        }
                    } else {
                        let what = if a.print_bytes {
                            format!(" is {x:3o} {} {y:3o} {}", sprintc(x), sprintc(y))
                        } else {
                            String::new()
                        };
                        o.out(format!(
                            "{} {} differ: {} {byte}, line {line}{what}\n",
                            names[0],
                            names[1],
                            // GNU says `char` in the C locale, but `byte` with -b.
                            if a.print_bytes { "byte" } else { "char" }
                        ));
                        return Ok(o.with_status(1));
                    }
                }
                if x == b'\n' {
                    line += 1;
                }
            }
            (None, None) => break,
            (c0, _) => {
                o.out(std::mem::take(&mut out));
                let short = if c0.is_none() { &names[0] } else { &names[1] };
                if !a.silent {
                    let msg = if byte == 0 {
                        format!("cmp: EOF on {short} which is empty\n")
                    } else if a.verbose {
                        format!("cmp: EOF on {short} after byte {byte}\n")
                    } else {
                        format!("cmp: EOF on {short} after byte {byte}, line {}\n", line - 1)
                    };
                    o.err(msg);
                }
                return Ok(o.with_status(1));
            }
        }
    }
    o.out(out);
    Ok(o.with_status(status))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::CommandName;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn world() -> World {
        let fs = MemFs::rooted("/s")
            .file("/s/a", b"a\nb\nc\n")
            .file("/s/b", b"a\nB\nc\nd")
            .file("/s/s", b"a\n")
            .file("/s/e", b"")
            .file("/s/c1", b"ab\ncd")
            .file("/s/c2", b"ab\nc\x01\n")
            .dir("/s/d");
        World::new(fs)
    }

    fn run(args: &[&str]) -> (String, String, i32) {
        text(&world().run(CommandName::Cmp, args))
    }

    #[test]
    fn first_difference() {
        assert_eq!(
            run(&["a", "b"]),
            ("a b differ: char 3, line 2\n".into(), String::new(), 1)
        );
        assert_eq!(run(&["a", "a"]), (String::new(), String::new(), 0));
        assert_eq!(
            run(&["-b", "c1", "c2"]),
            (
                "c1 c2 differ: byte 5, line 2 is 144 d   1 ^A\n".into(),
                String::new(),
                1
            )
        );
        assert_eq!(run(&["-s", "a", "b"]), (String::new(), String::new(), 1));
    }

    #[test]
    fn eof_messages() {
        assert_eq!(
            run(&["a", "s"]),
            (
                String::new(),
                "cmp: EOF on s after byte 2, line 1\n".into(),
                1
            )
        );
        assert_eq!(
            run(&["e", "a"]),
            (String::new(), "cmp: EOF on e which is empty\n".into(), 1)
        );
        assert_eq!(
            run(&["-l", "a", "b"]),
            (
                "3 142 102\n".into(),
                "cmp: EOF on a after byte 6\n".into(),
                1
            )
        );
        assert_eq!(
            run(&["-lb", "c1", "c2"]),
            (
                "5 144 d      1 ^A\n".into(),
                "cmp: EOF on c1 after byte 5\n".into(),
                1
            )
        );
    }

    #[test]
    fn skips_and_limits() {
        assert_eq!(
            run(&["-n", "2", "a", "b"]),
            (String::new(), String::new(), 0)
        );
        assert_eq!(
            run(&["-i", "1", "a", "b"]).0,
            "a b differ: char 2, line 2\n"
        );
        assert_eq!(run(&["a", "b", "1", "2"]).0, "a b differ: char 1, line 1\n");
        assert_eq!(
            run(&["-i", "2:1", "a", "b"]).0,
            "a b differ: char 1, line 1\n"
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            run(&["nope", "a"]),
            (
                String::new(),
                "cmp: nope: No such file or directory\n".into(),
                2
            )
        );
        assert_eq!(run(&["d", "a"]).1, "cmp: d: Is a directory\n");
        assert_eq!(
            run(&["-l", "-s", "a", "b"]),
            (
                String::new(),
                "cmp: options -l and -s are incompatible\ncmp: Try 'cmp --help' for more information.\n".into(),
                2
            )
        );
        assert_eq!(
            run(&["a", "b", "x"]).1,
            "cmp: invalid --ignore-initial value 'x'\ncmp: Try 'cmp --help' for more information.\n"
        );
        assert_eq!(
            run(&[]).1,
            "cmp: missing operand after 'cmp'\ncmp: Try 'cmp --help' for more information.\n"
        );
    }
}
