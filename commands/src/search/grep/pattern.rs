//! Patterns: `-e`/`-f`/operand collection and their compilation to GNU BRE/ERE (or a
//! fixed string), with GNU's diagnostics for what cannot be compiled.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Collects the patterns: `-e` and `-f` in order, else the first operand. `None` when a
/// pattern file cannot be read (the error is in `o`).
pub(super) fn patterns(a: &mut GrepArgs, ctx: &Ctx, o: &mut Outcome) -> Option<Vec<Vec<u8>>> {
    let mut pats: Vec<Vec<u8>> = Vec::new();
    for e in &a.regexp {
        pats.extend(e.as_bytes().split(|&c| c == b'\n').map(<[u8]>::to_vec));
    }
    for f in &a.file {
        let data = if f == "-" || crate::support::input::names_stdin(ctx, f) {
            ctx.stdin.read_all().map_err(|e| FsError::from_io(&e))
        } else {
            ctx.fs.read(&ctx.resolve(f))
        };
        match data {
            Ok(d) => {
                let d = d.strip_suffix(b"\n").unwrap_or(&d);
                if !d.is_empty() || a.file.len() > 1 || !a.regexp.is_empty() {
                    pats.extend(d.split(|&c| c == b'\n').map(<[u8]>::to_vec));
                }
            }
            Err(e) => {
                o.err(format!(
                    "{}: {}: {}\n",
                    ctx.name,
                    String::from_utf8_lossy(f.as_bytes()),
                    e.strerror()
                ));
                return None;
            }
        }
    }
    if a.regexp.is_empty() && a.file.is_empty() {
        if a.operands.is_empty() {
            return None;
        }
        let p = a.operands.remove(0);
        pats.extend(p.as_bytes().split(|&c| c == b'\n').map(<[u8]>::to_vec));
    }
    Some(pats)
}

/// `-P`: one pattern only (GNU 3.8), with `-x` and `-w` as GNU wraps it; on the automaton
/// when the `regex` crate can run it as Perl means it, else on `fancy-regex`.
fn build_perl(a: &GrepArgs, pats: &[Vec<u8>], o: &mut Outcome) -> Result<Regexes, ()> {
    let [p] = pats else {
        o.err("grep: the -P option only supports a single pattern\n");
        return Err(());
    };
    let body = String::from_utf8_lossy(p).into_owned();
    let automaton = perl_unsupported(p).is_none()
        && !body.contains("(?>")
        && !body.contains("\\K")
        && !body.contains("++")
        && !body.contains("*+")
        && !body.contains("?+")
        && RegexBuilder::new(&body).unicode(false).build().is_ok();
    let full = if a.line {
        format!("^(?:{body})$")
    } else if a.word && automaton {
        format!("\\b{{start-half}}(?:{body})\\b{{end-half}}")
    } else if a.word {
        format!("(?<!\\w)(?:{body})(?!\\w)")
    } else {
        body.clone()
    };
    if automaton {
        let pre = if a.word && !a.line {
            Some(compile(&body, a, o)?)
        } else {
            None
        };
        return Ok((Some(compile(&full, a, o)?), pre));
    }
    Ok((Some(compile_fancy(&full, a, o)?), None))
}

/// Whether a `-P` pattern holds what the `regex` crate cannot do (back-references,
/// look-around): the message to say so.
pub(super) fn perl_unsupported(p: &[u8]) -> Option<&'static str> {
    let mut i = 0;
    while let Some(&c) = p.get(i) {
        if c == b'\\' {
            match p.get(i + 1) {
                Some(b'1'..=b'9' | b'g' | b'k') => return Some(regex_gnu::BACKREF),
                _ => i += 2,
            }
            continue;
        }
        if c == b'(' && p.get(i + 1) == Some(&b'?') {
            let rest = p.get(i + 2..).unwrap_or_default();
            if rest.starts_with(b"=")
                || rest.starts_with(b"!")
                || rest.starts_with(b"<=")
                || rest.starts_with(b"<!")
            {
                return Some("look-around assertions are not supported with -P");
            }
        }
        i += 1;
    }
    None
}

/// A compiled pattern: the `regex` crate's automaton over a buffer of many lines, or, one
/// line at a time, `fancy-regex`'s backtracker (a `-P` pattern the automaton cannot run) or
/// the shared GNU engine (`-G`/`-E` with back-references, and `-o`, whose matches are GNU's
/// leftmost-longest ones).
pub(super) enum Matcher {
    Bytes(Regex),
    Fixed(Box<Fixed>),
    Fancy(Box<fancy_regex::Regex>, u8),
    Gnu(Box<GnuMatcher>),
}

/// The patterns on the shared GNU engine, with `-x`/`-w` applied as GNU applies them.
pub(super) struct GnuMatcher {
    patterns: Vec<GnuRegex>,
    eol: u8,
    line: bool,
    word: bool,
}

/// A word constituent for `-w`.
fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl GnuMatcher {
    /// The leftmost-longest match of any pattern in one line, at or after `from`.
    fn find_in_line(&self, line: &[u8], from: usize) -> Option<(usize, usize)> {
        let mut from = from;
        while from <= line.len() {
            let best = self
                .patterns
                .iter()
                .filter_map(|re| re.find_at(line, from))
                .min_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))?;
            if self.line {
                // The longest match at the start is the whole line, or nothing is.
                return (best == (0, line.len())).then_some(best);
            }
            if !self.word {
                return Some(best);
            }
            let (s, e) = best;
            let before = s.checked_sub(1).and_then(|k| line.get(k)).copied();
            let after = line.get(e).copied();
            if !before.is_some_and(word_byte) && !after.is_some_and(word_byte) {
                return Some(best);
            }
            from = s + 1;
        }
        None
    }
}

/// The first match at or after `start` in `hay` (many lines ended by `eol`), found line by
/// line by `find` (a line, where in it to start).
fn per_line(
    hay: &[u8],
    start: usize,
    eol: u8,
    find: impl Fn(&[u8], usize) -> Option<(usize, usize)>,
) -> Option<(usize, usize)> {
    let mut ls = hay
        .get(..start)
        .and_then(|s| memrchr(eol, s))
        .map_or(0, |i| i + 1);
    while ls <= hay.len() {
        let le = hay
            .get(ls..)
            .and_then(|s| memchr(eol, s))
            .map_or(hay.len(), |i| ls + i);
        let line = hay.get(ls..le).unwrap_or_default();
        let from = start.saturating_sub(ls);
        if from <= line.len()
            && let Some((s, e)) = find(line, from)
        {
            return Some((ls + s, ls + e));
        }
        ls = le + 1;
    }
    None
}

impl Matcher {
    /// The first match starting at or after `start` in `hay`, which may hold many lines;
    /// none crosses a line end.
    pub(super) fn find_at(&self, hay: &[u8], start: usize) -> Option<(usize, usize)> {
        match self {
            Matcher::Bytes(re) => re.find_at(hay, start).map(|m| (m.start(), m.end())),
            Matcher::Fixed(f) => f.find_at(hay, start),
            Matcher::Fancy(re, eol) => per_line(hay, start, *eol, |line, from| {
                re.find_from_pos(line, from)
                    .ok()
                    .flatten()
                    .map(|m| (m.start(), m.end()))
            }),
            Matcher::Gnu(g) => per_line(hay, start, g.eol, |line, from| g.find_in_line(line, from)),
        }
    }

    /// Whether one line matches.
    pub(super) fn is_match(&self, line: &[u8]) -> bool {
        match self {
            Matcher::Bytes(re) => re.is_match(line),
            Matcher::Fixed(f) => f.is_match(line),
            Matcher::Fancy(re, _) => re.is_match(line).unwrap_or(false),
            Matcher::Gnu(g) => g.find_in_line(line, 0).is_some(),
        }
    }
}

pub(super) type Regexes = (Option<Matcher>, Option<Matcher>);

/// A `-P` pattern on `fancy-regex`, on bytes (ASCII classes, `.` any byte but the line end).
fn compile_fancy(pattern: &str, a: &GrepArgs, o: &mut Outcome) -> Result<Matcher, ()> {
    fancy_regex::RegexBuilder::new(pattern)
        .bytes_mode(fancy_regex::BytesMode::Ascii)
        .case_insensitive(a.ignore_case)
        .dot_matches_new_line(a.null_data)
        .build()
        .map(|re| Matcher::Fancy(Box::new(re), if a.null_data { 0 } else { b'\n' }))
        .map_err(|e| {
            let text = e.to_string();
            // PCRE2's words for the common mistakes.
            let known = [
                ("without closing parenthesis", "missing closing parenthesis"),
                ("end of string not reached", "unmatched closing parenthesis"),
                ("back reference", "reference to non-existent subpattern"),
                (
                    "Target of repeat",
                    "quantifier does not follow a repeatable item",
                ),
                (
                    "character class",
                    "missing terminating ] for character class",
                ),
                ("Backslash without following", "\\ at end of pattern"),
            ];
            let msg = known
                .iter()
                .find(|(k, _)| text.contains(k))
                .map_or(text.as_str(), |(_, m)| m);
            o.err(format!("grep: {msg}\n"));
        })
}

pub(super) fn compile(pattern: &str, a: &GrepArgs, o: &mut Outcome) -> Result<Matcher, ()> {
    compile_bytes(pattern, a, o).map(Matcher::Bytes)
}

fn compile_bytes(pattern: &str, a: &GrepArgs, o: &mut Outcome) -> Result<Regex, ()> {
    RegexBuilder::new(pattern)
        .unicode(false)
        .multi_line(true)
        .line_terminator(if a.null_data { 0 } else { b'\n' })
        .dot_matches_new_line(a.perl && a.null_data)
        .case_insensitive(a.ignore_case)
        .size_limit(1 << 28)
        .dfa_size_limit(1 << 28)
        .build()
        .map_err(|e| {
            let text = e.to_string();
            let last = text
                .lines()
                .rev()
                .find(|l| l.starts_with("error:"))
                .unwrap_or("invalid pattern")
                .trim_start_matches("error: ");
            o.err(format!("grep: {last}\n"));
        })
}

/// The automaton, and for `-w` a faster first pass (see [`Grep::pre`]).
pub(super) fn build_regex(a: &GrepArgs, pats: &[Vec<u8>], o: &mut Outcome) -> Result<Regexes, ()> {
    if pats.is_empty() {
        return Ok((None, None));
    }
    if a.perl {
        return build_perl(a, pats, o);
    }
    let syn = if a.extended {
        Syntax::Extended
    } else {
        Syntax::Basic
    };
    if a.fixed || pats.iter().all(|p| is_plain(p, a.extended)) {
        let eol = if a.null_data { 0 } else { b'\n' };
        return match Fixed::new(pats, a.ignore_case, a.line, a.word, eol) {
            Ok(f) => Ok((Some(Matcher::Fixed(Box::new(f))), None)),
            Err(msg) => {
                o.err(format!("grep: {msg}\n"));
                Err(())
            }
        };
    }
    let backrefs = !a.fixed
        && pats
            .iter()
            .any(|p| regex_gnu::translate(p, syn).is_err_and(|e| e == regex_gnu::BACKREF));
    if backrefs || (a.only_matching && !a.fixed) {
        let gnu = build_gnu(a, pats, syn, o)?;
        if backrefs {
            return Ok((Some(gnu), None));
        }
        // The automaton finds the lines; the GNU engine the extent of each match.
        let (fast, _) = build_automaton(a, pats, syn, &mut Outcome::ok())?;
        return Ok((Some(gnu), fast));
    }
    build_automaton(a, pats, syn, o)
}

/// Every pattern on the shared GNU engine.
fn build_gnu(a: &GrepArgs, pats: &[Vec<u8>], syn: Syntax, o: &mut Outcome) -> Result<Matcher, ()> {
    let mut opts = regex_gnu::Options::new(syn);
    opts.icase = a.ignore_case;
    opts.newline = a.null_data;
    let mut patterns = Vec::with_capacity(pats.len());
    for p in pats {
        match GnuRegex::new(p, &opts) {
            Ok((re, warnings)) => {
                for w in warnings {
                    o.err(format!("grep: {w}\n"));
                }
                patterns.push(re);
            }
            Err(msg) => {
                o.err(format!("grep: {msg}\n"));
                return Err(());
            }
        }
    }
    Ok(Matcher::Gnu(Box::new(GnuMatcher {
        patterns,
        eol: if a.null_data { 0 } else { b'\n' },
        line: a.line,
        word: a.word,
    })))
}

/// The patterns as one `regex` crate automaton (and, for `-w`, its faster first pass).
fn build_automaton(
    a: &GrepArgs,
    pats: &[Vec<u8>],
    syn: Syntax,
    o: &mut Outcome,
) -> Result<Regexes, ()> {
    let mut alts = Vec::with_capacity(pats.len());
    for p in pats {
        if a.fixed {
            alts.push(regex_gnu::escape_literal(p));
        } else {
            match regex_gnu::translate(p, syn) {
                Ok(t) => {
                    for w in t.warnings {
                        o.err(format!("grep: {w}\n"));
                    }
                    alts.push(t.pattern);
                }
                Err(msg) => {
                    o.err(format!("grep: {msg}\n"));
                    return Err(());
                }
            }
        }
    }
    let body = if alts.len() == 1 {
        alts.pop().unwrap_or_default()
    } else {
        alts.iter()
            .map(|s| format!("(?:{s})"))
            .collect::<Vec<_>>()
            .join("|")
    };
    if a.line {
        return Ok((Some(compile(&format!("^(?:{body})$"), a, o)?), None));
    }
    if a.word {
        let full = format!("\\b{{start-half}}(?:{body})\\b{{end-half}}");
        return Ok((Some(compile(&full, a, o)?), Some(compile(&body, a, o)?)));
    }
    Ok((Some(compile(&body, a, o)?), None))
}
