//! `rm [OPTION]... [FILE]...`, GNU coreutils: a soft delete. Each operand becomes one
//! [`Op::Trash`] (a whole tree is one effect); links are removed as links, never followed.
//! Everything GNU checks before unlinking is checked here, so its diagnostics are GNU's; with
//! `-v` the tree is walked through the view to print GNU's `removed ...` lines in `fts` order.
//! Prompts (`-i`, `-I`) go to stderr and read their answers from the command's stdin; an
//! empty stdin answers no.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::argmatch::argmatch;
use crate::support::args::parse_args;
use crate::support::paths::{Overlay, is_dot_or_dotdot, normalize_lexical, walk_post_order};
use crate::{Ctx, Effect, FileKind, FsError, Op, Outcome, quote};

const MISSING: &str = "missing operand";
const DOTS: &str = "rm: refusing to remove '.' or '..' directory: skipping";
const DANGER_HINT: &str = "rm: use --no-preserve-root to override this failsafe\n";

fn cannot(name: &OsStr) -> String {
    format!("rm: cannot remove {}", quote(name))
}

/// Remove (unlink) the FILE(s).
#[derive(clap::Parser, Debug)]
#[command(override_usage = "rm [OPTION]... [FILE]...")]
pub struct RmArgs {
    /// ignore nonexistent files and arguments, never prompt
    #[arg(short = 'f', long = "force", overrides_with_all = ["interactive", "once"])]
    force: bool,
    /// prompt before every removal
    #[arg(short = 'i', overrides_with_all = ["force", "once"])]
    interactive: bool,
    /// prompt once before removing more than three files, or when removing recursively
    #[arg(short = 'I', overrides_with_all = ["force", "interactive"])]
    once: bool,
    /// prompt according to WHEN: never, once (-I), or always (-i)
    #[arg(long = "interactive", value_name = "WHEN", num_args = 0..=1, default_missing_value = "always")]
    when: Option<String>,
    /// do not treat '/' specially
    #[arg(long = "no-preserve-root")]
    no_preserve_root: bool,
    /// do not remove '/' (default)
    #[arg(long = "preserve-root", value_name = "all", num_args = 0..=1, default_missing_value = "")]
    preserve_root: Option<String>,
    /// remove directories and their contents recursively
    #[arg(short = 'r', short_alias = 'R', long = "recursive")]
    recursive: bool,
    /// remove empty directories
    #[arg(short = 'd', long = "dir")]
    dir: bool,
    /// explain what is being done
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
    /// when removing a hierarchy recursively, stay on one file system (always true here)
    #[arg(long = "one-file-system")]
    one_file_system: bool,
    files: Vec<OsString>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Prompt {
    Never,
    Once,
    Always,
}

struct Job<'a> {
    ctx: &'a Ctx<'a>,
    a: &'a RmArgs,
    prompt: Prompt,
    overlay: Overlay,
    out: Outcome,
    status: i32,
}

impl Job<'_> {
    /// Prints `question` on stderr and reads one answer line: yes when it starts with y/Y.
    fn ask(&mut self, question: &str) -> bool {
        crate::support::input::ask(&mut self.out, self.ctx.stdin, question)
    }

    fn fail(&mut self, name: &OsStr, e: &FsError) {
        self.out.err(format!("{}: {e}\n", cannot(name)));
        self.status = 1;
    }

    fn kind_name(&self, path: &std::path::Path, kind: FileKind) -> &'static str {
        match kind {
            FileKind::Dir => "directory",
            FileKind::Symlink => "symbolic link",
            FileKind::Fifo => "fifo",
            FileKind::Socket => "socket",
            FileKind::CharDevice(_) => "character special file",
            FileKind::BlockDevice(_) => "block special file",
            FileKind::File => {
                if self.ctx.fs.stat(path, false).is_ok_and(|m| m.len == 0) {
                    "regular empty file"
                } else {
                    "regular file"
                }
            }
        }
    }

    fn is_link_without_slash(&self, path: &std::path::Path) -> bool {
        let b = path.as_os_str().as_bytes();
        let end = b.iter().rposition(|&c| c != b'/').map_or(0, |i| i + 1);
        let stripped = std::path::Path::new(OsStr::from_bytes(&b[..end]));
        self.ctx
            .fs
            .stat(stripped, false)
            .is_ok_and(|m| m.is_symlink())
    }

    fn is_root(&self, path: &std::path::Path) -> bool {
        let n = normalize_lexical(path);
        n.as_os_str() == "/" || n == self.ctx.mount_point
    }

    fn one(&mut self, name: &OsStr) {
        let a = self.a;
        let path = self.ctx.resolve(name);
        let b = name.as_bytes();
        let trailing_slash = b.len() > 1 && b.ends_with(b"/");
        let kind = match self.overlay.kind(self.ctx.fs, &path, false) {
            Ok(k) => k,
            Err(e) => {
                // -f ignores what does not exist (ENOENT, and ENOTDIR from a file prefix).
                if !(a.force && matches!(e, FsError::NotFound | FsError::NotADirectory)) {
                    self.fail(name, &e);
                }
                return;
            }
        };
        if kind == FileKind::Dir {
            if !a.recursive && !a.dir {
                return self.fail(name, &FsError::IsADirectory);
            }
            if a.recursive && is_dot_or_dotdot(name) {
                self.out.err(format!("{DOTS} {}\n", quote(name)));
                self.status = 1;
                return;
            }
            if a.recursive && !a.no_preserve_root && self.is_root(&path) {
                let shown = if b.iter().all(|&c| c == b'/') {
                    quote("/")
                } else {
                    format!("{} (same as '/')", quote(name))
                };
                self.out.err(format!(
                    "{}: it is dangerous to operate recursively on {shown}\n{DANGER_HINT}",
                    self.ctx.name,
                ));
                self.status = 1;
                return;
            }
            // A link to a directory named with a trailing slash: GNU's unlinkat fails.
            if a.recursive && trailing_slash && self.is_link_without_slash(&path) {
                return self.fail(name, &FsError::NotADirectory);
            }
            let empty = self.ctx.fs.read_dir(&path).map_or(true, |e| e.is_empty());
            if !a.recursive && !empty {
                return self.fail(name, &FsError::NotEmpty);
            }
            if self.prompt == Prompt::Always {
                // TODO(rm): -i on a non-empty tree asks per entry in GNU; here one question
                // to descend and one for the directory decide for the whole tree.
                if !empty
                    && !self.ask(&format!(
                        "{}: descend into directory {}? ",
                        self.ctx.name,
                        quote(name)
                    ))
                {
                    return;
                }
                if !self.ask(&format!(
                    "{}: remove directory {}? ",
                    self.ctx.name,
                    quote(name)
                )) {
                    return;
                }
            }
            let mut on_ok = Vec::new();
            if a.verbose {
                for e in walk_post_order(self.ctx.fs, &path, name, self.ctx.walk_depth) {
                    let line = if e.kind == FileKind::Dir {
                        format!("removed directory {}\n", quote(&e.display))
                    } else {
                        format!("removed {}\n", quote(&e.display))
                    };
                    on_ok.extend_from_slice(line.as_bytes());
                }
            }
            self.trash(name, &path, on_ok);
            return;
        }
        if self.prompt == Prompt::Always {
            let q = format!(
                "{}: remove {} {}? ",
                self.ctx.name,
                self.kind_name(&path, kind),
                quote(name)
            );
            if !self.ask(&q) {
                return;
            }
        }
        let on_ok = if a.verbose {
            format!("removed {}\n", quote(name)).into_bytes()
        } else {
            Vec::new()
        };
        self.trash(name, &path, on_ok);
    }

    fn trash(&mut self, name: &OsStr, path: &std::path::Path, on_ok: Vec<u8>) {
        self.overlay.remove(path);
        let mut e = Effect::new(
            Op::Trash {
                path: path.to_path_buf(),
            },
            cannot(name),
        );
        if !on_ok.is_empty() {
            e = e.on_ok(on_ok);
        }
        self.out.effect(e);
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<RmArgs>(args)?;
    let mut prompt = if a.interactive {
        Prompt::Always
    } else if a.once {
        Prompt::Once
    } else {
        Prompt::Never
    };
    if let Some(when) = &a.when {
        prompt = argmatch(
            "--interactive",
            when,
            &[
                ("never", Prompt::Never),
                ("no", Prompt::Never),
                ("none", Prompt::Never),
                ("once", Prompt::Once),
                ("always", Prompt::Always),
                ("yes", Prompt::Always),
            ],
        )?;
    }
    let force = a.force && prompt == Prompt::Never;
    if a.files.is_empty() {
        if force {
            return Ok(Outcome::ok());
        }
        return Err(Stop::Usage(MISSING.into()));
    }
    let mut job = Job {
        ctx,
        a: &a,
        prompt,
        overlay: Overlay::default(),
        out: Outcome::ok(),
        status: 0,
    };
    if prompt == Prompt::Once && (a.recursive || a.files.len() > 3) {
        let n = a.files.len();
        let q = format!(
            "{}: remove {n} argument{}{}? ",
            ctx.name,
            if n == 1 { "" } else { "s" },
            if a.recursive { " recursively" } else { "" }
        );
        if !job.ask(&q) {
            return Ok(job.out);
        }
    }
    for f in &a.files {
        job.one(f);
    }
    Ok(job.out.with_status(job.status))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::Op;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text, transcript};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .file("/s/d/f", b"")
                .file("/s/d/e/g", b"")
                .dir("/s/empty")
                .file("/s/f", b"x")
                .symlink("/s/ld", "d")
                .symlink("/s/dang", "nowhere"),
        )
    }

    fn trash(p: &str) -> Op {
        Op::Trash {
            path: PathBuf::from(p),
        }
    }

    #[test]
    fn verbose_order_as_gnu() {
        // GNU 9.1 `rm -rv d ld` and `rm -v f nope empty`, 2>&1.
        let w = world();
        let o = w.run(crate::CommandName::Rm, &["-rv", "d", "ld"]);
        assert_eq!(ops(&o), [trash("/s/d"), trash("/s/ld")]);
        assert_eq!(
            transcript(&o),
            "removed 'd/f'\nremoved 'd/e/g'\nremoved directory 'd/e'\nremoved directory 'd'\nremoved 'ld'\n"
        );
        let o = w.run(crate::CommandName::Rm, &["-v", "f", "nope", "empty"]);
        assert_eq!(
            transcript(&o),
            "removed 'f'\nrm: cannot remove 'nope': No such file or directory\nrm: cannot remove 'empty': Is a directory\n"
        );
        assert_eq!(o.status, 1);
        assert_eq!(
            ops(&w.run(crate::CommandName::Rm, &["-dv", "empty"])),
            [trash("/s/empty")]
        );
    }

    #[test]
    fn errors_as_gnu() {
        let w = world();
        let cases: &[(&[&str], &str)] = &[
            (&["d"], "rm: cannot remove 'd': Is a directory\n"),
            (
                &["nope"],
                "rm: cannot remove 'nope': No such file or directory\n",
            ),
            (&["-d", "d"], "rm: cannot remove 'd': Directory not empty\n"),
            (
                &["-rf", "./."],
                "rm: refusing to remove '.' or '..' directory: skipping './.'\n",
            ),
            (
                &["-r", "d/.."],
                "rm: refusing to remove '.' or '..' directory: skipping 'd/..'\n",
            ),
            (&["ld/"], "rm: cannot remove 'ld/': Is a directory\n"),
            (&["-r", "ld/"], "rm: cannot remove 'ld/': Not a directory\n"),
            (
                &[],
                "rm: missing operand\nTry 'rm --help' for more information.\n",
            ),
            (
                &["-z"],
                "rm: invalid option -- 'z'\nTry 'rm --help' for more information.\n",
            ),
        ];
        for (args, err) in cases {
            let o = w.run(crate::CommandName::Rm, args);
            assert_eq!(text(&o), (String::new(), (*err).to_string(), 1), "{args:?}");
            assert!(ops(&o).is_empty(), "{args:?}");
        }
        assert_eq!(
            text(&w.run(crate::CommandName::Rm, &["-f"])),
            (String::new(), String::new(), 0)
        );
        let w2 = world().cwd("/s/d");
        assert_eq!(
            text(&w2.run(crate::CommandName::Rm, &[".."])).1,
            "rm: cannot remove '..': Is a directory\n"
        );
        assert_eq!(
            text(&w2.run(crate::CommandName::Rm, &["-r", "..", "."])),
            (
                String::new(),
                "rm: refusing to remove '.' or '..' directory: skipping '..'\nrm: refusing to remove '.' or '..' directory: skipping '.'\n".into(),
                1
            )
        );
        let o = w.run(crate::CommandName::Rm, &["-f", "nope", "f/x", "f"]);
        assert_eq!(text(&o), (String::new(), String::new(), 0));
        assert_eq!(ops(&o), [trash("/s/f")]);
        // The same operand twice: the second sees the first's pending removal.
        assert_eq!(
            text(&w.run(crate::CommandName::Rm, &["f", "f"])).1,
            "rm: cannot remove 'f': No such file or directory\n"
        );
        assert_eq!(
            ops(&w.run(crate::CommandName::Rm, &["dang"])),
            [trash("/s/dang")]
        );
    }

    #[test]
    fn preserve_root() {
        let danger = "rm: it is dangerous to operate recursively on '/'\nrm: use --no-preserve-root to override this failsafe\n";
        let w = World::new(MemFs::new().file("/a", b"")).cwd("/").mount("/");
        assert_eq!(
            text(&w.run(crate::CommandName::Rm, &["-rf", "/"])),
            (String::new(), danger.into(), 1)
        );
        assert_eq!(
            text(&w.run(crate::CommandName::Rm, &["-r", "--", "///"])),
            (String::new(), danger.into(), 1)
        );
        assert_eq!(
            ops(&w.run(crate::CommandName::Rm, &["-rf", "--no-preserve-root", "/"])),
            [trash("/")]
        );
        // At a mount point other than `/`, the sandbox root is refused the same way.
        let w = world();
        assert_eq!(
            text(&w.run(crate::CommandName::Rm, &["-rf", "/s"])).1,
            "rm: it is dangerous to operate recursively on '/s' (same as '/')\nrm: use --no-preserve-root to override this failsafe\n"
        );
    }

    #[test]
    fn prompts_read_stdin() {
        // GNU 9.1 with </dev/null: the prompt, no newline, nothing removed, status 0.
        let w = world();
        let o = w.run(crate::CommandName::Rm, &["-i", "d/f", "dang", "f"]);
        assert_eq!(
            text(&o),
            (
                String::new(),
                "rm: remove regular empty file 'd/f'? rm: remove symbolic link 'dang'? rm: remove regular file 'f'? ".into(),
                0
            )
        );
        assert!(ops(&o).is_empty());
        assert_eq!(
            text(&w.run(crate::CommandName::Rm, &["-ri", "d"])).1,
            "rm: descend into directory 'd'? "
        );
        assert_eq!(
            text(&w.run(crate::CommandName::Rm, &["-ri", "empty"])).1,
            "rm: remove directory 'empty'? "
        );
        assert_eq!(
            text(&w.run(crate::CommandName::Rm, &["-I", "f", "f", "f", "f"])).1,
            "rm: remove 4 arguments? "
        );
        assert_eq!(
            text(&w.run(crate::CommandName::Rm, &["-rI", "d"])).1,
            "rm: remove 1 argument recursively? "
        );
        // -f after -i wins; -i after -f wins.
        assert_eq!(
            ops(&w.run(crate::CommandName::Rm, &["-if", "f"])),
            [trash("/s/f")]
        );
        assert!(ops(&w.run(crate::CommandName::Rm, &["-fi", "f"])).is_empty());
        let w = world().stdin(b"y\nn\n");
        assert_eq!(
            ops(&w.run(crate::CommandName::Rm, &["-i", "f", "d/f"])),
            [trash("/s/f")]
        );
    }
}
