//! `numfmt`, GNU coreutils 9.1: numbers to and from human-readable strings (`1.5K`, `2.0Mi`),
//! in operands or in the fields of stdin's lines. GNU computes in the x87 `long double`; so
//! does this handler, through [`crate::support::ldmath`], step for step as `numfmt.c` does
//! (parsing digit by digit, scaling by repeated division, rounding through `intmax_t`), so
//! that the rounding lands where GNU's does; `printf("%.*Lf")` is [`cprintf::float`].

use std::cmp::Ordering;
use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::argmatch::argmatch;
use crate::support::args::parse_args;
use crate::support::cprintf::{self, Spec};
use crate::support::ldmath::{add, cmp, div, mul};
use crate::support::ldouble::{Class, LongDouble};
use crate::support::quote::quote_locale;
use crate::{Ctx, Outcome};

/// Reformat NUMBER(s), or the numbers from standard input if none are specified.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "numfmt [OPTION]... [NUMBER]...")]
pub struct NumfmtArgs {
    /// print warnings about invalid input
    #[arg(long = "debug")]
    debug: bool,
    /// use X instead of whitespace for field delimiter
    #[arg(short = 'd', long = "delimiter", value_name = "X")]
    delimiter: Option<OsString>,
    /// replace the numbers in these input fields (default=1)
    #[arg(long = "field", value_name = "FIELDS")]
    field: Option<OsString>,
    /// use printf style floating-point FORMAT
    #[arg(long = "format", value_name = "FORMAT")]
    format: Option<OsString>,
    /// auto-scale input numbers to UNITs; default is 'none'
    #[arg(long = "from", value_name = "UNIT")]
    from: Option<String>,
    /// specify the input unit size (instead of the default 1)
    #[arg(long = "from-unit", value_name = "N")]
    from_unit: Option<OsString>,
    /// use locale-defined grouping of digits, e.g. 1,000,000
    #[arg(long = "grouping")]
    grouping: bool,
    /// print (without converting) the first N header lines; N defaults to 1
    #[arg(long = "header", value_name = "N", num_args = 0..=1, require_equals = true,
          default_missing_value = "1")]
    header: Option<OsString>,
    /// failure mode for invalid numbers: abort, fail, warn, ignore
    #[arg(long = "invalid", value_name = "MODE")]
    invalid: Option<String>,
    /// pad the output to N characters; positive N will right-align, negative N left-align
    #[arg(long = "padding", value_name = "N", allow_hyphen_values = true)]
    padding: Option<OsString>,
    /// use METHOD for rounding when scaling; default is 'from-zero'
    #[arg(long = "round", value_name = "METHOD")]
    round: Option<String>,
    /// add SUFFIX to output numbers, and accept optional SUFFIX in input numbers
    #[arg(long = "suffix", value_name = "SUFFIX")]
    suffix: Option<OsString>,
    /// auto-scale output numbers to UNITs
    #[arg(long = "to", value_name = "UNIT")]
    to: Option<String>,
    /// the output unit size (instead of the default 1)
    #[arg(long = "to-unit", value_name = "N")]
    to_unit: Option<OsString>,
    /// line delimiter is NUL, not newline
    #[arg(short = 'z', long = "zero-terminated")]
    zero: bool,
    numbers: Vec<OsString>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scale {
    None,
    Auto,
    Si,
    Iec,
    IecI,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Round {
    Up,
    Down,
    FromZero,
    TowardsZero,
    Nearest,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Invalid {
    Abort,
    Fail,
    Warn,
    Ignore,
}

const FROM: &[(&str, Scale)] = &[
    ("none", Scale::None),
    ("auto", Scale::Auto),
    ("si", Scale::Si),
    ("iec", Scale::Iec),
    ("iec-i", Scale::IecI),
];
const TO: &[(&str, Scale)] = &[
    ("none", Scale::None),
    ("si", Scale::Si),
    ("iec", Scale::Iec),
    ("iec-i", Scale::IecI),
];
const ROUND: &[(&str, Round)] = &[
    ("up", Round::Up),
    ("down", Round::Down),
    ("from-zero", Round::FromZero),
    ("towards-zero", Round::TowardsZero),
    ("nearest", Round::Nearest),
];
const INVALID: &[(&str, Invalid)] = &[
    ("abort", Invalid::Abort),
    ("fail", Invalid::Fail),
    ("warn", Invalid::Warn),
    ("ignore", Invalid::Ignore),
];

/// GNU's limits: digits printed without scaling, digits accepted at all.
const MAX_UNSCALED_DIGITS: usize = 18;
const MAX_ACCEPTABLE_DIGITS: usize = 27;
/// The status of a conversion error.
const CONVERSION_ERROR: i32 = 2;

/// The settings of one run.
struct Cfg {
    from: Scale,
    to: Scale,
    from_unit: u64,
    to_unit: u64,
    round: Round,
    invalid: Invalid,
    suffix: Option<Vec<u8>>,
    padding: usize,
    left: bool,
    auto_padding: bool,
    /// Field ranges (inclusive); `None`: field 1.
    fields: Option<Vec<(u64, u64)>>,
    delimiter: Option<u8>,
    zero_padding: usize,
    user_precision: Option<usize>,
    prefix: Vec<u8>,
    format_suffix: Vec<u8>,
}

fn ld(v: i64) -> LongDouble {
    LongDouble::from_i64(v)
}

fn neg(v: LongDouble) -> LongDouble {
    LongDouble {
        negative: !v.negative,
        ..v
    }
}

fn abs(v: LongDouble) -> LongDouble {
    LongDouble {
        negative: false,
        ..v
    }
}

fn less(a: &LongDouble, b: &LongDouble) -> bool {
    cmp(a, b) == Some(Ordering::Less)
}

fn powerld(base: i64, x: usize) -> LongDouble {
    let mut r = ld(1);
    let b = ld(base);
    for _ in 0..x {
        r = mul(&r, &b);
    }
    r
}

/// C's conversion of a `long double` to `intmax_t` (truncation; out of range: `INTMAX_MIN`,
/// as the x87 gives).
fn trunc_i64(v: &LongDouble) -> i64 {
    let Class::Finite { mant, exp } = v.class else {
        return if v.class == Class::Zero { 0 } else { i64::MIN };
    };
    let magnitude: Option<u64> = if exp >= 0 {
        u32::try_from(exp)
            .ok()
            .and_then(|e| mant.checked_shl(e).filter(|s| s >> e == mant))
    } else if exp <= -64 {
        Some(0)
    } else {
        Some(mant >> exp.unsigned_abs())
    };
    match magnitude.and_then(|m| i64::try_from(m).ok()) {
        Some(m) if v.negative => -m,
        Some(m) => m,
        None => i64::MIN,
    }
}

fn ceiling(v: &LongDouble) -> i64 {
    let i = trunc_i64(v);
    if less(&ld(i), v) {
        i.saturating_add(1)
    } else {
        i
    }
}

fn floor(v: &LongDouble) -> i64 {
    ceiling(&neg(*v)).saturating_neg()
}

/// GNU's `simple_round`: through `intmax_t`, in pieces of `INTMAX_MAX`.
fn simple_round(val: LongDouble, round: Round) -> LongDouble {
    let imax = ld(i64::MAX);
    let m = trunc_i64(&div(&val, &imax));
    let whole = mul(&imax, &ld(m));
    let val = add(&val, &neg(whole));
    let negative = less(&val, &LongDouble::ZERO);
    let up = match round {
        Round::Up => true,
        Round::Down => false,
        Round::FromZero => !negative,
        Round::TowardsZero => negative,
        Round::Nearest => {
            let half = div(&ld(1), &ld(2));
            let r = trunc_i64(&add(&val, &if negative { neg(half) } else { half }));
            return add(&whole, &ld(r));
        }
    };
    let r = if up { ceiling(&val) } else { floor(&val) };
    add(&whole, &ld(r))
}

/// GNU's `expld`: the value divided by `base` until below it, and how many times.
fn expld(mut val: LongDouble, base: i64) -> (LongDouble, usize) {
    let mut power = 0;
    if matches!(val.class, Class::Finite { .. } | Class::Zero) {
        let b = ld(base);
        while !less(&abs(val), &b) {
            power += 1;
            val = div(&val, &b);
        }
    }
    (val, power)
}

/// Why a number was refused (GNU's `simple_strtod_error`).
enum Sse {
    Overflow,
    Invalid,
    InvalidSuffix,
    Forbidden,
    MissingI,
}

fn blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// `simple_strtod_int`: an optional `-`, decimal digits (or none before a `.`).
fn strtod_int(s: &[u8], mut i: usize) -> Result<(LongDouble, usize, bool), Sse> {
    let negative = s.get(i) == Some(&b'-');
    if negative {
        i += 1;
    }
    let mut val = LongDouble::ZERO;
    let mut digits = 0;
    let mut found = false;
    while let Some(&c) = s.get(i).filter(|c| c.is_ascii_digit()) {
        let d = c - b'0';
        found = true;
        if val.class != Class::Zero || d != 0 {
            digits += 1;
        }
        if digits > MAX_ACCEPTABLE_DIGITS {
            return Err(Sse::Overflow);
        }
        val = add(&mul(&val, &ld(10)), &ld(i64::from(d)));
        i += 1;
    }
    if !found && s.get(i) != Some(&b'.') {
        return Err(Sse::Invalid);
    }
    if negative {
        val = neg(val);
    }
    Ok((val, i, negative))
}

/// `simple_strtod_float`: the integer part, then an optional fraction; the value, where it
/// stopped, and the fraction's digit count.
fn strtod_float(s: &[u8]) -> Result<(LongDouble, usize, usize), Sse> {
    let (mut val, mut i, negative) = strtod_int(s, 0)?;
    let mut precision = 0;
    if s.get(i) == Some(&b'.') {
        i += 1;
        let (frac, j, negative_frac) = strtod_int(s, i)?;
        if negative_frac {
            return Err(Sse::Invalid);
        }
        let exponent = j - i;
        let frac = div(&frac, &powerld(10, exponent));
        val = add(&val, &if negative { neg(frac) } else { frac });
        precision = exponent;
        i = j;
    }
    Ok((val, i, precision))
}

fn suffix_power(c: u8) -> usize {
    b"KMGTPEZY"
        .iter()
        .position(|&s| s == c)
        .map_or(0, |p| p + 1)
}

/// `simple_strtod_human`: the number, an optional unit letter as `--from` allows.
fn strtod_human(s: &[u8], from: Scale) -> Result<(LongDouble, usize, usize), Sse> {
    let mut base = if matches!(from, Scale::Iec | Scale::IecI) {
        1024
    } else {
        1000
    };
    let mut power = 0;
    let (mut val, mut i, mut precision) = strtod_float(s)?;
    if i < s.len() {
        while s.get(i).copied().is_some_and(blank) {
            i += 1;
        }
        let c = s.get(i).copied();
        if c.is_some_and(|c| suffix_power(c) == 0) {
            return Err(Sse::InvalidSuffix);
        }
        if from == Scale::None {
            return Err(Sse::Forbidden);
        }
        power = c.map_or(0, suffix_power);
        i = (i + 1).min(s.len());
        if from == Scale::Auto && s.get(i) == Some(&b'i') {
            base = 1024;
            i += 1;
        }
        precision = 0;
    }
    if from == Scale::IecI {
        if s.get(i) == Some(&b'i') {
            i += 1;
        } else {
            return Err(Sse::MissingI);
        }
    }
    val = mul(&val, &powerld(base, power));
    Ok((val, precision, i))
}

fn q(s: &[u8]) -> String {
    quote_locale(std::ffi::OsStr::from_bytes(s))
}

/// `%Lg` of a value, for the messages.
fn g(v: &LongDouble) -> String {
    String::from_utf8_lossy(&field_bytes(&cprintf::float(v, b'g', &Spec::default()))).into_owned()
}

/// A printed field's bytes.
fn field_bytes(f: &cprintf::Field) -> Vec<u8> {
    let mut out = Vec::new();
    f.write(&mut |b| {
        out.extend_from_slice(b);
        true
    });
    out
}

fn suffix_power_char(power: usize) -> &'static str {
    ["", "K", "M", "G", "T", "P", "E", "Z", "Y"]
        .get(power)
        .copied()
        .unwrap_or("(error)")
}

impl Cfg {
    /// `parse_human_number`: the value and its precision, or the message.
    fn parse(&self, s: &[u8]) -> Result<(LongDouble, usize), String> {
        match strtod_human(s, self.from) {
            Ok((v, p, end)) => {
                if end < s.len() {
                    let rest = s.get(end..).unwrap_or_default();
                    return Err(format!("invalid suffix in input {}: {}", q(s), q(rest)));
                }
                Ok((v, p))
            }
            Err(e) => Err(match e {
                Sse::Overflow => format!("value too large to be converted: {}", q(s)),
                Sse::Invalid => format!("invalid number: {}", q(s)),
                Sse::InvalidSuffix => format!("invalid suffix in input: {}", q(s)),
                Sse::Forbidden => {
                    format!(
                        "rejecting suffix in input: {} (consider using --from)",
                        q(s)
                    )
                }
                Sse::MissingI => format!("missing 'i' suffix in input: {} (e.g Ki/Mi/Gi)", q(s)),
            }),
        }
    }

    /// `double_to_human`.
    fn to_human(&self, val: LongDouble, precision: usize) -> Vec<u8> {
        let mut spec = Spec {
            zero: self.zero_padding > 0,
            width: self.zero_padding,
            ..Spec::default()
        };
        if self.to == Scale::None {
            let p = powerld(10, precision);
            let v = div(&simple_round(mul(&val, &p), self.round), &p);
            spec.precision = Some(precision);
            return field_bytes(&cprintf::float(&v, b'f', &spec));
        }
        let base = if self.to == Scale::Si { 1000 } else { 1024 };
        let (v, mut power) = expld(val, base);
        let adjust = match self.user_precision {
            Some(up) => (power * 3).min(up),
            None if less(&abs(v), &ld(10)) => 1,
            None => 0,
        };
        let p = powerld(10, adjust);
        let mut v = div(&simple_round(mul(&v, &p), self.round), &p);
        if !less(&abs(v), &ld(base)) {
            v = div(&v, &ld(base));
            power += 1;
        }
        let show_point = v.class != Class::Zero && less(&abs(v), &ld(10)) && power > 0;
        spec.precision = Some(self.user_precision.unwrap_or(usize::from(show_point)));
        let mut out = field_bytes(&cprintf::float(&v, b'f', &spec));
        out.extend_from_slice(suffix_power_char(power).as_bytes());
        if self.to == Scale::IecI && power > 0 {
            out.push(b'i');
        }
        out
    }

    /// `prepare_padded_number`: the text of the field, or the message.
    fn padded(&self, val: LongDouble, precision: usize, width: usize) -> Result<Vec<u8>, String> {
        let used = self.user_precision.unwrap_or(precision);
        let (_, x) = expld(val, 10);
        if self.to == Scale::None && x + used > MAX_UNSCALED_DIGITS {
            return Err(if used > 0 {
                format!(
                    "value/precision too large to be printed: '{}/{used}' (consider using --to)",
                    g(&val)
                )
            } else {
                format!(
                    "value too large to be printed: '{}' (consider using --to)",
                    g(&val)
                )
            });
        }
        if x > MAX_ACCEPTABLE_DIGITS - 1 {
            return Err(format!(
                "value too large to be printed: '{}' (cannot handle values > 999Y)",
                g(&val)
            ));
        }
        let mut buf = self.to_human(val, used);
        if let Some(s) = &self.suffix {
            buf.extend_from_slice(s);
        }
        if width > 0 && buf.len() < width {
            let pad = vec![b' '; width - buf.len()];
            if self.left {
                buf.extend_from_slice(&pad);
            } else {
                buf.splice(0..0, pad);
            }
        }
        Ok(buf)
    }

    fn include(&self, field: u64) -> bool {
        match &self.fields {
            None => field == 1,
            Some(r) => r.iter().any(|&(lo, hi)| lo <= field && field <= hi),
        }
    }

    /// One field into `o`; `Err` with the message when the number was refused.
    fn field(&self, text: &[u8], field: u64, o: &mut Outcome) -> Result<(), String> {
        if !self.include(field) {
            o.out(text);
            return Ok(());
        }
        let mut text = text;
        if let Some(s) = &self.suffix
            && text.len() > s.len()
            && text.ends_with(s)
        {
            text = text.get(..text.len() - s.len()).unwrap_or_default();
        }
        let lead = text.iter().take_while(|&&c| blank(c)).count();
        let p = text.get(lead..).unwrap_or_default();
        let width = if !self.auto_padding {
            self.padding
        } else if lead > 0 || field > 1 {
            text.len()
        } else {
            0
        };
        let done = self.parse(p).and_then(|(mut v, precision)| {
            if self.from_unit != 1 || self.to_unit != 1 {
                v = mul(&v, &u64_ld(self.from_unit));
                v = div(&v, &u64_ld(self.to_unit));
            }
            self.padded(v, precision, width)
        });
        match done {
            Ok(buf) => {
                o.out(&self.prefix);
                o.out(buf);
                o.out(&self.format_suffix);
                Ok(())
            }
            Err(msg) => {
                if self.invalid != Invalid::Abort {
                    o.out(text);
                }
                Err(msg)
            }
        }
    }

    /// `process_line`: the fields of one line; false when a number was refused. `Err`: abort.
    fn line(&self, line: &[u8], o: &mut Outcome) -> Result<bool, String> {
        let line = line.split(|&c| c == 0).next().unwrap_or_default();
        let sep = |c: u8| blank(c) || c == b'\n';
        let mut valid = true;
        let mut pos = 0;
        let mut field = 0u64;
        loop {
            field += 1;
            let mut end = pos;
            if let Some(d) = self.delimiter {
                while line.get(end).is_some_and(|&c| c != d) {
                    end += 1;
                }
            } else {
                while line.get(end).copied().is_some_and(sep) {
                    end += 1;
                }
                while line.get(end).is_some_and(|&c| !sep(c)) {
                    end += 1;
                }
            }
            let text = line.get(pos..end).unwrap_or_default();
            if let Err(msg) = self.field(text, field, o) {
                valid = false;
                match self.invalid {
                    Invalid::Abort => return Err(msg),
                    Invalid::Ignore => {}
                    Invalid::Fail | Invalid::Warn => {
                        o.err(format!("numfmt: {msg}\n"));
                    }
                }
            }
            if end < line.len() {
                o.out([self.delimiter.unwrap_or(b' ')]);
                pos = end + 1;
            } else {
                return Ok(valid);
            }
        }
    }
}

fn u64_ld(v: u64) -> LongDouble {
    i64::try_from(v).map_or_else(|_| mul(&ld(i64::try_from(v / 2).unwrap_or(0)), &ld(2)), ld)
}

/// `unit_to_umax`: `4`, `1K` (1000), `1Ki` (1024).
fn unit_size(arg: &OsString) -> Result<u64, Stop> {
    let bytes = arg.as_bytes();
    let bad = || Stop::Fail(format!("invalid unit size: {}", quote_locale(arg)));
    let digits = bytes.iter().take_while(|c| c.is_ascii_digit()).count();
    let (num, rest) = bytes.split_at(digits);
    let n: u64 = std::str::from_utf8(num)
        .ok()
        .and_then(|t| t.parse().ok())
        .ok_or_else(bad)?;
    let mult: u64 = match rest {
        [] => 1,
        [c] | [c, b'i'] => {
            let p = u32::try_from(suffix_power(*c)).unwrap_or(0);
            if p == 0 {
                return Err(bad());
            }
            let base: u64 = if rest.len() == 2 { 1024 } else { 1000 };
            base.checked_pow(p).ok_or_else(bad)?
        }
        _ => return Err(bad()),
    };
    match n.checked_mul(mult) {
        Some(v) if v > 0 => Ok(v),
        _ => Err(bad()),
    }
}

/// `--field`: GNU's `set_fields` with `-` for all fields.
fn parse_fields(s: &[u8]) -> Result<Vec<(u64, u64)>, Stop> {
    let from1 = || Stop::Usage("fields are numbered from 1".into());
    if s == b"-" {
        return Ok(vec![(1, u64::MAX)]);
    }
    if s.is_empty() {
        return Err(from1());
    }
    let num = |t: &[u8]| -> Result<u64, Stop> {
        std::str::from_utf8(t)
            .ok()
            .filter(|t| t.bytes().all(|c| c.is_ascii_digit()))
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| Stop::Usage(format!("invalid field value {}", q(t))))
    };
    let mut out = Vec::new();
    for item in s.split(|&c| c == b',' || blank(c)) {
        let (lo, hi) = match item.iter().position(|&c| c == b'-') {
            None => {
                let n = num(item)?;
                (n, n)
            }
            Some(at) => {
                let (a, b) = (
                    item.get(..at).unwrap_or_default(),
                    item.get(at + 1..).unwrap_or_default(),
                );
                if b.contains(&b'-') || (a.is_empty() && b.is_empty()) {
                    return Err(Stop::Usage("invalid field range".into()));
                }
                let lo = if a.is_empty() { 1 } else { num(a)? };
                let hi = if b.is_empty() { u64::MAX } else { num(b)? };
                if hi == 0 {
                    return Err(from1());
                }
                if hi < lo {
                    return Err(Stop::Usage("invalid decreasing range".into()));
                }
                (lo, hi)
            }
        };
        if lo == 0 {
            return Err(from1());
        }
        out.push((lo, hi));
    }
    Ok(out)
}

/// `parse_format_string`: prefix, zero padding, width, precision, suffix.
fn parse_format(fmt: &[u8], cfg: &mut Cfg) -> Result<(), Stop> {
    let quoted = q(fmt);
    let at = |i: usize| fmt.get(i).copied().unwrap_or(0);
    let mut i = 0;
    let mut prefix_len = 0;
    while !(at(i) == b'%' && at(i + 1) != b'%') {
        if at(i) == 0 {
            return Err(Stop::Fail(format!("format {quoted} has no % directive")));
        }
        prefix_len += 1;
        i += usize::from(at(i) == b'%') + 1;
    }
    i += 1;
    let mut zero = false;
    loop {
        let skip = fmt
            .get(i..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&c| c == b' ')
            .count();
        i += skip;
        if at(i) == b'\'' {
            i += 1;
        } else if at(i) == b'0' {
            zero = true;
            i += 1;
        } else if skip == 0 {
            break;
        }
    }
    // strtol: blanks, a sign, digits.
    let mut j = i;
    while at(j) == b' ' || (b'\t'..=b'\r').contains(&at(j)) {
        j += 1;
    }
    let minus = at(j) == b'-';
    if matches!(at(j), b'-' | b'+') {
        j += 1;
    }
    let digits = fmt
        .get(j..)
        .unwrap_or_default()
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if digits > 0 {
        let text = fmt.get(j..j + digits).unwrap_or_default();
        let pad: usize = std::str::from_utf8(text)
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| Stop::Fail(format!("invalid format {quoted} (width overflow)")))?;
        if pad != 0 {
            if minus {
                cfg.left = true;
                cfg.padding = pad;
            } else if zero {
                cfg.zero_padding = pad;
            } else {
                cfg.padding = pad;
            }
        }
        i = j + digits;
    }
    if at(i) == 0 {
        return Err(Stop::Fail(format!("format {quoted} ends in %")));
    }
    if at(i) == b'.' {
        i += 1;
        let bad = || Stop::Fail(format!("invalid precision in format {quoted}"));
        if blank(at(i)) || at(i) == b'+' || at(i) == b'-' {
            return Err(bad());
        }
        let digits = fmt
            .get(i..)
            .unwrap_or_default()
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let text = fmt.get(i..i + digits).unwrap_or_default();
        cfg.user_precision = Some(if digits == 0 {
            0
        } else {
            std::str::from_utf8(text)
                .ok()
                .and_then(|t| t.parse().ok())
                .ok_or_else(bad)?
        });
        i += digits;
    }
    if at(i) != b'f' {
        return Err(Stop::Fail(format!(
            "invalid format {quoted}, directive must be %[0]['][-][N][.][N]f"
        )));
    }
    i += 1;
    let suffix_pos = i;
    while at(i) != 0 {
        if at(i) == b'%' && at(i + 1) != b'%' {
            return Err(Stop::Fail(format!(
                "format {quoted} has too many % directives"
            )));
        }
        i += usize::from(at(i) == b'%') + 1;
    }
    cfg.prefix = fmt.get(..prefix_len).unwrap_or_default().to_vec();
    cfg.format_suffix = fmt.get(suffix_pos..).unwrap_or_default().to_vec();
    Ok(())
}

fn config(a: &NumfmtArgs) -> Result<Cfg, Stop> {
    let mut cfg = Cfg {
        from: Scale::None,
        to: Scale::None,
        from_unit: 1,
        to_unit: 1,
        round: Round::FromZero,
        invalid: Invalid::Abort,
        suffix: a.suffix.as_ref().map(|s| s.as_bytes().to_vec()),
        padding: 0,
        left: false,
        auto_padding: false,
        fields: None,
        delimiter: None,
        zero_padding: 0,
        user_precision: None,
        prefix: Vec::new(),
        format_suffix: Vec::new(),
    };
    if let Some(f) = &a.from {
        cfg.from = argmatch("--from", f, FROM)?;
    }
    if let Some(u) = &a.from_unit {
        cfg.from_unit = unit_size(u)?;
    }
    if let Some(t) = &a.to {
        cfg.to = argmatch("--to", t, TO)?;
    }
    if let Some(u) = &a.to_unit {
        cfg.to_unit = unit_size(u)?;
    }
    if let Some(r) = &a.round {
        cfg.round = argmatch("--round", r, ROUND)?;
    }
    if let Some(p) = &a.padding {
        let n: i64 = p
            .to_str()
            .and_then(|t| t.parse().ok())
            .filter(|&n| n != 0)
            .ok_or_else(|| Stop::Fail(format!("invalid padding value {}", quote_locale(p))))?;
        cfg.left = n < 0;
        cfg.padding = usize::try_from(n.unsigned_abs()).unwrap_or(usize::MAX);
    }
    if let Some(f) = &a.field {
        cfg.fields = Some(parse_fields(f.as_bytes())?);
    }
    if let Some(d) = &a.delimiter {
        match d.as_bytes() {
            [c] => cfg.delimiter = Some(*c),
            [] => cfg.delimiter = Some(0),
            _ => {
                return Err(Stop::Fail(
                    "the delimiter must be a single character".into(),
                ));
            }
        }
    }
    if let Some(i) = &a.invalid {
        cfg.invalid = argmatch("--invalid", i, INVALID)?;
    }
    if let Some(f) = &a.format {
        parse_format(f.as_bytes(), &mut cfg)?;
    }
    if a.grouping && cfg.to != Scale::None {
        return Err(Stop::Fail("grouping cannot be combined with --to".into()));
    }
    cfg.auto_padding = cfg.padding == 0 && cfg.delimiter.is_none();
    Ok(cfg)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<NumfmtArgs>(args)?;
    let header = match &a.header {
        None => 0,
        Some(h) => h
            .to_str()
            .and_then(|t| t.parse::<u64>().ok())
            .filter(|&n| n > 0)
            .ok_or_else(|| Stop::Fail(format!("invalid header value {}", quote_locale(h))))?,
    };
    let cfg = config(&a)?;
    let eol = if a.zero { 0 } else { b'\n' };
    let mut o = Outcome::ok();
    if a.debug {
        if a.grouping {
            o.err("numfmt: grouping has no effect in this locale\n");
        }
        if cfg.from == Scale::None
            && cfg.to == Scale::None
            && !a.grouping
            && cfg.padding == 0
            && a.format.is_none()
        {
            o.err("numfmt: no conversion option specified\n");
        }
        if header > 0 && !a.numbers.is_empty() {
            o.err("numfmt: --header ignored with command-line input\n");
        }
    }
    let mut valid = true;
    let abort = |o: Outcome, msg: String| Stop::FailWith(msg, CONVERSION_ERROR).after(o);
    if a.numbers.is_empty() {
        let mut reader = BufReader::new(ctx.stdin);
        let mut line = Vec::new();
        let mut skip = header;
        loop {
            line.clear();
            match reader.read_until(eol, &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if skip > 0 {
                skip -= 1;
                o.out(&line);
            } else {
                let newline = line.last() == Some(&eol);
                let body = if newline {
                    line.get(..line.len() - 1).unwrap_or_default()
                } else {
                    &line
                };
                match cfg.line(body, &mut o) {
                    Ok(v) => valid &= v,
                    Err(msg) => return Err(abort(o, msg)),
                }
                if newline {
                    o.out([eol]);
                }
            }
            if !ctx.flush(&mut o) {
                return Ok(o);
            }
        }
    } else {
        for n in &a.numbers {
            match cfg.line(n.as_bytes(), &mut o) {
                Ok(v) => valid &= v,
                Err(msg) => return Err(abort(o, msg)),
            }
            o.out([eol]);
            if !ctx.flush(&mut o) {
                return Ok(o);
            }
        }
    }
    if a.debug && !valid {
        o.err("numfmt: failed to convert some of the input numbers\n");
    }
    if !valid && cfg.invalid == Invalid::Fail {
        o.status = CONVERSION_ERROR;
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Numfmt;
    use crate::testing::world::{World, text};

    fn out(args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(Numfmt, args))
    }

    #[test]
    fn scales_as_gnu() {
        assert_eq!(
            out(&["--to=si", "1500", "1000000", "999999", "1.1", "--", "-1500"]).0,
            "1.5K\n1.0M\n1.0M\n1\n-1.5K\n"
        );
        assert_eq!(
            out(&["--from=auto", "1Ki", "1K", "1Mi"]).0,
            "1024\n1000\n1048576\n"
        );
    }

    #[test]
    fn errors_as_gnu() {
        assert_eq!(
            out(&["1K"]),
            (
                String::new(),
                "numfmt: rejecting suffix in input: '1K' (consider using --from)\n".into(),
                2
            )
        );
        assert_eq!(
            out(&["--invalid=fail", "x", "1"]),
            ("x\n1\n".into(), "numfmt: invalid number: 'x'\n".into(), 2)
        );
        assert_eq!(
            out(&["10000000000000000000"]).1,
            "numfmt: value too large to be printed: '1e+19' (consider using --to)\n"
        );
        assert_eq!(out(&["--padding=0", "1"]).2, 1);
    }

    #[test]
    fn formats_as_gnu() {
        assert_eq!(
            out(&["--format=%010f", "--to=si", "1500"]).0,
            "00000001.5K\n"
        );
        assert_eq!(out(&["--format=%-8.2f|", "--", "-1.5"]).0, "-1.50   |\n");
        assert_eq!(
            out(&["--round=nearest", "0.5", "1.5", "2.5"]).0,
            "0.5\n1.5\n2.5\n"
        );
        assert_eq!(
            out(&["--field=2-", "--to=si", "1000 2000 3000"]).0,
            "1000 2.0K 3.0K\n"
        );
    }
}
