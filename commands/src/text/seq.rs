//! `seq [OPTION]... [FIRST [INCREMENT]] LAST`, GNU coreutils 9.1: prints a sequence of
//! numbers computed as `FIRST + i * INCREMENT` in x87 `long double` (with GNU's widths and
//! precisions guessed from how the operands are written, `-w`, `-s`, `-f FORMAT`). Whole
//! non-negative numbers with a small step take GNU's exact decimal path, so that numbers
//! past 2^64 count exactly. The output streams; `seq inf` runs until nobody reads.

use std::cmp::Ordering;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::{options_first, parse_args};
use crate::support::cprintf::{Field, Spec, float};
use crate::support::ldmath::{add, cmp, mul};
use crate::support::ldouble::{Class, LongDouble, strtold};
use crate::{Ctx, Outcome, quote};

/// Print numbers from FIRST to LAST, in steps of INCREMENT.
#[derive(clap::Parser, Debug)]
#[command(
    override_usage = "seq [OPTION]... LAST\n  or:  seq [OPTION]... FIRST LAST\n  or:  seq [OPTION]... FIRST INCREMENT LAST"
)]
pub struct SeqArgs {
    /// use printf style floating-point FORMAT
    #[arg(short = 'f', long = "format", value_name = "FORMAT")]
    format: Option<OsString>,
    /// use STRING to separate numbers (default: \n)
    #[arg(short = 's', long = "separator", value_name = "STRING")]
    separator: Option<OsString>,
    /// equalize width by padding with leading zeroes
    #[arg(short = 'w', long = "equal-width")]
    equal_width: bool,
    numbers: Vec<OsString>,
}

/// The largest step of the exact decimal path (GNU's `SEQ_FAST_STEP_LIMIT`).
const FAST_STEP_LIMIT: u64 = 200;

/// An operand, with the width and precision its spelling suggests.
struct Operand {
    value: LongDouble,
    width: i64,
    /// `None`: unknown (GNU's `INT_MAX`).
    precision: Option<i64>,
}

fn c_isspace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// C's `strtol` of the start of `s`, saturated.
fn strtol(s: &[u8]) -> i64 {
    let mut i = s.iter().take_while(|&&b| c_isspace(b)).count();
    let negative = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let mut v: i64 = 0;
    for &d in s.get(i..).unwrap_or_default() {
        if !d.is_ascii_digit() {
            break;
        }
        v = v.saturating_mul(10).saturating_add(i64::from(d - b'0'));
    }
    if negative { -v } else { v }
}

/// gnulib's `xstrtold`: the whole string is a number, not an overflow.
fn xstrtold(arg: &[u8]) -> Option<LongDouble> {
    let r = strtold(arg);
    let overflow = r.range_error && r.value.class != Class::Zero;
    (r.end != 0 && r.end == arg.len() && !overflow).then_some(r.value)
}

/// GNU's `scan_arg`.
fn scan_arg(raw: &OsString) -> Result<Operand, Stop> {
    let bytes = raw.as_bytes();
    let Some(value) = xstrtold(bytes) else {
        return Err(Stop::Usage(format!(
            "invalid floating point argument: {}",
            quote(raw)
        )));
    };
    if value.class == Class::Nan {
        return Err(Stop::Usage(format!(
            "invalid 'not-a-number' argument: {}",
            quote(raw)
        )));
    }
    let skip = bytes
        .iter()
        .take_while(|&&b| c_isspace(b) || b == b'+')
        .count();
    let arg = bytes.get(skip..).unwrap_or_default();
    let len = arg.len() as i64;
    let dot = arg.iter().position(|&b| b == b'.');
    let mut op = Operand {
        value,
        width: 0,
        precision: (dot.is_none() && !arg.contains(&b'p')).then_some(0),
    };
    let finite = matches!(value.class, Class::Zero | Class::Finite { .. });
    if arg.iter().any(|&b| b == b'x' || b == b'X') || !finite {
        return Ok(op);
    }
    let mut fraction_len = 0i64;
    op.width = len;
    if let Some(d) = dot {
        let after = arg.get(d + 1..).unwrap_or_default();
        fraction_len = after
            .iter()
            .take_while(|&&b| b != b'e' && b != b'E')
            .count() as i64;
        op.precision = Some(fraction_len);
        op.width += if fraction_len == 0 {
            -1
        } else {
            i64::from(d == 0 || !arg.get(d - 1).is_some_and(u8::is_ascii_digit))
        };
    }
    let e = arg
        .iter()
        .position(|&b| b == b'e')
        .or_else(|| arg.iter().position(|&b| b == b'E'));
    if let Some(e) = e {
        let exponent = strtol(arg.get(e + 1..).unwrap_or_default()).max(-i64::MAX);
        let precision = op.precision.unwrap_or(0);
        let precision = if exponent < 0 {
            precision.saturating_add(-exponent)
        } else {
            precision - precision.min(exponent)
        };
        op.precision = Some(precision);
        op.width -= len - e as i64;
        if exponent < 0 {
            match dot {
                Some(d) if e == d + 1 => op.width += 1,
                Some(_) => {}
                None => op.width += 1,
            }
            op.width = op.width.saturating_add(-exponent);
        } else {
            if dot.is_some() && precision == 0 && fraction_len != 0 {
                op.width -= 1;
            }
            op.width = op
                .width
                .saturating_add(exponent - exponent.min(fraction_len));
        }
    }
    Ok(op)
}

/// A validated `-f` format: what comes before and after its one conversion.
struct Format {
    prefix: Vec<u8>,
    spec: Spec,
    conv: u8,
    suffix: Vec<u8>,
}

/// Appends `text` with its `%%` as `%`.
fn unescape_percent(text: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while let Some(&c) = text.get(i) {
        out.push(c);
        i += if c == b'%' && text.get(i + 1) == Some(&b'%') {
            2
        } else {
            1
        };
    }
}

/// GNU's `long_double_format`: exactly one `%[flags][width][.prec][L]efgaEFGA`.
fn parse_format(fmt: &[u8]) -> Result<Format, Stop> {
    let q = || quote(std::ffi::OsStr::from_bytes(fmt));
    let mut i = 0;
    loop {
        match (fmt.get(i), fmt.get(i + 1)) {
            (None, _) => return Err(Stop::Fail(format!("format {} has no % directive", q()))),
            (Some(b'%'), Some(b'%')) => i += 2,
            (Some(b'%'), _) => break,
            _ => i += 1,
        }
    }
    let mut prefix = Vec::new();
    unescape_percent(fmt.get(..i).unwrap_or_default(), &mut prefix);
    i += 1;
    let mut spec = Spec::default();
    while let Some(&c) = fmt.get(i) {
        match c {
            b'-' => spec.minus = true,
            b'+' => spec.plus = true,
            b'#' => spec.alt = true,
            b'0' => spec.zero = true,
            b' ' => spec.space = true,
            b'\'' => {}
            _ => break,
        }
        i += 1;
    }
    let digits = |i: &mut usize| {
        let mut v: usize = 0;
        while let Some(&d) = fmt.get(*i).filter(|d| d.is_ascii_digit()) {
            v = v.saturating_mul(10).saturating_add(usize::from(d - b'0'));
            *i += 1;
        }
        v
    };
    spec.width = digits(&mut i);
    if fmt.get(i) == Some(&b'.') {
        i += 1;
        spec.precision = Some(digits(&mut i));
    }
    if fmt.get(i) == Some(&b'L') {
        i += 1;
    }
    let Some(&conv) = fmt.get(i) else {
        return Err(Stop::Fail(format!("format {} ends in %", q())));
    };
    if !b"efgaEFGA".contains(&conv) {
        return Err(Stop::Fail(format!(
            "format {} has unknown %{} directive",
            q(),
            char::from(conv)
        )));
    }
    i += 1;
    let rest = fmt.get(i..).unwrap_or_default();
    let mut j = 0;
    while let Some(&c) = rest.get(j) {
        if c == b'%' {
            if rest.get(j + 1) != Some(&b'%') {
                return Err(Stop::Fail(format!(
                    "format {} has too many % directives",
                    q()
                )));
            }
            j += 2;
        } else {
            j += 1;
        }
    }
    let mut suffix = Vec::new();
    unescape_percent(rest, &mut suffix);
    Ok(Format {
        prefix,
        spec,
        conv,
        suffix,
    })
}

impl Format {
    /// The number alone, as the conversion prints it.
    fn number(&self, v: &LongDouble) -> Vec<u8> {
        let mut out = Vec::new();
        float(v, self.conv, &self.spec).write(&mut |b| {
            out.extend_from_slice(b);
            true
        });
        out
    }
}

/// GNU's `get_default_format`.
fn default_format(first: &Operand, step: &Operand, last: &Operand, equal_width: bool) -> Format {
    let general = Format {
        prefix: Vec::new(),
        spec: Spec::default(),
        conv: b'g',
        suffix: Vec::new(),
    };
    let (Some(fp), Some(sp), Some(lp)) = (first.precision, step.precision, last.precision) else {
        return general;
    };
    let prec = fp.max(sp);
    let mut spec = Spec {
        precision: usize::try_from(prec).ok(),
        ..Spec::default()
    };
    if equal_width {
        let mut first_width = first.width + (prec - fp);
        let mut last_width = last.width + (prec - lp);
        if lp != 0 && prec == 0 {
            last_width -= 1;
        }
        if lp == 0 && prec != 0 {
            last_width += 1;
        }
        if fp == 0 && prec != 0 {
            first_width += 1;
        }
        spec.zero = true;
        spec.width = usize::try_from(first_width.max(last_width)).unwrap_or(0);
    }
    Format {
        spec,
        conv: b'f',
        ..general
    }
}

/// Where the options stop: GNU's seq parses with `+` and takes `-1` or `-.5` as a number.
fn options_end(args: &[OsString]) -> usize {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let b = arg.as_bytes();
        if b == b"--" || b.len() < 2 || b.first() != Some(&b'-') {
            return i;
        }
        if matches!(b.get(1), Some(c) if *c == b'.' || c.is_ascii_digit()) {
            return i;
        }
        let takes_next = if b.starts_with(b"--") {
            !b.contains(&b'=')
                && [&b"--format"[..], b"--separator"]
                    .iter()
                    .any(|l| b.len() > 2 && l.starts_with(b))
        } else {
            // The last of a cluster of short options takes the next word as its value.
            let body = b.get(1..).unwrap_or_default();
            body.iter()
                .position(|&c| c == b'f' || c == b's')
                .is_some_and(|p| p + 1 == body.len())
        };
        i += if takes_next { 2 } else { 1 };
    }
    args.len()
}

fn all_digits(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(u8::is_ascii_digit)
}

/// Adds a small number to a decimal string of digits.
fn add_small(digits: &mut Vec<u8>, step: u64) {
    let mut carry = step;
    for d in digits.iter_mut().rev() {
        if carry == 0 {
            return;
        }
        let v = u64::from(*d - b'0') + carry;
        *d = b'0' + (v % 10) as u8;
        carry = v / 10;
    }
    while carry > 0 {
        digits.insert(0, b'0' + (carry % 10) as u8);
        carry /= 10;
    }
}

fn cmp_digits(a: &[u8], b: &[u8]) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn strip_zeros(s: &[u8]) -> Vec<u8> {
    let start = s
        .iter()
        .position(|&b| b != b'0')
        .unwrap_or(s.len().saturating_sub(1));
    s.get(start..).unwrap_or_default().to_vec()
}

/// GNU's `seq_fast`: exact decimal counting of whole numbers.
fn seq_fast(first: &[u8], last: &[u8], step: u64, separator: &[u8], ctx: &Ctx) -> Outcome {
    let mut o = Outcome::ok();
    let mut x = strip_zeros(first);
    let last = strip_zeros(last);
    if cmp_digits(&x, &last) == Ordering::Greater {
        return o;
    }
    let mut out = Vec::new();
    loop {
        out.extend_from_slice(&x);
        add_small(&mut x, step);
        if cmp_digits(&x, &last) == Ordering::Greater {
            break;
        }
        out.extend_from_slice(separator);
        if out.len() >= 16 * 1024 {
            o.out(std::mem::take(&mut out));
            if !ctx.flush(&mut o) {
                return o;
            }
        }
    }
    out.push(b'\n');
    o.out(out);
    o
}

/// How much output is gathered before it goes to the outcome.
const CHUNK: usize = 16 * 1024;

/// Past this length a number's text is its exact decimal value (a `long double` has at
/// most 16446 digits after the point).
const EXACT_TEXT: usize = 20_000;

fn text_len(f: &Field) -> usize {
    f.left_spaces
        + f.prefix.len()
        + f.zeros
        + f.body.len()
        + f.tail_zeros
        + f.suffix.len()
        + f.right_spaces
}

/// GNU's `print_numbers`.
fn print_numbers(
    fmt: &Format,
    separator: &[u8],
    first: &LongDouble,
    step: &LongDouble,
    last: &LongDouble,
    ctx: &Ctx,
) -> Outcome {
    let mut o = Outcome::ok();
    let descending = step.negative;
    let past = |x: &LongDouble| {
        if descending {
            cmp(x, last) == Some(Ordering::Less)
        } else {
            cmp(last, x) == Some(Ordering::Less)
        }
    };
    if past(first) {
        return o;
    }
    let mut out = Vec::new();
    let mut x = *first;
    let mut i: i64 = 1;
    loop {
        out.extend_from_slice(&fmt.prefix);
        // Written in pieces: `%.100000000f` never builds its text whole.
        let mut open = true;
        float(&x, fmt.conv, &fmt.spec).write(&mut |b| {
            out.extend_from_slice(b);
            if out.len() >= CHUNK {
                o.out(std::mem::take(&mut out));
                open = ctx.flush(&mut o);
            }
            open
        });
        if !open {
            return o;
        }
        out.extend_from_slice(&fmt.suffix);
        let prev = x;
        x = add(first, &mul(&LongDouble::from_i64(i), step));
        i = i.saturating_add(1);
        if past(&x) {
            // GNU prints the number just past LAST when it prints as LAST and differs from
            // the previous one (rounding: `seq 0 0.000001 0.000003`). A text this long is
            // exact, so it never reads back as LAST.
            let extra = text_len(&float(&x, fmt.conv, &fmt.spec)) <= EXACT_TEXT && {
                let x_text = fmt.number(&x);
                xstrtold(&x_text).is_some_and(|v| cmp(&v, last) == Some(Ordering::Equal))
                    && x_text != fmt.number(&prev)
            };
            if !extra {
                break;
            }
        }
        out.extend_from_slice(separator);
        if out.len() >= CHUNK {
            o.out(std::mem::take(&mut out));
            if !ctx.flush(&mut o) {
                return o;
            }
        }
    }
    out.push(b'\n');
    o.out(out);
    o
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<SeqArgs>(&options_first(args, options_end(args)))?;
    let n = a.numbers.len();
    if n == 0 {
        return Err(Stop::Usage("missing operand".into()));
    }
    if let Some(extra) = a.numbers.get(3) {
        return Err(Stop::Usage(format!("extra operand {}", quote(extra))));
    }
    if a.format.is_some() && a.equal_width {
        return Err(Stop::Usage(
            "format string may not be specified when printing equal width strings".into(),
        ));
    }
    let separator = a
        .separator
        .as_ref()
        .map_or(&b"\n"[..], |s| s.as_bytes())
        .to_vec();
    let nums: Vec<&[u8]> = a.numbers.iter().map(|s| s.as_bytes()).collect();
    let at = |k: usize| nums.get(k).copied().unwrap_or_default();
    let fast_step = if n == 3 {
        let s = at(1);
        if all_digits(s) {
            xstrtold(s).and_then(|_| {
                let v = strip_zeros(s);
                std::str::from_utf8(&v)
                    .ok()
                    .and_then(|t| t.parse::<u64>().ok())
                    .filter(|&v| v > 0 && v <= FAST_STEP_LIMIT)
            })
        } else {
            None
        }
    } else {
        Some(1)
    };
    if let Some(step) = fast_step
        && all_digits(at(0))
        && (n == 1 || all_digits(at(1)))
        && (n < 3 || all_digits(at(2)))
        && !a.equal_width
        && a.format.is_none()
    {
        let (first, last) = if n == 1 {
            (&b"1"[..], at(0))
        } else {
            (at(0), at(n - 1))
        };
        return Ok(seq_fast(first, last, step, &separator, ctx));
    }
    let one = Operand {
        value: LongDouble::from_i64(1),
        width: 1,
        precision: Some(0),
    };
    let (first, step) = match &a.numbers[..] {
        [_] => (
            Operand {
                value: LongDouble::from_i64(1),
                width: 1,
                precision: Some(0),
            },
            one,
        ),
        [f, _] => (scan_arg(f)?, one),
        [f, s, _] => {
            let first = scan_arg(f)?;
            let step = scan_arg(s)?;
            if step.value.class == Class::Zero {
                return Err(Stop::Usage(format!(
                    "invalid Zero increment value: {}",
                    quote(s)
                )));
            }
            (first, step)
        }
        _ => return Err(Stop::Usage("missing operand".into())),
    };
    let last = match a.numbers.last() {
        Some(l) => scan_arg(l)?,
        None => return Err(Stop::Usage("missing operand".into())),
    };
    let fmt = match &a.format {
        Some(f) => parse_format(f.as_bytes())?,
        None => default_format(&first, &step, &last, a.equal_width),
    };
    Ok(print_numbers(
        &fmt,
        &separator,
        &first.value,
        &step.value,
        &last.value,
        ctx,
    ))
}

#[cfg(test)]
mod tests {
    use crate::testing::world::{World, text};

    fn seq(args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(crate::CommandName::Seq, args))
    }

    #[test]
    fn sequences_as_gnu() {
        // Expected outputs from GNU coreutils 9.1 seq, LC_ALL=C.
        for (args, want) in [
            (&["3"][..], "1\n2\n3\n"),
            (&["1", "0.5", "3"], "1.0\n1.5\n2.0\n2.5\n3.0\n"),
            (&["-w", "8", "10"], "08\n09\n10\n"),
            (&["-f", "%03g", "3"], "001\n002\n003\n"),
            (&["5", "1"], ""),
            (&["-w", "-5", "2"], "-5\n-4\n-3\n-2\n-1\n00\n01\n02\n"),
            (&["007", "9"], "7\n8\n9\n"),
            (&["-w", "1", "0.5", "2"], "1.0\n1.5\n2.0\n"),
            (
                &["-w", "0", "1e1"],
                "00\n01\n02\n03\n04\n05\n06\n07\n08\n09\n10\n",
            ),
            (&["-w", "0", "1.25e1", "20"], "00.0\n12.5\n"),
            (&["-w", "1", "1.0e-1", "1.2"], "1.00\n1.10\n1.20\n"),
            (&["-w", "-.5", "1"], "-0.5\n00.5\n"),
            (&["0.1", "0.1", "0.5"], "0.1\n0.2\n0.3\n0.4\n0.5\n"),
            (
                &["0", "0.000001", "0.000003"],
                "0.000000\n0.000001\n0.000002\n0.000003\n",
            ),
            (&["10", "-3", "1"], "10\n7\n4\n1\n"),
            (&["-s", ",", "3"], "1,2,3\n"),
            (&["-s", "ab", "-w", "9", "11"], "09ab10ab11\n"),
            (&["-f", "a%%b%gc%%", "2"], "a%b1c%\na%b2c%\n"),
            (&["-f", "%-5g|", "2"], "1    |\n2    |\n"),
            (&["-f", "%a", "2"], "0x8p-3\n0x8p-2\n"),
            (&["0x10", "0x12"], "16\n17\n18\n"),
            (&["--", "-1", "1"], "-1\n0\n1\n"),
            (&["-1", "1"], "-1\n0\n1\n"),
            (&["-0", "1"], "-0\n1\n"),
            (&["1", "inf", "3"], "1\n"),
            (&["1", "201", "1000"], "1\n202\n403\n604\n805\n"),
            (
                &["99999999999999999999", "100000000000000000001"],
                "99999999999999999999\n100000000000000000000\n100000000000000000001\n",
            ),
        ] {
            assert_eq!(seq(args), (want.into(), String::new(), 0), "{args:?}");
        }
    }

    #[test]
    fn errors_as_gnu() {
        let usage = |m: &str| format!("seq: {m}\nTry 'seq --help' for more information.\n");
        for (args, err) in [
            (&[][..], usage("missing operand")),
            (&["1", "2", "3", "4"], usage("extra operand '4'")),
            (&["x"], usage("invalid floating point argument: 'x'")),
            (
                &["1e5000"],
                usage("invalid floating point argument: '1e5000'"),
            ),
            (
                &["1", "nan"],
                usage("invalid 'not-a-number' argument: 'nan'"),
            ),
            (
                &["1", "-0.0", "2"],
                usage("invalid Zero increment value: '-0.0'"),
            ),
            (
                &["-w", "-f", "%g", "3"],
                usage("format string may not be specified when printing equal width strings"),
            ),
            (&["-inf", "1"], usage("invalid option -- 'i'")),
            (
                &["-f", "%x", "3"],
                "seq: format '%x' has unknown %x directive\n".into(),
            ),
            (
                &["-f", "abc", "3"],
                "seq: format 'abc' has no % directive\n".into(),
            ),
            (
                &["-f", "%%", "3"],
                "seq: format '%%' has no % directive\n".into(),
            ),
            (
                &["-f", "%g%g", "3"],
                "seq: format '%g%g' has too many % directives\n".into(),
            ),
            (&["-f", "%", "3"], "seq: format '%' ends in %\n".into()),
        ] {
            assert_eq!(seq(args), (String::new(), err, 1), "{args:?}");
        }
    }
}
