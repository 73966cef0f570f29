//! `fnmatch(3)` without flags (or with `FNM_CASEFOLD`), as GNU `find -name`/`-path` and
//! grep's `--include`/`--exclude` use it in the C locale: `*` and `?` match any byte, `/`
//! and a leading `.` included; `[...]` takes `!` or `^` for negation, ranges and
//! `[:class:]`; `\` quotes the next byte. A malformed bracket matches itself literally.

/// Whether `name` matches `pat`. `fold`: ASCII case-insensitive (`-iname`, `-ipath`).
pub fn fnmatch(pat: &[u8], name: &[u8], fold: bool) -> bool {
    // The classic greedy scan: remember the last `*` and retry it one byte further on a
    // mismatch. Correct without FNM_PATHNAME, where `*` crosses everything; linear space.
    let (mut p, mut n) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        let c = fold_byte(name.get(n).copied().unwrap_or(0), fold);
        let step = match pat.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
                continue;
            }
            Some(b'?') => Some(p + 1),
            Some(b'[') => match bracket(pat, p, c, fold) {
                Some((true, next)) => Some(next),
                Some((false, _)) => None,
                // Not a bracket expression: `[` is literal.
                None => (c == b'[').then_some(p + 1),
            },
            Some(b'\\') => match pat.get(p + 1) {
                Some(&q) => (fold_byte(q, fold) == c).then_some(p + 2),
                None => (c == b'\\').then_some(p + 1),
            },
            Some(&q) => (fold_byte(q, fold) == c).then_some(p + 1),
            None => None,
        };
        match step {
            Some(next) => {
                p = next;
                n += 1;
            }
            None => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pat.get(p..)
        .is_some_and(|rest| rest.iter().all(|&b| b == b'*'))
}

fn fold_byte(c: u8, fold: bool) -> u8 {
    if fold { c.to_ascii_lowercase() } else { c }
}

/// Whether `c` is in the POSIX character class `name` (`[[:alpha:]]`) in the C locale; `None`
/// for a name that is not a class.
pub fn class_matches(name: &[u8], c: u8) -> Option<bool> {
    Some(match name {
        b"alpha" => c.is_ascii_alphabetic(),
        b"digit" => c.is_ascii_digit(),
        b"alnum" => c.is_ascii_alphanumeric(),
        b"upper" => c.is_ascii_uppercase(),
        b"lower" => c.is_ascii_lowercase(),
        b"space" => matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
        b"blank" => matches!(c, b' ' | b'\t'),
        b"punct" => c.is_ascii_punctuation(),
        b"print" => (0x20..0x7f).contains(&c),
        b"graph" => c.is_ascii_graphic(),
        b"cntrl" => c < 0x20 || c == 0x7f,
        b"xdigit" => c.is_ascii_hexdigit(),
        _ => return None,
    })
}

/// Matches `c` against the bracket expression starting at `pat[start] == b'['`: whether it
/// matched and the index after the closing `]`, or `None` when there is no closing `]`.
fn bracket(pat: &[u8], start: usize, c: u8, fold: bool) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negate = matches!(pat.get(i), Some(b'!' | b'^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let b = *pat.get(i)?;
        if b == b']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if b == b'[' && pat.get(i + 1) == Some(&b':') {
            let rest = pat.get(i + 2..)?;
            if let Some(end) = rest.windows(2).position(|w| w == b":]") {
                let name = rest.get(..end)?;
                let hit = class_matches(name, c).unwrap_or(false)
                    || (fold && class_matches(name, c.to_ascii_uppercase()).unwrap_or(false));
                matched |= hit;
                i += 2 + end + 2;
                continue;
            }
        }
        let (lo, next) = if b == b'\\' {
            (*pat.get(i + 1)?, i + 2)
        } else {
            (b, i + 1)
        };
        i = next;
        if pat.get(i) == Some(&b'-') && pat.get(i + 1).is_some_and(|&e| e != b']') {
            let (hi, next) = match pat.get(i + 1) {
                Some(b'\\') => (*pat.get(i + 2)?, i + 3),
                Some(&e) => (e, i + 2),
                None => return None,
            };
            i = next;
            let in_range = |x: u8| lo <= x && x <= hi;
            matched |= in_range(c)
                || (fold && (in_range(c.to_ascii_uppercase()) || in_range(c.to_ascii_lowercase())));
        } else {
            matched |= fold_byte(lo, fold) == c;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fnmatch;

    #[test]
    fn globs() {
        assert!(fnmatch(b"*.rs", b"main.rs", false));
        assert!(fnmatch(b"*", b".hidden", false));
        assert!(fnmatch(b"./src/*", b"./src/a/b.rs", false));
        assert!(!fnmatch(b"*.rs", b"main.rsx", false));
        assert!(fnmatch(b"a?c", b"abc", false));
        assert!(fnmatch(b"[ab]*", b"boo", false));
        assert!(!fnmatch(b"[!ab]*", b"boo", false));
        assert!(fnmatch(b"[[:upper:]]*", b"README", false));
        assert!(fnmatch(b"*READ*", b"readme", true));
        assert!(fnmatch(b"[a-c]x", b"Bx", true));
        assert!(fnmatch(b"\\*", b"*", false));
        assert!(fnmatch(b"[x", b"[x", false));
        assert!(fnmatch(b"*a*b*c", b"xxaxxbxxbxc", false));
        assert!(!fnmatch(b"*a*b*c", b"xxaxxbxxbx", false));
        assert!(fnmatch(b"", b"", false));
        assert!(!fnmatch(b"", b"a", false));
    }
}
