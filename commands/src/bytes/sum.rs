//! `md5sum`, `sha1sum`, `sha224sum`, `sha256sum`, `sha384sum`, `sha512sum`, `b2sum`
//! (coreutils 9.1; one handler, the algorithm told by the name): print or `--check` message
//! digests. Files are read in 64 KiB chunks, never whole.

use std::ffi::OsString;

use crate::bytes::digest::{
    Algo, CheckOpts, Style, check_file, digest_line, parse_bits, sum_operand,
};
use crate::support::args::parse_args;
use crate::support::input::{operand_error, operands_or_stdin};
use crate::{CommandName, Ctx, Outcome, Stop};

/// Print or check message digests.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "md5sum [OPTION]... [FILE]...")]
#[allow(clippy::struct_excessive_bools)]
pub struct SumArgs {
    /// read in binary mode
    #[arg(short = 'b', long = "binary", overrides_with = "text")]
    binary: bool,
    /// read checksums from the FILEs and check them
    #[arg(short = 'c', long = "check")]
    check: bool,
    /// digest length in bits (b2sum)
    #[arg(short = 'l', long = "length")]
    length: Option<String>,
    /// create a BSD-style checksum
    #[arg(long = "tag")]
    tag: bool,
    /// read in text mode (default)
    #[arg(short = 't', long = "text", overrides_with = "binary")]
    text: bool,
    /// end each output line with NUL, not newline, and disable file name escaping
    #[arg(short = 'z', long = "zero")]
    zero: bool,
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

fn algo_of(name: CommandName) -> Algo {
    match name {
        CommandName::Sha1sum => Algo::Sha1,
        CommandName::Sha224sum => Algo::Sha224,
        CommandName::Sha256sum => Algo::Sha256,
        CommandName::Sha384sum => Algo::Sha384,
        CommandName::Sha512sum => Algo::Sha512,
        CommandName::B2sum => Algo::Blake2b,
        _ => Algo::Md5,
    }
}

/// GNU's checks of option combinations, in its order.
fn validate(a: &SumArgs) -> Result<(), Stop> {
    let mode_given = a.binary || a.text;
    let rules: [(bool, &str); 9] = [
        (
            a.tag && a.check,
            "the --tag option is meaningless when verifying checksums",
        ),
        (
            mode_given && a.check,
            "the --binary and --text options are meaningless when verifying checksums",
        ),
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
        (a.tag && a.text, "--tag does not support --text mode"),
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
    let a = parse_args::<SumArgs>(args)?;
    let algo = algo_of(ctx.name);
    let mut bits = algo.bits();
    if let Some(l) = &a.length {
        if algo != Algo::Blake2b {
            return Err(Stop::Usage("invalid option -- 'l'".into()));
        }
        bits = parse_bits(l).map_err(|lines| {
            let mut o = Outcome::status(1);
            for line in lines {
                o.err(format!("{}: {line}\n", ctx.name));
            }
            Stop::Done(o)
        })?;
    }
    validate(&a)?;
    let files = operands_or_stdin(a.files);
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
        // b2sum without -l takes the length from each line.
        let fixed_bits = if algo == Algo::Blake2b && a.length.is_none() {
            0
        } else {
            bits
        };
        for f in &files {
            let mut stop = false;
            ok &= check_file(
                ctx,
                &mut o,
                f,
                Some((algo, fixed_bits)),
                true,
                &opts,
                &mut stop,
            );
            if stop {
                break;
            }
        }
        return Ok(o.with_status(i32::from(!ok)));
    }
    let style = Style {
        algo,
        bits,
        tagged: a.tag,
        binary: a.binary,
        zero: a.zero,
    };
    for f in &files {
        match sum_operand(ctx, f, algo, bits) {
            Ok(Some(s)) => {
                o.out(digest_line(&style, f.as_encoded_bytes(), &s.digest));
            }
            Ok(None) => break,
            Err((e, _)) => {
                o.err(operand_error(ctx.name, f, &e));
                ok = false;
            }
        }
        if !ctx.flush(&mut o) {
            break;
        }
    }
    Ok(o.with_status(i32::from(!ok)))
}

#[cfg(test)]
mod tests {
    use crate::CommandName::{B2sum, Md5sum, Sha1sum, Sha256sum, Sha512sum};
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .dir("/s/d")
                .file("/s/a", b"abc\n")
                .file("/s/b\\c", b"x")
                .file(
                    "/s/sums",
                    b"0bee89b07a248e27c83fc3d5951213c1  a\njunk\n0bee89b07a248e27c83fc3d5951213c2  a\n",
                ),
        )
    }

    #[test]
    fn digests_as_gnu() {
        // Expected values from GNU coreutils 9.1.
        let w = world().stdin(b"");
        assert_eq!(
            text(&w.run(Md5sum, &["a", "-"])).0,
            "0bee89b07a248e27c83fc3d5951213c1  a\nd41d8cd98f00b204e9800998ecf8427e  -\n"
        );
        assert_eq!(
            text(&w.run(Md5sum, &["--tag", "b\\c"])).0,
            "\\MD5 (b\\\\c) = 9dd4e461268c8034f5c8564e155c67a6\n"
        );
        assert_eq!(
            text(&w.run(Sha1sum, &["-b", "a"])).0,
            "03cfd743661f07975fa2f1220c5194cbaff48451 *a\n"
        );
        assert_eq!(
            text(&w.run(Sha256sum, &["a"])).0,
            "edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb  a\n"
        );
        assert_eq!(
            text(&w.run(B2sum, &["-l", "64", "a"])).0,
            "f82a8208702cda5b  a\n"
        );
        assert!(
            text(&w.run(Sha512sum, &["a"]))
                .0
                .starts_with("4f285d0c0cc77286")
        );
    }

    #[test]
    fn errors_and_check() {
        let w = world();
        assert_eq!(
            text(&w.run(Md5sum, &["nope", "d"])),
            (
                String::new(),
                "md5sum: nope: No such file or directory\nmd5sum: d: Is a directory\n".into(),
                1
            )
        );
        assert_eq!(
            text(&w.run(Md5sum, &["-c", "sums"])),
            (
                "a: OK\na: FAILED\n".into(),
                "md5sum: WARNING: 1 line is improperly formatted\nmd5sum: WARNING: 1 computed checksum did NOT match\n".into(),
                1
            )
        );
        assert_eq!(
            text(&w.run(Md5sum, &["--quiet", "a"])).1,
            "md5sum: the --quiet option is meaningful only when verifying checksums\nTry 'md5sum --help' for more information.\n"
        );
        let w = world().stdin(b"junk\n");
        assert_eq!(
            text(&w.run(Md5sum, &["-c"])).1,
            "md5sum: 'standard input': no properly formatted checksum lines found\n"
        );
    }
}
