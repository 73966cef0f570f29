//! C's `printf` conversions as glibc writes them: flags (`-+ #0`), width and precision for
//! integers (`%d %i %o %u %x %X`), `long double`s (`%e %E %f %F %g %G %a %A`, from
//! [`crate::support::ldouble`]'s exact digits) and strings (`%s %c`).
//!
//! A conversion gives a [`Field`]: its parts, with the runs of padding and of trailing
//! zeros kept as counts, so that `%1000000000d` or `%.100000000f` never builds the padding in
//! memory; the caller writes it out in chunks ([`Field::write`]).

use crate::support::ldouble::{Class, LongDouble};

/// The flags, width and precision of one conversion.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spec {
    /// `-`: left-justify.
    pub minus: bool,
    /// `+`: a sign on positive numbers.
    pub plus: bool,
    /// ` `: a space where a positive number has no sign.
    pub space: bool,
    /// `#`: the alternate form.
    pub alt: bool,
    /// `0`: pad numbers with zeros.
    pub zero: bool,
    pub width: usize,
    pub precision: Option<usize>,
}

/// One converted field, laid out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Field {
    pub left_spaces: usize,
    /// The sign and the `0x` of `%#x` and `%a`.
    pub prefix: Vec<u8>,
    /// Zero padding (between the prefix and the body).
    pub zeros: usize,
    pub body: Vec<u8>,
    /// Zeros after the body (a long precision).
    pub tail_zeros: usize,
    /// What follows those zeros (`e+05`, `p-3`).
    pub suffix: Vec<u8>,
    pub right_spaces: usize,
}

const CHUNK: usize = 64 * 1024;

impl Field {
    /// The parts in order; `write` is called with pieces of at most 64 KiB and returns false
    /// to stop (nobody reads any more).
    pub fn write(&self, write: &mut dyn FnMut(&[u8]) -> bool) -> bool {
        let run = |byte: u8, n: usize, write: &mut dyn FnMut(&[u8]) -> bool| {
            let chunk = vec![byte; n.min(CHUNK)];
            let mut left = n;
            while left > 0 {
                let k = left.min(CHUNK);
                if !write(chunk.get(..k).unwrap_or_default()) {
                    return false;
                }
                left -= k;
            }
            true
        };
        run(b' ', self.left_spaces, write)
            && write(&self.prefix)
            && run(b'0', self.zeros, write)
            && write(&self.body)
            && run(b'0', self.tail_zeros, write)
            && write(&self.suffix)
            && run(b' ', self.right_spaces, write)
    }

    /// The whole field in memory (for tests).
    #[cfg(test)]
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(&mut |b| {
            out.extend_from_slice(b);
            true
        });
        out
    }

    fn len(&self) -> usize {
        self.prefix.len() + self.body.len() + self.tail_zeros + self.suffix.len()
    }

    /// Pads to the spec's width: spaces on the left, on the right with `-`, or zeros after
    /// the prefix when `zero_pad`.
    fn pad(mut self, spec: &Spec, zero_pad: bool) -> Field {
        let short = spec.width.saturating_sub(self.len());
        if spec.minus {
            self.right_spaces = short;
        } else if zero_pad {
            self.zeros = short;
        } else {
            self.left_spaces = short;
        }
        self
    }
}

fn sign(negative: bool, spec: &Spec) -> Vec<u8> {
    if negative {
        b"-".to_vec()
    } else if spec.plus {
        b"+".to_vec()
    } else if spec.space {
        b" ".to_vec()
    } else {
        Vec::new()
    }
}

/// Digits with the precision's minimum count (`%.3d` of 7 is `007`; `%.0d` of 0 is empty).
fn with_precision(digits: String, zero: bool, spec: &Spec) -> (Vec<u8>, usize) {
    match spec.precision {
        Some(0) if zero => (Vec::new(), 0),
        Some(p) => {
            let lead = p.saturating_sub(digits.len());
            // Leading zeros as a count: `%.1000000000d` is legal.
            (digits.into_bytes(), lead)
        }
        None => (digits.into_bytes(), 0),
    }
}

/// Puts `lead` zeros before the body by moving them into the zero padding's place when the
/// field has no other zeros there (they print the same).
fn integer_field(prefix: Vec<u8>, lead: usize, body: Vec<u8>, spec: &Spec) -> Field {
    let zero_pad = spec.zero && !spec.minus && spec.precision.is_none();
    let f = Field {
        prefix,
        zeros: lead,
        body,
        ..Field::default()
    };
    let short = spec.width.saturating_sub(f.len() + lead);
    let mut f = f;
    if spec.minus {
        f.right_spaces = short;
    } else if zero_pad {
        f.zeros += short;
    } else {
        f.left_spaces = short;
    }
    f
}

/// `%d`, `%i`.
pub fn signed(v: i64, spec: &Spec) -> Field {
    let (body, lead) = with_precision(v.unsigned_abs().to_string(), v == 0, spec);
    integer_field(sign(v < 0, spec), lead, body, spec)
}

/// `%o`, `%u`, `%x`, `%X` (no sign; `#` gives `0` or `0x`).
pub fn unsigned(v: u64, conv: u8, spec: &Spec) -> Field {
    let digits = match conv {
        b'o' => format!("{v:o}"),
        b'x' => format!("{v:x}"),
        b'X' => format!("{v:X}"),
        _ => v.to_string(),
    };
    let (mut body, lead) = with_precision(digits, v == 0, spec);
    let mut prefix = Vec::new();
    match conv {
        b'o' if spec.alt && lead == 0 && body.first() != Some(&b'0') => body.insert(0, b'0'),
        b'x' if spec.alt && v != 0 => prefix = b"0x".to_vec(),
        b'X' if spec.alt && v != 0 => prefix = b"0X".to_vec(),
        _ => {}
    }
    integer_field(prefix, lead, body, spec)
}

/// `%s` (the precision cuts bytes) and `%c` (one byte; no precision).
pub fn string(s: &[u8], spec: &Spec) -> Field {
    let s = match spec.precision {
        Some(p) => s.get(..p.min(s.len())).unwrap_or_default(),
        None => s,
    };
    Field {
        body: s.to_vec(),
        ..Field::default()
    }
    .pad(spec, false)
}

/// Rounds the integer `digits * 10^exp` (digits 0 to 9, most significant first) to a
/// multiple of `10^k`, ties to even, and gives it divided by `10^k`: its digits (none for
/// zero) and a count of zeros that follow them.
fn round_at(digits: &[u8], exp: i64, k: i64) -> (Vec<u8>, usize) {
    let len = i64::try_from(digits.len()).unwrap_or(i64::MAX);
    let keep = len.saturating_add(exp).saturating_sub(k);
    if keep >= len {
        return (
            digits.to_vec(),
            usize::try_from(keep - len).unwrap_or(usize::MAX),
        );
    }
    if keep < 0 {
        return (Vec::new(), 0);
    }
    let keep = usize::try_from(keep).unwrap_or(0);
    let (kept, rest) = digits.split_at(keep.min(digits.len()));
    let next = rest.first().copied().unwrap_or(0);
    let after = rest.iter().skip(1).any(|&d| d != 0);
    let odd = kept.last().is_some_and(|d| d % 2 == 1);
    let mut out = kept.to_vec();
    if next > 5 || (next == 5 && (after || odd)) {
        let mut i = out.len();
        loop {
            if i == 0 {
                out.insert(0, 1);
                break;
            }
            i -= 1;
            if let Some(d) = out.get_mut(i) {
                if *d == 9 {
                    *d = 0;
                } else {
                    *d += 1;
                    break;
                }
            }
        }
    }
    (out, 0)
}

fn ascii(digits: &[u8]) -> Vec<u8> {
    digits.iter().map(|d| d + b'0').collect()
}

/// The parts of `%f`: `int.frac` as body (the fraction's trailing zeros as a count).
fn fixed(digits: &[u8], exp: i64, p: usize, alt: bool) -> (Vec<u8>, usize) {
    let k = -i64::try_from(p).unwrap_or(i64::MAX);
    let (r, zeros) = round_at(digits, exp, k);
    let n = r.len();
    // The last `p` digits of r followed by `zeros` zeros are the fraction.
    let mut body;
    let tail;
    if zeros >= p {
        body = ascii(&r);
        body.extend(std::iter::repeat_n(b'0', zeros - p));
        if body.is_empty() {
            body.push(b'0');
        }
        tail = p;
    } else {
        let frac_from_r = p - zeros; // digits of r in the fraction
        if n > frac_from_r {
            body = ascii(r.get(..n - frac_from_r).unwrap_or_default());
        } else {
            body = vec![b'0'];
        }
        let mut frac = vec![b'0'; frac_from_r.saturating_sub(n)];
        frac.extend(ascii(
            r.get(n.saturating_sub(frac_from_r)..).unwrap_or_default(),
        ));
        if p > 0 || alt {
            body.push(b'.');
        }
        body.extend(frac);
        tail = zeros;
        return (body, tail);
    }
    if p > 0 || alt {
        body.push(b'.');
    }
    (body, tail)
}

/// The parts of `%e`: mantissa body, its trailing zeros, and the exponent `x`.
fn scientific(digits: &[u8], exp: i64, p: usize, alt: bool) -> (Vec<u8>, usize, i64) {
    if digits.is_empty() {
        let mut body = b"0".to_vec();
        if p > 0 || alt {
            body.push(b'.');
        }
        return (body, p, 0);
    }
    let mut x = i64::try_from(digits.len()).unwrap_or(0) + exp - 1;
    let (mut r, mut zeros) = round_at(digits, exp, x - i64::try_from(p).unwrap_or(i64::MAX));
    if r.len() + zeros > p + 1 {
        // 9.99 rounded up to 10.0: one more digit, all zeros after the first.
        x += 1;
        if zeros > 0 {
            zeros -= 1;
        } else {
            r.pop();
        }
    }
    let mut body = ascii(r.get(..1).unwrap_or(&[0]));
    if p > 0 || alt {
        body.push(b'.');
    }
    body.extend(ascii(r.get(1..).unwrap_or_default()));
    (body, zeros, x)
}

fn exponent_suffix(mark: u8, x: i64) -> Vec<u8> {
    let sign = if x < 0 { '-' } else { '+' };
    let mut s = vec![mark];
    s.extend(format!("{sign}{:02}", x.unsigned_abs()).into_bytes());
    s
}

/// Drops the fraction's trailing zeros, and the point when nothing is left of it (`%g`
/// without `#`).
fn strip_fraction(body: &mut Vec<u8>, tail: &mut usize) {
    if !body.contains(&b'.') {
        return;
    }
    *tail = 0;
    while body.last() == Some(&b'0') {
        body.pop();
    }
    if body.last() == Some(&b'.') {
        body.pop();
    }
}

/// `%a`: the first hex digit is the top four of the 64 mantissa bits, as glibc prints an x87
/// `long double` (`1` is `0x8p-3`).
fn hex(class: Class, spec: &Spec, upper: bool) -> (Vec<u8>, usize, Vec<u8>) {
    let (mut lead, mut frac, mut exp2) = match class {
        Class::Finite { mant, exp } => {
            let frac: Vec<u8> = (0..15)
                .rev()
                .map(|k| ((mant >> (4 * k)) & 0xf) as u8)
                .collect();
            ((mant >> 60) as u8, frac, exp + 60)
        }
        _ => (0, vec![0; 15], 0),
    };
    let mut tail = 0;
    match spec.precision {
        None => {
            while frac.last() == Some(&0) {
                frac.pop();
            }
        }
        Some(p) if p < frac.len() => {
            let next = frac.get(p).copied().unwrap_or(0);
            let more = frac.iter().skip(p + 1).any(|&d| d != 0);
            frac.truncate(p);
            let last_odd = frac.last().copied().unwrap_or(lead) % 2 == 1;
            if next > 8 || (next == 8 && (more || last_odd)) {
                let mut carry = true;
                for d in frac.iter_mut().rev() {
                    if *d == 15 {
                        *d = 0;
                    } else {
                        *d += 1;
                        carry = false;
                        break;
                    }
                }
                if carry {
                    lead += 1;
                    if lead == 16 {
                        lead = 1;
                        exp2 += 4;
                    }
                }
            }
        }
        Some(p) => tail = p - frac.len(),
    }
    let digit = |d: u8| {
        let c = char::from_digit(u32::from(d), 16).unwrap_or('0');
        (if upper { c.to_ascii_uppercase() } else { c }) as u8
    };
    let mut body = vec![digit(lead)];
    if !frac.is_empty() || tail > 0 || spec.alt {
        body.push(b'.');
    }
    body.extend(frac.iter().map(|&d| digit(d)));
    let sign = if exp2 < 0 { '-' } else { '+' };
    let suffix = format!(
        "{}{sign}{}",
        if upper { 'P' } else { 'p' },
        exp2.unsigned_abs()
    );
    (body, tail, suffix.into_bytes())
}

/// `%e %E %f %F %g %G %a %A` of a `long double`.
pub fn float(v: &LongDouble, conv: u8, spec: &Spec) -> Field {
    let upper = conv.is_ascii_uppercase();
    let mut prefix = sign(v.negative, spec);
    let special = match v.class {
        Class::Inf => Some("inf"),
        Class::Nan => Some("nan"),
        _ => None,
    };
    if let Some(word) = special {
        let word = if upper {
            word.to_ascii_uppercase()
        } else {
            word.to_string()
        };
        return Field {
            prefix,
            body: word.into_bytes(),
            ..Field::default()
        }
        .pad(spec, false);
    }
    let zero_pad = spec.zero && !spec.minus;
    if conv.eq_ignore_ascii_case(&b'a') {
        prefix.extend_from_slice(if upper { b"0X" } else { b"0x" });
        let (body, tail_zeros, suffix) = hex(v.class, spec, upper);
        return Field {
            prefix,
            body,
            tail_zeros,
            suffix,
            ..Field::default()
        }
        .pad(spec, zero_pad);
    }
    let (digits, exp) = v.decimal().unwrap_or_default();
    let mark = if upper { b'E' } else { b'e' };
    let (body, tail_zeros, suffix) = match conv.to_ascii_lowercase() {
        b'f' => {
            let (body, tail) = fixed(&digits, exp, spec.precision.unwrap_or(6), spec.alt);
            (body, tail, Vec::new())
        }
        b'e' => {
            let (body, tail, x) = scientific(&digits, exp, spec.precision.unwrap_or(6), spec.alt);
            (body, tail, exponent_suffix(mark, x))
        }
        _ => {
            let prec = match spec.precision.unwrap_or(6) {
                0 => 1,
                n => n,
            };
            // The exponent %e would show with prec - 1 digits, after rounding.
            let exp10 = if digits.is_empty() {
                0
            } else {
                scientific(&digits, exp, prec - 1, false).2
            };
            let signed_prec = i64::try_from(prec).unwrap_or(i64::MAX);
            let (mut body, mut tail, suffix) = if exp10 < signed_prec && exp10 >= -4 {
                let fp = usize::try_from(signed_prec - 1 - exp10).unwrap_or(0);
                let (body, tail) = fixed(&digits, exp, fp, spec.alt);
                (body, tail, Vec::new())
            } else {
                let (body, tail, exp10) = scientific(&digits, exp, prec - 1, spec.alt);
                (body, tail, exponent_suffix(mark, exp10))
            };
            if !spec.alt {
                strip_fraction(&mut body, &mut tail);
            }
            (body, tail, suffix)
        }
    };
    Field {
        prefix,
        body,
        tail_zeros,
        suffix,
        ..Field::default()
    }
    .pad(spec, zero_pad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::ldouble::strtold;

    fn f(conv: u8, s: &str, spec: Spec) -> String {
        let v = strtold(s.as_bytes()).value;
        String::from_utf8(float(&v, conv, &spec).to_vec()).unwrap_or_default()
    }

    fn p(n: usize) -> Spec {
        Spec {
            precision: Some(n),
            ..Spec::default()
        }
    }

    #[test]
    fn floats_as_glibc_long_double() {
        // Each expectation is `LC_ALL=C bash -c "printf '%...' ..."` with bash 5.2.
        let d = Spec::default();
        assert_eq!(f(b'f', "3.14159", d), "3.141590");
        assert_eq!(f(b'e', "3.14159", d), "3.141590e+00");
        assert_eq!(f(b'g', "3.14159", d), "3.14159");
        assert_eq!(f(b'f', "1.115", p(2)), "1.12");
        assert_eq!(f(b'f', "0.5", p(0)), "0");
        assert_eq!(f(b'f', "1.5", p(0)), "2");
        assert_eq!(f(b'f', "2.5", p(0)), "2");
        assert_eq!(f(b'f', "0.1", p(30)), "0.100000000000000000001355252716");
        assert_eq!(f(b'g', "100000", d), "100000");
        assert_eq!(f(b'g', "1000000", d), "1e+06");
        assert_eq!(f(b'g', "0.0001", d), "0.0001");
        assert_eq!(f(b'g', "0.00001", d), "1e-05");
        assert_eq!(f(b'g', "999999.5", d), "1e+06");
        assert_eq!(f(b'g', "0", d), "0");
        assert_eq!(f(b'e', "0", p(0)), "0e+00");
        assert_eq!(
            f(b'e', "123456789012345678901234567890", p(20)),
            "1.23456789012345678900e+29"
        );
        let alt = |prec| Spec {
            alt: true,
            precision: prec,
            ..Spec::default()
        };
        assert_eq!(f(b'g', "1", alt(Some(3))), "1.00");
        assert_eq!(f(b'e', "5", alt(Some(0))), "5.e+00");
        assert_eq!(f(b'f', "1", alt(Some(0))), "1.");
        assert_eq!(f(b'a', "1", alt(None)), "0x8.p-3");
        assert_eq!(f(b'a', "3.14", d), "0xc.8f5c28f5c28f5c3p-2");
        assert_eq!(f(b'a', "3.14", p(2)), "0xc.8fp-2");
        assert_eq!(f(b'a', "1.9999", p(0)), "0x1p+1");
        assert_eq!(f(b'A', "255", d), "0XF.FP+4");
        assert_eq!(f(b'a', "0", d), "0x0p+0");
        assert_eq!(f(b'a', "1e-4940", d), "0x0.000000663278e62p-16385");
        assert_eq!(f(b'f', "-inf", Spec { width: 5, ..d }), " -inf");
        assert_eq!(
            f(
                b'f',
                "nan",
                Spec {
                    width: 10,
                    zero: true,
                    ..d
                }
            ),
            "       nan"
        );
        assert_eq!(
            f(
                b'f',
                "3.14159",
                Spec {
                    width: 8,
                    zero: true,
                    precision: Some(3),
                    ..d
                }
            ),
            "0003.142"
        );
        assert_eq!(f(b'f', "-0", d), "-0.000000");
        assert_eq!(
            f(
                b'f',
                "2",
                Spec {
                    plus: true,
                    precision: Some(1),
                    ..d
                }
            ),
            "+2.0"
        );
    }

    #[test]
    fn integers_and_strings() {
        let s =
            |v: i64, spec: Spec| String::from_utf8(signed(v, &spec).to_vec()).unwrap_or_default();
        let u = |v: u64, c: u8, spec: Spec| {
            String::from_utf8(unsigned(v, c, &spec).to_vec()).unwrap_or_default()
        };
        let d = Spec::default();
        assert_eq!(
            s(
                42,
                Spec {
                    zero: true,
                    width: 5,
                    ..d
                }
            ),
            "00042"
        );
        assert_eq!(
            s(
                -5,
                Spec {
                    zero: true,
                    width: 8,
                    ..d
                }
            ),
            "-0000005"
        );
        assert_eq!(
            s(
                -5,
                Spec {
                    minus: true,
                    zero: true,
                    width: 8,
                    ..d
                }
            ),
            "-5      "
        );
        assert_eq!(
            s(
                42,
                Spec {
                    width: 5,
                    precision: Some(3),
                    ..d
                }
            ),
            "  042"
        );
        assert_eq!(s(0, p(0)), "");
        assert_eq!(
            s(
                5,
                Spec {
                    plus: true,
                    space: true,
                    ..d
                }
            ),
            "+5"
        );
        assert_eq!(u(255, b'x', Spec { alt: true, ..d }), "0xff");
        assert_eq!(u(0, b'x', Spec { alt: true, ..d }), "0");
        assert_eq!(u(8, b'o', Spec { alt: true, ..d }), "010");
        assert_eq!(
            u(
                0,
                b'o',
                Spec {
                    alt: true,
                    precision: Some(0),
                    ..d
                }
            ),
            "0"
        );
        assert_eq!(u(u64::MAX, b'u', d), "18446744073709551615");
        assert_eq!(
            string(
                b"abc",
                &Spec {
                    width: 5,
                    precision: Some(2),
                    ..d
                }
            )
            .to_vec(),
            b"   ab"
        );
        assert_eq!(
            string(
                b"ab",
                &Spec {
                    width: 5,
                    zero: true,
                    ..d
                }
            )
            .to_vec(),
            b"   ab"
        );
    }
}
