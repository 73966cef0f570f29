//! Sort keys: `-k POS1[,POS2]` and the ordering letters (`-bdfgiMhnRrV`), global or per
//! key, as GNU's `key_init`/`set_ordering`.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Which bytes a key skips (`-d`, `-i`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ignore {
    NonDictionary,
    NonPrinting,
}

/// One key, as GNU's `struct keyfield`. `usize::MAX` in `sword`/`eword` means "none".
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)]
pub(super) struct Key {
    pub(super) sword: usize,
    pub(super) schar: usize,
    pub(super) eword: usize,
    pub(super) echar: usize,
    pub(super) skipsblanks: bool,
    pub(super) skipeblanks: bool,
    pub(super) ignore: Option<Ignore>,
    pub(super) translate: bool,
    pub(super) numeric: bool,
    pub(super) general: bool,
    pub(super) human: bool,
    pub(super) month: bool,
    pub(super) version: bool,
    pub(super) random: bool,
    pub(super) reverse: bool,
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
    pub(super) fn is_default(&self) -> bool {
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

    pub(super) fn inherit(&mut self, g: &Key) {
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
    pub(super) fn opts(&self) -> String {
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

    pub(super) fn incompatible(&self) -> bool {
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
pub(super) enum Blanks {
    Start,
    End,
    Both,
}

/// GNU's `set_ordering`: applies flag letters, returns the rest of the spec.
pub(super) fn set_ordering<'a>(mut s: &'a [u8], key: &mut Key, blanks: Blanks) -> &'a [u8] {
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
pub(super) fn field_count<'a>(s: &'a [u8], what: &str) -> Result<(usize, &'a [u8]), String> {
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
pub(super) fn parse_key(spec: &[u8]) -> Result<Key, String> {
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
pub(super) fn blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n')
}
