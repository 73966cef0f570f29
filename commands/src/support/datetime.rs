//! Calendar arithmetic, the session's time zone, GNU's date-string parser (`date -d`,
//! `touch -d`) and GNU's `strftime` (`date +FORMAT`), without a time crate.
//!
//! Time zones: there is no time-zone database here. The session's exported `TZ` is read as a
//! POSIX zone string with a fixed offset (`UTC`, `UTC0`, `EST5`, `UTC-2`, `<+05>-5`,
//! `ABC-1:30:15`); a daylight-saving part (`EST5EDT`) is ignored, so summer dates keep the
//! standard offset. A named zone (`Europe/Paris`) cannot be looked up and is treated as UTC,
//! showing the leading letters of its name as the abbreviation (`Europe`): that is what glibc
//! does for a zone it cannot find, though with tzdata installed GNU would use the real zone.
//!
//! The parser covers the items of gnulib's `parse_datetime` that agents use: `@EPOCH[.frac]`,
//! ISO dates and times (`2024-02-29`, `2024-02-29T12:00:00Z`, `+05:30` offsets), `M/D[/Y]`,
//! `5 Jan 2024`, `Jan 5, 2024`, `YYYYMMDD`, `HHMM`, `3pm`, zone names (`UTC`, `EST`, `CEST`,
//! military letters), day names with ordinals (`next monday`), relative items (`2 days ago`,
//! `+3 hours`, `last week`, `yesterday`, `now`), following its grammar and its order of
//! evaluation (date, then day of week, then relative years/months/days, then the zone, then
//! relative hours/minutes/seconds).

use std::time::{Duration, SystemTime};

use crate::Ctx;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
/// Linear in `d`, so a day beyond the month's end rolls over as `mktime` does.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The (year, month, day) of a day count since 1970-01-01 (Hinnant's `civil_from_days`).
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

pub fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Seconds since the epoch of a local wall-clock time, or `None` if a field is out of range.
pub fn epoch(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64, offset: i64) -> Option<i64> {
    if !(1..=12).contains(&mo)
        || d < 1
        || d > days_in_month(y, mo)
        || !(0..=23).contains(&h)
        || !(0..=59).contains(&mi)
        || !(0..=60).contains(&s)
    {
        return None;
    }
    Some(days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s - offset)
}

/// A fixed-offset time zone: seconds east of UTC and the abbreviation `%Z` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone {
    pub offset: i64,
    pub abbr: String,
}

impl Zone {
    pub fn utc() -> Zone {
        Zone {
            offset: 0,
            abbr: "UTC".into(),
        }
    }
}

/// The session's time zone: the exported `TZ` (as the environment a real `date` would see),
/// UTC when unset or empty.
pub fn session_zone(ctx: &Ctx) -> Zone {
    match ctx.vars.var("TZ") {
        Some(v) if v.exported => v.value.as_deref().map_or_else(Zone::utc, parse_tz),
        _ => Zone::utc(),
    }
}

/// The session's UTC offset in seconds (see [`session_zone`]).
pub fn tz_offset(ctx: &Ctx) -> i64 {
    session_zone(ctx).offset
}

/// Parses a POSIX `TZ` value as glibc does when it has no zone file for it: a name of at
/// least three letters (or `<...>`), then an offset `[+-]hh[:mm[:ss]]` west of UTC. An
/// invalid name gives UTC with an empty abbreviation; a missing offset gives offset 0.
pub fn parse_tz(tz: &str) -> Zone {
    let tz = tz.strip_prefix(':').unwrap_or(tz);
    if tz.is_empty() || tz == "UTC" || tz == "UTC0" {
        return Zone::utc();
    }
    let (name, rest) = if let Some(q) = tz.strip_prefix('<') {
        match q.split_once('>') {
            Some((n, r)) => (n, r),
            None => ("", ""),
        }
    } else {
        let end = tz
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(tz.len());
        tz.split_at(end)
    };
    if name.len() < 3 {
        return Zone {
            offset: 0,
            abbr: String::new(),
        };
    }
    let (sign, digits) = match rest.as_bytes().first() {
        Some(b'-') => (1, rest.get(1..).unwrap_or("")),
        Some(b'+') => (-1, rest.get(1..).unwrap_or("")),
        _ => (-1, rest),
    };
    let mut secs = 0;
    let mut fields = digits.splitn(3, ':');
    for (unit, cap) in [(3600, 24), (60, 59), (1, 59)] {
        let Some(f) = fields.next() else { break };
        let n: String = f.chars().take_while(char::is_ascii_digit).collect();
        let Ok(v) = n.parse::<i64>() else { break };
        secs += v.min(cap) * unit;
        if n.len() != f.len() {
            break;
        }
    }
    Zone {
        offset: sign * secs,
        abbr: name.to_string(),
    }
}

/// A `SystemTime` as (seconds, nanoseconds) since the epoch, nanoseconds in `0..1e9`.
pub fn to_epoch(t: SystemTime) -> (i64, u32) {
    match t.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(d) => (
            i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            d.subsec_nanos(),
        ),
        Err(e) => {
            let d = e.duration();
            let secs = i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
            match d.subsec_nanos() {
                0 => (-secs, 0),
                n => (-secs - 1, 1_000_000_000 - n),
            }
        }
    }
}

pub fn from_epoch(secs: i64, nanos: u32) -> SystemTime {
    let base = if secs >= 0 {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs.unsigned_abs())
    } else {
        SystemTime::UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs())
    };
    base + Duration::from_nanos(u64::from(nanos))
}

fn num(s: &str) -> Option<i64> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// A broken-down local time, as `struct tm`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tm {
    pub year: i64,
    /// 1..=12
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub min: i64,
    pub sec: i64,
    pub nsec: u32,
    /// 0 = Sunday
    pub wday: i64,
    /// 0-based day of the year
    pub yday: i64,
    /// Seconds since the epoch (for `%s`).
    pub epoch: i64,
    pub zone: Zone,
}

/// `localtime` in a fixed-offset zone.
pub fn broken_down(secs: i64, nsec: u32, zone: &Zone) -> Tm {
    let local = secs.saturating_add(zone.offset);
    let days = local.div_euclid(86_400);
    let rem = local.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    Tm {
        year: y,
        month: m,
        day: d,
        hour: rem / 3600,
        min: rem / 60 % 60,
        sec: rem % 60,
        nsec,
        wday: (days + 4).rem_euclid(7),
        yday: days - days_from_civil(y, 1, 1),
        epoch: secs,
        zone: zone.clone(),
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing (gnulib parse_datetime).

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// A number: value, digit count, sign (`0` unsigned), and nanoseconds of a fraction.
    Num {
        v: i64,
        digits: usize,
        sign: i8,
        frac: Option<u32>,
    },
    Word(String),
    Ch(u8),
}

/// Nanoseconds of a fraction's digits (`5` → 500000000), extra digits truncated.
fn frac_nanos(digits: &str) -> u32 {
    let mut n: u32 = 0;
    for (i, b) in digits
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(9)
        .enumerate()
    {
        let _ = i;
        n = n * 10 + u32::from(b - b'0');
    }
    n
}

#[allow(clippy::many_single_char_names)] // GNU's yylex, one letter per cursor
fn lex(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || c == b'+' || c == b'-' {
            let mut j = i;
            let mut sign = 0i8;
            if c == b'+' || c == b'-' {
                j += 1;
                while b.get(j).is_some_and(u8::is_ascii_whitespace) {
                    j += 1;
                }
                if !b.get(j).is_some_and(u8::is_ascii_digit) {
                    // gnulib skips a sign that no digit follows (`5-jan-2024`).
                    i = j;
                    continue;
                }
                sign = if c == b'-' { -1 } else { 1 };
            }
            let start = j;
            while b.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
            let digits = s.get(start..j)?;
            let v: i64 = digits.parse().ok()?;
            let mut frac = None;
            if matches!(b.get(j), Some(b'.' | b',')) && b.get(j + 1).is_some_and(u8::is_ascii_digit)
            {
                let fs = j + 1;
                j = fs;
                while b.get(j).is_some_and(u8::is_ascii_digit) {
                    j += 1;
                }
                frac = Some(frac_nanos(s.get(fs..j)?));
            }
            out.push(Tok::Num {
                v,
                digits: digits.len(),
                sign,
                frac,
            });
            i = j;
            continue;
        }
        if c.is_ascii_alphabetic() {
            let mut j = i;
            let mut w = String::new();
            while let Some(&d) = b.get(j) {
                if d.is_ascii_alphabetic() {
                    w.push(char::from(d.to_ascii_lowercase()));
                } else if d != b'.' {
                    break;
                } else {
                    w.push('.');
                }
                j += 1;
            }
            out.push(Tok::Word(w));
            i = j;
            continue;
        }
        if c == b'(' {
            let mut depth = 0;
            while let Some(&d) = b.get(i) {
                i += 1;
                if d == b'(' {
                    depth += 1;
                } else if d == b')' {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
            continue;
        }
        if c >= 0x80 {
            return None;
        }
        out.push(Tok::Ch(c));
        i += 1;
    }
    Some(out)
}

/// What a word means (gnulib's `lookup_word`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Word {
    Meridian(i64),
    Month(i64),
    Day(i64),
    /// A zone name: offset in seconds; `true` if it is a daylight-saving name.
    Zone(i64),
    Dst,
    /// A relative unit in seconds (`0`, months: `-1`, years: `-12`).
    Unit(Unit),
    /// `today`, `yesterday`, `tomorrow`, `now`: days.
    DayShift(i64),
    Ordinal(i64),
    Ago(i64),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Unit {
    Year,
    Month,
    Day(i64),
    Seconds(i64),
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const DAYS: [&str; 7] = [
    "sunday",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
];

/// gnulib's zone table (hours east of UTC; daylight names include their hour).
const ZONES: &[(&str, i64)] = &[
    ("gmt", 0),
    ("ut", 0),
    ("utc", 0),
    ("wet", 0),
    ("west", 60),
    ("bst", 60),
    ("art", -180),
    ("brt", -180),
    ("brst", -120),
    ("nst", -210),
    ("ndt", -150),
    ("ast", -240),
    ("adt", -180),
    ("clt", -240),
    ("clst", -180),
    ("est", -300),
    ("edt", -240),
    ("cst", -360),
    ("cdt", -300),
    ("mst", -420),
    ("mdt", -360),
    ("pst", -480),
    ("pdt", -420),
    ("akst", -540),
    ("akdt", -480),
    ("hst", -600),
    ("hast", -600),
    ("hadt", -540),
    ("sst", -720),
    ("wat", 60),
    ("cet", 60),
    ("cest", 120),
    ("met", 60),
    ("mez", 60),
    ("mesz", 120),
    ("eet", 120),
    ("eest", 180),
    ("cat", 120),
    ("sast", 120),
    ("eat", 180),
    ("msk", 180),
    ("msd", 240),
    ("ist", 330),
    ("sgt", 480),
    ("kst", 540),
    ("jst", 540),
    ("gst", 600),
    ("nzst", 720),
    ("nzdt", 780),
];

fn lookup_word(w: &str) -> Option<Word> {
    match w {
        "am" | "a.m." => return Some(Word::Meridian(0)),
        "pm" | "p.m." => return Some(Word::Meridian(12)),
        _ => {}
    }
    let abbrev = w.len() == 3 || (w.len() == 4 && w.ends_with('.'));
    let stem = w.get(..3).unwrap_or(w);
    for (i, m) in (1..).zip(MONTHS) {
        if (abbrev && m.starts_with(stem)) || w == m || (i == 9 && w == "sept") {
            return Some(Word::Month(i));
        }
    }
    for (i, d) in (0..).zip(DAYS) {
        let extra = matches!((i, w), (2, "tues") | (3, "wednes") | (4, "thur" | "thurs"));
        if (abbrev && d.starts_with(stem)) || w == d || extra {
            return Some(Word::Day(i));
        }
    }
    if let Some(z) = lookup_zone(w) {
        return Some(z);
    }
    if w == "dst" {
        return Some(Word::Dst);
    }
    let unit = |u: &str| match u {
        "year" => Some(Unit::Year),
        "month" => Some(Unit::Month),
        "fortnight" => Some(Unit::Day(14)),
        "week" => Some(Unit::Day(7)),
        "day" => Some(Unit::Day(1)),
        "hour" => Some(Unit::Seconds(3600)),
        "minute" | "min" => Some(Unit::Seconds(60)),
        "second" | "sec" => Some(Unit::Seconds(1)),
        _ => None,
    };
    if let Some(u) = unit(w).or_else(|| w.strip_suffix('s').and_then(unit)) {
        return Some(Word::Unit(u));
    }
    let rel = match w {
        "tomorrow" => Word::DayShift(1),
        "yesterday" => Word::DayShift(-1),
        "today" | "now" => Word::DayShift(0),
        "last" => Word::Ordinal(-1),
        "this" => Word::Ordinal(0),
        "next" | "first" => Word::Ordinal(1),
        "third" => Word::Ordinal(3),
        "fourth" => Word::Ordinal(4),
        "fifth" => Word::Ordinal(5),
        "sixth" => Word::Ordinal(6),
        "seventh" => Word::Ordinal(7),
        "eighth" => Word::Ordinal(8),
        "ninth" => Word::Ordinal(9),
        "tenth" => Word::Ordinal(10),
        "eleventh" => Word::Ordinal(11),
        "twelfth" => Word::Ordinal(12),
        "ago" => Word::Ago(-1),
        "hence" => Word::Ago(1),
        _ => {
            // Military zones: one letter, `j` excepted.
            let b = w.as_bytes();
            if let [c] = b {
                let h = match c {
                    b'a'..=b'i' => i64::from(c - b'a') + 1,
                    b'k'..=b'm' => i64::from(c - b'k') + 10,
                    b'n'..=b'y' => -(i64::from(c - b'n') + 1),
                    b'z' => 0,
                    _ => return None,
                };
                return Some(Word::Zone(h * 3600));
            }
            let stripped: String = w.chars().filter(|&c| c != '.').collect();
            return if stripped.len() == w.len() {
                None
            } else {
                lookup_zone(&stripped)
            };
        }
    };
    Some(rel)
}

fn lookup_zone(w: &str) -> Option<Word> {
    ZONES
        .iter()
        .find(|z| z.0 == w)
        .map(|z| Word::Zone(z.1 * 60))
}

/// Everything the items of a date string set (gnulib's `parser_control`).
#[derive(Debug, Default)]
struct Parsed {
    year: Option<(i64, usize)>,
    month: i64,
    day: i64,
    hour: i64,
    min: i64,
    sec: i64,
    nsec: u32,
    meridian: Option<i64>,
    zone: i64,
    dst: bool,
    day_ordinal: i64,
    day_number: i64,
    rel_year: i64,
    rel_month: i64,
    rel_day: i64,
    rel_sec: i64,
    rel_nsec: i64,
    times: u32,
    dates: u32,
    days: u32,
    zones: u32,
    rels: bool,
}

struct Cursor<'a> {
    toks: &'a [Tok],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i)
    }
    fn peek2(&self) -> Option<&Tok> {
        self.toks.get(self.i + 1)
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.i).cloned();
        self.i += 1;
        t
    }
    fn word(&self) -> Option<Word> {
        match self.peek() {
            Some(Tok::Word(w)) => lookup_word(w),
            _ => None,
        }
    }
    fn eat_ch(&mut self, c: u8) -> bool {
        if self.peek() == Some(&Tok::Ch(c)) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    /// An unsigned integer without fraction.
    fn unumber(&mut self) -> Option<(i64, usize)> {
        match self.peek() {
            Some(&Tok::Num {
                v,
                digits,
                sign: 0,
                frac: None,
            }) => {
                self.i += 1;
                Some((v, digits))
            }
            _ => None,
        }
    }
    fn snumber(&mut self) -> Option<(i64, usize)> {
        match self.peek() {
            Some(&Tok::Num {
                v,
                digits,
                sign,
                frac: None,
            }) if sign != 0 => {
                self.i += 1;
                Some((v * i64::from(sign), digits))
            }
            _ => None,
        }
    }
}

impl Parsed {
    fn rel(&mut self, unit: Unit, n: i64, nsec: i64) {
        self.rels = true;
        match unit {
            Unit::Year => self.rel_year += n,
            Unit::Month => self.rel_month += n,
            Unit::Day(d) => self.rel_day += n * d,
            Unit::Seconds(s) => {
                self.rel_sec += n * s;
                self.rel_nsec += nsec;
            }
        }
    }

    /// `+hh`, `+hhmm`, `+hh:mm` after a time or a zone name.
    fn zone_offset(c: &mut Cursor, (v, digits): (i64, usize)) -> Option<i64> {
        let neg = v < 0;
        let a = v.abs();
        let secs = if c.eat_ch(b':') {
            let (m, _) = c.unumber()?;
            a * 3600 + m * 60
        } else if digits <= 2 {
            a * 3600
        } else {
            (a / 100) * 3600 + (a % 100) * 60
        };
        if secs > 24 * 3600 {
            return None;
        }
        Some(if neg { -secs } else { secs })
    }

    /// After `h:m`: `[:s[.frac]] [am|pm] [+hh[:mm]]`.
    fn time_rest(&mut self, c: &mut Cursor, h: i64, m: i64) -> Option<()> {
        self.hour = h;
        self.min = m;
        self.sec = 0;
        self.nsec = 0;
        if c.eat_ch(b':') {
            match c.next()? {
                Tok::Num {
                    v, sign: 0, frac, ..
                } => {
                    self.sec = v;
                    self.nsec = frac.unwrap_or(0);
                }
                _ => return None,
            }
        }
        self.meridian = None;
        if let Some(Word::Meridian(mer)) = c.word() {
            c.i += 1;
            self.meridian = Some(mer);
        } else if let Some(n) = c.snumber() {
            self.zone = Self::zone_offset(c, n)?;
            self.zones += 1;
        }
        self.times += 1;
        Some(())
    }

    /// One item at the cursor.
    #[allow(clippy::too_many_lines)] // one arm per production of gnulib's grammar
    fn item(&mut self, c: &mut Cursor) -> Option<()> {
        let tok = c.peek()?.clone();
        match tok {
            Tok::Ch(b',') => {
                c.i += 1;
            }
            Tok::Num {
                v,
                digits,
                sign: 0,
                frac: None,
            } => {
                c.i += 1;
                match (c.peek(), c.word()) {
                    (Some(Tok::Ch(b':')), _) => {
                        c.i += 1;
                        let (m, _) = c.unumber()?;
                        self.time_rest(c, v, m)?;
                    }
                    (Some(Tok::Ch(b'/')), _) => {
                        c.i += 1;
                        let (b, _) = c.unumber()?;
                        if c.eat_ch(b'/') {
                            let (d, dd) = c.unumber()?;
                            if digits >= 4 {
                                self.year = Some((v, digits));
                                self.month = b;
                                self.day = d;
                            } else {
                                self.month = v;
                                self.day = b;
                                self.year = Some((d, dd));
                            }
                        } else {
                            self.month = v;
                            self.day = b;
                        }
                        self.dates += 1;
                    }
                    (Some(Tok::Num { sign, .. }), _) if *sign != 0 => {
                        // `2024-01-10`: the sign is part of the date; anything else with a
                        // signed number after a plain one is a relative item (`5 -1 day`).
                        let save = c.i;
                        if let (Some((m, _)), Some((d, _))) = (c.snumber(), c.snumber()) {
                            self.year = Some((v, digits));
                            self.month = -m;
                            self.day = -d;
                            self.dates += 1;
                            // `2024-01-10T10:00`
                            if matches!(c.peek(), Some(Tok::Word(w)) if w == "t")
                                && matches!(c.peek2(), Some(Tok::Num { sign: 0, .. }))
                            {
                                c.i += 1;
                            }
                        } else {
                            c.i = save;
                            self.number(v, digits);
                        }
                    }
                    (_, Some(Word::Meridian(mer))) => {
                        c.i += 1;
                        self.hour = v;
                        self.min = 0;
                        self.sec = 0;
                        self.nsec = 0;
                        self.meridian = Some(mer);
                        self.times += 1;
                    }
                    (_, Some(Word::Month(m))) => {
                        c.i += 1;
                        self.day = v;
                        self.month = m;
                        if let Some((y, yd)) = c.snumber() {
                            self.year = Some((-y, yd));
                        } else if let Some((y, yd)) = c.unumber() {
                            self.year = Some((y, yd));
                        }
                        self.dates += 1;
                    }
                    (_, Some(Word::Unit(u))) => {
                        c.i += 1;
                        self.rel_with_ago(c, u, v, 0);
                    }
                    (_, Some(Word::Day(d))) => {
                        c.i += 1;
                        self.day_ordinal = v;
                        self.day_number = d;
                        self.days += 1;
                        c.eat_ch(b',');
                    }
                    _ => self.number(v, digits),
                }
            }
            Tok::Num { v, sign, frac, .. } => {
                c.i += 1;
                let n = v * i64::from(if sign == 0 { 1 } else { sign });
                match c.word() {
                    Some(Word::Unit(u)) if frac.is_none() => {
                        c.i += 1;
                        self.rel_with_ago(c, u, n, 0);
                    }
                    Some(Word::Unit(u @ Unit::Seconds(1))) => {
                        c.i += 1;
                        let ns = i64::from(frac.unwrap_or(0)) * i64::from(sign.min(0) * 2 + 1);
                        self.rel_with_ago(c, u, n, ns);
                    }
                    _ => return None,
                }
            }
            Tok::Word(_) => {
                let w = c.word()?;
                c.i += 1;
                match w {
                    Word::Month(m) => {
                        self.month = m;
                        if let Some((d, _)) = c.snumber() {
                            self.day = -d;
                            let (y, yd) = c.snumber()?;
                            self.year = Some((-y, yd));
                        } else {
                            let (d, _) = c.unumber()?;
                            self.day = d;
                            if c.peek() == Some(&Tok::Ch(b',')) {
                                c.i += 1;
                                self.year = Some(c.unumber()?);
                            }
                        }
                        self.dates += 1;
                    }
                    Word::Day(d) => {
                        self.day_ordinal = 0;
                        self.day_number = d;
                        self.days += 1;
                        c.eat_ch(b',');
                    }
                    Word::Ordinal(n) => match c.word()? {
                        Word::Unit(u) => {
                            c.i += 1;
                            self.rel_with_ago(c, u, n, 0);
                        }
                        Word::Day(d) => {
                            c.i += 1;
                            self.day_ordinal = n;
                            self.day_number = d;
                            self.days += 1;
                        }
                        _ => return None,
                    },
                    Word::Unit(u) => self.rel_with_ago(c, u, 1, 0),
                    Word::DayShift(n) => self.rel(Unit::Day(1), n, 0),
                    Word::Zone(off) => {
                        self.zone = off;
                        self.zones += 1;
                        if c.word() == Some(Word::Dst) {
                            c.i += 1;
                            self.dst = true;
                        } else if let Some(n) = c.snumber() {
                            self.zone += Self::zone_offset(c, n)?;
                        }
                    }
                    Word::Meridian(_) | Word::Dst | Word::Ago(_) => return None,
                }
            }
            Tok::Ch(_) => return None,
        }
        Some(())
    }

    fn rel_with_ago(&mut self, c: &mut Cursor, u: Unit, n: i64, nsec: i64) {
        let mul = match c.word() {
            Some(Word::Ago(m)) => {
                c.i += 1;
                m
            }
            _ => 1,
        };
        self.rel(u, n * mul, nsec * mul);
    }

    /// A lone number (gnulib's `number` rule): a year after a date, `YYYYMMDD`, or `HHMM`.
    fn number(&mut self, v: i64, digits: usize) {
        if self.dates > 0 && self.year.is_none() && !self.rels && (self.times > 0 || digits > 2) {
            self.year = Some((v, digits));
        } else if digits > 4 {
            self.dates += 1;
            self.day = v % 100;
            self.month = v / 100 % 100;
            self.year = Some((v / 10_000, digits - 4));
        } else {
            self.times += 1;
            if digits <= 2 {
                self.hour = v;
                self.min = 0;
            } else {
                self.hour = v / 100;
                self.min = v % 100;
            }
            self.sec = 0;
            self.nsec = 0;
            self.meridian = None;
        }
    }
}

/// `@SECONDS[.FRACTION]`, the whole string.
fn parse_at(rest: &str) -> Option<(i64, u32)> {
    let rest = rest.trim();
    let (neg, digits) = match rest.as_bytes().first() {
        Some(b'-') => (true, rest.get(1..)?),
        Some(b'+') => (false, rest.get(1..)?),
        _ => (false, rest),
    };
    let (int, frac) = match digits.find(['.', ',']) {
        Some(p) => (digits.get(..p)?, digits.get(p + 1..)?),
        None => (digits, ""),
    };
    let secs = if int.is_empty() && !frac.is_empty() {
        0
    } else {
        num(int)?
    };
    let nanos = if frac.is_empty() {
        0
    } else {
        num(frac)?;
        frac_nanos(frac)
    };
    Some(if !neg {
        (secs, nanos)
    } else if nanos == 0 {
        (-secs, 0)
    } else {
        (-secs - 1, 1_000_000_000 - nanos)
    })
}

/// Parses a date string as GNU `date -d` does, relative to `now` in `zone`. `None` is
/// GNU's `invalid date`.
#[allow(clippy::many_single_char_names, clippy::similar_names)] // y, mo, d, h: the fields
pub fn parse_datetime(s: &str, now: SystemTime, zone: &Zone) -> Option<(i64, u32)> {
    let t = s.trim_start();
    if let Some(rest) = t.strip_prefix('@') {
        return parse_at(rest);
    }
    let toks = lex(t)?;
    let mut p = Parsed::default();
    let mut c = Cursor { toks: &toks, i: 0 };
    while c.peek().is_some() {
        p.item(&mut c)?;
    }
    if p.times > 1 || p.dates > 1 || p.days > 1 || p.zones > 1 {
        return None;
    }
    let (now_s, now_ns) = to_epoch(now);
    let tm = broken_down(now_s, now_ns, zone);
    let (mut y, mut mo, mut d) = (tm.year, tm.month, tm.day);
    if p.dates > 0 {
        mo = p.month;
        d = p.day;
        if let Some((yv, yd)) = p.year {
            y = match (yd, yv) {
                (2, v) if v < 69 => v + 2000,
                (2, v) => v + 1900,
                (_, v) => v,
            };
        }
    }
    let (h, mi, sec, ns) = if p.times > 0 {
        let h = match p.meridian {
            None if (0..=23).contains(&p.hour) => p.hour,
            Some(mer) if (1..=12).contains(&p.hour) => p.hour % 12 + mer,
            _ => return None,
        };
        (h, p.min, p.sec, p.nsec)
    } else if p.rels && p.dates == 0 && p.days == 0 {
        (tm.hour, tm.min, tm.sec, tm.nsec)
    } else {
        (0, 0, 0, 0)
    };
    if !(1..=12).contains(&mo)
        || d < 1
        || d > days_in_month(y, mo)
        || !(0..=59).contains(&mi)
        || !(0..=59).contains(&sec)
    {
        return None;
    }
    let mut days = days_from_civil(y, mo, d);
    if p.days > 0 && p.dates == 0 {
        let wday = (days + 4).rem_euclid(7);
        let ord = p.day_ordinal;
        days += (ord - i64::from(0 < ord && wday != p.day_number)) * 7
            + (p.day_number - wday + 7).rem_euclid(7);
    }
    if p.rel_year != 0 || p.rel_month != 0 || p.rel_day != 0 {
        let (by, bm, bd) = civil_from_days(days);
        let months = by * 12 + (bm - 1) + p.rel_year * 12 + p.rel_month;
        days = days_from_civil(
            months.div_euclid(12),
            months.rem_euclid(12) + 1,
            bd + p.rel_day,
        );
    }
    let offset = if p.zones > 0 {
        p.zone + if p.dst { 3600 } else { 0 }
    } else {
        zone.offset
    };
    let mut secs = days
        .checked_mul(86_400)?
        .checked_add(h * 3600 + mi * 60 + sec - offset)?
        .checked_add(p.rel_sec)?;
    let mut nsec = i64::from(ns) + p.rel_nsec;
    secs += nsec.div_euclid(1_000_000_000);
    nsec = nsec.rem_euclid(1_000_000_000);
    Some((secs, u32::try_from(nsec).ok()?))
}

/// [`parse_datetime`] as a `SystemTime` (for `touch -d`).
pub fn parse_date(s: &str, now: SystemTime, offset: i64) -> Option<SystemTime> {
    let zone = Zone {
        offset,
        abbr: String::new(),
    };
    parse_datetime(s, now, &zone).map(|(s, n)| from_epoch(s, n))
}

/// Parses `[[CC]YY]MMDDhhmm[.ss]` (`touch -t`, and `date MMDDhhmm[[CC]YY][.ss]` reordered by
/// the caller).
pub fn parse_stamp(s: &str, now: SystemTime, offset: i64) -> Option<SystemTime> {
    let (main, secs) = match s.split_once('.') {
        Some((m, ss)) if ss.len() == 2 => (m, num(ss)?),
        Some(_) => return None,
        None => (s, 0),
    };
    num(main)?;
    let field = |i: usize| main.get(i..i + 2).and_then(num);
    let now_year = {
        let (secs, _) = to_epoch(now);
        civil_from_days((secs + offset).div_euclid(86_400)).0
    };
    let (year, rest) = match main.len() {
        8 => (now_year, 0),
        10 => {
            let yy = field(0)?;
            (if yy >= 69 { 1900 + yy } else { 2000 + yy }, 2)
        }
        12 => (field(0)? * 100 + field(2)?, 4),
        _ => return None,
    };
    let (mo, d, h, mi) = (
        field(rest)?,
        field(rest + 2)?,
        field(rest + 4)?,
        field(rest + 6)?,
    );
    Some(from_epoch(epoch(year, mo, d, h, mi, secs, offset)?, 0))
}

// ---------------------------------------------------------------------------------------------
// Formatting (gnulib nstrftime, C locale).

const DAY_ABBR: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MON_ABBR: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

fn title(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// Days from the first day of ISO week 1 to `yday` (gnulib's `iso_week_days`).
fn iso_week_days(yday: i64, wday: i64) -> i64 {
    let big = (366 / 7 + 2) * 7;
    yday - (yday - wday + 4 + big) % 7 + 3
}

/// The digits of a zone offset with colons where `mask` says (gnulib's `tz_colon_mask`: bit
/// `i` puts a colon before the `i`th digit from the right).
fn tz_digits(mut v: u64, mut mask: u32) -> String {
    let mut rev = Vec::new();
    loop {
        if mask & 1 != 0 {
            rev.push(':');
        }
        mask >>= 1;
        rev.push(char::from(b'0' + u8::try_from(v % 10).unwrap_or(0)));
        v /= 10;
        if v == 0 && mask == 0 {
            break;
        }
    }
    rev.iter().rev().collect()
}

/// Appends `s` padded on the left to `width` (`-` pad: none; `0`/`+`: zeros; else spaces).
fn pad_to(out: &mut Vec<u8>, s: &[u8], width: i64, pad: u8) {
    if pad != b'-' {
        let short = usize::try_from(width).unwrap_or(0).saturating_sub(s.len());
        let fill = if pad == b'0' || pad == b'+' {
            b'0'
        } else {
            b' '
        };
        out.extend(std::iter::repeat_n(fill, short.min(1 << 16)));
    }
    out.extend_from_slice(s);
}

/// A number as gnulib's `do_number_sign_and_padding` writes it.
fn put_number(
    out: &mut Vec<u8>,
    digits_s: &str,
    negative: bool,
    always_sign: bool,
    width: i64,
    digits: i64,
    pad: u8,
) {
    let pad = if pad == 0 { b'0' } else { pad };
    let mut width = if width < 0 { digits } else { width };
    let sign = if negative {
        Some(b'-')
    } else if always_sign {
        Some(b'+')
    } else {
        None
    };
    let numlen = i64::try_from(digits_s.len()).unwrap_or(0);
    if let Some(sc) = sign {
        let shortage = width - 1 - numlen;
        let padding = if pad == b'-' || shortage <= 0 {
            0
        } else {
            shortage
        };
        if pad == b'_' {
            out.extend(std::iter::repeat_n(
                b' ',
                usize::try_from(padding).unwrap_or(0).min(1 << 16),
            ));
            width -= padding;
        }
        out.push(sc);
        width -= 1;
    }
    pad_to(out, digits_s.as_bytes(), width, pad);
}

fn apply_case(s: &str, up: bool, low: bool) -> String {
    if low {
        s.to_ascii_lowercase()
    } else if up {
        s.to_ascii_uppercase()
    } else {
        s.to_string()
    }
}

/// GNU `date +FORMAT`: gnulib's `fprintftime` in the C locale.
pub fn strftime(fmt: &[u8], tm: &Tm) -> Vec<u8> {
    let mut out = Vec::new();
    format_into(&mut out, fmt, tm, false, 0, -1);
    out
}

#[allow(
    clippy::too_many_lines,
    clippy::cognitive_complexity,
    clippy::many_single_char_names
)] // one arm per conversion; h, m, s as in gnulib
fn format_into(out: &mut Vec<u8>, fmt: &[u8], tm: &Tm, upcase: bool, yr_spec: u8, width0: i64) {
    let mut width = width0;
    let mut i = 0;
    let hour12 = match tm.hour {
        0 => 12,
        h if h > 12 => h - 12,
        h => h,
    };
    while i < fmt.len() {
        let Some(&c) = fmt.get(i) else { break };
        if c != b'%' {
            pad_to(out, &[c], width, 0);
            width = -1;
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut pad = 0u8;
        let mut up = upcase;
        let mut change_case = false;
        while let Some(&f) = fmt.get(i) {
            match f {
                b'_' | b'-' | b'+' | b'0' => pad = f,
                b'^' => up = true,
                b'#' => change_case = true,
                _ => break,
            }
            i += 1;
        }
        if fmt.get(i).is_some_and(u8::is_ascii_digit) {
            width = 0;
            while let Some(&d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                width = (width * 10 + i64::from(d - b'0')).min(i64::from(i32::MAX));
                i += 1;
            }
        }
        let mut modifier = 0u8;
        if let Some(&m @ (b'E' | b'O')) = fmt.get(i) {
            modifier = m;
            i += 1;
        }
        let conv = fmt.get(i).copied();
        let mut low = false;
        // Numbers: (digits, value, yearish).
        let mut number: Option<(i64, i64, bool)> = None;
        let mut text: Option<String> = None;
        let mut sub: Option<(&[u8], i64)> = None;
        let mut bad = false;
        let mut negative = false;
        match conv {
            Some(b'%') => bad = modifier != 0,
            Some(b'a' | b'A') => {
                if change_case {
                    up = true;
                }
                let name = DAYS
                    .get(usize::try_from(tm.wday).unwrap_or(0))
                    .copied()
                    .unwrap_or("?");
                text = Some(if conv == Some(b'a') {
                    DAY_ABBR
                        .get(usize::try_from(tm.wday).unwrap_or(0))
                        .copied()
                        .unwrap_or("?")
                        .to_string()
                } else {
                    title(name)
                });
                bad = modifier != 0;
            }
            Some(b'b' | b'h' | b'B') => {
                if change_case {
                    up = true;
                }
                let idx = usize::try_from(tm.month - 1).unwrap_or(0);
                text = Some(if conv == Some(b'B') {
                    title(MONTHS.get(idx).copied().unwrap_or("?"))
                } else {
                    MON_ABBR.get(idx).copied().unwrap_or("?").to_string()
                });
                bad = modifier == b'E';
            }
            Some(b'c') => {
                sub = Some((b"%a %b %e %H:%M:%S %Y", -1));
                bad = modifier == b'O';
            }
            Some(b'x') => {
                sub = Some((b"%m/%d/%y", -1));
                bad = modifier == b'O';
            }
            Some(b'X') => {
                sub = Some((b"%H:%M:%S", -1));
                bad = modifier == b'O';
            }
            Some(b'D') => {
                sub = Some((b"%m/%d/%y", -1));
                bad = modifier != 0;
            }
            Some(b'R') => sub = Some((b"%H:%M", -1)),
            Some(b'r') => sub = Some((b"%I:%M:%S %p", -1)),
            Some(b'T') => sub = Some((b"%H:%M:%S", -1)),
            Some(b'F') => {
                let sw = if pad == 0 && width < 0 {
                    pad = b'+';
                    4
                } else {
                    (width - 6).max(0)
                };
                sub = Some((b"%Y-%m-%d", sw));
                bad = modifier != 0;
            }
            Some(b'C') => {
                let ty = tm.year - 1900;
                let mut century = ty / 100 + 19;
                if ty % 100 < 0 && 0 < century {
                    century -= 1;
                }
                number = Some((2, century.abs(), true));
                negative = tm.year < 0;
            }
            Some(b'd') => number = Some((2, tm.day, false)),
            Some(b'e') => {
                if pad == 0 {
                    pad = b'_';
                }
                number = Some((2, tm.day, false));
            }
            Some(b'H') => number = Some((2, tm.hour, false)),
            Some(b'I') => number = Some((2, hour12, false)),
            Some(b'k') => {
                if pad == 0 {
                    pad = b'_';
                }
                number = Some((2, tm.hour, false));
            }
            Some(b'l') => {
                if pad == 0 {
                    pad = b'_';
                }
                number = Some((2, hour12, false));
            }
            Some(b'j') => number = Some((3, tm.yday + 1, false)),
            Some(b'M') => number = Some((2, tm.min, false)),
            Some(b'm') => number = Some((2, tm.month, false)),
            Some(b'q') => number = Some((1, (tm.month - 1) / 3 + 1, false)),
            Some(b'S') => number = Some((2, tm.sec, false)),
            Some(b'u') => number = Some((1, (tm.wday + 6) % 7 + 1, false)),
            Some(b'w') => number = Some((1, tm.wday, false)),
            Some(b'U') => number = Some((2, (tm.yday - tm.wday + 7) / 7, false)),
            Some(b'W') => number = Some((2, (tm.yday - (tm.wday + 6) % 7 + 7) / 7, false)),
            Some(b'V' | b'G' | b'g') => {
                let mut adjust = 0;
                let mut days = iso_week_days(tm.yday, tm.wday);
                if days < 0 {
                    adjust = -1;
                    let prev = if is_leap(tm.year - 1) { 366 } else { 365 };
                    days = iso_week_days(tm.yday + prev, tm.wday);
                } else {
                    let len = if is_leap(tm.year) { 366 } else { 365 };
                    let d = iso_week_days(tm.yday - len, tm.wday);
                    if d >= 0 {
                        adjust = 1;
                        days = d;
                    }
                }
                let y = tm.year + adjust;
                let ty = tm.year - 1900;
                let yy = (ty % 100 + adjust) % 100;
                let yy = if yy >= 0 {
                    yy
                } else if ty < -1900 - adjust {
                    -yy
                } else {
                    yy + 100
                };
                number = Some(match conv {
                    Some(b'V') => (2, days / 7 + 1, false),
                    Some(b'G') => (4, y.abs(), true),
                    _ => (2, yy, true),
                });
                negative = conv == Some(b'G') && y < 0;
            }
            Some(b'Y') => {
                number = Some((4, tm.year.abs(), true));
                negative = tm.year < 0;
                bad = modifier == b'O';
            }
            Some(b'y') => {
                let ty = tm.year - 1900;
                let mut yy = ty % 100;
                if yy < 0 {
                    yy = if tm.year < 0 { -yy } else { yy + 100 };
                }
                number = Some((2, yy, true));
            }
            Some(b's') => {
                let digits = tm.epoch.unsigned_abs().to_string();
                put_number(out, &digits, tm.epoch < 0, false, width, 1, pad);
            }
            Some(b'N') if modifier == b'E' => bad = true,
            Some(b'N') => {
                let w = if width <= 0 { 9 } else { width };
                let all = format!("{:09}", tm.nsec);
                let mut nd = 9usize.min(usize::try_from(w).unwrap_or(9));
                let digits = all.as_bytes();
                if pad == b'_' {
                    while nd > 1 && digits.get(nd - 1) == Some(&b'0') {
                        nd -= 1;
                    }
                }
                let shown = digits.get(..nd).unwrap_or(digits);
                out.extend_from_slice(shown);
                let fill = if pad == b'_' { b' ' } else { b'0' };
                let rest = usize::try_from(w).unwrap_or(0).saturating_sub(nd);
                out.extend(std::iter::repeat_n(fill, rest.min(1 << 16)));
            }
            Some(b'n') => text = Some("\n".into()),
            Some(b't') => text = Some("\t".into()),
            Some(b'p' | b'P') => {
                if conv == Some(b'P') {
                    low = true;
                }
                if change_case {
                    up = false;
                    low = true;
                }
                text = Some(if tm.hour > 11 { "PM" } else { "AM" }.into());
            }
            Some(b'Z') => {
                if change_case {
                    up = false;
                    low = true;
                }
                text = Some(tm.zone.abbr.clone());
            }
            Some(b'z' | b':') => {
                let mut colons = 0;
                while fmt.get(i + colons) == Some(&b':') {
                    colons += 1;
                }
                if fmt.get(i + colons) != Some(&b'z') {
                    // `%:x`: only `%:` is bad; the rest is read again as text.
                    bad = true;
                } else if colons > 3 {
                    i += colons;
                    bad = true;
                } else {
                    i += colons;
                    let off = tm.zone.offset;
                    let a = off.unsigned_abs();
                    let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
                    let colons = match colons {
                        3 if s != 0 => 2,
                        3 if m != 0 => 1,
                        c => c,
                    };
                    let (digits, mask, v) = match colons {
                        0 => (5, 0, h * 100 + m),
                        1 => (6, 0o4, h * 100 + m),
                        2 => (9, 0o24, h * 10_000 + m * 100 + s),
                        _ => (3, 0, h),
                    };
                    put_number(out, &tz_digits(v, mask), off < 0, true, width, digits, pad);
                }
            }
            None => {
                // `%` at the end of the format.
                i -= 1;
                bad = true;
            }
            Some(_) => bad = true,
        }
        if bad {
            let end = (i + 1).min(fmt.len());
            pad_to(out, fmt.get(start..end).unwrap_or(b"%"), width, pad);
        } else if let Some((digits, v, yearish)) = number {
            let always_sign = yearish
                && (if pad == 0 { yr_spec } else { pad }) == b'+'
                && ((if digits == 2 { 99 } else { 9999 }) < v.abs() || digits < width);
            let p = if yearish && pad == 0 { yr_spec } else { pad };
            put_number(
                out,
                &v.unsigned_abs().to_string(),
                negative || v < 0,
                always_sign,
                width,
                digits,
                p,
            );
        } else if let Some(t) = text {
            pad_to(out, apply_case(&t, up, low).as_bytes(), width, pad);
        } else if let Some((subfmt, subwidth)) = sub {
            let mut buf = Vec::new();
            format_into(&mut buf, subfmt, tm, up, pad, subwidth);
            pad_to(out, &buf, width, pad);
        } else if conv == Some(b'%') {
            pad_to(out, b"%", width, pad);
        }
        width = -1;
        i += 1;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn at(secs: i64) -> SystemTime {
        from_epoch(secs, 0)
    }

    /// 2024-01-10 10:00:00 UTC, a Wednesday.
    const BASE: i64 = 1_704_880_800;

    fn parse(s: &str) -> Option<(i64, u32)> {
        parse_datetime(s, at(BASE), &Zone::utc())
    }

    fn fmt(secs: i64, nsec: u32, zone: &Zone, f: &str) -> String {
        String::from_utf8(strftime(f.as_bytes(), &broken_down(secs, nsec, zone))).unwrap()
    }

    #[test]
    fn civil_round_trip() {
        for d in [-800_000, -1, 0, 1, 19_782, 2_932_896] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }

    #[test]
    fn tz_strings_as_glibc() {
        // `TZ=... date -d @0 '+%Z %z'`, GNU coreutils 9.1 / glibc.
        let cases = [
            ("UTC", 0, "UTC"),
            ("EST5", -18_000, "EST"),
            ("UTC-2", 7200, "UTC"),
            ("<+05>-5", 18_000, "+05"),
            ("Foo/Bar", 0, "Foo"),
            ("AB", 0, ""),
            ("EST5EDT", -18_000, "EST"),
            ("ABC-1:30:15", 5415, "ABC"),
            ("ABC+25", -86_400, "ABC"),
        ];
        for (tz, off, abbr) in cases {
            assert_eq!(
                parse_tz(tz),
                Zone {
                    offset: off,
                    abbr: abbr.into()
                },
                "{tz}"
            );
        }
    }

    #[test]
    fn parses_as_gnu() {
        // Absolute forms: `TZ=UTC date -d '...' +%s.%N`, GNU 9.1. The forms relative to the
        // clock (`now`, `monday`, `3pm`, `''`, `x` = military zone X) cannot be run at BASE;
        // their values apply the rules GNU 9.1 showed for them at the machine's clock.
        let cases: &[(&str, i64, u32)] = &[
            (
                "2024-01-10 10:00 2 days 3 hours ago",
                BASE + 2 * 86_400 - 3 * 3600,
                0,
            ),
            ("2024-01-10 10:00 +1 month", 1_707_555_600, 0),
            ("2024-01-31 +1 month", 1_709_337_600, 0),
            ("2024-01-10 10:00 next monday", BASE, 0),
            ("2024-01-10 10:00 last week", BASE - 7 * 86_400, 0),
            ("2024-01-10 10:00 -1 day", BASE + 86_400 + 3600, 0),
            ("2024-01-10T10:00:00+02:00", BASE - 7200, 0),
            ("2024-01-10 10:00 +0530", BASE - 19_800, 0),
            ("2024-01-10 10:00 EST", BASE + 18_000, 0),
            ("2024-01-10 12:00 CEST", BASE, 0),
            ("2024-01-10 12:00 UTC DST", BASE + 3600, 0),
            ("10/01/2024", 1_727_740_800, 0),
            ("January 5, 2024 3pm", 1_704_466_800, 0),
            ("5-Jan-2024", 1_704_412_800, 0),
            ("20240229", 1_709_164_800, 0),
            ("2024-02-29 1230", 1_709_209_800, 0),
            ("2024-01-10 12:00:00,5", BASE + 7200, 500_000_000),
            ("now", BASE, 0),
            ("yesterday", BASE - 86_400, 0),
            ("tomorrow", BASE + 86_400, 0),
            ("monday", BASE + 5 * 86_400 - 36_000, 0),
            ("wednesday", BASE - 36_000, 0),
            ("next wed", BASE + 7 * 86_400 - 36_000, 0),
            ("last wed", BASE - 7 * 86_400 - 36_000, 0),
            ("3pm", BASE + 5 * 3600, 0),
            ("", BASE - 36_000, 0),
            ("x", BASE - 36_000 + 11 * 3600, 0),
            ("1 jan 70", 0, 0),
            ("@-5.5", -6, 500_000_000),
            ("@ 5", 5, 0),
        ];
        for &(s, secs, ns) in cases {
            assert_eq!(parse(s), Some((secs, ns)), "{s}");
        }
        for bad in [
            "foo",
            "noon",
            "jan",
            "2024-02-30",
            "24:00",
            "13pm",
            "0am",
            "2024-01-10 10:00 ago",
            "1 days ago ago",
            "2024-01-10 10:00:60",
            "2024-01-10 10:00 2024",
            "24/01/10",
            "@1e3",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn formats_as_gnu() {
        // `TZ=UTC date -d @1709208000.123456789 +...`, GNU 9.1.
        let utc = Zone::utc();
        let t = 1_709_208_000;
        assert_eq!(
            fmt(
                t,
                123_456_789,
                &utc,
                "%N|%3N|%-N|%12N|%-3N|%s|%z|%:z|%::z|%Z|%#Z|%^a|%#a|%#p|%^p|%P|%10A|%-10A|%010A|%q|%Q|%E|%Ey|%Od|%:|%-|%5|%"
            ),
            "123456789|123|123456789|123456789000|123|1709208000|+0000|+00:00|+00:00:00|UTC|utc|THU|THU|pm|PM|pm|  Thursday|Thursday|00Thursday|1|%Q|%E|24|29|%:|%-|  %5|%"
        );
        assert_eq!(
            fmt(
                0,
                0,
                &utc,
                "%c|%x|%X|%D|%r|%R|%T|%h|%k|%l|%I|%p|%j|%u|%w|%U|%W|%V|%G|%g|%e|%_e|%-e|%0e|%n|%t|%%|%10F|%-5d|%^B|%#B"
            ),
            "Thu Jan  1 00:00:00 1970|01/01/70|00:00:00|01/01/70|12:00:00 AM|00:00|00:00:00|Jan| 0|12|12|AM|001|4|4|00|00|01|1970|70| 1| 1|1|01|\n|\t|%|1970-01-01|1|JANUARY|JANUARY"
        );
        assert_eq!(
            fmt(
                1,
                500_000_000,
                &utc,
                "%N|%-N|%_N|%3N|%-z|%_z|%10z|%_10z|%-5d|%_5d|%:::z|%::::z|%:x|%Ez|%+Y|%+6Y|%-10F|%_12F|%12F|%^c|%#c"
            ),
            "500000000|500000000|5        |500|+0|   +0|+000000000|        +0|1|    1|+00|%::::z|%:x|+0000|1970|+01970|1970-01-01|  1970-01-01|001970-01-01|THU JAN  1 00:00:01 1970|Thu Jan  1 00:00:01 1970"
        );
        let d5 = days_from_civil(5, 3, 4) * 86_400;
        assert_eq!(
            fmt(d5, 0, &utc, "%Y|%G|%C|%y|%-Y|%_Y|%08Y|%+Y|%F"),
            "0005|0005|00|05|5|   5|00000005|0005|0005-03-04"
        );
        let big = days_from_civil(12_345, 1, 1) * 86_400;
        assert_eq!(
            fmt(big, 0, &utc, "%Y %F %C %y"),
            "12345 +12345-01-01 123 45"
        );
        let est = parse_tz("ABC-1:30:15");
        assert_eq!(
            fmt(0, 0, &est, "%c %Z %z %:z %::z %:::z"),
            "Thu Jan  1 01:30:15 1970 ABC +0130 +01:30 +01:30:15 +01:30:15"
        );
        assert_eq!(
            fmt(-1, 0, &utc, "%s %N %c"),
            "-1 000000000 Wed Dec 31 23:59:59 1969"
        );
    }
}
