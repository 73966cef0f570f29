//! `chmod [OPTION]... MODE[,MODE]... FILE...`, GNU coreutils 9.1: one [`Op::SetMode`] per
//! object whose mode changes. Modes are gnulib's ([`Mode`]), including GNU's `chmod -w FILE`
//! (an option-like first mode, with its warning when the umask keeps bits the mode names).
//! A link on the command line is followed (a dangling one is an error); `-R` walks the tree
//! as `fts` with `FTS_PHYSICAL` does: pre-order, in directory order, links below the operands
//! never followed nor changed. `-v`/`-c` print GNU's lines as the changes are applied.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::mode::{Mode, UMASK, perm_string};
use crate::support::walk::{Follow, Node, Refused, Visit, Walk};
use crate::{Ctx, Effect, FileKind, FsError, Meta, Op, Outcome, quote, quote_if_needed};
use crate::{quote_locale, resolve_against};

/// How many effects wait in the outcome before they are handed to the executor, so that
/// `chmod -R` on a large tree runs in bounded memory.
const EFFECTS_AT: usize = 1024;

// In GNU's `long_options` order where it shows (`--re` is ambiguous: '--recursive'
// '--reference').
/// Change the mode of each FILE to MODE.
#[derive(clap::Parser, Debug)]
#[command(
    override_usage = "chmod [OPTION]... MODE[,MODE]... FILE...\n  or:  chmod [OPTION]... OCTAL-MODE FILE...\n  or:  chmod [OPTION]... --reference=RFILE FILE..."
)]
pub struct ChmodArgs {
    /// like verbose but report only when a change is made
    #[arg(short = 'c', long = "changes", overrides_with = "verbose")]
    changes: bool,
    /// suppress most error messages
    #[arg(short = 'f', long = "silent", alias = "quiet")]
    silent: bool,
    /// output a diagnostic for every file processed
    #[arg(short = 'v', long = "verbose", overrides_with = "changes")]
    verbose: bool,
    /// do not treat '/' specially (the default)
    #[arg(long = "no-preserve-root", overrides_with = "preserve_root")]
    no_preserve_root: bool,
    /// fail to operate recursively on '/'
    #[arg(long = "preserve-root", overrides_with = "no_preserve_root")]
    preserve_root: bool,
    /// change files and directories recursively
    #[arg(short = 'R', long = "recursive")]
    recursive: bool,
    /// use RFILE's mode instead of MODE values
    #[arg(long = "reference", value_name = "RFILE")]
    reference: Option<OsString>,
    operands: Vec<OsString>,
}

/// The option letters of GNU chmod's getopt string that are options.
const FLAGS: &[u8] = b"Rcfv";
/// The letters GNU chmod's getopt takes as the start of a mode (`-w`, `-x,u+w`, `-022`).
const MODE_LETTERS: &[u8] = b"rwxXstugoa,+=01234567";

/// The arguments as GNU chmod's getopt sees them: an argument whose option letters reach a
/// mode letter is a mode (the whole argument, `-` included; several are joined with `,`)
/// and only its option letters before that one stay options. Returns the arguments left for
/// [`parse_args`] and the mode, if any.
fn split_modes(args: &[OsString]) -> (Vec<OsString>, Option<OsString>) {
    let mut rest = Vec::new();
    let mut mode: Option<OsString> = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let b = arg.as_bytes();
        if b == b"--" {
            rest.push(arg.clone());
            rest.extend(it.by_ref().cloned());
            break;
        }
        if let Some(name) = b.strip_prefix(b"--") {
            rest.push(arg.clone());
            // `--reference RFILE` (or a prefix only it has): the next argument is its value.
            if name.len() >= 3 && !name.contains(&b'=') && b"reference".starts_with(name) {
                rest.extend(it.next().cloned());
            }
            continue;
        }
        let Some(letters) = b.strip_prefix(b"-").filter(|l| !l.is_empty()) else {
            rest.push(arg.clone());
            continue;
        };
        let flags = letters.iter().take_while(|c| FLAGS.contains(c)).count();
        match letters.get(flags) {
            Some(c) if MODE_LETTERS.contains(c) => {
                if flags > 0 {
                    let mut opt = b"-".to_vec();
                    opt.extend_from_slice(letters.get(..flags).unwrap_or_default());
                    rest.push(OsStr::from_bytes(&opt).to_os_string());
                }
                let m = mode.get_or_insert_with(OsString::new);
                if !m.is_empty() {
                    m.push(",");
                }
                m.push(arg);
            }
            _ => rest.push(arg.clone()),
        }
    }
    (rest, mode)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Verbosity {
    Off,
    Changes,
    High,
}

struct Job<'a> {
    ctx: &'a Ctx<'a>,
    mode: Mode,
    /// The mode came as an option (`chmod -w f`): warn when the umask kept bits it names.
    diagnose: bool,
    verbosity: Verbosity,
    silent: bool,
    recursive: bool,
    preserve_root: bool,
    /// The modes this run set, by `(dev, ino)`: an object met again starts from them.
    set: HashMap<(u64, u64), u32>,
    /// Effects in the outcome not yet handed to the executor.
    pending: usize,
    out: Outcome,
    status: i32,
}

impl Job<'_> {
    fn error(&mut self, msg: &str) {
        if !self.silent {
            self.out.err(format!("{}: {msg}\n", self.ctx.name));
        }
        self.status = 1;
    }

    /// An object that could not be looked at (GNU's `CH_NO_STAT`).
    fn no_stat(&mut self, display: &OsStr, msg: &str) {
        self.error(msg);
        if self.verbosity == Verbosity::High {
            self.out
                .out(format!("{} could not be accessed\n", quote(display)));
        }
    }

    /// One operand: followed if a link, then changed, then walked with `-R`.
    fn operand(&mut self, name: &OsStr) {
        let path = self.ctx.resolve(name);
        let meta = match self.ctx.fs.stat(&path, true) {
            Ok(m) => m,
            Err(FsError::NotFound)
                if self.ctx.fs.stat(&path, false).is_ok_and(|m| m.is_symlink()) =>
            {
                let msg = format!("cannot operate on dangling symlink {}", quote(name));
                return self.no_stat(name, &msg);
            }
            Err(e) => {
                let msg = format!("cannot access {}: {e}", quote(name));
                return self.no_stat(name, &msg);
            }
        };
        if self.recursive && self.preserve_root && self.is(&path, Path::new("/")) {
            let shown = if name.as_bytes() == b"/" {
                quote(name)
            } else {
                format!("{} (same as '/')", quote(name))
            };
            // Not silenced by -f: GNU's `ROOT_DEV_INO_WARN` ignores it.
            self.out.err(format!(
                "{0}: it is dangerous to operate recursively on {shown}\n\
                 {0}: use --no-preserve-root to override this failsafe\n",
                self.ctx.name
            ));
            self.status = 1;
            return;
        }
        self.change(&path, name, &meta, true);
        if self.recursive && meta.is_dir() {
            self.apply();
            self.walk(path, name);
        }
    }

    /// Whether `path` is the directory `target` of the view (links and `..` resolved).
    fn is(&self, path: &Path, target: &Path) -> bool {
        self.ctx
            .fs
            .canonicalize(path)
            .is_ok_and(|p| p.as_path() == target)
    }

    fn walk(&mut self, root: PathBuf, name: &OsStr) {
        let mut walk = Walk::new(self.ctx.fs, Follow::Never, self.ctx.walk_depth);
        if let Err((node, why)) = walk.enter(Walk::root(root, name)) {
            self.refused(&node, &why);
        }
        while let Some(visit) = walk.next() {
            let node = match visit {
                Visit::Entry(node) => node,
                Visit::Broken(node, e) => {
                    self.no_stat(
                        &node.display,
                        &format!("cannot access {}: {e}", quote(&node.display)),
                    );
                    continue;
                }
                Visit::Leave(..) | Visit::Listed(_) | Visit::Refused(..) => continue,
            };
            if node.kind == FileKind::Symlink {
                // Neither the link (Linux has no mode for it) nor its target.
                if self.verbosity == Verbosity::High {
                    self.out.out(format!(
                        "neither symbolic link {} nor referent has been changed\n",
                        quote(&node.display)
                    ));
                }
            } else {
                match self.ctx.fs.stat(&node.path, false) {
                    Ok(meta) => {
                        self.change(&node.path, &node.display, &meta, false);
                        if meta.is_dir() {
                            self.apply();
                            if let Err((node, why)) = walk.descend(node) {
                                self.refused(&node, &why);
                            }
                        }
                    }
                    Err(e) => {
                        let msg = format!("cannot access {}: {e}", quote(&node.display));
                        self.no_stat(&node.display, &msg);
                    }
                }
            }
            if !self.ctx.flush(&mut self.out) {
                return;
            }
        }
    }

    /// Has the executor apply the effects so far: before a directory is read (as GNU, which
    /// reads it after its change: `chmod -R u+rx` opens a directory it could not search), and
    /// every [`EFFECTS_AT`] effects.
    fn apply(&mut self) {
        if self.pending > 0 {
            self.pending = 0;
            self.ctx.apply_now(&mut self.out);
        }
    }

    fn refused(&mut self, node: &Node, why: &Refused) {
        let shown = quote(&node.display);
        match why {
            Refused::Unreadable(e) => self.error(&format!("cannot read directory {shown}: {e}")),
            Refused::TooDeep => self.error(&format!(
                "{shown}: directory nesting deeper than {} levels; not descending",
                self.ctx.walk_depth
            )),
            // Links are not followed: no loop.
            Refused::Loop => {}
        }
    }

    /// Changes one object (`top`: a command-line operand, after its link).
    fn change(&mut self, path: &Path, display: &OsStr, meta: &Meta, top: bool) {
        let key = (meta.dev, meta.ino);
        let old = self.set.get(&key).copied().unwrap_or(meta.perm);
        let is_dir = meta.is_dir();
        let new = self.mode.adjust(old, is_dir, UMASK);
        let shown = quote(display);
        if new == old {
            // Nothing to change: GNU's chmod(2) of the same mode succeeds.
            if self.verbosity == Verbosity::High {
                self.out.out(format!(
                    "mode of {shown} retained as {new:04o} ({})\n",
                    perm_string(new)
                ));
            }
        } else if top && self.is(path, self.ctx.mount_point) {
            // The sandbox's root is not the agent's to change.
            self.error(&format!(
                "changing permissions of {shown}: Operation not permitted"
            ));
            return;
        } else {
            let mut e = Effect::new(
                Op::SetMode {
                    path: path.to_path_buf(),
                    mode: new,
                },
                format!("{}: changing permissions of {shown}", self.ctx.name),
            );
            if self.silent {
                e.on_err = None;
            }
            if self.verbosity != Verbosity::Off {
                e = e.on_ok(format!(
                    "mode of {shown} changed from {old:04o} ({}) to {new:04o} ({})\n",
                    perm_string(old),
                    perm_string(new)
                ));
            }
            self.out.effect(e);
            self.set.insert(key, new);
            self.pending += 1;
            if self.pending >= EFFECTS_AT {
                self.apply();
            }
        }
        if self.diagnose {
            let naive = self.mode.adjust(old, is_dir, 0);
            if new & !naive != 0 {
                // Not silenced by -f: GNU's `error` here ignores it.
                self.out.err(format!(
                    "{}: {}: new permissions are {}, not {}\n",
                    self.ctx.name,
                    quote_if_needed(display),
                    perm_string(new),
                    perm_string(naive)
                ));
                self.status = 1;
            }
        }
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let (rest, mode_option) = split_modes(args);
    let a = parse_args::<ChmodArgs>(&rest)?;
    let mut operands = a.operands.iter();
    let mode_text = match (&a.reference, &mode_option) {
        (Some(_), Some(_)) => {
            return Err(Stop::Usage(
                "cannot combine mode and --reference options".into(),
            ));
        }
        (Some(_), None) => None,
        (None, Some(m)) => Some(m),
        (None, None) => operands.next(),
    };
    let files: Vec<&OsString> = operands.collect();
    if files.is_empty() {
        return Err(Stop::Usage(match mode_text {
            Some(m) if mode_option.is_none() => {
                format!("missing operand after {}", quote_locale(m))
            }
            _ => "missing operand".into(),
        }));
    }
    let mode = if let Some(r) = &a.reference {
        match ctx.fs.stat(&resolve_against(ctx.cwd, r), true) {
            Ok(m) => Mode::reference(m.perm),
            Err(e) => {
                return Err(Stop::Fail(format!(
                    "failed to get attributes of {}: {e}",
                    quote(r)
                )));
            }
        }
    } else {
        let parsed = mode_text.and_then(|m| m.to_str()).and_then(Mode::parse);
        match parsed {
            Some(m) => m,
            None => {
                return Err(Stop::Usage(format!(
                    "invalid mode: {}",
                    quote_locale(mode_text.map_or(OsStr::new(""), |m| m.as_os_str()))
                )));
            }
        }
    };
    let verbosity = if a.verbose {
        Verbosity::High
    } else if a.changes {
        Verbosity::Changes
    } else {
        Verbosity::Off
    };
    let mut job = Job {
        ctx,
        mode,
        diagnose: mode_option.is_some(),
        verbosity,
        silent: a.silent,
        recursive: a.recursive,
        preserve_root: a.preserve_root,
        set: HashMap::new(),
        pending: 0,
        out: Outcome::ok(),
        status: 0,
    };
    for f in files {
        job.operand(f);
        if !ctx.flush(&mut job.out) {
            break;
        }
    }
    Ok(job.out.with_status(job.status))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::CommandName::Chmod;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text, transcript};
    use crate::{FsError, Op};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .file("/s/d/a", b"")
                .file("/s/d/sub/b", b"")
                .symlink("/s/d/sub/up", "..")
                .symlink("/s/d/dang", "nowhere")
                .file("/s/f", b"")
                .file("/s/g", b"")
                .perm("/s/g", 0o666)
                .symlink("/s/ld", "d")
                .symlink("/s/lf", "f")
                .symlink("/s/dl", "nowhere")
                .file("/s/run.sh", b"echo hi\n"),
        )
    }

    fn set(p: &str, mode: u32) -> Op {
        Op::SetMode {
            path: PathBuf::from(p),
            mode,
        }
    }

    fn err(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(Chmod, args))
    }

    #[test]
    fn octal_and_symbolic_modes_become_set_mode_effects() {
        let w = world();
        let o = w.run(Chmod, &["+x", "run.sh"]);
        assert_eq!(ops(&o), [set("/s/run.sh", 0o755)]);
        assert_eq!(text(&o), (String::new(), String::new(), 0));
        assert_eq!(
            ops(&w.run(Chmod, &["600", "f", "g"])),
            [set("/s/f", 0o600), set("/s/g", 0o600)]
        );
        assert_eq!(
            ops(&w.run(Chmod, &["u=rwx,go=rx", "d"])),
            [] as [Op; 0],
            "d is already 0755"
        );
        assert_eq!(ops(&w.run(Chmod, &["g=u", "g"])), [] as [Op; 0]);
        assert_eq!(ops(&w.run(Chmod, &["o-w", "g"])), [set("/s/g", 0o664)]);
        // A link on the command line: its target's mode, through the link.
        assert_eq!(ops(&w.run(Chmod, &["700", "lf"])), [set("/s/lf", 0o700)]);
    }

    #[test]
    fn verbose_and_changes_as_gnu() {
        // GNU chmod 9.1, LC_ALL=C.
        let w = world();
        let o = w.run(Chmod, &["-v", "644", "f", "g"]);
        assert_eq!(ops(&o), [set("/s/g", 0o644)]);
        assert_eq!(
            transcript(&o),
            "mode of 'f' retained as 0644 (rw-r--r--)\n\
             mode of 'g' changed from 0666 (rw-rw-rw-) to 0644 (rw-r--r--)\n"
        );
        let o = w.run(Chmod, &["-c", "644", "f", "g"]);
        assert_eq!(
            transcript(&o),
            "mode of 'g' changed from 0666 (rw-rw-rw-) to 0644 (rw-r--r--)\n"
        );
        // The last of -c and -v wins.
        let o = w.run(Chmod, &["-vc", "644", "f"]);
        assert_eq!(transcript(&o), "");
        // The same file twice: the second time starts from the first change.
        let o = w.run(Chmod, &["-v", "755", "f", "f"]);
        assert_eq!(ops(&o), [set("/s/f", 0o755)]);
        assert_eq!(
            transcript(&o),
            "mode of 'f' changed from 0644 (rw-r--r--) to 0755 (rwxr-xr-x)\n\
             mode of 'f' retained as 0755 (rwxr-xr-x)\n"
        );
    }

    #[test]
    fn recursive_walks_in_directory_order_and_skips_links() {
        let w = world();
        let o = w.run(Chmod, &["-Rv", "go-rx", "ld"]);
        assert_eq!(
            ops(&o),
            [
                set("/s/ld", 0o700),
                set("/s/ld/a", 0o600),
                set("/s/ld/sub", 0o700),
                set("/s/ld/sub/b", 0o600),
            ]
        );
        assert_eq!(
            transcript(&o),
            "mode of 'ld' changed from 0755 (rwxr-xr-x) to 0700 (rwx------)\n\
             mode of 'ld/a' changed from 0644 (rw-r--r--) to 0600 (rw-------)\n\
             mode of 'ld/sub' changed from 0755 (rwxr-xr-x) to 0700 (rwx------)\n\
             mode of 'ld/sub/b' changed from 0644 (rw-r--r--) to 0600 (rw-------)\n\
             neither symbolic link 'ld/sub/up' nor referent has been changed\n\
             neither symbolic link 'ld/dang' nor referent has been changed\n"
        );
        // -c says nothing of the links; an unreadable directory is an error, the rest goes on.
        let w = World::new(
            MemFs::rooted("/s")
                .file("/s/d/x/y", b"")
                .file("/s/d/z", b"")
                .fail("/s/d/x", FsError::Io),
        );
        let o = w.run(Chmod, &["-Rc", "a+w", "d"]);
        assert_eq!(
            ops(&o),
            [
                set("/s/d", 0o777),
                set("/s/d/x", 0o777),
                set("/s/d/z", 0o666)
            ]
        );
        assert_eq!(
            transcript(&o),
            "mode of 'd' changed from 0755 (rwxr-xr-x) to 0777 (rwxrwxrwx)\n\
             mode of 'd/x' changed from 0755 (rwxr-xr-x) to 0777 (rwxrwxrwx)\n\
             chmod: cannot read directory 'd/x': Input/output error\n\
             mode of 'd/z' changed from 0644 (rw-r--r--) to 0666 (rw-rw-rw-)\n"
        );
        assert_eq!(o.status, 1);
    }

    #[test]
    fn operand_errors_go_on_with_the_others() {
        let w = world();
        let o = w.run(Chmod, &["-v", "700", "nope", "dl", "f"]);
        assert_eq!(ops(&o), [set("/s/f", 0o700)]);
        assert_eq!(
            transcript(&o),
            "chmod: cannot access 'nope': No such file or directory\n\
             'nope' could not be accessed\n\
             chmod: cannot operate on dangling symlink 'dl'\n\
             'dl' could not be accessed\n\
             mode of 'f' changed from 0644 (rw-r--r--) to 0700 (rwx------)\n"
        );
        assert_eq!(o.status, 1);
        // -f: no diagnostics, same status; -v's lines stay.
        let (out, e, s) = err(&w, &["-fv", "700", "nope"]);
        assert_eq!(
            (out.as_str(), e.as_str(), s),
            ("'nope' could not be accessed\n", "", 1)
        );
        let o = w.run(Chmod, &["-f", "700", "f"]);
        assert!(o.effects().all(|e| e.on_err.is_none()));
        let (_, e, _) = err(&w, &["644", "f/"]);
        assert_eq!(e, "chmod: cannot access 'f/': Not a directory\n");
    }

    #[test]
    fn usage_errors() {
        // GNU chmod 9.1, LC_ALL=C.
        let w = world();
        let try_line = "Try 'chmod --help' for more information.\n";
        for (args, msg) in [
            (&[][..], "missing operand"),
            (&["755"][..], "missing operand after '755'"),
            (&["-v"][..], "missing operand"),
            (&["-w"][..], "missing operand"),
            (&["--reference=f"][..], "missing operand"),
            (&["abc", "f"][..], "invalid mode: 'abc'"),
            (&["17777", "f"][..], "invalid mode: '17777'"),
            (&["-Rw", "f"][..], "invalid mode: '-Rw'"),
            (&["-wR", "f"][..], "invalid mode: '-wR'"),
            (
                &["--reference=f", "-w", "g"][..],
                "cannot combine mode and --reference options",
            ),
            (&["-z", "f"][..], "invalid option -- 'z'"),
            (&["-H", "f"][..], "invalid option -- 'H'"),
        ] {
            assert_eq!(
                err(&w, args),
                (String::new(), format!("chmod: {msg}\n{try_line}"), 1),
                "{args:?}"
            );
        }
        assert_eq!(
            err(&w, &["--reference=nope", "f"]),
            (
                String::new(),
                "chmod: failed to get attributes of 'nope': No such file or directory\n".into(),
                1
            )
        );
    }

    #[test]
    fn option_like_modes_and_the_umask_warning() {
        let w = world();
        // `-w` under umask 022 keeps the group's and others' w: GNU warns, status 1.
        let o = w.run(Chmod, &["-w", "g"]);
        assert_eq!(ops(&o), [set("/s/g", 0o466)]);
        assert_eq!(
            text(&o),
            (
                String::new(),
                "chmod: g: new permissions are r--rw-rw-, not r--r--r--\n".into(),
                1
            )
        );
        // The same mode as an operand: no warning.
        assert_eq!(
            err(&w, &["--", "-w", "g"]),
            (String::new(), String::new(), 0)
        );
        assert_eq!(err(&w, &["+w", "f"]), (String::new(), String::new(), 0));
        // Modes given as options are joined with commas; flags before one stay flags.
        let o = w.run(Chmod, &["-x,u+w", "-v", "-r", "f"]);
        assert_eq!(ops(&o), [set("/s/f", 0o200)]);
        // `--reference RFILE` takes the next argument, even one that looks like a mode.
        let w2 = World::new(
            MemFs::rooted("/s")
                .file("/s/-w", b"")
                .perm("/s/-w", 0o600)
                .file("/s/f", b""),
        );
        assert_eq!(
            ops(&w2.run(Chmod, &["--ref", "-w", "f"])),
            [set("/s/f", 0o600)]
        );
    }

    #[test]
    fn reference_copies_every_bit() {
        let w = World::new(
            MemFs::rooted("/s")
                .dir("/s/d")
                .perm("/s/d", 0o2750)
                .file("/s/f", b""),
        );
        assert_eq!(
            ops(&w.run(Chmod, &["--reference=d", "f"])),
            [set("/s/f", 0o2750)]
        );
    }

    #[test]
    fn roots() {
        // --preserve-root refuses `/` with -R; the sandbox's root is not changed.
        let w = World::new(MemFs::rooted("/").file("/f", b""))
            .mount("/")
            .cwd("/");
        assert_eq!(
            err(&w, &["-R", "--preserve-root", "700", "/"]),
            (
                String::new(),
                "chmod: it is dangerous to operate recursively on '/'\n\
                 chmod: use --no-preserve-root to override this failsafe\n"
                    .into(),
                1
            )
        );
        let o = w.run(Chmod, &["-R", "700", "."]);
        assert_eq!(ops(&o), [set("/./f", 0o700)]);
        assert_eq!(
            o.stderr(),
            b"chmod: changing permissions of '.': Operation not permitted\n"
        );
        assert_eq!(ops(&w.run(Chmod, &["755", "."])), [] as [Op; 0]);
        assert_eq!(err(&w, &["755", "."]), (String::new(), String::new(), 0));
    }
}
