//! `rmdir [-pv] [--ignore-fail-on-non-empty] DIRECTORY...`, GNU coreutils 9.1: each empty
//! directory goes to the trash ([`Op::Trash`]); what can be checked beforehand (missing, not
//! a directory, not empty) is, so that the diagnostics are GNU's. With `-p`, the operand's
//! prefixes are removed in turn, each seeing the removals before it.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::paths::normalize_lexical;
use crate::{Ctx, Effect, FileKind, FsError, Op, Outcome, quote};

/// Remove the DIRECTORY(ies), if they are empty.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "rmdir [OPTION]... DIRECTORY...")]
pub struct RmdirArgs {
    /// ignore each failure that is solely because a directory is non-empty
    #[arg(long = "ignore-fail-on-non-empty")]
    ignore_non_empty: bool,
    /// remove DIRECTORY and its ancestors; e.g., 'rmdir -p a/b/c' is similar to 'rmdir a/b/c
    /// a/b a'
    #[arg(short = 'p', long = "parents")]
    parents: bool,
    /// output a diagnostic for every directory processed
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
    dirs: Vec<OsString>,
}

struct Job<'a> {
    ctx: &'a Ctx<'a>,
    a: RmdirArgs,
    removed: HashSet<PathBuf>,
    out: Outcome,
    status: i32,
}

/// The operand without its trailing slashes (`/` stays).
fn trim_slashes(b: &[u8]) -> &[u8] {
    let mut end = b.len();
    while end > 1 && b.get(end - 1) == Some(&b'/') {
        end -= 1;
    }
    b.get(..end).unwrap_or(b)
}

impl Job<'_> {
    /// Why `rmdir(2)` of `name` would fail, or `None` when it would succeed.
    fn check(&self, name: &OsStr) -> Option<FsError> {
        if name.is_empty() {
            return Some(FsError::NotFound);
        }
        let trimmed = trim_slashes(name.as_bytes());
        let base = trimmed.rsplit(|&c| c == b'/').next().unwrap_or(trimmed);
        if base == b"." {
            return Some(FsError::InvalidArgument);
        }
        let path = self.ctx.resolve(OsStr::from_bytes(trimmed));
        let key = normalize_lexical(&path);
        if key.ancestors().any(|p| self.removed.contains(p)) {
            return Some(FsError::NotFound);
        }
        if base == b".." {
            return Some(FsError::NotEmpty);
        }
        match self.ctx.fs.stat(&path, false) {
            Err(e) => Some(e),
            Ok(m) if m.kind != FileKind::Dir => Some(FsError::NotADirectory),
            Ok(_) => match self.ctx.fs.read_dir(&path) {
                Err(e) => Some(e),
                Ok(entries) => entries
                    .iter()
                    .any(|e| !self.removed.contains(&key.join(&e.name)))
                    .then_some(FsError::NotEmpty),
            },
        }
    }

    /// Removes one directory; false when it failed (or was kept because not empty).
    fn remove(&mut self, name: &OsStr, parent: bool) -> bool {
        if self.a.verbose {
            self.out
                .out(format!("rmdir: removing directory, {}\n", quote(name)));
        }
        let what = if parent {
            "failed to remove directory"
        } else {
            "failed to remove"
        };
        match self.check(name) {
            None => {
                let path = self
                    .ctx
                    .resolve(OsStr::from_bytes(trim_slashes(name.as_bytes())));
                self.removed.insert(normalize_lexical(&path));
                self.out.effect(Effect::new(
                    Op::Trash { path },
                    format!("rmdir: {what} {}", quote(name)),
                ));
                true
            }
            Some(FsError::NotEmpty | FsError::AlreadyExists) if self.a.ignore_non_empty => false,
            Some(e) => {
                self.out
                    .err(format!("rmdir: {what} {}: {e}\n", quote(name)));
                self.status = 1;
                false
            }
        }
    }

    fn operand(&mut self, name: &OsStr) {
        if !self.remove(name, false) || !self.a.parents {
            return;
        }
        let mut cur = trim_slashes(name.as_bytes()).to_vec();
        loop {
            let Some(cut) = cur.iter().rposition(|&c| c == b'/') else {
                return;
            };
            let parent = trim_slashes(cur.get(..cut).unwrap_or_default());
            if parent.is_empty() || parent == b"/" {
                return;
            }
            cur = parent.to_vec();
            if !self.remove(OsStr::from_bytes(&cur), true) {
                return;
            }
        }
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<RmdirArgs>(args)?;
    if a.dirs.is_empty() {
        return Err(Stop::Usage("missing operand".into()));
    }
    let dirs = a.dirs.clone();
    let mut job = Job {
        ctx,
        a,
        removed: HashSet::new(),
        out: Outcome::ok(),
        status: 0,
    };
    for d in &dirs {
        job.operand(d);
    }
    Ok(job.out.with_status(job.status))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::CommandName::Rmdir;
    use crate::Op;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text, transcript};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .dir("/s/a/b/c")
                .dir("/s/e")
                .file("/s/f", b"")
                .file("/s/x/y/z", b"")
                .dir("/s/p/q")
                .file("/s/p/r", b"")
                .symlink("/s/le", "e"),
        )
    }

    fn trash(p: &str) -> Op {
        Op::Trash {
            path: PathBuf::from(p),
        }
    }

    #[test]
    fn errors_as_gnu() {
        let w = world();
        let cases: &[(&[&str], &str)] = &[
            (&["f"], "rmdir: failed to remove 'f': Not a directory\n"),
            (&["f/"], "rmdir: failed to remove 'f/': Not a directory\n"),
            (&["le"], "rmdir: failed to remove 'le': Not a directory\n"),
            (
                &["nope"],
                "rmdir: failed to remove 'nope': No such file or directory\n",
            ),
            (&["x"], "rmdir: failed to remove 'x': Directory not empty\n"),
            (
                &[""],
                "rmdir: failed to remove '': No such file or directory\n",
            ),
            (&["."], "rmdir: failed to remove '.': Invalid argument\n"),
            (
                &[".."],
                "rmdir: failed to remove '..': Directory not empty\n",
            ),
            (
                &["-p", "x/y"],
                "rmdir: failed to remove 'x/y': Directory not empty\n",
            ),
            (
                &[],
                "rmdir: missing operand\nTry 'rmdir --help' for more information.\n",
            ),
        ];
        for (args, err) in cases {
            let o = w.run(Rmdir, args);
            assert_eq!(text(&o), (String::new(), (*err).to_string(), 1), "{args:?}");
            assert!(ops(&o).is_empty(), "{args:?}");
        }
        let o = w.run(Rmdir, &["--ignore-fail-on-non-empty", "x", "-p", "x/y"]);
        assert_eq!(text(&o), (String::new(), String::new(), 0));
        assert_eq!(
            transcript(&w.run(Rmdir, &["-v", "nope"])),
            "rmdir: removing directory, 'nope'\nrmdir: failed to remove 'nope': No such file or directory\n"
        );
    }

    #[test]
    fn parents() {
        let w = world();
        let o = w.run(Rmdir, &["-pv", "a/b/c", "e"]);
        assert_eq!(
            ops(&o),
            [
                trash("/s/a/b/c"),
                trash("/s/a/b"),
                trash("/s/a"),
                trash("/s/e")
            ]
        );
        assert_eq!(
            transcript(&o),
            "rmdir: removing directory, 'a/b/c'\nrmdir: removing directory, 'a/b'\nrmdir: removing directory, 'a'\nrmdir: removing directory, 'e'\n"
        );
        let o = w.run(Rmdir, &["-pv", "p/q"]);
        assert_eq!(ops(&o), [trash("/s/p/q")]);
        assert_eq!(
            transcript(&o),
            "rmdir: removing directory, 'p/q'\nrmdir: removing directory, 'p'\nrmdir: failed to remove directory 'p': Directory not empty\n"
        );
        assert_eq!(o.status, 1);
        let o = w.run(Rmdir, &["-p", "--ignore-fail-on-non-empty", "p/q"]);
        assert_eq!((ops(&o).len(), o.status), (1, 0));
        assert_eq!(ops(&w.run(Rmdir, &["-p", "a//b/c/"])).len(), 3);
        assert_eq!(ops(&w.run(Rmdir, &["a/b/c", "a/b"])).len(), 2);
    }
}
