//! `sort [OPTION]... [FILE]...`, GNU coreutils 9.1 in the C locale: keys (`-k POS1[,POS2]`
//! with `.CHAR` and per-key flags), field separators (`-t`, blank runs by default), the
//! orderings `-n -g -h -M -V -R -d -f -i -b -r`, `-u`, `-s`, `-m`, `-c`/`-C`, `-z` and
//! `-o FILE` (one [`Op::WriteFile`] after everything is read, so `sort -o f f` works).
//!
//! The algorithm is GNU's: each key's text is cut with `begfield`/`limfield`, keys are
//! compared in order, and unless `-s` or `-u` equal keys fall back to a byte comparison of
//! whole lines (reversed by a global `-r`). Options without `-k` form one key over the whole
//! line, and a key without flags inherits the global ones. `-R` orders by a hash salted with
//! the session's clock, so equal keys still group together as in GNU.
//!
//! All input lines are held in memory (each file up to the session's read cap).

use std::cmp::Ordering;
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::argmatch::argmatch;
use crate::support::args::parse_args;
use crate::support::input::{open_input, read_error};
use crate::support::size::unit_power;
use crate::{Ctx, Effect, FsError, Op, Outcome, quote, quote_if_needed, quote_locale};

/// GNU sort's failure status (`SORT_FAILURE`).
const FAIL: i32 = 2;

/// Write sorted concatenation of all FILE(s) to standard output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "sort [OPTION]... [FILE]...")]
#[allow(clippy::struct_excessive_bools)] // one bool per GNU flag
pub struct SortArgs {
    /// ignore leading blanks
    #[arg(short = 'b', long = "ignore-leading-blanks")]
    ignore_leading_blanks: bool,
    /// consider only blanks and alphanumeric characters
    #[arg(short = 'd', long = "dictionary-order")]
    dictionary_order: bool,
    /// fold lower case to upper case characters
    #[arg(short = 'f', long = "ignore-case")]
    ignore_case: bool,
    /// compare according to general numerical value
    #[arg(short = 'g', long = "general-numeric-sort")]
    general_numeric: bool,
    /// consider only printable characters
    #[arg(short = 'i', long = "ignore-nonprinting")]
    ignore_nonprinting: bool,
    /// compare (unknown) < 'JAN' < ... < 'DEC'
    #[arg(short = 'M', long = "month-sort")]
    month: bool,
    /// compare human readable numbers (e.g., 2K 1G)
    #[arg(short = 'h', long = "human-numeric-sort")]
    human: bool,
    /// compare according to string numerical value
    #[arg(short = 'n', long = "numeric-sort")]
    numeric: bool,
    /// shuffle, but group identical keys
    #[arg(short = 'R', long = "random-sort")]
    random: bool,
    /// reverse the result of comparisons
    #[arg(short = 'r', long = "reverse")]
    reverse: bool,
    /// sort according to WORD: general-numeric -g, human-numeric -h, month -M, numeric -n,
    /// random -R, version -V
    #[arg(long = "sort", value_name = "WORD", action = clap::ArgAction::Append)]
    sort: Vec<String>,
    /// natural sort of (version) numbers within text
    #[arg(short = 'V', long = "version-sort")]
    version: bool,
    /// check for sorted input; do not sort
    #[arg(short = 'c')]
    check_diagnose: bool,
    /// like -c (WHEN: 'diagnose-first'), or -C ('quiet', 'silent')
    #[arg(
        long = "check",
        value_name = "WHEN",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "diagnose-first",
        action = clap::ArgAction::Append
    )]
    check: Vec<String>,
    /// like -c, but do not report first bad line
    #[arg(short = 'C')]
    check_quiet: bool,
    /// sort via a key; KEYDEF gives location and type
    #[arg(short = 'k', long = "key", value_name = "KEYDEF", action = clap::ArgAction::Append)]
    keys: Vec<OsString>,
    /// merge already sorted files; do not sort
    #[arg(short = 'm', long = "merge")]
    merge: bool,
    /// write result to FILE instead of standard output
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<OsString>,
    /// stabilize sort by disabling last-resort comparison
    #[arg(short = 's', long = "stable")]
    stable: bool,
    /// use SIZE for main memory buffer (ignored)
    #[arg(short = 'S', long = "buffer-size", value_name = "SIZE")]
    buffer_size: Option<String>,
    /// use SEP instead of non-blank to blank transition
    #[arg(short = 't', long = "field-separator", value_name = "SEP", action = clap::ArgAction::Append)]
    separator: Vec<OsString>,
    /// use DIR for temporaries (ignored)
    #[arg(short = 'T', long = "temporary-directory", value_name = "DIR", action = clap::ArgAction::Append)]
    temp: Vec<OsString>,
    /// change the number of sorts run concurrently to N (ignored)
    #[arg(long = "parallel", value_name = "N")]
    parallel: Option<String>,
    /// with -c, check for strict ordering; without -c, output only the first of an equal run
    #[arg(short = 'u', long = "unique")]
    unique: bool,
    /// line delimiter is NUL, not newline
    #[arg(short = 'z', long = "zero-terminated")]
    zero: bool,
    files: Vec<OsString>,
}

/// Which bytes a key skips (`-d`, `-i`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ignore {
    NonDictionary,
    NonPrinting,
}

/// One key, as GNU's `struct keyfield`. `usize::MAX` in `sword`/`eword` means "none".
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)]
struct Key {
    sword: usize,
    schar: usize,
    eword: usize,
    echar: usize,
    skipsblanks: bool,
    skipeblanks: bool,
    ignore: Option<Ignore>,
    translate: bool,
    numeric: bool,
    general: bool,
    human: bool,
    month: bool,
    version: bool,
    random: bool,
    reverse: bool,
}

impl Default for Key {
    fn default() -> Self {
        Key {
            sword: 0,
            schar: 0,
            eword: usize::MAX,
            echar: 0,
            skipsblanks: false,
            skipeblanks: false,
            ignore: None,
            translate: false,
            numeric: false,
            general: false,
            human: false,
            month: false,
            version: false,
            random: false,
            reverse: false,
        }
    }
}

impl Key {
    /// GNU's `default_key_compare`: no ordering option at all (`-r` aside).
    fn is_default(&self) -> bool {
        !(self.ignore.is_some()
            || self.translate
            || self.skipsblanks
            || self.skipeblanks
            || self.numeric
            || self.general
            || self.human
            || self.month
            || self.version
            || self.random)
    }

    fn inherit(&mut self, g: &Key) {
        self.ignore = g.ignore;
        self.translate = g.translate;
        self.skipsblanks = g.skipsblanks;
        self.skipeblanks = g.skipeblanks;
        self.month = g.month;
        self.numeric = g.numeric;
        self.general = g.general;
        self.human = g.human;
        self.version = g.version;
        self.random = g.random;
        self.reverse = g.reverse;
    }

    /// GNU's `key_to_opts` for the incompatibility message (blanks and `-r` left out).
    fn opts(&self) -> String {
        let mut s = String::new();
        for (on, c) in [
            (self.ignore == Some(Ignore::NonDictionary), 'd'),
            (self.translate, 'f'),
            (self.general, 'g'),
            (self.human, 'h'),
            (self.ignore == Some(Ignore::NonPrinting), 'i'),
            (self.month, 'M'),
            (self.numeric, 'n'),
            (self.random, 'R'),
            (self.version, 'V'),
        ] {
            if on {
                s.push(c);
            }
        }
        s
    }

    fn incompatible(&self) -> bool {
        let kinds = usize::from(self.numeric)
            + usize::from(self.general)
            + usize::from(self.human)
            + usize::from(self.month)
            + usize::from(self.version || self.random || self.ignore.is_some());
        kinds > 1
    }
}

/// Where a blank flag applies: a key's start, its end, or both (global options).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Blanks {
    Start,
    End,
    Both,
}

/// GNU's `set_ordering`: applies flag letters, returns the rest of the spec.
fn set_ordering<'a>(mut s: &'a [u8], key: &mut Key, blanks: Blanks) -> &'a [u8] {
    while let Some((&c, rest)) = s.split_first() {
        match c {
            b'b' => {
                if blanks != Blanks::End {
                    key.skipsblanks = true;
                }
                if blanks != Blanks::Start {
                    key.skipeblanks = true;
                }
            }
            b'd' => key.ignore = Some(Ignore::NonDictionary),
            b'f' => key.translate = true,
            b'g' => key.general = true,
            b'h' => key.human = true,
            b'i' => {
                if key.ignore.is_none() {
                    key.ignore = Some(Ignore::NonPrinting);
                }
            }
            b'M' => key.month = true,
            b'n' => key.numeric = true,
            b'R' => key.random = true,
            b'r' => key.reverse = true,
            b'V' => key.version = true,
            _ => return s,
        }
        s = rest;
    }
    s
}

/// GNU's `parse_field_count`: a count and the rest, or the `invalid count` message.
fn field_count<'a>(s: &'a [u8], what: &str) -> Result<(usize, &'a [u8]), String> {
    let mut i = 0;
    while s
        .get(i)
        .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r'))
    {
        i += 1;
    }
    if s.get(i) == Some(&b'+') {
        i += 1;
    }
    let start = i;
    let mut n: usize = 0;
    while let Some(&d) = s.get(i).filter(|d| d.is_ascii_digit()) {
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(usize::from(d - b'0')))
            .unwrap_or(usize::MAX);
        i += 1;
    }
    if i == start {
        return Err(format!(
            "{what}: invalid count at start of {}",
            quote_locale(OsStr::from_bytes(s))
        ));
    }
    Ok((n, s.get(i..).unwrap_or_default()))
}

/// Parses `-k POS1[,POS2]`.
fn parse_key(spec: &[u8]) -> Result<Key, String> {
    let bad = |msg: &str| {
        format!(
            "{msg}: invalid field specification {}",
            quote_locale(OsStr::from_bytes(spec))
        )
    };
    let mut key = Key::default();
    let (n, mut s) = field_count(spec, "invalid number at field start")?;
    if n == 0 {
        return Err(bad("field number is zero"));
    }
    key.sword = n - 1;
    if let Some(rest) = s.strip_prefix(b".") {
        let (c, rest) = field_count(rest, "invalid number after '.'")?;
        if c == 0 {
            return Err(bad("character offset is zero"));
        }
        key.schar = c - 1;
        s = rest;
    }
    if key.sword == 0 && key.schar == 0 {
        key.sword = usize::MAX;
    }
    s = set_ordering(s, &mut key, Blanks::Start);
    if let Some(rest) = s.strip_prefix(b",") {
        let (n, rest) = field_count(rest, "invalid number after ','")?;
        if n == 0 {
            return Err(bad("field number is zero"));
        }
        key.eword = n - 1;
        s = rest;
        if let Some(rest) = s.strip_prefix(b".") {
            let (c, rest) = field_count(rest, "invalid number after '.'")?;
            key.echar = c;
            s = rest;
        }
        s = set_ordering(s, &mut key, Blanks::End);
    } else {
        key.eword = usize::MAX;
        key.echar = 0;
    }
    if !s.is_empty() {
        return Err(bad("stray character in field spec"));
    }
    Ok(key)
}

/// Blanks as GNU's `field_sep`: `isblank` or newline.
fn blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n')
}

/// How lines are compared: the keys, the separator, the global flags.
struct Cmp {
    keys: Vec<Key>,
    tab: Option<u8>,
    reverse: bool,
    stable: bool,
    unique: bool,
    salt: u64,
}

impl Cmp {
    fn begfield(&self, line: &[u8], key: &Key) -> usize {
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

    fn limfield(&self, line: &[u8], key: &Key) -> usize {
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
    fn key_text<'l>(&self, line: &'l [u8], key: &Key) -> &'l [u8] {
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

    fn keycompare(&self, a: &[u8], b: &[u8]) -> Ordering {
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
    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
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
fn num_parts(s: &[u8]) -> (bool, &[u8], &[u8]) {
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

fn numcompare(a: &[u8], b: &[u8]) -> Ordering {
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
fn unit_order(s: &[u8]) -> i32 {
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

fn human_numcompare(a: &[u8], b: &[u8]) -> Ordering {
    unit_order(a)
        .cmp(&unit_order(b))
        .then_with(|| numcompare(a, b))
}

/// `strtold`'s longest numeric prefix, or `None` when there is none.
fn strtold(s: &[u8]) -> Option<f64> {
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
fn general_numcompare(a: &[u8], b: &[u8]) -> Ordering {
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
fn month(s: &[u8]) -> u8 {
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
fn random_compare(a: &[u8], b: &[u8], salt: u64) -> Ordering {
    let h = |t: &[u8]| {
        t.iter().fold(0xcbf2_9ce4_8422_2325 ^ salt, |h, &c| {
            (h ^ u64::from(c)).wrapping_mul(0x0100_0000_01b3)
        })
    };
    h(a).cmp(&h(b)).then_with(|| a.cmp(b))
}

/// gnulib's `order` for version comparison.
fn ver_order(c: Option<&u8>) -> i32 {
    match c {
        None => 0,
        Some(&c) if c.is_ascii_digit() => 0,
        Some(&c) if c.is_ascii_alphabetic() => i32::from(c),
        Some(b'~') => -1,
        Some(&c) => i32::from(c) + 256,
    }
}

/// gnulib's `verrevcmp`.
fn verrevcmp(a: &[u8], b: &[u8]) -> Ordering {
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
fn file_prefixlen(s: &[u8]) -> usize {
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
fn filevercmp(a: &[u8], b: &[u8]) -> Ordering {
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

/// Splits input into lines (a last line without its delimiter still counts).
fn split_lines(data: &[u8], eol: u8) -> Vec<&[u8]> {
    if data.is_empty() {
        return Vec::new();
    }
    let body = data.strip_suffix(&[eol]).unwrap_or(data);
    body.split(|&c| c == eol).collect()
}

/// Reads every input, or GNU's message for the first that fails.
fn read_all(ctx: &Ctx, files: &[OsString]) -> Result<Vec<Vec<u8>>, Stop> {
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        if f != "-" {
            // A file is held whole: through the session's read cap.
            match ctx.fs.read(&ctx.resolve(f)) {
                Ok(data) => out.push(data),
                Err(e) => {
                    // Open errors are "cannot read"; what read(2) says is "read failed".
                    let what = if matches!(
                        e,
                        FsError::TooLarge | FsError::IsADirectory | FsError::Io | FsError::TimedOut
                    ) {
                        "read failed"
                    } else {
                        "cannot read"
                    };
                    return Err(Stop::Fail(format!("{what}: {}: {e}", quote_if_needed(f))));
                }
            }
            continue;
        }
        let mut data = Vec::new();
        let r = open_input(ctx, f)
            .map_err(|e| ("cannot read", e))
            .and_then(|mut r| {
                r.read_to_end(&mut data)
                    .map_err(|e| ("read failed", read_error(&e)))
            });
        if let Err((what, e)) = r {
            return Err(Stop::Fail(format!("{what}: {}: {e}", quote_if_needed(f))));
        }
        out.push(data);
    }
    Ok(out)
}

/// The global options as one key, and the separator, or the first option error.
fn settings(a: &SortArgs) -> Result<(Key, Option<u8>), Stop> {
    let mut g = Key::default();
    let flags = [
        (a.ignore_leading_blanks, b'b'),
        (a.dictionary_order, b'd'),
        (a.ignore_case, b'f'),
        (a.general_numeric, b'g'),
        (a.human, b'h'),
        (a.ignore_nonprinting, b'i'),
        (a.month, b'M'),
        (a.numeric, b'n'),
        (a.random, b'R'),
        (a.reverse, b'r'),
        (a.version, b'V'),
    ];
    for (on, c) in flags {
        if on {
            set_ordering(&[c], &mut g, Blanks::Both);
        }
    }
    for w in &a.sort {
        let c = argmatch(
            "--sort",
            w,
            &[
                ("general-numeric", b'g'),
                ("human-numeric", b'h'),
                ("month", b'M'),
                ("numeric", b'n'),
                ("random", b'R'),
                ("version", b'V'),
            ],
        )?;
        set_ordering(&[c], &mut g, Blanks::Both);
    }
    let mut tab: Option<u8> = None;
    for t in &a.separator {
        let b = t.as_bytes();
        let new = match b {
            [] => return Err(Stop::Fail("empty tab".into())),
            [c] => *c,
            b"\\0" => 0,
            _ => {
                return Err(Stop::Fail(format!(
                    "multi-character tab {}",
                    quote_locale(t)
                )));
            }
        };
        if tab.is_some_and(|old| old != new) {
            return Err(Stop::Fail("incompatible tabs".into()));
        }
        tab = Some(new);
    }
    Ok((g, tab))
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<SortArgs>(args)?;
    let (gkey, tab) = settings(&a)?;
    let mut keys = Vec::new();
    for spec in &a.keys {
        match parse_key(spec.as_bytes()) {
            Ok(k) => keys.push(k),
            Err(msg) => return Err(Stop::Fail(msg)),
        }
    }
    for k in &mut keys {
        if k.is_default() && !k.reverse {
            k.inherit(&gkey);
        }
    }
    if keys.is_empty() && !gkey.is_default() {
        keys.push(gkey.clone());
    }
    if let Some(k) = keys.iter().find(|k| k.incompatible()) {
        return Err(Stop::Fail(format!(
            "options '-{}' are incompatible",
            k.opts()
        )));
    }
    // -c / -C / --check=WHEN
    let mut check: Option<bool> = if a.check_quiet {
        Some(true)
    } else {
        a.check_diagnose.then_some(false)
    };
    for w in &a.check {
        // argmatch lists synonyms on one line.
        let quiet = argmatch(
            "--check",
            w,
            &[("quiet", true), ("silent", true), ("diagnose-first", false)],
        )?;
        check = Some(quiet);
    }
    let files = if a.files.is_empty() {
        vec![OsString::from("-")]
    } else {
        a.files.clone()
    };
    let cmp = Cmp {
        keys,
        tab,
        reverse: gkey.reverse,
        stable: a.stable,
        unique: a.unique,
        salt: crate::support::datetime::to_epoch(ctx.now).1.into(),
    };
    let eol = if a.zero { 0 } else { b'\n' };
    if let Some(quiet) = check {
        let letter = if quiet { 'C' } else { 'c' };
        if let Some(extra) = files.get(1) {
            return Err(Stop::Fail(format!(
                "extra operand {} not allowed with -{letter}",
                quote(extra)
            )));
        }
        if a.output.is_some() {
            return Err(Stop::Fail(format!("options '-{letter}o' are incompatible")));
        }
        return check_sorted(ctx, &files, &cmp, eol, quiet);
    }
    let inputs = read_all(ctx, &files)?;
    let lists: Vec<Vec<&[u8]>> = inputs.iter().map(|d| split_lines(d, eol)).collect();
    let sorted = if a.merge {
        merge(lists, &cmp)
    } else {
        let mut all: Vec<&[u8]> = lists.into_iter().flatten().collect();
        all.sort_by(|x, y| cmp.compare(x, y));
        all
    };
    let mut data = Vec::new();
    let mut last: Option<&[u8]> = None;
    for line in sorted {
        if a.unique {
            if last.is_some_and(|l| cmp.compare(l, line) == Ordering::Equal) {
                continue;
            }
            last = Some(line);
        }
        data.extend_from_slice(line);
        data.push(eol);
    }
    let mut o = Outcome::ok();
    match &a.output {
        Some(out) => {
            let mut e = Effect::new(
                Op::WriteFile {
                    path: ctx.resolve(out),
                    data,
                    append: false,
                },
                format!("sort: open failed: {}", quote_if_needed(out)),
            );
            e.fail_status = FAIL;
            o.effect(e);
        }
        None => {
            o.out(data);
        }
    }
    Ok(o)
}

/// `-m`: repeatedly takes the smallest head; ties go to the earlier file, as GNU's merge.
fn merge<'a>(lists: Vec<Vec<&'a [u8]>>, cmp: &Cmp) -> Vec<&'a [u8]> {
    let total = lists.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(total);
    let mut iters: Vec<std::iter::Peekable<std::vec::IntoIter<&[u8]>>> = lists
        .into_iter()
        .map(|l| l.into_iter().peekable())
        .collect();
    loop {
        let mut best: Option<(usize, &[u8])> = None;
        for (i, it) in iters.iter_mut().enumerate() {
            if let Some(&line) = it.peek()
                && best.is_none_or(|(_, b)| cmp.compare(line, b) == Ordering::Less)
            {
                best = Some((i, line));
            }
        }
        let Some((i, line)) = best else { break };
        if let Some(it) = iters.get_mut(i) {
            it.next();
        }
        out.push(line);
    }
    out
}

/// `-c`/`-C`: the first line out of order (or equal to the previous one with `-u`).
fn check_sorted(
    ctx: &Ctx,
    files: &[OsString],
    cmp: &Cmp,
    eol: u8,
    quiet: bool,
) -> Result<Outcome, Stop> {
    let Some(file) = files.first() else {
        return Ok(Outcome::ok());
    };
    let inputs = read_all(ctx, std::slice::from_ref(file))?;
    let data = inputs.first().map_or(&[][..], Vec::as_slice);
    let lines = split_lines(data, eol);
    for (n, pair) in lines.windows(2).enumerate() {
        let [prev, line] = pair else { continue };
        let d = cmp.compare(prev, line);
        if d == Ordering::Greater || (cmp.unique && d == Ordering::Equal) {
            let mut o = Outcome::status(1);
            if !quiet {
                let mut msg =
                    format!("sort: {}:{}: disorder: ", file.to_string_lossy(), n + 2).into_bytes();
                msg.extend_from_slice(line);
                msg.push(b'\n');
                o.err(msg);
            }
            return Ok(o);
        }
    }
    Ok(Outcome::ok())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::path::PathBuf;

    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text};
    use crate::{FsError, Op};

    const UNSORTED: &[u8] = b"b\na\nc\na\nB\n10\n9\n100\n-1\n2.5\n1e3\n\nb\n";

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .dir("/s/d")
                .file("/s/u", UNSORTED)
                .file("/s/csv", b"name,age\nalice,30\nbob,25\ncarol,35\ndave,25\n")
                .file("/s/sizes", b"1K\n2M\n512\n1G\n3k\n")
                .file("/s/vers", b"v1.10\nv1.2\nv1.9\nv2.0\nv1.2.3\n")
                .file("/s/ws", b"b  2\na 10\n  c 1\n")
                .file("/s/months", b"mar x\nJan y\nfoo\nDEC z\n")
                .file("/s/g", b"1e3\n-inf\nnan\nabc\n0x10\n.5\n")
                .file("/s/s1", b"a\nc\ne\n")
                .file("/s/s2", b"b\nc\nd\n"),
        )
    }

    fn sort(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Sort, args))
    }

    fn out(s: &str) -> (String, String, i32) {
        (s.into(), String::new(), 0)
    }

    #[test]
    fn orderings_as_gnu() {
        // Every expected output copied from GNU sort 9.1 with LC_ALL=C on the same bytes.
        let w = world();
        assert_eq!(
            sort(&w, &["u"]),
            out("\n-1\n10\n100\n1e3\n2.5\n9\nB\na\na\nb\nb\nc\n")
        );
        assert_eq!(
            sort(&w, &["-n", "u"]),
            out("-1\n\nB\na\na\nb\nb\nc\n1e3\n2.5\n9\n10\n100\n")
        );
        assert_eq!(
            sort(&w, &["-rn", "u"]),
            out("100\n10\n9\n2.5\n1e3\nc\nb\nb\na\na\nB\n\n-1\n")
        );
        assert_eq!(
            sort(&w, &["-u", "u"]),
            out("\n-1\n10\n100\n1e3\n2.5\n9\nB\na\nb\nc\n")
        );
        assert_eq!(
            sort(&w, &["-f", "u"]),
            out("\n-1\n10\n100\n1e3\n2.5\n9\na\na\nB\nb\nb\nc\n")
        );
        assert_eq!(
            sort(&w, &["-fu", "u"]),
            out("\n-1\n10\n100\n1e3\n2.5\n9\na\nb\nc\n")
        );
        assert_eq!(
            sort(&w, &["-g", "u"]),
            out("\nB\na\na\nb\nb\nc\n-1\n2.5\n9\n10\n100\n1e3\n")
        );
        assert_eq!(
            sort(&w, &["-g", "g"]),
            out("abc\nnan\n-inf\n.5\n0x10\n1e3\n")
        );
        assert_eq!(sort(&w, &["-h", "sizes"]), out("512\n1K\n3k\n2M\n1G\n"));
        assert_eq!(
            sort(&w, &["-V", "vers"]),
            out("v1.2\nv1.2.3\nv1.9\nv1.10\nv2.0\n")
        );
        assert_eq!(
            sort(&w, &["-M", "months"]),
            out("foo\nJan y\nmar x\nDEC z\n")
        );
        assert_eq!(sort(&w, &["-d", "ws"]), out("  c 1\na 10\nb  2\n"));
        assert_eq!(sort(&w, &["-b", "ws"]), out("a 10\nb  2\n  c 1\n"));
    }

    #[test]
    fn keys_as_gnu() {
        let w = world();
        assert_eq!(
            sort(&w, &["-t", ",", "-k2n", "csv"]),
            out("name,age\nbob,25\ndave,25\nalice,30\ncarol,35\n")
        );
        assert_eq!(
            sort(&w, &["-t", ",", "-k2,2n", "-k1,1r", "csv"]),
            out("name,age\ndave,25\nbob,25\nalice,30\ncarol,35\n")
        );
        assert_eq!(
            sort(&w, &["-t,", "-k2,2nr", "-s", "csv"]),
            out("carol,35\nalice,30\nbob,25\ndave,25\nname,age\n")
        );
        assert_eq!(
            sort(&w, &["-t,", "-k1.2,1.2", "csv"]),
            out("carol,35\ndave,25\nname,age\nalice,30\nbob,25\n")
        );
        assert_eq!(sort(&w, &["-k2n", "ws"]), out("  c 1\nb  2\na 10\n"));
        assert_eq!(sort(&w, &["-k2", "ws"]), out("b  2\n  c 1\na 10\n"));
        assert_eq!(sort(&w, &["-k2b", "ws"]), out("  c 1\na 10\nb  2\n"));
        assert_eq!(
            sort(&w, &["-t,", "-k2,2", "-u", "csv"]),
            out("bob,25\nalice,30\ncarol,35\nname,age\n")
        );
    }

    #[test]
    fn merge_check_zero_output() {
        let w = world().stdin(b"z\0a\0");
        assert_eq!(sort(&w, &["-m", "s1", "s2"]), out("a\nb\nc\nc\nd\ne\n"));
        assert_eq!(sort(&w, &["-mu", "s1", "s2"]), out("a\nb\nc\nd\ne\n"));
        assert_eq!(sort(&w, &["-z"]).0, "a\0z\0");
        assert_eq!(
            sort(&w, &["-c", "u"]),
            (String::new(), "sort: u:2: disorder: a\n".into(), 1)
        );
        assert_eq!(sort(&w, &["-C", "u"]), (String::new(), String::new(), 1));
        assert_eq!(sort(&w, &["-c", "s1"]), out(""));
        let o = w.run(crate::CommandName::Sort, &["-o", "s1", "s2", "s1"]);
        assert_eq!(text(&o), out(""));
        assert_eq!(
            ops(&o),
            [Op::WriteFile {
                path: PathBuf::from("/s/s1"),
                data: b"a\nb\nc\nc\nd\ne\n".to_vec(),
                append: false
            }]
        );
        let e = o.effects().next().unwrap();
        assert_eq!(e.on_err.as_deref(), Some("sort: open failed: s1"));
        assert_eq!(e.fail_status, 2);
    }

    #[test]
    fn errors_as_gnu() {
        let w = world().stdin(b"1\n2\n2\n");
        let cases: &[(&[&str], &str)] = &[
            (
                &["nope", "u"],
                "sort: cannot read: nope: No such file or directory\n",
            ),
            (&["u", "d"], "sort: read failed: d: Is a directory\n"),
            (
                &["-k", "x"],
                "sort: invalid number at field start: invalid count at start of 'x'\n",
            ),
            (
                &["-k", "0"],
                "sort: field number is zero: invalid field specification '0'\n",
            ),
            (
                &["-k", "1.0"],
                "sort: character offset is zero: invalid field specification '1.0'\n",
            ),
            (
                &["-k", "1,x"],
                "sort: invalid number after ',': invalid count at start of 'x'\n",
            ),
            (
                &["-k", "1.1x"],
                "sort: stray character in field spec: invalid field specification '1.1x'\n",
            ),
            (
                &["-k", "1,0"],
                "sort: field number is zero: invalid field specification '1,0'\n",
            ),
            (
                &["-k", ""],
                "sort: invalid number at field start: invalid count at start of ''\n",
            ),
            (&["-t", "ab"], "sort: multi-character tab 'ab'\n"),
            (&["-t", ""], "sort: empty tab\n"),
            (&["-t", "a", "-t", "b"], "sort: incompatible tabs\n"),
            (
                &["-c", "u", "u"],
                "sort: extra operand 'u' not allowed with -c\n",
            ),
            (&["-co", "x", "u"], "sort: options '-co' are incompatible\n"),
            (&["-ng"], "sort: options '-gn' are incompatible\n"),
            (&["-k1n,1g"], "sort: options '-gn' are incompatible\n"),
            (&["-dn"], "sort: options '-dn' are incompatible\n"),
            (&["-Rn"], "sort: options '-nR' are incompatible\n"),
            (&["-Mn"], "sort: options '-Mn' are incompatible\n"),
            (
                &["-x"],
                "sort: invalid option -- 'x'\nTry 'sort --help' for more information.\n",
            ),
        ];
        for (args, err) in cases {
            assert_eq!(
                sort(&w, args),
                (String::new(), (*err).to_string(), 2),
                "{args:?}"
            );
        }
        assert_eq!(
            sort(&w, &["-cu"]),
            (String::new(), "sort: -:3: disorder: 2\n".into(), 1)
        );
        let w = World::new(
            MemFs::rooted("/s")
                .file("/s/big", b"x\n")
                .fail("/s/big", FsError::TooLarge),
        );
        assert_eq!(
            sort(&w, &["big"]).1,
            "sort: read failed: big: File too large\n"
        );
    }
}
