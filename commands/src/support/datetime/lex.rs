//! The tokens of a date string (gnulib `parse_datetime`'s lexer): numbers with their digit
//! count, sign and fraction, words, and punctuation.

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    /// A number: value, digit count, sign (`0` unsigned), and nanoseconds of a fraction.
    Num {
        v: i64,
        digits: usize,
        sign: i8,
        frac: Option<u32>,
    },
    Word(String),
    Ch(u8),
}

/// Nanoseconds of a fraction's digits (`5` → 500000000), extra digits truncated.
pub(super) fn frac_nanos(digits: &str) -> u32 {
    let mut n: u32 = 0;
    for (i, b) in digits
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(9)
        .enumerate()
    {
        let _ = i;
        n = n * 10 + u32::from(b - b'0');
    }
    n
}

#[allow(clippy::many_single_char_names)] // GNU's yylex, one letter per cursor
pub(super) fn lex(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || c == b'+' || c == b'-' {
            let mut j = i;
            let mut sign = 0i8;
            if c == b'+' || c == b'-' {
                j += 1;
                while b.get(j).is_some_and(u8::is_ascii_whitespace) {
                    j += 1;
                }
                if !b.get(j).is_some_and(u8::is_ascii_digit) {
                    // gnulib skips a sign that no digit follows (`5-jan-2024`).
                    i = j;
                    continue;
                }
                sign = if c == b'-' { -1 } else { 1 };
            }
            let start = j;
            while b.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
            let digits = s.get(start..j)?;
            let v: i64 = digits.parse().ok()?;
            let mut frac = None;
            if matches!(b.get(j), Some(b'.' | b',')) && b.get(j + 1).is_some_and(u8::is_ascii_digit)
            {
                let fs = j + 1;
                j = fs;
                while b.get(j).is_some_and(u8::is_ascii_digit) {
                    j += 1;
                }
                frac = Some(frac_nanos(s.get(fs..j)?));
            }
            out.push(Tok::Num {
                v,
                digits: digits.len(),
                sign,
                frac,
            });
            i = j;
            continue;
        }
        if c.is_ascii_alphabetic() {
            let mut j = i;
            let mut w = String::new();
            while let Some(&d) = b.get(j) {
                if d.is_ascii_alphabetic() {
                    w.push(char::from(d.to_ascii_lowercase()));
                } else if d != b'.' {
                    break;
                } else {
                    w.push('.');
                }
                j += 1;
            }
            out.push(Tok::Word(w));
            i = j;
            continue;
        }
        if c == b'(' {
            let mut depth = 0;
            while let Some(&d) = b.get(i) {
                i += 1;
                if d == b'(' {
                    depth += 1;
                } else if d == b')' {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
            continue;
        }
        if c >= 0x80 {
            return None;
        }
        out.push(Tok::Ch(c));
        i += 1;
    }
    Some(out)
}
