//! `ln [-sfnrvTLP] [-t DIR] TARGET... [LINK|DIR]`, GNU coreutils 9.1: one [`Op::Symlink`]
//! or [`Op::HardLink`] per link, `-f` trashing what is in the way first ([`Op::Trash`]). A
//! symbolic link's text is stored as given (`-r`: made relative lexically, as GNU does); one
//! that leads out of the sandbox is created but stays dangling for the agent.

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::canon::{Exist, canonicalize, relative};
use super::target::{plan, same, strip_slashes};
use crate::Stop;
use crate::support::args::parse_args;
use crate::support::paths::{Overlay, join_display, parent_of};
use crate::{Ctx, Effect, FileKind, Op, Outcome, quote, quote_if_needed};

/// Make links between files.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "ln [OPTION]... [-T] TARGET LINK_NAME")]
pub struct LnArgs {
    /// make a backup of each existing destination file
    #[arg(short = 'b')]
    backup: bool,
    /// remove existing destination files
    #[arg(short = 'f', long = "force")]
    force: bool,
    /// dereference TARGETs that are symbolic links
    #[arg(short = 'L', long = "logical", overrides_with = "physical")]
    logical: bool,
    /// treat `LINK_NAME` as a normal file if it is a symbolic link to a directory
    #[arg(short = 'n', long = "no-dereference", visible_alias = "no-deref")]
    no_deref: bool,
    /// make hard links directly to symbolic links
    #[arg(short = 'P', long = "physical", overrides_with = "logical")]
    physical: bool,
    /// with -s, create links relative to link location
    #[arg(short = 'r', long = "relative")]
    relative: bool,
    /// make symbolic links instead of hard links
    #[arg(short = 's', long = "symbolic")]
    symbolic: bool,
    /// override the usual backup suffix
    #[arg(short = 'S', long = "suffix", value_name = "SUFFIX")]
    suffix: Option<OsString>,
    /// specify the DIRECTORY in which to create the links
    #[arg(short = 't', long = "target-directory", value_name = "DIRECTORY")]
    target: Option<OsString>,
    /// treat `LINK_NAME` as a normal file always
    #[arg(short = 'T', long = "no-target-directory")]
    no_target: bool,
    /// print name of each linked file
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
    operands: Vec<OsString>,
}

struct Job<'a> {
    ctx: &'a Ctx<'a>,
    a: LnArgs,
    overlay: Overlay,
    out: Outcome,
    status: i32,
}

impl Job<'_> {
    fn fail(&mut self, msg: &str) {
        self.out.err(format!("ln: {msg}\n"));
        self.status = 1;
    }

    /// The text of a symbolic link to `src` at `dst` (`-r`: relative to the link's directory).
    fn link_text(&self, src: &OsStr, dst: &Path) -> OsString {
        if !self.a.relative {
            return src.to_os_string();
        }
        let from = canonicalize(self.ctx, &self.ctx.resolve(src), Exist::Missing, true);
        let dir = parent_of(dst).map_or_else(
            || Ok(PathBuf::from("/")),
            |d| canonicalize(self.ctx, &d, Exist::Missing, true),
        );
        match (from, dir) {
            (Ok(f), Ok(d)) => relative(&f, &d),
            _ => src.to_os_string(),
        }
    }

    fn one(&mut self, src: &OsStr, dst_name: &OsStr) {
        let kind_word = if self.a.symbolic {
            "symbolic link"
        } else {
            "hard link"
        };
        let dst = self.ctx.resolve(dst_name);
        let src_path = self.ctx.resolve(src);
        let mut from = src_path.clone();
        if !self.a.symbolic {
            let follow = self.a.logical;
            match self.ctx.fs.stat(&src_path, follow) {
                Err(e) => {
                    return self.fail(&format!("failed to access {}: {e}", quote(src)));
                }
                Ok(m) if m.is_dir() => {
                    return self.fail(&format!(
                        "{}: hard link not allowed for directory",
                        quote_if_needed(src)
                    ));
                }
                Ok(_) => {}
            }
            if follow {
                match self.ctx.fs.canonicalize(&src_path) {
                    Ok(p) => from = p,
                    Err(e) => {
                        return self.fail(&format!("failed to access {}: {e}", quote(src)));
                    }
                }
            }
        }
        let cannot = format!("failed to create {kind_word} {}", quote(dst_name));
        let existing = self.overlay.kind(self.ctx.fs, &dst, false);
        let mut backup = None;
        if let Ok(kind) = existing {
            if !self.a.force && !self.a.backup {
                return self.fail(&format!("{cannot}: File exists"));
            }
            let src_meta = self
                .ctx
                .fs
                .stat(&src_path, !self.a.symbolic && self.a.logical);
            let dst_meta = self.ctx.fs.stat(&dst, false);
            if let (Ok(s), Ok(d), false) = (&src_meta, &dst_meta, self.a.backup)
                && same(s, d)
            {
                return self.fail(&format!(
                    "{} and {} are the same file",
                    quote(src),
                    quote(dst_name)
                ));
            }
            if kind == FileKind::Dir {
                return self.fail(&format!(
                    "{}: cannot overwrite directory",
                    quote_if_needed(dst_name)
                ));
            }
            let target = strip_slashes(&dst);
            if self.a.backup {
                let suffix = self
                    .a
                    .suffix
                    .clone()
                    .or_else(|| {
                        self.ctx
                            .vars
                            .get("SIMPLE_BACKUP_SUFFIX")
                            .map(OsString::from)
                    })
                    .unwrap_or_else(|| OsString::from("~"));
                let mut b = target.clone().into_os_string();
                b.push(&suffix);
                let mut shown = dst_name.to_os_string();
                shown.push(&suffix);
                self.out.effect(Effect::new(
                    Op::Rename {
                        from: target.clone(),
                        to: PathBuf::from(&b),
                    },
                    format!("ln: cannot backup {}", quote(dst_name)),
                ));
                backup = Some(shown);
            } else {
                self.out.effect(Effect::new(
                    Op::Trash {
                        path: target.clone(),
                    },
                    format!("ln: cannot remove {}", quote(dst_name)),
                ));
            }
            self.overlay.remove(&target);
        } else if let Some(parent) = parent_of(&dst) {
            match self.overlay.kind(self.ctx.fs, &parent, true) {
                Ok(FileKind::Dir) => {}
                Ok(_) => return self.fail(&format!("{cannot}: Not a directory")),
                Err(e) => return self.fail(&format!("{cannot}: {e}")),
            }
        }
        let (op, arrow, text) = if self.a.symbolic {
            let text = self.link_text(src, &dst);
            (
                Op::Symlink {
                    path: dst.clone(),
                    target: PathBuf::from(&text),
                },
                "->",
                text,
            )
        } else {
            (
                Op::HardLink {
                    from,
                    to: dst.clone(),
                },
                "=>",
                src.to_os_string(),
            )
        };
        self.overlay.create(&dst, FileKind::File);
        let mut e = Effect::new(op, cannot);
        if self.a.verbose {
            let mut msg = String::new();
            if let Some(b) = backup {
                let _ = write!(msg, "{} ~ ", quote(&b));
            }
            let _ = writeln!(msg, "{} {arrow} {}", quote(dst_name), quote(&text));
            e = e.on_ok(msg);
        }
        self.out.effect(e);
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut a = parse_args::<LnArgs>(args)?;
    if a.relative && !a.symbolic {
        return Err(Stop::Fail("cannot do --relative without --symbolic".into()));
    }
    if a.suffix.is_some() {
        a.backup = true;
    }
    let ops = a.operands.clone();
    // A last operand that is a link to a directory is a plain name with `-n`.
    let no_target = a.no_target
        || (a.no_deref
            && a.target.is_none()
            && ops.len() == 2
            && ops.last().is_some_and(|l| {
                ctx.fs
                    .stat(&ctx.resolve(l), false)
                    .is_ok_and(|m| m.is_symlink())
            }));
    let pairs: Vec<(OsString, OsString)> = match (ops.as_slice(), &a.target, no_target) {
        ([one], None, false) => {
            let b = one.as_bytes();
            let end = b.iter().rposition(|&c| c != b'/').map_or(0, |i| i + 1);
            let t = b.get(..end).unwrap_or_default();
            let base = t.rsplit(|&c| c == b'/').next().unwrap_or(t);
            vec![(
                one.clone(),
                join_display(OsStr::new("."), OsStr::from_bytes(base)),
            )]
        }
        _ => plan(ctx, &ops, a.target.as_ref(), no_target)?
            .into_iter()
            .map(|p| (p.src, p.dst))
            .collect(),
    };
    let mut job = Job {
        ctx,
        a,
        overlay: Overlay::default(),
        out: Outcome::ok(),
        status: 0,
    };
    for (src, dst) in &pairs {
        job.one(src, dst);
    }
    Ok(job.out.with_status(job.status))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::CommandName::Ln;
    use crate::Op;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text, transcript};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .dir("/s/d")
                .dir("/s/e")
                .file("/s/f", b"")
                .file("/s/g", b"")
                .file("/s/d/f", b"")
                .symlink("/s/ld", "d")
                .symlink("/s/l1", "f"),
        )
    }

    fn sym(p: &str, t: &str) -> Op {
        Op::Symlink {
            path: PathBuf::from(p),
            target: PathBuf::from(t),
        }
    }

    fn hard(f: &str, t: &str) -> Op {
        Op::HardLink {
            from: PathBuf::from(f),
            to: PathBuf::from(t),
        }
    }

    fn trash(p: &str) -> Op {
        Op::Trash {
            path: PathBuf::from(p),
        }
    }

    #[test]
    fn creates_links() {
        let w = world();
        let o = w.run(Ln, &["-sv", "f", "l2"]);
        assert_eq!(ops(&o), [sym("/s/l2", "f")]);
        assert_eq!(transcript(&o), "'l2' -> 'f'\n");
        let o = w.run(Ln, &["-v", "f", "h"]);
        assert_eq!(ops(&o), [hard("/s/f", "/s/h")]);
        assert_eq!(transcript(&o), "'h' => 'f'\n");
        assert_eq!(
            ops(&w.run(Ln, &["-s", "/tmp/x", "e"])),
            [sym("/s/e/x", "/tmp/x")]
        );
        assert_eq!(
            ops(&w.run(Ln, &["-s", "f", "g", "e"])),
            [sym("/s/e/f", "f"), sym("/s/e/g", "g")]
        );
        assert_eq!(
            ops(&w.run(Ln, &["-s", "/etc/passwd"])),
            [sym("/s/./passwd", "/etc/passwd")]
        );
        assert_eq!(
            ops(&w.run(Ln, &["-t", "e", "-s", "../f"])),
            [sym("/s/e/f", "../f")]
        );
        assert_eq!(
            ops(&w.run(Ln, &["-sr", "d/x", "e/y"])),
            [sym("/s/e/y", "../d/x")]
        );
        assert_eq!(
            ops(&w.run(Ln, &["-sr", "/s/f", "e/abs"])),
            [sym("/s/e/abs", "../f")]
        );
        assert_eq!(
            ops(&w.run(Ln, &["-snf", "f", "ld"])),
            [trash("/s/ld"), sym("/s/ld", "f")]
        );
        assert_eq!(ops(&w.run(Ln, &["-L", "l1", "h"])), [hard("/s/f", "/s/h")]);
        assert_eq!(ops(&w.run(Ln, &["l1", "h"])), [hard("/s/l1", "/s/h")]);
        let o = w.run(Ln, &["-sbv", "f", "g"]);
        assert_eq!(
            ops(&o),
            [
                Op::Rename {
                    from: PathBuf::from("/s/g"),
                    to: PathBuf::from("/s/g~")
                },
                sym("/s/g", "f")
            ]
        );
        assert_eq!(transcript(&o), "'g~' ~ 'g' -> 'f'\n");
    }

    #[test]
    fn errors_as_gnu() {
        let w = world();
        let cases: &[(&[&str], &str)] = &[
            (
                &["-s", "f", "l1"],
                "ln: failed to create symbolic link 'l1': File exists\n",
            ),
            (&["d", "hd"], "ln: d: hard link not allowed for directory\n"),
            (
                &["-s", "f", "d"],
                "ln: failed to create symbolic link 'd/f': File exists\n",
            ),
            (
                &["-s", "f", "ld"],
                "ln: failed to create symbolic link 'ld/f': File exists\n",
            ),
            (
                &["-sn", "f", "ld"],
                "ln: failed to create symbolic link 'ld': File exists\n",
            ),
            (
                &["-sT", "f", "d"],
                "ln: failed to create symbolic link 'd': File exists\n",
            ),
            (
                &["f"],
                "ln: failed to create hard link './f': File exists\n",
            ),
            (
                &["-s"],
                "ln: missing file operand\nTry 'ln --help' for more information.\n",
            ),
            (&["-sf", "f", "f"], "ln: 'f' and 'f' are the same file\n"),
            (
                &["nope", "nl"],
                "ln: failed to access 'nope': No such file or directory\n",
            ),
            (
                &["-s", "f", "nod/x"],
                "ln: failed to create symbolic link 'nod/x': No such file or directory\n",
            ),
            (
                &["-f", "d/", "f"],
                "ln: d/: hard link not allowed for directory\n",
            ),
            (
                &["-r", "f", "x"],
                "ln: cannot do --relative without --symbolic\n",
            ),
            (
                &["f", "g", "h"],
                "ln: target 'h': No such file or directory\n",
            ),
        ];
        for (args, err) in cases {
            let o = w.run(Ln, args);
            assert_eq!(text(&o), (String::new(), (*err).to_string(), 1), "{args:?}");
            assert!(ops(&o).is_empty(), "{args:?}");
        }
    }
}
