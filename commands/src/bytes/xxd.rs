//! `xxd [options] [infile]` (vim 9's xxd): the hex dump (`-g` bytes per group, `-c` per
//! line, `-u`, `-e` little-endian groups, `-b` bits, `-a` autoskip of zero lines), `-p`
//! plain hex, `-i` a C array, `-s`/`-l` to pick a range, `-o`/`-d` offsets, and `-r` (with
//! `-p`) to turn a dump back into bytes. Options as xxd reads them: `-c8`, `-c 8`,
//! `-cols 8`, numbers in C's bases. An output file operand is not supported.

use std::ffi::OsString;
use std::io::Read;

use crate::support::input::open_input;
use crate::text::lines::{EXHAUSTED, RecordError, Records, split_eol};
use crate::{Ctx, Outcome, Stop};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Hex,
    Bits,
    Plain,
    Include,
}

#[allow(clippy::struct_excessive_bools)]
struct Opts {
    mode: Mode,
    cols: Option<i64>,
    group: Option<i64>,
    upper: bool,
    little: bool,
    autoskip: bool,
    capitalize: bool,
    decimal: bool,
    reverse: bool,
    seek: Option<(bool, i64)>,
    len: Option<i64>,
    offset: i64,
    name: Option<OsString>,
    files: Vec<OsString>,
}

/// C's `strtol(s, NULL, 0)`: leading blanks, a sign, `0x` hex or `0` octal; stops at the
/// first character that is not a digit.
fn strtol(s: &str) -> i64 {
    let s = s.trim_start();
    let (neg, s) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..).unwrap_or("")),
        Some(b'+') => (false, s.get(1..).unwrap_or("")),
        _ => (false, s),
    };
    let (radix, body) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (16, h)
    } else if s.starts_with('0') {
        (8, s)
    } else {
        (10, s)
    };
    let mut v: i64 = 0;
    for c in body.chars() {
        let Some(d) = c.to_digit(radix) else { break };
        v = v
            .saturating_mul(i64::from(radix))
            .saturating_add(i64::from(d));
    }
    if neg { -v } else { v }
}

fn usage() -> Stop {
    let mut o = Outcome::status(1);
    o.err("Usage:\n       xxd [options] [infile [outfile]]\n    or\n       xxd -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]\nType 'xxd -h' for a list of options.\n");
    Stop::Done(o)
}

#[allow(clippy::too_many_lines)]
fn parse(args: &[OsString]) -> Result<Opts, Stop> {
    let mut o = Opts {
        mode: Mode::Hex,
        cols: None,
        group: None,
        upper: false,
        little: false,
        autoskip: false,
        capitalize: false,
        decimal: false,
        reverse: false,
        seek: None,
        len: None,
        offset: 0,
        name: None,
        files: Vec::new(),
    };
    let mut i = 0;
    let strs: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // The value of an option: attached (`-c8`) unless the rest spells the long name.
    let value = |i: &mut usize, attached: &str, long: &str| -> Result<String, Stop> {
        if !attached.is_empty() && !long.starts_with(attached) {
            return Ok(attached.to_string());
        }
        *i += 1;
        strs.get(*i).cloned().ok_or_else(usage)
    };
    while let Some(arg) = strs.get(i) {
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        if arg == "--" {
            i += 1;
            break;
        }
        let letter = arg.as_bytes().get(1).copied().unwrap_or(0);
        let rest = arg.get(2..).unwrap_or("");
        match letter {
            b'a' => o.autoskip = !o.autoskip,
            b'b' => o.mode = Mode::Bits,
            b'e' => o.little = true,
            b'u' => o.upper = true,
            b'p' => o.mode = Mode::Plain,
            b'i' => o.mode = Mode::Include,
            b'd' => o.decimal = true,
            b'r' => o.reverse = true,
            b'E' | b'R' => {}
            b'C' => o.capitalize = true,
            b'c' => {
                if rest.starts_with("apitalize") {
                    o.capitalize = true;
                } else {
                    o.cols = Some(strtol(&value(&mut i, rest, "ols")?));
                }
            }
            b'g' => o.group = Some(strtol(&value(&mut i, rest, "roupsize")?)),
            b'o' => o.offset = strtol(&value(&mut i, rest, "ffset")?),
            b'l' => o.len = Some(strtol(&value(&mut i, rest, "en")?)),
            b'n' => o.name = Some(OsString::from(value(&mut i, rest, "ame")?)),
            b's' => {
                let v = value(&mut i, rest, "eek")?;
                let t = v.trim_start();
                let rel = t.starts_with('+');
                let t = t.strip_prefix('+').unwrap_or(t);
                o.seek = Some((rel, strtol(t)));
            }
            b'v' => {
                let mut out = Outcome::ok();
                out.err("xxd 2022-01-14 by Juergen Weigert et al.\n");
                return Err(Stop::Done(out));
            }
            _ => return Err(usage()),
        }
        i += 1;
    }
    o.files = args.get(i..).unwrap_or_default().to_vec();
    if o.files.len() > 2 {
        return Err(usage());
    }
    Ok(o)
}

fn fail(msg: &str, status: i32) -> Stop {
    let mut o = Outcome::status(status);
    o.err(format!("xxd: {msg}\n"));
    Stop::Done(o)
}

/// xxd's `xxdline` with autoskip: a run of zero lines shows its first, `*`, and its last.
struct Skipper {
    zero_seen: i32,
    saved: Vec<u8>,
}

impl Skipper {
    fn line(&mut self, out: &mut Vec<u8>, l: &[u8], nz: i32) {
        if nz == 0 && self.zero_seen == 1 {
            self.saved = l.to_vec();
        }
        let seen = self.zero_seen;
        self.zero_seen += 1;
        if nz != 0 || seen == 0 {
            self.zero_seen = seen;
            if nz != 0 {
                if nz < 0 {
                    self.zero_seen -= 1;
                }
                if self.zero_seen == 2 {
                    out.extend_from_slice(&self.saved);
                }
                if self.zero_seen > 2 {
                    out.extend_from_slice(b"*\n");
                }
            }
            out.extend_from_slice(l);
            if nz != 0 {
                self.zero_seen = 0;
            } else {
                self.zero_seen = seen + 1;
            }
        }
    }
}

#[allow(clippy::too_many_lines)]
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let opts = parse(args)?;
    if opts.files.len() == 2 {
        return Err(fail("writing to an output file is not supported here", 1));
    }
    let infile = opts
        .files
        .first()
        .cloned()
        .unwrap_or_else(|| OsString::from("-"));
    let cols_default = match opts.mode {
        Mode::Hex => 16,
        Mode::Bits => 6,
        Mode::Plain => 30,
        Mode::Include => 12,
    };
    let mut cols = opts.cols.unwrap_or(cols_default);
    if cols == 0 && opts.cols.is_some() {
        cols = cols_default;
    }
    if cols < 1 || (opts.mode != Mode::Plain && cols > 256) {
        return Err(fail("invalid number of columns (max. 256).", 1));
    }
    // `-p` has no maximum; a line of more than 1 MiB is not buffered whole.
    let cols = usize::try_from(cols).unwrap_or(16).min(1 << 20);
    let grp_default = match opts.mode {
        Mode::Bits => 1,
        _ if opts.little => 4,
        _ => 2,
    };
    let mut grp = opts
        .group
        .map_or(grp_default, |g| usize::try_from(g).unwrap_or(0));
    if grp < 1 || grp > cols {
        grp = cols;
    }
    if opts.little && opts.mode == Mode::Hex && !grp.is_power_of_two() {
        return Err(fail(
            "number of octets per group must be a power of 2 with -e.",
            1,
        ));
    }
    let mut reader = open_input(ctx, &infile).map_err(|e| {
        let msg = if infile == "-" || e == crate::FsError::IsADirectory {
            e.strerror().to_string()
        } else {
            format!("{}: {}", infile.to_string_lossy(), e.strerror())
        };
        fail(&msg, 2)
    })?;
    let mut o = Outcome::ok();
    if opts.reverse {
        return reverse(&mut *reader, opts.mode == Mode::Plain, ctx, o);
    }
    // Seek: skip bytes (a negative seek counts from the end: the input is read whole).
    let mut data_prefix: Vec<u8> = Vec::new();
    let mut start: u64 = 0;
    if let Some((_, s)) = opts.seek {
        if s >= 0 {
            let want = s.unsigned_abs();
            let n = std::io::copy(&mut (&mut *reader).take(want), &mut std::io::sink())
                .map_err(|e| fail(crate::FsError::from_io(&e).strerror(), 2))?;
            start = n;
            if n < want {
                return Ok(o);
            }
        } else {
            let back = usize::try_from(s.unsigned_abs()).unwrap_or(usize::MAX);
            let (total, last) = last_bytes(&mut *reader, back, ctx)?;
            start = total - last.len() as u64;
            data_prefix = last;
            reader = Box::new(std::io::empty());
        }
    }
    let limit = opts.len.map(|l| u64::try_from(l.max(0)).unwrap_or(0));
    let mut input = std::io::Read::chain(std::io::Cursor::new(data_prefix), reader);
    let mut input: Box<dyn Read> = match limit {
        Some(l) => Box::new((&mut input).take(l)),
        None => Box::new(&mut input),
    };
    let digits: &[u8; 16] = if opts.upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut out: Vec<u8> = Vec::new();
    let include_name = if opts.mode == Mode::Include && infile != "-" {
        let base = opts.name.clone().unwrap_or_else(|| infile.clone());
        let mut name: Vec<u8> = base
            .as_encoded_bytes()
            .iter()
            .map(|&b| if b.is_ascii_alphanumeric() { b } else { b'_' })
            .collect();
        if name.first().is_some_and(u8::is_ascii_digit) {
            name.splice(0..0, *b"__");
        }
        if opts.capitalize {
            name.make_ascii_uppercase();
        }
        out.extend_from_slice(b"unsigned char ");
        out.extend_from_slice(&name);
        out.extend_from_slice(b"[] = {\n");
        Some(name)
    } else {
        None
    };
    let grplen = match opts.mode {
        Mode::Bits => 8 * grp + 1,
        _ => 2 * grp + 1,
    };
    let ascii_col = 12 + (grplen * cols - 1) / grp;
    let mut skipper = Skipper {
        zero_seen: 0,
        saved: Vec::new(),
    };
    let mut addr = start.wrapping_add(u64::try_from(opts.offset).unwrap_or(0));
    let mut total: u64 = 0;
    let mut line = vec![0u8; cols];
    let mut prev_line: Vec<u8> = Vec::new();
    loop {
        if ctx.expired() {
            break;
        }
        let mut got = 0;
        while got < cols {
            match input.read(line.get_mut(got..).unwrap_or_default()) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    o.out(&out);
                    return Err(fail(crate::FsError::from_io(&e).strerror(), 2).after(o));
                }
            }
        }
        let bytes = line.get(..got).unwrap_or_default();
        if got == 0 {
            break;
        }
        match opts.mode {
            Mode::Plain => {
                for &b in bytes {
                    out.push(digits[usize::from(b >> 4)]);
                    out.push(digits[usize::from(b & 15)]);
                }
                out.push(b'\n');
            }
            Mode::Include => {
                if total > 0 {
                    out.extend_from_slice(b",\n");
                }
                out.extend_from_slice(b"  ");
                for (k, &b) in bytes.iter().enumerate() {
                    if k > 0 {
                        out.extend_from_slice(b", ");
                    }
                    out.extend_from_slice(if opts.upper { b"0X" } else { b"0x" });
                    out.push(digits[usize::from(b >> 4)]);
                    out.push(digits[usize::from(b & 15)]);
                }
            }
            Mode::Hex | Mode::Bits => {
                let mut l = vec![b' '; ascii_col + got];
                let head = if opts.decimal {
                    format!("{addr:08}:")
                } else {
                    format!("{addr:08x}:")
                };
                let hl = head.len().min(l.len());
                l.get_mut(..hl)
                    .unwrap_or_default()
                    .copy_from_slice(head.as_bytes().get(..hl).unwrap_or_default());
                for (p, &b) in bytes.iter().enumerate() {
                    let x = if opts.little && opts.mode == Mode::Hex {
                        p ^ (grp - 1)
                    } else {
                        p
                    };
                    let c = 10 + (grplen * x) / grp;
                    if opts.mode == Mode::Bits {
                        for k in 0..8 {
                            if let Some(slot) = l.get_mut(c + k) {
                                *slot = if b & (0x80 >> k) != 0 { b'1' } else { b'0' };
                            }
                        }
                    } else {
                        if let Some(slot) = l.get_mut(c) {
                            *slot = digits[usize::from(b >> 4)];
                        }
                        if let Some(slot) = l.get_mut(c + 1) {
                            *slot = digits[usize::from(b & 15)];
                        }
                    }
                    if let Some(slot) = l.get_mut(ascii_col + p) {
                        *slot = if (0x20..0x7f).contains(&b) { b } else { b'.' };
                    }
                }
                l.push(b'\n');
                let nz = i32::from(bytes.iter().any(|&b| b != 0) || got < cols);
                if opts.autoskip {
                    skipper.line(&mut out, &l, nz);
                } else {
                    out.extend_from_slice(&l);
                }
                prev_line = l;
            }
        }
        total += got as u64;
        addr += got as u64;
        o.out(std::mem::take(&mut out));
        if !ctx.flush(&mut o) {
            return Ok(o);
        }
        if got < cols {
            break;
        }
    }
    if opts.autoskip
        && matches!(opts.mode, Mode::Hex | Mode::Bits)
        && total > 0
        && total.is_multiple_of(cols as u64)
    {
        skipper.line(&mut out, &prev_line, -1);
    }
    if opts.mode == Mode::Include {
        if let Some(name) = include_name {
            if total > 0 {
                out.push(b'\n');
            }
            out.extend_from_slice(b"};\nunsigned int ");
            out.extend_from_slice(&name);
            let len = if opts.capitalize { "_LEN" } else { "_len" };
            out.extend_from_slice(format!("{len} = {total};\n").as_bytes());
        } else if total > 0 {
            out.push(b'\n');
        }
    }
    o.out(out);
    Ok(o)
}

fn hexval(c: u8) -> Option<u8> {
    char::from(c)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

/// The last `back` bytes of the input (a negative `-s`: the input is read to its end,
/// keeping no more than them, at most the session's hold cap), and how many bytes it had.
fn last_bytes(r: &mut dyn Read, back: usize, ctx: &Ctx) -> Result<(u64, Vec<u8>), Stop> {
    let hold = usize::try_from(ctx.hold_bytes()).unwrap_or(usize::MAX);
    let mut kept = std::collections::VecDeque::new();
    let mut total: u64 = 0;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(fail(crate::FsError::from_io(&e).strerror(), 2)),
        };
        total += n as u64;
        kept.extend(buf.get(..n).unwrap_or_default());
        kept.drain(..kept.len().saturating_sub(back));
        if kept.len() > hold {
            return Err(fail(EXHAUSTED, 2));
        }
        if ctx.expired() {
            break;
        }
    }
    Ok((total, kept.into()))
}

/// `-r`: a dump back into bytes, streamed. Plain (`-p`): every pair of hex digits, anything
/// else skipped. Otherwise each line (held whole, up to the hold cap) is `ADDR:` then hex
/// pairs up to two spaces in a row (the text column); a line's address moves the output
/// forward (filled with zeros).
fn reverse(input: &mut dyn Read, plain: bool, ctx: &Ctx, mut o: Outcome) -> Result<Outcome, Stop> {
    let mut out = Vec::new();
    if plain {
        let mut hi: Option<u8> = None;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match input.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(fail(crate::FsError::from_io(&e).strerror(), 2).after(o)),
            };
            for &c in buf.get(..n).unwrap_or_default() {
                let Some(digit) = hexval(c) else { continue };
                match hi.take() {
                    None => hi = Some(digit),
                    Some(high) => out.push((high << 4) | digit),
                }
            }
            o.out(std::mem::take(&mut out));
            if !ctx.flush(&mut o) {
                break;
            }
        }
        return Ok(o);
    }
    let cap = usize::try_from(ctx.hold_bytes()).unwrap_or(usize::MAX);
    let mut records = Records::from_reader(Box::new(input), b'\n');
    let mut record = Vec::new();
    let mut written: u64 = 0;
    loop {
        record.clear();
        match records.append_capped(&mut record, cap) {
            Ok(true) => {}
            Ok(false) => break,
            Err(RecordError::TooLong) => return Err(fail(EXHAUSTED, 2).after(o)),
            Err(RecordError::Io(e)) => return Err(fail(e.strerror(), 2).after(o)),
        }
        let line = split_eol(&record, b'\n').0;
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let addr = line
            .get(..colon)
            .unwrap_or_default()
            .iter()
            .filter_map(|&c| hexval(c))
            .fold(0u64, |a, d| a.wrapping_mul(16).wrapping_add(u64::from(d)));
        if addr > written {
            // Zeros up to the address, a chunk at a time.
            let mut gap = usize::try_from(addr - written).unwrap_or(0).min(1 << 30);
            written = addr;
            while gap > 0 {
                let n = gap.min(64 * 1024);
                o.out(vec![0u8; n]);
                gap -= n;
                if !ctx.flush(&mut o) {
                    return Ok(o);
                }
            }
        }
        let body = line.get(colon + 1..).unwrap_or_default();
        let end = body
            .windows(2)
            .position(|w| w == b"  ")
            .unwrap_or(body.len());
        let mut hi: Option<u8> = None;
        for &c in body.get(..end).unwrap_or_default() {
            let Some(v) = hexval(c) else {
                hi = None;
                continue;
            };
            match hi.take() {
                None => hi = Some(v),
                Some(h) => {
                    out.push((h << 4) | v);
                    written += 1;
                }
            }
        }
        o.out(std::mem::take(&mut out));
        if !ctx.flush(&mut o) {
            return Ok(o);
        }
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Xxd;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    const BIN: &[u8] = b"abc\0\n\t\x80\xffhello world, this is more than 16\n";

    fn xxd(args: &[&str], stdin: &[u8]) -> (String, String, i32) {
        let w = World::new(
            MemFs::rooted("/s")
                .file("/s/a", b"abc\n")
                .file("/s/9x-y", b"abc\n"),
        )
        .stdin(stdin);
        text(&w.run(Xxd, args))
    }

    #[test]
    fn dumps_as_xxd() {
        // Expected outputs from vim 9's xxd.
        assert_eq!(
            xxd(&[], BIN).0,
            "00000000: 6162 6300 0a09 80ff 6865 6c6c 6f20 776f  abc.....hello wo\n00000010: 726c 642c 2074 6869 7320 6973 206d 6f72  rld, this is mor\n00000020: 6520 7468 616e 2031 360a                 e than 16.\n"
        );
        assert_eq!(
            xxd(&["-g", "3", "-l", "16"], BIN).0,
            "00000000: 616263 000a09 80ff68 656c6c 6f2077 6f  abc.....hello wo\n"
        );
        assert_eq!(
            xxd(&["-e", "-s", "32"], BIN).0,
            "00000020: 68742065 31206e61     0a36           e than 16.\n"
        );
        assert_eq!(
            xxd(&["-b", "-l", "6"], BIN).0,
            "00000000: 01100001 01100010 01100011 00000000 00001010 00001001  abc...\n"
        );
        assert_eq!(
            xxd(&["-p", "-c", "4", "-l", "6"], BIN).0,
            "61626300\n0a09\n"
        );
        assert_eq!(
            xxd(&["-i", "9x-y"], b"").0,
            "unsigned char __9x_y[] = {\n  0x61, 0x62, 0x63, 0x0a\n};\nunsigned int __9x_y_len = 4;\n"
        );
        assert_eq!(xxd(&["-i"], b"abc").0, "  0x61, 0x62, 0x63\n");
        assert_eq!(
            xxd(&["-s", "-4"], BIN).0,
            "00000026: 2031 360a                                 16.\n"
        );
    }

    #[test]
    fn autoskip_and_reverse() {
        let mut z = b"ab".to_vec();
        z.extend_from_slice(&[0; 64]);
        z.push(b'c');
        assert_eq!(
            xxd(&["-a"], &z).0,
            "00000000: 6162 0000 0000 0000 0000 0000 0000 0000  ab..............\n00000010: 0000 0000 0000 0000 0000 0000 0000 0000  ................\n*\n00000040: 0000 63                                  ..c\n"
        );
        let dump = xxd(&[], BIN).0;
        let w = World::new(MemFs::rooted("/s")).stdin(dump.as_bytes());
        assert_eq!(w.run(Xxd, &["-r"]).stdout(), BIN);
        let w = World::new(MemFs::rooted("/s")).stdin(b"6162\n63 0a");
        assert_eq!(w.run(Xxd, &["-r", "-p"]).stdout(), b"abc\n");
        assert_eq!(
            xxd(&["nope"], b""),
            (
                String::new(),
                "xxd: nope: No such file or directory\n".into(),
                2
            )
        );
    }
}
