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

mod format;
mod lex;
mod parse;
mod words;
pub use format::strftime;
#[allow(clippy::wildcard_imports, unused_imports)]
use format::*;
#[allow(clippy::wildcard_imports, unused_imports)]
use lex::*;
#[allow(clippy::wildcard_imports, unused_imports)]
use parse::*;
pub use parse::{parse_date, parse_datetime, parse_stamp};
#[allow(clippy::wildcard_imports, unused_imports)]
use words::*;

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

/// The time now formatted by `strftime` in the zone a `TZ` value names (UTC for `None`):
/// bash's prompt escapes (`${X@P}`: `\t`, `\D{fmt}`...).
pub fn format_now(fmt: &[u8], tz: Option<&str>) -> Vec<u8> {
    let zone = tz.map_or_else(Zone::utc, parse_tz);
    let (secs, nsec) = to_epoch(SystemTime::now());
    format::strftime(fmt, &broken_down(secs, nsec, &zone))
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
