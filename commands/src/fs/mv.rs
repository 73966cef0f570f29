//! `mv [OPTION]... SOURCE... DEST`, GNU coreutils 9.1: one [`Op::Rename`] per source (a
//! link is moved as a link). Everything GNU checks before `rename(2)` is checked here, so its
//! diagnostics are GNU's. An existing destination is first moved to the trash with
//! [`Op::Trash`], so what `mv` overwrites stays restorable — a deliberate difference from GNU
//! that no output shows. Prompts (`-i`) go to stderr and read their answers from the
//! command's stdin; an empty stdin answers no. Target logic is shared with `cp`.

use std::ffi::{OsStr, OsString};

use crate::Stop;
use crate::fs::target::{has_trailing_slash, plan, same, strip_slashes};
use crate::support::args::parse_args;
use crate::support::paths::{Overlay, is_dot_or_dotdot, parent_of};
use crate::{Ctx, Effect, FileKind, FsError, Op, Outcome, quote};

fn cannot_move(src: &OsStr, dst: &OsStr) -> String {
    format!("mv: cannot move {} to {}", quote(src), quote(dst))
}

/// Rename SOURCE to DEST, or move SOURCE(s) to DIRECTORY.
#[derive(clap::Parser, Debug)]
#[command(
    override_usage = "mv [OPTION]... [-T] SOURCE DEST\n  or:  mv [OPTION]... SOURCE... DIRECTORY\n  or:  mv [OPTION]... -t DIRECTORY SOURCE..."
)]
pub struct MvArgs {
    /// do not prompt before overwriting
    #[arg(short = 'f', long = "force", overrides_with_all = ["interactive", "no_clobber"])]
    force: bool,
    /// prompt before overwrite
    #[arg(short = 'i', long = "interactive", overrides_with_all = ["force", "no_clobber"])]
    interactive: bool,
    /// do not overwrite an existing file
    #[arg(short = 'n', long = "no-clobber", overrides_with_all = ["force", "interactive"])]
    no_clobber: bool,
    /// move all SOURCE arguments into DIRECTORY
    #[arg(short = 't', long = "target-directory", value_name = "DIRECTORY")]
    target: Option<OsString>,
    /// treat DEST as a normal file
    #[arg(short = 'T', long = "no-target-directory")]
    no_target: bool,
    /// explain what is being done
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
    operands: Vec<OsString>,
}

struct Job<'a> {
    ctx: &'a Ctx<'a>,
    a: &'a MvArgs,
    overlay: Overlay,
    out: Outcome,
    status: i32,
}

impl Job<'_> {
    fn error(&mut self, msg: &str) {
        self.out.err(format!("{}: {msg}\n", self.ctx.name));
        self.status = 1;
    }

    /// `mv: cannot move 'a' to 'b': strerror`.
    fn cannot(&mut self, src: &OsStr, dst: &OsStr, why: &str) {
        self.out.err(format!("{}: {why}\n", cannot_move(src, dst)));
        self.status = 1;
    }

    fn ask(&mut self, question: &str) -> bool {
        crate::support::input::ask(&mut self.out, self.ctx.stdin, question)
    }

    fn one(&mut self, src: &OsStr, dst: &OsStr) {
        let ctx = self.ctx;
        let src_path = ctx.resolve(src);
        let dst_path = ctx.resolve(dst);
        let src_slash = has_trailing_slash(src);
        let kind = match self.overlay.kind(ctx.fs, &src_path, src_slash) {
            Ok(k) => k,
            Err(e) => return self.error(&format!("cannot stat {}: {e}", quote(src))),
        };
        if src_slash {
            if kind != FileKind::Dir {
                return self.error(&format!("cannot stat {}: Not a directory", quote(src)));
            }
            // `link/`: rename(2) will not move a link named with a slash.
            if ctx
                .fs
                .stat(&strip_slashes(&src_path), false)
                .is_ok_and(|m| m.is_symlink())
            {
                return self.cannot(src, dst, FsError::NotADirectory.strerror());
            }
        }
        if is_dot_or_dotdot(src) {
            return self.cannot(src, dst, "Device or resource busy");
        }
        let src_meta = ctx.fs.stat(&strip_slashes(&src_path), false).ok();
        let dst_slash = has_trailing_slash(dst);
        let existing = match self.overlay.kind(ctx.fs, &dst_path, false) {
            Ok(k) => Some(k),
            Err(FsError::NotFound) => None,
            Err(e) => return self.error(&format!("cannot stat {}: {e}", quote(dst))),
        };
        if let (Some(_), Some(sm), Ok(dm)) = (
            existing,
            &src_meta,
            ctx.fs.stat(&strip_slashes(&dst_path), false),
        ) && same(sm, &dm)
        {
            return self.error(&format!(
                "{} and {} are the same file",
                quote(src),
                quote(dst)
            ));
        }
        if kind == FileKind::Dir
            && let (Ok(cs), Some(parent)) = (
                ctx.fs.canonicalize(&src_path),
                parent_of(&strip_slashes(&dst_path)),
            )
        {
            let name = strip_slashes(&dst_path)
                .file_name()
                .map(OsStr::to_os_string)
                .unwrap_or_default();
            if let Ok(cp) = ctx.fs.canonicalize(&parent)
                && cp.join(&name).starts_with(&cs)
            {
                return self.error(&format!(
                    "cannot move {} to a subdirectory of itself, {}",
                    quote(src),
                    quote(dst)
                ));
            }
        }
        match existing {
            None => {
                if dst_slash && kind != FileKind::Dir {
                    return self.cannot(src, dst, FsError::NotADirectory.strerror());
                }
            }
            Some(dk) => {
                if kind == FileKind::Dir && dk != FileKind::Dir {
                    return self.error(&format!(
                        "cannot overwrite non-directory {} with directory {}",
                        quote(dst),
                        quote(src)
                    ));
                }
                if kind != FileKind::Dir && dk == FileKind::Dir {
                    return self.error(&format!(
                        "cannot overwrite directory {} with non-directory",
                        quote(dst)
                    ));
                }
                if dk == FileKind::Dir && ctx.fs.read_dir(&dst_path).is_ok_and(|e| !e.is_empty()) {
                    return self.cannot(src, dst, FsError::NotEmpty.strerror());
                }
                if self.a.no_clobber {
                    return;
                }
                if self.a.interactive
                    && !self.ask(&format!("{}: overwrite {}? ", self.ctx.name, quote(dst)))
                {
                    return;
                }
                // The old target goes to the trash first, so the line can be undone.
                self.out.effect(Effect::new(
                    Op::Trash {
                        path: strip_slashes(&dst_path),
                    },
                    cannot_move(src, dst),
                ));
                // Applied now: when it could not be moved aside (read-only), its failure is
                // GNU's one `cannot move` line, and the rename is not tried.
                if ctx.apply_now(&mut self.out)
                    && ctx.fs.stat(&strip_slashes(&dst_path), false).is_ok()
                {
                    self.status = 1;
                    return;
                }
            }
        }
        let mut e = Effect::new(
            Op::Rename {
                from: strip_slashes(&src_path),
                to: strip_slashes(&dst_path),
            },
            cannot_move(src, dst),
        );
        if self.a.verbose {
            e = e.on_ok(format!("renamed {} -> {}\n", quote(src), quote(dst)));
        }
        self.out.effect(e);
        self.overlay.remove(&src_path);
        self.overlay.create(&dst_path, kind);
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<MvArgs>(args)?;
    let pairs = plan(ctx, &a.operands, a.target.as_ref(), a.no_target)?;
    let mut job = Job {
        ctx,
        a: &a,
        overlay: Overlay::default(),
        out: Outcome::ok(),
        status: 0,
    };
    let _ = a.force;
    for p in &pairs {
        job.one(&p.src, &p.dst);
    }
    Ok(job.out.with_status(job.status))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::Op;

    use crate::testing::world::{World, copy_tree, ops, text, transcript};

    fn world() -> World {
        World::new(
            copy_tree()
                .dir("/s/e2")
                .dir("/s/full/d")
                .file("/s/full/d/x", b""),
        )
    }

    fn rename(from: &str, to: &str) -> Op {
        Op::Rename {
            from: PathBuf::from(from),
            to: PathBuf::from(to),
        }
    }

    fn trash(p: &str) -> Op {
        Op::Trash {
            path: PathBuf::from(p),
        }
    }

    #[test]
    fn errors_as_gnu() {
        // GNU coreutils 9.1, LC_ALL=C, on the same tree.
        let w = world();
        let cases: &[(&[&str], &str)] = &[
            (
                &[],
                "mv: missing file operand\nTry 'mv --help' for more information.\n",
            ),
            (
                &["f"],
                "mv: missing destination file operand after 'f'\nTry 'mv --help' for more information.\n",
            ),
            (&["f", "f"], "mv: 'f' and 'f' are the same file\n"),
            (&["-f", "f", "f"], "mv: 'f' and 'f' are the same file\n"),
            (
                &["nope", "x"],
                "mv: cannot stat 'nope': No such file or directory\n",
            ),
            (
                &["f", "g", "h"],
                "mv: target 'h': No such file or directory\n",
            ),
            (&["f", "d", "g"], "mv: target 'g': Not a directory\n"),
            (
                &["d", "d/sub"],
                "mv: cannot move 'd' to a subdirectory of itself, 'd/sub/d'\n",
            ),
            (
                &["d", "d"],
                "mv: cannot move 'd' to a subdirectory of itself, 'd/d'\n",
            ),
            (
                &["d", "e"],
                "mv: cannot move 'd' to 'e/d': Directory not empty\n",
            ),
            (
                &["d", "full"],
                "mv: cannot move 'd' to 'full/d': Directory not empty\n",
            ),
            (
                &["-T", "e2", "e"],
                "mv: cannot move 'e2' to 'e': Directory not empty\n",
            ),
            (
                &["f", "dd"],
                "mv: cannot overwrite directory 'dd/f' with non-directory\n",
            ),
            (
                &["d", "g"],
                "mv: cannot overwrite non-directory 'g' with directory 'd'\n",
            ),
            (
                &["-T", "f", "e2"],
                "mv: cannot overwrite directory 'e2' with non-directory\n",
            ),
            (
                &["-t", "g", "f"],
                "mv: target directory 'g': Not a directory\n",
            ),
            (
                &["-t", "nope", "f"],
                "mv: target directory 'nope': No such file or directory\n",
            ),
            (
                &["-T", "a", "b", "c"],
                "mv: extra operand 'c'\nTry 'mv --help' for more information.\n",
            ),
            (
                &["f", "nf/"],
                "mv: cannot move 'f' to 'nf/': Not a directory\n",
            ),
            (&["f", "f/"], "mv: cannot stat 'f/': Not a directory\n"),
            (
                &["ld/", "x"],
                "mv: cannot move 'ld/' to 'x': Not a directory\n",
            ),
            (
                &[".", "x"],
                "mv: cannot move '.' to 'x': Device or resource busy\n",
            ),
            (
                &["-z"],
                "mv: invalid option -- 'z'\nTry 'mv --help' for more information.\n",
            ),
        ];
        for (args, err) in cases {
            let o = w.run(crate::CommandName::Mv, args);
            assert_eq!(text(&o), (String::new(), (*err).to_string(), 1), "{args:?}");
            assert!(ops(&o).is_empty(), "{args:?}");
        }
    }

    #[test]
    fn renames_and_overwrites() {
        let w = world();
        let o = w.run(crate::CommandName::Mv, &["-v", "g", "g2"]);
        assert_eq!(ops(&o), [rename("/s/g", "/s/g2")]);
        assert_eq!(transcript(&o), "renamed 'g' -> 'g2'\n");
        let o = w.run(crate::CommandName::Mv, &["-v", "g", "e2"]);
        assert_eq!(ops(&o), [rename("/s/g", "/s/e2/g")]);
        assert_eq!(transcript(&o), "renamed 'g' -> 'e2/g'\n");
        // Overwriting: the old target to the trash, then the rename.
        assert_eq!(
            ops(&w.run(crate::CommandName::Mv, &["g", "f"])),
            [trash("/s/f"), rename("/s/g", "/s/f")]
        );
        // The link is replaced, not followed.
        assert_eq!(
            ops(&w.run(crate::CommandName::Mv, &["f", "lf"])),
            [trash("/s/lf"), rename("/s/f", "/s/lf")]
        );
        // An empty directory may be replaced by a directory.
        assert_eq!(
            ops(&w.run(crate::CommandName::Mv, &["-T", "d/sub", "e2"])),
            [trash("/s/e2"), rename("/s/d/sub", "/s/e2")]
        );
        // -n skips quietly; -i asks; later operands see earlier moves.
        assert_eq!(
            text(&w.run(crate::CommandName::Mv, &["-n", "g", "f"])),
            (String::new(), String::new(), 0)
        );
        assert_eq!(
            text(&w.run(crate::CommandName::Mv, &["-i", "g", "f"])).1,
            "mv: overwrite 'f'? "
        );
        assert!(ops(&w.run(crate::CommandName::Mv, &["-fi", "g", "f"])).is_empty());
        assert_eq!(
            ops(&w.run(crate::CommandName::Mv, &["-if", "g", "f"])).len(),
            2
        );
        let o = w.run(crate::CommandName::Mv, &["-v", "dd", "nope", "e2"]);
        assert_eq!(
            transcript(&o),
            "renamed 'dd' -> 'e2/dd'\nmv: cannot stat 'nope': No such file or directory\n"
        );
        let o = w.run(crate::CommandName::Mv, &["g", "h"]);
        assert_eq!(ops(&o), [rename("/s/g", "/s/h")]);
        let o = w.run(crate::CommandName::Mv, &["d/", "d2/"]);
        assert_eq!(ops(&o), [rename("/s/d", "/s/d2")]);
        assert_eq!(
            ops(&w.run(crate::CommandName::Mv, &["dang", "e2"])),
            [rename("/s/dang", "/s/e2/dang")]
        );
    }
}
