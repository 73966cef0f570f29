//! `mkdir [-pv] [-m MODE] DIRECTORY...`, GNU coreutils: one [`Op::CreateDir`] per directory
//! to create (with `-p`, per missing component). What can be checked beforehand is, so that
//! the diagnostics are GNU's; later operands see the earlier ones through an [`Overlay`].

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::mode::Mode;
use crate::support::paths::{Overlay, parent_of};
use crate::{Ctx, Effect, FileKind, FsError, Op, Outcome, quote, quote_locale};

const MISSING: &str = "missing operand";

fn cannot(name: &OsStr) -> String {
    format!("mkdir: cannot create directory {}", quote_locale(name))
}

fn created(name: &OsStr) -> String {
    format!("mkdir: created directory {}\n", quote(name))
}

/// Create the DIRECTORY(ies), if they do not already exist.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "mkdir [OPTION]... DIRECTORY...")]
pub struct MkdirArgs {
    /// set file mode (as in chmod), not a=rwx - umask
    #[arg(short = 'm', long = "mode", value_name = "MODE")]
    mode: Option<String>,
    /// no error if existing, make parent directories as needed
    #[arg(short = 'p', long = "parents")]
    parents: bool,
    /// print a message for each created directory
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
    dirs: Vec<OsString>,
}

struct Job<'a> {
    ctx: &'a Ctx<'a>,
    overlay: Overlay,
    mode: Option<u32>,
    verbose: bool,
    out: Outcome,
    status: i32,
}

impl Job<'_> {
    fn fail(&mut self, name: &OsStr, e: &FsError) {
        self.out.err(format!("{}: {e}\n", cannot(name)));
        self.status = 1;
    }

    /// Asks for a directory. False when it is known not to have been made (`-p` stops then,
    /// as GNU: the effect is applied at once and its failure was reported with it).
    fn create(&mut self, name: &OsStr, mode: Option<u32>, exist_ok: bool) -> bool {
        let path = self.ctx.resolve(name);
        self.overlay.create(&path, FileKind::Dir);
        let mut e = Effect::new(
            Op::CreateDir {
                path: path.clone(),
                mode,
                exist_ok,
            },
            cannot(name),
        );
        if self.verbose {
            e = e.on_ok(created(name));
        }
        self.out.effect(e);
        !exist_ok
            || !self.ctx.apply_now(&mut self.out)
            || self.ctx.fs.stat(&path, true).is_ok_and(|m| m.is_dir())
    }

    fn plain(&mut self, name: &OsStr) {
        let path = self.ctx.resolve(name);
        if self.overlay.kind(self.ctx.fs, &path, false).is_ok() {
            return self.fail(name, &FsError::AlreadyExists);
        }
        let parent = match parent_of(&path) {
            Some(p) => self.overlay.kind(self.ctx.fs, &p, true),
            None => Err(FsError::NotFound),
        };
        match parent {
            Ok(FileKind::Dir) => {
                self.create(name, self.mode, false);
            }
            Ok(_) => self.fail(name, &FsError::NotADirectory),
            Err(e) => self.fail(name, &e),
        }
    }

    /// `-p`: walks the operand's prefixes as typed, creating the missing ones.
    fn parents(&mut self, name: &OsStr) {
        let b = name.as_bytes();
        if b.is_empty() {
            return self.fail(name, &FsError::NotFound);
        }
        // Ends of each component: `a/b/c` → `a`, `a/b`, `a/b/c`.
        let mut ends: Vec<usize> = (1..b.len())
            .filter(|&i| b[i] == b'/' && b[i - 1] != b'/')
            .collect();
        if !b.ends_with(b"/") {
            ends.push(b.len());
        }
        let mut creating = false;
        let last = ends.len().saturating_sub(1);
        for (k, &end) in ends.iter().enumerate() {
            // The final directory is shown as typed, trailing slash included.
            let shown = OsStr::from_bytes(if k == last { b } else { &b[..end] });
            let prefix = OsStr::from_bytes(&b[..end]);
            let mode = if k == last { self.mode } else { None };
            if creating {
                if !self.create(shown, mode, true) {
                    self.status = 1;
                    return;
                }
                continue;
            }
            let path = self.ctx.resolve(prefix);
            match self.overlay.kind(self.ctx.fs, &path, true) {
                Ok(FileKind::Dir) => {}
                Ok(_) if k == last => return self.fail(shown, &FsError::AlreadyExists),
                Ok(_) => return self.fail(shown, &FsError::NotADirectory),
                Err(FsError::NotFound) => {
                    // A dangling link is in the way: mkdir gives EEXIST.
                    if self.ctx.fs.stat(&path, false).is_ok() {
                        return self.fail(shown, &FsError::AlreadyExists);
                    }
                    // Its parent missing (the current directory was removed): ENOENT.
                    if let Some(Err(e)) =
                        parent_of(&path).map(|p| self.overlay.kind(self.ctx.fs, &p, true))
                    {
                        return self.fail(shown, &e);
                    }
                    creating = true;
                    if !self.create(shown, mode, true) {
                        self.status = 1;
                        return;
                    }
                }
                Err(e) => return self.fail(shown, &e),
            }
        }
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<MkdirArgs>(args)?;
    if a.dirs.is_empty() {
        return Err(Stop::Usage(MISSING.into()));
    }
    let mode = match &a.mode {
        None => None,
        Some(m) => {
            if let Some(mode) = Mode::parse(m) {
                Some(mode.apply(0o777, true))
            } else {
                let mut o = Outcome::status(1);
                o.err(format!("{}: invalid mode {}\n", ctx.name, quote(m)));
                return Ok(o);
            }
        }
    };
    let mut job = Job {
        ctx,
        overlay: Overlay::default(),
        mode,
        verbose: a.verbose,
        out: Outcome::ok(),
        status: 0,
    };
    for d in &a.dirs {
        if a.parents {
            job.parents(d);
        } else {
            job.plain(d);
        }
    }
    Ok(job.out.with_status(job.status))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::Op;

    use crate::testing::world::{World, ops, small_tree, text, transcript};

    fn world() -> World {
        World::new(small_tree())
    }

    fn mk(p: &str, mode: Option<u32>, exist_ok: bool) -> Op {
        Op::CreateDir {
            path: PathBuf::from(p),
            mode,
            exist_ok,
        }
    }

    /// The stdout an executor would print if every effect succeeded, interleaved with stderr.

    #[test]
    fn creates_with_overlay() {
        let w = world();
        // GNU 9.1: `mkdir -v a a/b a`.
        let o = w.run(crate::CommandName::Mkdir, &["-v", "a", "a/b", "a"]);
        assert_eq!(
            ops(&o),
            [mk("/s/a", None, false), mk("/s/a/b", None, false)]
        );
        assert_eq!(
            transcript(&o),
            "mkdir: created directory 'a'\nmkdir: created directory 'a/b'\nmkdir: cannot create directory 'a': File exists\n"
        );
        assert_eq!(o.status, 1);
        assert_eq!(
            o.effects().next().and_then(|e| e.on_err.clone()).as_deref(),
            Some("mkdir: cannot create directory 'a'")
        );
    }

    #[test]
    fn parents() {
        let w = world();
        let o = w.run(
            crate::CommandName::Mkdir,
            &["-pv", "n1/n2", "n1/n3", "d/sub", "./q/"],
        );
        assert_eq!(
            ops(&o),
            [
                mk("/s/n1", None, true),
                mk("/s/n1/n2", None, true),
                mk("/s/n1/n3", None, true),
                mk("/s/./q/", None, true)
            ]
        );
        assert_eq!(
            transcript(&o),
            "mkdir: created directory 'n1'\nmkdir: created directory 'n1/n2'\nmkdir: created directory 'n1/n3'\nmkdir: created directory './q/'\n"
        );
        assert_eq!(
            ops(&w.run(crate::CommandName::Mkdir, &["-p", "-m", "700", "x/y"])),
            [mk("/s/x", None, true), mk("/s/x/y", Some(0o700), true)]
        );
    }

    #[test]
    fn errors_as_gnu() {
        let w = world();
        let cases: &[(&[&str], &str)] = &[
            (&["d"], "mkdir: cannot create directory 'd': File exists\n"),
            (
                &["dang"],
                "mkdir: cannot create directory 'dang': File exists\n",
            ),
            (
                &["-p", "dang"],
                "mkdir: cannot create directory 'dang': File exists\n",
            ),
            (
                &["-p", "f"],
                "mkdir: cannot create directory 'f': File exists\n",
            ),
            (
                &["-p", "f/x"],
                "mkdir: cannot create directory 'f': Not a directory\n",
            ),
            (
                &["-p", "dang/x"],
                "mkdir: cannot create directory 'dang': File exists\n",
            ),
            (
                &["f/x"],
                "mkdir: cannot create directory 'f/x': Not a directory\n",
            ),
            (
                &["nope/x"],
                "mkdir: cannot create directory 'nope/x': No such file or directory\n",
            ),
            (
                &[""],
                "mkdir: cannot create directory '': No such file or directory\n",
            ),
            (
                &["-p", ""],
                "mkdir: cannot create directory '': No such file or directory\n",
            ),
            (&["-m", "x", "q"], "mkdir: invalid mode 'x'\n"),
            (&["-m", "999", "q"], "mkdir: invalid mode '999'\n"),
            (
                &[],
                "mkdir: missing operand\nTry 'mkdir --help' for more information.\n",
            ),
            (
                &["-m"],
                "mkdir: option requires an argument -- 'm'\nTry 'mkdir --help' for more information.\n",
            ),
        ];
        for (args, err) in cases {
            let o = w.run(crate::CommandName::Mkdir, args);
            assert_eq!(text(&o), (String::new(), (*err).to_string(), 1), "{args:?}");
            assert!(ops(&o).is_empty(), "{args:?}");
        }
        assert!(ops(&w.run(crate::CommandName::Mkdir, &["-p", "d/sub/.."])).is_empty());
    }

    #[test]
    fn symbolic_mode() {
        let w = world();
        assert_eq!(
            ops(&w.run(crate::CommandName::Mkdir, &["-m", "u=rwx,go=rx,+t", "q"])),
            [mk("/s/q", Some(0o1755), false)]
        );
    }
}
