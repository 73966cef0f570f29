//! Brace expansion: `a{b,c}d`, nested groups, and sequences `{1..10}`, `{01..05}`,
//! `{a..e}`, `{1..10..2}`, `{5..1}`.
//!
//! It runs first, on the word as written: only unquoted `{`, `,` and `}` count, everything
//! quoted or expanded later (`'...'`, `"..."`, `$X`) is an opaque [`Unit::Other`] that is
//! carried along. As in bash, a `{` with no matching `}`, or whose inside has no top-level
//! comma and is not a valid sequence (`{a}`, `{}`, `{1..a}`), is plain text, and the search
//! goes on after it (`{a}{b,c}` gives `{a}b {a}c`).
//!
//! The number of words is capped ([`BraceError::TooMany`]); nesting deeper than
//! [`MAX_NESTING`] is an error rather than a deep recursion. Matching braces and top-level
//! commas are found in one pass, so hostile inputs stay linear per level.
#![deny(clippy::indexing_slicing)]

/// One element of a word for brace expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unit<T> {
    /// An unquoted byte as written.
    Byte(u8),
    /// Anything else (quoted text, an expansion): carried along untouched.
    Other(T),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BraceError {
    /// More than the cap of words.
    TooMany,
    /// Groups nested deeper than [`MAX_NESTING`].
    TooDeep,
    /// The words would hold more than the cap of bytes together.
    Oversized,
}

pub(crate) const MAX_NESTING: usize = 64;

/// Expands the braces of one word into words (at most `max`, of at most `max_units` units
/// together: checked before they are built).
pub(crate) fn expand<T: Clone>(
    units: &[Unit<T>],
    max: usize,
    max_units: usize,
) -> Result<Vec<Vec<Unit<T>>>, BraceError> {
    let words = expand_at(units, max, max_units, 0)?;
    Ok(words)
}

/// What the scan found for one `{`: its matching `}` and whether a comma sits at its top
/// level.
#[derive(Clone, Copy)]
struct Group {
    open: usize,
    close: usize,
    comma: bool,
}

/// All `{...}` pairs of a slice, in order of their `{`.
fn groups<T>(units: &[Unit<T>]) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    // Stack of (index into `out`, or usize::MAX for an unmatched `{` placeholder).
    let mut stack: Vec<usize> = Vec::new();
    for (i, u) in units.iter().enumerate() {
        match u {
            Unit::Byte(b'{') => {
                stack.push(out.len());
                out.push(Group {
                    open: i,
                    close: usize::MAX,
                    comma: false,
                });
            }
            Unit::Byte(b'}') => {
                if let Some(g) = stack.pop().and_then(|k| out.get_mut(k)) {
                    g.close = i;
                }
            }
            Unit::Byte(b',') => {
                if let Some(g) = stack.last().and_then(|&k| out.get_mut(k)) {
                    g.comma = true;
                }
            }
            _ => {}
        }
    }
    out.retain(|g| g.close != usize::MAX);
    out.sort_by_key(|g| g.open);
    out
}

fn expand_at<T: Clone>(
    units: &[Unit<T>],
    max: usize,
    max_units: usize,
    depth: usize,
) -> Result<Vec<Vec<Unit<T>>>, BraceError> {
    if depth > MAX_NESTING {
        return Err(BraceError::TooDeep);
    }
    let mut results: Vec<Vec<Unit<T>>> = vec![Vec::new()];
    let mut rest_start = 0usize;
    let all = groups(units);
    let mut gi = 0usize;
    loop {
        // The first valid group that starts in the rest.
        let mut found: Option<(Group, Vec<Vec<Unit<T>>>)> = None;
        while let Some(&g) = all.get(gi) {
            gi += 1;
            if g.open < rest_start {
                continue;
            }
            let inner = units.get(g.open + 1..g.close).unwrap_or_default();
            if g.comma {
                let mut alts = Vec::new();
                for alt in split_commas(inner) {
                    let expanded = expand_at(alt, max, max_units, depth + 1)?;
                    alts.extend(expanded);
                    if alts.len() > max {
                        return Err(BraceError::TooMany);
                    }
                }
                found = Some((g, alts));
                break;
            }
            if let Some(seq) = sequence(inner, max)? {
                found = Some((g, seq));
                break;
            }
        }
        let Some((g, alts)) = found else {
            let tail = units.get(rest_start..).unwrap_or_default();
            let size = results
                .iter()
                .map(|r| r.len().saturating_add(tail.len()))
                .fold(0usize, usize::saturating_add);
            if size > max_units {
                return Err(BraceError::Oversized);
            }
            for r in &mut results {
                r.extend_from_slice(tail);
            }
            return Ok(results);
        };
        let pre = units.get(rest_start..g.open).unwrap_or_default();
        if results.len().saturating_mul(alts.len()) > max {
            return Err(BraceError::TooMany);
        }
        // Every result is followed by every alternative: the sizes, before building them.
        let heads = results
            .iter()
            .map(|r| r.len().saturating_add(pre.len()))
            .fold(0usize, usize::saturating_add);
        let alt_units = alts
            .iter()
            .map(Vec::len)
            .fold(0usize, usize::saturating_add);
        let size = heads
            .saturating_mul(alts.len())
            .saturating_add(alt_units.saturating_mul(results.len()));
        if size > max_units {
            return Err(BraceError::Oversized);
        }
        let mut next = Vec::with_capacity(results.len() * alts.len());
        for r in &results {
            for a in &alts {
                let mut w = Vec::with_capacity(r.len() + pre.len() + a.len());
                w.extend_from_slice(r);
                w.extend_from_slice(pre);
                w.extend_from_slice(a);
                next.push(w);
            }
        }
        results = next;
        rest_start = g.close + 1;
        // Groups inside this one were handled by the recursion; skip them.
        while all.get(gi).is_some_and(|n| n.open < rest_start) {
            gi += 1;
        }
    }
}

/// Splits the inside of a group at its top-level commas.
fn split_commas<T>(inner: &[Unit<T>]) -> Vec<&[Unit<T>]> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    for (i, u) in inner.iter().enumerate() {
        match u {
            Unit::Byte(b'{') => depth += 1,
            Unit::Byte(b'}') => depth = depth.saturating_sub(1),
            Unit::Byte(b',') if depth == 0 => {
                out.push(inner.get(start..i).unwrap_or_default());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(inner.get(start..).unwrap_or_default());
    out
}

/// `x..y[..incr]` with integers or single letters: the generated words, or `None` when the
/// text is not a sequence (then the braces are literal).
fn sequence<T>(inner: &[Unit<T>], max: usize) -> Result<Option<Vec<Vec<Unit<T>>>>, BraceError> {
    // Two 20-digit numbers and an increment at most; longer insides are never sequences
    // (and checking them would make nested groups quadratic).
    if inner.len() > 70 {
        return Ok(None);
    }
    let mut text = Vec::with_capacity(inner.len());
    for u in inner {
        match u {
            Unit::Byte(b) => text.push(*b),
            Unit::Other(_) => return Ok(None),
        }
    }
    let pieces: Vec<&[u8]> = text.split(|&b| b == b'.').collect();
    // `a..b` splits into [a, "", b]; `a..b..c` into [a, "", b, "", c].
    let (x, y, incr) = match pieces.as_slice() {
        [x, [], y] => (*x, *y, None),
        [x, [], y, [], z] => (*x, *y, Some(*z)),
        _ => return Ok(None),
    };
    let incr = match incr {
        None => None,
        Some(z) => match parse_int(z) {
            Some(v) => Some(v),
            None => return Ok(None),
        },
    };
    if let (Some(a), Some(b)) = (parse_int(x), parse_int(y)) {
        let step = incr.map_or(1, i64::unsigned_abs).max(1);
        let span = a.abs_diff(b);
        if span / step >= max as u64 {
            return Err(BraceError::TooMany);
        }
        let width = if zero_padded(x) || zero_padded(y) {
            x.len().max(y.len())
        } else {
            0
        };
        let mut out = Vec::new();
        let mut v = a;
        loop {
            out.push(
                format!("{v:0width$}")
                    .into_bytes()
                    .into_iter()
                    .map(Unit::Byte)
                    .collect(),
            );
            let Some(next) = (if a <= b {
                v.checked_add_unsigned(step)
            } else {
                v.checked_sub_unsigned(step)
            }) else {
                break;
            };
            if (a <= b && next > b) || (a > b && next < b) {
                break;
            }
            v = next;
        }
        return Ok(Some(out));
    }
    if let ([a], [b]) = (x, y)
        && a.is_ascii_alphabetic()
        && b.is_ascii_alphabetic()
    {
        let step = incr.map_or(1, i64::unsigned_abs).clamp(1, 255) as u8;
        let mut out = Vec::new();
        let mut v = *a;
        loop {
            out.push(vec![Unit::Byte(v)]);
            let next = if a <= b {
                v.checked_add(step).filter(|n| n <= b)
            } else {
                v.checked_sub(step).filter(|n| n >= b)
            };
            match next {
                Some(n) => v = n,
                None => break,
            }
        }
        return Ok(Some(out));
    }
    Ok(None)
}

/// `[+-]?[0-9]+` as bash's `legal_number` (bounded to i64).
fn parse_int(s: &[u8]) -> Option<i64> {
    let digits = match s.first() {
        Some(b'+' | b'-') => s.get(1..)?,
        _ => s,
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

/// `01`, `-05`: an endpoint that asks for zero padding.
fn zero_padded(s: &[u8]) -> bool {
    let digits = match s.first() {
        Some(b'+' | b'-') => s.get(1..).unwrap_or_default(),
        _ => s,
    };
    digits.len() > 1 && digits.first() == Some(&b'0')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        let units: Vec<Unit<()>> = s.bytes().map(Unit::Byte).collect();
        expand(&units, 10_000, usize::MAX)
            .unwrap_or_default()
            .into_iter()
            .map(|w| {
                w.into_iter()
                    .map(|u| match u {
                        Unit::Byte(b) => char::from(b),
                        Unit::Other(()) => '#',
                    })
                    .collect()
            })
            .collect()
    }

    // Each expectation below is bash 5.2's output for the same word
    // (`bash -c 'printf "[%s]" WORD'`).
    #[test]
    fn lists() {
        assert_eq!(words("x{a,}y"), ["xay", "xy"]);
        assert_eq!(words("{a}{b,c}"), ["{a}b", "{a}c"]);
        assert_eq!(words("{1..3}{a,b}"), ["1a", "1b", "2a", "2b", "3a", "3b"]);
        assert_eq!(words("{a,b{1,2}}c"), ["ac", "b1c", "b2c"]);
        assert_eq!(words("{x,y}{,}"), ["x", "x", "y", "y"]);
        assert_eq!(words("{a,b"), ["{a,b"]);
        assert_eq!(words("{{a,b}}"), ["{a}", "{b}"]);
        assert_eq!(words("{a,b}}"), ["a}", "b}"]);
        assert_eq!(words("}{a,b}"), ["}a", "}b"]);
        assert_eq!(words("a,b"), ["a,b"]);
        assert_eq!(words("{}"), ["{}"]);
    }

    #[test]
    fn sequences() {
        assert_eq!(words("{a..e..2}"), ["a", "c", "e"]);
        assert_eq!(words("{5..1}"), ["5", "4", "3", "2", "1"]);
        assert_eq!(words("{1..10..-3}"), ["1", "4", "7", "10"]);
        assert_eq!(words("{01..05}"), ["01", "02", "03", "04", "05"]);
        assert_eq!(words("{-2..02}"), ["-2", "-1", "00", "01", "02"]);
        assert_eq!(words("{-05..5..3}"), ["-05", "-02", "001", "004"]);
        assert_eq!(words("{1..2..0}"), ["1", "2"]);
        assert_eq!(words("{a..c..-1}"), ["a", "b", "c"]);
        assert_eq!(words("a{b..d}e"), ["abe", "ace", "ade"]);
        assert_eq!(words("{+1..3}"), ["1", "2", "3"]);
        assert_eq!(words("{a..a}"), ["a"]);
        assert_eq!(words("{1..a}"), ["{1..a}"]);
        assert_eq!(words("{ab..cd}"), ["{ab..cd}"]);
        assert_eq!(words("{1..3..1x}"), ["{1..3..1x}"]);
        assert_eq!(words("{0x1..3}"), ["{0x1..3}"]);
    }

    #[test]
    fn opaque_units_do_not_split() {
        let units = vec![
            Unit::Byte(b'{'),
            Unit::Other(()),
            Unit::Byte(b','),
            Unit::Byte(b'b'),
            Unit::Byte(b'}'),
        ];
        let out = expand(&units, 10, usize::MAX).unwrap_or_default();
        assert_eq!(out.len(), 2);
        assert_eq!(out.first(), Some(&vec![Unit::Other(())]));
    }

    #[test]
    fn caps() {
        let units: Vec<Unit<()>> = "{1..100000}".bytes().map(Unit::Byte).collect();
        assert_eq!(expand(&units, 1000, usize::MAX), Err(BraceError::TooMany));
        let units: Vec<Unit<()>> = "{a,b}".repeat(40).bytes().map(Unit::Byte).collect();
        assert_eq!(expand(&units, 1000, usize::MAX), Err(BraceError::TooMany));
        let deep = format!("{}x{}", "{a,".repeat(100), "}".repeat(100));
        let units: Vec<Unit<()>> = deep.bytes().map(Unit::Byte).collect();
        assert_eq!(
            expand(&units, 1_000_000, usize::MAX),
            Err(BraceError::TooDeep)
        );
        let units: Vec<Unit<()>> = "{".repeat(100_000).bytes().map(Unit::Byte).collect();
        assert_eq!(expand(&units, 10, usize::MAX).map(|v| v.len()), Ok(1));
        let units: Vec<Unit<()>> = "{{1..9223372036854775807}"
            .bytes()
            .map(Unit::Byte)
            .collect();
        assert_eq!(expand(&units, 10, usize::MAX), Err(BraceError::TooMany));
        // The bytes of the words are counted before they are built.
        let units: Vec<Unit<()>> = b"xxxxxxxxxx{1..100}"
            .iter()
            .map(|&b| Unit::Byte(b))
            .collect();
        assert_eq!(expand(&units, 1000, 1000), Err(BraceError::Oversized));
        assert_eq!(expand(&units, 1000, 1300).map(|v| v.len()), Ok(100));
    }
}
