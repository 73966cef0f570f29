//! Comparing two lines: key extraction and GNU's comparisons (numeric, general numeric,
//! human, month, version, random), with the last-resort byte comparison.

#[allow(clippy::wildcard_imports)]
use super::*;

/// How lines are compared: the keys, the separator, the global flags.
pub(super) struct Cmp {
    pub(super) keys: Vec<Key>,
    pub(super) tab: Option<u8>,
    pub(super) reverse: bool,
    pub(super) stable: bool,
    pub(super) unique: bool,
    pub(super) salt: u64,
}

impl Cmp {
    pub(super) fn begfield(&self, line: &[u8], key: &Key) -> usize {
        let lim = line.len();
        let mut p = 0;
        let mut sword = key.sword;
        while p < lim && sword > 0 {
            sword -= 1;
            if let Some(t) = self.tab {
                while p < lim && line.get(p) != Some(&t) {
                    p += 1;
                }
                if p < lim {
                    p += 1;
                }
            } else {
                while p < lim && line.get(p).is_some_and(|&c| blank(c)) {
                    p += 1;
                }
                while p < lim && line.get(p).is_some_and(|&c| !blank(c)) {
                    p += 1;
                }
            }
        }
        if key.skipsblanks {
            while p < lim && line.get(p).is_some_and(|&c| blank(c)) {
                p += 1;
            }
        }
        lim.min(p.saturating_add(key.schar))
    }

    pub(super) fn limfield(&self, line: &[u8], key: &Key) -> usize {
        let lim = line.len();
        let mut p = 0;
        let mut eword = key.eword;
        let echar = key.echar;
        if echar == 0 {
            eword = eword.saturating_add(1);
        }
        while p < lim && eword > 0 {
            eword -= 1;
            if let Some(t) = self.tab {
                while p < lim && line.get(p) != Some(&t) {
                    p += 1;
                }
                if p < lim && (eword > 0 || echar > 0) {
                    p += 1;
                }
            } else {
                while p < lim && line.get(p).is_some_and(|&c| blank(c)) {
                    p += 1;
                }
                while p < lim && line.get(p).is_some_and(|&c| !blank(c)) {
                    p += 1;
                }
            }
        }
        if echar != 0 {
            if key.skipeblanks {
                while p < lim && line.get(p).is_some_and(|&c| blank(c)) {
                    p += 1;
                }
            }
            p = lim.min(p.saturating_add(echar));
        }
        p
    }

    /// The text of a key in a line (an end before the start is an empty key).
    pub(super) fn key_text<'l>(&self, line: &'l [u8], key: &Key) -> &'l [u8] {
        let lim = if key.eword == usize::MAX {
            line.len()
        } else {
            self.limfield(line, key)
        };
        let beg = if key.sword == usize::MAX {
            let mut b = 0;
            if key.skipsblanks {
                while b < lim && line.get(b).is_some_and(|&c| blank(c)) {
                    b += 1;
                }
            }
            b
        } else {
            self.begfield(line, key)
        };
        line.get(beg..lim.max(beg)).unwrap_or_default()
    }

    pub(super) fn keycompare(&self, a: &[u8], b: &[u8]) -> Ordering {
        for key in &self.keys {
            let (ta, tb) = (self.key_text(a, key), self.key_text(b, key));
            let diff = if key.random {
                random_compare(ta, tb, self.salt)
            } else if key.numeric {
                numcompare(ta, tb)
            } else if key.general {
                general_numcompare(ta, tb)
            } else if key.human {
                human_numcompare(ta, tb)
            } else if key.month {
                month(ta).cmp(&month(tb))
            } else if key.version {
                filevercmp(ta, tb)
            } else if key.ignore.is_some() || key.translate {
                let map = |t: &'_ [u8]| -> Vec<u8> {
                    t.iter()
                        .copied()
                        .filter(|&c| match key.ignore {
                            Some(Ignore::NonDictionary) => c.is_ascii_alphanumeric() || blank(c),
                            Some(Ignore::NonPrinting) => (0x20..0x7f).contains(&c),
                            None => true,
                        })
                        .map(|c| {
                            if key.translate {
                                c.to_ascii_uppercase()
                            } else {
                                c
                            }
                        })
                        .collect()
                };
                map(ta).cmp(&map(tb))
            } else {
                ta.cmp(tb)
            };
            if diff != Ordering::Equal {
                return if key.reverse { diff.reverse() } else { diff };
            }
        }
        Ordering::Equal
    }

    /// GNU's `compare`: the keys, then (unless `-s`/`-u`) the whole lines.
    pub(super) fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        if !self.keys.is_empty() {
            let d = self.keycompare(a, b);
            if d != Ordering::Equal || self.unique || self.stable {
                return d;
            }
        }
        let d = a.cmp(b);
        if self.reverse { d.reverse() } else { d }
    }
}

/// A number's sign, integer digits (no leading zeros) and fraction digits (no trailing
/// zeros), as GNU's `strnumcmp` reads it after leading blanks; no number reads as zero.
pub(super) fn num_parts(s: &[u8]) -> (bool, &[u8], &[u8]) {
    let mut i = 0;
    while s.get(i).is_some_and(|&c| blank(c)) {
        i += 1;
    }
    let neg = s.get(i) == Some(&b'-');
    if neg {
        i += 1;
    }
    while s.get(i) == Some(&b'0') {
        i += 1;
    }
    let start = i;
    while s.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let int = s.get(start..i).unwrap_or_default();
    let mut frac: &[u8] = &[];
    if s.get(i) == Some(&b'.') {
        let fs = i + 1;
        let mut j = fs;
        while s.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        let mut f = s.get(fs..j).unwrap_or_default();
        while let Some((&b'0', rest)) = f.split_last() {
            f = rest;
        }
        frac = f;
    }
    let zero = int.is_empty() && frac.is_empty();
    (neg && !zero, int, frac)
}

pub(super) fn numcompare(a: &[u8], b: &[u8]) -> Ordering {
    let (na, ia, fa) = num_parts(a);
    let (nb, ib, fb) = num_parts(b);
    if na != nb {
        return if na {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    let mag = ia
        .len()
        .cmp(&ib.len())
        .then_with(|| ia.cmp(ib))
        .then_with(|| fa.cmp(fb));
    if na { mag.reverse() } else { mag }
}

/// GNU's `find_unit_order` (coreutils 9.1: K..Y).
pub(super) fn unit_order(s: &[u8]) -> i32 {
    let mut i = 0;
    while s.get(i).is_some_and(|&c| blank(c)) {
        i += 1;
    }
    let neg = s.get(i) == Some(&b'-');
    if neg {
        i += 1;
    }
    let mut max_digit = b'0';
    let mut any_nonzero = false;
    let mut ch;
    loop {
        loop {
            ch = s.get(i).copied().unwrap_or(0);
            i += 1;
            if !ch.is_ascii_digit() {
                break;
            }
            if ch > max_digit {
                max_digit = ch;
                any_nonzero = true;
            }
        }
        if ch != b'.' {
            break;
        }
    }
    let order = unit_power(ch).map_or(0, |p| p as i32);
    match (any_nonzero, neg) {
        (false, _) => 0,
        (true, true) => -order,
        (true, false) => order,
    }
}

pub(super) fn human_numcompare(a: &[u8], b: &[u8]) -> Ordering {
    unit_order(a)
        .cmp(&unit_order(b))
        .then_with(|| numcompare(a, b))
}

/// `strtold`'s longest numeric prefix, or `None` when there is none.
pub(super) fn strtold(s: &[u8]) -> Option<f64> {
    let mut i = 0;
    while s
        .get(i)
        .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r'))
    {
        i += 1;
    }
    let neg = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let rest = s.get(i..).unwrap_or_default();
    let lower: Vec<u8> = rest.iter().take(8).map(u8::to_ascii_lowercase).collect();
    let sign = if neg { -1.0 } else { 1.0 };
    if lower.starts_with(b"inf") {
        return Some(sign * f64::INFINITY);
    }
    if lower.starts_with(b"nan") {
        return Some(f64::NAN);
    }
    if lower.starts_with(b"0x") && rest.get(2).is_some_and(u8::is_ascii_hexdigit) {
        let mut v = 0f64;
        let mut j = 2;
        while let Some(d) = rest.get(j).and_then(|&c| char::from(c).to_digit(16)) {
            v = v * 16.0 + f64::from(d);
            j += 1;
        }
        if rest.get(j) == Some(&b'.') {
            j += 1;
            let mut scale = 1.0 / 16.0;
            while let Some(d) = rest.get(j).and_then(|&c| char::from(c).to_digit(16)) {
                v += f64::from(d) * scale;
                scale /= 16.0;
                j += 1;
            }
        }
        return Some(sign * v);
    }
    let mut j = 0;
    let mut digits = 0;
    while rest.get(j).is_some_and(u8::is_ascii_digit) {
        j += 1;
        digits += 1;
    }
    if rest.get(j) == Some(&b'.') {
        j += 1;
        while rest.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if matches!(rest.get(j), Some(b'e' | b'E')) {
        let mut k = j + 1;
        if matches!(rest.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        if rest.get(k).is_some_and(u8::is_ascii_digit) {
            while rest.get(k).is_some_and(u8::is_ascii_digit) {
                k += 1;
            }
            j = k;
        }
    }
    let text = std::str::from_utf8(rest.get(..j)?).ok()?;
    let text = if text.starts_with('.') {
        format!("0{text}")
    } else {
        text.to_string()
    };
    text.parse::<f64>().ok().map(|v| sign * v)
}

/// GNU's `general_numcompare`: conversion errors first, then NaNs, then numbers.
#[allow(clippy::many_single_char_names)]
pub(super) fn general_numcompare(a: &[u8], b: &[u8]) -> Ordering {
    match (strtold(a), strtold(b)) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => match x.partial_cmp(&y) {
            Some(o) => o,
            None => match (x.is_nan(), y.is_nan()) {
                (true, false) => Ordering::Less,
                (false, true) => Ordering::Greater,
                _ => Ordering::Equal,
            },
        },
    }
}

/// GNU's `getmonth`: 1..=12 for a leading month abbreviation (after blanks), else 0.
pub(super) fn month(s: &[u8]) -> u8 {
    const NAMES: [&[u8; 3]; 12] = [
        b"JAN", b"FEB", b"MAR", b"APR", b"MAY", b"JUN", b"JUL", b"AUG", b"SEP", b"OCT", b"NOV",
        b"DEC",
    ];
    let start = s.iter().position(|&c| !blank(c)).unwrap_or(s.len());
    let Some(head) = s.get(start..start + 3) else {
        return 0;
    };
    let up = [
        head.first().map_or(0, u8::to_ascii_uppercase),
        head.get(1).map_or(0, u8::to_ascii_uppercase),
        head.get(2).map_or(0, u8::to_ascii_uppercase),
    ];
    (1..)
        .zip(NAMES)
        .find(|(_, n)| **n == up)
        .map_or(0, |(i, _)| i)
}

/// FNV-1a of the salt and the key: `-R`'s order.
pub(super) fn random_compare(a: &[u8], b: &[u8], salt: u64) -> Ordering {
    let h = |t: &[u8]| {
        t.iter().fold(0xcbf2_9ce4_8422_2325 ^ salt, |h, &c| {
            (h ^ u64::from(c)).wrapping_mul(0x0100_0000_01b3)
        })
    };
    h(a).cmp(&h(b)).then_with(|| a.cmp(b))
}

/// gnulib's `order` for version comparison.
pub(super) fn ver_order(c: Option<&u8>) -> i32 {
    match c {
        None => 0,
        Some(&c) if c.is_ascii_digit() => 0,
        Some(&c) if c.is_ascii_alphabetic() => i32::from(c),
        Some(b'~') => -1,
        Some(&c) => i32::from(c) + 256,
    }
}

/// gnulib's `verrevcmp`.
pub(super) fn verrevcmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    let digit = |s: &[u8], k: usize| s.get(k).is_some_and(u8::is_ascii_digit);
    while i < a.len() || j < b.len() {
        while (i < a.len() && !digit(a, i)) || (j < b.len() && !digit(b, j)) {
            let ca = ver_order(a.get(i));
            let cb = ver_order(b.get(j));
            if ca != cb {
                return ca.cmp(&cb);
            }
            i += 1;
            j += 1;
        }
        while a.get(i) == Some(&b'0') {
            i += 1;
        }
        while b.get(j) == Some(&b'0') {
            j += 1;
        }
        let mut first_diff = Ordering::Equal;
        while digit(a, i) && digit(b, j) {
            if first_diff == Ordering::Equal {
                first_diff = a.get(i).cmp(&b.get(j));
            }
            i += 1;
            j += 1;
        }
        if digit(a, i) {
            return Ordering::Greater;
        }
        if digit(b, j) {
            return Ordering::Less;
        }
        if first_diff != Ordering::Equal {
            return first_diff;
        }
    }
    Ordering::Equal
}

/// gnulib's `file_prefixlen`: the length without a suffix `(\.[A-Za-z~][A-Za-z0-9~]*)*`.
pub(super) fn file_prefixlen(s: &[u8]) -> usize {
    let n = s.len();
    let mut prefix = 0;
    let mut i = 0;
    loop {
        if i == n {
            return prefix;
        }
        i += 1;
        prefix = i;
        while i + 1 < n
            && s.get(i) == Some(&b'.')
            && s.get(i + 1)
                .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'~')
        {
            i += 2;
            while i < n
                && s.get(i)
                    .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'~')
            {
                i += 1;
            }
        }
    }
}

/// gnulib's `filenvercmp` (`sort -V`).
pub(super) fn filevercmp(a: &[u8], b: &[u8]) -> Ordering {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        _ => {}
    }
    let dot = |s: &[u8]| s.first() == Some(&b'.');
    if dot(a) {
        if !dot(b) {
            return Ordering::Less;
        }
        for special in [&b"."[..], b".."] {
            match (a == special, b == special) {
                (true, true) => return Ordering::Equal,
                (true, false) => return Ordering::Less,
                (false, true) => return Ordering::Greater,
                _ => {}
            }
        }
    } else if dot(b) {
        return Ordering::Greater;
    }
    let (pa, pb) = (file_prefixlen(a), file_prefixlen(b));
    let one_pass = pa == a.len() && pb == b.len();
    let r = verrevcmp(a.get(..pa).unwrap_or(a), b.get(..pb).unwrap_or(b));
    if r != Ordering::Equal || one_pass {
        r
    } else {
        verrevcmp(a, b)
    }
}
