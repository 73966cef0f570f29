//! `nl [OPTION]... [FILE]...`, GNU coreutils 9.1: numbers lines. Styles per section (`-b`,
//! `-h`, `-f`: `a` all, `t` non-empty, `n` none, `pBRE` matching), logical pages split by
//! the delimiter lines `\:\:\:` (header), `\:\:` (body) and `\:` (footer) (`-d CC`), each
//! restarting the count unless `-p`; `-i -l -n ln|rn|rz -s -v -w`. The files are one
//! stream of lines, numbered on; each line streams.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::input::{operand_error, operands_or_stdin};
use crate::support::regex_gnu::{Options, Regex, Syntax};
use crate::text::lines::{Records, Sink, split_eol};
use crate::{Ctx, Outcome, quote};

/// Write each FILE to standard output, with line numbers added.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "nl [OPTION]... [FILE]...")]
pub struct NlArgs {
    /// use STYLE for numbering body lines
    #[arg(short = 'b', long = "body-numbering", value_name = "STYLE")]
    body: Option<OsString>,
    /// use CC for logical page delimiters
    #[arg(short = 'd', long = "section-delimiter", value_name = "CC")]
    delimiter: Option<OsString>,
    /// use STYLE for numbering footer lines
    #[arg(short = 'f', long = "footer-numbering", value_name = "STYLE")]
    footer: Option<OsString>,
    /// use STYLE for numbering header lines
    #[arg(short = 'h', long = "header-numbering", value_name = "STYLE")]
    header: Option<OsString>,
    /// line number increment at each line
    #[arg(short = 'i', long = "line-increment", value_name = "NUMBER")]
    increment: Option<OsString>,
    /// group of NUMBER empty lines counted as one
    #[arg(short = 'l', long = "join-blank-lines", value_name = "NUMBER")]
    join: Option<OsString>,
    /// insert line numbers according to FORMAT
    #[arg(short = 'n', long = "number-format", value_name = "FORMAT")]
    format: Option<OsString>,
    /// do not reset line numbers for each section
    #[arg(short = 'p', long = "no-renumber")]
    no_renumber: bool,
    /// add STRING after (possible) line number
    #[arg(short = 's', long = "number-separator", value_name = "STRING")]
    separator: Option<OsString>,
    /// first line number for each section
    #[arg(short = 'v', long = "starting-line-number", value_name = "NUMBER")]
    start: Option<OsString>,
    /// use NUMBER columns for line numbers
    #[arg(short = 'w', long = "number-width", value_name = "NUMBER")]
    width: Option<OsString>,
    files: Vec<OsString>,
}

enum Style {
    All,
    NonEmpty,
    None,
    Regex(Regex),
}

fn style(arg: Option<&OsString>, default: Style, what: &str) -> Result<Style, Stop> {
    let Some(arg) = arg else {
        return Ok(default);
    };
    let b = arg.as_bytes();
    match b {
        b"a" => Ok(Style::All),
        b"t" => Ok(Style::NonEmpty),
        b"n" => Ok(Style::None),
        [b'p', re @ ..] => {
            let mut opts = Options::new(Syntax::Basic);
            opts.newline = false;
            Regex::new(re, &opts)
                .map(|(re, _)| Style::Regex(re))
                .map_err(Stop::Fail)
        }
        _ => Err(Stop::Usage(format!(
            "invalid {what} numbering style: {}",
            quote(arg)
        ))),
    }
}

/// gnulib's `xdectoimax` with nl's message for `what`.
fn number(
    arg: Option<&OsString>,
    default: i64,
    min: i64,
    max: i64,
    what: &str,
) -> Result<i64, Stop> {
    let Some(arg) = arg else {
        return Ok(default);
    };
    let b = arg.as_bytes();
    let t = b
        .iter()
        .skip_while(|c| c.is_ascii_whitespace())
        .copied()
        .collect::<Vec<u8>>();
    let (negative, digits) = match t.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, &t[..]),
    };
    let bad = |suffix: &str| Stop::Fail(format!("invalid {what}: {}{suffix}", quote(arg)));
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(bad(""));
    }
    let mut v: i128 = 0;
    for &d in digits {
        v = v * 10 + i128::from(d - b'0');
        if v > i128::from(i64::MAX) + 1 {
            break;
        }
    }
    let v = if negative { -v } else { v };
    let Ok(v) = i64::try_from(v) else {
        return Err(bad(": Value too large for defined data type"));
    };
    if v < min {
        return Err(bad(": Numerical result out of range"));
    }
    if v > max {
        return Err(bad(": Value too large for defined data type"));
    }
    Ok(v)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Header,
    Body,
    Footer,
}

struct Numberer {
    styles: [Style; 3],
    section: Section,
    line_no: i64,
    start: i64,
    increment: i64,
    join: i64,
    blank_lines: i64,
    renumber: bool,
    format: u8,
    width: usize,
    separator: Vec<u8>,
    /// `\:\:\:`, `\:\:`, `\:` as the delimiter makes them.
    marks: [Vec<u8>; 3],
}

impl Numberer {
    fn number(&mut self, out: &mut Vec<u8>) {
        let n = self.line_no;
        let w = self.width;
        let text = match self.format {
            b'l' => format!("{n:<w$}"),
            b'z' => format!("{n:0w$}"),
            _ => format!("{n:>w$}"),
        };
        out.extend_from_slice(text.as_bytes());
        out.extend_from_slice(&self.separator);
        self.line_no = self.line_no.wrapping_add(self.increment);
    }

    fn blank(&self, out: &mut Vec<u8>) {
        out.resize(out.len() + self.width + self.separator.len(), b' ');
    }

    fn line(&mut self, body: &[u8], out: &mut Vec<u8>) {
        if let Some(k) = self.marks.iter().position(|m| m.as_slice() == body) {
            self.section = [Section::Header, Section::Body, Section::Footer]
                .get(k)
                .copied()
                .unwrap_or(Section::Body);
            if self.renumber {
                self.line_no = self.start;
            }
            out.push(b'\n');
            return;
        }
        let style = match self.section {
            Section::Header => &self.styles[0],
            Section::Body => &self.styles[1],
            Section::Footer => &self.styles[2],
        };
        let numbered = match style {
            Style::All => {
                if self.join > 1 {
                    if body.is_empty() {
                        self.blank_lines += 1;
                        if self.blank_lines == self.join {
                            self.blank_lines = 0;
                            true
                        } else {
                            false
                        }
                    } else {
                        self.blank_lines = 0;
                        true
                    }
                } else {
                    true
                }
            }
            Style::NonEmpty => !body.is_empty(),
            Style::None => false,
            Style::Regex(re) => re.is_match(body),
        };
        if numbered {
            self.number(out);
        } else {
            self.blank(out);
        }
        out.extend_from_slice(body);
        out.push(b'\n');
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<NlArgs>(args)?;
    let header = style(a.header.as_ref(), Style::None, "header")?;
    let body = style(a.body.as_ref(), Style::NonEmpty, "body")?;
    let footer = style(a.footer.as_ref(), Style::None, "footer")?;
    let format = match a.format.as_ref().map(|f| f.as_bytes()) {
        None | Some(b"rn") => b'r',
        Some(b"ln") => b'l',
        Some(b"rz") => b'z',
        Some(_) => {
            return Err(Stop::Usage(format!(
                "invalid line numbering format: {}",
                quote(a.format.as_deref().unwrap_or_default())
            )));
        }
    };
    let start = number(
        a.start.as_ref(),
        1,
        i64::MIN,
        i64::MAX,
        "starting line number",
    )?;
    let increment = number(
        a.increment.as_ref(),
        1,
        i64::MIN,
        i64::MAX,
        "line number increment",
    )?;
    let join = number(
        a.join.as_ref(),
        1,
        1,
        i64::MAX,
        "line number of blank lines",
    )?;
    let width = number(
        a.width.as_ref(),
        6,
        1,
        i64::from(i32::MAX),
        "line number field width",
    )?;
    let mut delim: Vec<u8> = a
        .delimiter
        .as_ref()
        .map_or_else(|| b"\\:".to_vec(), |d| d.as_bytes().to_vec());
    if delim.len() == 1 {
        delim.push(b':');
    }
    let marks = [delim.repeat(3), delim.repeat(2), delim.clone()];
    let mut n = Numberer {
        styles: [header, body, footer],
        section: Section::Body,
        line_no: start,
        start,
        increment,
        join,
        blank_lines: 0,
        renumber: !a.no_renumber,
        format,
        width: usize::try_from(width).unwrap_or(6),
        separator: a
            .separator
            .as_ref()
            .map_or_else(|| b"\t".to_vec(), |s| s.as_bytes().to_vec()),
        marks,
    };
    let mut o = Outcome::ok();
    let mut sink = Sink::new();
    let mut status = 0;
    let mut line = Vec::new();
    for name in &operands_or_stdin(a.files) {
        let mut input = match Records::open(ctx, name, b'\n') {
            Ok(r) => r,
            Err(e) => {
                sink.drain(&mut o);
                o.err(operand_error(ctx.name, name, &e));
                status = 1;
                continue;
            }
        };
        loop {
            match input.next_into(&mut line) {
                Ok(true) => {
                    n.line(split_eol(&line, b'\n').0, &mut sink.buf);
                    if !sink.poll(&mut o, ctx) {
                        return Ok(o.with_status(status));
                    }
                }
                Ok(false) => break,
                Err(e) => {
                    sink.drain(&mut o);
                    o.err(operand_error(ctx.name, name, &e));
                    status = 1;
                    break;
                }
            }
        }
    }
    sink.drain(&mut o);
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {
    use crate::testing::world::{World, text, texts};

    fn nl(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Nl, args))
    }

    fn world() -> World {
        World::new(
            texts()
                .file(
                    "/s/sec",
                    b"x\\:\\:\\:\nh\n\\:\\:\nb1\nb2\n\\:\nf\n\\:\\:\\:\nh2\n\\:\\:\nb3\n",
                )
                .file("/s/blank", b"a\n\n\nb\n\n")
                .file("/s/ab", b"ab"),
        )
    }

    #[test]
    fn numbers_as_gnu() {
        // Expected outputs from GNU coreutils 9.1 nl, LC_ALL=C.
        let w = world();
        assert_eq!(
            nl(&w, &["blank"]).0,
            "     1\ta\n       \n       \n     2\tb\n       \n"
        );
        assert_eq!(
            nl(&w, &["-ba", "-l", "2", "blank"]).0,
            "     1\ta\n       \n     2\t\n     3\tb\n       \n"
        );
        assert_eq!(
            nl(&w, &["-ha", "-fa", "sec"]).0,
            "     1\tx\\:\\:\\:\n     2\th\n\n     1\tb1\n     2\tb2\n\n     1\tf\n\n     1\th2\n\n     1\tb3\n"
        );
        assert_eq!(
            nl(&w, &["-p", "sec"]).0,
            "     1\tx\\:\\:\\:\n     2\th\n\n     3\tb1\n     4\tb2\n\n       f\n\n       h2\n\n     5\tb3\n"
        );
        assert_eq!(
            nl(&w, &["-bpb", "-nln", "-w3", "-s|", "-v5", "-i2", "sec"]).0,
            "    x\\:\\:\\:\n    h\n\n5  |b1\n7  |b2\n\n    f\n\n    h2\n\n5  |b3\n"
        );
        assert_eq!(nl(&w, &["-nrz", "-w3", "ab"]).0, "001\tab\n");
        assert_eq!(
            nl(&w, &["-d", "@@", "-bn", "ab", "ab"]).0,
            "       ab\n       ab\n"
        );
    }

    #[test]
    fn errors_as_gnu() {
        let w = world();
        let usage = |m: &str| {
            (
                String::new(),
                format!("nl: {m}\nTry 'nl --help' for more information.\n"),
                1,
            )
        };
        let fail = |m: &str| (String::new(), format!("nl: {m}\n"), 1);
        assert_eq!(
            nl(&w, &["-bx", "ab"]),
            usage("invalid body numbering style: 'x'")
        );
        assert_eq!(
            nl(&w, &["-hx", "ab"]),
            usage("invalid header numbering style: 'x'")
        );
        assert_eq!(
            nl(&w, &["-nx", "ab"]),
            usage("invalid line numbering format: 'x'")
        );
        assert_eq!(
            nl(&w, &["-w0", "ab"]),
            fail("invalid line number field width: '0': Numerical result out of range")
        );
        assert_eq!(
            nl(&w, &["-wx", "ab"]),
            fail("invalid line number field width: 'x'")
        );
        assert_eq!(
            nl(&w, &["-v", "99999999999999999999", "ab"]),
            fail(
                "invalid starting line number: '99999999999999999999': Value too large for defined data type"
            )
        );
        assert_eq!(
            nl(&w, &["-l0", "ab"]),
            fail("invalid line number of blank lines: '0': Numerical result out of range")
        );
        assert_eq!(
            nl(&w, &["ab", "nope"]),
            (
                "     1\tab\n".into(),
                "nl: nope: No such file or directory\n".into(),
                1
            )
        );
    }
}
