//! gnulib's `nstrftime` in the C locale: `date +FORMAT` with GNU's flags (`_ - 0 ^ #`),
//! widths and the `%:z` family.

#[allow(clippy::wildcard_imports)]
use super::*;

// ---------------------------------------------------------------------------------------------
// Formatting (gnulib nstrftime, C locale).

pub(super) const DAY_ABBR: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
pub(super) const MON_ABBR: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

pub(super) fn title(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// Days from the first day of ISO week 1 to `yday` (gnulib's `iso_week_days`).
pub(super) fn iso_week_days(yday: i64, wday: i64) -> i64 {
    let big = (366 / 7 + 2) * 7;
    yday - (yday - wday + 4 + big) % 7 + 3
}

/// The digits of a zone offset with colons where `mask` says (gnulib's `tz_colon_mask`: bit
/// `i` puts a colon before the `i`th digit from the right).
pub(super) fn tz_digits(mut v: u64, mut mask: u32) -> String {
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
pub(super) fn pad_to(out: &mut Vec<u8>, s: &[u8], width: i64, pad: u8) {
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
pub(super) fn put_number(
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

pub(super) fn apply_case(s: &str, up: bool, low: bool) -> String {
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
pub(super) fn format_into(
    out: &mut Vec<u8>,
    fmt: &[u8],
    tm: &Tm,
    upcase: bool,
    yr_spec: u8,
    width0: i64,
) {
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
