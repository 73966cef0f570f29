//! The x87 80-bit `long double` that bash's `printf` computes its floating conversions in:
//! glibc's `strtold` (decimal and hexadecimal input, `inf`, `nan`, correctly rounded, with
//! `ERANGE`) and the exact digits `printf("%Lf")` and `%La` print from it.
//!
//! Rust has no 80-bit float, and a 64-bit `f64` prints differently from the 64-bit mantissa
//! bash uses (`printf '%.2f' 1.115` is `1.12` in bash, `1.11` through an `f64`), so the value
//! is kept as it is stored, a 64-bit mantissa and a binary exponent, and converted with exact
//! integer arithmetic ([`Big`]): no rounding happens but the one the C library makes.

use std::cmp::Ordering;

use crate::support::cnum::c_space;

/// The smallest exponent (of a value `mant * 2^exp`): the subnormals' `2^-16445`.
const MIN_EXP: i64 = -16445;
/// The largest exponent of a normal value (`(2^64 - 1) * 2^16320` is `LDBL_MAX`).
const MAX_EXP: i64 = 16320;
/// How many significant decimal digits of an input are used exactly; the rest only count as
/// "something non-zero follows" (plenty for 64 bits).
const MAX_DIGITS: usize = 1000;

/// An unsigned integer of any size, little-endian base `2^32`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Big(Vec<u32>);

impl Big {
    pub fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    pub fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    /// `self = self * m + a`.
    pub fn mul_add_small(&mut self, m: u32, a: u32) {
        let mut carry = u64::from(a);
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }

    /// `self *= base^exp` (`base` 5 or 10), in word-sized steps.
    pub fn mul_pow(&mut self, base: u32, mut exp: u64) {
        // The largest power of `base` below 2^32, and its exponent.
        let (chunk, per) = match base {
            5 => (1_220_703_125, 13),
            _ => (1_000_000_000, 9),
        };
        while exp >= per {
            self.mul_add_small(chunk, 0);
            exp -= per;
        }
        for _ in 0..exp {
            self.mul_add_small(base, 0);
        }
    }

    /// `self <<= bits`.
    pub fn shl(&mut self, bits: u64) {
        if self.is_zero() {
            return;
        }
        let words = usize::try_from(bits / 32).unwrap_or(usize::MAX);
        let rest = (bits % 32) as u32;
        if rest != 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let v = (*limb << rest) | carry;
                carry = *limb >> (32 - rest);
                *limb = v;
            }
            if carry != 0 {
                self.0.push(carry);
            }
        }
        let mut shifted = vec![0u32; words];
        shifted.append(&mut self.0);
        self.0 = shifted;
    }

    pub fn bit_len(&self) -> u64 {
        match self.0.last() {
            None => 0,
            Some(&top) => (self.0.len() as u64 - 1) * 32 + u64::from(32 - top.leading_zeros()),
        }
    }

    pub fn bit(&self, i: u64) -> bool {
        let word = usize::try_from(i / 32).unwrap_or(usize::MAX);
        self.0.get(word).is_some_and(|w| (w >> (i % 32)) & 1 != 0)
    }

    /// Whether any of the bits below `n` is set.
    pub fn any_below(&self, n: u64) -> bool {
        let full = usize::try_from(n / 32).unwrap_or(usize::MAX);
        if self.0.iter().take(full).any(|&w| w != 0) {
            return true;
        }
        let rest = (n % 32) as u32;
        rest != 0
            && self
                .0
                .get(full)
                .is_some_and(|&w| w & ((1u32 << rest) - 1) != 0)
    }

    /// The 64 bits starting at bit `from`.
    pub fn bits64(&self, from: u64) -> u64 {
        (0..64).fold(0u64, |acc, k| acc | (u64::from(self.bit(from + k)) << k))
    }

    fn cmp_big(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    /// `self -= other`, `other <= self`.
    fn sub_assign(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let o = i64::from(other.0.get(i).copied().unwrap_or(0));
            let mut v = i64::from(*limb) - o - borrow;
            borrow = 0;
            if v < 0 {
                v += 1 << 32;
                borrow = 1;
            }
            *limb = v as u32;
        }
        self.trim();
    }

    /// `(self / d, self % d)` by shift and subtract (`d` non-zero).
    pub fn divmod(&self, d: &Big) -> (Big, Big) {
        let mut q = Big(vec![0; self.0.len()]);
        let mut r = Big::default();
        for i in (0..self.bit_len()).rev() {
            r.shl(1);
            if self.bit(i) {
                if r.is_zero() {
                    r.0.push(1);
                } else if let Some(low) = r.0.first_mut() {
                    *low |= 1;
                }
            }
            if r.cmp_big(d) != Ordering::Less {
                r.sub_assign(d);
                let word = usize::try_from(i / 32).unwrap_or(usize::MAX);
                if let Some(w) = q.0.get_mut(word) {
                    *w |= 1 << (i % 32);
                }
            }
        }
        q.trim();
        (q, r)
    }

    /// `self /= d`, giving the remainder.
    fn div_small(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for limb in self.0.iter_mut().rev() {
            let v = (rem << 32) | u64::from(*limb);
            *limb = (v / u64::from(d)) as u32;
            rem = v % u64::from(d);
        }
        self.trim();
        rem as u32
    }

    /// The decimal digits (values 0 to 9, most significant first; none for zero).
    pub fn decimal(&self) -> Vec<u8> {
        let mut n = self.clone();
        let mut chunks = Vec::new();
        while !n.is_zero() {
            chunks.push(n.div_small(1_000_000_000));
        }
        let mut out = Vec::new();
        for (k, chunk) in chunks.iter().rev().enumerate() {
            let s = if k == 0 {
                chunk.to_string()
            } else {
                format!("{chunk:09}")
            };
            out.extend(s.bytes().map(|b| b - b'0'));
        }
        out
    }
}

/// What a `long double` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Zero,
    /// `mant * 2^exp`, `mant` non-zero: its top bit set for a normal number, clear for a
    /// subnormal one (whose `exp` is the smallest, -16445).
    Finite {
        mant: u64,
        exp: i64,
    },
    Inf,
    Nan,
}

/// An x87 `long double`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LongDouble {
    pub negative: bool,
    pub class: Class,
}

/// What [`strtold`] gives: the value, where parsing stopped (0: no number), and whether the
/// value was out of range (`ERANGE`: an overflow to infinity or an inexact tiny value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strtold {
    pub value: LongDouble,
    pub end: usize,
    pub range_error: bool,
}

impl LongDouble {
    pub const ZERO: LongDouble = LongDouble {
        negative: false,
        class: Class::Zero,
    };

    /// An integer, exactly (every `i64` fits in 64 bits of mantissa).
    pub fn from_i64(v: i64) -> LongDouble {
        let (value, _) = round_to_long_double(v < 0, &Big::from_u64(v.unsigned_abs()), 0, false);
        value
    }

    /// The exact decimal value `digits * 10^exp` (digits 0 to 9, no trailing zero; none for
    /// zero). `None` for infinities and NaNs.
    pub fn decimal(&self) -> Option<(Vec<u8>, i64)> {
        let (mant, exp) = match self.class {
            Class::Zero => return Some((Vec::new(), 0)),
            Class::Finite { mant, exp } => (mant, exp),
            Class::Inf | Class::Nan => return None,
        };
        let mut big = Big::from_u64(mant);
        let mut dexp = 0;
        if exp >= 0 {
            big.shl(exp.unsigned_abs());
        } else {
            // m / 2^k = m * 5^k / 10^k
            big.mul_pow(5, exp.unsigned_abs());
            dexp = exp;
        }
        let mut digits = big.decimal();
        while digits.last() == Some(&0) {
            digits.pop();
            dexp += 1;
        }
        Some((digits, dexp))
    }
}

/// Rounds `q * 2^e2` (plus something non-zero below it when `sticky`) to the nearest
/// `long double`, ties to even, as the FPU does; the flag says `ERANGE`.
pub fn round_to_long_double(negative: bool, q: &Big, e2: i64, sticky: bool) -> (LongDouble, bool) {
    let len = i64::try_from(q.bit_len()).unwrap_or(i64::MAX);
    if len == 0 {
        return (
            LongDouble {
                negative,
                class: Class::Zero,
            },
            sticky,
        );
    }
    let mut exp = e2.saturating_add(len - 64);
    let mut shift = len - 64;
    if exp < MIN_EXP {
        shift += MIN_EXP - exp;
        exp = MIN_EXP;
    }
    let mut inexact = sticky;
    let mut mant = if shift <= 0 {
        // Exact: fewer than 64 significant bits.
        q.bits64(0) << shift.unsigned_abs().min(63)
    } else {
        let from = shift.unsigned_abs();
        let m = if from >= q.bit_len() {
            0
        } else {
            q.bits64(from)
        };
        let round = q.bit(from - 1);
        let below = sticky || q.any_below(from - 1);
        inexact |= round || below;
        if round && (below || m & 1 != 0) {
            m.checked_add(1).unwrap_or_else(|| {
                exp += 1;
                1 << 63
            })
        } else {
            m
        }
    };
    if exp > MAX_EXP {
        return (
            LongDouble {
                negative,
                class: Class::Inf,
            },
            true,
        );
    }
    if mant == 0 {
        return (
            LongDouble {
                negative,
                class: Class::Zero,
            },
            true,
        );
    }
    let tiny = mant >> 63 == 0;
    if shift <= 0 && len > 64 {
        mant = q.bits64(0);
    }
    (
        LongDouble {
            negative,
            class: Class::Finite { mant, exp },
        },
        tiny && inexact,
    )
}

fn starts_with_ignore_case(s: &[u8], word: &[u8]) -> bool {
    s.len() >= word.len()
        && s.iter()
            .zip(word)
            .all(|(a, b)| a.to_ascii_lowercase() == *b)
}

/// The digits of a number being read: `big * radix^scale`, with at most `MAX_DIGITS`
/// significant digits kept (`dropped`: a later one was not zero).
struct Mantissa {
    radix: u32,
    big: Big,
    kept: usize,
    dropped: bool,
    scale: i64,
}

impl Mantissa {
    /// Reads a run of digits from `s[*at..]` (after the point when `frac`), returning how
    /// many were read.
    fn digits(&mut self, s: &[u8], at: &mut usize, frac: bool) -> usize {
        let start = *at;
        while let Some(d) = s.get(*at).and_then(|&b| char::from(b).to_digit(self.radix)) {
            *at += 1;
            if self.big.is_zero() && d == 0 {
                // A leading zero: only its place counts.
                if frac {
                    self.scale -= 1;
                }
                continue;
            }
            if self.kept < MAX_DIGITS {
                self.big.mul_add_small(self.radix, d);
                self.kept += 1;
                if frac {
                    self.scale -= 1;
                }
            } else {
                self.dropped |= d != 0;
                if !frac {
                    self.scale += 1;
                }
            }
        }
        *at - start
    }
}

/// An optional exponent (`e12`, `p-3`) at `s[*i..]`: consumed only when digits follow.
fn exponent(s: &[u8], i: &mut usize, marks: &[u8]) -> i64 {
    if !s.get(*i).is_some_and(|c| marks.contains(c)) {
        return 0;
    }
    let mut j = *i + 1;
    let negative = match s.get(j) {
        Some(b'-') => {
            j += 1;
            true
        }
        Some(b'+') => {
            j += 1;
            false
        }
        _ => false,
    };
    let start = j;
    let mut v: i64 = 0;
    while let Some(d) = s.get(j).filter(|b| b.is_ascii_digit()) {
        v = (v * 10 + i64::from(d - b'0')).min(100_000_000);
        j += 1;
    }
    if j == start {
        return 0;
    }
    *i = j;
    if negative { -v } else { v }
}

/// glibc's `strtold`: leading blanks, a sign, then `inf`/`infinity`, `nan`/`nan(...)`, a
/// hexadecimal `0x1.8p3` or a decimal `1.5e3`.
pub fn strtold(s: &[u8]) -> Strtold {
    let none = Strtold {
        value: LongDouble::ZERO,
        end: 0,
        range_error: false,
    };
    let mut i = 0;
    while s.get(i).copied().is_some_and(c_space) {
        i += 1;
    }
    let mut negative = false;
    if let Some(&c @ (b'+' | b'-')) = s.get(i) {
        negative = c == b'-';
        i += 1;
    }
    let rest = s.get(i..).unwrap_or_default();
    let special = |class, end| Strtold {
        value: LongDouble { negative, class },
        end,
        range_error: false,
    };
    if starts_with_ignore_case(rest, b"infinity") {
        return special(Class::Inf, i + 8);
    }
    if starts_with_ignore_case(rest, b"inf") {
        return special(Class::Inf, i + 3);
    }
    if starts_with_ignore_case(rest, b"nan") {
        let mut end = i + 3;
        if s.get(end) == Some(&b'(') {
            let mut j = end + 1;
            while s
                .get(j)
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
            {
                j += 1;
            }
            if s.get(j) == Some(&b')') {
                end = j + 1;
            }
        }
        return special(Class::Nan, end);
    }
    let hex = matches!(rest, [b'0', b'x' | b'X', ..])
        && (rest.get(2).is_some_and(u8::is_ascii_hexdigit)
            || (rest.get(2) == Some(&b'.') && rest.get(3).is_some_and(u8::is_ascii_hexdigit)));
    let mut m = Mantissa {
        radix: if hex { 16 } else { 10 },
        big: Big::default(),
        kept: 0,
        dropped: false,
        scale: 0,
    };
    if hex {
        i += 2;
    }
    let mut count = m.digits(s, &mut i, false);
    if s.get(i) == Some(&b'.') {
        let mut after_point = i + 1;
        let frac = m.digits(s, &mut after_point, true);
        if count + frac > 0 {
            i = after_point;
            count += frac;
        }
    }
    if count == 0 {
        return none;
    }
    let marks: &[u8] = if hex { b"pP" } else { b"eE" };
    let exp = exponent(s, &mut i, marks);
    if m.dropped {
        // Something non-zero beyond the digits kept: one more digit says so.
        m.big.mul_add_small(m.radix, 1);
        m.scale -= 1;
    }
    if m.big.is_zero() {
        return Strtold {
            value: LongDouble {
                negative,
                class: Class::Zero,
            },
            end: i,
            range_error: false,
        };
    }
    let (value, range_error) = if hex {
        round_to_long_double(negative, &m.big, exp.saturating_add(m.scale * 4), false)
    } else {
        decimal_to_long_double(negative, &m.big, exp.saturating_add(m.scale))
    };
    Strtold {
        value,
        end: i,
        range_error,
    }
}

/// `d * 10^e10`, correctly rounded.
#[allow(clippy::many_single_char_names)] // d, p, s, n, q, r as in a division
fn decimal_to_long_double(negative: bool, d: &Big, e10: i64) -> (LongDouble, bool) {
    let ndigits = i64::try_from(d.decimal().len()).unwrap_or(0);
    let magnitude = ndigits.saturating_add(e10);
    if magnitude > 4934 {
        return (
            LongDouble {
                negative,
                class: Class::Inf,
            },
            true,
        );
    }
    if magnitude < -4952 {
        return (
            LongDouble {
                negative,
                class: Class::Zero,
            },
            true,
        );
    }
    if e10 >= 0 {
        let mut q = d.clone();
        q.mul_pow(10, e10.unsigned_abs());
        return round_to_long_double(negative, &q, 0, false);
    }
    let mut p = Big::from_u64(1);
    p.mul_pow(10, e10.unsigned_abs());
    let s = (p.bit_len() + 66).saturating_sub(d.bit_len());
    let mut n = d.clone();
    n.shl(s);
    let (q, r) = n.divmod(&p);
    round_to_long_double(
        negative,
        &q,
        -i64::try_from(s).unwrap_or(i64::MAX),
        !r.is_zero(),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    fn parse(s: &str) -> (LongDouble, usize, bool) {
        let r = strtold(s.as_bytes());
        (r.value, r.end, r.range_error)
    }

    fn finite(s: &str) -> (u64, i64) {
        match parse(s).0.class {
            Class::Finite { mant, exp } => (mant, exp),
            c => panic!("{s}: {c:?}"),
        }
    }

    #[test]
    fn big_arithmetic() {
        let mut b = Big::from_u64(1);
        b.mul_pow(10, 30);
        assert_eq!(
            b.decimal(),
            [1].iter()
                .chain([0u8; 30].iter())
                .copied()
                .collect::<Vec<_>>()
        );
        let (q, r) = b.divmod(&Big::from_u64(7));
        assert_eq!(
            q.decimal().iter().map(|d| d + b'0').collect::<Vec<_>>(),
            b"142857142857142857142857142857"
        );
        assert_eq!(r, Big::from_u64(1));
        let mut s = Big::from_u64(3);
        s.shl(70);
        assert_eq!(s.bit_len(), 72);
        assert!(s.bit(70) && s.bit(71) && !s.any_below(70));
    }

    #[test]
    fn parses_as_strtold() {
        assert_eq!(finite("1"), (1 << 63, -63));
        assert_eq!(finite("0.5"), (1 << 63, -64));
        assert_eq!(finite("0x1.8p3"), (0xc000_0000_0000_0000, -60));
        // 0.1 rounds up in the last of 64 bits: 0xcccccccccccccccd * 2^-67.
        assert_eq!(finite("0.1"), (0xcccc_cccc_cccc_cccd, -67));
        assert_eq!(finite("  -3.25e1x").0, 0x8200_0000_0000_0000);
        assert_eq!(parse("1e").1, 1);
        assert_eq!(parse("1e+").1, 1);
        assert_eq!(parse(".").1, 0);
        assert_eq!(parse("0x").1, 1);
        assert_eq!(
            parse("-0").0,
            LongDouble {
                negative: true,
                class: Class::Zero
            }
        );
        assert_eq!(parse("infinity").0.class, Class::Inf);
        assert_eq!(parse("INFx").1, 3);
        assert_eq!(parse("nan(12)").1, 7);
        assert_eq!(parse("nan(1").1, 3);
        assert_eq!(
            parse("1e5000"),
            (
                LongDouble {
                    negative: false,
                    class: Class::Inf
                },
                6,
                true
            )
        );
        assert!(parse("1e-4940").2);
        assert!(!parse("1e-4000").2);
        assert_eq!(parse("1e-6000").0.class, Class::Zero);
    }

    #[test]
    fn exact_decimal_expansion() {
        let (d, e) = parse("0.1").0.decimal().unwrap();
        let s: String = d.iter().map(|d| char::from(d + b'0')).collect();
        assert!(s.starts_with("1000000000000000000013552527156068805425"));
        assert_eq!(i64::try_from(s.len()).unwrap() + e, 0);
        assert_eq!(LongDouble::from_i64(-65).decimal(), Some((vec![6, 5], 0)));
    }
}
