//! The words a date string may hold (gnulib's `lookup_word` and zone table): months, days,
//! relative units, `ago`, `next`/`last` and the ordinals, meridians, and zone names.

/// What a word means (gnulib's `lookup_word`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Word {
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
pub(super) enum Unit {
    Year,
    Month,
    Day(i64),
    Seconds(i64),
}

pub(super) const MONTHS: [&str; 12] = [
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
pub(super) const DAYS: [&str; 7] = [
    "sunday",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
];

/// gnulib's zone table (hours east of UTC; daylight names include their hour).
pub(super) const ZONES: &[(&str, i64)] = &[
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

pub(super) fn lookup_word(w: &str) -> Option<Word> {
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

pub(super) fn lookup_zone(w: &str) -> Option<Word> {
    ZONES
        .iter()
        .find(|z| z.0 == w)
        .map(|z| Word::Zone(z.1 * 60))
}
