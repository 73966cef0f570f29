//! `cksum [OPTION]... [FILE]...`, coreutils 9.1: the POSIX CRC and size of each file by
//! default; `-a` picks `bsd`, `sysv` (as `sum`) or a digest (then `ALGO (NAME) = HASH` lines
//! unless `--untagged`); `-c` checks tagged lines, the tag naming the algorithm.

use std::ffi::OsString;

use crate::bytes::digest::{
    ALGOS, Algo, CheckOpts, Style, Summed, check_file, digest_line, parse_bits, sum_operand,
};
use crate::support::argmatch::argmatch;
use crate::support::args::parse_args;
use crate::support::error::try_help;
use crate::support::input::operand_error;
use crate::{Ctx, Outcome, Stop};

/// Print or verify checksums.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "cksum [OPTION]... [FILE]...")]
#[allow(clippy::struct_excessive_bools)]
pub struct CksumArgs {
    /// select the digest type to use
    #[arg(short = 'a', long = "algorithm")]
    algorithm: Option<String>,
    /// read checksums from the FILEs and check them
    #[arg(short = 'c', long = "check")]
    check: bool,
    /// digest length in bits; must not exceed the max for the blake2 algorithm and must be
    /// a multiple of 8
    #[arg(short = 'l', long = "length")]
    length: Option<String>,
    /// create a BSD-style checksum (the default)
    #[arg(long = "tag", overrides_with = "untagged")]
    tag: bool,
    /// create a reversed style checksum, without digest type
    #[arg(long = "untagged", overrides_with = "tag")]
    untagged: bool,
    /// end each output line with NUL, not newline, and disable file name escaping
    #[arg(short = 'z', long = "zero")]
    zero: bool,
    /// (not supported)
    #[arg(short = 'b', hide = true)]
    binary: bool,
    /// (not supported)
    #[arg(short = 't', hide = true)]
    text: bool,
    /// indicate which implementation is used
    #[arg(long = "debug")]
    debug: bool,
    /// don't fail or report status for missing files
    #[arg(long = "ignore-missing")]
    ignore_missing: bool,
    /// don't print OK for each successfully verified file
    #[arg(long = "quiet")]
    quiet: bool,
    /// don't output anything, status code shows success
    #[arg(long = "status")]
    status: bool,
    /// exit non-zero for improperly formatted checksum lines
    #[arg(long = "strict")]
    strict: bool,
    /// warn about improperly formatted checksum lines
    #[arg(short = 'w', long = "warn")]
    warn: bool,
    files: Vec<OsString>,
}

/// The legacy line of `bsd`, `sysv` and `crc`: checksum, size (blocks or bytes), name.
fn legacy_line(algo: Algo, s: &Summed, name: Option<&[u8]>, zero: bool) -> Vec<u8> {
    let ck = s
        .digest
        .get(..4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map_or(0, u32::from_be_bytes);
    let mut out = match algo {
        Algo::Bsd => format!("{ck:05} {:5}", s.len.div_ceil(1024)).into_bytes(),
        Algo::Sysv => format!("{ck} {}", s.len.div_ceil(512)).into_bytes(),
        _ => format!("{ck} {}", s.len).into_bytes(),
    };
    if let Some(name) = name {
        out.push(b' ');
        out.extend_from_slice(name);
    }
    out.push(if zero { 0 } else { b'\n' });
    out
}

fn validate(a: &CksumArgs) -> Result<(), Stop> {
    let rules: [(bool, &str); 6] = [
        (
            a.ignore_missing && !a.check,
            "the --ignore-missing option is meaningful only when verifying checksums",
        ),
        (
            a.status && !a.check,
            "the --status option is meaningful only when verifying checksums",
        ),
        (
            a.warn && !a.check,
            "the --warn option is meaningful only when verifying checksums",
        ),
        (
            a.quiet && !a.check,
            "the --quiet option is meaningful only when verifying checksums",
        ),
        (
            a.strict && !a.check,
            "the --strict option is meaningful only when verifying checksums",
        ),
        (
            a.zero && a.check,
            "the --zero option is not supported when verifying checksums",
        ),
    ];
    match rules.iter().find(|(bad, _)| *bad) {
        Some((_, msg)) => Err(Stop::Usage((*msg).to_string())),
        None => Ok(()),
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<CksumArgs>(args)?;
    if a.binary || a.text {
        let mut o = Outcome::status(1);
        o.err(try_help("cksum"));
        return Err(Stop::Done(o));
    }
    let algo = match &a.algorithm {
        Some(name) => Some(argmatch("--algorithm", name, &ALGOS)?),
        None => None,
    };
    let mut bits = 0;
    if let Some(l) = &a.length {
        bits = parse_bits(l).map_err(|lines| {
            let mut o = Outcome::status(1);
            for line in lines {
                o.err(format!("cksum: {line}\n"));
            }
            Stop::Done(o)
        })?;
    }
    let algo_or_crc = algo.unwrap_or(Algo::Crc);
    if a.length.is_some() && algo_or_crc != Algo::Blake2b {
        return Err(Stop::Fail(
            "--length is only supported with --algorithm=blake2b".into(),
        ));
    }
    if a.check && matches!(algo, Some(Algo::Bsd | Algo::Sysv | Algo::Crc)) {
        return Err(Stop::Fail(
            "--check is not supported with --algorithm={bsd,sysv,crc}".into(),
        ));
    }
    validate(&a)?;
    let given = !a.files.is_empty();
    let files = if given {
        a.files
    } else {
        vec![OsString::from("-")]
    };
    let mut o = Outcome::ok();
    let mut ok = true;
    if a.check {
        let opts = CheckOpts {
            quiet: a.quiet,
            status: a.status,
            strict: a.strict,
            warn: a.warn,
            ignore_missing: a.ignore_missing,
        };
        let fixed = algo.map(|al| (al, if al == Algo::Blake2b { bits } else { al.bits() }));
        for f in &files {
            let mut stop = false;
            ok &= check_file(ctx, &mut o, f, fixed, algo.is_some(), &opts, &mut stop);
            if stop {
                break;
            }
        }
        return Ok(o.with_status(i32::from(!ok)));
    }
    let bits = if bits == 0 { algo_or_crc.bits() } else { bits };
    let legacy = matches!(algo_or_crc, Algo::Bsd | Algo::Sysv | Algo::Crc);
    let style = Style {
        algo: algo_or_crc,
        bits,
        tagged: !a.untagged,
        binary: false,
        zero: a.zero,
    };
    for f in &files {
        let name = given.then(|| f.as_encoded_bytes());
        match sum_operand(ctx, f, algo_or_crc, bits) {
            Ok(Some(s)) if legacy => o.out(legacy_line(algo_or_crc, &s, name, a.zero)),
            Ok(Some(s)) => o.out(digest_line(&style, f.as_encoded_bytes(), &s.digest)),
            Ok(None) => break,
            // GNU's CRC loop does not look at read errors: it prints what it read.
            Err((_, Some(s))) if algo_or_crc == Algo::Crc => {
                o.out(legacy_line(algo_or_crc, &s, name, a.zero))
            }
            Err((e, _)) => {
                ok = false;
                o.err(operand_error(ctx.name, f, &e))
            }
        };
        if !ctx.flush(&mut o) {
            break;
        }
    }
    Ok(o.with_status(i32::from(!ok)))
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Cksum;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .dir("/s/d")
                .file("/s/a", b"abc\n")
                .file("/s/t", b"MD5 (a) = 0bee89b07a248e27c83fc3d5951213c1\n"),
        )
    }

    #[test]
    fn sums_as_gnu() {
        // Expected values from GNU coreutils 9.1.
        let w = world().stdin(b"abc\n");
        assert_eq!(text(&w.run(Cksum, &["a"])).0, "1112837078 4 a\n");
        assert_eq!(text(&w.run(Cksum, &[])).0, "1112837078 4\n");
        assert_eq!(text(&w.run(Cksum, &["-a", "sysv", "a"])).0, "304 1 a\n");
        assert_eq!(
            text(&w.run(Cksum, &["-a", "bsd", "a"])).0,
            "08288     1 a\n"
        );
        assert_eq!(
            text(&w.run(Cksum, &["-a", "md5", "a"])).0,
            "MD5 (a) = 0bee89b07a248e27c83fc3d5951213c1\n"
        );
        assert_eq!(
            text(&w.run(Cksum, &["-a", "blake2b", "-l", "64", "--untagged", "a"])).0,
            "f82a8208702cda5b  a\n"
        );
        assert_eq!(text(&w.run(Cksum, &["d"])).0, "4294967295 0 d\n");
    }

    #[test]
    fn check_and_errors() {
        let w = world();
        assert_eq!(text(&w.run(Cksum, &["-c", "t"])).0, "a: OK\n");
        assert_eq!(
            text(&w.run(Cksum, &["-l", "256", "a"])).1,
            "cksum: --length is only supported with --algorithm=blake2b\n"
        );
        assert_eq!(
            text(&w.run(Cksum, &["-a", "crc", "-c", "t"])).1,
            "cksum: --check is not supported with --algorithm={bsd,sysv,crc}\n"
        );
        assert_eq!(
            text(&w.run(Cksum, &["-a", "blake2b", "-l", "7", "a"])).1,
            "cksum: invalid length: '7'\ncksum: length is not a multiple of 8\n"
        );
    }
}
