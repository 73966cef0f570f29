//! awk's values: numbers, strings, and strnums (input that looks like a number compares as
//! one), with POSIX's conversions: a string's leading number (`strtod`, no hex), a number's
//! text by `CONVFMT`/`OFMT` unless it is integral (then exactly its digits, as gawk).

use std::rc::Rc;

use crate::support::cprintf::{self, Spec};
use crate::support::ldouble::{Class, LongDouble};

#[derive(Debug, Clone, Default)]
pub enum Value {
    #[default]
    Uninit,
    Num(f64),
    Str(Rc<[u8]>),
    /// From input (fields, `getline`, `-v`, `ARGV`, `ENVIRON`, `split`): a number when it
    /// looks like one.
    StrNum(Rc<[u8]>),
}

impl Value {
    pub fn str(s: &[u8]) -> Value {
        Value::Str(Rc::from(s))
    }
    pub fn strnum(s: &[u8]) -> Value {
        Value::StrNum(Rc::from(s))
    }
    pub fn bool(b: bool) -> Value {
        Value::Num(if b { 1.0 } else { 0.0 })
    }
    pub fn to_num(&self) -> f64 {
        match self {
            Value::Uninit => 0.0,
            Value::Num(n) => *n,
            Value::Str(s) | Value::StrNum(s) => str_to_num(s),
        }
    }
    /// Truth: a number (or a numeric-looking strnum) is true when non-zero, a string when
    /// non-empty.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Uninit => false,
            Value::Num(n) => *n != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::StrNum(s) => match looks_numeric(s) {
                Some(n) => n != 0.0,
                None => !s.is_empty(),
            },
        }
    }
}

fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 11 | 12)
}

/// The length of the decimal number at the start of `s` (after `from`): sign, digits,
/// fraction, exponent. 0: none.
fn number_len(s: &[u8]) -> usize {
    let at = |k: usize| s.get(k).copied().unwrap_or(0);
    let mut j = 0;
    if matches!(at(0), b'+' | b'-') {
        j = 1;
    }
    let d0 = j;
    while at(j).is_ascii_digit() {
        j += 1;
    }
    let mut digits = j - d0;
    if at(j) == b'.' {
        let f0 = j + 1;
        let mut k = f0;
        while at(k).is_ascii_digit() {
            k += 1;
        }
        digits += k - f0;
        if digits > 0 {
            j = k;
        }
    }
    if digits == 0 {
        return 0;
    }
    if matches!(at(j), b'e' | b'E') {
        let mut k = j + 1;
        if matches!(at(k), b'+' | b'-') {
            k += 1;
        }
        if at(k).is_ascii_digit() {
            while at(k).is_ascii_digit() {
                k += 1;
            }
            j = k;
        }
    }
    j
}

/// `+inf`, `-nan` and the like (gawk accepts them with a sign only).
fn special_len(s: &[u8]) -> Option<(usize, f64)> {
    let sign = *s.first()?;
    if sign != b'+' && sign != b'-' {
        return None;
    }
    let w = s.get(1..4)?;
    let neg = sign == b'-';
    if w.eq_ignore_ascii_case(b"inf") {
        let n = if s
            .get(1..9)
            .is_some_and(|x| x.eq_ignore_ascii_case(b"infinity"))
        {
            9
        } else {
            4
        };
        return Some((
            n,
            if neg {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            },
        ));
    }
    if w.eq_ignore_ascii_case(b"nan") {
        return Some((4, if neg { -f64::NAN } else { f64::NAN }));
    }
    None
}

fn parse_prefix(s: &[u8]) -> (f64, usize) {
    // Fast path: a plain integer.
    let mut v: i64 = 0;
    let mut j = 0;
    let neg = s.first() == Some(&b'-');
    if matches!(s.first(), Some(b'+' | b'-')) {
        j = 1;
    }
    let d0 = j;
    while let Some(&c) = s.get(j) {
        if !c.is_ascii_digit() || j - d0 >= 18 {
            break;
        }
        v = v * 10 + i64::from(c - b'0');
        j += 1;
    }
    if j > d0 && !matches!(s.get(j), Some(b'.' | b'e' | b'E' | b'0'..=b'9')) {
        let f = v as f64;
        return (if neg { -f } else { f }, j);
    }
    if let Some((n, v)) = special_len(s) {
        return (v, n);
    }
    let n = number_len(s);
    if n == 0 {
        return (0.0, 0);
    }
    let text = std::str::from_utf8(s.get(..n).unwrap_or_default()).unwrap_or("0");
    (text.parse().unwrap_or(0.0), n)
}

/// A string's numeric value: its leading number after blanks (0 when none).
pub fn str_to_num(s: &[u8]) -> f64 {
    let start = s.iter().position(|&c| !is_blank(c)).unwrap_or(s.len());
    parse_prefix(s.get(start..).unwrap_or_default()).0
}

/// The number a strnum stands for when it looks numeric: blanks, a number, blanks.
pub fn looks_numeric(s: &[u8]) -> Option<f64> {
    let start = s.iter().position(|&c| !is_blank(c))?;
    let rest = s.get(start..).unwrap_or_default();
    let (v, n) = parse_prefix(rest);
    if n == 0 {
        return None;
    }
    rest.get(n..)
        .unwrap_or_default()
        .iter()
        .all(|&c| is_blank(c))
        .then_some(v)
}

/// An `f64` as an x87 `long double`, exactly.
pub fn to_ld(v: f64) -> LongDouble {
    let negative = v.is_sign_negative();
    if v.is_nan() {
        return LongDouble {
            negative,
            class: Class::Nan,
        };
    }
    if v.is_infinite() {
        return LongDouble {
            negative,
            class: Class::Inf,
        };
    }
    if v == 0.0 {
        return LongDouble {
            negative,
            class: Class::Zero,
        };
    }
    let bits = v.to_bits();
    let exp_bits = i64::try_from((bits >> 52) & 0x7ff).unwrap_or(0);
    let frac = bits & ((1u64 << 52) - 1);
    let (mut mant, mut exp) = if exp_bits == 0 {
        (frac, -1074i64)
    } else {
        (frac | (1u64 << 52), exp_bits - 1075)
    };
    let shift = mant.leading_zeros();
    mant <<= shift;
    exp -= i64::from(shift);
    LongDouble {
        negative,
        class: Class::Finite { mant, exp },
    }
}

/// Formats one number with a C float conversion (`conv`, spec).
pub fn fmt_float(v: f64, conv: u8, spec: &Spec) -> Vec<u8> {
    let f = cprintf::float(&to_ld(v), conv, spec);
    let mut out = field_bytes(&f);
    fix_nonfinite(v, &mut out);
    out
}

/// A laid-out field's bytes.
pub fn field_bytes(f: &cprintf::Field) -> Vec<u8> {
    let mut out = Vec::new();
    f.write(&mut |b| {
        out.extend_from_slice(b);
        true
    });
    out
}

/// gawk writes infinities and NaNs as `+inf`/`-inf`/`+nan`/`-nan`.
fn fix_nonfinite(v: f64, out: &mut Vec<u8>) {
    if v.is_finite() {
        return;
    }
    let word: &[u8] = if v.is_nan() { b"nan" } else { b"inf" };
    let sign = if v.is_sign_negative() { b'-' } else { b'+' };
    let mut s = Vec::with_capacity(4);
    s.push(sign);
    s.extend_from_slice(word);
    // Keep the field's padding: replace the word (and its sign) in place.
    let upper: Vec<u8> = word.to_ascii_uppercase();
    let pos = out
        .windows(3)
        .position(|w| w == word || w == upper.as_slice());
    if let Some(p) = pos {
        let from = if p > 0 && matches!(out.get(p - 1), Some(b'-' | b'+' | b' ')) {
            p - 1
        } else {
            p
        };
        out.splice(from..p + 3, s);
    }
}

/// An integral value's exact digits.
pub fn int_digits(v: f64, out: &mut Vec<u8>) {
    if v.abs() < 9.0e18 {
        // Exact in an i64.
        let i = v as i64;
        let mut buf = itoa_buf(i);
        out.append(&mut buf);
        return;
    }
    out.extend_from_slice(&fmt_float(
        v,
        b'f',
        &Spec {
            precision: Some(0),
            ..Spec::default()
        },
    ));
}

fn itoa_buf(i: i64) -> Vec<u8> {
    let mut tmp = [0u8; 24];
    let mut n = i.unsigned_abs();
    let mut k = tmp.len();
    loop {
        k -= 1;
        if let Some(slot) = tmp.get_mut(k) {
            *slot = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || k == 0 {
            break;
        }
    }
    let mut v = Vec::with_capacity(tmp.len() - k + 1);
    if i < 0 {
        v.push(b'-');
    }
    v.extend_from_slice(tmp.get(k..).unwrap_or_default());
    v
}

/// A number's text: integral values as integers, others through `fmt` (`CONVFMT` or
/// `OFMT`, a printf format).
pub fn num_to_str(v: f64, fmt: &[u8], out: &mut Vec<u8>) {
    if v.is_finite() && v == v.trunc() {
        if v == 0.0 {
            // `-0` prints as `-0` in gawk only through printf; print gives 0.
            out.push(b'0');
            return;
        }
        int_digits(v, out);
        return;
    }
    if !v.is_finite() {
        let s: &[u8] = match (v.is_nan(), v.is_sign_negative()) {
            (true, false) => b"+nan",
            (true, true) => b"-nan",
            (false, false) => b"+inf",
            (false, true) => b"-inf",
        };
        out.extend_from_slice(s);
        return;
    }
    if fmt == b"%.6g" {
        out.extend_from_slice(&fmt_float(
            v,
            b'g',
            &Spec {
                precision: Some(6),
                ..Spec::default()
            },
        ));
        return;
    }
    out.extend_from_slice(&super::builtins::sprintf_simple(fmt, v));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_from_strings() {
        assert!((str_to_num(b" 12abc") - 12.0).abs() < f64::EPSILON);
        assert!(looks_numeric(b" 12 ").is_some());
        assert!(looks_numeric(b"1e3").is_some());
        assert!(looks_numeric(b"0x1A").is_none());
        assert!(looks_numeric(b".5").is_some());
        assert!(looks_numeric(b"5.").is_some());
        assert!(looks_numeric(b"-").is_none());
        assert!(looks_numeric(b"  ").is_none());
        assert!(looks_numeric(b"+inf").is_some());
    }

    #[test]
    fn numbers_to_strings() {
        let s = |v: f64| {
            let mut o = Vec::new();
            num_to_str(v, b"%.6g", &mut o);
            String::from_utf8(o).unwrap_or_default()
        };
        assert_eq!(s(0.1 + 0.2), "0.3");
        assert_eq!(s(1.0 / 3.0), "0.333333");
        assert_eq!(s(2f64.powi(64)), "18446744073709551616");
        assert_eq!(s(1e20), "100000000000000000000");
        assert_eq!(s(-3.0), "-3");
        assert_eq!(s(1e-5), "1e-05");
    }
}
