//! The SET arguments: backslash escapes (with GNU's warnings), ranges, `[:class:]`, `[=c=]`
//! and `[c*n]` parsed into elements, and the cursor that expands them byte by byte.

#[allow(clippy::wildcard_imports)]
use super::*;

/// The character classes, in the C locale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    Alnum,
    Alpha,
    Blank,
    Cntrl,
    Digit,
    Graph,
    Lower,
    Print,
    Punct,
    Space,
    Upper,
    Xdigit,
}

impl Class {
    pub(super) fn named(name: &[u8]) -> Option<Class> {
        Some(match name {
            b"alnum" => Class::Alnum,
            b"alpha" => Class::Alpha,
            b"blank" => Class::Blank,
            b"cntrl" => Class::Cntrl,
            b"digit" => Class::Digit,
            b"graph" => Class::Graph,
            b"lower" => Class::Lower,
            b"print" => Class::Print,
            b"punct" => Class::Punct,
            b"space" => Class::Space,
            b"upper" => Class::Upper,
            b"xdigit" => Class::Xdigit,
            _ => return None,
        })
    }
    pub(super) fn has(self, c: u8) -> bool {
        match self {
            Class::Alnum => c.is_ascii_alphanumeric(),
            Class::Alpha => c.is_ascii_alphabetic(),
            Class::Blank => c == b' ' || c == b'\t',
            Class::Cntrl => c.is_ascii_control(),
            Class::Digit => c.is_ascii_digit(),
            Class::Graph => c.is_ascii_graphic(),
            Class::Lower => c.is_ascii_lowercase(),
            Class::Print => c.is_ascii_graphic() || c == b' ',
            Class::Punct => c.is_ascii_punctuation(),
            Class::Space => matches!(c, b' ' | b'\t'..=b'\r'),
            Class::Upper => c.is_ascii_uppercase(),
            Class::Xdigit => c.is_ascii_hexdigit(),
        }
    }
    pub(super) fn members(self) -> impl Iterator<Item = u8> {
        (0..=255u8).filter(move |&c| self.has(c))
    }
    /// Upper or lower: the only classes string2 may hold when translating.
    pub(super) fn case(self) -> Case {
        match self {
            Class::Upper => Case::Upper,
            Class::Lower => Case::Lower,
            _ => Case::None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Case {
    None,
    Upper,
    Lower,
}

/// One construct of a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Elem {
    Char(u8),
    Range(u8, u8),
    Class(Class),
    Equiv(u8),
    /// `[c*n]`; a count of 0 is `[c*]` until validation fills it.
    Repeat(u8, u64),
}

impl Elem {
    pub(super) fn len(self) -> u64 {
        match self {
            Elem::Char(_) | Elem::Equiv(_) => 1,
            Elem::Range(a, b) => u64::from(b - a) + 1,
            Elem::Class(c) => c.members().count() as u64,
            Elem::Repeat(_, n) => n,
        }
    }
    /// The `i`th character of the expansion.
    pub(super) fn nth(self, i: u64) -> Option<u8> {
        match self {
            Elem::Char(c) | Elem::Equiv(c) => (i == 0).then_some(c),
            Elem::Range(a, b) => u8::try_from(u64::from(a) + i).ok().filter(|&c| c <= b),
            Elem::Class(k) => k.members().nth(usize::try_from(i).ok()?),
            Elem::Repeat(c, n) => (i < n).then_some(c),
        }
    }
    /// The distinct characters of the expansion (a repeat once, however long).
    pub(super) fn chars(self) -> Vec<u8> {
        match self {
            Elem::Repeat(_, 0) => Vec::new(),
            Elem::Char(c) | Elem::Equiv(c) | Elem::Repeat(c, _) => vec![c],
            Elem::Range(a, b) => (a..=b).collect(),
            Elem::Class(k) => k.members().collect(),
        }
    }
}

/// GNU's `make_printable_str`, for messages.
pub(super) fn printable(s: &[u8]) -> String {
    let mut out = String::new();
    for &c in s {
        match c {
            b'\\' => out.push('\\'),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x0b => out.push_str("\\v"),
            c if c.is_ascii_graphic() || c == b' ' => out.push(char::from(c)),
            c => {
                let _ = write!(out, "\\{c:03o}");
            }
        }
    }
    out
}

pub(super) fn printable_char(c: u8) -> String {
    if c.is_ascii_graphic() || c == b' ' {
        char::from(c).to_string()
    } else {
        format!("\\{c:03o}")
    }
}

/// The first pass: backslash escapes to bytes, remembering which bytes were escaped.
pub(super) fn unquote(s: &[u8], warnings: &mut String) -> (Vec<u8>, Vec<bool>) {
    let mut out = Vec::with_capacity(s.len());
    let mut escaped = Vec::with_capacity(s.len());
    let mut i = 0;
    let oct = |at: usize| {
        s.get(at)
            .filter(|c| (b'0'..=b'7').contains(c))
            .map(|c| c - b'0')
    };
    while let Some(&c) = s.get(i) {
        if c != b'\\' {
            out.push(c);
            escaped.push(false);
            i += 1;
            continue;
        }
        let (byte, was_escaped, used) = match s.get(i + 1) {
            None => {
                warnings.push_str(
                    "tr: warning: an unescaped backslash at end of string is not portable\n",
                );
                (b'\\', false, 1)
            }
            Some(b'a') => (0x07, true, 2),
            Some(b'b') => (0x08, true, 2),
            Some(b'f') => (0x0c, true, 2),
            Some(b'n') => (b'\n', true, 2),
            Some(b'r') => (b'\r', true, 2),
            Some(b't') => (b'\t', true, 2),
            Some(b'v') => (0x0b, true, 2),
            Some(d) if (b'0'..=b'7').contains(d) => {
                let mut value = u32::from(d - b'0');
                let mut used = 2;
                if let Some(d2) = oct(i + 2) {
                    value = value * 8 + u32::from(d2);
                    used = 3;
                    if let Some(d3) = oct(i + 3) {
                        if value * 8 + u32::from(d3) < 256 {
                            value = value * 8 + u32::from(d3);
                            used = 4;
                        } else {
                            let (first, second, third) =
                                (char::from(*d), char::from(d2 + b'0'), char::from(d3 + b'0'));
                            let _ = writeln!(
                                warnings,
                                "tr: warning: the ambiguous octal escape \\{first}{second}{third} is being\n\tinterpreted as the 2-byte sequence \\0{first}{second}, {third}"
                            );
                        }
                    }
                }
                (u8::try_from(value).unwrap_or(u8::MAX), true, used)
            }
            Some(&other) => (other, true, 2),
        };
        out.push(byte);
        escaped.push(was_escaped);
        i += used;
    }
    (out, escaped)
}

/// The second pass: the constructs of one string, or GNU's message.
pub(super) fn build(s: &[u8], esc: &[bool]) -> Result<Vec<Elem>, String> {
    let plain = |i: usize, c: u8| s.get(i) == Some(&c) && esc.get(i) == Some(&false);
    let mut elems = Vec::new();
    let mut i = 0;
    while i + 2 < s.len() {
        if plain(i, b'[') {
            let mut try_repeat = true;
            if plain(i + 1, b':') || plain(i + 1, b'=') {
                let delim = s.get(i + 1).copied().unwrap_or(b':');
                let close = (i + 2..s.len().saturating_sub(1))
                    .find(|&j| plain(j, delim) && plain(j + 1, b']'));
                if let Some(close) = close {
                    let operand = s.get(i + 2..close).unwrap_or_default();
                    if operand.is_empty() {
                        return Err(if delim == b':' {
                            "missing character class name '[::]'".into()
                        } else {
                            "missing equivalence class character '[==]'".into()
                        });
                    }
                    let elem = if delim == b':' {
                        Class::named(operand).map(Elem::Class)
                    } else if let [c] = operand {
                        Some(Elem::Equiv(*c))
                    } else {
                        None
                    };
                    match elem {
                        Some(e) => {
                            elems.push(e);
                            i = close + 2;
                            continue;
                        }
                        None if star_digits_bracket(s, esc, i + 2) => {}
                        None if delim == b':' => {
                            return Err(format!(
                                "invalid character class {}",
                                quote_locale(printable(operand))
                            ));
                        }
                        None => {
                            return Err(format!(
                                "{}: equivalence class operand must be a single character",
                                printable(operand)
                            ));
                        }
                    }
                    try_repeat = true;
                }
            }
            if try_repeat && let Some((e, close)) = bracketed_repeat(s, esc, i + 1)? {
                elems.push(e);
                i = close + 1;
                continue;
            }
        }
        if plain(i + 1, b'-') {
            let (a, b) = (
                s.get(i).copied().unwrap_or(0),
                s.get(i + 2).copied().unwrap_or(0),
            );
            if b < a {
                return Err(format!(
                    "range-endpoints of '{}-{}' are in reverse collating sequence order",
                    printable_char(a),
                    printable_char(b)
                ));
            }
            elems.push(Elem::Range(a, b));
            i += 3;
        } else {
            elems.push(Elem::Char(s.get(i).copied().unwrap_or(0)));
            i += 1;
        }
    }
    elems.extend(
        s.get(i..)
            .unwrap_or_default()
            .iter()
            .map(|&c| Elem::Char(c)),
    );
    Ok(elems)
}

/// Whether `s[idx..]` is `*digits]`, unescaped.
pub(super) fn star_digits_bracket(s: &[u8], esc: &[bool], idx: usize) -> bool {
    let plain = |i: usize, c: u8| s.get(i) == Some(&c) && esc.get(i) == Some(&false);
    if !plain(idx, b'*') {
        return false;
    }
    for i in idx + 1..s.len() {
        if !s.get(i).is_some_and(u8::is_ascii_digit) || esc.get(i) == Some(&true) {
            return plain(i, b']');
        }
    }
    false
}

/// `[c*n]` starting with `c` at `start`: the element and its closing bracket, `None` when it
/// is not one, or the invalid-count message.
pub(super) fn bracketed_repeat(
    s: &[u8],
    esc: &[bool],
    start: usize,
) -> Result<Option<(Elem, usize)>, String> {
    if !(s.get(start + 1) == Some(&b'*') && esc.get(start + 1) == Some(&false)) {
        return Ok(None);
    }
    let Some(&c) = s.get(start) else {
        return Ok(None);
    };
    let mut i = start + 2;
    while i < s.len() && esc.get(i) == Some(&false) {
        if s.get(i) == Some(&b']') {
            let digits = s.get(start + 2..i).unwrap_or_default();
            if digits.is_empty() {
                return Ok(Some((Elem::Repeat(c, 0), i)));
            }
            let radix = if digits.first() == Some(&b'0') { 8 } else { 10 };
            let n = std::str::from_utf8(digits)
                .ok()
                .filter(|d| d.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|d| u64::from_str_radix(d, radix).ok())
                .filter(|&n| i64::try_from(n).is_ok());
            return match n {
                Some(n) => Ok(Some((Elem::Repeat(c, n), i))),
                None => Err(format!(
                    "invalid repeat count {} in [c*n] construct",
                    quote_locale(printable(digits))
                )),
            };
        }
        i += 1;
    }
    Ok(None)
}

/// A position in a string's expansion, as GNU's `get_next` walks it.
pub(super) struct Cursor<'a> {
    pub(super) elems: &'a [Elem],
    pub(super) idx: usize,
    pub(super) pos: u64,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(elems: &'a [Elem]) -> Self {
        Cursor {
            elems,
            idx: 0,
            pos: 0,
        }
    }
    pub(super) fn at_new_element(&self) -> bool {
        self.pos == 0
    }
    /// The next character and, for `[:upper:]`/`[:lower:]`, which case it came from.
    pub(super) fn next(&mut self) -> (Option<u8>, Case) {
        while let Some(&e) = self.elems.get(self.idx) {
            let case = match e {
                Elem::Class(k) => k.case(),
                _ => Case::None,
            };
            if let Some(c) = e.nth(self.pos) {
                self.pos += 1;
                if self.pos >= e.len() {
                    self.idx += 1;
                    self.pos = 0;
                }
                return (Some(c), case);
            }
            self.idx += 1;
            self.pos = 0;
        }
        (None, Case::None)
    }
    /// Skips the rest of the construct the last character came from.
    /// As GNU, when the last character ended its construct this skips the next one.
    pub(super) fn skip_construct(&mut self) {
        self.idx += 1;
        self.pos = 0;
    }
}
