//! `base64` and `base32` (coreutils 9.1; one handler, told apart by the name): encode with
//! lines wrapped at 76 columns (`-w N`, 0: no wrapping), or decode (`-d`; newlines are
//! skipped, `-i` skips every byte outside the alphabet) as gnulib's decoders do: each group
//! of 4 (8) characters on its own, what a bad group still yields written before `invalid
//! input`. Input streams in chunks.

use std::ffi::OsString;
use std::io::Read;

use crate::support::args::parse_args;
use crate::support::input::{open_input, operand_error};
use crate::{CommandName, Ctx, FsError, Outcome, Stop, quote_locale};

/// Base64 encode or decode FILE, or standard input, to standard output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "base64 [OPTION]... [FILE]")]
pub struct BaseArgs {
    /// decode data
    #[arg(short = 'd', long = "decode")]
    decode: bool,
    /// when decoding, ignore non-alphabet characters
    #[arg(short = 'i', long = "ignore-garbage")]
    ignore_garbage: bool,
    /// wrap encoded lines after COLS character (default 76). Use 0 to disable line wrapping
    #[arg(short = 'w', long = "wrap", value_name = "COLS")]
    wrap: Option<String>,
    files: Vec<OsString>,
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// Which encoding.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    B64,
    B32,
}

impl Kind {
    /// Input bytes per group and characters per group.
    fn group(self) -> (usize, usize) {
        match self {
            Kind::B64 => (3, 4),
            Kind::B32 => (5, 8),
        }
    }

    fn value(self, c: u8) -> Option<u8> {
        let table: &[u8] = match self {
            Kind::B64 => B64,
            Kind::B32 => B32,
        };
        table
            .iter()
            .position(|&t| t == c)
            .and_then(|p| u8::try_from(p).ok())
    }
}

/// Encodes one group (3 or 5 bytes, fewer at the end) with its padding.
fn encode_group(kind: Kind, group: &[u8], out: &mut Vec<u8>) {
    let (ibytes, ochars) = kind.group();
    let mut bits: u64 = 0;
    for i in 0..ibytes {
        bits = (bits << 8) | u64::from(group.get(i).copied().unwrap_or(0));
    }
    let width = match kind {
        Kind::B64 => 6,
        Kind::B32 => 5,
    };
    let used = (group.len() * 8).div_ceil(width);
    let total = ibytes * 8;
    for i in 0..ochars {
        if i < used {
            let shift = total - width * (i + 1);
            let v = usize::try_from((bits >> shift) & ((1 << width) - 1)).unwrap_or(0);
            let table: &[u8] = match kind {
                Kind::B64 => B64,
                Kind::B32 => B32,
            };
            out.push(table.get(v).copied().unwrap_or(b'='));
        } else {
            out.push(b'=');
        }
    }
}

/// gnulib's `decode_4`/`decode_8`: the bytes a group yields, and whether it was valid.
fn decode_group(kind: Kind, g: &[u8], out: &mut Vec<u8>) -> bool {
    let (_, ochars) = kind.group();
    if kind == Kind::B32 && g.len() < ochars {
        return false;
    }
    if g.len() < 2 {
        return false;
    }
    let width = match kind {
        Kind::B64 => 6u32,
        Kind::B32 => 5,
    };
    // How many leading characters are data, and where the padding starts.
    let data = g.iter().take_while(|&&c| c != b'=').count();
    // The padded forms: data characters that complete whole bytes, then `=` to the end.
    let valid_data: &[usize] = match kind {
        Kind::B64 => &[2, 3, 4],
        Kind::B32 => &[2, 4, 5, 7, 8],
    };
    let mut acc: u64 = 0;
    let mut nbits = 0u32;
    for (i, &c) in g.iter().enumerate().take(data.min(ochars)) {
        let Some(v) = kind.value(c) else {
            return false;
        };
        acc = (acc << width) | u64::from(v);
        nbits += width;
        // GNU emits a byte as soon as the characters that complete it were seen; the
        // first output needs two characters.
        if nbits >= 8 && i >= 1 {
            nbits -= 8;
            out.push(u8::try_from((acc >> nbits) & 0xff).unwrap_or(0));
        }
    }
    if data == g.len() {
        // No padding: a full group is fine; a short one (the end of the input) is not.
        return g.len() == ochars;
    }
    // Padding: the group must be whole, the data part a valid length, the rest all `=`.
    g.len() == ochars
        && valid_data.contains(&data)
        && data < ochars
        && g.get(data..).is_some_and(|p| p.iter().all(|&c| c == b'='))
}

/// Streams the decoding of `r`: `Err(None)` on invalid input, `Err(Some(e))` on a read
/// error; `Ok(false)` when nobody reads the output.
fn decode(
    kind: Kind,
    r: &mut dyn Read,
    ignore_garbage: bool,
    ctx: &Ctx,
    o: &mut Outcome,
) -> Result<bool, Option<FsError>> {
    let (_, ochars) = kind.group();
    let mut buf = vec![0u8; 64 * 1024];
    let mut pending: Vec<u8> = Vec::with_capacity(ochars);
    let mut out = Vec::new();
    loop {
        if ctx.expired() {
            return Ok(false);
        }
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                o.out(&out);
                return Err(Some(FsError::from_io(&e)));
            }
        };
        for &c in buf.get(..n).unwrap_or_default() {
            if c == b'\n' {
                continue;
            }
            if ignore_garbage && c != b'=' && kind.value(c).is_none() {
                continue;
            }
            pending.push(c);
            if pending.len() == ochars {
                if !decode_group(kind, &pending, &mut out) {
                    o.out(&out);
                    return Err(None);
                }
                pending.clear();
            }
        }
        o.out(std::mem::take(&mut out));
        if !ctx.flush(o) {
            return Ok(false);
        }
    }
    if !pending.is_empty() {
        // A short last group: what it yields, then the error.
        decode_group(kind, &pending, &mut out);
        o.out(&out);
        return Err(None);
    }
    Ok(true)
}

/// Streams the encoding of `r`, wrapped at `wrap` columns (0: not wrapped).
fn encode(
    kind: Kind,
    r: &mut dyn Read,
    wrap: usize,
    ctx: &Ctx,
    o: &mut Outcome,
) -> Result<bool, FsError> {
    let (ibytes, _) = kind.group();
    let mut buf = vec![0u8; 63 * 1024 - (63 * 1024) % ibytes];
    let mut carry: Vec<u8> = Vec::new();
    let mut column = 0usize;
    let mut enc = Vec::new();
    let mut out = Vec::new();
    let mut at_end = false;
    while !at_end {
        if ctx.expired() {
            return Ok(false);
        }
        let n = match r.read(&mut buf) {
            Ok(0) => {
                at_end = true;
                0
            }
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(FsError::from_io(&e)),
        };
        carry.extend_from_slice(buf.get(..n).unwrap_or_default());
        let whole = if at_end {
            carry.len()
        } else {
            carry.len() - carry.len() % ibytes
        };
        enc.clear();
        for g in carry.get(..whole).unwrap_or_default().chunks(ibytes) {
            encode_group(kind, g, &mut enc);
        }
        carry.drain(..whole);
        if wrap == 0 {
            out.extend_from_slice(&enc);
        } else {
            let mut rest: &[u8] = &enc;
            while !rest.is_empty() {
                let take = (wrap - column).min(rest.len());
                out.extend_from_slice(rest.get(..take).unwrap_or_default());
                rest = rest.get(take..).unwrap_or_default();
                column += take;
                if column == wrap {
                    out.push(b'\n');
                    column = 0;
                }
            }
        }
        o.out(std::mem::take(&mut out));
        if !ctx.flush(o) {
            return Ok(false);
        }
    }
    if wrap != 0 && column > 0 {
        o.out(b"\n");
    }
    Ok(true)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<BaseArgs>(args)?;
    let kind = if ctx.name == CommandName::Base32 {
        Kind::B32
    } else {
        Kind::B64
    };
    let wrap = match &a.wrap {
        None => 76,
        Some(w) => w
            .trim_start_matches([' ', '\t'])
            .trim_start_matches('+')
            .parse::<u64>()
            .ok()
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
            .ok_or_else(|| Stop::Fail(format!("invalid wrap size: {}", quote_locale(w))))?,
    };
    if let Some(extra) = a.files.get(1) {
        return Err(Stop::Usage(format!(
            "extra operand {}",
            quote_locale(extra)
        )));
    }
    let file = a
        .files
        .first()
        .cloned()
        .unwrap_or_else(|| OsString::from("-"));
    let mut r = open_input(ctx, &file).map_err(|e| {
        Stop::Done({
            let mut o = Outcome::status(1);
            o.err(operand_error(ctx.name, &file, &e));
            o
        })
    })?;
    let mut o = Outcome::ok();
    if a.decode {
        match decode(kind, &mut *r, a.ignore_garbage, ctx, &mut o) {
            Ok(_) => Ok(o),
            Err(None) => Err(Stop::Fail("invalid input".into()).after(o)),
            Err(Some(e)) => Err(Stop::Fail(format!("read error: {}", e.strerror())).after(o)),
        }
    } else {
        match encode(kind, &mut *r, wrap, ctx, &mut o) {
            Ok(_) => Ok(o),
            Err(e) => Err(Stop::Fail(format!("read error: {}", e.strerror())).after(o)),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::CommandName::{Base32, Base64};
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn run(name: crate::CommandName, args: &[&str], stdin: &[u8]) -> (Vec<u8>, String, i32) {
        let w = World::new(MemFs::rooted("/s").dir("/s/d")).stdin(stdin);
        let o = w.run(name, args);
        (o.stdout(), text(&o).1, o.status)
    }

    #[test]
    fn encodes_as_gnu() {
        assert_eq!(run(Base64, &[], b"").0, b"");
        assert_eq!(run(Base64, &[], b"abcd").0, b"YWJjZA==\n");
        assert_eq!(run(Base64, &["-w", "0"], b"a").0, b"YQ==");
        assert_eq!(run(Base64, &["-w", "3"], b"abcd").0, b"YWJ\njZA\n==\n");
        assert_eq!(run(Base32, &[], b"a").0, b"ME======\n");
        assert_eq!(run(Base32, &[], b"abcde").0, b"MFRGGZDF\n");
        let long = vec![b'x'; 100];
        let o = run(Base64, &[], &long).0;
        assert_eq!(o.iter().position(|&b| b == b'\n'), Some(76));
    }

    #[test]
    fn decodes_as_gnu() {
        assert_eq!(run(Base64, &["-d"], b"YWJj\nZA==\n").0, b"abcd");
        assert_eq!(run(Base64, &["-d"], b"YQ==YQ==").0, b"aa");
        assert_eq!(
            run(Base64, &["-d"], b"YQ"),
            (b"a".to_vec(), "base64: invalid input\n".into(), 1)
        );
        assert_eq!(run(Base64, &["-d"], b"YW*Jj").0, b"a");
        assert_eq!(run(Base64, &["-d"], b"Y Q==").0, b"");
        assert_eq!(run(Base64, &["-di"], b"Y Q==").0, b"a");
        assert_eq!(run(Base32, &["-d"], b"ME======").0, b"a");
        assert_eq!(run(Base32, &["-d"], b"ME").2, 1);
        assert_eq!(run(Base32, &["-d"], b"MFRGGZDF").0, b"abcde");
    }

    #[test]
    fn errors() {
        assert_eq!(
            run(Base64, &["-w", "x"], b"").1,
            "base64: invalid wrap size: 'x'\n"
        );
        assert_eq!(
            run(Base64, &["d"], b"").1,
            "base64: read error: Is a directory\n"
        );
        assert_eq!(
            run(Base64, &["a", "b"], b"").1,
            "base64: extra operand 'b'\nTry 'base64 --help' for more information.\n"
        );
    }
}
