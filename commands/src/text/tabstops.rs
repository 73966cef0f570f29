//! The tab stops of `expand` and `unexpand` (GNU's `expand-common.c`): `-t N` (every N
//! columns), `-t LIST` of ascending stops separated by commas or blanks, its last value
//! prefixed by `/` (then every multiple of N) or `+` (then every N after the last stop), the
//! obsolete `-N` and `-N,M`, GNU's messages; and the operands read as one stream, as GNU's
//! `next_file` does (a line may continue into the next file).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use crate::support::input::{operand_error, operands_or_stdin};
use crate::text::lines::{Records, Sink, obsolete_number};
use crate::{Ctx, Outcome, Stop, quote};

#[derive(Debug, Default)]
pub struct TabStops {
    list: Vec<u64>,
    extend: u64,
    increment: u64,
    /// A single tab size (every multiple of it); 0 with a list.
    size: u64,
}

impl TabStops {
    /// GNU's `parse_tab_stops` of one `-t` value, added to the stops parsed so far.
    pub fn parse(&mut self, spec: &[u8]) -> Result<(), Stop> {
        let q = |s: &[u8]| quote(OsStr::from_bytes(s));
        let (mut have, mut value, mut extend, mut increment) = (false, 0u64, false, false);
        let mut start = 0;
        let mut i = 0;
        while let Some(&c) = spec.get(i) {
            match c {
                b',' | b' ' | b'\t' => {
                    if have {
                        self.add(value, extend, increment)?;
                    }
                    have = false;
                }
                b'/' | b'+' => {
                    if have {
                        return Err(Stop::Fail(format!(
                            "'{}' specifier not at start of number: {}",
                            char::from(c),
                            q(spec.get(i..).unwrap_or_default())
                        )));
                    }
                    increment = c == b'/';
                    extend = c == b'+';
                }
                d if d.is_ascii_digit() => {
                    if !have {
                        value = 0;
                        have = true;
                        start = i;
                    }
                    value = value
                        .checked_mul(10)
                        .and_then(|v| v.checked_add(u64::from(d - b'0')))
                        .ok_or_else(|| {
                            let rest = spec.get(start..).unwrap_or_default();
                            let len = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                            Stop::Fail(format!(
                                "tab stop is too large {}",
                                q(rest.get(..len).unwrap_or_default())
                            ))
                        })?;
                }
                _ => {
                    return Err(Stop::Fail(format!(
                        "tab size contains invalid character(s): {}",
                        q(spec.get(i..).unwrap_or_default())
                    )));
                }
            }
            i += 1;
        }
        if have {
            self.add(value, extend, increment)?;
        }
        Ok(())
    }

    fn add(&mut self, value: u64, extend: bool, increment: bool) -> Result<(), Stop> {
        if extend {
            if self.extend != 0 {
                return Err(Stop::Fail(
                    "'+' specifier only allowed with the last value".into(),
                ));
            }
            self.extend = value;
        } else if increment {
            if self.increment != 0 {
                return Err(Stop::Fail(
                    "'/' specifier only allowed with the last value".into(),
                ));
            }
            self.increment = value;
        } else {
            self.list.push(value);
        }
        Ok(())
    }

    /// GNU's `finalize_tab_stops`.
    pub fn finish(&mut self) -> Result<(), Stop> {
        let mut prev = 0;
        for &t in &self.list {
            if t == 0 {
                return Err(Stop::Fail("tab size cannot be 0".into()));
            }
            if t <= prev {
                return Err(Stop::Fail("tab sizes must be ascending".into()));
            }
            prev = t;
        }
        if self.increment != 0 && self.extend != 0 {
            return Err(Stop::Fail(
                "'/' specifier is mutually exclusive with '+'".into(),
            ));
        }
        self.size = match self.list.as_slice() {
            [] if self.extend != 0 => self.extend,
            [] if self.increment != 0 => self.increment,
            [] => 8,
            [one] if self.extend == 0 && self.increment == 0 => *one,
            _ => 0,
        };
        Ok(())
    }

    /// The column of the next tab stop after `column`; `None` past the last stop of a list.
    pub fn next(&self, column: u64, index: &mut usize) -> Option<u64> {
        if self.size != 0 {
            return Some(column + (self.size - column % self.size));
        }
        while let Some(&t) = self.list.get(*index) {
            if column < t {
                return Some(t);
            }
            *index += 1;
        }
        let last = self.list.last().copied().unwrap_or(0);
        if self.extend != 0 {
            return Some(column + (self.extend - (column - last) % self.extend));
        }
        if self.increment != 0 {
            return Some(column + (self.increment - column % self.increment));
        }
        None
    }
}

/// The obsolete `-N` (and `-N,M`) of `expand` and `unexpand` as `-t N`.
pub fn obsolete_stops(args: &[OsString]) -> Vec<OsString> {
    obsolete_number(args, b't', "--tabs", true)
}

/// The tab stops of the `-t` values.
pub fn stops(values: &[OsString]) -> Result<TabStops, Stop> {
    let mut t = TabStops::default();
    for v in values {
        t.parse(v.as_bytes())?;
    }
    t.finish()?;
    Ok(t)
}

/// Feeds every byte of the operands, as one stream, to `byte` (which writes to the sink),
/// then `None` once at the end. Reports the operands that fail, as GNU's `next_file`.
pub fn each_byte(
    files: Vec<OsString>,
    ctx: &Ctx,
    mut byte: impl FnMut(Option<u8>, &mut Vec<u8>),
) -> Outcome {
    let mut o = Outcome::ok();
    let mut sink = Sink::new();
    let mut status = 0;
    let mut buf = vec![0u8; 64 * 1024];
    for name in &operands_or_stdin(files) {
        let mut input = match Records::open(ctx, name, b'\n') {
            Ok(r) => r,
            Err(e) => {
                sink.drain(&mut o);
                o.err(operand_error(ctx.name, name, &e));
                status = 1;
                continue;
            }
        };
        loop {
            match input.read_chunk(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    for &c in buf.get(..n).unwrap_or_default() {
                        byte(Some(c), &mut sink.buf);
                    }
                    if !sink.poll(&mut o, ctx) {
                        return o.with_status(status);
                    }
                }
                Err(e) => {
                    sink.drain(&mut o);
                    o.err(operand_error(ctx.name, name, &e));
                    status = 1;
                    break;
                }
            }
        }
    }
    byte(None, &mut sink.buf);
    sink.drain(&mut o);
    o.with_status(status)
}
