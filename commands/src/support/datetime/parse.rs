//! gnulib's `parse_datetime`: the grammar of the date strings of `date -d` and `touch -d`
//! over the tokens of `lex.rs` and the words of `words.rs`, its order of evaluation, and
//! `touch -t` stamps.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Everything the items of a date string set (gnulib's `parser_control`).
#[derive(Debug, Default)]
pub(super) struct Parsed {
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

pub(super) struct Cursor<'a> {
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
pub(super) fn parse_at(rest: &str) -> Option<(i64, u32)> {
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
