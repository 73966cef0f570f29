//! `hexdump [options] <file>...` (util-linux 2.38): the default format (eight 2-byte words
//! in hex per 16 bytes) and `-C` (canonical hex+ASCII), with `-n` length, `-s` offset, `-v`
//! (no `*` for repeated lines). Inputs are concatenated and streamed; other formats (`-e`,
//! `-b`, `-c`, `-d`, `-o`, `-x`) are not emulated.

use std::ffi::OsString;

use crate::bytes::Inputs;
use crate::support::args::parse_args;
use crate::support::input::operands_or_stdin;
use crate::{Ctx, Outcome, Stop, quote_locale};

/// Display file contents in hexadecimal, decimal, octal, or ascii.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "hexdump [options] <file>...")]
pub struct HexdumpArgs {
    /// canonical hex+ASCII display
    #[arg(short = 'C', long = "canonical")]
    canonical: bool,
    /// interpret only length bytes of input
    #[arg(short = 'n', long = "length", value_name = "length")]
    length: Option<String>,
    /// skip offset bytes from the beginning
    #[arg(short = 's', long = "skip", value_name = "offset")]
    skip: Option<String>,
    /// display all input data
    #[arg(short = 'v', long = "no-squeezing")]
    verbose: bool,
    files: Vec<OsString>,
}

/// util-linux's `strtosize`: a number (C bases) with an optional `K`, `KiB`, `KB`, `M`...
fn parse_size(s: &str) -> Option<u64> {
    let (radix, body) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (16, h)
    } else if s.len() > 1 && s.starts_with('0') {
        (8, s.get(1..)?)
    } else {
        (10, s)
    };
    let n = body.chars().take_while(|c| c.is_digit(radix)).count();
    if n == 0 {
        return None;
    }
    let v = u64::from_str_radix(body.get(..n)?, radix).ok()?;
    let suffix = body.get(n..)?;
    let mul: u64 = match suffix {
        "" => 1,
        "K" | "k" | "KiB" => 1 << 10,
        "KB" => 1000,
        "M" | "m" | "MiB" => 1 << 20,
        "MB" => 1_000_000,
        "G" | "g" | "GiB" => 1 << 30,
        "GB" => 1_000_000_000,
        _ => return None,
    };
    v.checked_mul(mul)
}

fn write_line(canonical: bool, addr: u64, block: &[u8], out: &mut Vec<u8>) {
    if canonical {
        out.extend_from_slice(format!("{addr:08x}  ").as_bytes());
        for i in 0..16 {
            match block.get(i) {
                Some(b) => out.extend_from_slice(format!("{b:02x} ").as_bytes()),
                None => out.extend_from_slice(b"   "),
            }
            if i == 7 {
                out.push(b' ');
            }
        }
        out.extend_from_slice(b" |");
        out.extend(
            block
                .iter()
                .map(|&b| if (0x20..0x7f).contains(&b) { b } else { b'.' }),
        );
        out.extend_from_slice(b"|\n");
    } else {
        out.extend_from_slice(format!("{addr:07x}").as_bytes());
        for i in 0..8 {
            let lo = block.get(2 * i);
            let hi = block.get(2 * i + 1).copied().unwrap_or(0);
            match lo {
                Some(&lo) => out
                    .extend_from_slice(format!(" {:04x}", u16::from_le_bytes([lo, hi])).as_bytes()),
                None => out.extend_from_slice(b"     "),
            }
        }
        out.push(b'\n');
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<HexdumpArgs>(args)?;
    let size = |opt: &Option<String>| -> Result<Option<u64>, Stop> {
        match opt {
            None => Ok(None),
            Some(s) => parse_size(s).map(Some).ok_or_else(|| {
                Stop::Fail(format!("failed to parse argument: {}", quote_locale(s)))
            }),
        }
    };
    let length = size(&a.length)?;
    let skip = size(&a.skip)?.unwrap_or(0);
    let given = a.files.len();
    let mut inputs = Inputs::new(ctx, operands_or_stdin(a.files));
    let mut o = Outcome::ok();
    let mut scratch = vec![0u8; 64 * 1024];
    let mut addr = 0u64;
    while addr < skip {
        if ctx.expired() {
            return Ok(o);
        }
        let want = usize::try_from((skip - addr).min(scratch.len() as u64)).unwrap_or(0);
        let n = inputs.fill(scratch.get_mut(..want).unwrap_or_default(), &mut o);
        if n == 0 {
            break;
        }
        addr += n as u64;
    }
    let mut remaining = length;
    let mut block = [0u8; 16];
    let mut prev: Option<[u8; 16]> = None;
    let mut starred = false;
    let mut out = Vec::new();
    let mut any = addr > 0;
    loop {
        if ctx.expired() {
            break;
        }
        let want = remaining.map_or(16, |r| usize::try_from(r.min(16)).unwrap_or(16));
        if want == 0 {
            break;
        }
        let n = inputs.fill(block.get_mut(..want).unwrap_or_default(), &mut o);
        if n == 0 {
            break;
        }
        any = true;
        if !a.verbose && n == 16 && prev == Some(block) {
            if !starred {
                out.extend_from_slice(b"*\n");
                starred = true;
            }
        } else {
            starred = false;
            write_line(
                a.canonical,
                addr,
                block.get(..n).unwrap_or_default(),
                &mut out,
            );
            prev = (n == 16).then_some(block);
        }
        addr += n as u64;
        if let Some(r) = remaining.as_mut() {
            *r -= n as u64;
        }
        o.out(std::mem::take(&mut out));
        if !ctx.flush(&mut o) {
            return Ok(o);
        }
        if n < want {
            break;
        }
    }
    if inputs.failed && !any && given > 0 {
        o.err("hexdump: all input file arguments failed\n");
        return Ok(o.with_status(1));
    }
    if any {
        if a.canonical {
            out.extend_from_slice(format!("{addr:08x}\n").as_bytes());
        } else {
            out.extend_from_slice(format!("{addr:07x}\n").as_bytes());
        }
    }
    o.out(out);
    Ok(o.with_status(i32::from(inputs.failed)))
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Hexdump;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    const BIN: &[u8] = b"abc\0\n\t\x80\xffhello world, this is more than 16\n";

    fn hd(args: &[&str], stdin: &[u8]) -> (String, String, i32) {
        let w = World::new(MemFs::rooted("/s")).stdin(stdin);
        text(&w.run(Hexdump, args))
    }

    #[test]
    fn dumps_as_util_linux() {
        // Expected outputs from util-linux 2.38's hexdump.
        assert_eq!(
            hd(&["-C"], BIN).0,
            "00000000  61 62 63 00 0a 09 80 ff  68 65 6c 6c 6f 20 77 6f  |abc.....hello wo|\n00000010  72 6c 64 2c 20 74 68 69  73 20 69 73 20 6d 6f 72  |rld, this is mor|\n00000020  65 20 74 68 61 6e 20 31  36 0a                    |e than 16.|\n0000002a\n"
        );
        assert_eq!(
            hd(&[], b"abc").0,
            "0000000 6261 0063                              \n0000003\n"
        );
        assert_eq!(hd(&["-C"], b"").0, "");
        assert_eq!(
            hd(&["-C", "-n", "5", "-s", "2"], BIN).0,
            "00000002  63 00 0a 09 80                                    |c....|\n00000007\n"
        );
        assert_eq!(
            hd(&[], &[b'0'; 48]).0,
            "0000000 3030 3030 3030 3030 3030 3030 3030 3030\n*\n0000030\n"
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            hd(&["nope"], b""),
            (
                String::new(),
                "hexdump: nope: No such file or directory\nhexdump: all input file arguments failed\n".into(),
                1
            )
        );
    }
}
