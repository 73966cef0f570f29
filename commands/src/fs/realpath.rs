//! `realpath [-e|-m] [-s|-L|-P] [-q] [-z] [--relative-to=DIR] [--relative-base=DIR] FILE...`,
//! GNU coreutils 9.1, on [`super::canon`]: a path through a link that leads out of the
//! sandbox reads as missing.

use std::ffi::OsString;
use std::path::PathBuf;

use super::canon::{Exist, Shown, canonicalize, path_prefix, print_each, relative};
use crate::Stop;
use crate::support::args::parse_args;
use crate::support::paths::normalize_lexical;
use crate::{Ctx, Outcome, quote_if_needed};

/// Print the resolved absolute file name; all but the last component must exist
#[derive(clap::Parser, Debug)]
#[command(override_usage = "realpath [OPTION]... FILE...")]
pub struct RealpathArgs {
    /// all components of the path must exist
    #[arg(
        short = 'e',
        long = "canonicalize-existing",
        overrides_with = "missing"
    )]
    existing: bool,
    /// no path components need exist or be a directory
    #[arg(
        short = 'm',
        long = "canonicalize-missing",
        overrides_with = "existing"
    )]
    missing: bool,
    /// resolve '..' components before symlinks
    #[arg(short = 'L', long = "logical", overrides_with = "physical")]
    logical: bool,
    /// resolve symlinks as encountered (default)
    #[arg(short = 'P', long = "physical", overrides_with = "logical")]
    physical: bool,
    /// suppress most error messages
    #[arg(short = 'q', long = "quiet")]
    quiet: bool,
    /// print the resolved path relative to DIR
    #[arg(long = "relative-to", value_name = "DIR")]
    relative_to: Option<OsString>,
    /// print absolute paths unless paths below DIR
    #[arg(long = "relative-base", value_name = "DIR")]
    relative_base: Option<OsString>,
    /// don't expand symlinks
    #[arg(short = 's', long = "strip", alias = "no-symlinks")]
    strip: bool,
    /// end each output line with NUL, not newline
    #[arg(short = 'z', long = "zero")]
    zero: bool,
    files: Vec<OsString>,
}

struct Opts {
    mode: Exist,
    links: bool,
    logical: bool,
}

fn canon(ctx: &Ctx, name: &OsString, o: &Opts) -> Result<PathBuf, crate::FsError> {
    if name.is_empty() {
        return Err(crate::FsError::NotFound);
    }
    let mut path = ctx.resolve(name);
    if o.logical {
        path = normalize_lexical(&path);
    }
    canonicalize(ctx, &path, o.mode, o.links)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<RealpathArgs>(args)?;
    if a.files.is_empty() {
        return Err(Stop::Usage("missing operand".into()));
    }
    let opts = Opts {
        mode: if a.existing {
            Exist::All
        } else if a.missing {
            Exist::Missing
        } else {
            Exist::AllButLast
        },
        links: !a.strip,
        logical: a.logical && !a.strip,
    };
    let dir_of = |d: &OsString| {
        canon(ctx, d, &opts).map_err(|e| Stop::Fail(format!("{}: {e}", quote_if_needed(d))))
    };
    let mut rel_to = a.relative_to.as_ref().map(dir_of).transpose()?;
    let mut rel_base = a.relative_base.as_ref().map(dir_of).transpose()?;
    if let (Some(to), Some(base)) = (&rel_to, &rel_base) {
        if !path_prefix(base, to) {
            rel_to = None;
            rel_base = None;
        }
    } else if rel_to.is_none() {
        rel_to.clone_from(&rel_base);
    }
    let shown = Shown {
        end: Some(if a.zero { 0 } else { b'\n' }),
        report: !a.quiet,
    };
    Ok(print_each(ctx, Outcome::ok(), &a.files, &shown, |f| {
        let p = canon(ctx, f, &opts)?;
        Ok(match &rel_to {
            Some(to) if rel_base.as_ref().is_none_or(|b| path_prefix(b, &p)) => relative(&p, to),
            _ => p.into_os_string(),
        })
    }))
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Realpath;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .file("/s/f", b"")
                .dir("/s/d/e")
                .symlink("/s/lf", "f")
                .symlink("/s/le", "d/e")
                .symlink("/s/dang", "nowhere")
                .symlink("/s/loop", "loop")
                .symlink("/s/out", "/etc"),
        )
    }

    fn run(args: &[&str]) -> (String, String, i32) {
        text(&world().run(Realpath, args))
    }

    fn ok(s: &str) -> (String, String, i32) {
        (s.to_string(), String::new(), 0)
    }

    fn err(s: &str) -> (String, String, i32) {
        (String::new(), s.to_string(), 1)
    }

    #[test]
    fn modes_as_gnu() {
        assert_eq!(
            run(&["f", "nope", "lf", "dang"]),
            ok("/s/f\n/s/nope\n/s/f\n/s/nowhere\n")
        );
        assert_eq!(
            run(&["nope/x"]),
            err("realpath: nope/x: No such file or directory\n")
        );
        assert_eq!(
            run(&["-e", "nope"]),
            err("realpath: nope: No such file or directory\n")
        );
        assert_eq!(run(&["-m", "nope/x"]), ok("/s/nope/x\n"));
        assert_eq!(run(&["-q", "nope/x"]), (String::new(), String::new(), 1));
        assert_eq!(run(&[""]), err("realpath: '': No such file or directory\n"));
        assert_eq!(run(&["f/x"]), err("realpath: f/x: Not a directory\n"));
        assert_eq!(
            run(&["loop"]),
            err("realpath: loop: Too many levels of symbolic links\n")
        );
        assert_eq!(run(&["-m", "loop"]), ok("/s/loop\n"));
        assert_eq!(run(&["-z", "f", "lf"]), ok("/s/f\0/s/f\0"));
        assert_eq!(
            text(&world().run(Realpath, &[])),
            err("realpath: missing operand\nTry 'realpath --help' for more information.\n")
        );
    }

    #[test]
    fn strip_and_logical() {
        assert_eq!(
            run(&["-s", "lf", "le/..", "../s/./f"]),
            ok("/s/lf\n/s\n/s/f\n")
        );
        assert_eq!(run(&["-L", "le/..", "le/../f"]), ok("/s\n/s/f\n"));
        assert_eq!(run(&["-P", "le/.."]), ok("/s/d\n"));
        assert_eq!(run(&["-sm", "nope/../x"]), ok("/s/x\n"));
        assert_eq!(run(&["-s", "nope/../x"]).2, 1);
        assert_eq!(run(&["-es", "dang"]).2, 1);
    }

    #[test]
    fn relative() {
        assert_eq!(run(&["--relative-to=d", "f"]), ok("../f\n"));
        assert_eq!(run(&["--relative-to=d/e", "d"]), ok("..\n"));
        assert_eq!(run(&["--relative-base=d", "d/e", "f"]), ok("e\n/s/f\n"));
        assert_eq!(
            run(&["--relative-base=/s", "--relative-to=/s/d", "f", "/"]),
            ok("../f\n/\n")
        );
        assert_eq!(
            run(&["--relative-to=nope/x", "f"]),
            err("realpath: nope/x: No such file or directory\n")
        );
        assert_eq!(run(&["-m", "--relative-to=nope/x", "f"]), ok("../../f\n"));
        assert_eq!(run(&["--relative-to=/", "/"]), ok(".\n"));
        assert_eq!(run(&["--relative-to=.", "."]), ok(".\n"));
    }

    #[test]
    fn links_out_read_as_missing() {
        assert_eq!(
            run(&["-e", "out"]),
            err("realpath: out: No such file or directory\n")
        );
        assert_eq!(
            run(&["out/passwd"]),
            err("realpath: out/passwd: No such file or directory\n")
        );
        assert_eq!(run(&["-m", "out/passwd"]), ok("/s/out/passwd\n"));
    }
}
