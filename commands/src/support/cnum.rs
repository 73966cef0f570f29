//! C's integer parsing as bash's builtins use it: `strtoimax`/`strtoumax` (with the end
//! position and the `ERANGE` flag: `printf` reports both) and bash's `legal_number` (`test`'s
//! integers, `read -n`, `mapfile -n`, `-u FD`).

/// What a `strto*` call gives: the value (clamped on overflow, as C does), where parsing
/// stopped (0: nothing was parsed, C's `endptr == nptr`), and whether it overflowed (`ERANGE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parsed<T> {
    pub value: T,
    pub end: usize,
    pub overflow: bool,
}

/// `isspace` in the C locale.
pub fn c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// The digits of a `strto*` number: after blanks and a sign, the base's prefix (`0x`, `0`)
/// when `base` is 0, then digits. The magnitude saturates at `u128::MAX`.
struct Digits {
    negative: bool,
    magnitude: u128,
    end: usize,
}

fn scan(s: &[u8], base: u32) -> Digits {
    let mut i = 0;
    while s.get(i).copied().is_some_and(c_space) {
        i += 1;
    }
    let mut negative = false;
    if let Some(&c @ (b'+' | b'-')) = s.get(i) {
        negative = c == b'-';
        i += 1;
    }
    let hex_prefix = matches!(s.get(i), Some(b'0'))
        && matches!(s.get(i + 1), Some(b'x' | b'X'))
        && s.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
    let base = match base {
        0 if hex_prefix => 16,
        0 if s.get(i) == Some(&b'0') => 8,
        0 => 10,
        b => b,
    };
    if base == 16 && hex_prefix {
        i += 2;
    }
    let start = i;
    let mut magnitude: u128 = 0;
    while let Some(d) = s.get(i).and_then(|&b| char::from(b).to_digit(base)) {
        magnitude = magnitude
            .saturating_mul(u128::from(base))
            .saturating_add(u128::from(d));
        i += 1;
    }
    Digits {
        negative,
        magnitude,
        end: if i == start { 0 } else { i },
    }
}

/// C's `strtoimax(s, &end, base)` (`base` 0 picks 16 for `0x`, 8 for a leading `0`).
pub fn strtoimax(s: &[u8], base: u32) -> Parsed<i64> {
    let d = scan(s, base);
    let (value, overflow) = if d.negative {
        match i64::try_from(d.magnitude) {
            Ok(v) => (-v, false),
            Err(_) if d.magnitude == 1u128 << 63 => (i64::MIN, false),
            Err(_) => (i64::MIN, true),
        }
    } else {
        match i64::try_from(d.magnitude) {
            Ok(v) => (v, false),
            Err(_) => (i64::MAX, true),
        }
    };
    Parsed {
        value,
        end: d.end,
        overflow,
    }
}

/// C's `strtoumax(s, &end, base)`: a `-` negates in unsigned arithmetic (`-1` is the largest
/// value), as C does.
pub fn strtoumax(s: &[u8], base: u32) -> Parsed<u64> {
    let d = scan(s, base);
    let (value, overflow) = match u64::try_from(d.magnitude) {
        Ok(v) if d.negative => (v.wrapping_neg(), false),
        Ok(v) => (v, false),
        Err(_) => (u64::MAX, true),
    };
    Parsed {
        value,
        end: d.end,
        overflow,
    }
}

/// bash's `legal_number`: a whole decimal `intmax_t` (`strtoimax` base 10, so leading blanks
/// of any kind and a sign), followed only by spaces and tabs; `None` on anything else and on
/// overflow.
pub fn legal_number(s: &[u8]) -> Option<i64> {
    let p = strtoimax(s, 10);
    if p.overflow || p.end == 0 {
        return None;
    }
    let rest = s.get(p.end..).unwrap_or_default();
    rest.iter()
        .all(|&b| b == b' ' || b == b'\t')
        .then_some(p.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtoimax_as_glibc() {
        let p = |s: &str| {
            let r = strtoimax(s.as_bytes(), 0);
            (r.value, r.end, r.overflow)
        };
        assert_eq!(p("42"), (42, 2, false));
        assert_eq!(p("  -0x1f!"), (-31, 7, false));
        assert_eq!(p("010"), (8, 3, false));
        assert_eq!(p("08"), (0, 1, false));
        assert_eq!(p("0x"), (0, 1, false));
        assert_eq!(p("abc"), (0, 0, false));
        assert_eq!(p("-"), (0, 0, false));
        assert_eq!(p(""), (0, 0, false));
        assert_eq!(p("99999999999999999999"), (i64::MAX, 20, true));
        assert_eq!(p("-9223372036854775808"), (i64::MIN, 20, false));
        assert_eq!(p("-9223372036854775809"), (i64::MIN, 20, true));
        let u = strtoumax(b"-1", 0);
        assert_eq!((u.value, u.overflow), (u64::MAX, false));
    }

    #[test]
    fn legal_numbers() {
        assert_eq!(legal_number(b" 12 "), Some(12));
        assert_eq!(legal_number(b"\n-3\t"), Some(-3));
        assert_eq!(legal_number(b"+5"), Some(5));
        assert_eq!(legal_number(b"0x10"), None);
        assert_eq!(legal_number(b"12\n"), None);
        assert_eq!(legal_number(b""), None);
        assert_eq!(legal_number(b" "), None);
        assert_eq!(legal_number(b"9223372036854775808"), None);
    }
}
