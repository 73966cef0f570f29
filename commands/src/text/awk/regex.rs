//! awk's regular expressions (gawk's dialect: POSIX ERE with `\y \B \< \> \s \S \w \W`, the
//! string escapes `\n \t \/ \"`..., and backslashes inside bracket expressions) rewritten as
//! GNU ERE for the one shared engine, [`crate::support::regex_gnu`].

use crate::support::regex_gnu::{Options, Regex, Syntax};

fn push_lit(out: &mut Vec<u8>, c: u8) {
    if b".[]()*+?{}|^$\\".contains(&c) {
        out.push(b'\\');
    }
    out.push(c);
}

/// The byte an escape letter stands for in a string or regex (`\n`...).
fn escape_byte(c: u8) -> Option<u8> {
    Some(match c {
        b'n' => b'\n',
        b't' => b'\t',
        b'r' => b'\r',
        b'a' => 7,
        b'b' => 8,
        b'f' => 12,
        b'v' => 11,
        b'/' => b'/',
        b'"' => b'"',
        _ => return None,
    })
}

/// Reads `\ooo` or `\xhh` at `p[i..]` (just after the backslash): the byte and its length.
fn numeric_escape(p: &[u8], i: usize) -> Option<(u8, usize)> {
    let c = *p.get(i)?;
    if (b'0'..=b'7').contains(&c) {
        let mut v = 0u32;
        let mut j = i;
        while j < i + 3 && p.get(j).is_some_and(|d| (b'0'..=b'7').contains(d)) {
            v = v * 8 + u32::from(p.get(j).copied().unwrap_or(b'0') - b'0');
            j += 1;
        }
        return Some(((v & 0xff) as u8, j - i));
    }
    if c == b'x' && p.get(i + 1).is_some_and(u8::is_ascii_hexdigit) {
        let mut v = 0u32;
        let mut j = i + 1;
        while j < i + 3 && p.get(j).is_some_and(u8::is_ascii_hexdigit) {
            v = v * 16
                + char::from(p.get(j).copied().unwrap_or(b'0'))
                    .to_digit(16)
                    .unwrap_or(0);
            j += 1;
        }
        return Some(((v & 0xff) as u8, j - i));
    }
    None
}

/// A bracket expression starting at `p[i] == '['`: rewritten with its escapes resolved and
/// `]`, `-` placed where POSIX takes them literally. Returns the new index.
fn bracket(p: &[u8], mut i: usize, out: &mut Vec<u8>) -> usize {
    i += 1;
    let negate = p.get(i) == Some(&b'^');
    if negate {
        i += 1;
    }
    let mut items: Vec<u8> = Vec::new();
    let mut close = false;
    let mut dash = false;
    let mut first = true;
    // Literal single bytes to add, with ranges as `a-b` triples.
    while let Some(&c) = p.get(i) {
        if c == b']' && !first {
            i += 1;
            break;
        }
        first = false;
        if c == b'[' && matches!(p.get(i + 1), Some(b':' | b'.' | b'=')) {
            let kind = p.get(i + 1).copied().unwrap_or(b':');
            let mut j = i + 2;
            while j + 1 < p.len() && !(p.get(j) == Some(&kind) && p.get(j + 1) == Some(&b']')) {
                j += 1;
            }
            let end = (j + 2).min(p.len());
            items.extend_from_slice(p.get(i..end).unwrap_or_default());
            i = end;
            continue;
        }
        let (lo, len) = if c == b'\\' {
            let n = p.get(i + 1).copied();
            match n {
                Some(n) => {
                    if let Some(b) = escape_byte(n) {
                        (b, 2)
                    } else if let Some((b, l)) = numeric_escape(p, i + 1) {
                        (b, 1 + l)
                    } else {
                        (n, 2)
                    }
                }
                None => (b'\\', 1),
            }
        } else {
            (c, 1)
        };
        i += len;
        // A range?
        if p.get(i) == Some(&b'-') && p.get(i + 1).is_some_and(|&d| d != b']') {
            let mut j = i + 1;
            let hi = if p.get(j) == Some(&b'\\') {
                let n = p.get(j + 1).copied().unwrap_or(b'\\');
                if let Some(b) = escape_byte(n) {
                    j += 2;
                    b
                } else if let Some((b, l)) = numeric_escape(p, j + 1) {
                    j += 1 + l;
                    b
                } else {
                    j += 2;
                    n
                }
            } else {
                let b = p.get(j).copied().unwrap_or(b'-');
                j += 1;
                b
            };
            i = j;
            if lo == b']' || hi == b']' || lo == b'-' || hi == b'-' || lo == b'^' {
                // Rare: spell every byte of the range out.
                for b in lo..=hi {
                    match b {
                        b']' => close = true,
                        b'-' => dash = true,
                        _ => items.push(b),
                    }
                }
            } else {
                items.push(lo);
                items.push(b'-');
                items.push(hi);
            }
            continue;
        }
        match lo {
            b']' => close = true,
            b'-' => dash = true,
            b'^' => {
                // Not first: literal; placed after something else below.
                items.push(b'^');
            }
            _ => items.push(lo),
        }
    }
    out.push(b'[');
    if negate {
        out.push(b'^');
    }
    if close {
        out.push(b']');
    }
    // A `^` first (after `]` or nothing) would negate: move it to the end.
    if !close && items.first() == Some(&b'^') {
        items.remove(0);
        items.push(b'^');
        if items.len() == 1 && !dash {
            // `[^]` alone: a lone caret.
            out.pop();
            if negate {
                out.pop();
                out.extend_from_slice(b"[^^]");
            } else {
                out.extend_from_slice(b"\\^");
            }
            return i;
        }
    }
    out.extend_from_slice(&items);
    if dash {
        out.push(b'-');
    }
    out.push(b']');
    i
}

/// Rewrites an awk regex as GNU ERE.
pub fn to_gnu(p: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(p.len() + 8);
    let mut i = 0;
    // Where a repetition operator has nothing to repeat (the start, after `(` or `|`),
    // gawk takes it literally.
    let mut at_start = true;
    while let Some(&c) = p.get(i) {
        let was_start = at_start;
        at_start = matches!(c, b'(' | b'|') || (c == b'^' && was_start);
        match c {
            b'+' | b'?' | b'*' if was_start => {
                out.push(b'\\');
                out.push(c);
                i += 1;
            }
            b'\\' => {
                let Some(&n) = p.get(i + 1) else {
                    out.extend_from_slice(b"\\\\");
                    i += 1;
                    continue;
                };
                if n == b'y' {
                    out.extend_from_slice(b"\\b");
                    i += 2;
                } else if matches!(
                    n,
                    b'B' | b'<' | b'>' | b's' | b'S' | b'w' | b'W' | b'`' | b'\''
                ) {
                    out.push(b'\\');
                    out.push(n);
                    i += 2;
                } else if let Some(b) = escape_byte(n) {
                    push_lit(&mut out, b);
                    i += 2;
                } else if let Some((b, l)) = numeric_escape(p, i + 1) {
                    push_lit(&mut out, b);
                    i += 1 + l;
                } else {
                    push_lit(&mut out, n);
                    i += 2;
                }
            }
            b'[' => i = bracket(p, i, &mut out),
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Compiles an awk regex. `Err`: GNU's message.
pub fn compile(p: &[u8], icase: bool) -> Result<Regex, String> {
    let gnu = to_gnu(p);
    let mut opts = Options::new(Syntax::Extended);
    opts.icase = icase;
    Regex::new(&gnu, &opts).map(|(r, _)| r)
}

/// Compiles a pattern already in GNU ERE.
pub fn compile_gnu(p: &[u8]) -> Result<Regex, String> {
    Regex::new(p, &Options::new(Syntax::Extended)).map(|(r, _)| r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, s: &str) -> bool {
        compile(p.as_bytes(), false).is_ok_and(|r| r.is_match(s.as_bytes()))
    }

    #[test]
    fn awk_dialect() {
        assert!(m("a\\.b", "a.b"));
        assert!(!m("a\\.b", "axb"));
        assert!(m("\\ybar\\y", "foo bar"));
        assert!(!m("\\ybar\\y", "foobar"));
        assert!(m("[\\t]", "a\tb"));
        assert!(m("[]a]", "]"));
        assert!(m("[a\\]]", "]"));
        assert!(m("[^\\]]", "a"));
        assert!(m("a{2}", "aa"));
        assert!(!m("^a{2}$", "a"));
        assert!(m("[[:digit:]]+", "x1"));
        assert!(m("\\/", "/"));
        assert!(m("[a-]", "-"));
        assert!(m("x|y", "y"));
    }
}
