//! Backslash escapes as bash's `echo -e` (and `printf %b`) interpret them.

use crate::Vars;

/// Whether the session's character type is UTF-8 (`LC_ALL`, then `LC_CTYPE`, then `LANG`),
/// which decides how `\u`/`\U` print a character above 0x7f.
pub fn utf8_locale(vars: &Vars) -> bool {
    let v = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|n| vars.get(n).filter(|v| !v.is_empty()))
        .unwrap_or("C")
        .as_bytes();
    let has = |name: &[u8]| v.windows(name.len()).any(|w| w.eq_ignore_ascii_case(name));
    has(b"utf-8") || has(b"utf8")
}

/// Bash's `u32cvt`: UTF-8 (the old 6-byte form, no range check) in a UTF-8 locale; in the C
/// locale only ASCII is printed and anything else stays as `\uXXXX`/`\UXXXXXXXX`.
pub fn push_codepoint(c: u32, utf8: bool, out: &mut Vec<u8>) {
    if c <= 0x7f {
        out.push(c as u8);
    } else if !utf8 {
        if c <= 0xffff {
            out.extend_from_slice(format!("\\u{c:04X}").as_bytes());
        } else {
            out.extend_from_slice(format!("\\U{c:08X}").as_bytes());
        }
    } else {
        let (len, first) = match c {
            0..=0x7ff => (2, 0xc0),
            0x800..=0xffff => (3, 0xe0),
            0x1_0000..=0x1f_ffff => (4, 0xf0),
            0x20_0000..=0x3ff_ffff => (5, 0xf8),
            _ => (6, 0xfc),
        };
        let mut bytes = [0u8; 6];
        let mut v = c;
        for i in (1..len).rev() {
            bytes[i] = 0x80 | (v & 0x3f) as u8;
            v >>= 6;
        }
        bytes[0] = first | v as u8;
        out.extend_from_slice(&bytes[..len]);
    }
}

// Short names mirror the C they follow (`s`, `i`, `v`).
/// Reads up to `max` digits of `radix` at `s[*i..]`, advancing `i`.
#[allow(clippy::many_single_char_names)]
fn digits(s: &[u8], i: &mut usize, radix: u32, max: usize) -> Option<u32> {
    let mut v: u32 = 0;
    let mut n = 0;
    while n < max {
        let Some(d) = s.get(*i).and_then(|&b| char::from(b).to_digit(radix)) else {
            break;
        };
        v = v.wrapping_mul(radix).wrapping_add(d);
        *i += 1;
        n += 1;
    }
    (n > 0).then_some(v)
}

/// Interprets `echo -e` escapes in `s`, appending to `out`. Returns `false` when `\c` was
/// met: the caller prints nothing more, not even the newline.
#[allow(clippy::many_single_char_names)]
pub fn echo_escapes(s: &[u8], utf8: bool, out: &mut Vec<u8>) -> bool {
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        i += 1;
        if b != b'\\' || i >= s.len() {
            out.push(b);
            continue;
        }
        let e = s[i];
        i += 1;
        match e {
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'e' | b'E' => out.push(0x1b),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(0x0b),
            b'\\' => out.push(b'\\'),
            b'c' => return false,
            // `\0nnn`: up to three octal digits after the zero, the value taken mod 256.
            b'0' => out.push(digits(s, &mut i, 8, 3).unwrap_or(0) as u8),
            b'x' => match digits(s, &mut i, 16, 2) {
                Some(v) => out.push(v as u8),
                None => out.extend_from_slice(b"\\x"),
            },
            b'u' | b'U' => {
                let max = if e == b'u' { 4 } else { 8 };
                match digits(s, &mut i, 16, max) {
                    Some(v) => push_codepoint(v, utf8, out),
                    None => out.extend_from_slice(&[b'\\', e]),
                }
            }
            other => out.extend_from_slice(&[b'\\', other]),
        }
    }
    true
}

/// Where a backslash escape of bash's `printf` is read: its format string, or a `%b`
/// argument (`\0NNN` takes three digits after the zero, `\c` ends the output, `\'` `\"`
/// `\?` stay as they are).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrintfEscapes {
    Format,
    Argument,
}

/// One escape as bash's `printf` reads it (`tescape`), `s[i]` being the character after
/// the backslash: appends what it stands for to `out` and gives how many characters it used
/// (0: not an escape; the backslash was appended and the character is read as usual), then
/// whether it was `\c` in an argument, and the diagnostic of an `\x`/`\u` without digits.
#[allow(clippy::many_single_char_names)] // s, i, j, c, v as in bash's tescape
pub fn printf_escape(
    s: &[u8],
    i: usize,
    mode: PrintfEscapes,
    utf8: bool,
    out: &mut Vec<u8>,
) -> (usize, bool, Option<&'static str>) {
    let arg = mode == PrintfEscapes::Argument;
    let Some(&c) = s.get(i) else {
        out.push(b'\\');
        return (0, false, None);
    };
    let mut j = i + 1;
    match c {
        b'a' => out.push(0x07),
        b'b' => out.push(0x08),
        b'e' | b'E' => out.push(0x1b),
        b'f' => out.push(0x0c),
        b'n' => out.push(b'\n'),
        b'r' => out.push(b'\r'),
        b't' => out.push(b'\t'),
        b'v' => out.push(0x0b),
        b'\\' => out.push(b'\\'),
        b'0'..=b'7' => {
            let first = u32::from(c - b'0');
            let extra = if first == 0 && arg { 3 } else { 2 };
            let rest = digits(s, &mut j, 8, extra).unwrap_or(0);
            let n = j - (i + 1);
            let value = first.wrapping_mul(8u32.pow(u32::try_from(n).unwrap_or(0))) + rest;
            out.push(value as u8);
        }
        b'x' => {
            let Some(v) = digits(s, &mut j, 16, 2) else {
                out.push(b'\\');
                return (0, false, Some("missing hex digit for \\x"));
            };
            out.push(v as u8);
        }
        b'u' | b'U' => {
            let Some(v) = digits(s, &mut j, 16, if c == b'u' { 4 } else { 8 }) else {
                out.push(b'\\');
                let msg = if c == b'u' {
                    "missing unicode digit for \\u"
                } else {
                    "missing unicode digit for \\U"
                };
                return (0, false, Some(msg));
            };
            push_codepoint(v, utf8, out);
        }
        b'\'' | b'"' | b'?' if !arg => out.push(c),
        b'c' if arg => return (1, true, None),
        _ => {
            out.push(b'\\');
            return (0, false, None);
        }
    }
    (j - i, false, None)
}

/// A `%b` argument with its escapes interpreted (bash's `bexpand`): the bytes, whether a
/// `\c` ended it, and the diagnostics met on the way.
pub fn printf_b(s: &[u8], utf8: bool) -> (Vec<u8>, bool, Vec<&'static str>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        i += 1;
        if c != b'\\' || i >= s.len() {
            out.push(c);
            continue;
        }
        let (used, stop, err) = printf_escape(s, i, PrintfEscapes::Argument, utf8, &mut out);
        errors.extend(err);
        if stop {
            return (out, true, errors);
        }
        i += used;
    }
    (out, false, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(s: &str, utf8: bool) -> (Vec<u8>, bool) {
        let mut out = Vec::new();
        let more = echo_escapes(s.as_bytes(), utf8, &mut out);
        (out, more)
    }

    #[test]
    fn as_bash_5_2() {
        // `LC_ALL=C bash -c 'echo -e "..."' | od -c`
        assert_eq!(
            esc(r"\0101\x41\u00e9\U0001F600\e\E\q\x\xZ\0\08\u", false).0,
            b"AA\\u00E9\\U0001F600\x1b\x1b\\q\\x\\xZ\0\08\\u"
        );
        assert_eq!(esc(r"\0400 \101 \1", false).0, b"\0 \\101 \\1");
        assert_eq!(esc(r"\x4142\x7\x1z", false).0, b"A42\x07\x01z");
        assert_eq!(esc(r"a\", false).0, b"a\\");
        assert_eq!(esc(r"a\cb", false), (b"a".to_vec(), false));
        // `LC_ALL=C.UTF-8`: even surrogates and values past U+10FFFF are encoded.
        assert_eq!(
            esc(r"\u00e9\uD800|\U00110000|\U7fffffff", true).0,
            b"\xc3\xa9\xed\xa0\x80|\xf4\x90\x80\x80|\xfd\xbf\xbf\xbf\xbf\xbf"
        );
    }
}
