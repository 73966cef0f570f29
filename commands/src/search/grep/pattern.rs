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

/// Checks a `-P` pattern for what the `regex` crate cannot do.
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

pub(super) type Regexes = (Option<Regex>, Option<Regex>);

pub(super) fn compile(pattern: &str, a: &GrepArgs, o: &mut Outcome) -> Result<Regex, ()> {
    RegexBuilder::new(pattern)
        .unicode(false)
        .multi_line(true)
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
    let mut alts = Vec::with_capacity(pats.len());
    for p in pats {
        if a.fixed {
            alts.push(regex_gnu::escape_literal(p));
        } else if a.perl {
            if let Some(msg) = perl_unsupported(p) {
                o.err(format!("grep: {msg}\n"));
                return Err(());
            }
            alts.push(String::from_utf8_lossy(p).into_owned());
        } else {
            let syn = if a.extended {
                Syntax::Extended
            } else {
                Syntax::Basic
            };
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
