//! `comm [OPTION]... FILE1 FILE2`, GNU coreutils 9.1: compares two sorted files line by line
//! (bytewise, the C locale's order) in three columns: lines only in FILE1, only in FILE2, in
//! both; `-1 -2 -3` hide columns, `--output-delimiter`, `--total`, `-z`, and GNU's order
//! checks (`--check-order`, `--nocheck-order`, and by default a warning once a line has no
//! pair, then `input is not in sorted order` and status 1). Both inputs stream.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::input::operand_error;
use crate::text::lines::{Records, Sink, eol};
use crate::{Ctx, Outcome, quote};

/// Compare sorted files FILE1 and FILE2 line by line.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "comm [OPTION]... FILE1 FILE2")]
#[allow(clippy::struct_excessive_bools)] // one bool per GNU flag
pub struct CommArgs {
    /// suppress column 1 (lines unique to FILE1)
    #[arg(short = '1')]
    one: bool,
    /// suppress column 2 (lines unique to FILE2)
    #[arg(short = '2')]
    two: bool,
    /// suppress column 3 (lines that appear in both files)
    #[arg(short = '3')]
    three: bool,
    /// check that the input is correctly sorted, even if all input lines are pairable
    #[arg(long = "check-order")]
    check_order: bool,
    /// do not check that the input is correctly sorted
    #[arg(long = "nocheck-order")]
    nocheck_order: bool,
    /// separate columns with STR
    #[arg(long = "output-delimiter", value_name = "STR", action = clap::ArgAction::Append)]
    output_delimiter: Vec<OsString>,
    /// output a summary
    #[arg(long = "total")]
    total: bool,
    /// line delimiter is NUL, not newline
    #[arg(short = 'z', long = "zero-terminated")]
    zero: bool,
    files: Vec<OsString>,
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum Check {
    Default,
    Enabled,
    Disabled,
}

/// One input: its current and previous line.
struct Side<'a> {
    records: Records<'a>,
    name: OsString,
    line: Vec<u8>,
    prev: Vec<u8>,
    live: bool,
    warned: bool,
}

impl Side<'_> {
    /// Reads the next line (with its delimiter, added when the last lacks it).
    fn advance(&mut self, ctx: &Ctx) -> Result<(), String> {
        std::mem::swap(&mut self.line, &mut self.prev);
        match self.records.next_into(&mut self.line) {
            Ok(true) => {
                if self.line.last() != Some(&self.records.delim) {
                    self.line.push(self.records.delim);
                }
                Ok(())
            }
            Ok(false) => {
                self.live = false;
                Ok(())
            }
            Err(e) => Err(operand_error(ctx.name, &self.name, &e)),
        }
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<CommArgs>(args)?;
    if let Some(first) = a.output_delimiter.first()
        && a.output_delimiter.iter().any(|d| d != first)
    {
        return Err(Stop::Fail("multiple output delimiters specified".into()));
    }
    match a.files.len() {
        0 => return Err(Stop::Usage("missing operand".into())),
        1 => {
            return Err(Stop::Usage(format!(
                "missing operand after {}",
                quote(a.files.first().map(OsString::as_os_str).unwrap_or_default())
            )));
        }
        2 => {}
        _ => {
            return Err(Stop::Usage(format!(
                "extra operand {}",
                quote(a.files.get(2).map(OsString::as_os_str).unwrap_or_default())
            )));
        }
    }
    let sep: Vec<u8> = match a.output_delimiter.first() {
        Some(d) if d.is_empty() => vec![0],
        Some(d) => d.as_bytes().to_vec(),
        None => b"\t".to_vec(),
    };
    let check = if a.check_order {
        Check::Enabled
    } else if a.nocheck_order {
        Check::Disabled
    } else {
        Check::Default
    };
    let delim = eol(a.zero);
    let mut sides = Vec::with_capacity(2);
    for name in &a.files {
        let records = Records::open(ctx, name, delim).map_err(|e| {
            let mut o = Outcome::ok();
            o.err(operand_error(ctx.name, name, &e));
            Stop::Done(o.with_status(1))
        })?;
        sides.push(Side {
            records,
            name: name.clone(),
            line: Vec::new(),
            prev: Vec::new(),
            live: true,
            warned: false,
        });
    }
    let mut o = Outcome::ok();
    let mut sink = Sink::new();
    let fail = |sink: &mut Sink, mut o: Outcome, msg: String| {
        sink.drain(&mut o);
        o.err(msg);
        Stop::Done(o.with_status(1))
    };
    for s in &mut sides {
        if let Err(m) = s.advance(ctx) {
            return Err(fail(&mut sink, o, m));
        }
    }
    let mut totals = [0u64; 3];
    let mut seen_unpairable = false;
    while let (Some(l0), Some(l1)) = (sides.first(), sides.get(1)) {
        if !l0.live && !l1.live {
            break;
        }
        let order = match (l0.live, l1.live) {
            (false, _) => std::cmp::Ordering::Greater,
            (_, false) => std::cmp::Ordering::Less,
            _ => l0.line.cmp(&l1.line),
        };
        let (class, line) = match order {
            std::cmp::Ordering::Equal => (3, &l1.line),
            std::cmp::Ordering::Less => (1, &l0.line),
            std::cmp::Ordering::Greater => (2, &l1.line),
        };
        if class != 3 {
            seen_unpairable = true;
        }
        let shown = match class {
            1 => !a.one,
            2 => {
                if a.two {
                    false
                } else {
                    if !a.one {
                        sink.buf.extend_from_slice(&sep);
                    }
                    true
                }
            }
            _ => {
                if a.three {
                    false
                } else {
                    if !a.one {
                        sink.buf.extend_from_slice(&sep);
                    }
                    if !a.two {
                        sink.buf.extend_from_slice(&sep);
                    }
                    true
                }
            }
        };
        if shown {
            sink.buf.extend_from_slice(line);
        }
        if let Some(t) = totals.get_mut(class - 1) {
            *t += 1;
        }
        let steps = [order.is_le(), order.is_ge()];
        for (i, s) in sides.iter_mut().enumerate() {
            if !steps.get(i).copied().unwrap_or(false) {
                continue;
            }
            if let Err(m) = s.advance(ctx) {
                return Err(fail(&mut sink, o, m));
            }
            let checking = check == Check::Enabled || (check == Check::Default && seen_unpairable);
            if s.live && checking && check != Check::Disabled && !s.warned && s.prev > s.line {
                s.warned = true;
                let msg = format!("comm: file {} is not in sorted order\n", i + 1);
                if check == Check::Enabled {
                    return Err(fail(&mut sink, o, msg));
                }
                sink.drain(&mut o);
                o.err(msg);
            }
        }
        if !sink.poll(&mut o, ctx) {
            return Ok(o);
        }
    }
    if a.total {
        let [t1, t2, t3] = totals;
        let s = String::from_utf8_lossy(&sep).into_owned();
        sink.buf
            .extend_from_slice(format!("{t1}{s}{t2}{s}{t3}{s}total").as_bytes());
        sink.buf.push(delim);
    }
    sink.drain(&mut o);
    if sides.iter().any(|s| s.warned) {
        o.err("comm: input is not in sorted order\n");
        return Ok(o.with_status(1));
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::testing::world::{World, text, texts};

    fn comm(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Comm, args))
    }

    fn world() -> World {
        World::new(
            texts()
                .file("/s/c1", b"a\nb\nd\n")
                .file("/s/c2", b"b\nc\nd\ne\n")
                .file("/s/un", b"b\na\nc\n")
                .file("/s/u1", b"a\nz\nb\n"),
        )
        .stdin(b"x")
    }

    #[test]
    fn columns_as_gnu() {
        // Expected outputs from GNU coreutils 9.1 comm, LC_ALL=C.
        let w = world();
        assert_eq!(comm(&w, &["c1", "c2"]).0, "a\n\t\tb\n\tc\n\t\td\n\te\n");
        assert_eq!(comm(&w, &["-12", "c1", "c2"]).0, "b\nd\n");
        assert_eq!(
            comm(&w, &["-3", "--output-delimiter=::", "c1", "c2"]).0,
            "a\n::c\n::e\n"
        );
        assert_eq!(
            comm(&w, &["un", "c2"]),
            ("\t\tb\na\n\t\tc\n\td\n\te\n".into(), String::new(), 0)
        );
        assert_eq!(
            comm(&w, &["--total", "c1", "c2"]).0,
            "a\n\t\tb\n\tc\n\t\td\n\te\n1\t2\t2\ttotal\n"
        );
        assert_eq!(
            comm(&w, &["--output-delimiter=", "-3", "c1", "c2"]).0,
            "a\n\0c\n\0e\n"
        );
        assert_eq!(comm(&w, &["-", "c1"]).0, "\ta\n\tb\n\td\nx\n");
    }

    #[test]
    fn order_and_errors_as_gnu() {
        let w = world();
        assert_eq!(
            comm(&w, &["u1", "c2"]),
            (
                "a\n\tb\n\tc\n\td\n\te\nz\nb\n".into(),
                "comm: file 1 is not in sorted order\ncomm: input is not in sorted order\n".into(),
                1
            )
        );
        assert_eq!(
            comm(&w, &["--check-order", "u1", "c2"]),
            (
                "a\n\tb\n\tc\n\td\n\te\nz\n".into(),
                "comm: file 1 is not in sorted order\n".into(),
                1
            )
        );
        assert_eq!(comm(&w, &["--nocheck-order", "u1", "c2"]).2, 0);
        let usage = |m: &str| {
            (
                String::new(),
                format!("comm: {m}\nTry 'comm --help' for more information.\n"),
                1,
            )
        };
        assert_eq!(comm(&w, &[]), usage("missing operand"));
        assert_eq!(comm(&w, &["c1"]), usage("missing operand after 'c1'"));
        assert_eq!(comm(&w, &["c1", "c2", "x"]), usage("extra operand 'x'"));
        assert_eq!(
            comm(&w, &["c1", "nope"]),
            (
                String::new(),
                "comm: nope: No such file or directory\n".into(),
                1
            )
        );
        assert_eq!(
            comm(&w, &["c1", "d"]),
            (String::new(), "comm: d: Is a directory\n".into(), 1)
        );
        assert_eq!(
            comm(
                &w,
                &["--output-delimiter=a", "--output-delimiter=b", "c1", "c2"]
            ),
            (
                String::new(),
                "comm: multiple output delimiters specified\n".into(),
                1
            )
        );
    }
}
