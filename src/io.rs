//! The bottom of the runtime: where output goes ([`Stream`], [`Sink`], [`Captured`]) and the
//! plain formatting of I/O errors, byte counts and durations shared by every layer above.
//!
//! This module uses nothing of the crate.

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// Where output goes: the two streams of the front end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// Receives a session's output as it is produced, in order.
pub trait Sink {
    fn write(&mut self, stream: Stream, bytes: &[u8]);
}

/// A sink that keeps everything (for the library API and tests).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Captured {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Sink for Captured {
    fn write(&mut self, stream: Stream, bytes: &[u8]) {
        match stream {
            Stream::Stdout => self.stdout.extend_from_slice(bytes),
            Stream::Stderr => self.stderr.extend_from_slice(bytes),
        }
    }
}

/// An I/O error's text without Rust's ` (os error N)` suffix: `No such file or directory`.
pub fn io_message(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_string(),
        _ => text,
    }
}

/// `n` bytes in binary units, exact: `"512 bytes"`, `"1 MiB"`, `"1.5 MiB"`, `"8 GiB"`. A value
/// that is not a whole number of hundredths of a unit is written in a smaller unit, or in
/// bytes (`"1000000 bytes"`).
pub fn human_bytes(n: u64) -> String {
    const UNITS: [(u64, &str); 5] = [
        (1 << 50, "PiB"),
        (1 << 40, "TiB"),
        (GIB, "GiB"),
        (MIB, "MiB"),
        (KIB, "KiB"),
    ];
    for (size, name) in UNITS {
        if n < size {
            continue;
        }
        if let Some(text) = exact(u128::from(n), u128::from(size)) {
            return format!("{text} {name}");
        }
    }
    if n == 1 {
        "1 byte".to_string()
    } else {
        format!("{n} bytes")
    }
}

/// `n / unit` with at most two decimals, trailing zeros dropped, if that is exact.
fn exact(n: u128, unit: u128) -> Option<String> {
    if !(n * 100).is_multiple_of(unit) {
        return None;
    }
    let hundredths = n * 100 / unit;
    let (whole, frac) = (hundredths / 100, hundredths % 100);
    Some(match frac {
        0 => whole.to_string(),
        f if f % 10 == 0 => format!("{whole}.{}", f / 10),
        f => format!("{whole}.{f:02}"),
    })
}

/// A duration in milliseconds in the largest exact unit: `"500 ms"`, `"30 s"`, `"1.5 s"`,
/// `"2 min"`, `"1 h"`.
pub fn human_ms(ms: u64) -> String {
    if ms >= 3_600_000 && ms.is_multiple_of(3_600_000) {
        format!("{} h", ms / 3_600_000)
    } else if ms >= 60_000 && ms.is_multiple_of(60_000) {
        format!("{} min", ms / 60_000)
    } else {
        match exact(u128::from(ms), 1_000).filter(|_| ms >= 1_000) {
            Some(s) => format!("{s} s"),
            None => format!("{ms} ms"),
        }
    }
}
