//! `readlink [-f|-e|-m] [-n] [-z] [-q|-v] FILE...`, GNU coreutils 9.1: a link's text, or
//! with `-f`/`-e`/`-m` the canonical path ([`super::canon`]). A link that leads out of the
//! sandbox answers as a link whose text could not be read: nothing printed, status 1.

use std::ffi::OsString;

use super::canon::{Exist, Shown, canonicalize, print_each};
use crate::Stop;
use crate::support::args::parse_args;
use crate::support::paths::shown_link_target;
use crate::{Ctx, FileKind, FsError, Outcome};

/// Print value of a symbolic link or canonical file name
#[derive(clap::Parser, Debug)]
#[command(override_usage = "readlink [OPTION]... FILE...")]
pub struct ReadlinkArgs {
    /// canonicalize by following every symlink in every component of the given name
    /// recursively; all but the last component must exist
    #[arg(short = 'f', long = "canonicalize", overrides_with_all = ["existing", "missing"])]
    canonicalize: bool,
    /// canonicalize by following every symlink in every component of the given name
    /// recursively, all components must exist
    #[arg(short = 'e', long = "canonicalize-existing", overrides_with_all = ["canonicalize", "missing"])]
    existing: bool,
    /// canonicalize by following every symlink in every component of the given name
    /// recursively, without requirements on components existence
    #[arg(short = 'm', long = "canonicalize-missing", overrides_with_all = ["canonicalize", "existing"])]
    missing: bool,
    /// do not output the trailing delimiter
    #[arg(short = 'n', long = "no-newline")]
    no_newline: bool,
    /// suppress most error messages (on by default)
    #[arg(short = 'q', long = "quiet", overrides_with = "verbose")]
    quiet: bool,
    /// suppress most error messages (on by default)
    #[arg(short = 's', long = "silent", overrides_with = "verbose")]
    silent: bool,
    /// report error messages
    #[arg(short = 'v', long = "verbose", overrides_with_all = ["quiet", "silent"])]
    verbose: bool,
    /// end each output line with NUL, not newline
    #[arg(short = 'z', long = "zero")]
    zero: bool,
    files: Vec<OsString>,
}

/// The text of the link `path` names, as the agent may see it.
fn link_text(ctx: &Ctx, path: &std::path::Path) -> Result<OsString, FsError> {
    if path.as_os_str().is_empty() {
        return Err(FsError::NotFound);
    }
    match ctx.fs.stat(path, false)?.kind {
        FileKind::Symlink => shown_link_target(ctx, path).ok_or(FsError::NotFound),
        _ => Err(FsError::InvalidArgument),
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<ReadlinkArgs>(args)?;
    if a.files.is_empty() {
        return Err(Stop::Usage("missing operand".into()));
    }
    let mode = if a.canonicalize {
        Some(Exist::AllButLast)
    } else if a.existing {
        Some(Exist::All)
    } else if a.missing {
        Some(Exist::Missing)
    } else {
        None
    };
    let mut o = Outcome::ok();
    let mut no_newline = a.no_newline;
    if no_newline && a.files.len() > 1 {
        o.err("readlink: ignoring --no-newline with multiple arguments\n");
        no_newline = false;
    }
    let shown = Shown {
        end: (!no_newline).then_some(if a.zero { 0 } else { b'\n' }),
        report: a.verbose,
    };
    Ok(print_each(ctx, o, &a.files, &shown, |f| {
        let path = if f.is_empty() {
            std::path::PathBuf::new()
        } else {
            ctx.resolve(f)
        };
        match mode {
            Some(m) => canonicalize(ctx, &path, m, true).map(std::path::PathBuf::into_os_string),
            None => link_text(ctx, &path),
        }
    }))
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Readlink;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .file("/s/f", b"")
                .dir("/s/d/e")
                .symlink("/s/lf", "f")
                .symlink("/s/dang", "nowhere")
                .symlink("/s/loop", "loop")
                .symlink("/s/out", "/etc/passwd")
                .symlink("/s/up", "../../etc/passwd")
                .symlink("/s/abs", "/s/d"),
        )
    }

    fn run(args: &[&str]) -> (String, String, i32) {
        text(&world().run(Readlink, args))
    }

    fn ok(s: &str) -> (String, String, i32) {
        (s.to_string(), String::new(), 0)
    }

    #[test]
    fn plain_as_gnu() {
        assert_eq!(run(&["lf"]), ok("f\n"));
        assert_eq!(run(&["f"]), (String::new(), String::new(), 1));
        assert_eq!(
            run(&["-v", "f"]),
            (String::new(), "readlink: f: Invalid argument\n".into(), 1)
        );
        assert_eq!(run(&["-n", "lf"]), ok("f"));
        assert_eq!(run(&["-z", "lf"]), ok("f\0"));
        assert_eq!(
            run(&["-n", "lf", "lf"]),
            (
                "f\nf\n".into(),
                "readlink: ignoring --no-newline with multiple arguments\n".into(),
                0
            )
        );
        assert_eq!(run(&["-vq", "nope"]), (String::new(), String::new(), 1));
    }

    #[test]
    fn canonical_modes() {
        assert_eq!(
            run(&["-f", "lf", "dang", "d/../lf"]),
            ok("/s/f\n/s/nowhere\n/s/f\n")
        );
        assert_eq!(run(&["-f", "f/x"]).2, 1);
        assert_eq!(run(&["-m", "f/x"]), ok("/s/f/x\n"));
        assert_eq!(run(&["-f", "nope"]), ok("/s/nope\n"));
        assert_eq!(run(&["-f", "nope/x"]).2, 1);
        assert_eq!(run(&["-e", "dang"]).2, 1);
        assert_eq!(run(&["-m", "nope/x/../y"]), ok("/s/nope/y\n"));
        assert_eq!(run(&["-m", "dang/.."]), ok("/s\n"));
        assert_eq!(run(&["-f", "dang/.."]).2, 1);
        assert_eq!(run(&["-m", "loop"]), ok("/s/loop\n"));
        assert_eq!(
            run(&["-fv", "loop"]),
            (
                String::new(),
                "readlink: loop: Too many levels of symbolic links\n".into(),
                1
            )
        );
        assert_eq!(run(&["-f", "abs/e", "/s/d/"]), ok("/s/d/e\n/s/d\n"));
        assert_eq!(run(&["-f", "f/"]).2, 1);
        assert_eq!(run(&["-f", ""]).2, 1);
        assert_eq!(run(&["-me", "dang"]).2, 1);
    }

    #[test]
    fn links_out_read_as_unreadable() {
        for args in [&["out"][..], &["up"], &["-f", "out"], &["-e", "up"]] {
            assert_eq!(run(args), (String::new(), String::new(), 1), "{args:?}");
        }
        assert_eq!(
            run(&["-v", "out"]),
            (
                String::new(),
                "readlink: out: No such file or directory\n".into(),
                1
            )
        );
        assert_eq!(run(&["-m", "out"]), ok("/s/out\n"));
        assert_eq!(run(&["abs"]), ok("/s/d\n"));
    }
}
