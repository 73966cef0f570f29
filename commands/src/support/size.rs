//! GNU's size arguments: gnulib `xstrtoumax` with the `bkKmMGTPEZY` suffixes and their
//! `KB`/`KiB` forms (`head -c 2K`, `tail -n 1MB`; later `du -B`, `split -b`, `truncate -s`),
//! and the unit letters of human-readable numbers (`sort -h`; later `ls -h`, `du -h`, `df -h`,
//! `numfmt`).

/// Why a size argument was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeError {
    /// Not a number, or trailing garbage: `invalid number of lines: '2x'`.
    Invalid,
    /// Too large for 64 bits: the message gets `: Value too large for defined data type`.
    Overflow,
}

/// The power of 1024 (or 1000) a unit letter stands for: GNU's `K M G T P E Z Y` and the
/// SI `k` (sort's `unit_order` for `-h`, and human-readable output).
pub fn unit_power(c: u8) -> Option<u32> {
    Some(match c {
        b'k' | b'K' => 1,
        b'M' => 2,
        b'G' => 3,
        b'T' => 4,
        b'P' => 5,
        b'E' => 6,
        b'Z' => 7,
        b'Y' => 8,
        _ => return None,
    })
}

/// The suffixes `xstrtoumax` accepts with `"bkKmMGTPEZY0"`: the units, plus `m` for `M`.
fn suffix_power(c: u8) -> Option<u32> {
    if c == b'm' { Some(2) } else { unit_power(c) }
}

/// gnulib's `xstrtoumax(s, .., 10, .., "bkKmMGTPEZY0")`: leading blanks and `+` allowed, `-`
/// refused, decimal digits (a lone suffix means 1), then one optional suffix: `b` (512), a
/// power of 1024 (`K`, `KiB`) or of 1000 (`KB`).
pub fn parse_size(s: &[u8]) -> Result<u64, SizeError> {
    let mut i = 0;
    while s.get(i).is_some_and(|c| matches!(c, b' ' | b'\t'..=b'\r')) {
        i += 1;
    }
    match s.get(i) {
        Some(b'-') => return Err(SizeError::Invalid),
        Some(b'+') => i += 1,
        _ => {}
    }
    let start = i;
    let mut overflow = false;
    let mut value: u64 = 0;
    while let Some(d) = s.get(i).filter(|c| c.is_ascii_digit()) {
        if let Some(v) = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d - b'0')))
        {
            value = v;
        } else {
            overflow = true;
            value = u64::MAX;
        }
        i += 1;
    }
    let rest = s.get(i..).unwrap_or_default();
    if i == start {
        // No digits: a valid suffix alone stands for 1 (`-n K`), anything else is invalid.
        match rest.first() {
            Some(&c) if c == b'b' || suffix_power(c).is_some() => value = 1,
            _ => return Err(SizeError::Invalid),
        }
    }
    let Some(&c) = rest.first() else {
        return if overflow {
            Err(SizeError::Overflow)
        } else {
            Ok(value)
        };
    };
    let (scaled, used) = if c == b'b' {
        (value.checked_mul(512), 1)
    } else if let Some(power) = suffix_power(c) {
        let (base, used) = match rest.get(1) {
            Some(b'i') if rest.get(2) == Some(&b'B') => (1024u64, 3),
            Some(b'B' | b'D') => (1000, 2),
            _ => (1024, 1),
        };
        (
            base.checked_pow(power).and_then(|m| value.checked_mul(m)),
            used,
        )
    } else {
        return Err(SizeError::Invalid);
    };
    if rest.len() > used {
        return Err(SizeError::Invalid);
    }
    match scaled {
        Some(v) if !overflow => Ok(v),
        _ => Err(SizeError::Overflow),
    }
}

/// GNU's `human_readable` with `human_autoscale | human_SI` and the default ceiling rounding
/// (`du -h`, `df -h`, `tree -h`; `base` 1000 for `--si`/`-H`): the smallest unit that keeps
/// the value below `base`, one decimal below 10, rounded up; `k` is lowercase in powers of
/// 1000, as GNU writes it.
pub fn human_ceil(n: u64, base: u64) -> String {
    const UNITS: [char; 8] = ['K', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'];
    let unit = |e: usize| {
        let c = UNITS.get(e).copied().unwrap_or('Y');
        if c == 'K' && base == 1000 { 'k' } else { c }
    };
    let base = u128::from(base.max(2));
    let n = u128::from(n);
    if n < base {
        return n.to_string();
    }
    let mut e = 0usize;
    let mut scale: u128 = base;
    while n >= scale * base && e + 1 < UNITS.len() {
        scale *= base;
        e += 1;
    }
    if n / scale < 10 {
        let tenths = (n * 10).div_ceil(scale);
        if tenths < 100 {
            return format!("{}.{}{}", tenths / 10, tenths % 10, unit(e));
        }
        return format!("10{}", unit(e));
    }
    let v = n.div_ceil(scale);
    if v >= base && e + 1 < UNITS.len() {
        return format!("1.0{}", unit(e + 1));
    }
    format!("{v}{}", unit(e))
}

/// A GNU `--block-size` argument (`-B`): the block size and, when it was given without a
/// number (`K`, `KB`, `KiB`, `M`), the suffix GNU prints after every value (`kB` for `KB`).
pub fn block_size(s: &[u8]) -> Result<(u64, String), SizeError> {
    let n = parse_size(s)?;
    if n == 0 {
        return Err(SizeError::Invalid);
    }
    let suffix = match s.first() {
        Some(c) if !c.is_ascii_digit() && *c != b'+' && *c != b' ' => {
            let letter = match s.first() {
                Some(b'k' | b'K') if s.get(1) == Some(&b'B') => "k".to_string(),
                Some(&c) => char::from(c).to_ascii_uppercase().to_string(),
                None => String::new(),
            };
            let rest = String::from_utf8_lossy(s.get(1..).unwrap_or_default()).into_owned();
            if s == b"b" {
                String::new()
            } else {
                letter + &rest
            }
        }
        _ => String::new(),
    };
    Ok((n, suffix))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn sizes_as_gnu() {
        // `head -n ARG` / `head -c ARG` with GNU coreutils 9.1.
        assert_eq!(parse_size(b"10"), Ok(10));
        assert_eq!(parse_size(b" +2"), Ok(2));
        assert_eq!(parse_size(b"2K"), Ok(2048));
        assert_eq!(parse_size(b"2KB"), Ok(2000));
        assert_eq!(parse_size(b"1KiB"), Ok(1024));
        assert_eq!(parse_size(b"1b"), Ok(512));
        assert_eq!(parse_size(b"K"), Ok(1024));
        assert_eq!(parse_size(b"010"), Ok(10));
        assert_eq!(parse_size(b"1E"), Ok(1 << 60));
        assert_eq!(parse_size(b"2x"), Err(SizeError::Invalid));
        assert_eq!(parse_size(b"1k2"), Err(SizeError::Invalid));
        assert_eq!(parse_size(b"0x10"), Err(SizeError::Invalid));
        assert_eq!(parse_size(b""), Err(SizeError::Invalid));
        assert_eq!(parse_size(b"-1"), Err(SizeError::Invalid));
        assert_eq!(parse_size(b"1Y"), Err(SizeError::Overflow));
        assert_eq!(
            parse_size(b"99999999999999999999999"),
            Err(SizeError::Overflow)
        );
    }

    #[test]
    fn lowercase_m_and_trailing_garbage() {
        assert_eq!(parse_size(b"m"), Ok(1 << 20));
        assert_eq!(parse_size(b"2KiBx"), Err(SizeError::Invalid));
    }

    #[test]
    fn human_as_gnu() {
        assert_eq!(human_ceil(0, 1024), "0");
        assert_eq!(human_ceil(1023, 1024), "1023");
        assert_eq!(human_ceil(1024, 1024), "1.0K");
        assert_eq!(human_ceil(1025, 1024), "1.1K");
        assert_eq!(human_ceil(24576, 1024), "24K");
        assert_eq!(human_ceil(24576, 1000), "25k");
        assert_eq!(human_ceil(10_239, 1024), "10K");
        assert_eq!(human_ceil(1_048_575, 1024), "1.0M");
        assert_eq!(block_size(b"KB"), Ok((1000, "kB".into())));
        assert_eq!(block_size(b"KiB"), Ok((1024, "KiB".into())));
        assert_eq!(block_size(b"1K"), Ok((1024, String::new())));
        assert_eq!(block_size(b"0"), Err(SizeError::Invalid));
    }

    #[test]
    fn unit_letters() {
        assert_eq!(unit_power(b'k'), Some(1));
        assert_eq!(unit_power(b'Y'), Some(8));
        // `sort -h` has no lowercase m; xstrtoumax has.
        assert_eq!(unit_power(b'm'), None);
        assert_eq!(suffix_power(b'm'), Some(2));
        assert_eq!(unit_power(b'x'), None);
    }
}
