//! The parts of awk's built-ins that need no interpreter state: `printf`'s format (through
//! [`crate::support::cprintf`]), `sub`/`gsub`/`gensub` replacement text, `substr`'s
//! rounding, `index`, case mapping.

use crate::support::cprintf::{self, Spec};

use super::value::{Value, field_bytes, fmt_float, num_to_str};

/// Why a format could not be applied.
pub enum FmtError {
    /// `fatal: not enough arguments to satisfy format string`, with the format up to the
    /// conversion that ran out.
    NotEnough(Vec<u8>, usize),
}

/// A value's text for `%s` (numbers through `convfmt`).
pub fn text_of(v: &Value, convfmt: &[u8]) -> Vec<u8> {
    match v {
        Value::Uninit => Vec::new(),
        Value::Num(n) => {
            let mut o = Vec::new();
            num_to_str(*n, convfmt, &mut o);
            o
        }
        Value::Str(s) | Value::StrNum(s) => s.to_vec(),
    }
}

/// `sprintf(fmt, v)` for one number: `CONVFMT` and `OFMT`.
pub fn sprintf_simple(fmt: &[u8], v: f64) -> Vec<u8> {
    let args = [Value::Num(v)];
    format(fmt, &args, b"%.6g").unwrap_or_default()
}

fn to_int_or_float(v: f64, spec: &Spec, conv: u8) -> Vec<u8> {
    if !v.is_finite() {
        let mut s = *spec;
        s.precision = None;
        return fmt_float(v, b'f', &s);
    }
    let t = v.trunc();
    match conv {
        b'd' | b'i' => {
            if t.abs() < 9.2e18 {
                return field_bytes(&cprintf::signed(t as i64, spec));
            }
        }
        _ => {
            if (0.0..1.8e19).contains(&t) {
                return field_bytes(&cprintf::unsigned(t as u64, conv, spec));
            }
            if (-9.2e18..0.0).contains(&t) {
                return field_bytes(&cprintf::unsigned((t as i64).cast_unsigned(), conv, spec));
            }
            // gawk falls back to a float format for values out of range.
            let mut s = *spec;
            s.precision = Some(0);
            return fmt_float(t, b'f', &s);
        }
    }
    let mut s = *spec;
    s.precision = Some(0);
    fmt_float(t, b'f', &s)
}

/// awk's `printf`/`sprintf`: C's conversions, values converted as awk does.
pub fn format(fmt: &[u8], args: &[Value], convfmt: &[u8]) -> Result<Vec<u8>, FmtError> {
    let mut out = Vec::new();
    let mut ai = 0usize;
    let mut i = 0usize;
    let at = |k: usize| fmt.get(k).copied();
    while let Some(c) = at(i) {
        if c != b'%' {
            // Copy a run of plain bytes.
            let end = fmt
                .get(i..)
                .and_then(|r| memchr::memchr(b'%', r))
                .map_or(fmt.len(), |p| i + p);
            out.extend_from_slice(fmt.get(i..end).unwrap_or_default());
            i = end;
            continue;
        }
        let start = i;
        i += 1;
        if at(i) == Some(b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        let mut spec = Spec::default();
        while let Some(f) = at(i) {
            match f {
                b'-' => spec.minus = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                b'\'' => {}
                _ => break,
            }
            i += 1;
        }
        let next_arg = |ai: &mut usize, i: usize| -> Result<&Value, FmtError> {
            let v = args.get(*ai).ok_or(FmtError::NotEnough(fmt.to_vec(), i))?;
            *ai += 1;
            Ok(v)
        };
        if at(i) == Some(b'*') {
            i += 1;
            let w = next_arg(&mut ai, i)?.to_num();
            if w < 0.0 {
                spec.minus = true;
            }
            spec.width = clamp_usize(w.abs());
        } else {
            let mut w = 0usize;
            while let Some(d) = at(i).filter(u8::is_ascii_digit) {
                w = w.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                i += 1;
            }
            spec.width = w.min(1 << 28);
        }
        if at(i) == Some(b'.') {
            i += 1;
            if at(i) == Some(b'*') {
                i += 1;
                let p = next_arg(&mut ai, i)?.to_num();
                spec.precision = (p >= 0.0).then(|| clamp_usize(p));
            } else {
                let mut p = 0usize;
                while let Some(d) = at(i).filter(u8::is_ascii_digit) {
                    p = p.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                    i += 1;
                }
                spec.precision = Some(p.min(1 << 28));
            }
        }
        // Length modifiers are accepted and ignored.
        while matches!(at(i), Some(b'h' | b'l' | b'L' | b'q' | b'j' | b'z' | b't')) {
            i += 1;
        }
        if at(i) == Some(b'%') {
            // `%5%`: glibc prints a plain `%`.
            out.push(b'%');
            i += 1;
            continue;
        }
        let Some(conv) = at(i) else {
            // A lone `%` at the end prints as it is.
            out.extend_from_slice(fmt.get(start..).unwrap_or_default());
            break;
        };
        i += 1;
        match conv {
            b'd' | b'i' | b'o' | b'x' | b'X' | b'u' => {
                let v = next_arg(&mut ai, i)?.to_num();
                out.extend_from_slice(&to_int_or_float(v, &spec, conv));
            }
            b'e' | b'E' | b'f' | b'F' | b'g' | b'G' | b'a' | b'A' => {
                let v = next_arg(&mut ai, i)?.to_num();
                out.extend_from_slice(&fmt_float(v, conv, &spec));
            }
            b'c' => {
                let v = next_arg(&mut ai, i)?;
                let bytes: Vec<u8> = match v {
                    Value::Num(n) => vec![(n.trunc().rem_euclid(256.0)) as u8],
                    Value::StrNum(s) if s.is_empty() => Vec::new(),
                    _ => {
                        let s = text_of(v, convfmt);
                        s.first().map(|&b| vec![b]).unwrap_or_default()
                    }
                };
                let mut s = spec;
                s.precision = None;
                out.extend_from_slice(&field_bytes(&cprintf::string(&bytes, &s)));
            }
            b's' => {
                let v = next_arg(&mut ai, i)?;
                let s = text_of(v, convfmt);
                out.extend_from_slice(&field_bytes(&cprintf::string(&s, &spec)));
            }
            _ => {
                // Unknown: printed as written.
                out.extend_from_slice(fmt.get(start..i).unwrap_or_default());
            }
        }
    }
    Ok(out)
}

fn clamp_usize(v: f64) -> usize {
    if v.is_nan() {
        0
    } else if v > f64::from(1u32 << 28) {
        1 << 28
    } else {
        v as usize
    }
}

/// The text of `sub`/`gsub`'s replacement for one match, by POSIX's rules as gawk applies
/// them: a run of N backslashes before `&` gives N/2 backslashes, then the match (N even)
/// or a literal `&` (N odd); other backslashes are literal.
pub fn sub_repl(repl: &[u8], matched: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while let Some(&c) = repl.get(i) {
        match c {
            b'\\' => {
                let n = repl
                    .get(i..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|&&b| b == b'\\')
                    .count();
                if repl.get(i + n) == Some(&b'&') {
                    out.extend(std::iter::repeat_n(b'\\', n / 2));
                    if n % 2 == 1 {
                        out.push(b'&');
                    } else {
                        out.extend_from_slice(matched);
                    }
                    i += n + 1;
                } else {
                    out.extend(std::iter::repeat_n(b'\\', n));
                    i += n;
                }
            }
            b'&' => {
                out.extend_from_slice(matched);
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
}

/// gensub's replacement: `\0` and `&` the match, `\1`..`\9` the groups, `\&` a literal `&`,
/// `\\` a backslash.
pub fn gensub_repl(repl: &[u8], hay: &[u8], groups: &[Option<(usize, usize)>], out: &mut Vec<u8>) {
    let span = |k: usize| -> &[u8] {
        groups
            .get(k)
            .copied()
            .flatten()
            .and_then(|(s, e)| hay.get(s..e))
            .unwrap_or_default()
    };
    let mut i = 0;
    while let Some(&c) = repl.get(i) {
        match c {
            b'\\' => match repl.get(i + 1) {
                Some(&d) if d.is_ascii_digit() => {
                    out.extend_from_slice(span(usize::from(d - b'0')));
                    i += 2;
                }
                Some(&d @ (b'&' | b'\\')) => {
                    out.push(d);
                    i += 2;
                }
                _ => {
                    out.push(b'\\');
                    i += 1;
                }
            },
            b'&' => {
                out.extend_from_slice(span(0));
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
}

/// `substr(s, m[, n])`: the byte range, as gawk 5.2 computes it (checked against it: both
/// operands truncated, a start before 1 taken as 1 with the length kept).
pub fn substr(s: &[u8], m: f64, n: Option<f64>) -> &[u8] {
    let len = s.len() as f64;
    let mut start = if m.is_nan() { 1.0 } else { m.trunc() };
    if start < 1.0 {
        start = 1.0;
    }
    let mut end = match n {
        None => len + 1.0,
        Some(n) if n.is_nan() => return &[],
        Some(n) => {
            let n = n.trunc();
            if n <= 0.0 {
                return &[];
            }
            start + n
        }
    };
    if end > len + 1.0 {
        end = len + 1.0;
    }
    if end <= start {
        return &[];
    }
    let a = (start as usize).saturating_sub(1);
    let b = (end as usize).saturating_sub(1);
    s.get(a..b).unwrap_or_default()
}

/// `index(s, t)`: 1-based, 0 when absent.
pub fn index(s: &[u8], t: &[u8]) -> usize {
    if t.is_empty() {
        return 1;
    }
    memchr::memmem::find(s, t).map_or(0, |p| p + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: &[Value]) -> String {
        String::from_utf8(
            format(fmt.as_bytes(), args, b"%.6g")
                .ok()
                .unwrap_or_default(),
        )
        .unwrap_or_default()
    }

    #[test]
    fn formats_as_gawk() {
        // From gawk 5.2: printf "%d %d %x %c %c %5.2f|%-5s|%05d|%+d|%e|%i\n", ...
        let args = [
            Value::str(b"3abc"),
            Value::Num(-2.7),
            Value::Num(-1.0),
            Value::Num(65.0),
            Value::str(b"hello"),
            Value::Num(3.141_49),
            Value::str(b"ab"),
            Value::Num(42.0),
            Value::Num(5.0),
            Value::Num(12345.678),
            Value::Num(7.9),
        ];
        assert_eq!(
            f("%d %d %x %c %c %5.2f|%-5s|%05d|%+d|%e|%i\n", &args),
            "3 -2 ffffffffffffffff A h  3.14|ab   |00042|+5|1.234568e+04|7\n"
        );
        assert_eq!(
            f("%5s|%.2s|%%", &[Value::str(b"x"), Value::str(b"abc")]),
            "    x|ab|%"
        );
        assert!(format(b"%s %s", &[Value::str(b"a")], b"%.6g").is_err());
    }

    #[test]
    fn substr_as_gawk() {
        assert_eq!(substr(b"hello", 2.0, Some(3.0)), b"ell");
        assert_eq!(substr(b"hello", 0.0, None), b"hello");
        assert_eq!(substr(b"hello", -1.0, Some(3.0)), b"hel");
        assert_eq!(substr(b"hello", 0.0, Some(2.0)), b"he");
        assert_eq!(substr(b"hello", 4.0, Some(10.0)), b"lo");
        assert_eq!(substr(b"hello", 1.5, None), b"hello");
        assert_eq!(substr(b"hello", 2.7, None), b"ello");
    }

    #[test]
    fn replacements() {
        let mut o = Vec::new();
        sub_repl(b"[\\\\&]", b"b", &mut o);
        assert_eq!(o, b"[\\b]");
        o.clear();
        sub_repl(b"[\\\\\\&]", b"b", &mut o);
        assert_eq!(o, b"[\\&]");
    }
}
