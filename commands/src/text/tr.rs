//! `tr [OPTION]... STRING1 [STRING2]`, GNU coreutils in the C locale: translates, deletes
//! (`-d`) or squeezes (`-s`) bytes of the command's stdin. The strings are parsed as GNU does
//! (escapes first, then `[:class:]`, `[=c=]`, `[c*n]`, ranges), validated with GNU's rules
//! and messages (string2 padded with its last character, `[c*]` filled, case classes aligned),
//! and turned into byte tables. Options are only read before the first operand (`+` getopt).

use std::ffi::OsString;
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::{options_first, parse_args};
use crate::{Ctx, Outcome, quote, quote_locale};

/// Translate, squeeze, and/or delete characters from standard input, writing to standard
/// output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "tr [OPTION]... STRING1 [STRING2]")]
pub struct TrArgs {
    /// use the complement of STRING1
    #[arg(short = 'c', short_alias = 'C', long = "complement")]
    complement: bool,
    /// delete characters in STRING1, do not translate
    #[arg(short = 'd', long = "delete")]
    delete: bool,
    /// replace each sequence of a repeated character that is listed in the last specified SET, with a single occurrence of that character
    #[arg(short = 's', long = "squeeze-repeats")]
    squeeze: bool,
    /// first truncate STRING1 to length of STRING2
    #[arg(short = 't', long = "truncate-set1")]
    truncate: bool,
    /// (ignored: the locale is always C)
    #[arg(short = 'A', hide = true)]
    aix: bool,
    strings: Vec<OsString>,
}

/// The character classes, in the C locale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
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
    fn named(name: &[u8]) -> Option<Class> {
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
    fn has(self, c: u8) -> bool {
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
    fn members(self) -> impl Iterator<Item = u8> {
        (0..=255u8).filter(move |&c| self.has(c))
    }
    /// Upper or lower: the only classes string2 may hold when translating.
    fn case(self) -> Case {
        match self {
            Class::Upper => Case::Upper,
            Class::Lower => Case::Lower,
            _ => Case::None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    None,
    Upper,
    Lower,
}

/// One construct of a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Elem {
    Char(u8),
    Range(u8, u8),
    Class(Class),
    Equiv(u8),
    /// `[c*n]`; a count of 0 is `[c*]` until validation fills it.
    Repeat(u8, u64),
}

impl Elem {
    fn len(self) -> u64 {
        match self {
            Elem::Char(_) | Elem::Equiv(_) => 1,
            Elem::Range(a, b) => u64::from(b - a) + 1,
            Elem::Class(c) => c.members().count() as u64,
            Elem::Repeat(_, n) => n,
        }
    }
    /// The `i`th character of the expansion.
    fn nth(self, i: u64) -> Option<u8> {
        match self {
            Elem::Char(c) | Elem::Equiv(c) => (i == 0).then_some(c),
            Elem::Range(a, b) => u8::try_from(u64::from(a) + i).ok().filter(|&c| c <= b),
            Elem::Class(k) => k.members().nth(usize::try_from(i).ok()?),
            Elem::Repeat(c, n) => (i < n).then_some(c),
        }
    }
    /// The distinct characters of the expansion (a repeat once, however long).
    fn chars(self) -> Vec<u8> {
        match self {
            Elem::Repeat(_, 0) => Vec::new(),
            Elem::Char(c) | Elem::Equiv(c) | Elem::Repeat(c, _) => vec![c],
            Elem::Range(a, b) => (a..=b).collect(),
            Elem::Class(k) => k.members().collect(),
        }
    }
}

/// GNU's `make_printable_str`, for messages.
fn printable(s: &[u8]) -> String {
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

fn printable_char(c: u8) -> String {
    if c.is_ascii_graphic() || c == b' ' {
        char::from(c).to_string()
    } else {
        format!("\\{c:03o}")
    }
}

/// The first pass: backslash escapes to bytes, remembering which bytes were escaped.
fn unquote(s: &[u8], warnings: &mut String) -> (Vec<u8>, Vec<bool>) {
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
fn build(s: &[u8], esc: &[bool]) -> Result<Vec<Elem>, String> {
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
fn star_digits_bracket(s: &[u8], esc: &[bool], idx: usize) -> bool {
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
fn bracketed_repeat(s: &[u8], esc: &[bool], start: usize) -> Result<Option<(Elem, usize)>, String> {
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
struct Cursor<'a> {
    elems: &'a [Elem],
    idx: usize,
    pos: u64,
}

impl<'a> Cursor<'a> {
    fn new(elems: &'a [Elem]) -> Self {
        Cursor {
            elems,
            idx: 0,
            pos: 0,
        }
    }
    fn at_new_element(&self) -> bool {
        self.pos == 0
    }
    /// The next character and, for `[:upper:]`/`[:lower:]`, which case it came from.
    fn next(&mut self) -> (Option<u8>, Case) {
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
    fn skip_construct(&mut self) {
        self.idx += 1;
        self.pos = 0;
    }
}

fn length(elems: &[Elem]) -> u64 {
    elems.iter().map(|e| e.len()).fold(0, u64::saturating_add)
}

fn set_of(elems: &[Elem], complement: bool) -> [bool; 256] {
    let mut set = [false; 256];
    for e in elems {
        for c in e.chars() {
            if let Some(slot) = set.get_mut(usize::from(c)) {
                *slot = true;
            }
        }
    }
    if complement {
        for s in &mut set {
            *s = !*s;
        }
    }
    set
}

/// GNU's `validate` for translation: fills `[c*]`, checks case classes, pads string2.
fn validate_translate(
    s1: &[Elem],
    s2: &mut Vec<Elem>,
    complement: bool,
    truncate: bool,
) -> Result<(), String> {
    let mut len1 = if complement {
        256 - set_of(s1, false).iter().filter(|b| **b).count() as u64
    } else {
        length(s1)
    };
    if s2.iter().any(|e| matches!(e, Elem::Equiv(_))) {
        return Err("[=c=] expressions may not appear in string2 when translating".into());
    }
    if s2
        .iter()
        .any(|e| matches!(e, Elem::Class(k) if k.case() == Case::None))
    {
        return Err("when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'".into());
    }
    let mut len2 = length(s2);
    if !complement && s2.iter().any(|e| matches!(e, Elem::Class(_))) {
        let (mut c1, mut c2) = (Cursor::new(s1), Cursor::new(s2));
        let (mut new1, mut new2) = (true, true);
        loop {
            let (a, k1) = c1.next();
            let (b, k2) = c2.next();
            if new2 && k2 != Case::None && !(new1 && k1 != Case::None) {
                return Err("misaligned [:upper:] and/or [:lower:] construct".into());
            }
            if k2 != Case::None {
                c1.skip_construct();
                c2.skip_construct();
                len1 = len1.saturating_sub(25);
                len2 = len2.saturating_sub(25);
            }
            new1 = c1.at_new_element();
            new2 = c2.at_new_element();
            if a.is_none() || b.is_none() {
                break;
            }
        }
    }
    if len1 > len2 && !truncate {
        let pad = match s2.last() {
            None => return Err("when not truncating set1, string2 must be non-empty".into()),
            Some(Elem::Char(c) | Elem::Range(_, c) | Elem::Repeat(c, _) | Elem::Equiv(c)) => *c,
            Some(Elem::Class(_)) => {
                return Err("when translating with string1 longer than string2,\nthe latter string must not end with a character class".into());
            }
        };
        s2.push(Elem::Repeat(pad, len1 - len2));
        len2 = len1;
    }
    if complement && s1.iter().any(|e| matches!(e, Elem::Class(_))) {
        let distinct = set_of(s2, false).iter().filter(|b| **b).count();
        if !(len2 == len1 && distinct == 1) {
            return Err("when translating with complemented character classes,\nstring2 must map all characters in the domain to one".into());
        }
    }
    Ok(())
}

/// The translation table.
fn table(s1: &[Elem], s2: &[Elem], complement: bool) -> [u8; 256] {
    let mut xlate = [0u8; 256];
    for (i, x) in xlate.iter_mut().enumerate() {
        *x = u8::try_from(i).unwrap_or(0);
    }
    if complement {
        let in1 = set_of(s1, false);
        let mut c2 = Cursor::new(s2);
        for (i, x) in xlate.iter_mut().enumerate() {
            if !in1.get(i).copied().unwrap_or(true) {
                match c2.next().0 {
                    Some(c) => *x = c,
                    None => break,
                }
            }
        }
        return xlate;
    }
    let (mut c1, mut c2) = (Cursor::new(s1), Cursor::new(s2));
    loop {
        let (a, k1) = c1.next();
        let (b, k2) = c2.next();
        match (k1, k2) {
            (Case::Lower, Case::Upper) => {
                for c in b'a'..=b'z' {
                    if let Some(x) = xlate.get_mut(usize::from(c)) {
                        *x = c.to_ascii_uppercase();
                    }
                }
            }
            (Case::Upper, Case::Lower) => {
                for c in b'A'..=b'Z' {
                    if let Some(x) = xlate.get_mut(usize::from(c)) {
                        *x = c.to_ascii_lowercase();
                    }
                }
            }
            _ => {
                let (Some(a), Some(b)) = (a, b) else { break };
                if let Some(x) = xlate.get_mut(usize::from(a)) {
                    *x = b;
                }
            }
        }
        if k2 != Case::None {
            c1.skip_construct();
            c2.skip_construct();
        }
    }
    xlate
}

/// Where `+` getopt stops: the first argument that is not an option (or after `--`).
fn options_end(args: &[OsString]) -> usize {
    args.iter()
        .position(|a| {
            let b = a.as_bytes();
            b == b"--" || b.len() < 2 || b.first() != Some(&b'-')
        })
        .unwrap_or(args.len())
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let normalised = options_first(args, options_end(args));
    let a = parse_args::<TrArgs>(&normalised)?;
    let n = a.strings.len();
    let translating = n == 2 && !a.delete;
    let min = 1 + usize::from(a.delete == a.squeeze);
    let max = 1 + usize::from(!a.delete || a.squeeze);
    if n < min {
        if n == 0 {
            return Err(Stop::Usage("missing operand".into()));
        }
        let why = if a.squeeze {
            "Two strings must be given when both deleting and squeezing repeats."
        } else {
            "Two strings must be given when translating."
        };
        let last = a.strings.last().map(quote).unwrap_or_default();
        return Err(Stop::Usage(format!("missing operand after {last}\n{why}")));
    }
    if n > max {
        let extra = a.strings.get(max).map(quote).unwrap_or_default();
        let mut msg = format!("extra operand {extra}");
        if n == 2 {
            msg.push_str("\nOnly one string may be given when deleting without squeezing repeats.");
        }
        return Err(Stop::Usage(msg.to_string()));
    }
    let mut warnings = String::new();
    let mut specs = Vec::new();
    for s in &a.strings {
        let (bytes, esc) = unquote(s.as_bytes(), &mut warnings);
        match build(&bytes, &esc) {
            Ok(e) => specs.push(e),
            Err(msg) => {
                let mut o = Outcome::status(1);
                o.err(warnings);
                o.err(format!("tr: {msg}\n"));
                return Ok(o);
            }
        }
    }
    let mut o = Outcome::ok();
    o.err(&warnings);
    let mut specs = specs.into_iter();
    let s1 = specs.next().unwrap_or_default();
    let mut s2 = specs.next();
    if s1.iter().any(|e| matches!(e, Elem::Repeat(_, 0))) {
        return Err(
            Stop::Fail("the [c*] repeat construct may not appear in string1".into()).after(o),
        );
    }
    if let Some(s2) = &mut s2 {
        let len1 = if a.complement {
            256 - set_of(&s1, false).iter().filter(|b| **b).count() as u64
        } else {
            length(&s1)
        };
        let fills: Vec<usize> = s2
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e, Elem::Repeat(_, 0)))
            .map(|(i, _)| i)
            .collect();
        let len2 = length(s2);
        if let [only] = fills.as_slice()
            && len1 >= len2
            && let Some(Elem::Repeat(_, n)) = s2.get_mut(*only)
        {
            *n = len1 - len2;
        }
        if fills.len() > 1 {
            return Err(
                Stop::Fail("only one [c*] repeat construct may appear in string2".into()).after(o),
            );
        }
        if translating {
            if let Err(msg) = validate_translate(&s1, s2, a.complement, a.truncate) {
                return Err(Stop::Fail(msg).after(o));
            }
        } else if !fills.is_empty() {
            return Err(Stop::Fail(
                "the [c*] construct may appear in string2 only when translating".into(),
            )
            .after(o));
        }
    }
    let input_bytes = ctx.stdin.read_all().unwrap_or_default();
    let input = input_bytes.as_slice();
    let mut out = Vec::with_capacity(input.len());
    if translating {
        let s2 = s2.unwrap_or_default();
        let xlate = table(&s1, &s2, a.complement);
        let squeeze = a.squeeze.then(|| set_of(&s2, false));
        emit(
            input
                .iter()
                .map(|&b| xlate.get(usize::from(b)).copied().unwrap_or(b)),
            squeeze.as_ref(),
            &mut out,
        );
    } else if a.delete {
        let del = set_of(&s1, a.complement);
        let squeeze = s2.map(|s| set_of(&s, false));
        let kept = input
            .iter()
            .copied()
            .filter(|&b| !del.get(usize::from(b)).copied().unwrap_or(false));
        emit(kept, squeeze.as_ref(), &mut out);
    } else {
        let squeeze = set_of(&s1, a.complement);
        emit(input.iter().copied(), Some(&squeeze), &mut out);
    }
    o.out(out);
    Ok(o)
}

/// Writes bytes, dropping a byte of the squeeze set that repeats the one just written.
fn emit(bytes: impl Iterator<Item = u8>, squeeze: Option<&[bool; 256]>, out: &mut Vec<u8>) {
    let mut last: Option<u8> = None;
    for b in bytes {
        if let Some(set) = squeeze
            && last == Some(b)
            && set.get(usize::from(b)).copied().unwrap_or(false)
        {
            continue;
        }
        out.push(b);
        last = Some(b);
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn tr(input: &str, args: &[&str]) -> (String, String, i32) {
        text(
            &World::new(MemFs::rooted("/s"))
                .stdin(input.as_bytes())
                .run(crate::CommandName::Tr, args),
        )
    }

    #[test]
    fn translations_as_gnu() {
        // Each expected output from GNU coreutils 9.1 `echo ... | LC_ALL=C tr ...`.
        for (input, args, want) in [
            ("hello abc\n", &["a-z", "A-Z"][..], "HELLO ABC\n"),
            ("hello abc\n", &["[:lower:]", "[:upper:]"], "HELLO ABC\n"),
            ("HELLO abc\n", &["[:upper:]", "[:lower:]"], "hello abc\n"),
            ("hello abc\n", &["[:lower:]", "[:upper:]x"], "HELLO ABC\n"),
            ("hello abc\n", &["a", "[b*2][c*]d"], "hello bbc\n"),
            ("hello abc\n", &["abc", "x"], "hello xxx\n"),
            ("hello abc\n", &["-t", "abc", "x"], "hello xbc\n"),
            ("hello abc\n", &["[=a=]", "x"], "hello xbc\n"),
            ("hello abc\n", &["-d", "l"], "heo abc\n"),
            ("hello abc\n", &["-s", "l"], "helo abc\n"),
            ("aabbcc  dd\n", &["-ds", "a", "[:space:]b"], "bcc dd\n"),
            ("hello 123\n", &["-cd", "[:digit:]\n"], "123\n"),
            ("hello 123\n", &["-c", "[:alpha:]", "_"], "hello_____"),
            ("a\tb\\c\n", &["\\t\\\\", "TB"], "aTbBc\n"),
            ("abc\n", &["\\141-c", "\\101-C"], "ABC\n"),
            ("hello world\n", &["-s", "a-z", "A-Z"], "HELO WORLD\n"),
            ("a--b\n", &["-s", "-", "x"], "axb\n"),
        ] {
            assert_eq!(tr(input, args).0, want, "{args:?}");
        }
    }

    #[test]
    fn ambiguous_octal_warns() {
        // `printf x | LC_ALL=C tr a '\400'`, GNU coreutils 9.1.
        assert_eq!(
            tr("x", &["a", "\\400"]),
            (
                "x".into(),
                "tr: warning: the ambiguous octal escape \\400 is being\n\tinterpreted as the 2-byte sequence \\040, 0\n".into(),
                0
            )
        );
    }

    #[test]
    fn errors_as_gnu() {
        // GNU coreutils 9.1, LC_ALL=C.
        let e = |args: &[&str]| tr("x", args).1;
        assert_eq!(
            e(&[]),
            "tr: missing operand\nTry 'tr --help' for more information.\n"
        );
        assert_eq!(
            e(&["a"]),
            "tr: missing operand after 'a'\nTwo strings must be given when translating.\nTry 'tr --help' for more information.\n"
        );
        assert_eq!(
            e(&["-d", "a", "b"]),
            "tr: extra operand 'b'\nOnly one string may be given when deleting without squeezing repeats.\nTry 'tr --help' for more information.\n"
        );
        assert_eq!(
            e(&["-c", "[:alpha:]", "xy"]),
            "tr: when translating with complemented character classes,\nstring2 must map all characters in the domain to one\n"
        );
        assert_eq!(
            e(&["z-a", "x"]),
            "tr: range-endpoints of 'z-a' are in reverse collating sequence order\n"
        );
        assert_eq!(e(&["[:foo:]", "x"]), "tr: invalid character class 'foo'\n");
        assert_eq!(
            e(&["a", "[:upper:]"]),
            "tr: misaligned [:upper:] and/or [:lower:] construct\n"
        );
        assert_eq!(
            e(&["[a*]", "x"]),
            "tr: the [c*] repeat construct may not appear in string1\n"
        );
        assert_eq!(
            e(&["a", "[b*x]"]),
            "tr: invalid repeat count 'x' in [c*n] construct\n"
        );
        assert_eq!(
            e(&["a", "[b*][c*]"]),
            "tr: only one [c*] repeat construct may appear in string2\n"
        );
        assert_eq!(
            e(&["[=ab=]", "x"]),
            "tr: ab: equivalence class operand must be a single character\n"
        );
        assert_eq!(
            e(&["a", ""]),
            "tr: when not truncating set1, string2 must be non-empty\n"
        );
        assert_eq!(
            e(&["-c", "a", "[:upper:]"]),
            "tr: when translating with string1 longer than string2,\nthe latter string must not end with a character class\n"
        );
        assert_eq!(
            tr("a\\b", &["\\", "x"]),
            (
                "axb".into(),
                "tr: warning: an unescaped backslash at end of string is not portable\n".into(),
                0
            )
        );
    }
}
