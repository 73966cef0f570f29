//! `ls [OPTION]... [FILE]...`, GNU coreutils — the plain listing for now (`-a -A -1 -C -d
//! -F -p`); the long format and sorting options will grow on the same three steps: gather the
//! operands (errors first, as GNU does), then print the files, then each directory.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::args::parse_args;
use crate::{Ctx, FileKind, FsError, Outcome, quote, quote_if_needed};

/// GNU's narrowest column: one character and two spaces.
const MIN_COLUMN_WIDTH: usize = 3;
const TAB: usize = 8;

/// List information about the FILEs (the current directory by default).
#[derive(clap::Parser, Debug)]
#[command(override_usage = "ls [OPTION]... [FILE]...")]
pub struct LsArgs {
    /// do not ignore entries starting with .
    #[arg(short = 'a', long = "all", overrides_with = "almost_all")]
    all: bool,
    /// do not list implied . and ..
    #[arg(short = 'A', long = "almost-all", overrides_with = "all")]
    almost_all: bool,
    /// list entries by columns
    #[arg(short = 'C', overrides_with = "one")]
    columns: bool,
    /// list one file per line
    #[arg(short = '1', overrides_with = "columns")]
    one: bool,
    /// list directories themselves, not their contents
    #[arg(short = 'd', long = "directory")]
    directory: bool,
    /// append indicator (one of */=>@|) to entries
    #[arg(short = 'F', long = "classify")]
    classify: bool,
    /// append / indicator to directories
    #[arg(short = 'p')]
    slash: bool,
    files: Vec<OsString>,
}

/// One name to print, with what decides its indicator.
struct Entry {
    name: OsString,
    kind: FileKind,
    executable: bool,
}

struct Opts {
    classify: bool,
    slash: bool,
    tty: bool,
    columns: bool,
    width: usize,
}

fn indicator(e: &Entry, o: &Opts) -> &'static str {
    match e.kind {
        FileKind::Dir if o.classify || o.slash => "/",
        FileKind::Symlink if o.classify => "@",
        FileKind::Other if o.classify => "|",
        FileKind::File if o.classify && e.executable => "*",
        _ => "",
    }
}

/// GNU's `indent`: spaces and tabs (tab stops every 8) from column `from` to `to`.
fn indent(mut from: usize, to: usize, out: &mut Vec<u8>) {
    while from < to {
        if to / TAB > (from + 1) / TAB {
            out.push(b'\t');
            from += TAB - from % TAB;
        } else {
            out.push(b' ');
            from += 1;
        }
    }
}

/// Prints a block of entries: one per line, or in GNU's vertical columns.
fn print_block(entries: &[Entry], o: &Opts, out: &mut Vec<u8>) {
    // On a terminal names are shell-quoted; when any is, the others get a space so the
    // names line up (GNU's `align_variable_outer_quotes`).
    let mut names: Vec<Vec<u8>> = entries
        .iter()
        .map(|e| {
            let mut n = if o.tty {
                quote_if_needed(&e.name).into_bytes()
            } else {
                e.name.as_bytes().to_vec()
            };
            n.extend_from_slice(indicator(e, o).as_bytes());
            n
        })
        .collect();
    if o.tty && o.columns {
        let quoted: Vec<bool> = entries
            .iter()
            .map(|e| quote_if_needed(&e.name).as_bytes() != e.name.as_bytes())
            .collect();
        if quoted.iter().any(|&q| q) {
            for (n, q) in names.iter_mut().zip(quoted) {
                if !q {
                    n.insert(0, b' ');
                }
            }
        }
    }
    if !o.columns || names.is_empty() {
        for n in names {
            out.extend_from_slice(&n);
            out.push(b'\n');
        }
        return;
    }
    let lens: Vec<usize> = names.iter().map(Vec::len).collect();
    let n = names.len();
    let max_cols = (o.width / MIN_COLUMN_WIDTH).clamp(1, n);
    // The widest layout whose lines stay shorter than the width (GNU `calculate_columns`).
    let mut best: (usize, Vec<usize>) = (1, vec![0]);
    for cols in 1..=max_cols {
        let rows = n.div_ceil(cols);
        if rows * cols - n >= rows {
            // Fewer columns than asked would be used: GNU counts it under the smaller one.
            continue;
        }
        let mut widths = vec![0; cols];
        for (i, &len) in lens.iter().enumerate() {
            let col = i / rows;
            let w = len + if col + 1 == cols { 0 } else { 2 };
            widths[col] = widths[col].max(w);
        }
        if cols == 1 || widths.iter().sum::<usize>() < o.width {
            best = (cols, widths);
        }
    }
    let (cols, widths) = best;
    let rows = n.div_ceil(cols);
    for r in 0..rows {
        let mut pos = 0;
        for (c, width) in widths.iter().enumerate() {
            let i = c * rows + r;
            let Some(name) = names.get(i) else { break };
            out.extend_from_slice(name);
            if c + 1 < cols && i + rows < n {
                indent(pos + lens[i], pos + width, out);
            }
            pos += width;
        }
        out.push(b'\n');
    }
}

fn entry_of(ctx: &Ctx, path: &Path, name: OsString, kind: FileKind, classify: bool) -> Entry {
    let executable = classify
        && kind == FileKind::File
        && ctx.fs.stat(path, false).is_ok_and(|m| m.perm & 0o111 != 0);
    Entry {
        name,
        kind,
        executable,
    }
}

/// The sorted entries of a directory, hidden ones filtered per -a/-A.
fn list_dir(ctx: &Ctx, path: &Path, a: &LsArgs) -> Result<Vec<Entry>, FsError> {
    let mut entries: Vec<Entry> = Vec::new();
    if a.all {
        for dot in [".", ".."] {
            entries.push(Entry {
                name: dot.into(),
                kind: FileKind::Dir,
                executable: false,
            });
        }
    }
    for e in ctx.fs.read_dir(path)? {
        if e.name.as_bytes().first() == Some(&b'.') && !a.all && !a.almost_all {
            continue;
        }
        entries.push(entry_of(
            ctx,
            &path.join(&e.name),
            e.name,
            e.kind,
            a.classify,
        ));
    }
    entries.sort_by(|x, y| x.name.as_bytes().cmp(y.name.as_bytes()));
    Ok(entries)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Outcome {
    let a = match parse_args::<LsArgs>("ls", args, 2) {
        Ok(a) => a,
        Err(o) => return o,
    };
    let opts = Opts {
        classify: a.classify,
        slash: a.slash,
        tty: ctx.stdout_is_tty,
        columns: !a.one && (a.columns || ctx.stdout_is_tty),
        width: ctx
            .vars
            .get("COLUMNS")
            .and_then(|c| c.parse::<usize>().ok())
            .filter(|&w| w > 0)
            .unwrap_or(80),
    };
    let operands = if a.files.is_empty() {
        vec![OsString::from(".")]
    } else {
        a.files.clone()
    };
    let print_dir_name = operands.len() > 1;
    // Command-line links to directories are followed unless -d or -F (GNU's
    // DEREF_COMMAND_LINE_SYMLINK_TO_DIR).
    let follow = !a.directory && !a.classify;
    let mut o = Outcome::ok();
    let mut status = 0;
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for op in &operands {
        let path = ctx.resolve(op);
        let followed = if follow {
            ctx.fs.stat(&path, true).ok()
        } else {
            None
        };
        match followed {
            Some(m) if m.is_dir() => dirs.push(op.clone()),
            _ => match ctx.fs.stat(&path, false) {
                Ok(m) if m.is_dir() && !a.directory => dirs.push(op.clone()),
                Ok(m) => files.push(entry_of(ctx, &path, op.clone(), m.kind, a.classify)),
                Err(e) => {
                    o.err(format!("ls: cannot access {}: {e}\n", quote(op)));
                    status = 2;
                }
            },
        }
    }
    files.sort_by(|x, y| x.name.as_bytes().cmp(y.name.as_bytes()));
    dirs.sort_by(|x, y| x.as_bytes().cmp(y.as_bytes()));
    let mut first = true;
    if !files.is_empty() {
        let mut out = Vec::new();
        print_block(&files, &opts, &mut out);
        o.out(out);
        first = false;
    }
    for d in &dirs {
        let mut out = Vec::new();
        if print_dir_name {
            if !first {
                out.push(b'\n');
            }
            let shown: Vec<u8> = if opts.tty {
                quote_if_needed(d).into_bytes()
            } else {
                d.as_bytes().to_vec()
            };
            out.extend_from_slice(&shown);
            out.extend_from_slice(b":\n");
        }
        first = false;
        match list_dir(ctx, &ctx.resolve(d), &a) {
            Ok(entries) => {
                print_block(&entries, &opts, &mut out);
                o.out(out);
            }
            Err(e) => {
                o.out(out);
                o.err(format!(
                    "ls: cannot open directory {}: {e}\n",
                    quote(OsStr::new(d))
                ));
                status = 2;
            }
        }
    }
    o.with_status(status)
}

#[cfg(test)]
mod tests {
    use crate::FsError;
    use crate::memfs::MemFs;
    use crate::testutil::{World, text};

    /// The tree GNU was run on: `L/{a,bb,ccc,dddddddddd,'x y',.h,d/,e/}`, `ld -> d`.
    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .file("/s/dddddddddd", b"")
                .file("/s/a", b"")
                .dir("/s/d")
                .file("/s/x y", b"")
                .file("/s/bb", b"")
                .file("/s/.h", b"")
                .dir("/s/e")
                .file("/s/ccc", b"")
                .symlink("/s/ld", "d")
                .symlink("/s/dang", "nowhere"),
        )
    }

    fn ls(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(super::run, args))
    }

    #[test]
    fn operands_as_gnu() {
        // GNU 9.1, LC_ALL=C, stdout a pipe (plus `dang`, which the oracle tree lacked).
        let w = world();
        assert_eq!(
            ls(&w, &[]),
            (
                "a\nbb\nccc\nd\ndang\ndddddddddd\ne\nld\nx y\n".into(),
                String::new(),
                0
            )
        );
        assert_eq!(ls(&w, &["a", "d"]).0, "a\n\nd:\n");
        assert_eq!(ls(&w, &["d", "e"]).0, "d:\n\ne:\n");
        assert_eq!(ls(&w, &["d"]).0, "");
        assert_eq!(
            ls(&w, &["nope", "a", "d", "e"]),
            (
                "a\n\nd:\n\ne:\n".into(),
                "ls: cannot access 'nope': No such file or directory\n".into(),
                2
            )
        );
        assert_eq!(
            ls(&w, &["d", "nope"]),
            (
                "d:\n".into(),
                "ls: cannot access 'nope': No such file or directory\n".into(),
                2
            )
        );
        assert_eq!(ls(&w, &["-F", "ld", "d", "a"]).0, "a\nld@\n\nd:\n");
        assert_eq!(ls(&w, &["dang"]).0, "dang\n");
        assert_eq!(ls(&w, &["-d", "ld", "d"]).0, "d\nld\n");
        assert_eq!(ls(&w, &["-p", "ld"]).0, "");
        assert_eq!(
            ls(&w, &["-A", "d", "."]).0,
            ".:\n.h\na\nbb\nccc\nd\ndang\ndddddddddd\ne\nld\nx y\n\nd:\n"
        );
        assert_eq!(ls(&w, &["-a", "e"]).0, ".\n..\n");
        assert_eq!(ls(&w, &["-dF", "e", "d"]).0, "d/\ne/\n");
    }

    #[test]
    fn columns_as_gnu() {
        // `ls -C --width=30` and `--width=20` in the same tree (without dang): tabs every 8.
        let w = World::new(
            MemFs::rooted("/s")
                .file("/s/a", b"")
                .file("/s/bb", b"")
                .file("/s/ccc", b"")
                .dir("/s/d")
                .file("/s/dddddddddd", b"")
                .dir("/s/e")
                .symlink("/s/ld", "d")
                .file("/s/x y", b""),
        )
        .var("COLUMNS", "30", false);
        assert_eq!(
            ls(&w, &["-C"]).0,
            "a   ccc  dddddddddd  ld\nbb  d\t e\t     x y\n"
        );
        let w = World {
            vars: crate::Vars::default(),
            ..w
        }
        .var("COLUMNS", "20", false);
        assert_eq!(
            ls(&w, &["-C"]).0,
            "a    dddddddddd\nbb   e\nccc  ld\nd    x y\n"
        );
        // On a terminal (`script -qc ls`, 80 columns) `x y` is quoted and the other names
        // shift by one to line up.
        let w = World {
            vars: crate::Vars::default(),
            ..w
        }
        .tty();
        assert_eq!(
            ls(&w, &[]).0,
            " a   bb   ccc   d   dddddddddd\t e   ld  'x y'\n"
        );
        assert_eq!(ls(&w, &["-1", "a"]).0, "a\n");
    }

    #[test]
    fn errors_and_usage() {
        let w = World::new(MemFs::rooted("/s").dir("/s/u").fail("/s/u", FsError::Io));
        assert_eq!(
            ls(&w, &["u"]),
            (
                String::new(),
                "ls: cannot open directory 'u': Input/output error\n".into(),
                2
            )
        );
        assert_eq!(
            ls(&w, &["-z"]),
            (
                String::new(),
                "ls: invalid option -- 'z'\nTry 'ls --help' for more information.\n".into(),
                2
            )
        );
        assert_eq!(
            ls(&w, &["--a"]).1,
            "ls: option '--a' is ambiguous; possibilities: '--all' '--almost-all'\nTry 'ls --help' for more information.\n"
        );
    }
}
