//! `od [OPTION]... [FILE]...`, coreutils 9.1: dumps the concatenated inputs in blocks of 16
//! bytes (`-w`), one line per `-t` type (`a c d o u x` with sizes `1 2 4 8 C S I L`, `z`
//! for the `>text<` trailer; the traditional `-a -b -c -d -i -l -o -s -x`), fields aligned
//! across types as GNU pads them, repeated blocks shown as one `*` (unless `-v`), the
//! address in `-A d|o|x|n`, `-j` skipped and `-N` read. Floating-point types are not
//! emulated. Input streams block by block.

use std::ffi::OsString;

use crate::bytes::Inputs;
use crate::support::args::parse_args;
use crate::support::input::operands_or_stdin;
use crate::{Ctx, Outcome, Stop, quote_locale};

/// Write an unambiguous representation, octal bytes by default, of FILE to standard output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "od [OPTION]... [FILE]...")]
#[allow(clippy::struct_excessive_bools)]
pub struct OdArgs {
    /// output format for file offsets; RADIX is one of [doxn]
    #[arg(short = 'A', long = "address-radix", value_name = "RADIX")]
    radix: Option<String>,
    /// skip BYTES input bytes first
    #[arg(short = 'j', long = "skip-bytes", value_name = "BYTES")]
    skip: Option<String>,
    /// limit dump to BYTES input bytes
    #[arg(short = 'N', long = "read-bytes", value_name = "BYTES")]
    limit: Option<String>,
    /// select output format or formats
    #[arg(short = 't', long = "format", value_name = "TYPE")]
    format: Vec<String>,
    /// do not use * to mark line suppression
    #[arg(short = 'v', long = "output-duplicates")]
    verbose: bool,
    /// output BYTES bytes per output line; 32 is implied when BYTES is not specified
    #[arg(short = 'w', long = "width", value_name = "BYTES", num_args = 0..=1, default_missing_value = "32")]
    width: Option<String>,
    /// same as -t a, select named characters, ignoring high-order bit
    #[arg(short = 'a')]
    a: bool,
    /// same as -t o1, select octal bytes
    #[arg(short = 'b')]
    b: bool,
    /// same as -t c, select printable characters or backslash escapes
    #[arg(short = 'c')]
    c: bool,
    /// same as -t u2, select unsigned decimal 2-byte units
    #[arg(short = 'd')]
    d: bool,
    /// same as -t dI
    #[arg(short = 'i')]
    i: bool,
    /// same as -t dL
    #[arg(short = 'l')]
    l: bool,
    /// same as -t o2, select octal 2-byte units
    #[arg(short = 'o')]
    o: bool,
    /// same as -t d2, select decimal 2-byte units
    #[arg(short = 's')]
    s: bool,
    /// same as -t x2, select hexadecimal 2-byte units
    #[arg(short = 'x')]
    x: bool,
    files: Vec<OsString>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fmt {
    Signed,
    Unsigned,
    Octal,
    Hex,
    Named,
    Char,
}

#[derive(Clone, Debug)]
struct Spec {
    fmt: Fmt,
    size: usize,
    width: usize,
    pad: usize,
    trailer: bool,
}

fn field_width(fmt: Fmt, size: usize) -> usize {
    let i = match size {
        1 => 0,
        2 => 1,
        4 => 2,
        _ => 3,
    };
    let t: [usize; 4] = match fmt {
        Fmt::Signed => [4, 6, 11, 20],
        Fmt::Unsigned => [3, 5, 10, 20],
        Fmt::Octal => [3, 6, 11, 22],
        Fmt::Hex => [2, 4, 8, 16],
        Fmt::Named | Fmt::Char => [3, 3, 3, 3],
    };
    t.get(i).copied().unwrap_or(3)
}

/// Parses one `-t` string into its specs (GNU's `decode_format_string`).
#[allow(clippy::many_single_char_names)]
fn parse_type(s: &str, specs: &mut Vec<Spec>) -> Result<(), Stop> {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let start = i;
        i += 1;
        let fmt = match c {
            b'd' => Fmt::Signed,
            b'u' => Fmt::Unsigned,
            b'o' => Fmt::Octal,
            b'x' => Fmt::Hex,
            b'a' => Fmt::Named,
            b'c' => Fmt::Char,
            _ => {
                return Err(Stop::Fail(format!(
                    "invalid character '{}' in type string {}",
                    char::from(c),
                    quote_locale(s)
                )));
            }
        };
        let mut size = 1;
        if !matches!(fmt, Fmt::Named | Fmt::Char) {
            size = 4;
            match b.get(i) {
                Some(b'C') => {
                    size = 1;
                    i += 1;
                }
                Some(b'S') => {
                    size = 2;
                    i += 1;
                }
                Some(b'I') => {
                    size = 4;
                    i += 1;
                }
                Some(b'L') => {
                    size = 8;
                    i += 1;
                }
                Some(d) if d.is_ascii_digit() => {
                    let n = b
                        .get(i..)
                        .unwrap_or_default()
                        .iter()
                        .take_while(|d| d.is_ascii_digit())
                        .count();
                    let digits = s.get(i..i + n).unwrap_or("0");
                    i += n;
                    size = digits.parse().unwrap_or(0);
                    if !matches!(size, 1 | 2 | 4 | 8) {
                        return Err(Stop::Fail(format!(
                            "invalid type string {};\nthis system doesn't provide a {}-byte integral type",
                            quote_locale(s.get(start..i).unwrap_or(s)),
                            digits
                        )));
                    }
                }
                _ => {}
            }
        }
        let trailer = b.get(i) == Some(&b'z');
        if trailer {
            i += 1;
        }
        specs.push(Spec {
            fmt,
            size,
            width: field_width(fmt, size),
            pad: 0,
            trailer,
        });
    }
    Ok(())
}

/// The type specs in the order the options came (GNU keeps them in command-line order).
fn ordered_specs(args: &[OsString]) -> Result<Vec<Spec>, Stop> {
    let mut specs = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let arg = arg.to_string_lossy();
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let takes = ["address-radix", "skip-bytes", "read-bytes", "format"];
            if !name.is_empty() && "format".starts_with(name) {
                let v = match value {
                    Some(v) => v,
                    None => it
                        .next()
                        .map(|v| v.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                };
                parse_type(&v, &mut specs)?;
            } else if value.is_none()
                && takes
                    .iter()
                    .any(|t| !name.is_empty() && t.starts_with(name))
            {
                it.next();
            }
            continue;
        }
        let Some(letters) = arg.strip_prefix('-') else {
            continue;
        };
        for (pos, c) in letters.char_indices() {
            let rest = letters.get(pos + c.len_utf8()..).unwrap_or("");
            let traditional = match c {
                'a' => "a",
                'b' => "o1",
                'c' => "c",
                'd' => "u2",
                'i' => "dI",
                'l' => "dL",
                'o' => "o2",
                's' => "d2",
                'x' => "x2",
                _ => "",
            };
            if !traditional.is_empty() {
                parse_type(traditional, &mut specs)?;
                continue;
            }
            match c {
                't' => {
                    let v = if rest.is_empty() {
                        it.next()
                            .map(|v| v.to_string_lossy().into_owned())
                            .unwrap_or_default()
                    } else {
                        rest.to_string()
                    };
                    parse_type(&v, &mut specs)?;
                    break;
                }
                'A' | 'j' | 'N' | 'S' => {
                    if rest.is_empty() {
                        it.next();
                    }
                    break;
                }
                'w' => break,
                _ => {}
            }
        }
    }
    Ok(specs)
}

/// GNU's `xstrtoumax` with od's suffixes: decimal, `0x` hex or `0` octal, then `b` (512),
/// `k`/`K` (1024), `m`/`M`, `G`..., `KB` (1000)...
fn parse_bytes(s: &str) -> Option<u64> {
    let (digits_base, body) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))
    {
        (16, h)
    } else if s.len() > 1 && s.starts_with('0') {
        (8, s.get(1..)?)
    } else {
        (10, s)
    };
    let n = body.chars().take_while(|c| c.is_digit(digits_base)).count();
    if n == 0 && digits_base != 8 {
        return None;
    }
    let v = if n == 0 {
        0
    } else {
        u64::from_str_radix(body.get(..n)?, digits_base).ok()?
    };
    let suffix = body.get(n..)?;
    let mul: u64 = match suffix {
        "" => 1,
        "b" => 512,
        "k" | "K" | "KiB" => 1024,
        "KB" | "kB" => 1000,
        "m" | "M" | "MiB" => 1 << 20,
        "MB" => 1_000_000,
        "G" | "g" | "GiB" => 1 << 30,
        "GB" => 1_000_000_000,
        "T" | "TiB" => 1 << 40,
        "TB" => 1_000_000_000_000,
        _ => return None,
    };
    v.checked_mul(mul)
}

const NAMES: [&str; 33] = [
    "nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "nl", "vt", "ff", "cr",
    "so", "si", "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em", "sub", "esc",
    "fs", "gs", "rs", "us", "sp",
];

/// One field's text.
fn field(spec: &Spec, bytes: &[u8]) -> String {
    let mut v: u64 = 0;
    for (k, &b) in bytes.iter().enumerate().take(spec.size) {
        v |= u64::from(b) << (8 * k);
    }
    let first = bytes.first().copied().unwrap_or(0);
    match spec.fmt {
        Fmt::Signed => {
            let bits = spec.size * 8;
            #[allow(clippy::cast_possible_wrap)]
            let sv = if bits == 64 {
                v as i64
            } else {
                let shift = 64 - bits;
                ((v << shift) as i64) >> shift
            };
            sv.to_string()
        }
        Fmt::Unsigned => v.to_string(),
        Fmt::Octal => format!("{v:0w$o}", w = spec.width),
        Fmt::Hex => format!("{v:0w$x}", w = spec.width),
        Fmt::Named => {
            let c = first & 0x7f;
            match NAMES.get(usize::from(c)) {
                Some(n) => (*n).to_string(),
                None if c == 0x7f => "del".into(),
                None => char::from(c).to_string(),
            }
        }
        Fmt::Char => match first {
            0 => "\\0".into(),
            7 => "\\a".into(),
            8 => "\\b".into(),
            12 => "\\f".into(),
            b'\n' => "\\n".into(),
            b'\r' => "\\r".into(),
            b'\t' => "\\t".into(),
            11 => "\\v".into(),
            0x20..=0x7e => char::from(first).to_string(),
            _ => format!("{first:03o}"),
        },
    }
}

struct Layout {
    specs: Vec<Spec>,
    per_line: usize,
    radix: u8,
}

impl Layout {
    fn address(&self, addr: u64, out: &mut Vec<u8>) {
        let s = match self.radix {
            b'd' => format!("{addr:07}"),
            b'x' => format!("{addr:06x}"),
            b'n' => String::new(),
            _ => format!("{addr:07o}"),
        };
        out.extend_from_slice(s.as_bytes());
    }

    fn write_block(&self, addr: u64, block: &[u8], out: &mut Vec<u8>) {
        let addr_width = match self.radix {
            b'n' => 0,
            b'x' => 6,
            _ => 7,
        };
        let mut padded = block.to_vec();
        padded.resize(self.per_line, 0);
        for (k, spec) in self.specs.iter().enumerate() {
            if k == 0 {
                self.address(addr, out);
            } else {
                out.resize(out.len() + addr_width, b' ');
            }
            let fields = self.per_line / spec.size;
            let shown = block.len().div_ceil(spec.size);
            let blank = fields - shown.min(fields);
            let mut pad_remaining = spec.pad;
            for i in (blank + 1..=fields).rev() {
                let next_pad = spec.pad * (i - 1) / fields;
                let w = pad_remaining - next_pad + spec.width;
                let at = (fields - i) * spec.size;
                let text = field(spec, padded.get(at..at + spec.size).unwrap_or_default());
                out.extend_from_slice(format!("{text:>w$}").as_bytes());
                pad_remaining = next_pad;
            }
            if spec.trailer {
                let blank_fields = (self.per_line - block.len()) / spec.size;
                out.resize(out.len() + blank_fields * (spec.width + 1), b' ');
                out.extend_from_slice(b"  >");
                out.extend(
                    block
                        .iter()
                        .map(|&b| if (0x20..0x7f).contains(&b) { b } else { b'.' }),
                );
                out.push(b'<');
            }
            out.push(b'\n');
        }
    }
}

#[allow(clippy::too_many_lines)]
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<OdArgs>(args)?;
    let mut specs = ordered_specs(args)?;
    if specs.is_empty() {
        parse_type("o2", &mut specs)?;
    }
    let radix = match a.radix.as_deref() {
        None => b'o',
        Some(r @ ("d" | "o" | "x" | "n")) => r.as_bytes().first().copied().unwrap_or(b'o'),
        Some(r) => {
            return Err(Stop::Fail(format!(
                "invalid output address radix '{}'; it must be one character from [doxn]",
                r.chars().next().unwrap_or(' ')
            )));
        }
    };
    let skip = match &a.skip {
        None => 0,
        Some(s) => parse_bytes(s)
            .ok_or_else(|| Stop::Fail(format!("invalid -j argument {}", quote_locale(s))))?,
    };
    let limit = match &a.limit {
        None => None,
        Some(s) => Some(
            parse_bytes(s)
                .ok_or_else(|| Stop::Fail(format!("invalid -N argument {}", quote_locale(s))))?,
        ),
    };
    let lcm = specs.iter().map(|s| s.size).fold(1, |acc, s| {
        let (mut x, mut y) = (acc, s);
        while y != 0 {
            (x, y) = (y, x % y);
        }
        acc / x * s
    });
    let mut o = Outcome::ok();
    let per_line = match &a.width {
        None => 16,
        Some(w) => {
            let n: usize =
                w.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                    Stop::Fail(format!("invalid -w argument {}", quote_locale(w)))
                })?;
            if n > 1 << 24 {
                return Err(Stop::Fail("memory exhausted".into()));
            }
            if n.is_multiple_of(lcm) {
                n
            } else {
                o.err(format!(
                    "od: warning: invalid width {n}; using {lcm} instead\n"
                ));
                lcm
            }
        }
    };
    let per_line = if per_line.is_multiple_of(lcm) {
        per_line
    } else {
        lcm
    };
    let width_per_block = specs
        .iter()
        .map(|s| (s.width + 1) * (per_line / s.size))
        .max()
        .unwrap_or(0);
    for s in &mut specs {
        s.pad = width_per_block - s.width * (per_line / s.size);
    }
    let layout = Layout {
        specs,
        per_line,
        radix,
    };
    let mut inputs = Inputs::new(ctx, operands_or_stdin(a.files));
    // Skip -j bytes.
    let mut left = skip;
    let mut scratch = vec![0u8; 64 * 1024];
    while left > 0 {
        if ctx.expired() {
            return Ok(o.with_status(1));
        }
        let want = usize::try_from(left.min(scratch.len() as u64)).unwrap_or(scratch.len());
        let n = inputs.fill(scratch.get_mut(..want).unwrap_or_default(), &mut o);
        if n == 0 {
            o.err("od: cannot skip past end of combined input\n");
            return Ok(o.with_status(1));
        }
        left -= n as u64;
    }
    let mut addr = skip;
    let mut remaining = limit;
    let mut prev: Option<Vec<u8>> = None;
    let mut starred = false;
    let mut block = vec![0u8; per_line];
    let mut out = Vec::new();
    loop {
        if ctx.expired() {
            break;
        }
        let want = remaining.map_or(per_line, |r| {
            usize::try_from(r.min(per_line as u64)).unwrap_or(per_line)
        });
        if want == 0 {
            break;
        }
        let n = inputs.fill(block.get_mut(..want).unwrap_or_default(), &mut o);
        if n == 0 {
            break;
        }
        let cur = block.get(..n).unwrap_or_default();
        if !a.verbose && n == per_line && prev.as_deref() == Some(cur) {
            if !starred {
                out.extend_from_slice(b"*\n");
                starred = true;
            }
        } else {
            starred = false;
            layout.write_block(addr, cur, &mut out);
            prev = Some(cur.to_vec());
        }
        addr += n as u64;
        if let Some(r) = remaining.as_mut() {
            *r -= n as u64;
        }
        o.out(std::mem::take(&mut out));
        if !ctx.flush(&mut o) {
            return Ok(o.with_status(i32::from(inputs.failed)));
        }
        if n < want {
            break;
        }
    }
    if radix != b'n' {
        layout.address(addr, &mut out);
        out.push(b'\n');
    }
    o.out(out);
    Ok(o.with_status(i32::from(inputs.failed)))
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Od;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn od(args: &[&str], stdin: &[u8]) -> (String, String, i32) {
        let w = World::new(MemFs::rooted("/s")).stdin(stdin);
        text(&w.run(Od, args))
    }

    const BIN: &[u8] = b"abc\0\n\t\x80\xffhello world, this is more than 16\n";

    #[test]
    fn formats_as_gnu() {
        // Expected outputs from GNU coreutils 9.1.
        assert_eq!(od(&[], b"abc").0, "0000000 061141 000143\n0000003\n");
        assert_eq!(
            od(&["-c"], BIN).0,
            "0000000   a   b   c  \\0  \\n  \\t 200 377   h   e   l   l   o       w   o\n0000020   r   l   d   ,       t   h   i   s       i   s       m   o   r\n0000040   e       t   h   a   n       1   6  \\n\n0000052\n"
        );
        assert_eq!(
            od(&["-An", "-tx1z"], b"ab\n").0,
            " 61 62 0a                                         >ab.<\n"
        );
        assert_eq!(
            od(&["-Ad", "-td2", "-N", "8"], BIN).0,
            "0000000  25185     99   2314   -128\n0000008\n"
        );
        assert_eq!(
            od(&["-tx1", "-tc", "-td2", "-N4"], BIN).0,
            "0000000  61  62  63  00\n          a   b   c  \\0\n          25185      99\n0000004\n"
        );
        assert_eq!(
            od(&["-a", "-N8"], BIN).0,
            "0000000   a   b   c nul  nl  ht nul del\n0000010\n"
        );
        assert_eq!(
            od(&["-tx1"], &[b'0'; 32]).0,
            "0000000 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30\n*\n0000040\n"
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            od(&["-j", "100"], b"x").1,
            "od: cannot skip past end of combined input\n"
        );
        assert_eq!(
            od(&["-tq"], b"x").1,
            "od: invalid character 'q' in type string 'q'\n"
        );
        assert_eq!(
            od(&["-A", "y"], b"x").1,
            "od: invalid output address radix 'y'; it must be one character from [doxn]\n"
        );
    }
}
