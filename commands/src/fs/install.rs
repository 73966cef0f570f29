//! `install [-CDpv] [-m MODE] [-t DIR] [-T] SOURCE... DEST` and `install -d DIR...`, GNU
//! coreutils 9.1: copies ([`Op::Copy`]) then sets the mode ([`Op::SetMode`], 0755 unless
//! `-m`); `-d` and `-D` create directories ([`Op::CreateDir`]). An existing destination is
//! removed first ([`Op::Trash`]), as GNU unlinks it. Owners (`-o`, `-g`) and stripping
//! (`-s`) are not supported.

use super::target::{plan, same, strip_slashes};
use crate::Stop;
use crate::support::args::parse_args;
use crate::support::mode::Mode;
use crate::support::paths::{Overlay, join_display};
use crate::{Ctx, Effect, FileKind, FsError, Op, Outcome, quote};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

/// Copy files and set attributes.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "install [OPTION]... [-T] SOURCE DEST")]
pub struct InstallArgs {
    /// compare content of source and destination files, and if no change to content,
    /// ownership, and permissions, do not modify the destination at all
    #[arg(short = 'C', long = "compare")]
    compare: bool,
    /// treat all arguments as directory names; create all components of the specified
    /// directories
    #[arg(short = 'd', long = "directory")]
    directory: bool,
    /// create all leading components of DEST except the last, or all components of
    /// --target-directory, then copy SOURCE to DEST
    #[arg(short = 'D')]
    leading: bool,
    /// set permission mode (as in chmod), instead of rwxr-xr-x
    #[arg(short = 'm', long = "mode", value_name = "MODE")]
    mode: Option<String>,
    /// apply access/modification times of SOURCE files to corresponding destination files
    #[arg(short = 'p', long = "preserve-timestamps")]
    preserve: bool,
    /// copy all SOURCE arguments into DIRECTORY
    #[arg(short = 't', long = "target-directory", value_name = "DIRECTORY")]
    target: Option<OsString>,
    /// treat DEST as a normal file
    #[arg(short = 'T', long = "no-target-directory")]
    no_target: bool,
    /// print the name of each created file or directory
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
    operands: Vec<OsString>,
}

struct Job<'a> {
    ctx: &'a Ctx<'a>,
    a: InstallArgs,
    mode: u32,
    overlay: Overlay,
    out: Outcome,
    status: i32,
}

impl Job<'_> {
    fn fail(&mut self, msg: &str) {
        self.out.err(format!("install: {msg}\n"));
        self.status = 1;
    }

    /// `mkdir -p` of `name` as typed; `mode` for the last component. False on failure.
    fn make_dirs(&mut self, name: &OsStr, mode: Option<u32>) -> bool {
        let b = name.as_bytes();
        if b.is_empty() {
            self.fail(&format!(
                "cannot create directory {}: {}",
                quote(name),
                FsError::NotFound
            ));
            return false;
        }
        let mut ends: Vec<usize> = (1..b.len())
            .filter(|&i| b.get(i) == Some(&b'/') && b.get(i - 1) != Some(&b'/'))
            .collect();
        if !b.ends_with(b"/") {
            ends.push(b.len());
        }
        let last = ends.len().saturating_sub(1);
        for (k, &end) in ends.iter().enumerate() {
            let prefix = OsStr::from_bytes(b.get(..end).unwrap_or_default());
            let path = self.ctx.resolve(prefix);
            let m = if k == last { mode } else { None };
            match self.overlay.kind(self.ctx.fs, &path, true) {
                Ok(FileKind::Dir) => {
                    if let Some(m) = m
                        && self.ctx.fs.stat(&path, true).is_ok_and(|x| x.perm != m)
                    {
                        self.out.effect(Effect::new(
                            Op::SetMode { path, mode: m },
                            format!("install: cannot change permissions of {}", quote(prefix)),
                        ));
                    }
                }
                Ok(_) => {
                    let e = if k == last {
                        FsError::AlreadyExists
                    } else {
                        FsError::NotADirectory
                    };
                    self.fail(&format!("cannot create directory {}: {e}", quote(prefix)));
                    return false;
                }
                Err(FsError::NotFound) => {
                    self.overlay.create(&path, FileKind::Dir);
                    let mut e = Effect::new(
                        Op::CreateDir {
                            path,
                            mode: m.or(Some(0o755)),
                            exist_ok: true,
                        },
                        format!("install: cannot create directory {}", quote(prefix)),
                    );
                    if self.a.verbose {
                        e = e.on_ok(format!("install: creating directory {}\n", quote(prefix)));
                    }
                    self.out.effect(e);
                }
                Err(e) => {
                    self.fail(&format!("cannot create directory {}: {e}", quote(prefix)));
                    return false;
                }
            }
        }
        true
    }

    fn copy(&mut self, src: &OsStr, dst: &OsStr) {
        let from = self.ctx.resolve(src);
        let to = strip_slashes(&self.ctx.resolve(dst));
        let s = match self.ctx.fs.stat(&from, true) {
            Ok(m) if m.is_dir() => return self.fail(&format!("omitting directory {}", quote(src))),
            Ok(m) => m,
            Err(e) => return self.fail(&format!("cannot stat {}: {e}", quote(src))),
        };
        let existing = self.overlay.kind(self.ctx.fs, &to, false);
        if let Ok(kind) = existing {
            if let Ok(d) = self.ctx.fs.stat(&to, true)
                && same(&s, &d)
            {
                return self.fail(&format!(
                    "{} and {} are the same file",
                    quote(src),
                    quote(dst)
                ));
            }
            if kind == FileKind::Dir {
                return self.fail(&format!(
                    "cannot overwrite directory {} with non-directory",
                    quote(dst)
                ));
            }
            if self.a.compare
                && self
                    .ctx
                    .fs
                    .stat(&to, false)
                    .is_ok_and(|d| d.is_file() && d.perm == self.mode && d.len == s.len)
                && matches!(
                    (self.ctx.fs.read(&from), self.ctx.fs.read(&to)),
                    (Ok(x), Ok(y)) if x == y
                )
            {
                return;
            }
            let mut e = Effect::new(
                Op::Trash { path: to.clone() },
                format!("install: cannot remove {}", quote(dst)),
            );
            if self.a.verbose {
                e = e.on_ok(format!("removed {}\n", quote(dst)));
            }
            self.out.effect(e);
        }
        self.overlay.create(&to, FileKind::File);
        let cannot = format!("install: cannot create regular file {}", quote(dst));
        let mut e = Effect::new(
            Op::Copy {
                from,
                to: to.clone(),
                links_as_links: false,
                preserve: self.a.preserve,
            },
            cannot,
        );
        if self.a.verbose {
            e = e.on_ok(format!("{} -> {}\n", quote(src), quote(dst)));
        }
        self.out.effect(e);
        self.out.effect(Effect::new(
            Op::SetMode {
                path: to,
                mode: self.mode,
            },
            format!("install: cannot change permissions of {}", quote(dst)),
        ));
    }
}

/// `DIR/BASE` of a source.
fn into_dir(dir: &OsStr, src: &OsStr) -> OsString {
    let b = src.as_bytes();
    let end = b.iter().rposition(|&c| c != b'/').map_or(0, |i| i + 1);
    let t = b.get(..end).unwrap_or_default();
    let base = t.rsplit(|&c| c == b'/').next().unwrap_or(t);
    join_display(dir, OsStr::from_bytes(base))
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<InstallArgs>(args)?;
    let mode = match &a.mode {
        None => 0o755,
        Some(m) => match Mode::parse(m) {
            Some(mode) => mode.apply(0, false),
            None => return Err(Stop::Fail(format!("invalid mode {}", quote(m)))),
        },
    };
    let ops = a.operands.clone();
    let mut job = Job {
        ctx,
        a,
        mode,
        overlay: Overlay::default(),
        out: Outcome::ok(),
        status: 0,
    };
    if job.a.directory {
        if ops.is_empty() {
            return Err(Stop::Usage("missing file operand".into()));
        }
        for d in &ops {
            job.make_dirs(d, Some(mode));
        }
        return Ok(job.out.with_status(job.status));
    }
    if ops.is_empty() {
        return Err(Stop::Usage("missing file operand".into()));
    }
    let pairs: Vec<(OsString, OsString)> =
        if let (Some(t), true) = (job.a.target.clone(), job.a.leading) {
            if job.a.no_target {
                return Err(Stop::Fail(
                    "cannot combine --target-directory (-t) and --no-target-directory (-T)".into(),
                ));
            }
            if !job.make_dirs(&t, None) {
                return Ok(job.out.with_status(job.status));
            }
            ops.iter().map(|s| (s.clone(), into_dir(&t, s))).collect()
        } else {
            plan(ctx, &ops, job.a.target.as_ref(), job.a.no_target)?
                .into_iter()
                .map(|p| (p.src, p.dst))
                .collect()
        };
    for (src, dst) in &pairs {
        if job.a.leading && job.a.target.is_none() {
            let b = dst.as_bytes();
            let t = b
                .iter()
                .rposition(|&c| c != b'/')
                .and_then(|end| b.get(..=end))
                .unwrap_or_default();
            if let Some(cut) = t.iter().rposition(|&c| c == b'/')
                && cut > 0
            {
                let parent = OsStr::from_bytes(t.get(..cut).unwrap_or_default()).to_os_string();
                if !job.make_dirs(&parent, None) {
                    continue;
                }
            }
        }
        job.copy(src, dst);
    }
    Ok(job.out.with_status(job.status))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::CommandName::Install;
    use crate::Op;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text, transcript};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .file("/s/f", b"hi\n")
                .dir("/s/d")
                .file("/s/g", b"hi\n")
                .perm("/s/g", 0o755),
        )
    }

    fn copy(f: &str, t: &str) -> Op {
        Op::Copy {
            from: PathBuf::from(f),
            to: PathBuf::from(t),
            links_as_links: false,
            preserve: false,
        }
    }

    fn mode(p: &str, m: u32) -> Op {
        Op::SetMode {
            path: PathBuf::from(p),
            mode: m,
        }
    }

    fn mkdir(p: &str, m: u32) -> Op {
        Op::CreateDir {
            path: PathBuf::from(p),
            mode: Some(m),
            exist_ok: true,
        }
    }

    #[test]
    fn copies_and_modes() {
        let w = world();
        let o = w.run(Install, &["-v", "f", "h"]);
        assert_eq!(ops(&o), [copy("/s/f", "/s/h"), mode("/s/h", 0o755)]);
        assert_eq!(transcript(&o), "'f' -> 'h'\n");
        assert_eq!(
            ops(&w.run(Install, &["-m", "644", "f", "d"])),
            [copy("/s/f", "/s/d/f"), mode("/s/d/f", 0o644)]
        );
        let o = w.run(Install, &["-d", "-v", "x/y", "z"]);
        assert_eq!(
            ops(&o),
            [
                mkdir("/s/x", 0o755),
                mkdir("/s/x/y", 0o755),
                mkdir("/s/z", 0o755)
            ]
        );
        assert_eq!(
            transcript(&o),
            "install: creating directory 'x'\ninstall: creating directory 'x/y'\ninstall: creating directory 'z'\n"
        );
        let o = w.run(Install, &["-Dv", "f", "a/b/c"]);
        assert_eq!(
            transcript(&o),
            "install: creating directory 'a'\ninstall: creating directory 'a/b'\n'f' -> 'a/b/c'\n"
        );
        let o = w.run(Install, &["-Dv", "-t", "p/q", "f"]);
        assert_eq!(ops(&o).len(), 4);
        let o = w.run(Install, &["-v", "-m", "600", "f", "g"]);
        assert_eq!(transcript(&o), "removed 'g'\n'f' -> 'g'\n");
        assert!(ops(&w.run(Install, &["-C", "f", "g"])).is_empty());
        assert_eq!(ops(&w.run(Install, &["-d", "d"])), []);
    }

    #[test]
    fn errors_as_gnu() {
        let w = world();
        let cases: &[(&[&str], &str)] = &[
            (
                &["-T", "f", "d"],
                "install: cannot overwrite directory 'd' with non-directory\n",
            ),
            (
                &["nope", "x"],
                "install: cannot stat 'nope': No such file or directory\n",
            ),
            (&["d", "e"], "install: omitting directory 'd'\n"),
            (
                &["-d", "f"],
                "install: cannot create directory 'f': File exists\n",
            ),
            (&["-m", "xx", "f", "j"], "install: invalid mode 'xx'\n"),
            (
                &["f"],
                "install: missing destination file operand after 'f'\nTry 'install --help' for more information.\n",
            ),
            (
                &[],
                "install: missing file operand\nTry 'install --help' for more information.\n",
            ),
            (&["f", "f"], "install: 'f' and 'f' are the same file\n"),
        ];
        for (args, err) in cases {
            let o = w.run(Install, args);
            assert_eq!(text(&o), (String::new(), (*err).to_string(), 1), "{args:?}");
            assert!(ops(&o).is_empty(), "{args:?}");
        }
    }
}
