//! GNU regular expressions (BRE, ERE; grep 3.8's dialect in the C locale) translated to the
//! `regex` crate's syntax, with GNU's diagnostics.
//!
//! The translation is byte-exact: every literal that is not plain ASCII is written as
//! `\x{NN}`, and the caller compiles with Unicode off, so a pattern byte matches that byte and
//! `.` matches any byte but the newline, as in the C locale. Constructs that can consume a
//! newline (`[^a]`, `\s`, `\W`) are made not to, because the caller searches a buffer of many
//! lines at once and a GNU match never spans two lines. Back-references have no equivalent in
//! a finite automaton: [`translate`] refuses them plainly; [`Regex`] (the engine grep, sed and
//! awk share) matches them with a bounded backtracker, and follows POSIX's leftmost-longest
//! rule where the `regex` crate is leftmost-first.

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
    /// Whether the pattern has back-references (only with [`Regex::new`]; [`translate`]
    /// refuses them).
    pub backrefs: bool,
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
    /// Output index where each open group starts, and its number.
    groups: Vec<(usize, usize)>,
    /// How many groups were opened so far; which are closed.
    opened: usize,
    closed: Vec<usize>,
    /// Whether back-references are emitted as markers (`(?P<brK_N>)`) for the backtracker
    /// instead of being refused.
    backrefs: bool,
    /// How many markers were emitted.
    markers: usize,
    /// Output index of the last thing a repetition applies to, if any.
    atom: Option<usize>,
    /// The last item emitted was a repetition (a second one must wrap the first).
    after_repeat: bool,
    warnings: Vec<String>,
    /// Whether a negated construct may match a newline ([`Options::newline`]).
    newline: bool,
    /// [`Options::strict`].
    strict: bool,
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
    fn repeat_at_start(&mut self, what: &str, literal: u8) -> Result<(), String> {
        if self.strict && self.syn == Syntax::Extended {
            return Err("Invalid preceding regular expression".into());
        }
        match self.syn {
            Syntax::Basic => self.literal(literal),
            Syntax::Extended => self
                .warnings
                .push(format!("warning: {what} at start of expression")),
        }
        Ok(())
    }

    /// Parses an interval body at `self.i` (just after `{` or `\{`). `Ok(None)`: not an
    /// interval (an ERE then takes `{` literally).
    fn interval(&mut self) -> Result<Option<String>, String> {
        let strict = self.syn == Syntax::Basic || self.strict;
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
            if strict {
                let rest = self.p.get(j..).unwrap_or_default();
                let closes = if bre {
                    rest.windows(2).any(|w| w == b"\\}")
                } else {
                    rest.contains(&b'}')
                };
                return Err(if closes {
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
            (None, None) if strict => return Err(BAD_INTERVAL.into()),
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
            b'1'..=b'9' => {
                let n = usize::from(c - b'0');
                if !self.closed.contains(&n) {
                    return Err("Invalid back reference".into());
                }
                if !self.backrefs {
                    return Err(BACKREF.into());
                }
                self.begin_atom();
                self.markers += 1;
                // The marker's body is never matched (the backtracker replaces the whole
                // group); it is not empty, or the parser would fold a repetition of it away
                // (`\1+`, `\1{2}`).
                let _ = write!(self.out, "(?P<br{}_{n}>\\x00?)", self.markers);
            }
            b'<' => self.assertion("\\b{start}"),
            b'>' => self.assertion("\\b{end}"),
            b'b' => self.assertion("\\b"),
            b'B' => self.assertion("\\B"),
            // The buffer's ends: for the engine (sed's pattern space may hold many lines)
            // whatever the multiline mode; grep's lines are their own buffers.
            b'`' => self.assertion(if self.backrefs { "\\A" } else { "^" }),
            b'\'' => self.assertion(if self.backrefs { "\\z" } else { "$" }),
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
        self.opened += 1;
        self.groups.push((self.out.len(), self.opened));
        self.out.push('(');
        self.atom = None;
        self.after_repeat = false;
    }

    fn close(&mut self) -> Result<(), String> {
        let Some((start, number)) = self.groups.pop() else {
            if self.syn == Syntax::Extended {
                self.literal(b')');
                return Ok(());
            }
            return Err("Unmatched ) or \\)".into());
        };
        self.out.push(')');
        self.closed.push(number);
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
                        self.repeat_at_start("*", b'*')?;
                    } else if self.strict && bre && self.after_repeat {
                        // sed's BRE: `a**` is refused.
                        return Err("Invalid preceding regular expression".into());
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
                        self.repeat_at_start(if c == b'+' { "+" } else { "?" }, c)?;
                    } else {
                        self.repeat(if c == b'+' { "+" } else { "?" });
                    }
                }
                b'{' if !bre => {
                    let save = self.i;
                    match self.interval()? {
                        Some(q) if self.atom.is_some() => self.repeat(&q),
                        Some(_) => self.repeat_at_start("{...}", b'{')?,
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
            backrefs: self.markers > 0,
        })
    }
}

/// Translates one GNU pattern (no newline in it) into the `regex` crate's syntax. The error
/// is GNU's message, without the `grep: ` prefix.
pub fn translate(pattern: &[u8], syn: Syntax) -> Result<Translated, String> {
    translate_with(pattern, syn, false, false, false)
}

/// [`translate`], where `newline` says whether a negated construct may match a newline.
fn translate_with(
    pattern: &[u8],
    syn: Syntax,
    newline: bool,
    backrefs: bool,
    strict: bool,
) -> Result<Translated, String> {
    Translator {
        p: pattern,
        i: 0,
        syn,
        out: String::with_capacity(pattern.len() * 2),
        groups: Vec::new(),
        opened: 0,
        closed: Vec::new(),
        backrefs,
        strict,
        markers: 0,
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
    /// POSIX's ERE as sed reads it: an interval that does not parse, or a repetition with
    /// nothing before it, is an error (grep -E takes them literally or warns).
    pub strict: bool,
}

impl Options {
    pub fn new(syntax: Syntax) -> Self {
        Options {
            syntax,
            icase: false,
            multiline: false,
            newline: true,
            strict: false,
        }
    }
}

/// The automaton that finds the longest end of a match from a known start (POSIX's
/// leftmost-longest rule, which the `regex` crate's leftmost-first search does not follow:
/// `a|ab` on `abcd` is `ab`).
#[derive(Debug)]
struct Longest {
    dfa: regex_automata::hybrid::dfa::DFA,
    cache: std::sync::Mutex<regex_automata::hybrid::dfa::Cache>,
}

impl Clone for Longest {
    fn clone(&self) -> Self {
        Longest {
            dfa: self.dfa.clone(),
            cache: std::sync::Mutex::new(self.dfa.create_cache()),
        }
    }
}

impl Longest {
    fn end(&self, hay: &[u8], start: usize) -> Option<usize> {
        use regex_automata::{Anchored, Input};
        let input = Input::new(hay)
            .range(start..hay.len())
            .anchored(Anchored::Yes);
        let mut cache = self
            .cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.dfa
            .try_search_fwd(&mut cache, &input)
            .ok()
            .flatten()
            .map(|m| m.offset())
    }
}

/// A compiled GNU regular expression: the `regex` crate's automaton finds where the leftmost
/// match starts, a lazy DFA with `MatchKind::All` where its longest end is, and a bounded
/// backtracker ([`crate::support::regex_bt`]) the group spans, and the whole match when the
/// pattern has back-references.
#[derive(Debug, Clone)]
pub struct Regex {
    /// `None` when the pattern has back-references.
    re: Option<regex::bytes::Regex>,
    /// `None` when leftmost-first is already leftmost-longest (a plain literal), or with
    /// back-references.
    longest: Option<Box<Longest>>,
    /// The backtracker; `None` when the pattern has neither groups nor back-references.
    prog: Option<Box<crate::support::regex_bt::Prog>>,
    groups: usize,
}

/// The spans of a match: group 0 is the whole match, then one per `\(...\)` / `(...)`;
/// `None` for a group that did not take part.
pub type Spans = Vec<Option<(usize, usize)>>;

impl Regex {
    /// Compiles a pattern. `Ok`: the regex and GNU's warnings for it; `Err`: GNU's message
    /// (without the command's prefix).
    pub fn new(pattern: &[u8], opts: &Options) -> Result<(Regex, Vec<String>), String> {
        let t = translate_with(pattern, opts.syntax, opts.newline, true, opts.strict)?;
        let too_big = |_| "Invalid regular expression".to_string();
        let syntax = regex_automata::util::syntax::Config::new()
            .unicode(false)
            .utf8(false)
            .multi_line(opts.multiline)
            .dot_matches_new_line(opts.newline)
            .case_insensitive(opts.icase);
        let hir = regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(false)
            .multi_line(opts.multiline)
            .dot_matches_new_line(opts.newline)
            .case_insensitive(opts.icase)
            .build()
            .parse(&t.pattern)
            .map_err(|_| "Invalid regular expression".to_string())?;
        let prog = crate::support::regex_bt::Prog::new(&hir, opts.icase)?;
        let groups = prog.groups;
        if t.backrefs {
            return Ok((
                Regex {
                    re: None,
                    longest: None,
                    prog: Some(Box::new(prog)),
                    groups,
                },
                t.warnings,
            ));
        }
        let re = regex::bytes::RegexBuilder::new(&t.pattern)
            .unicode(false)
            .multi_line(opts.multiline)
            .dot_matches_new_line(opts.newline)
            .case_insensitive(opts.icase)
            .size_limit(1 << 26)
            .dfa_size_limit(1 << 26)
            .build()
            .map_err(too_big)?;
        let longest = if hir.properties().is_literal() {
            None
        } else {
            use regex_automata::hybrid::dfa::DFA;
            let dfa = DFA::builder()
                .configure(
                    DFA::config()
                        .match_kind(regex_automata::MatchKind::All)
                        .cache_capacity(1 << 22),
                )
                .syntax(syntax)
                .thompson(
                    regex_automata::nfa::thompson::Config::new()
                        .utf8(false)
                        .nfa_size_limit(Some(1 << 26)),
                )
                .build(&t.pattern)
                .map_err(|_| "Invalid regular expression".to_string())?;
            let cache = std::sync::Mutex::new(dfa.create_cache());
            Some(Box::new(Longest { dfa, cache }))
        };
        Ok((
            Regex {
                re: Some(re),
                longest,
                prog: (groups > 0).then(|| Box::new(prog)),
                groups,
            },
            t.warnings,
        ))
    }
    /// How many groups the pattern has (not counting the whole match).
    pub fn groups(&self) -> usize {
        self.groups
    }
    /// Whether the pattern has back-references (matched by the bounded backtracker).
    pub fn has_backrefs(&self) -> bool {
        self.re.is_none()
    }
    /// Whether the pattern matches anywhere in `hay`.
    pub fn is_match(&self, hay: &[u8]) -> bool {
        match &self.re {
            Some(re) => re.is_match(hay),
            None => self.find_at(hay, 0).is_some(),
        }
    }
    /// The leftmost-longest match starting at or after `start` (`^` still means the start of
    /// `hay`).
    pub fn find_at(&self, hay: &[u8], start: usize) -> Option<(usize, usize)> {
        let Some(re) = &self.re else {
            return self
                .backtrack(hay, start)
                .and_then(|s| s.first().copied().flatten());
        };
        let m = re.find_at(hay, start).map(|m| (m.start(), m.end()))?;
        let end = self
            .longest
            .as_ref()
            .and_then(|l| l.end(hay, m.0))
            .map_or(m.1, |e| e.max(m.1));
        Some((m.0, end))
    }
    /// The backtracker's search (back-references).
    fn backtrack(&self, hay: &[u8], start: usize) -> Option<Spans> {
        self.prog.as_ref()?.find(hay, start)
    }
    /// The leftmost-longest match at or after `start`, with its groups.
    pub fn captures_at(&self, hay: &[u8], start: usize) -> Option<Spans> {
        if self.re.is_none() {
            return self.backtrack(hay, start);
        }
        let (s, e) = self.find_at(hay, start)?;
        let Some(prog) = &self.prog else {
            return Some(vec![Some((s, e))]);
        };
        if let Some(spans) = prog.spans(hay, s, e) {
            return Some(spans);
        }
        // Too large for the backtracker's memo: the automaton's (leftmost-first) groups.
        let mut spans: Spans = self.re.as_ref()?.captures_at(hay, s).map_or_else(
            || vec![None; self.groups + 1],
            |c| c.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect(),
        );
        if let Some(first) = spans.first_mut() {
            *first = Some((s, e));
        }
        Some(spans)
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

    fn caps(p: &str, syn: Syntax, hay: &str) -> Option<Vec<Option<String>>> {
        let (r, _) = Regex::new(p.as_bytes(), &Options::new(syn)).unwrap();
        let spans = r.captures_at(hay.as_bytes(), 0)?;
        Some(
            spans
                .iter()
                .map(|s| s.map(|(a, b)| hay.get(a..b).unwrap().to_string()))
                .collect(),
        )
    }

    #[allow(clippy::unnecessary_wraps)]
    fn s(v: &[Option<&str>]) -> Option<Vec<Option<String>>> {
        Some(v.iter().map(|x| x.map(String::from)).collect())
    }

    #[test]
    fn leftmost_longest_as_gnu() {
        // `echo abcd | sed -E 's/a|ab/X/'` -> `Xcd` (GNU sed 4.9).
        let (r, _) = Regex::new(b"a|ab", &Options::new(Syntax::Extended)).unwrap();
        assert_eq!(r.find_at(b"abcd", 0), Some((0, 2)));
        let (r, _) = Regex::new(b"(ab)?(abcd)?", &Options::new(Syntax::Extended)).unwrap();
        assert_eq!(r.find_at(b"abcd", 0), Some((0, 4)));
        let (r, _) = Regex::new(b"x*", &Options::new(Syntax::Basic)).unwrap();
        assert_eq!(r.find_at(b"abc", 1), Some((1, 1)));
    }

    #[test]
    fn groups_as_gnu() {
        // Each checked with GNU sed 4.9 (`sed -E 's/P/[\1,\2]/'`).
        assert_eq!(
            caps("(a*)*", Syntax::Extended, "aaa"),
            s(&[Some("aaa"), Some("aaa")])
        );
        assert_eq!(
            caps("(a|ab)(c|bcd)(d*)", Syntax::Extended, "abcd"),
            s(&[Some("abcd"), Some("a"), Some("bcd"), Some("")])
        );
        assert_eq!(
            caps("(a|ab)*", Syntax::Extended, "abab"),
            s(&[Some("abab"), Some("ab")])
        );
        assert_eq!(
            caps("(x|xy)(z|yz)?", Syntax::Extended, "xyz"),
            s(&[Some("xyz"), Some("x"), Some("yz")])
        );
        assert_eq!(
            caps("(a|b|c)*", Syntax::Extended, "abcabc"),
            s(&[Some("abcabc"), Some("c")])
        );
        assert_eq!(
            caps("\\(.*\\)\n\\(.*\\)", Syntax::Basic, "ab\ncd"),
            s(&[Some("ab\ncd"), Some("ab"), Some("cd")])
        );
    }

    #[test]
    fn back_references_as_gnu() {
        assert_eq!(
            caps("\\(a*\\)b\\1", Syntax::Basic, "xaabaa"),
            s(&[Some("aabaa"), Some("aa")])
        );
        assert_eq!(
            caps("(.)\\1", Syntax::Extended, "abccd"),
            s(&[Some("cc"), Some("c")])
        );
        assert_eq!(caps("(a)\\1", Syntax::Extended, "ab"), None);
        let mut o = Options::new(Syntax::Basic);
        o.icase = true;
        let (r, _) = Regex::new(b"\\(a\\)\\1", &o).unwrap();
        assert!(r.is_match(b"Aa"));
        assert_eq!(
            Regex::new(b"\\(a\\)\\2", &Options::new(Syntax::Basic)).unwrap_err(),
            "Invalid back reference"
        );
        assert_eq!(
            Regex::new(b"(a\\1)", &Options::new(Syntax::Extended)).unwrap_err(),
            "Invalid back reference"
        );
        // A hostile pattern gives up ("no match") instead of hanging.
        let (r, _) = Regex::new(b"\\(\\(a*\\)*\\)*\\1b", &Options::new(Syntax::Basic)).unwrap();
        let hay = vec![b'a'; 40];
        assert_eq!(r.find_at(&hay, 0), None);
    }
}
