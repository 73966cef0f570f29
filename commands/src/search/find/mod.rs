//! `find [-H] [-L] [-P] [starting-point...] [expression]`, GNU findutils 4.9 in the C locale.
//!
//! The expression is parsed by hand into a tree (GNU's grammar: `!`/`-not` binds tightest,
//! then implicit or explicit `-a`, then `-o`, then `,`), with GNU's messages for every parse
//! error. The walk is iterative, in the order `read_dir` returns (GNU does not sort), one
//! `read_dir` per directory; an entry is only `stat`ed when a test needs its metadata. Links
//! are followed only with `-L` (everywhere) or `-H` (start points). `-delete` asks for one
//! [`Op::Trash`] per path, children first (it implies `-depth`), and a directory only once
//! everything in it went too, since GNU's `rmdir` fails on a non-empty directory.
//!
//! `-exec`, `-execdir`, `-ok` and `-okdir` run their command lines through [`Ctx::run`], as
//! `execvp` would: `{} ;` one per file, `{} +` batched as GNU batches them (128 KiB a line;
//! `-execdir` one batch per directory), all waiting batches run at the end. Their commands'
//! stdin is empty. Not emulated: `-ls`, `-fprint*`, owner tests.
//! `-regex` takes findutils' default dialect (Emacs syntax, written as an extended pattern
//! for the shared GNU regex engine), or `-regextype`'s. GNU prints its
//! warnings (global option after a test, ...) only when stdin is a terminal, which a command
//! here never has, so none are printed.

mod eval;
mod expr;
mod printf;
#[allow(clippy::wildcard_imports, unused_imports)]
use eval::*;
#[allow(clippy::wildcard_imports, unused_imports)]
use expr::*;
use printf::Seg;

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::Stop;
use crate::support::fnmatch::fnmatch;
use crate::{
    Ctx, Effect, FileKind, FsError, Meta, Op, Outcome, RunRequest, RunWhat, normalize_lexical,
    quote_locale,
};

/// GNU's nesting limit: the walk's cap for `find`, an error when reached (the policy's
/// `walk_depth` only limits what is visited, as `-maxdepth` does).
const DEPTH_CAP: usize = 4096;

#[allow(clippy::unnecessary_wraps)] // the command table's handler signature
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    // Leading options: -H, -L, -P (the last wins), -D and -O (accepted, ignored).
    let mut follow = Follow::Never;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_bytes() {
            b"-H" => follow = Follow::StartPoints,
            b"-L" => follow = Follow::Always,
            b"-P" => follow = Follow::Never,
            b"-D" => i += 1,
            b"--" => {
                i += 1;
                break;
            }
            o if o.starts_with(b"-O") => {}
            _ => break,
        }
        i += 1;
    }
    let rest = args.get(i..).unwrap_or_default();
    let n_paths = rest
        .iter()
        .position(|a| {
            let b = a.as_bytes();
            (b.first() == Some(&b'-') && b.len() > 1) || b == b"(" || b == b"!"
        })
        .unwrap_or(rest.len());
    let (paths, expr_toks) = rest.split_at(n_paths);
    let mut p = Parser {
        toks: expr_toks,
        i: 0,
        ctx,
        global: Global::default(),
        follow,
        last_primary: None,
        execs: Vec::new(),
        warnings: Vec::new(),
        regex_type: RegexType::default(),
    };
    let parsed = if expr_toks.is_empty() {
        Ok(Expr::True)
    } else {
        p.or().and_then(|e| match p.peek() {
            None => Ok(e),
            Some(b")") => Err("you have too many ')'".into()),
            Some(t) => Err(format!(
                "paths must precede expression: `{}'",
                String::from_utf8_lossy(t)
            )),
        })
    };
    let mut warned = Outcome::ok();
    for w in &p.warnings {
        warned.err(format!("{}: {w}\n", ctx.name));
    }
    let expr = match parsed {
        Ok(e) => e,
        Err(msg) => {
            let mut o = warned.with_status(1);
            o.err(format!("{}: {msg}\n", ctx.name));
            return Ok(o);
        }
    };
    if expr.has(|x| matches!(x, Expr::Delete)) && expr.has(|x| matches!(x, Expr::Prune)) {
        let mut o = Outcome::status(1);
        o.err("find: The -delete action automatically turns on -depth, but -prune does nothing when -depth is in effect.  If you want to carry on anyway, just explicitly use the -depth option.\n");
        return Ok(o);
    }
    let expr = if expr.has_action() {
        expr
    } else {
        Expr::And(Box::new(expr), Box::new(Expr::Print))
    };
    let mut f = Find {
        ctx,
        expr,
        global: p.global,
        follow: p.follow,
        out: Vec::new(),
        outcome: warned,
        status: 0,
        quit: false,
        prune: false,
        children_gone: false,
        trashed: false,
        execs: std::mem::take(&mut p.execs),
        stopped: false,
    };
    let default = [OsString::from(".")];
    let paths = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    for op in paths {
        if f.quit {
            break;
        }
        f.start(op);
    }
    f.run_pending();
    f.flush();
    let status = f.status;
    Ok(f.outcome.with_status(status))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::path::PathBuf;

    use crate::Op;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .file("/s/a/b/f", b"x\n")
                .file("/s/a/g", b"y\n")
                .dir("/s/c")
                .file("/s/e", b"")
                .symlink("/s/l", "a"),
        )
    }

    fn find(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Find, args))
    }

    #[test]
    fn walks_in_directory_order() {
        let w = world();
        assert_eq!(
            find(&w, &[]).0,
            ".\n./a\n./a/b\n./a/b/f\n./a/g\n./c\n./e\n./l\n"
        );
        assert_eq!(find(&w, &["a/", "-type", "f"]).0, "a/b/f\na/g\n");
        assert_eq!(find(&w, &["-L", "l", "-name", "f"]).0, "l/b/f\n");
        assert_eq!(find(&w, &["l"]).0, "l\n");
        assert_eq!(find(&w, &[".", "-empty"]).0, "./c\n./e\n");
        assert_eq!(
            find(&w, &[".", "-path", "*b*", "-prune", "-o", "-print"]).0,
            ".\n./a\n./a/g\n./c\n./e\n./l\n"
        );
        assert_eq!(find(&w, &["a", "-depth"]).0, "a/b/f\na/b\na/g\na\n");
    }

    #[test]
    fn delete_is_trash_children_first() {
        let w = world();
        let o = w.run(crate::CommandName::Find, &["a", "-delete"]);
        let t = |p: &str| Op::Trash {
            path: PathBuf::from(p),
        };
        assert_eq!(
            ops(&o),
            [t("/s/a/b/f"), t("/s/a/b"), t("/s/a/g"), t("/s/a")]
        );
        // `find a -name g -o -name a -delete` (findutils 4.9): `a` keeps `b`.
        let o = w.run(
            crate::CommandName::Find,
            &["a", "-name", "g", "-o", "-name", "a", "-delete"],
        );
        assert_eq!(text(&o).1, "find: cannot delete 'a': Directory not empty\n");
        assert_eq!(o.status, 1);
        assert!(ops(&o).is_empty());
    }

    #[test]
    fn gnu_errors() {
        // All from GNU findutils 4.9.0, LC_ALL=C.
        let w = world();
        assert_eq!(find(&w, &["-foo"]).1, "find: unknown predicate `-foo'\n");
        assert_eq!(
            find(&w, &[".", "-name"]).1,
            "find: missing argument to `-name'\n"
        );
        assert_eq!(
            find(&w, &[".", "-type", "z"]).1,
            "find: Unknown argument to -type: z\n"
        );
        assert_eq!(
            find(&w, &[".", "-name", "x", "e"]).1,
            "find: paths must precede expression: `e'\nfind: possible unquoted pattern after predicate `-name'?\n"
        );
        assert_eq!(
            find(&w, &["nope", "e"]),
            (
                "e\n".into(),
                "find: 'nope': No such file or directory\n".into(),
                1
            )
        );
        assert_eq!(
            find(&w, &[".", "-o"]).1,
            "find: invalid expression; you have used a binary operator '-o' with nothing before it.\n"
        );
        assert_eq!(
            find(&w, &[".", "-size", "3x"]).1,
            "find: invalid -size type `x'\n"
        );
    }

    #[test]
    fn exec_parse_errors() {
        // All from GNU findutils 4.9.0, LC_ALL=C.
        let w = world();
        let err = |args: &[&str]| find(&w, args).1;
        assert_eq!(err(&["-exec"]), "find: missing argument to `-exec'\n");
        assert_eq!(
            err(&["-exec", "echo", "{}", "y", "+"]),
            "find: missing argument to `-exec'\n"
        );
        assert_eq!(
            err(&["-exec", ";"]),
            "find: invalid argument `;' to `-exec'\n"
        );
        assert_eq!(
            err(&["-ok", "echo", "{}", "+"]),
            "find: missing argument to `-ok'\n"
        );
        assert_eq!(
            err(&["-exec", "echo", "x{}", "+"]),
            "find: In '-exec ... {} +' the '{}' must appear by itself, but you specified 'x{}'\n"
        );
        assert_eq!(
            err(&["-execdir", "echo", "{}", "{}", "+"]),
            "find: Only one instance of {} is supported with -execdir ... +\n"
        );
        // Without a runner nothing runs; the action still suppresses `-print`.
        assert_eq!(find(&w, &["e", "-exec", "echo", "{}", ";"]).0, "");
    }
}
