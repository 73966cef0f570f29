//! `head` and `tail`, and what only they share: the message of a refused size argument (the
//! parsing itself is [`crate::support::size`]), the scan for digit options GNU's getopt
//! rejects, the `==> name <==` headers, and the seek-based reads that keep memory bounded: the
//! start of the last N lines is found by reading a seekable input backwards in chunks.

pub mod head;
pub mod tail;

use std::ffi::{OsStr, OsString};
use std::io::SeekFrom;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::size::SizeError;
use crate::{CommandName, Ctx, FsError, Outcome, ReadSeek, quote};

/// How much is read at a time.
pub const CHUNK: usize = 64 * 1024;

/// `head: invalid number of lines: '2x'` (with GNU's errno text on overflow).
pub fn size_error(lines: bool, arg: &[u8], e: SizeError) -> Stop {
    let what = if lines { "lines" } else { "bytes" };
    let tail = match e {
        SizeError::Invalid => "",
        SizeError::Overflow => ": Value too large for defined data type",
    };
    Stop::Fail(format!(
        "invalid number of {what}: {}{tail}",
        quote(OsStr::from_bytes(arg))
    ))
}

/// The first digit GNU's getopt would meet as an option letter (`head a -3`, `tail -n1 -3`),
/// which GNU refuses. `value_shorts`/`value_longs` are the options that take a value. Stops
/// at an unknown letter so that the ordinary `invalid option` comes first.
pub fn digit_option(
    args: &[OsString],
    shorts: &str,
    value_shorts: &str,
    value_longs: &[&str],
) -> Option<char> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        let b = arg.as_bytes();
        if b == b"--" {
            return None;
        }
        if let Some(long) = b.strip_prefix(b"--") {
            if !long.contains(&b'=')
                && !long.is_empty()
                && value_longs.iter().any(|l| l.as_bytes().starts_with(long))
            {
                i += 1;
            }
            continue;
        }
        if b.len() < 2 || b.first() != Some(&b'-') {
            continue;
        }
        for (pos, c) in b.iter().enumerate().skip(1) {
            let c = char::from(*c);
            if c.is_ascii_digit() {
                return Some(c);
            }
            if value_shorts.contains(c) {
                if pos + 1 == b.len() {
                    i += 1;
                }
                break;
            }
            if !shorts.contains(c) {
                return None;
            }
        }
    }
    None
}

/// Prints `==> name <==` with the blank line GNU puts before every header but the first.
pub fn header(o: &mut Outcome, first: &mut bool, name: &OsStr) {
    let shown: &[u8] = if name == "-" {
        b"standard input"
    } else {
        name.as_bytes()
    };
    let mut line = Vec::with_capacity(shown.len() + 10);
    if !*first {
        line.push(b'\n');
    }
    line.extend_from_slice(b"==> ");
    line.extend_from_slice(shown);
    line.extend_from_slice(b" <==\n");
    o.out(line);
    *first = false;
}

/// `cmd: cannot open 'x' for reading: ...`.
pub fn open_error(cmd: CommandName, name: &OsStr, e: &FsError) -> String {
    format!("{cmd}: cannot open {} for reading: {e}\n", quote(name))
}

/// `cmd: error reading 'x': ...`; standard input is named as GNU does.
pub fn read_failure(cmd: CommandName, name: &OsStr, e: &FsError) -> String {
    let shown = if name == "-" {
        String::from("'standard input'")
    } else {
        quote(name)
    };
    format!("{cmd}: error reading {shown}: {e}\n")
}

/// The input's length, seeking to its end.
pub fn length(r: &mut dyn ReadSeek) -> Result<u64, FsError> {
    r.seek(SeekFrom::End(0)).map_err(|e| FsError::from_io(&e))
}

/// Reads the chunk `[start, start + buf.len())`.
fn read_at(r: &mut dyn ReadSeek, start: u64, buf: &mut [u8]) -> Result<(), FsError> {
    r.seek(SeekFrom::Start(start))
        .map_err(|e| FsError::from_io(&e))?;
    r.read_exact(buf).map_err(|e| FsError::from_io(&e))
}

/// The offset where the last `n` lines of an input of `len` bytes begin (an unterminated last
/// line counts as a line), reading backwards in chunks.
pub fn last_lines_start(r: &mut dyn ReadSeek, len: u64, n: u64, eol: u8) -> Result<u64, FsError> {
    if n == 0 {
        return Ok(len);
    }
    let mut buf = vec![0u8; CHUNK];
    let mut end = len;
    let mut found = 0u64;
    let mut skip_last = true;
    while end > 0 {
        let size = usize::try_from(end.min(CHUNK as u64)).unwrap_or(CHUNK);
        let start = end - size as u64;
        let chunk = buf.get_mut(..size).unwrap_or_default();
        read_at(r, start, chunk)?;
        let mut upto = size;
        if skip_last {
            // The final terminator ends the last line; it does not start one.
            skip_last = false;
            if chunk.last() == Some(&eol) {
                upto -= 1;
            }
        }
        let scan = chunk.get(..upto).unwrap_or_default();
        for (i, &c) in scan.iter().enumerate().rev() {
            if c == eol {
                found += 1;
                if found == n {
                    return Ok(start + i as u64 + 1);
                }
            }
        }
        end = start;
    }
    Ok(0)
}

/// Copies `[from, to)` of a seekable input to stdout in chunks.
pub fn copy_range(
    r: &mut dyn ReadSeek,
    from: u64,
    to: u64,
    o: &mut Outcome,
    ctx: &Ctx,
) -> Result<(), FsError> {
    if from >= to {
        return Ok(());
    }
    r.seek(SeekFrom::Start(from))
        .map_err(|e| FsError::from_io(&e))?;
    let mut left = to - from;
    let mut buf = vec![0u8; CHUNK];
    while left > 0 {
        let want = usize::try_from(left.min(CHUNK as u64)).unwrap_or(CHUNK);
        let chunk = buf.get_mut(..want).unwrap_or_default();
        let got = r.read(chunk).map_err(|e| FsError::from_io(&e))?;
        if got == 0 {
            break;
        }
        o.out(chunk.get(..got).unwrap_or_default());
        left -= got as u64;
        if !ctx.flush(o) {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn digits_after_operands() {
        let a = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(digit_option(&a(&["f", "-3"]), "nqvz", "nc", &[]), Some('3'));
        assert_eq!(digit_option(&a(&["-n", "-3"]), "nqvz", "nc", &[]), None);
        assert_eq!(digit_option(&a(&["-qn", "-3"]), "nqvz", "nc", &[]), None);
        assert_eq!(
            digit_option(&a(&["--lines", "-3"]), "", "", &["lines"]),
            None
        );
        assert_eq!(digit_option(&a(&["--", "-3"]), "", "", &[]), None);
        assert_eq!(digit_option(&a(&["-x3"]), "nqvz", "nc", &[]), None);
    }

    #[test]
    fn backwards_scan() {
        let data = b"a\nbb\nccc\n";
        let mut r = Cursor::new(&data[..]);
        assert_eq!(last_lines_start(&mut r, 9, 1, b'\n'), Ok(5));
        assert_eq!(last_lines_start(&mut r, 9, 2, b'\n'), Ok(2));
        assert_eq!(last_lines_start(&mut r, 9, 5, b'\n'), Ok(0));
        assert_eq!(last_lines_start(&mut r, 9, 0, b'\n'), Ok(9));
        let mut r = Cursor::new(&b"a\nb"[..]);
        assert_eq!(last_lines_start(&mut r, 3, 1, b'\n'), Ok(2));
    }
}
