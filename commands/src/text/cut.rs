//! `cut OPTION... [FILE]...`, GNU coreutils in the C locale (`-c` is `-b`): selects bytes or
//! delimited fields of each line by a list of positions and ranges (`1,3-5,7-`, `-3`), parsed
//! and merged as gnulib's `set_fields` does, with GNU's messages. Input is streamed in
//! chunks: a field or a line of any length passes through (only a first field without a
//! delimiter after it is held, as GNU holds it, up to the session's hold cap).

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::input::{open_input, operand_error, operands_or_stdin};
use crate::text::lines::EXHAUSTED;
use crate::{Ctx, FsError, Outcome, quote};

const NO_LIST: &str = "you must specify a list of bytes, characters, or fields";
const ONE_LIST: &str = "only one list may be specified";
const ONE_CHAR: &str = "the delimiter must be a single character";
const DELIM_FIELDS: &str = "an input delimiter may be specified only when operating on fields";
const SUPPRESS_FIELDS: &str =
    "suppressing non-delimited lines makes sense\n\tonly when operating on fields";

/// Print selected parts of lines from each FILE to standard output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "cut OPTION... [FILE]...")]
pub struct CutArgs {
    /// select only these bytes
    #[arg(short = 'b', long = "bytes", value_name = "LIST", action = clap::ArgAction::Append)]
    bytes: Vec<OsString>,
    /// select only these characters
    #[arg(short = 'c', long = "characters", value_name = "LIST", action = clap::ArgAction::Append)]
    characters: Vec<OsString>,
    /// use DELIM instead of TAB for field delimiter
    #[arg(short = 'd', long = "delimiter", value_name = "DELIM")]
    delimiter: Option<OsString>,
    /// select only these fields
    #[arg(short = 'f', long = "fields", value_name = "LIST", action = clap::ArgAction::Append)]
    fields: Vec<OsString>,
    /// (ignored)
    #[arg(short = 'n')]
    n: bool,
    /// complement the set of selected bytes, characters or fields
    #[arg(long = "complement")]
    complement: bool,
    /// do not print lines not containing delimiters
    #[arg(short = 's', long = "only-delimited")]
    only_delimited: bool,
    /// use STRING as the output delimiter; the default is to use the input delimiter
    #[arg(long = "output-delimiter", value_name = "STRING")]
    output_delimiter: Option<OsString>,
    /// line delimiter is NUL, not newline
    #[arg(short = 'z', long = "zero-terminated")]
    zero: bool,
    files: Vec<OsString>,
}

/// Selected positions: sorted, merged, inclusive, 1-based.
type Ranges = Vec<(u64, u64)>;

/// gnulib's `set_fields`: parses a list, sorts and merges it, and complements it if asked.
fn set_fields(list: &[u8], positions: bool, complement: bool) -> Result<Ranges, String> {
    let from_one = if positions {
        "byte/character positions are numbered from 1"
    } else {
        "fields are numbered from 1"
    };
    let mut ranges: Ranges = Vec::new();
    let (mut value, mut initial) = (0u64, 1u64);
    let (mut lhs, mut rhs, mut dash) = (false, false, false);
    let mut num_start = 0usize;
    let mut in_digits = false;
    let mut i = 0usize;
    loop {
        let c = list.get(i).copied();
        match c {
            Some(b'-') => {
                in_digits = false;
                if dash {
                    return Err(if positions {
                        "invalid byte or character range".into()
                    } else {
                        "invalid field range".into()
                    });
                }
                dash = true;
                if lhs && value == 0 {
                    return Err(from_one.into());
                }
                initial = if lhs { value } else { 1 };
                value = 0;
            }
            None | Some(b',' | b' ' | b'\t') => {
                in_digits = false;
                if dash {
                    dash = false;
                    if !lhs && !rhs {
                        return Err("invalid range with no endpoint: -".into());
                    }
                    if rhs {
                        if value < initial {
                            return Err("invalid decreasing range".into());
                        }
                        ranges.push((initial, value));
                    } else {
                        ranges.push((initial, u64::MAX));
                    }
                } else {
                    if value == 0 {
                        return Err(from_one.into());
                    }
                    ranges.push((value, value));
                }
                value = 0;
                if c.is_none() {
                    break;
                }
                lhs = false;
                rhs = false;
            }
            Some(d) if d.is_ascii_digit() => {
                if !in_digits {
                    num_start = i;
                }
                in_digits = true;
                if dash {
                    rhs = true;
                } else {
                    lhs = true;
                }
                if let Some(v) = value
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(u64::from(d - b'0')))
                    .filter(|v| *v != u64::MAX)
                {
                    value = v;
                } else {
                    {
                        let digits = list.get(num_start..).unwrap_or_default();
                        let len = digits.iter().take_while(|c| c.is_ascii_digit()).count();
                        let bad = quote(OsStr::from_bytes(digits.get(..len).unwrap_or_default()));
                        return Err(if positions {
                            format!("byte/character offset {bad} is too large")
                        } else {
                            format!("field number {bad} is too large")
                        });
                    }
                }
            }
            Some(_) => {
                let rest = quote(OsStr::from_bytes(list.get(i..).unwrap_or_default()));
                return Err(if positions {
                    format!("invalid byte/character position {rest}")
                } else {
                    format!("invalid field value {rest}")
                });
            }
        }
        i += 1;
    }
    ranges.sort_unstable();
    let mut merged: Ranges = Vec::with_capacity(ranges.len());
    for (first, last_pos) in ranges {
        match merged.last_mut() {
            Some(prev) if first <= prev.1 => prev.1 = prev.1.max(last_pos),
            _ => merged.push((first, last_pos)),
        }
    }
    if complement {
        let mut inverted = Vec::new();
        let mut next = 1u64;
        for &(lo, hi) in &merged {
            if lo > next {
                inverted.push((next, lo - 1));
            }
            next = hi.saturating_add(1);
            if hi == u64::MAX {
                next = u64::MAX;
                break;
            }
        }
        if merged.last().is_none_or(|l| l.1 != u64::MAX) {
            inverted.push((next, u64::MAX));
        }
        merged = inverted;
    }
    Ok(merged)
}

/// What to do with each line.
struct Job {
    ranges: Ranges,
    /// `Some(delim)`: fields; `None`: bytes.
    field_delim: Option<u8>,
    out_delim: Option<Vec<u8>>,
    only_delimited: bool,
    eol: u8,
}

impl Job {
    fn selected(&self, pos: u64) -> bool {
        self.ranges.iter().any(|&(lo, hi)| lo <= pos && pos <= hi)
    }
}

/// Where a streamed line is: what was printed, and for fields the first field (held until a
/// delimiter shows the line has one: a line without prints whole) and the field number.
#[derive(Default)]
struct LineState {
    /// Bytes of the line seen so far (bytes mode), or the number of the current field.
    pos: u64,
    printed: bool,
    /// Fields: a delimiter was seen on this line.
    delimited: bool,
    /// Fields: the first field, until the first delimiter.
    first: Vec<u8>,
    /// Bytes of the line seen (to end a last line without its newline).
    any: bool,
}

/// The first field of a line is longer than the cap: GNU's `memory exhausted`.
struct TooLong;

impl Job {
    /// A piece of a line (no line delimiter in it) in bytes mode.
    fn bytes_seg(&self, st: &mut LineState, seg: &[u8], out: &mut Vec<u8>) {
        let p0 = st.pos;
        let p1 = p0 + seg.len() as u64;
        for &(lo, hi) in &self.ranges {
            let (lo0, hi0) = (lo - 1, hi);
            if lo0 >= p1 {
                break;
            }
            let (a, b) = (lo0.max(p0), hi0.min(p1));
            if a >= b {
                continue;
            }
            if a == lo0
                && st.printed
                && let Some(d) = &self.out_delim
            {
                out.extend_from_slice(d);
            }
            let (sa, sb) = (
                usize::try_from(a - p0).unwrap_or(usize::MAX),
                usize::try_from(b - p0).unwrap_or(usize::MAX),
            );
            out.extend_from_slice(seg.get(sa..sb).unwrap_or_default());
            st.printed = true;
        }
        st.pos = p1;
    }

    /// A piece of a line (no line delimiter in it) in fields mode.
    fn fields_seg(
        &self,
        delim: u8,
        st: &mut LineState,
        mut seg: &[u8],
        out: &mut Vec<u8>,
        cap: usize,
    ) -> Result<(), TooLong> {
        if st.pos == 0 {
            st.pos = 1;
        }
        while !seg.is_empty() {
            let cut = memchr::memchr(delim, seg);
            let piece = seg.get(..cut.unwrap_or(seg.len())).unwrap_or_default();
            if st.delimited {
                if self.selected(st.pos) {
                    out.extend_from_slice(piece);
                }
            } else {
                if st.first.len().saturating_add(piece.len()) > cap
                    || st.first.try_reserve(piece.len()).is_err()
                {
                    return Err(TooLong);
                }
                st.first.extend_from_slice(piece);
            }
            let Some(i) = cut else { break };
            seg = seg.get(i + 1..).unwrap_or_default();
            if !st.delimited {
                st.delimited = true;
                if self.selected(1) {
                    out.extend_from_slice(&st.first);
                    st.printed = true;
                }
                st.first = Vec::new();
            }
            st.pos += 1;
            if self.selected(st.pos) {
                if st.printed {
                    match &self.out_delim {
                        Some(d) => out.extend_from_slice(d),
                        None => out.push(delim),
                    }
                }
                st.printed = true;
            }
        }
        Ok(())
    }

    /// The end of a line.
    fn end_line(&self, st: &mut LineState, out: &mut Vec<u8>) {
        if self.field_delim.is_some() && !st.delimited {
            if !self.only_delimited {
                out.extend_from_slice(&st.first);
                out.push(self.eol);
            }
        } else {
            out.push(self.eol);
        }
        *st = LineState::default();
    }

    /// A chunk of input: lines and pieces of lines, streamed.
    fn chunk(
        &self,
        st: &mut LineState,
        mut data: &[u8],
        out: &mut Vec<u8>,
        cap: usize,
    ) -> Result<(), TooLong> {
        while !data.is_empty() {
            let end = memchr::memchr(self.eol, data);
            let seg = data.get(..end.unwrap_or(data.len())).unwrap_or_default();
            st.any |= !seg.is_empty();
            match self.field_delim {
                Some(d) => self.fields_seg(d, st, seg, out, cap)?,
                None => self.bytes_seg(st, seg, out),
            }
            let Some(i) = end else { break };
            self.end_line(st, out);
            data = data.get(i + 1..).unwrap_or_default();
        }
        Ok(())
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<CutArgs>(args)?;
    if let Some(d) = &a.delimiter
        && d.len() > 1
    {
        return Err(Stop::Usage(ONE_CHAR.into()));
    }
    let lists = a.bytes.len() + a.characters.len() + a.fields.len();
    if lists > 1 {
        return Err(Stop::Usage(ONE_LIST.into()));
    }
    let (list, fields) = match (a.bytes.first(), a.characters.first(), a.fields.first()) {
        (Some(l), _, _) | (_, Some(l), _) => (l, false),
        (_, _, Some(l)) => (l, true),
        _ => return Err(Stop::Usage(NO_LIST.into())),
    };
    if a.delimiter.is_some() && !fields {
        return Err(Stop::Usage(DELIM_FIELDS.into()));
    }
    if a.only_delimited && !fields {
        return Err(Stop::Usage(SUPPRESS_FIELDS.into()));
    }
    let ranges = match set_fields(list.as_bytes(), !fields, a.complement) {
        Ok(r) => r,
        Err(msg) => return Err(Stop::Usage(msg)),
    };
    let delim = a
        .delimiter
        .as_ref()
        .map_or(b'\t', |d| d.as_bytes().first().copied().unwrap_or(0));
    let job = Job {
        ranges,
        field_delim: fields.then_some(delim),
        out_delim: a.output_delimiter.map(|d| d.as_bytes().to_vec()),
        only_delimited: a.only_delimited,
        eol: if a.zero { 0 } else { b'\n' },
    };
    let files = operands_or_stdin(a.files);
    let mut o = Outcome::ok();
    let mut status = 0;
    let cap = usize::try_from(ctx.hold_bytes()).unwrap_or(usize::MAX);
    for name in &files {
        let reader = match open_input(ctx, name) {
            Ok(r) => r,
            Err(e) => {
                o.err(operand_error(ctx.name, name, &e));
                status = 1;
                continue;
            }
        };
        let mut reader = reader;
        let mut st = LineState::default();
        let mut out = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    o.out(std::mem::take(&mut out));
                    o.err(operand_error(ctx.name, name, &FsError::from_io(&e)));
                    status = 1;
                    break;
                }
            };
            if job
                .chunk(&mut st, buf.get(..n).unwrap_or_default(), &mut out, cap)
                .is_err()
            {
                o.out(std::mem::take(&mut out));
                o.err(format!("{}: {EXHAUSTED}\n", ctx.name));
                return Ok(o.with_status(1));
            }
            if out.len() >= 64 * 1024 {
                o.out(std::mem::take(&mut out));
            }
            if !ctx.flush(&mut o) {
                return Ok(o.with_status(status));
            }
        }
        if st.any || st.delimited || st.pos > 0 {
            job.end_line(&mut st, &mut out);
        }
        o.out(&out);
    }
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {

    use crate::testing::world::{World, text, texts};

    fn world() -> World {
        World::new(texts().file(
            "/s/data.csv",
            b"name,age,city\nalice,30,paris\nbob,25,berlin\ncarol,35,rome\ndave,25,paris\n",
        ))
    }

    fn cut(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Cut, args))
    }

    #[test]
    fn selections_as_gnu() {
        // Expected outputs from GNU coreutils 9.1, LC_ALL=C, on the same files.
        let w = world();
        for (args, want) in [
            (
                &["-d,", "-f1,3", "data.csv"][..],
                "name,city\nalice,paris\nbob,berlin\ncarol,rome\ndave,paris\n",
            ),
            (&["-d:", "-f2", "-s", "colon.txt"], "b\ne\n2\n"),
            (&["-d:", "-f-2", "colon.txt"], "a:b\nd:e\ng\n1:2\n"),
            (&["-d:", "-f5", "colon.txt"], "\n\ng\n\n"),
            (&["-c1-3,5", "data.csv"], "nam,\nalie\nbob2\ncarl\ndav,\n"),
            (
                &["-c", "3-", "--complement", "data.csv"],
                "na\nal\nbo\nca\nda\n",
            ),
            (
                &["-c1-2,3-4", "--output-delimiter=:", "data.csv"],
                "na:me\nal:ic\nbo:b,\nca:ro\nda:ve\n",
            ),
            (&["-c", "1-3,2-4", "colon.txt"], "a:b:\nd:e:\ng\n1:2:\n"),
            (&["-f", "1 3", "-d:", "colon.txt"], "a:c\nd:f\ng\n1:3\n"),
            (
                &["-d:", "-s", "--complement", "-f2", "colon.txt"],
                "a:c\nd:f\n1:3:4\n",
            ),
            (&["-d:", "--complement", "-f1-", "colon.txt"], "\n\ng\n\n"),
            (
                &[
                    "-c",
                    "1-3,6-",
                    "--complement",
                    "--output-delimiter=X",
                    "nonl.txt",
                ],
                "ne\n",
            ),
            (&["-b2", "-z", "colon.txt"], ":\0"),
            (
                &["-d", "", "-f1", "colon.txt"],
                "a:b:c\nd:e:f\ng\n1:2:3:4\n",
            ),
        ] {
            assert_eq!(cut(&w, args).0, want, "{args:?}");
        }
    }

    #[test]
    fn long_fields_stream_across_chunks() {
        // Outputs as GNU cut 9.1 gives them on the same bytes.
        let x = "x".repeat(100_000);
        let y = "y".repeat(150_000);
        let data = format!("{x}:{y}\nno delim {x}\na:b");
        let w = World::new(texts().file("/s/long", data.as_bytes()));
        assert_eq!(
            cut(&w, &["-d:", "-f2", "long"]).0,
            format!("{y}\nno delim {x}\nb\n")
        );
        assert_eq!(
            cut(&w, &["-d:", "-f1", "-s", "long"]).0,
            format!("{x}\na\n")
        );
        assert_eq!(
            cut(&w, &["-d:", "-f3", "long"]).0,
            format!("\nno delim {x}\n\n")
        );
        assert_eq!(
            cut(&w, &["-d:", "-f1-", "--output-delimiter=--", "long"]).0,
            format!("{x}--{y}\nno delim {x}\na--b\n")
        );
        assert_eq!(
            cut(
                &w,
                &["-b", "99999-100002,100004", "--output-delimiter=|", "long"]
            )
            .0,
            "xx:y|y\nxxxx|x\n\n"
        );
    }
}
