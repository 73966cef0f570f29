//! What `md5sum`, `sha*sum`, `b2sum` and `cksum` share (coreutils 9.1's `digest.c`): the
//! algorithms, a streaming digest of one input, the output line (`HASH  NAME`, `--tag`'s
//! `ALGO (NAME) = HASH`, a leading `\` when a name holds `\`, a newline or a carriage
//! return), and `--check` with GNU's messages and counts. Never a handler.

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Read};
use std::os::unix::ffi::OsStrExt;

use blake2::digest::Output;
use blake2::digest::block_api::{Buffer, UpdateCore, VariableOutputCore};
use sha2::Digest;

use crate::support::input::{open_input, operand_error};
use crate::{Ctx, FsError, Outcome, quote_if_needed};

/// A checksum algorithm (`cksum -a`'s names).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Algo {
    Bsd,
    Sysv,
    Crc,
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
    Blake2b,
    Sm3,
}

/// `cksum -a`'s table, in GNU's order.
pub const ALGOS: [(&str, Algo); 11] = [
    ("bsd", Algo::Bsd),
    ("sysv", Algo::Sysv),
    ("crc", Algo::Crc),
    ("md5", Algo::Md5),
    ("sha1", Algo::Sha1),
    ("sha224", Algo::Sha224),
    ("sha256", Algo::Sha256),
    ("sha384", Algo::Sha384),
    ("sha512", Algo::Sha512),
    ("blake2b", Algo::Blake2b),
    ("sm3", Algo::Sm3),
];

impl Algo {
    /// The name in `--tag` lines.
    pub fn tag(self) -> &'static str {
        match self {
            Algo::Bsd => "BSD",
            Algo::Sysv => "SYSV",
            Algo::Crc => "CRC",
            Algo::Md5 => "MD5",
            Algo::Sha1 => "SHA1",
            Algo::Sha224 => "SHA224",
            Algo::Sha256 => "SHA256",
            Algo::Sha384 => "SHA384",
            Algo::Sha512 => "SHA512",
            Algo::Blake2b => "BLAKE2b",
            Algo::Sm3 => "SM3",
        }
    }

    /// The digest's length in bits (blake2b: its default, 512).
    pub fn bits(self) -> usize {
        match self {
            Algo::Md5 => 128,
            Algo::Sha1 => 160,
            Algo::Sha224 => 224,
            Algo::Sha256 | Algo::Sm3 => 256,
            Algo::Sha384 => 384,
            Algo::Sha512 | Algo::Blake2b => 512,
            Algo::Bsd | Algo::Sysv | Algo::Crc => 32,
        }
    }
}

/// A running digest.
enum Hasher {
    Md5(md5::Md5),
    Sha1(sha1::Sha1),
    Sha224(sha2::Sha224),
    Sha256(sha2::Sha256),
    Sha384(sha2::Sha384),
    Sha512(sha2::Sha512),
    Sm3(sm3::Sm3),
    Blake2b(Box<Blake2>),
}

/// `BLAKE2b` with a length chosen at run time (`-l`), over the crate's block-level core.
struct Blake2 {
    core: blake2::Blake2bVarCore,
    buf: Buffer<blake2::Blake2bVarCore>,
    len: usize,
}

impl Hasher {
    fn new(algo: Algo, bits: usize) -> Option<Hasher> {
        Some(match algo {
            Algo::Md5 => Hasher::Md5(md5::Md5::new()),
            Algo::Sha1 => Hasher::Sha1(sha1::Sha1::new()),
            Algo::Sha224 => Hasher::Sha224(sha2::Sha224::new()),
            Algo::Sha256 => Hasher::Sha256(sha2::Sha256::new()),
            Algo::Sha384 => Hasher::Sha384(sha2::Sha384::new()),
            Algo::Sha512 => Hasher::Sha512(sha2::Sha512::new()),
            Algo::Sm3 => Hasher::Sm3(sm3::Sm3::new()),
            Algo::Blake2b => Hasher::Blake2b(Box::new(Blake2 {
                core: VariableOutputCore::new(bits / 8).ok()?,
                buf: Buffer::<blake2::Blake2bVarCore>::default(),
                len: bits / 8,
            })),
            Algo::Bsd | Algo::Sysv | Algo::Crc => return None,
        })
    }

    fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Md5(h) => Digest::update(h, data),
            Hasher::Sha1(h) => Digest::update(h, data),
            Hasher::Sha224(h) => Digest::update(h, data),
            Hasher::Sha256(h) => Digest::update(h, data),
            Hasher::Sha384(h) => Digest::update(h, data),
            Hasher::Sha512(h) => Digest::update(h, data),
            Hasher::Sm3(h) => Digest::update(h, data),
            Hasher::Blake2b(h) => {
                let Blake2 { core, buf, .. } = &mut **h;
                buf.digest_blocks(data, |blocks| core.update_blocks(blocks));
            }
        }
    }

    fn finish(self) -> Vec<u8> {
        match self {
            Hasher::Md5(h) => h.finalize().to_vec(),
            Hasher::Sha1(h) => h.finalize().to_vec(),
            Hasher::Sha224(h) => h.finalize().to_vec(),
            Hasher::Sha256(h) => h.finalize().to_vec(),
            Hasher::Sha384(h) => h.finalize().to_vec(),
            Hasher::Sha512(h) => h.finalize().to_vec(),
            Hasher::Sm3(h) => h.finalize().to_vec(),
            Hasher::Blake2b(mut h) => {
                let mut out = Output::<blake2::Blake2bVarCore>::default();
                let Blake2 { core, buf, len } = &mut *h;
                core.finalize_variable_core(buf, &mut out);
                out.get(..*len).unwrap_or_default().to_vec()
            }
        }
    }
}

/// POSIX `cksum`'s CRC-32 table (polynomial 0x04C11DB7, most significant bit first).
const CRC_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        #[allow(clippy::cast_possible_truncation)]
        let mut c = (i as u32) << 24;
        let mut k = 0;
        while k < 8 {
            c = if c & 0x8000_0000 == 0 {
                c << 1
            } else {
                (c << 1) ^ 0x04C1_1DB7
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// The tables of slice-by-8: `CRC_SLICES[k][i]` is the CRC of byte `i` followed by `k`
/// zero bytes.
const CRC_SLICES: [[u32; 256]; 8] = {
    let mut t = [[0u32; 256]; 8];
    t[0] = CRC_TABLE;
    let mut k = 1;
    while k < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[k - 1][i];
            t[k][i] = (prev << 8) ^ CRC_TABLE[(prev >> 24) as usize];
            i += 1;
        }
        k += 1;
    }
    t
};

fn slice(k: usize, i: u32) -> u32 {
    CRC_SLICES
        .get(k)
        .and_then(|t| t.get((i & 0xff) as usize))
        .copied()
        .unwrap_or(0)
}

/// The CRC over `data`, eight bytes at a time.
fn crc_update(mut crc: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let [b0, b1, b2, b3, b4, b5, b6, b7] = <[u8; 8]>::try_from(c).unwrap_or_default();
        let hi = u32::from_be_bytes([b0, b1, b2, b3]) ^ crc;
        crc = slice(7, hi >> 24)
            ^ slice(6, hi >> 16)
            ^ slice(5, hi >> 8)
            ^ slice(4, hi)
            ^ slice(3, u32::from(b4))
            ^ slice(2, u32::from(b5))
            ^ slice(1, u32::from(b6))
            ^ slice(0, u32::from(b7));
    }
    chunks.remainder().iter().fold(crc, |c, &b| crc_byte(c, b))
}

fn crc_byte(crc: u32, b: u8) -> u32 {
    let idx = ((crc >> 24) ^ u32::from(b)) & 0xff;
    (crc << 8) ^ CRC_TABLE.get(idx as usize).copied().unwrap_or(0)
}

/// The state of a sum being computed.
enum Sum {
    Bsd(u16),
    Sysv(u64),
    Crc(u32),
    Digest(Box<Hasher>),
}

/// What one input summed to.
pub struct Summed {
    /// The digest, or the 32-bit checksum (big-endian) of bsd, sysv and crc.
    pub digest: Vec<u8>,
    /// How many bytes were read.
    pub len: u64,
}

/// How many bytes a read asks for.
const CHUNK: usize = 64 * 1024;

/// Reads `r` to its end in chunks and sums it. `Ok(None)` when the line's deadline passed.
/// On a read error, what was summed so far is given with the error (`cksum` prints it).
pub fn sum_stream(
    r: &mut dyn Read,
    algo: Algo,
    bits: usize,
    ctx: &Ctx,
) -> Result<Option<Summed>, (FsError, Option<Summed>)> {
    let mut state = match algo {
        Algo::Bsd => Sum::Bsd(0),
        Algo::Sysv => Sum::Sysv(0),
        Algo::Crc => Sum::Crc(0),
        _ => Sum::Digest(Box::new(
            Hasher::new(algo, bits).ok_or((FsError::InvalidArgument, None))?,
        )),
    };
    let mut buf = vec![0u8; CHUNK];
    let mut len = 0u64;
    let err = loop {
        if ctx.expired() {
            return Ok(None);
        }
        let n = match r.read(&mut buf) {
            Ok(0) => break None,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => break Some(FsError::from_io(&e)),
        };
        let chunk = buf.get(..n).unwrap_or_default();
        len += n as u64;
        match &mut state {
            Sum::Bsd(ck) => {
                for &b in chunk {
                    *ck = ck.rotate_right(1).wrapping_add(u16::from(b));
                }
            }
            Sum::Sysv(s) => {
                *s += chunk.iter().map(|&b| u64::from(b)).sum::<u64>();
            }
            Sum::Crc(c) => {
                *c = crc_update(*c, chunk);
            }
            Sum::Digest(h) => h.update(chunk),
        }
    };
    let digest = match state {
        Sum::Bsd(ck) => u32::from(ck).to_be_bytes().to_vec(),
        Sum::Sysv(s) => {
            let s = s & 0xffff_ffff;
            let r = (s & 0xffff) + (s >> 16);
            let ck = (r & 0xffff) + (r >> 16);
            u32::try_from(ck).unwrap_or(0).to_be_bytes().to_vec()
        }
        Sum::Crc(mut c) => {
            let mut n = len;
            while n != 0 {
                c = crc_byte(c, (n & 0xff) as u8);
                n >>= 8;
            }
            (!c).to_be_bytes().to_vec()
        }
        Sum::Digest(h) => (*h).finish(),
    };
    let summed = Summed { digest, len };
    match err {
        None => Ok(Some(summed)),
        Some(e) => Err((e, Some(summed))),
    }
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

/// Whether GNU escapes this name in an output line (`\`, newline, carriage return).
pub fn problematic(name: &[u8]) -> bool {
    name.iter().any(|&b| matches!(b, b'\\' | b'\n' | b'\r'))
}

/// The name as GNU's `print_filename` writes it, escaped or not.
pub fn print_name(out: &mut Vec<u8>, name: &[u8], escape: bool) {
    if !escape {
        out.extend_from_slice(name);
        return;
    }
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

/// How a digest line is written.
pub struct Style {
    pub algo: Algo,
    pub bits: usize,
    pub tagged: bool,
    pub binary: bool,
    pub zero: bool,
}

/// One output line: `HASH  NAME`, `HASH *NAME` or `ALGO (NAME) = HASH`.
pub fn digest_line(style: &Style, name: &[u8], digest: &[u8]) -> Vec<u8> {
    let escape = !style.zero && problematic(name);
    let mut out = Vec::with_capacity(name.len() + digest.len() * 2 + 16);
    if escape {
        out.push(b'\\');
    }
    if style.tagged {
        out.extend_from_slice(style.algo.tag().as_bytes());
        if style.algo == Algo::Blake2b && style.bits < 512 {
            out.extend_from_slice(format!("-{}", style.bits).as_bytes());
        }
        out.extend_from_slice(b" (");
        print_name(&mut out, name, escape);
        out.extend_from_slice(b") = ");
        out.extend_from_slice(hex(digest).as_bytes());
    } else {
        out.extend_from_slice(hex(digest).as_bytes());
        out.push(b' ');
        out.push(if style.binary { b'*' } else { b' ' });
        print_name(&mut out, name, escape);
    }
    out.push(if style.zero { 0 } else { b'\n' });
    out
}

/// `--check`'s switches.
#[allow(clippy::struct_excessive_bools)]
pub struct CheckOpts {
    pub quiet: bool,
    pub status: bool,
    pub strict: bool,
    pub warn: bool,
    pub ignore_missing: bool,
}

/// What a checksum line asks to verify.
struct Wanted {
    algo: Algo,
    bits: usize,
    hex: Vec<u8>,
    name: Vec<u8>,
}

fn is_white(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// GNU's `filename_unescape`: `\\` and `\n` (and `\r`); anything else after `\` is wrong.
fn unescape(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut it = s.iter();
    while let Some(&b) = it.next() {
        if b == b'\\' {
            match it.next() {
                Some(b'\\') => out.push(b'\\'),
                Some(b'n') => out.push(b'\n'),
                Some(b'r') => out.push(b'\r'),
                _ => return None,
            }
        } else if b == 0 {
            return None;
        } else {
            out.push(b);
        }
    }
    Some(out)
}

/// The algorithm a tagged line names (`MD5`, `BLAKE2b-256`...), among those `fixed` allows
/// (`None`: any, as `cksum -c` without `-a`); returns it, its bits and the rest of the line.
fn tagged_algo(s: &[u8], fixed: Option<(Algo, usize)>) -> Option<(Algo, usize, &[u8])> {
    let candidates: Vec<Algo> = match fixed {
        Some((a, _)) => vec![a],
        None => ALGOS.iter().map(|&(_, a)| a).collect(),
    };
    // Longest names first, so that SHA1 does not take SHA1's longer kin (none share a
    // prefix but SHA224/SHA2..., which the following space or `(` tells apart).
    for algo in candidates {
        if matches!(algo, Algo::Bsd | Algo::Sysv | Algo::Crc) {
            continue;
        }
        let tag = algo.tag().as_bytes();
        let Some(rest) = s.strip_prefix(tag) else {
            continue;
        };
        let mut bits = fixed.map_or(algo.bits(), |(_, b)| b);
        if bits == 0 {
            bits = 512;
        }
        let mut rest = rest;
        if algo == Algo::Blake2b {
            if let Some(r) = rest.strip_prefix(b"-") {
                let digits = r.iter().take_while(|b| b.is_ascii_digit()).count();
                let n: usize = std::str::from_utf8(r.get(..digits)?).ok()?.parse().ok()?;
                if n == 0 || !n.is_multiple_of(8) || n > 512 {
                    return None;
                }
                bits = n;
                rest = r.get(digits..)?;
            } else {
                bits = 512;
            }
        }
        if matches!(rest.first(), Some(b' ' | b'(')) {
            return Some((algo, bits, rest));
        }
    }
    None
}

/// GNU's `split_3`: a checksum line, tagged or not. `reversed` is GNU's static
/// `bsd_reversed` (-1 unknown, 0 standard, 1 `HASH NAME` with one space).
fn split_line(
    line: &[u8],
    fixed: Option<(Algo, usize)>,
    untagged_ok: bool,
    reversed: &mut i8,
) -> Option<Wanted> {
    let mut s = line;
    while s.first().is_some_and(|&b| is_white(b)) {
        s = s.get(1..)?;
    }
    let escaped = s.first() == Some(&b'\\');
    if escaped {
        s = s.get(1..)?;
    }
    if let Some((algo, bits, rest)) = tagged_algo(s, fixed) {
        let rest = rest.strip_prefix(b" ").unwrap_or(rest);
        if let Some(rest) = rest.strip_prefix(b"(") {
            // The name ends at the last `)`.
            let close = rest.iter().rposition(|&b| b == b')')?;
            let raw = rest.get(..close)?;
            let name = if escaped {
                unescape(raw)?
            } else {
                raw.to_vec()
            };
            let mut t = rest.get(close + 1..)?;
            while t.first().is_some_and(|&b| is_white(b)) {
                t = t.get(1..)?;
            }
            let mut t = t.strip_prefix(b"=")?;
            while t.first().is_some_and(|&b| is_white(b)) {
                t = t.get(1..)?;
            }
            return Some(Wanted {
                algo,
                bits,
                hex: t.to_vec(),
                name,
            });
        }
    }
    if !untagged_ok {
        return None;
    }
    let (algo, bits) = fixed?;
    let hex_len = if algo == Algo::Blake2b && bits == 0 {
        let n = s.iter().take_while(|b| b.is_ascii_hexdigit()).count();
        if n < 2 || !n.is_multiple_of(2) || n > 128 {
            return None;
        }
        n
    } else {
        bits / 4
    };
    let bits = hex_len * 4;
    if s.len() < hex_len + 2 + usize::from(s.first() == Some(&b'\\')) {
        return None;
    }
    let hex = s.get(..hex_len)?;
    if !s.get(hex_len).is_some_and(|&b| is_white(b)) {
        return None;
    }
    if !hex.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let mut i = hex_len + 1;
    let rest_len = s.len() - i;
    let c = s.get(i).copied();
    if rest_len == 1 || (c != Some(b' ') && c != Some(b'*')) {
        if *reversed == 0 {
            return None;
        }
        *reversed = 1;
    } else if *reversed != 1 {
        *reversed = 0;
        i += 1;
    }
    let raw = s.get(i..)?;
    let name = if escaped {
        unescape(raw)?
    } else {
        raw.to_vec()
    };
    Some(Wanted {
        algo,
        bits,
        hex: hex.to_vec(),
        name,
    })
}

/// `s` is exactly the hex of a `bits`-bit digest.
fn hex_ok(s: &[u8], bits: usize) -> bool {
    s.len() == bits / 4 && s.iter().all(u8::is_ascii_hexdigit)
}

/// Checks the lines of one checksum file (GNU's `digest_check`). `fixed`: the algorithm and
/// bits the command stands for (`None`: `cksum -c` without `-a`, the tags tell). Returns
/// whether everything was fine; false also when nobody reads the output (`*stop` set).
#[allow(clippy::too_many_lines)]
pub fn check_file(
    ctx: &Ctx,
    o: &mut Outcome,
    list: &OsStr,
    fixed: Option<(Algo, usize)>,
    untagged_ok: bool,
    opts: &CheckOpts,
    stop: &mut bool,
) -> bool {
    let cmd = ctx.name;
    let is_stdin = list == "-";
    let shown: OsString = if is_stdin {
        OsString::from("standard input")
    } else {
        list.to_os_string()
    };
    let reader = match open_input(ctx, list) {
        Ok(r) => r,
        Err(e) => {
            o.err(operand_error(cmd, list, &e));
            return false;
        }
    };
    let mut reader = BufReader::with_capacity(CHUNK, reader);
    let type_name = fixed.map_or("CRC", |(a, _)| a.tag());
    let mut reversed: i8 = -1;
    let mut misformatted = 0u64;
    let mut unreadable = 0u64;
    let mut mismatched = 0u64;
    let mut properly = false;
    let mut matched_any = false;
    let mut line_no = 0u64;
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                o.err(operand_error(cmd, list, &FsError::from_io(&e)));
                return false;
            }
        }
        line_no += 1;
        if line.first() == Some(&b'#') {
            continue;
        }
        let mut body: &[u8] = &line;
        if let Some(b) = body.strip_suffix(b"\n") {
            body = b;
        }
        if let Some(b) = body.strip_suffix(b"\r") {
            body = b;
        }
        if body.is_empty() {
            continue;
        }
        let wanted = split_line(body, fixed, untagged_ok, &mut reversed)
            .filter(|w| !(is_stdin && w.name == b"-"))
            .filter(|w| hex_ok(&w.hex, w.bits));
        let Some(w) = wanted else {
            misformatted += 1;
            if opts.warn {
                o.err(format!(
                    "{cmd}: {}: {line_no}: improperly formatted {type_name} checksum line\n",
                    quote_if_needed(&shown)
                ));
            }
            continue;
        };
        properly = true;
        let name = OsStr::from_bytes(&w.name);
        // 9.1's check mode escapes a name only for a newline.
        let escape = !opts.status && w.name.contains(&b'\n');
        let opened = open_input(ctx, name);
        let summed = match opened {
            Err(FsError::NotFound) if opts.ignore_missing => continue,
            Err(e) => Err(e),
            Ok(mut r) => match sum_stream(&mut *r, w.algo, w.bits, ctx) {
                Ok(Some(s)) => Ok(s),
                Ok(None) => {
                    *stop = true;
                    return false;
                }
                Err((e, _)) => Err(e),
            },
        };
        let mut out = Vec::new();
        match summed {
            Err(e) => {
                o.err(operand_error(cmd, name, &e));
                unreadable += 1;
                if !opts.status {
                    out.extend_from_slice(&w.name);
                    out.extend_from_slice(b": FAILED open or read\n");
                }
            }
            Ok(s) => {
                let ok = hex(&s.digest).as_bytes().eq_ignore_ascii_case(&w.hex);
                if ok {
                    matched_any = true;
                } else {
                    mismatched += 1;
                }
                if !opts.status && (!ok || !opts.quiet) {
                    if escape {
                        out.push(b'\\');
                    }
                    print_name(&mut out, &w.name, escape);
                    out.extend_from_slice(if ok { b": OK\n" } else { b": FAILED\n" });
                }
            }
        }
        o.out(out);
        if !ctx.flush(o) {
            *stop = true;
            return false;
        }
    }
    if !properly {
        o.err(format!(
            "{cmd}: {}: no properly formatted checksum lines found\n",
            quote_if_needed(&shown)
        ));
        return false;
    }
    if !opts.status {
        let plural = |n: u64, one: &str, many: &str| {
            if n == 1 {
                one.to_string()
            } else {
                many.to_string()
            }
        };
        if misformatted != 0 {
            o.err(format!(
                "{cmd}: WARNING: {misformatted} {}\n",
                plural(
                    misformatted,
                    "line is improperly formatted",
                    "lines are improperly formatted"
                )
            ));
        }
        if unreadable != 0 {
            o.err(format!(
                "{cmd}: WARNING: {unreadable} {}\n",
                plural(
                    unreadable,
                    "listed file could not be read",
                    "listed files could not be read"
                )
            ));
        }
        if mismatched != 0 {
            o.err(format!(
                "{cmd}: WARNING: {mismatched} {}\n",
                plural(
                    mismatched,
                    "computed checksum did NOT match",
                    "computed checksums did NOT match"
                )
            ));
        }
        if opts.ignore_missing && !matched_any {
            o.err(format!(
                "{cmd}: {}: no file was verified\n",
                quote_if_needed(&shown)
            ));
        }
    }
    mismatched == 0
        && unreadable == 0
        && (!opts.strict || misformatted == 0)
        && (!opts.ignore_missing || matched_any)
}

/// Sums one operand for output: `Ok(None)` when the deadline passed; an error with what was
/// summed before it.
pub fn sum_operand(
    ctx: &Ctx,
    name: &OsStr,
    algo: Algo,
    bits: usize,
) -> Result<Option<Summed>, (FsError, Option<Summed>)> {
    let mut r = open_input(ctx, name).map_err(|e| (e, None))?;
    sum_stream(&mut *r, algo, bits, ctx)
}

/// Parses a `-l`/`--length` value as GNU does: a multiple of 8 up to 512; 0 means the
/// default. Err is the diagnostic lines (without the command's prefix on the first).
pub fn parse_bits(arg: &str) -> Result<usize, Vec<String>> {
    let invalid = || format!("invalid length: {}", crate::quote_locale(arg));
    let Ok(n) = arg.parse::<u64>() else {
        return Err(vec![invalid()]);
    };
    if n > 512 {
        return Err(vec![
            invalid(),
            "maximum digest length for 'BLAKE2b' is 512 bits".into(),
        ]);
    }
    if !n.is_multiple_of(8) {
        return Err(vec![invalid(), "length is not a multiple of 8".into()]);
    }
    Ok(if n == 0 {
        512
    } else {
        usize::try_from(n).unwrap_or(512)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc_slices_agree_with_bytes() {
        let data: Vec<u8> = (0u32..1000).map(|i| (i * 7919 % 251) as u8).collect();
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 999, 1000] {
            let part = &data[..len];
            let slow = part.iter().fold(0u32, |c, &b| super::crc_byte(c, b));
            assert_eq!(super::crc_update(0, part), slow, "{len}");
        }
    }
}
