//! `cd [-L|[-P [-e]]] [dir]`, bash's builtin: changes the session's logical cwd through
//! [`Directive::SetCwd`] (the executor updates `PWD` and `OLDPWD`); the process cwd is never used.
//!
//! `-L` (the default) normalises `cwd/dir` lexically as bash's `sh_canonpath` does, then
//! checks it is a directory; when that fails bash retries the path physically, and so does
//! this. `-P` resolves every link. At a mount point other than `/`, `..` does not exist in the
//! view, so `cd ..` there fails exactly like a missing directory.
//!
//! When the current directory was removed, bash's last try is `chdir(dir)` from the process's
//! own directory, whose `..` still leads up: `cd ..` lands in the parent (its physical path),
//! or, when that was removed too, stays in the removed directories with `$PWD` as typed
//! (`/a/b/..`) and `getcwd`'s complaint. [`from_removed_cwd`] plays that last try.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::Stop;
use crate::support::args::{builtin_help_of, parse_builtin};
use crate::support::paths::{normalize_lexical, normalize_logical};
use crate::{Ctx, Directive, FsError, Outcome, ansic_if_needed};

pub const USAGE: &str = "cd [-L|[-P [-e]] [-@]] [dir]";
const TOO_MANY: &str = "too many arguments";
const HOME_NOT_SET: &str = "HOME not set";
const OLDPWD_NOT_SET: &str = "OLDPWD not set";

/// Change the shell working directory.
///
/// Changes the current directory to DIR, or to $HOME when DIR is omitted. `cd -` goes back to
/// $OLDPWD and prints it. `..` is handled logically unless -P is given.
#[derive(clap::Parser, Debug)]
pub struct CdArgs {
    /// follow symbolic links, resolving `..` after processing the path (the default)
    #[arg(short = 'L', overrides_with = "physical")]
    logical: bool,
    /// use the physical directory structure, resolving every symbolic link
    #[arg(short = 'P', overrides_with = "logical")]
    physical: bool,
    /// with -P, fail when the new directory cannot be determined
    #[arg(short = 'e')]
    exit_on_error: bool,
    operands: Vec<OsString>,
}

/// The text of `help cd` and `cd --help`.
pub fn help() -> String {
    builtin_help_of::<CdArgs>("cd", USAGE)
}

/// Where `cd` lands, or the errno to report.
fn target(ctx: &Ctx, joined: &Path, physical: bool) -> Result<PathBuf, FsError> {
    let is_dir = |p: &Path| match ctx.fs.stat(p, true) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(FsError::NotADirectory),
        Err(e) => Err(e),
    };
    if physical {
        is_dir(joined)?;
        return ctx.fs.canonicalize(joined);
    }
    let logical = normalize_logical(ctx.fs, joined);
    let first = match &logical {
        Some(p) => is_dir(p).map(|()| p.clone()),
        None => is_dir(joined).and(Err(FsError::NotFound)),
    };
    match first {
        Ok(p) => Ok(p),
        // bash retries what the user passed, physically, and reports the first errno.
        Err(e) => match is_dir(joined) {
            Ok(()) => ctx.fs.canonicalize(joined).map_err(|_| e),
            Err(_) => Err(e),
        },
    }
}

/// Where bash's last try lands when the current directory was removed: `chdir(dir)` from the
/// process's own (removed) directory, whose `..` still leads to its parent. `.` and `..` at
/// the start of `dir` climb the removed directories by name; any other name in a removed
/// directory is missing (it is empty). `Some(Ok(path))`: an existing directory (bash then
/// takes its physical path, `getcwd`); `Some(Err(()))`: still a removed directory (bash keeps
/// the path as typed); `None`: the chdir fails too.
fn from_removed_cwd(ctx: &Ctx, dir: &OsStr) -> Option<Result<PathBuf, ()>> {
    let exists = |p: &Path| ctx.fs.stat(p, true).is_ok_and(|m| m.is_dir());
    if Path::new(dir).is_absolute() || exists(ctx.cwd) {
        return None;
    }
    let mut at = normalize_lexical(ctx.cwd);
    let mut rest = dir
        .as_bytes()
        .split(|&b| b == b'/')
        .filter(|c| !c.is_empty());
    let mut tail = PathBuf::new();
    for c in rest.by_ref() {
        match c {
            b"." => {}
            b".." if !exists(&at) => {
                at.pop();
            }
            _ => {
                tail.push(OsStr::from_bytes(c));
                break;
            }
        }
    }
    for c in rest {
        tail.push(OsStr::from_bytes(c));
    }
    if !exists(&at) {
        return tail.as_os_str().is_empty().then_some(Err(()));
    }
    let landing = at.join(tail);
    exists(&landing).then(|| Ok(ctx.fs.canonicalize(&landing).unwrap_or(landing)))
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_builtin::<CdArgs>(args)?;
    let mut o = Outcome::ok();
    if a.operands.len() > 1 {
        return Err(Stop::Fail(TOO_MANY.into()));
    }
    let mut print = false;
    let dir: OsString = match a.operands.first() {
        None => {
            if let Some(h) = ctx.vars.get("HOME") {
                h.into()
            } else {
                return Err(Stop::Fail(HOME_NOT_SET.into()));
            }
        }
        Some(d) if d == "-" => {
            if let Some(p) = ctx.vars.get("OLDPWD") {
                print = true;
                p.into()
            } else {
                return Err(Stop::Fail(OLDPWD_NOT_SET.into()));
            }
        }
        Some(d) => d.clone(),
    };
    // `cd ''` and an empty $HOME do nothing, successfully.
    if dir.is_empty() {
        return Ok(o);
    }
    // TODO(cd): CDPATH is not consulted.
    let joined = ctx.resolve(&dir);
    let shown = ansic_if_needed(&dir);
    let landed = match target(ctx, &joined, a.physical) {
        Err(e) => match from_removed_cwd(ctx, &dir) {
            Some(Ok(path)) => Ok(path),
            Some(Err(())) => {
                // In a removed directory: bash's `getcwd` fails, and the path stays as typed.
                o.err(
                    "cd: error retrieving current directory: getcwd: cannot access parent \
                     directories: No such file or directory\n",
                );
                Ok(joined.clone())
            }
            None => Err(e),
        },
        ok => ok,
    };
    match landed {
        Ok(path) => {
            // `cd -` (and, later, a CDPATH hit) prints the new directory; in a pipeline
            // stage bash prints it too, though the change stays in the subshell.
            if print {
                let mut line = path.as_os_str().as_bytes().to_vec();
                line.push(b'\n');
                o.out(line);
            }
            o.directive(Directive::SetCwd { path: path.clone() });
            Ok(o)
        }
        Err(e) => Err(Stop::Fail(format!("{shown}: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::Directive;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, directives, small_tree, text};

    fn world() -> World {
        World::new(small_tree().symlink("/s/ld", "d/sub"))
    }

    fn cwd_of(w: &World, args: &[&str]) -> Vec<Directive> {
        directives(&w.run(crate::CommandName::Cd, args))
    }

    fn set(p: &str) -> Vec<Directive> {
        vec![Directive::SetCwd {
            path: PathBuf::from(p),
        }]
    }

    #[test]
    fn logical_by_default_physical_with_p() {
        let w = world();
        assert_eq!(cwd_of(&w, &["d"]), set("/s/d"));
        assert_eq!(cwd_of(&w, &["ld"]), set("/s/ld"));
        // bash: `cd ld/..` is the cwd; `cd -P ld/..` is the link target's parent.
        assert_eq!(cwd_of(&w, &["ld/.."]), set("/s"));
        assert_eq!(cwd_of(&w, &["-P", "ld/.."]), set("/s/d"));
        assert_eq!(cwd_of(&w, &["-P", "ld"]), set("/s/d/sub"));
        assert_eq!(cwd_of(&w, &["-LP", "--", "d"]), set("/s/d"));
        assert_eq!(cwd_of(&w, &["-e", "d"]), set("/s/d"));
        assert_eq!(cwd_of(&w, &["/s/d/./sub/"]), set("/s/d/sub"));
    }

    #[test]
    fn home_oldpwd_and_empty() {
        let w = world()
            .var("HOME", "/s/d", true)
            .var("OLDPWD", "/s/d/sub", true);
        assert_eq!(cwd_of(&w, &[]), set("/s/d"));
        assert_eq!(cwd_of(&w, &["--"]), set("/s/d"));
        let o = w.run(crate::CommandName::Cd, &["-"]);
        assert_eq!(text(&o).0, "/s/d/sub\n");
        assert_eq!(directives(&o), set("/s/d/sub"));
        let w = world();
        assert_eq!(
            text(&w.run(crate::CommandName::Cd, &[])),
            (String::new(), "cd: HOME not set\n".into(), 1)
        );
        assert_eq!(
            text(&w.run(crate::CommandName::Cd, &["-"])),
            (String::new(), "cd: OLDPWD not set\n".into(), 1)
        );
        assert_eq!(
            text(&w.run(crate::CommandName::Cd, &[""])),
            (String::new(), String::new(), 0)
        );
        assert!(cwd_of(&w, &[""]).is_empty());
        let w = world().var("HOME", "", false);
        assert!(cwd_of(&w, &[]).is_empty());
    }

    #[test]
    fn errors_as_bash() {
        // bash 5.2, LC_ALL=C, each with status 1 (usage errors 2).
        let w = world();
        let cases: &[(&[&str], &str, i32)] = &[
            (&["nope"], "cd: nope: No such file or directory\n", 1),
            (&["f"], "cd: f: Not a directory\n", 1),
            (&["nope/.."], "cd: nope/..: No such file or directory\n", 1),
            (&["f/.."], "cd: f/..: Not a directory\n", 1),
            (&["-P", "nope"], "cd: nope: No such file or directory\n", 1),
            (&["-P", "f"], "cd: f: Not a directory\n", 1),
            (&["dang"], "cd: dang: No such file or directory\n", 1),
            (&["a", "b"], "cd: too many arguments\n", 1),
            (&["d", "-P"], "cd: too many arguments\n", 1),
            (
                &["-x"],
                "cd: -x: invalid option\ncd: usage: cd [-L|[-P [-e]] [-@]] [dir]\n",
                2,
            ),
            (
                &["-@", "d"],
                "cd: -@: invalid option\ncd: usage: cd [-L|[-P [-e]] [-@]] [dir]\n",
                2,
            ),
        ];
        for (args, err, status) in cases {
            assert_eq!(
                text(&w.run(crate::CommandName::Cd, args)),
                (String::new(), (*err).to_string(), *status),
                "{args:?}"
            );
        }
    }

    #[test]
    fn dotdot_at_the_mount_point_is_missing() {
        let w = world();
        assert_eq!(
            text(&w.run(crate::CommandName::Cd, &[".."])),
            (
                String::new(),
                "cd: ..: No such file or directory\n".into(),
                1
            )
        );
        // With the mount point at `/`, `..` stays at `/`, as in bash.
        let w = World::new(MemFs::new().dir("/d")).cwd("/").mount("/");
        assert_eq!(cwd_of(&w, &[".."]), set("/"));
    }
}
