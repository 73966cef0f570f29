//! GNU regular expressions (BRE, ERE; grep 3.8's dialect in the C locale) translated to the
//! `regex` crate's syntax, with GNU's diagnostics.
//!
//! The translation is byte-exact: every literal that is not plain ASCII is written as
//! `\x{NN}`, and the caller compiles with Unicode off, so a pattern byte matches that byte and
//! `.` matches any byte but the newline, as in the C locale. Constructs that can consume a
//! newline (`[^a]`, `\s`, `\W`) are made not to, because the caller searches a buffer of many
//! lines at once and a GNU match never spans two lines. Back-references have no equivalent in
//! a finite automaton, so they are refused plainly instead of being silently mistranslated.

use std::fmt::Write as _;

/// Which dialect a pattern is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    Basic,
    Extended,
}

/// A translated pattern, with the warnings GNU prints for it (without the `grep: ` prefix).
#[derive(Debug, Default)]
pub struct Translated {
    pub pattern: String,
    pub warnings: Vec<String>,
}

/// The message for a back-reference, which the `regex` crate cannot express.
pub const BACKREF: &str = "back-references (\\1 ... \\9) are not supported";

const UNMATCHED_BRACKET: &str = "Unmatched [, [^, [:, [., or [=";
const BAD_INTERVAL: &str = "Invalid content of \\{\\}";
/// GNU's `RE_DUP_MAX`.
const DUP_MAX: u32 = 32767;

/// Appends byte `c` as a literal of the `regex` crate's syntax.
pub fn push_literal(out: &mut String, c: u8) {
    if c.is_ascii_alphanumeric() || c == b' ' || c == b'_' {
        out.push(char::from(c));
    } else {
        let _ = write!(out, "\\x{{{c:02X}}}");
    }
}

/// A fixed string (`grep -F`) as a pattern.
pub fn escape_literal(s: &[u8]) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for &c in s {
        push_literal(&mut out, c);
    }
    out
}

struct Translator<'a> {
    p: &'a [u8],
    i: usize,
    syn: Syntax,
    out: String,
    /// Output index where each open group starts.
    groups: Vec<usize>,
    /// Output index of the last thing a repetition applies to, if any.
    atom: Option<usize>,
    /// The last item emitted was a repetition (a second one must wrap the first).
    after_repeat: bool,
    warnings: Vec<String>,
    /// Whether a negated construct may match a newline ([`Options::newline`]).
    newline: bool,
}

impl Translator<'_> {
    fn peek(&self, k: usize) -> Option<u8> {
        self.p.get(self.i + k).copied()
    }

    fn begin_atom(&mut self) {
        self.atom = Some(self.out.len());
        self.after_repeat = false;
    }

    fn literal(&mut self, c: u8) {
        self.begin_atom();
        push_literal(&mut self.out, c);
    }

    /// A zero-width assertion: nothing to repeat after it.
    fn assertion(&mut self, s: &str) {
        self.out.push_str(s);
        self.atom = None;
        self.after_repeat = false;
    }

    fn repeat(&mut self, q: &str) {
        if let Some(start) = self.atom {
            if self.after_repeat {
                self.out.insert_str(start, "(?:");
                self.out.push(')');
            }
            self.out.push_str(q);
            self.after_repeat = true;
        }
    }

    /// A repetition operator with nothing before it: literal in a BRE, ignored (with GNU's
    /// warning) in an ERE.
    fn repeat_at_start(&mut self, what: &str, literal: u8) {
        match self.syn {
            Syntax::Basic => self.literal(literal),
            Syntax::Extended => self
                .warnings
                .push(format!("warning: {what} at start of expression")),
        }
    }

    /// Parses an interval body at `self.i` (just after `{` or `\{`). `Ok(None)`: not an
    /// interval (an ERE then takes `{` literally).
    fn interval(&mut self) -> Result<Option<String>, String> {
        let bre = self.syn == Syntax::Basic;
        let mut j = self.i;
        let num = |j: &mut usize, p: &[u8]| -> Option<u32> {
            let s = *j;
            while p.get(*j).is_some_and(u8::is_ascii_digit) {
                *j += 1;
            }
            let digits = p.get(s..*j)?;
            if digits.is_empty() {
                return None;
            }
            Some(
                std::str::from_utf8(digits)
                    .ok()?
                    .parse::<u32>()
                    .unwrap_or(u32::MAX),
            )
        };
        let lo = num(&mut j, self.p);
        // `None`: no comma (`{m}`); `Some(None)`: no upper bound (`{m,}`).
        let upper = if self.p.get(j) == Some(&b',') {
            j += 1;
            Some(num(&mut j, self.p))
        } else {
            None
        };
        let close_ok = if bre {
            self.p.get(j) == Some(&b'\\') && self.p.get(j + 1) == Some(&b'}')
        } else {
            self.p.get(j) == Some(&b'}')
        };
        if !close_ok {
            if bre {
                let rest = self.p.get(j..).unwrap_or_default();
                return Err(if rest.windows(2).any(|w| w == b"\\}") {
                    BAD_INTERVAL.into()
                } else {
                    "Unmatched \\{".into()
                });
            }
            return Ok(None);
        }
        let (lo, hi) = match (lo, upper) {
            (Some(l), None) => (l, Some(l)),
            (Some(l), Some(h)) => (l, h),
            (None, Some(h)) => (0, h),
            (None, None) if bre => return Err(BAD_INTERVAL.into()),
            (None, None) => return Ok(None),
        };
        if hi.is_some_and(|h| h < lo) {
            return Err(BAD_INTERVAL.into());
        }
        if lo > DUP_MAX || hi.is_some_and(|h| h > DUP_MAX) {
            return Err("Regular expression too big".into());
        }
        self.i = j + if bre { 2 } else { 1 };
        Ok(Some(match hi {
            Some(h) if h == lo => format!("{{{lo}}}"),
            Some(h) => format!("{{{lo},{h}}}"),
            None => format!("{{{lo},}}"),
        }))
    }

    fn bracket(&mut self) -> Result<(), String> {
        // self.i is just after `[`.
        let p = self.p;
        let mut j = self.i;
        let negate = p.get(j) == Some(&b'^');
        if negate {
            j += 1;
        }
        let body_start = j;
        let mut items = String::new();
        let mut first = true;
        loop {
            let Some(&c) = p.get(j) else {
                return Err(UNMATCHED_BRACKET.into());
            };
            if c == b']' && !first {
                break;
            }
            first = false;
            let (lo, next) = if c == b'[' && matches!(p.get(j + 1), Some(b':' | b'.' | b'=')) {
                let kind = p.get(j + 1).copied().unwrap_or(b':');
                let rest = p.get(j + 2..).unwrap_or_default();
                let Some(end) = rest.windows(2).position(|w| w[0] == kind && w[1] == b']') else {
                    return Err(UNMATCHED_BRACKET.into());
                };
                let name = rest.get(..end).unwrap_or_default();
                let next = j + 2 + end + 2;
                if kind == b':' {
                    const CLASSES: [&str; 12] = [
                        "alpha", "upper", "lower", "digit", "xdigit", "alnum", "punct", "space",
                        "blank", "cntrl", "graph", "print",
                    ];
                    let Some(class) = CLASSES.iter().find(|c| c.as_bytes() == name) else {
                        return Err("Invalid character class name".into());
                    };
                    let _ = write!(items, "[:{class}:]");
                    j = next;
                    continue;
                }
                match name {
                    [one] => (*one, next),
                    _ => return Err("Invalid collation character".into()),
                }
            } else {
                (c, j + 1)
            };
            j = next;
            if p.get(j) == Some(&b'-') && p.get(j + 1).is_some_and(|&e| e != b']') {
                let hi = p.get(j + 1).copied().unwrap_or(0);
                let mut after = j + 2;
                let hi = if hi == b'[' && p.get(j + 2) == Some(&b'.') {
                    let rest = p.get(j + 3..).unwrap_or_default();
                    match rest.windows(2).position(|w| w == b".]") {
                        Some(1) => {
                            after = j + 3 + 1 + 2;
                            rest.first().copied().unwrap_or(0)
                        }
                        _ => return Err("Invalid collation character".into()),
                    }
                } else {
                    hi
                };
                if hi < lo {
                    return Err("Invalid range end".into());
                }
                push_literal(&mut items, lo);
                items.push('-');
                push_literal(&mut items, hi);
                j = after;
            } else {
                push_literal(&mut items, lo);
            }
        }
        // `[:space:]` outside a bracket is a common slip; GNU refuses it.
        let body = p.get(body_start..j).unwrap_or_default();
        if !negate && body.len() >= 2 && body.first() == Some(&b':') && body.last() == Some(&b':') {
            return Err("character class syntax is [[:space:]], not [:space:]".into());
        }
        self.i = j + 1;
        self.begin_atom();
        self.out.push('[');
        if negate {
            self.out.push('^');
            if !self.newline {
                // A GNU match never contains the newline that ends its line.
                self.out.push_str("\\n");
            }
        }
        self.out.push_str(&items);
        self.out.push(']');
        Ok(())
    }

    /// A backslash escape (`self.i` after the backslash).
    fn escape(&mut self) -> Result<(), String> {
        let bre = self.syn == Syntax::Basic;
        let Some(c) = self.peek(0) else {
            return Err("Trailing backslash".into());
        };
        self.i += 1;
        match c {
            b'(' if bre => self.open(),
            b')' if bre => self.close()?,
            b'|' if bre => self.alternate(),
            b'{' if bre => {
                if self.atom.is_none() {
                    self.literal(b'{');
                } else if let Some(q) = self.interval()? {
                    self.repeat(&q);
                }
            }
            b'+' | b'?' if bre => {
                if self.atom.is_none() {
                    self.literal(c);
                } else {
                    self.repeat(if c == b'+' { "+" } else { "?" });
                }
            }
            b'1'..=b'9' => return Err(BACKREF.into()),
            b'<' => self.assertion("\\b{start}"),
            b'>' => self.assertion("\\b{end}"),
            b'b' => self.assertion("\\b"),
            b'B' => self.assertion("\\B"),
            b'`' => self.assertion("^"),
            b'\'' => self.assertion("$"),
            b'w' => {
                self.begin_atom();
                self.out.push_str("[0-9A-Za-z_]");
            }
            b'W' => {
                self.begin_atom();
                self.out.push_str(if self.newline {
                    "[^0-9A-Za-z_]"
                } else {
                    "[^0-9A-Za-z_\\n]"
                });
            }
            b's' => {
                self.begin_atom();
                self.out.push_str("[\\t\\x0B\\x0C\\r ]");
            }
            b'S' => {
                self.begin_atom();
                self.out.push_str("[^\\t\\n\\x0B\\x0C\\r ]");
            }
            _ => self.literal(c),
        }
        Ok(())
    }

    fn open(&mut self) {
        self.groups.push(self.out.len());
        self.out.push('(');
        self.atom = None;
        self.after_repeat = false;
    }

    fn close(&mut self) -> Result<(), String> {
        let Some(start) = self.groups.pop() else {
            if self.syn == Syntax::Extended {
                self.literal(b')');
                return Ok(());
            }
            return Err("Unmatched ) or \\)".into());
        };
        self.out.push(')');
        self.atom = Some(start);
        self.after_repeat = false;
        Ok(())
    }

    fn alternate(&mut self) {
        self.out.push('|');
        self.atom = None;
        self.after_repeat = false;
    }

    /// Whether a BRE `^` here is an anchor: at the start of the pattern or of a group or
    /// alternative.
    fn bre_at_start(&self) -> bool {
        let before = self.p.get(..self.i.saturating_sub(1)).unwrap_or_default();
        before.is_empty() || before.ends_with(b"\\(") || before.ends_with(b"\\|")
    }

    /// Whether a BRE `$` here is an anchor: at the end of the pattern, a group or an
    /// alternative.
    fn bre_at_end(&self) -> bool {
        let after = self.p.get(self.i..).unwrap_or_default();
        after.is_empty() || after.starts_with(b"\\)") || after.starts_with(b"\\|")
    }

    fn run(mut self) -> Result<Translated, String> {
        let bre = self.syn == Syntax::Basic;
        while let Some(c) = self.peek(0) {
            self.i += 1;
            match c {
                b'\\' => self.escape()?,
                b'[' => self.bracket()?,
                b'.' => {
                    self.begin_atom();
                    self.out.push('.');
                }
                b'*' => {
                    if self.atom.is_none() {
                        self.repeat_at_start("*", b'*');
                    } else {
                        self.repeat("*");
                    }
                }
                b'^' if !bre || self.bre_at_start() => self.assertion("^"),
                b'$' if !bre || self.bre_at_end() => self.assertion("$"),
                b'(' if !bre => self.open(),
                b')' if !bre => self.close()?,
                b'|' if !bre => self.alternate(),
                b'+' | b'?' if !bre => {
                    if self.atom.is_none() {
                        self.repeat_at_start(if c == b'+' { "+" } else { "?" }, c);
                    } else {
                        self.repeat(if c == b'+' { "+" } else { "?" });
                    }
                }
                b'{' if !bre => {
                    let save = self.i;
                    match self.interval()? {
                        Some(q) if self.atom.is_some() => self.repeat(&q),
                        Some(_) => self.repeat_at_start("{...}", b'{'),
                        None => {
                            self.i = save;
                            self.literal(b'{');
                        }
                    }
                }
                _ => self.literal(c),
            }
        }
        if !self.groups.is_empty() {
            return Err("Unmatched ( or \\(".into());
        }
        Ok(Translated {
            pattern: self.out,
            warnings: self.warnings,
        })
    }
}

/// Translates one GNU pattern (no newline in it) into the `regex` crate's syntax. The error
/// is GNU's message, without the `grep: ` prefix.
pub fn translate(pattern: &[u8], syn: Syntax) -> Result<Translated, String> {
    translate_with(pattern, syn, false)
}

/// [`translate`], where `newline` says whether a negated construct may match a newline.
fn translate_with(pattern: &[u8], syn: Syntax, newline: bool) -> Result<Translated, String> {
    Translator {
        p: pattern,
        i: 0,
        syn,
        out: String::with_capacity(pattern.len() * 2),
        groups: Vec::new(),
        atom: None,
        after_repeat: false,
        warnings: Vec::new(),
        newline,
    }
    .run()
}

/// How a pattern is compiled by [`Regex::new`]: the one regex engine grep, sed and awk share.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub syntax: Syntax,
    /// `grep -i`, sed's `I` flag, awk's `IGNORECASE`.
    pub icase: bool,
    /// `^` and `$` also match just after and before an embedded newline (sed's `M` flag;
    /// grep searches a buffer of many lines at once).
    pub multiline: bool,
    /// Whether a match may contain a newline (`.`, `[^a]`, `\W`): sed's pattern space and
    /// awk's records may hold newlines that `.` matches; grep's lines never do.
    pub newline: bool,
}

impl Options {
    pub fn new(syntax: Syntax) -> Self {
        Options {
            syntax,
            icase: false,
            multiline: false,
            newline: true,
        }
    }
}

/// A compiled GNU regular expression.
#[derive(Debug, Clone)]
pub struct Regex {
    re: regex::bytes::Regex,
}

/// The spans of a match: group 0 is the whole match, then one per `\(...\)` / `(...)`;
/// `None` for a group that did not take part.
pub type Spans = Vec<Option<(usize, usize)>>;

impl Regex {
    /// Compiles a pattern. `Ok`: the regex and GNU's warnings for it; `Err`: GNU's message
    /// (without the command's prefix).
    pub fn new(pattern: &[u8], opts: &Options) -> Result<(Regex, Vec<String>), String> {
        let t = translate_with(pattern, opts.syntax, opts.newline)?;
        let re = regex::bytes::RegexBuilder::new(&t.pattern)
            .unicode(false)
            .multi_line(opts.multiline)
            .dot_matches_new_line(opts.newline)
            .case_insensitive(opts.icase)
            .size_limit(1 << 26)
            .dfa_size_limit(1 << 26)
            .build()
            .map_err(|_| "Invalid regular expression".to_string())?;
        Ok((Regex { re }, t.warnings))
    }
    /// How many groups the pattern has (not counting the whole match).
    pub fn groups(&self) -> usize {
        self.re.captures_len().saturating_sub(1)
    }
    /// Whether the pattern matches anywhere in `hay`.
    pub fn is_match(&self, hay: &[u8]) -> bool {
        self.re.is_match(hay)
    }
    /// The first match starting at or after `start` (`^` still means the start of `hay`).
    pub fn find_at(&self, hay: &[u8], start: usize) -> Option<(usize, usize)> {
        self.re.find_at(hay, start).map(|m| (m.start(), m.end()))
    }
    /// The first match at or after `start`, with its groups.
    pub fn captures_at(&self, hay: &[u8], start: usize) -> Option<Spans> {
        let caps = self.re.captures_at(hay, start)?;
        Some(
            caps.iter()
                .map(|m| m.map(|m| (m.start(), m.end())))
                .collect(),
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn re(p: &str, syn: Syntax) -> regex::bytes::Regex {
        let t = translate(p.as_bytes(), syn).unwrap();
        regex::bytes::RegexBuilder::new(&t.pattern)
            .unicode(false)
            .multi_line(true)
            .build()
            .unwrap()
    }

    fn bre(p: &str, s: &str) -> bool {
        re(p, Syntax::Basic).is_match(s.as_bytes())
    }

    fn ere(p: &str, s: &str) -> bool {
        re(p, Syntax::Extended).is_match(s.as_bytes())
    }

    #[test]
    fn basic_syntax_as_gnu() {
        // Each case checked with `printf '%s\n' S | LC_ALL=C grep P` (GNU grep 3.8).
        assert!(bre("*b", "a*b"));
        assert!(bre("a\\(*b\\)", "a*b"));
        assert!(bre("x^y", "x^y"));
        assert!(bre("x$y", "x$y"));
        assert!(bre("a+", "a+"));
        assert!(bre("a\\+", "aa"));
        assert!(bre("[\\]", "x\\y"));
        assert!(bre("[]a]*]", "a]"));
        assert!(bre("\\t", "tab"));
        assert!(!bre("\\w\\W", "a_b"));
        assert!(bre("\\<bar\\>", "foo bar"));
        assert!(!bre("\\bbar", "foobar"));
        assert!(bre("a\\{,2\\}", "aaa"));
        assert!(bre("\\(ab\\)\\{2\\}", "xabab"));
        assert!(!bre("\\(ab\\)\\{2\\}", "xab"));
        assert!(bre("[[:digit:]][[=x=]]", "1x"));
        assert!(!bre("a[^b]c", "a\nc"));
    }

    #[test]
    fn extended_syntax_as_gnu() {
        assert!(ere("a{1", "a{1"));
        assert!(ere("a{1,x}", "a{1,x}"));
        assert!(ere("a)", "a)"));
        assert!(ere("a\\(b", "a(b"));
        assert!(ere("(a|b)+c", "xbac"));
        assert!(ere("a**", "x"));
        let t = translate(b"*foo", Syntax::Extended).unwrap();
        assert_eq!(t.warnings, ["warning: * at start of expression"]);
        assert!(ere("*foo", "foo"));
    }

    #[test]
    fn errors_as_gnu() {
        let e = |p: &str, s| translate(p.as_bytes(), s).unwrap_err();
        assert_eq!(e("a\\{1", Syntax::Basic), "Unmatched \\{");
        assert_eq!(e("a\\{x\\}", Syntax::Basic), "Invalid content of \\{\\}");
        assert_eq!(e("a{2,1}", Syntax::Extended), "Invalid content of \\{\\}");
        assert_eq!(e("(a", Syntax::Extended), "Unmatched ( or \\(");
        assert_eq!(e("a\\)", Syntax::Basic), "Unmatched ) or \\)");
        assert_eq!(e("[a", Syntax::Basic), UNMATCHED_BRACKET);
        assert_eq!(
            e("[[:foo:]]", Syntax::Basic),
            "Invalid character class name"
        );
        assert_eq!(
            e("[:space:]", Syntax::Basic),
            "character class syntax is [[:space:]], not [:space:]"
        );
        assert_eq!(e("a\\", Syntax::Basic), "Trailing backslash");
        assert_eq!(e("[c-a]", Syntax::Basic), "Invalid range end");
        assert_eq!(e("\\(a\\)\\1", Syntax::Basic), BACKREF);
    }
}
