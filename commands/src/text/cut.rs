//! `cut OPTION... [FILE]...`, GNU coreutils in the C locale (`-c` is `-b`): selects bytes or
//! delimited fields of each line by a list of positions and ranges (`1,3-5,7-`, `-3`), parsed
//! and merged as gnulib's `set_fields` does, with GNU's messages. Input is read line by line.

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader};
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::input::{open_input, operand_error, operands_or_stdin};
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

    fn bytes(&self, line: &[u8], out: &mut Vec<u8>) {
        let len = line.len() as u64;
        let mut printed = false;
        for &(lo, hi) in &self.ranges {
            if lo > len {
                break;
            }
            let start = usize::try_from(lo - 1).unwrap_or(usize::MAX);
            let end = usize::try_from(hi.min(len)).unwrap_or(line.len());
            if let Some(d) = &self.out_delim
                && printed
            {
                out.extend_from_slice(d);
            }
            out.extend_from_slice(line.get(start..end).unwrap_or_default());
            printed = true;
        }
        out.push(self.eol);
    }

    fn fields(&self, delim: u8, line: &[u8], out: &mut Vec<u8>) {
        if !line.contains(&delim) {
            if !self.only_delimited {
                out.extend_from_slice(line);
                out.push(self.eol);
            }
            return;
        }
        let out_delim = self
            .out_delim
            .as_deref()
            .unwrap_or(std::slice::from_ref(&delim));
        let mut printed = false;
        for (i, field) in line.split(|&b| b == delim).enumerate() {
            if self.selected(i as u64 + 1) {
                if printed {
                    out.extend_from_slice(out_delim);
                }
                out.extend_from_slice(field);
                printed = true;
            }
        }
        out.push(self.eol);
    }

    fn line(&self, line: &[u8], out: &mut Vec<u8>) {
        match self.field_delim {
            Some(d) => self.fields(d, line, out),
            None => self.bytes(line, out),
        }
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
    for name in &files {
        let reader = match open_input(ctx, name) {
            Ok(r) => r,
            Err(e) => {
                o.err(operand_error(ctx.name, name, &e));
                status = 1;
                continue;
            }
        };
        let mut reader = BufReader::new(reader);
        let mut line = Vec::new();
        let mut out = Vec::new();
        loop {
            line.clear();
            match reader.read_until(job.eol, &mut line) {
                Ok(0) => break,
                Ok(_) => {
                    if line.last() == Some(&job.eol) {
                        line.pop();
                    }
                    job.line(&line, &mut out);
                    if out.len() >= 64 * 1024 {
                        o.out(&out);
                        out.clear();
                    }
                }
                Err(e) => {
                    o.out(&out);
                    out.clear();
                    o.err(operand_error(ctx.name, name, &FsError::from_io(&e)));
                    status = 1;
                    break;
                }
            }
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
    fn errors_as_gnu() {
        // GNU coreutils 9.1, LC_ALL=C; each also prints `Try 'cut --help' ...`.
        let w = world();
        for (args, msg) in [
            (
                &["data.csv"][..],
                "you must specify a list of bytes, characters, or fields",
            ),
            (&["-f0", "data.csv"], "fields are numbered from 1"),
            (
                &["-b", "0-2", "data.csv"],
                "byte/character positions are numbered from 1",
            ),
            (&["-f", "3-1", "data.csv"], "invalid decreasing range"),
            (&["-b", "-0", "data.csv"], "invalid decreasing range"),
            (
                &["-d", "ab", "-f1", "data.csv"],
                "the delimiter must be a single character",
            ),
            (
                &["-f1", "-c1", "data.csv"],
                "only one list may be specified",
            ),
            (
                &["-f1", "-f2", "data.csv"],
                "only one list may be specified",
            ),
            (
                &["-d,", "-c1", "data.csv"],
                "an input delimiter may be specified only when operating on fields",
            ),
            (&["-f", "1x", "data.csv"], "invalid field value 'x'"),
            (
                &["-f", "-", "data.csv"],
                "invalid range with no endpoint: -",
            ),
            (
                &["-c", "1-2-", "data.csv"],
                "invalid byte or character range",
            ),
            (
                &["-b", "99999999999999999999", "data.csv"],
                "byte/character offset '99999999999999999999' is too large",
            ),
        ] {
            assert_eq!(
                cut(&w, args),
                (
                    String::new(),
                    format!("cut: {msg}\nTry 'cut --help' for more information.\n"),
                    1
                ),
                "{args:?}"
            );
        }
        assert_eq!(
            cut(&w, &["-c1", "nope", "d", "nonl.txt"]),
            (
                "n\n".into(),
                "cut: nope: No such file or directory\ncut: d: Is a directory\n".into(),
                1
            )
        );
    }
}
