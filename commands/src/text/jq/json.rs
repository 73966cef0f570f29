//! JSON as jq 1.6 reads and prints it: its character-level parser (the same error texts,
//! line and column counting and `Expected separator` / `Unfinished JSON term` rules), and
//! its printer (2-space or tab indentation, `--indent N`, `-S`, `-a`, `-C` colours, numbers
//! as `jvp_dtoa_fmt` writes them: 17 significant digits at most, `1e+20`, `1e-05`).

use std::fmt::Write as _;

use jaq_json::{Map, Num, Val};

/// How deep jq 1.6 lets a text nest (`MAX_PARSING_DEPTH`).
const MAX_DEPTH: usize = 256;

enum Frame {
    Arr(Vec<Val>),
    Obj(Map),
    Key(Val),
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum State {
    Normal,
    Str,
    Esc,
}

/// jq 1.6's JSON text parser, fed bytes in chunks; complete values and the first error
/// (jq's message with its `at line N, column M`) come out in order.
pub struct Parser {
    stack: Vec<Frame>,
    next: Option<Val>,
    token: Vec<u8>,
    state: State,
    line: u64,
    column: u64,
    failed: bool,
}

impl Default for Parser {
    fn default() -> Self {
        Parser {
            stack: Vec::new(),
            next: None,
            token: Vec::new(),
            state: State::Normal,
            line: 1,
            column: 0,
            failed: false,
        }
    }
}

impl Parser {
    /// Whether an error ended the parse.
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// Feeds bytes; finished values and at most one error are pushed on `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Result<Val, String>>) {
        if self.failed {
            return;
        }
        for &ch in bytes {
            if let Err(msg) = self.scan(ch, out) {
                self.failed = true;
                out.push(Err(format!(
                    "{msg} at line {}, column {}",
                    self.line, self.column
                )));
                return;
            }
        }
    }

    /// The end of all input: the last value, or jq's `... at EOF` error.
    pub fn finish(&mut self, out: &mut Vec<Result<Val, String>>) {
        if self.failed {
            return;
        }
        let at =
            |msg: &str, p: &Parser| format!("{msg} at EOF at line {}, column {}", p.line, p.column);
        if self.state != State::Normal {
            self.failed = true;
            out.push(Err(at("Unfinished string", self)));
            return;
        }
        if let Err(msg) = self.literal() {
            self.failed = true;
            out.push(Err(at(msg, self)));
            return;
        }
        if !self.stack.is_empty() {
            self.failed = true;
            out.push(Err(at("Unfinished JSON term", self)));
            return;
        }
        if let Some(v) = self.next.take() {
            out.push(Ok(v));
        }
    }

    fn scan(&mut self, ch: u8, out: &mut Vec<Result<Val, String>>) -> Result<(), &'static str> {
        self.column += 1;
        if ch == b'\n' {
            self.line += 1;
            self.column = 0;
        }
        if self.state == State::Normal {
            match ch {
                b' ' | b'\t' | b'\r' | b'\n' => {
                    self.literal()?;
                    self.done(out);
                }
                b'"' => {
                    self.literal()?;
                    self.state = State::Str;
                }
                b'[' | b',' | b']' | b'{' | b':' | b'}' => {
                    self.literal()?;
                    self.structure(ch)?;
                }
                _ => self.token.push(ch),
            }
        } else if ch == b'"' && self.state == State::Str {
            self.string()?;
            self.state = State::Normal;
            self.done(out);
        } else {
            self.token.push(ch);
            self.state = if ch == b'\\' && self.state == State::Str {
                State::Esc
            } else {
                State::Str
            };
        }
        Ok(())
    }

    fn done(&mut self, out: &mut Vec<Result<Val, String>>) {
        if self.stack.is_empty()
            && let Some(v) = self.next.take()
        {
            out.push(Ok(v));
        }
    }

    fn value(&mut self, v: Val) -> Result<(), &'static str> {
        if self.next.is_some() {
            return Err("Expected separator between values");
        }
        self.next = Some(v);
        Ok(())
    }

    fn literal(&mut self) -> Result<(), &'static str> {
        if self.token.is_empty() {
            return Ok(());
        }
        let tok = std::mem::take(&mut self.token);
        let pattern: Option<(&[u8], Val)> = match tok.first() {
            Some(b't') => Some((b"true", Val::Bool(true))),
            Some(b'f') => Some((b"false", Val::Bool(false))),
            Some(b'n') => Some((b"null", Val::Null)),
            _ => None,
        };
        if let Some((pat, v)) = pattern {
            if tok != pat {
                return Err("Invalid literal");
            }
            return self.value(v);
        }
        let n = parse_number(&tok).ok_or("Invalid numeric literal")?;
        self.value(number(n))
    }

    fn string(&mut self) -> Result<(), &'static str> {
        let tok = std::mem::take(&mut self.token);
        let s = unescape(&tok)?;
        self.value(Val::utf8_str(s))
    }

    fn structure(&mut self, ch: u8) -> Result<(), &'static str> {
        match ch {
            b'[' | b'{' => {
                if self.next.is_some() {
                    return Err("Expected separator between values");
                }
                if self.stack.len() >= MAX_DEPTH {
                    return Err("Exceeds depth limit for parsing");
                }
                self.stack.push(if ch == b'[' {
                    Frame::Arr(Vec::new())
                } else {
                    Frame::Obj(Map::default())
                });
            }
            b':' => {
                if !matches!(self.stack.last(), Some(Frame::Obj(_))) {
                    return Err("':' not as part of an object");
                }
                let Some(key) = self.next.take() else {
                    return Err("Expected string key before ':'");
                };
                if !matches!(key, Val::TStr(_)) {
                    return Err("Object keys must be strings");
                }
                self.stack.push(Frame::Key(key));
            }
            b',' => {
                let Some(v) = self.next.take() else {
                    return Err("Expected value before ','");
                };
                match self.stack.last_mut() {
                    None => return Err("',' not as part of an object or array"),
                    Some(Frame::Arr(a)) => a.push(v),
                    Some(Frame::Key(_)) => self.set_field(v),
                    Some(Frame::Obj(_)) => return Err("Objects must consist of key:value pairs"),
                }
            }
            b']' => {
                let Some(Frame::Arr(a)) = self.stack.last_mut() else {
                    return Err("Unmatched ']'");
                };
                if let Some(v) = self.next.take() {
                    a.push(v);
                } else if !a.is_empty() {
                    return Err("Expected another array element");
                }
                if let Some(Frame::Arr(a)) = self.stack.pop() {
                    self.next = Some(Val::Arr(a.into()));
                }
            }
            _ => {
                // '}'
                if self.stack.is_empty() {
                    return Err("Unmatched '}'");
                }
                if let Some(v) = self.next.take() {
                    if !matches!(self.stack.last(), Some(Frame::Key(_))) {
                        return Err("Objects must consist of key:value pairs");
                    }
                    self.set_field(v);
                } else {
                    match self.stack.last() {
                        Some(Frame::Obj(m)) if !m.is_empty() => {
                            return Err("Expected another key-value pair");
                        }
                        Some(Frame::Obj(_)) => {}
                        _ => return Err("Unmatched '}'"),
                    }
                }
                if let Some(Frame::Obj(m)) = self.stack.pop() {
                    self.next = Some(Val::obj(m));
                }
            }
        }
        Ok(())
    }

    fn set_field(&mut self, v: Val) {
        if let Some(Frame::Key(k)) = self.stack.pop()
            && let Some(Frame::Obj(m)) = self.stack.last_mut()
        {
            m.insert(k, v);
        }
    }
}

fn hex4(b: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(b.get(..4)?).ok()?;
    if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(s, 16).ok()
}

/// A string token's escapes, as jq 1.6's `found_string` takes them; invalid UTF-8 becomes
/// U+FFFD as jq's decoder makes it.
fn unescape(tok: &[u8]) -> Result<String, &'static str> {
    let mut out: Vec<u8> = Vec::with_capacity(tok.len());
    let mut i = 0;
    while let Some(&c) = tok.get(i) {
        i += 1;
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = tok.get(i) else {
            return Err("Expected escape character at end of string");
        };
        i += 1;
        match e {
            b'\\' | b'"' | b'/' => out.push(e),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'u' => {
                let rest = tok.get(i..).unwrap_or_default();
                if rest.len() < 4 {
                    return Err("Invalid \\uXXXX escape");
                }
                let mut cp = hex4(rest).ok_or("Invalid characters in \\uXXXX escape")?;
                i += 4;
                if (0xD800..=0xDBFF).contains(&cp) {
                    let pair = tok.get(i..i + 6).unwrap_or_default();
                    let low = match pair {
                        [b'\\', b'u', hex @ ..] => hex4(hex),
                        _ => None,
                    };
                    let Some(low) = low.filter(|l| (0xDC00..=0xDFFF).contains(l)) else {
                        return Err("Invalid \\uXXXX\\uXXXX surrogate pair escape");
                    };
                    i += 6;
                    cp = 0x10000 + (((cp - 0xD800) << 10) | (low - 0xDC00));
                }
                let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            _ => return Err("Invalid escape"),
        }
    }
    Ok(match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// A number token as jq 1.6's `strtod` takes it: `[+-]digits[.digits][e[+-]digits]`.
pub fn parse_number(tok: &[u8]) -> Option<f64> {
    let body = tok.strip_prefix(b"+").unwrap_or(tok);
    let digits = body.strip_prefix(b"-").unwrap_or(body);
    let mut i = 0;
    let count = |i: &mut usize| {
        let start = *i;
        while digits.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let mut mantissa = count(&mut i);
    if digits.get(i) == Some(&b'.') {
        i += 1;
        mantissa += count(&mut i);
    }
    if mantissa == 0 {
        return None;
    }
    if matches!(digits.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(digits.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if count(&mut i) == 0 {
            return None;
        }
    }
    if i != digits.len() {
        return None;
    }
    std::str::from_utf8(body).ok()?.parse().ok()
}

/// A double as a jaq value: exact integers as integers (so that indexing and `range` take
/// them), everything else as a float; jq 1.6 has only doubles.
#[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
pub fn number(d: f64) -> Val {
    if d.fract() == 0.0 && d.abs() < 9.007_199_254_740_992e15 && !(d == 0.0 && d.is_sign_negative())
    {
        Val::Num(Num::Int(d as isize))
    } else {
        Val::Num(Num::Float(d))
    }
}

/// A jaq number as the double jq 1.6 would hold.
#[allow(clippy::cast_precision_loss)]
pub fn to_f64(n: &Num) -> f64 {
    match n {
        Num::Int(i) => *i as f64,
        Num::Float(f) => *f,
        Num::BigInt(b) => b.to_string().parse().unwrap_or(f64::NAN),
        Num::Dec(s) => s.parse().unwrap_or(f64::NAN),
    }
}

/// A double as jq 1.6 prints it (`jvp_dtoa_fmt`): shortest round-trip digits, exponent form
/// when the decimal point is 4 or more places left of the digits or past 15 + the number of
/// digits, `e+NN`/`e-NN` with two digits at least; NaN prints `null`, infinities the largest
/// double.
pub fn fmt_number(out: &mut String, d: f64) {
    if d.is_nan() {
        out.push_str("null");
        return;
    }
    let d = if d.is_infinite() {
        f64::MAX.copysign(d)
    } else {
        d
    };
    if d == 0.0 {
        out.push_str(if d.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    let e = format!("{:e}", d.abs());
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    let exp: i64 = exp.parse().unwrap_or(0);
    let decpt = exp + 1;
    let nd = i64::try_from(digits.len()).unwrap_or(0);
    if d < 0.0 {
        out.push('-');
    }
    if decpt <= -4 || decpt > nd + 15 {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let x = decpt - 1;
        let _ = write!(out, "e{}{:02}", if x < 0 { '-' } else { '+' }, x.abs());
    } else if decpt <= 0 {
        out.push_str("0.");
        for _ in 0..-decpt {
            out.push('0');
        }
        out.push_str(&digits);
    } else if decpt >= nd {
        out.push_str(&digits);
        for _ in 0..decpt - nd {
            out.push('0');
        }
    } else {
        let (a, b) = digits.split_at(usize::try_from(decpt).unwrap_or(0));
        out.push_str(a);
        out.push('.');
        out.push_str(b);
    }
}

/// Printing options, as jq 1.6's dump flags.
#[derive(Clone, Copy, Default)]
pub struct Dump {
    /// Spaces per level (0: compact), or a tab when `tab`.
    pub indent: usize,
    pub tab: bool,
    pub sort: bool,
    pub ascii: bool,
    pub color: bool,
}

const RESET: &str = "\x1b[0m";
const FIELD: &str = "\x1b[34;1m";

fn color_of(v: &Val) -> &'static str {
    match v {
        Val::Null => "\x1b[1;30m",
        Val::Bool(_) | Val::Num(_) => "\x1b[0;39m",
        Val::TStr(_) | Val::BStr(_) => "\x1b[0;32m",
        Val::Arr(_) | Val::Obj(_) => "\x1b[1;39m",
    }
}

impl Dump {
    fn pretty(&self) -> bool {
        self.tab || self.indent > 0
    }

    fn newline(&self, out: &mut String, level: usize) {
        if self.pretty() {
            out.push('\n');
            for _ in 0..level {
                if self.tab {
                    out.push('\t');
                } else {
                    for _ in 0..self.indent {
                        out.push(' ');
                    }
                }
            }
        }
    }

    /// Appends one value.
    pub fn write(&self, out: &mut String, v: &Val, level: usize) {
        self.write_with(out, v, level, &mut |_| {});
    }

    /// Appends one value, handing `out` to `flush` whenever it passes 64 KiB between two
    /// elements, so that a large value prints in bounded memory.
    pub fn write_with(
        &self,
        out: &mut String,
        v: &Val,
        level: usize,
        flush: &mut dyn FnMut(&mut String),
    ) {
        if level > MAX_DEPTH {
            out.push_str("<skipped: too deep>");
            return;
        }
        let color = self.color.then(|| color_of(v));
        if let Some(c) = color {
            out.push_str(c);
        }
        match v {
            Val::Null => out.push_str("null"),
            Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Val::Num(n) => fmt_number(out, to_f64(n)),
            Val::TStr(s) | Val::BStr(s) => write_string(out, s, self.ascii),
            Val::Arr(a) if a.is_empty() => out.push_str("[]"),
            Val::Arr(a) => {
                out.push('[');
                self.newline(out, level + 1);
                for (i, x) in a.iter().enumerate() {
                    if i != 0 {
                        out.push(',');
                        self.newline(out, level + 1);
                    }
                    self.write_with(out, x, level + 1, flush);
                    if let Some(c) = color {
                        out.push_str(c);
                    }
                    if out.len() >= 1 << 16 {
                        flush(out);
                    }
                }
                self.newline(out, level);
                if let Some(c) = color {
                    out.push_str(c);
                }
                out.push(']');
            }
            Val::Obj(m) if m.is_empty() => out.push_str("{}"),
            Val::Obj(m) => {
                out.push('{');
                self.newline(out, level + 1);
                let mut fields: Vec<(&Val, &Val)> = m.iter().collect();
                if self.sort {
                    fields.sort_by(|a, b| key_bytes(a.0).cmp(key_bytes(b.0)));
                }
                for (i, (k, x)) in fields.into_iter().enumerate() {
                    if i != 0 {
                        out.push(',');
                        self.newline(out, level + 1);
                    }
                    if let Some(c) = color {
                        out.push_str(RESET);
                        out.push_str(FIELD);
                        self.key(out, k);
                        out.push_str(RESET);
                        out.push_str(c);
                    } else {
                        self.key(out, k);
                    }
                    out.push(':');
                    if self.pretty() {
                        out.push(' ');
                    }
                    if color.is_some() {
                        out.push_str(RESET);
                    }
                    self.write_with(out, x, level + 1, flush);
                    if let Some(c) = color {
                        out.push_str(c);
                    }
                    if out.len() >= 1 << 16 {
                        flush(out);
                    }
                }
                self.newline(out, level);
                if let Some(c) = color {
                    out.push_str(c);
                }
                out.push('}');
            }
        }
        if color.is_some() {
            out.push_str(RESET);
        }
    }

    fn key(&self, out: &mut String, k: &Val) {
        match k {
            Val::TStr(s) | Val::BStr(s) => write_string(out, s, self.ascii),
            other => {
                let mut s = String::new();
                Dump::default().write(&mut s, other, 0);
                write_string(out, s.as_bytes(), self.ascii);
            }
        }
    }
}

fn key_bytes(k: &Val) -> &[u8] {
    match k {
        Val::TStr(s) | Val::BStr(s) => s,
        _ => b"",
    }
}

/// A string in JSON quotes as jq 1.6 escapes it: `\"` `\\` `\b\f\n\r\t`, other controls
/// and DEL as `\u00XX`, and with `-a` everything past ASCII as `\uXXXX` (pairs past the BMP).
pub fn write_string(out: &mut String, s: &[u8], ascii: bool) {
    out.push('"');
    for ch in String::from_utf8_lossy(s).chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if ascii && !c.is_ascii() => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A value in compact form, as jq's `tojson` and its error messages print it.
pub fn compact(v: &Val) -> String {
    let mut s = String::new();
    Dump::default().write(&mut s, v, 0);
    s
}

/// Parses exactly one JSON text (`--argjson`, `fromjson`-like uses); `None` when it is not
/// one valid text.
pub fn parse_one(text: &[u8]) -> Option<Val> {
    let mut p = Parser::default();
    let mut out = Vec::new();
    p.feed(text, &mut out);
    p.finish(&mut out);
    let mut it = out.into_iter();
    match (it.next(), it.next()) {
        (Some(Ok(v)), None) => Some(v),
        _ => None,
    }
}

/// Parses exactly one JSON text as `fromjson` does; `Err` holds jq's parse message.
pub fn parse_one_msg(text: &[u8]) -> Result<Val, String> {
    let mut p = Parser::default();
    let mut out = Vec::new();
    p.feed(text, &mut out);
    p.finish(&mut out);
    let mut it = out.into_iter();
    match (it.next(), it.next()) {
        (Some(Ok(v)), None) => Ok(v),
        (Some(Err(e)), _) | (Some(Ok(_)), Some(Err(e))) => Err(e),
        (Some(Ok(_)), Some(Ok(_))) => Err("Unexpected extra JSON values".to_owned()),
        (None, _) => Err("Expected JSON value".to_owned()),
    }
}

/// Parses every JSON text of `text`; `Err` holds jq's message for the first bad one.
pub fn parse_all(text: &[u8]) -> Result<Vec<Val>, String> {
    let mut p = Parser::default();
    let mut out = Vec::new();
    p.feed(text, &mut out);
    p.finish(&mut out);
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(d: f64) -> String {
        let mut s = String::new();
        fmt_number(&mut s, d);
        s
    }

    #[test]
    fn numbers_print_as_jq_1_6() {
        // Expected texts from jq 1.6 (`echo N | jq .`).
        assert_eq!(num(1.0), "1");
        assert_eq!(num(f64::INFINITY), "1.7976931348623157e+308");
        assert_eq!(num(1e20), "1e+20");
        assert_eq!(num(1e17), "1e+17");
        assert_eq!(num(1e16), "1e+16");
        assert_eq!(num(12_345_678_901_234_567_890.0), "12345678901234567000");
        assert_eq!(num(1e-5), "1e-05");
        assert_eq!(num(0.000_012_34), "1.234e-05");
        assert_eq!(num(1.25), "1.25");
        assert_eq!(num(-0.0), "-0");
        assert_eq!(num(123_456_789_012.0), "123456789012");
        assert_eq!(num(5e-324), "5e-324");
        assert_eq!(num(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(num(0.001), "0.001");
        assert_eq!(num(f64::NAN), "null");
    }

    fn errs(text: &str) -> String {
        parse_all(text.as_bytes()).err().unwrap_or_default()
    }

    #[test]
    fn parse_errors_as_jq_1_6() {
        assert_eq!(
            errs("{\"a\":1\n"),
            "Unfinished JSON term at EOF at line 2, column 0"
        );
        assert_eq!(errs("foo\n"), "Invalid literal at line 2, column 0");
        assert_eq!(
            errs("[1 2]"),
            "Expected separator between values at line 1, column 5"
        );
        assert_eq!(
            errs("{1:2}"),
            "Object keys must be strings at line 1, column 3"
        );
        assert_eq!(
            errs("[1,]"),
            "Expected another array element at line 1, column 4"
        );
        assert_eq!(errs("]"), "Unmatched ']' at line 1, column 1");
        assert_eq!(errs("\"\\x\""), "Invalid escape at line 1, column 4");
        assert_eq!(
            errs("1 2 \"a\n"),
            "Unfinished string at EOF at line 2, column 0"
        );
    }

    #[test]
    fn prints_pretty_and_compact() {
        let v =
            parse_one(br#"{"a":[1,{"b":null}],"c":"x\u007f","d":{},"e":[]}"#).unwrap_or_default();
        let mut s = String::new();
        Dump {
            indent: 2,
            ..Dump::default()
        }
        .write(&mut s, &v, 0);
        assert_eq!(
            s,
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": \"x\\u007f\",\n  \"d\": {},\n  \"e\": []\n}"
        );
        assert_eq!(
            compact(&v),
            r#"{"a":[1,{"b":null}],"c":"x\u007f","d":{},"e":[]}"#
        );
    }
}
