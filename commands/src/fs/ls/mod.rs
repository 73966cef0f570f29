//! `ls [OPTION]... [FILE]...`, GNU coreutils 9.1: the plain, column (`-C`, `-w`) and long
//! (`-l`, `-n`) formats, sorting (`-t -S -U -r`), recursion (`-R`), links followed (`-L`),
//! and the `-i -s -h -F -p` decorations. Three steps as in
//! GNU: gather the operands (their errors first), print the files, then each directory (with
//! `-R`, its subdirectories depth-first, right after it), on the shared walk's listing mode
//! (each directory listed whole, then its subdirectories in the listing's order).
//!
//! Owners are the sandbox's identity, never the host's. Times are shown in UTC unless `TZ` is
//! a fixed POSIX offset (`UTC-2`, `EST5`); zone names need a zoneinfo file the handler cannot
//! read, and count as UTC. Colours are never printed (`--color` of any kind is accepted and
//! means `never`): the reader is an agent.
//!
//! A link's target text (`name -> target` in `-l`) is shown only when it names nothing above
//! the mount point; see [`crate::support::paths::shown_link_target`].

mod output;
#[allow(clippy::wildcard_imports, unused_imports)]
use output::*;

use std::cmp::Ordering;
use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::SystemTime;

use crate::Stop;
use crate::support::argmatch::{COLOR_WHEN, argmatch};
use crate::support::args::parse_args;
use crate::support::datetime::{civil_from_days, to_epoch, tz_offset};
use crate::support::paths::{join_display, shown_link_target};
use crate::support::walk::{Follow, Node, Refused, Visit, Walk};
use crate::{Ctx, FileKind, FsError, Meta, Outcome, quote, quote_if_needed};

/// GNU's narrowest column: one character and two spaces.
const MIN_COLUMN_WIDTH: usize = 3;
const TAB: usize = 8;
/// Half a Gregorian year in seconds: older (or future) files show their year, not the time.
const SIX_MONTHS: u64 = 31_556_952 / 2;
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

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
    #[arg(short = 'C', overrides_with_all = ["one", "long", "numeric"])]
    columns: bool,
    /// list one file per line (no effect with -l)
    #[arg(short = '1', overrides_with = "columns")]
    one: bool,
    /// use a long listing format
    #[arg(short = 'l', overrides_with = "columns")]
    long: bool,
    /// like -l, but list numeric user and group IDs
    #[arg(short = 'n', long = "numeric-uid-gid", overrides_with = "columns")]
    numeric: bool,
    /// when showing file information for a symbolic link, show information for the file
    /// the link references rather than for the link itself
    #[arg(short = 'L', long = "dereference")]
    dereference: bool,
    /// set output width to COLS.  0 means no limit
    #[arg(short = 'w', long = "width", value_name = "COLS")]
    width: Option<OsString>,
    /// list directories themselves, not their contents
    #[arg(short = 'd', long = "directory")]
    directory: bool,
    /// append indicator (one of */=>@|) to entries
    #[arg(short = 'F', long = "classify", overrides_with = "slash")]
    classify: bool,
    /// append / indicator to directories
    #[arg(short = 'p', overrides_with = "classify")]
    slash: bool,
    /// with -l and -s, print sizes like 1K 234M 2G etc.
    #[arg(short = 'h', long = "human-readable")]
    human: bool,
    /// print the index number of each file
    #[arg(short = 'i', long = "inode")]
    inode: bool,
    /// print the allocated size of each file, in blocks
    #[arg(short = 's', long = "size")]
    size: bool,
    /// reverse order while sorting
    #[arg(short = 'r', long = "reverse")]
    reverse: bool,
    /// list subdirectories recursively
    #[arg(short = 'R', long = "recursive")]
    recursive: bool,
    /// sort by file size, largest first
    #[arg(short = 'S', overrides_with_all = ["by_time", "unsorted"])]
    by_size: bool,
    /// sort by time, newest first
    #[arg(short = 't', overrides_with_all = ["by_size", "unsorted"])]
    by_time: bool,
    /// do not sort; list entries in directory order
    #[arg(short = 'U', overrides_with_all = ["by_size", "by_time"])]
    unsorted: bool,
    /// colorize the output; WHEN can be 'always', 'auto', or 'never' (never used here)
    #[arg(long = "color", value_name = "WHEN", num_args = 0..=1, default_missing_value = "always")]
    color: Option<String>,
    files: Vec<OsString>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Long,
    OnePerLine,
    Columns,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sort {
    Name,
    Time,
    Size,
    None,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Indicator {
    None,
    Slash,
    Classify,
}

struct Opts {
    format: Format,
    /// `-n`: numeric user and group IDs.
    numeric: bool,
    /// `-L`: every link shown as what it references.
    deref: bool,
    /// `-L`: whether an entry must be `stat`ed (GNU's `format_needs_stat` or
    /// `format_needs_type`): then a dangling link is an error.
    needs_stat: bool,
    sort: Sort,
    reverse: bool,
    indicator: Indicator,
    human: bool,
    inode: bool,
    size: bool,
    tty: bool,
    width: usize,
    /// The UTC offset of `TZ`, seconds east.
    offset: i64,
    now: SystemTime,
}

/// One name to print, with what its columns need.
struct Item {
    /// The name as shown: the operand, or the entry's name.
    name: OsString,
    kind: FileKind,
    /// `lstat` (or `stat` for a followed operand); `None` when it failed.
    meta: Option<Meta>,
    /// For a link in the long format: the text to show after ` -> ` (`None`: no arrow).
    link_text: Option<OsString>,
    /// For a link: what it resolves to, when it does (the target's indicator).
    target: Option<Meta>,
}

/// GNU's comparison for the chosen sort; `-r` reverses all of it, ties included.
fn compare(a: &Item, b: &Item, o: &Opts) -> Ordering {
    let by_name = || a.name.as_bytes().cmp(b.name.as_bytes());
    let ord = match o.sort {
        Sort::None => Ordering::Equal,
        Sort::Name => by_name(),
        Sort::Time => {
            let t = |i: &Item| i.meta.as_ref().map(|m| m.mtime);
            t(b).cmp(&t(a)).then_with(by_name)
        }
        Sort::Size => {
            let s = |i: &Item| i.meta.as_ref().map_or(0, |m| m.len);
            s(b).cmp(&s(a)).then_with(by_name)
        }
    };
    if o.reverse { ord.reverse() } else { ord }
}

fn sort_items(items: &mut [Item], o: &Opts) {
    if o.sort != Sort::None {
        items.sort_by(|a, b| compare(a, b, o));
    }
}

/// An item from its path: `lstat`, and for a link in the long format its text and target.
fn item_at(
    ctx: &Ctx,
    path: &Path,
    name: OsString,
    meta: Option<Meta>,
    kind: FileKind,
    o: &Opts,
) -> Item {
    let (link_text, target) = if kind == FileKind::Symlink {
        let target = ctx.fs.stat(path, true).ok();
        let text = if o.format == Format::Long {
            shown_link_target(ctx, path)
        } else {
            None
        };
        (text, target)
    } else {
        (None, None)
    };
    Item {
        name,
        kind,
        meta,
        link_text,
        target,
    }
}

/// With `-a`, a directory's `.` and `..`, listed before its entries.
fn dot_items(ctx: &Ctx, path: &Path) -> Vec<Item> {
    let this = ctx.fs.stat(path, true).ok();
    // At the mount point `..` does not exist in the view: it shows as `.`, as at `/`.
    let up = ctx
        .fs
        .stat(&path.join(".."), true)
        .ok()
        .or_else(|| this.clone());
    [(".", this), ("..", up)]
        .into_iter()
        .map(|(dot, meta)| Item {
            name: dot.into(),
            kind: FileKind::Dir,
            meta,
            link_text: None,
            target: None,
        })
        .collect()
}

/// An entry met in a directory: `None` when it is hidden (a dot name without -a/-A); with
/// the error of a link `-L` could not follow when the format needed what it references.
fn entry_item(ctx: &Ctx, node: &Node, a: &LsArgs, o: &Opts) -> Option<(Item, Option<FsError>)> {
    let name = node.path.file_name()?.to_os_string();
    if name.as_bytes().first() == Some(&b'.') && !a.all && !a.almost_all {
        return None;
    }
    let meta = ctx.fs.stat(&node.path, false).ok();
    let kind = meta.as_ref().map_or(node.kind, |m| m.kind);
    if o.deref && kind == FileKind::Symlink {
        return Some(match ctx.fs.stat(&node.path, true) {
            Ok(m) => (bare_item(name, Some(m)), None),
            // Listed as a link GNU could not stat: `l?????????`, `name@`.
            Err(e) => (
                Item {
                    kind: FileKind::Symlink,
                    ..bare_item(name, None)
                },
                o.needs_stat.then_some(e),
            ),
        });
    }
    Some((item_at(ctx, &node.path, name, meta, kind, o), None))
}

/// An item shown as its `stat` says (`-L`), without a link's text.
fn bare_item(name: OsString, meta: Option<Meta>) -> Item {
    Item {
        name,
        kind: meta.as_ref().map_or(FileKind::File, |m| m.kind),
        meta,
        link_text: None,
        target: None,
    }
}

/// GNU's name of an entry in messages: `dir/name`, or the bare name in `.`.
fn full_name(node: &Node) -> &OsStr {
    let d = node.display.as_bytes();
    match d.strip_prefix(b"./") {
        Some(rest) if !rest.contains(&b'/') => OsStr::from_bytes(rest),
        _ => &node.display,
    }
}

/// `-w COLS`: GNU's `decode_line_length` (C's `strtoumax` in base 0: `0x1f`, `017`); too
/// large is 0, which is no limit. `None`: not a number.
fn line_width(spec: &OsStr) -> Option<usize> {
    let s = std::str::from_utf8(spec.as_bytes()).ok()?;
    let s = s.trim_start_matches([' ', '\t', '\n', '\u{b}', '\u{c}', '\r']);
    let s = s.strip_prefix('+').unwrap_or(s);
    let (digits, radix) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (h, 16)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    Some(
        u64::from_str_radix(digits, radix)
            .ok()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| i64::try_from(n).is_ok())
            .unwrap_or(0),
    )
}

/// A directory's `name:` line: before every directory but the first, a blank line.
fn header(shown: &OsStr, first: &mut bool, o: &Opts) -> Vec<u8> {
    let mut out = Vec::new();
    if !*first {
        out.push(b'\n');
    }
    *first = false;
    out.extend_from_slice(&shown_name(shown, o));
    out.extend_from_slice(b":\n");
    out
}

/// A directory that could not be read: its `name:` line when directories are named, then
/// GNU's message.
fn cannot_open(ctx: &Ctx, dir: &Node, e: &FsError, named: Option<Vec<u8>>, o: &mut Outcome) {
    o.out(named.unwrap_or_default());
    o.err(format!(
        "{}: cannot open directory {}: {e}\n",
        ctx.name,
        quote(&dir.display)
    ));
}

/// `lstat` of an operand as the kernel does it: a trailing slash resolves a final link and
/// demands a directory (`ls -l file/` is `Not a directory`), whatever the view does with it.
fn lstat_operand(ctx: &Ctx, path: &Path) -> Result<Meta, FsError> {
    let b = path.as_os_str().as_bytes();
    if b.len() > 1 && b.ends_with(b"/") {
        let m = ctx.fs.stat(path, true)?;
        return if m.is_dir() {
            Ok(m)
        } else {
            Err(FsError::NotADirectory)
        };
    }
    ctx.fs.stat(path, false)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<LsArgs>(args)?;
    if let Some(when) = &a.color {
        // The value is not used: output is never coloured.
        argmatch("--color", when, COLOR_WHEN)?;
    }
    let format = if a.long || a.numeric {
        Format::Long
    } else if a.one {
        Format::OnePerLine
    } else if a.columns || ctx.stdout_is_tty {
        Format::Columns
    } else {
        Format::OnePerLine
    };
    let width = match &a.width {
        None => None,
        Some(w) => Some(
            line_width(w)
                .ok_or_else(|| Stop::FailWith(format!("invalid line width: {}", quote(w)), 2))?,
        ),
    };
    let sort = if a.unsorted {
        Sort::None
    } else if a.by_time {
        Sort::Time
    } else if a.by_size {
        Sort::Size
    } else {
        Sort::Name
    };
    let opts = Opts {
        format,
        numeric: a.numeric,
        deref: a.dereference,
        needs_stat: format == Format::Long
            || a.size
            || a.inode
            || a.recursive
            || a.classify
            || a.slash
            || matches!(sort, Sort::Time | Sort::Size),
        sort,
        reverse: a.reverse,
        indicator: if a.classify {
            Indicator::Classify
        } else if a.slash {
            Indicator::Slash
        } else {
            Indicator::None
        },
        human: a.human,
        inode: a.inode,
        size: a.size,
        tty: ctx.stdout_is_tty,
        // `-w COLS`, else `$COLUMNS` when it is a width; 0 is no limit.
        width: match width
            .or_else(|| line_width(OsStr::new(ctx.vars.get("COLUMNS")?)))
            .unwrap_or(80)
        {
            0 => usize::MAX,
            w => w,
        },
        offset: tz_offset(ctx),
        now: ctx.now,
    };
    let operands = if a.files.is_empty() {
        vec![OsString::from(".")]
    } else {
        a.files.clone()
    };
    // Command-line links to directories are followed unless -d, -F or -l (GNU's
    // DEREF_COMMAND_LINE_SYMLINK_TO_DIR); with -L every link is.
    let follow = a.dereference || (!a.directory && !a.classify && format != Format::Long);
    let mut o = Outcome::ok();
    let mut status = 0;
    let mut files = Vec::new();
    let mut dirs: Vec<Item> = Vec::new();
    for op in &operands {
        let path = ctx.resolve(op);
        let followed = if follow {
            ctx.fs.stat(&path, true).ok()
        } else {
            None
        };
        match followed {
            Some(m) if m.is_dir() && !a.directory => dirs.push(Item {
                name: op.clone(),
                kind: FileKind::Dir,
                meta: Some(m),
                link_text: None,
                target: None,
            }),
            Some(m) if a.dereference => files.push(bare_item(op.clone(), Some(m))),
            _ if a.dereference => {
                let e = ctx.fs.stat(&path, true).err().unwrap_or(FsError::NotFound);
                o.err(format!("{}: cannot access {}: {e}\n", ctx.name, quote(op)));
                status = 2;
            }
            _ => match lstat_operand(ctx, &path) {
                Ok(m) if m.is_dir() && !a.directory => dirs.push(Item {
                    name: op.clone(),
                    kind: FileKind::Dir,
                    meta: Some(m),
                    link_text: None,
                    target: None,
                }),
                Ok(m) => {
                    let kind = m.kind;
                    files.push(item_at(ctx, &path, op.clone(), Some(m), kind, &opts));
                }
                Err(e) => {
                    o.err(format!("{}: cannot access {}: {e}\n", ctx.name, quote(op)));
                    status = 2;
                }
            },
        }
    }
    sort_items(&mut files, &opts);
    sort_items(&mut dirs, &opts);
    // GNU prints `dir:` headers unless exactly one directory and nothing else is listed.
    let print_dir_name = a.recursive || !files.is_empty() || dirs.len() > 1 || operands.len() > 1;
    let mut first = true;
    if !files.is_empty() {
        let mut out = Vec::new();
        print_block(&files, &dirs, &opts, ctx, &mut out);
        o.out(out);
        first = false;
    }
    // Each directory is listed whole (its entries gathered, then sorted and printed at
    // `Listed`); with -R its subdirectories are queued in that sorted order. The policy's
    // `walk_depth` counts the levels listed below an operand.
    let follow_walk = if a.dereference {
        Follow::Always
    } else {
        Follow::Never
    };
    let mut walk: Walk<Vec<Item>> =
        Walk::carrying(ctx.fs, follow_walk, ctx.walk_depth.saturating_add(1)).listing();
    // The errors met while a directory is read (`-L`), until its `name:` line is out.
    let mut pending = String::new();
    for d in dirs {
        let root = Walk::root(ctx.resolve(&d.name), &d.name);
        // An operand that cannot be read is a serious problem (2), a directory found while
        // recursing a minor one (1), as in GNU; one too deep is not listed, silently.
        if let Err((node, Refused::Unreadable(e), _)) = walk.enter_with(root, Vec::new()) {
            let named = print_dir_name.then(|| header(&node.display, &mut first, &opts));
            cannot_open(ctx, &node, &e, named, &mut o);
            first = false;
            status = 2;
            continue;
        }
        while let Some(visit) = walk.next() {
            match visit {
                Visit::Entry(node) | Visit::Broken(node, _) => {
                    let Some((item, failed)) = entry_item(ctx, &node, &a, &opts) else {
                        continue;
                    };
                    if let Some(e) = failed {
                        // Printed after the directory's `name:` line, as GNU reads it then.
                        let _ = writeln!(
                            pending,
                            "{}: cannot access {}: {e}",
                            ctx.name,
                            quote(full_name(&node))
                        );
                        status = status.max(1);
                    }
                    if let Some(items) = walk.data_mut() {
                        items.push(item);
                    }
                }
                Visit::Listed(dir) => {
                    let entries = walk.data_mut().map(std::mem::take).unwrap_or_default();
                    let mut items = if a.all {
                        dot_items(ctx, &dir.path)
                    } else {
                        Vec::new()
                    };
                    items.extend(entries);
                    sort_items(&mut items, &opts);
                    let mut out = Vec::new();
                    if print_dir_name {
                        out = header(&dir.display, &mut first, &opts);
                    }
                    first = false;
                    if !pending.is_empty() {
                        o.out(std::mem::take(&mut out));
                        o.err(std::mem::take(&mut pending));
                    }
                    if format == Format::Long || a.size {
                        let total: u64 = items
                            .iter()
                            .filter_map(|i| i.meta.as_ref().map(|m| m.blocks))
                            .sum();
                        out.extend_from_slice(
                            format!("total {}\n", blocks(total, &opts)).as_bytes(),
                        );
                    }
                    print_block(&items, &[], &opts, ctx, &mut out);
                    o.out(out);
                    if !a.recursive {
                        continue;
                    }
                    for i in items {
                        if i.kind == FileKind::Dir && i.name != "." && i.name != ".." {
                            let sub = Node {
                                path: dir.path.join(&i.name),
                                display: join_display(&dir.display, &i.name),
                                kind: FileKind::Dir,
                                depth: dir.depth + 1,
                            };
                            let _ = walk.descend_later(sub, Vec::new());
                        }
                    }
                }
                Visit::Refused(node, Refused::Unreadable(e), _) => {
                    let named = print_dir_name.then(|| header(&node.display, &mut first, &opts));
                    cannot_open(ctx, &node, &e, named, &mut o);
                    first = false;
                    status = status.max(1);
                }
                // -L: a directory that is one of its own ancestors.
                Visit::Refused(node, Refused::Loop, _) => {
                    o.err(format!(
                        "{}: {}: not listing already-listed directory\n",
                        ctx.name,
                        crate::quote_if_needed(&node.display)
                    ));
                    status = 2;
                }
                // Too deep, and the end of a directory.
                Visit::Refused(..) | Visit::Leave(..) => {}
            }
        }
    }
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use crate::FsError;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

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
        text(&w.run(crate::CommandName::Ls, args))
    }

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
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
        assert_eq!(ls(&w, &["-Fp", "ld", "a"]).0, "a\n\nld:\n");
        assert_eq!(ls(&w, &["-pF", "ld", "a"]).0, "a\nld@\n");
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
        // GNU 9.1: -1 has no effect after (or before) -l; -C after it wins.
        assert!(
            ls(&w, &["-l1", "a"])
                .0
                .starts_with("-rw-r--r-- 1 user user 0 ")
        );
        assert!(
            ls(&w, &["-1l", "a"])
                .0
                .starts_with("-rw-r--r-- 1 user user 0 ")
        );
        assert_eq!(ls(&w, &["-lC1", "a"]).0, "a\n");
        // -w beats $COLUMNS; 0 (or too large) is no limit, padded with spaces only.
        assert_eq!(
            ls(&w, &["-C", "-w", "0"]).0,
            " a   bb   ccc   d   dddddddddd   e   ld  'x y'\n"
        );
        assert_eq!(
            ls(&w, &["-C", "--width=99999999999999999999"]).0,
            ls(&w, &["-C", "-w0"]).0
        );
    }

    /// The tree of the long-format oracle run (GNU 9.1, `LC_ALL=C`, TZ unset = UTC):
    /// `f` (6 bytes, 4755), `big` (5000 bytes), `d/sub/`, `e/` (1777), `lf -> f`,
    /// `ld -> d`, `dang -> nowhere`; times set with `touch -d` (links keep theirs).
    fn long_world() -> World {
        let t = at(1_704_164_645); // 2024-01-02 03:04:05, the tests' `now`
        let old = at(1_703_498_400); // 2023-12-25 10:00:00
        let year_ago = at(1_672_628_645); // 2023-01-02 03:04:05
        World::new(
            MemFs::rooted("/s")
                .file("/s/big", &[0; 5000])
                .dir("/s/d/sub")
                .dir("/s/e")
                .file("/s/f", b"hello\n")
                .symlink("/s/lf", "f")
                .symlink("/s/ld", "d")
                .symlink("/s/dang", "nowhere")
                .perm("/s/f", 0o4755)
                .perm("/s/e", 0o1777)
                .times("/s/big", old, old)
                .times("/s/d", t, t)
                .times("/s/d/sub", t, t)
                .times("/s/e", t, t)
                .times("/s/f", t, t)
                .times("/s/lf", year_ago, year_ago)
                .times("/s/ld", year_ago, year_ago)
                .times("/s/dang", year_ago, year_ago),
        )
    }

    #[test]
    fn long_format_as_gnu() {
        // GNU printed `root root` where the sandbox shows `user user`; the rest is GNU's.
        // MemFs sizes blocks as 4K pages (so `big` has 16 blocks, as on ext4 it had 16).
        let w = long_world();
        assert_eq!(
            ls(&w, &["-l"]).0,
            "total 20\n\
             -rw-r--r-- 1 user user 5000 Dec 25 10:00 big\n\
             drwxr-xr-x 3 user user 4096 Jan  2 03:04 d\n\
             lrwxrwxrwx 1 user user    7 Jan  2  2023 dang -> nowhere\n\
             drwxrwxrwt 2 user user 4096 Jan  2 03:04 e\n\
             -rwsr-xr-x 1 user user    6 Jan  2 03:04 f\n\
             lrwxrwxrwx 1 user user    1 Jan  2  2023 ld -> d\n\
             lrwxrwxrwx 1 user user    1 Jan  2  2023 lf -> f\n"
        );
        assert_eq!(
            ls(&w, &["-lhF"]).0,
            "total 20K\n\
             -rw-r--r-- 1 user user 4.9K Dec 25 10:00 big\n\
             drwxr-xr-x 3 user user 4.0K Jan  2 03:04 d/\n\
             lrwxrwxrwx 1 user user    7 Jan  2  2023 dang -> nowhere\n\
             drwxrwxrwt 2 user user 4.0K Jan  2 03:04 e/\n\
             -rwsr-xr-x 1 user user    6 Jan  2 03:04 f*\n\
             lrwxrwxrwx 1 user user    1 Jan  2  2023 ld -> d/\n\
             lrwxrwxrwx 1 user user    1 Jan  2  2023 lf -> f*\n"
        );
        assert_eq!(
            ls(&w, &["-s"]).0,
            "total 20\n8 big\n4 d\n0 dang\n4 e\n4 f\n0 ld\n0 lf\n"
        );
        assert_eq!(
            ls(&w, &["-sh"]).0,
            "total 20K\n8.0K big\n4.0K d\n   0 dang\n4.0K e\n4.0K f\n   0 ld\n   0 lf\n"
        );
        assert_eq!(ls(&w, &["-s1", "d"]).0, "total 4\n4 sub\n");
        // The directory operand widens the files' columns before it is set apart.
        assert_eq!(
            ls(&w, &["-l", "f", "d"]).0,
            "-rwsr-xr-x 1 user user    6 Jan  2 03:04 f\n\nd:\ntotal 4\ndrwxr-xr-x 2 user user 4096 Jan  2 03:04 sub\n"
        );
        assert_eq!(ls(&w, &["-s", "lf", "d"]).0, "0 lf\n\nd:\ntotal 4\n4 sub\n");
        assert_eq!(
            ls(&w, &["-lR", "d"]).0,
            "d:\ntotal 4\ndrwxr-xr-x 2 user user 4096 Jan  2 03:04 sub\n\nd/sub:\ntotal 0\n"
        );
        assert_eq!(
            ls(&w, &["-la", "e"]).0,
            "total 8\n\
             drwxrwxrwt 2 user user 4096 Jan  2 03:04 .\n\
             drwxr-xr-x 4 user user 4096 Nov 14 22:13 ..\n"
        );
        // The operand link is not followed with -l.
        assert_eq!(
            ls(&w, &["-l", "ld"]).0,
            "lrwxrwxrwx 1 user user 1 Jan  2  2023 ld -> d\n"
        );
        // -i: the inode column, right-aligned (MemFs numbers them in creation order).
        let (out, _, _) = ls(&w, &["-i1", "f", "big"]);
        assert_eq!(out, "4 big\n8 f\n");
        // TZ as a fixed offset.
        let w = long_world().var("TZ", "UTC-2", true);
        assert!(ls(&w, &["-l", "f"]).0.contains(" Jan  2 05:04 f\n"));
        let w = long_world().var("TZ", "EST5", true);
        assert!(ls(&w, &["-l", "f"]).0.contains(" Jan  1 22:04 f\n"));
    }

    #[test]
    fn sorting_as_gnu() {
        // GNU 9.1 on the long-format tree (with `nowhere` absent): -t newest first, ties by
        // name; -S largest first, ties by name; -r reverses ties too.
        let w = long_world();
        assert_eq!(ls(&w, &["-t"]).0, "d\ne\nf\nbig\ndang\nld\nlf\n");
        assert_eq!(ls(&w, &["-tr"]).0, "lf\nld\ndang\nbig\nf\ne\nd\n");
        assert_eq!(ls(&w, &["-S"]).0, "big\nd\ne\ndang\nf\nld\nlf\n");
        assert_eq!(ls(&w, &["-Sr"]).0, "lf\nld\nf\ndang\ne\nd\nbig\n");
        assert_eq!(ls(&w, &["-r"]).0, "lf\nld\nf\ne\ndang\nd\nbig\n");
        assert_eq!(ls(&w, &["-St"]).0, ls(&w, &["-t"]).0);
        assert_eq!(ls(&w, &["-tS", "f", "big"]).0, "big\nf\n");
    }

    #[test]
    fn recursion_as_gnu() {
        // `ls -R` in the long-format tree: depth first, `./` headers, links not followed.
        let w = long_world();
        assert_eq!(
            ls(&w, &["-R"]).0,
            ".:\nbig\nd\ndang\ne\nf\nld\nlf\n\n./d:\nsub\n\n./d/sub:\n\n./e:\n"
        );
        assert_eq!(ls(&w, &["-Rd", "d"]).0, "d\n");
        let w = World::new(
            MemFs::rooted("/s")
                .dir("/s/a/u")
                .dir("/s/b")
                .fail("/s/a/u", FsError::Io),
        );
        assert_eq!(
            ls(&w, &["-R"]),
            (
                ".:\na\nb\n\n./a:\nu\n\n./a/u:\n\n./b:\n".into(),
                "ls: cannot open directory './a/u': Input/output error\n".into(),
                1
            )
        );
    }

    #[test]
    fn link_targets_never_show_the_host() {
        let w = World::new(
            MemFs::rooted("/home/user")
                .file("/home/user/f", b"")
                .symlink("/home/user/in", "f")
                .symlink("/home/user/dang", "sub/nowhere")
                .symlink("/home/user/up", "../user/f")
                .symlink("/home/user/out", "../../etc/passwd")
                .symlink("/home/user/abs_out", "/etc/passwd")
                .symlink("/home/user/abs_in", "/home/user/f")
                .times("/home/user/abs_in", at(0), at(0))
                .times("/home/user/abs_out", at(0), at(0))
                .times("/home/user/dang", at(0), at(0))
                .times("/home/user/in", at(0), at(0))
                .times("/home/user/out", at(0), at(0))
                .times("/home/user/up", at(0), at(0)),
        )
        .cwd("/home/user")
        .mount("/home/user");
        let out = ls(&w, &["-l", "in", "dang", "up", "out", "abs_out", "abs_in"]).0;
        assert_eq!(
            out,
            "lrwxrwxrwx 1 user user 12 Jan  1  1970 abs_in -> /home/user/f\n\
             lrwxrwxrwx 1 user user 11 Jan  1  1970 abs_out\n\
             lrwxrwxrwx 1 user user 11 Jan  1  1970 dang -> sub/nowhere\n\
             lrwxrwxrwx 1 user user  1 Jan  1  1970 in -> f\n\
             lrwxrwxrwx 1 user user 16 Jan  1  1970 out\n\
             lrwxrwxrwx 1 user user  9 Jan  1  1970 up -> ../user/f\n"
        );
    }

    #[test]
    fn numeric_ids_and_dereference_as_gnu() {
        // -n: -l with the identity's numbers; -L: links shown as what they reference (GNU
        // 9.1 on the long-format tree; `dang` cannot be, and is an error only when the
        // format needs it).
        let w = long_world();
        assert_eq!(
            ls(&w, &["-n", "f"]).0,
            "-rwsr-xr-x 1 1000 1000 6 Jan  2 03:04 f\n"
        );
        assert_eq!(ls(&w, &["-nC", "f"]).0, "f\n");
        assert_eq!(ls(&w, &["-Cn", "f"]).0, ls(&w, &["-n", "f"]).0);
        assert_eq!(ls(&w, &["-L"]).0, "big\nd\ndang\ne\nf\nld\nlf\n");
        assert_eq!(
            ls(&w, &["-LF"]),
            (
                "big\nd/\ndang@\ne/\nf*\nld/\nlf*\n".into(),
                "ls: cannot access 'dang': No such file or directory\n".into(),
                1
            )
        );
        assert_eq!(
            ls(&w, &["-lL", "lf", "dang"]),
            (
                "-rwsr-xr-x 1 user user 6 Jan  2 03:04 lf\n".into(),
                "ls: cannot access 'dang': No such file or directory\n".into(),
                2
            )
        );
        assert_eq!(
            ls(&w, &["-lL", "ld"]).0,
            "total 4\ndrwxr-xr-x 2 user user 4096 Jan  2 03:04 sub\n"
        );
        assert_eq!(
            ls(&w, &["-lLd", "ld"]).0,
            "drwxr-xr-x 3 user user 4096 Jan  2 03:04 ld\n"
        );
        // A link back up: listed once, then refused as a loop (status 2).
        let w = World::new(MemFs::rooted("/s").dir("/s/d").symlink("/s/d/up", ".."));
        assert_eq!(
            ls(&w, &["-LR"]),
            (
                ".:\nd\n\n./d:\nup\n".into(),
                "ls: ./d/up: not listing already-listed directory\n".into(),
                2
            )
        );
        assert_eq!(
            ls(&w, &["-w", "x"]),
            (String::new(), "ls: invalid line width: 'x'\n".into(), 2)
        );
    }

    #[test]
    fn special_files_as_gnu() {
        // GNU 9.1 as root on `mkfifo p; mknod c c 1 3; mknod b b 7 0; mknod c2 c 10 237`
        // and a bound socket `s` (owner columns aside).
        use crate::{DevNum, FileKind};
        let dev = |major, minor| DevNum { major, minor };
        let t = at(1_704_164_645);
        let w = World::new(
            MemFs::rooted("/s")
                .special("/s/p", FileKind::Fifo)
                .special("/s/s", FileKind::Socket)
                .special("/s/c", FileKind::CharDevice(dev(1, 3)))
                .special("/s/b", FileKind::BlockDevice(dev(7, 0)))
                .special("/s/c2", FileKind::CharDevice(dev(10, 237)))
                .file("/s/big", &vec![0; 123_456])
                .times("/s/p", t, t)
                .times("/s/s", t, t)
                .times("/s/c", t, t)
                .times("/s/b", t, t)
                .times("/s/c2", t, t)
                .times("/s/big", t, t),
        );
        assert_eq!(ls(&w, &["-F"]).0, "b\nbig\nc\nc2\np|\ns=\n");
        assert_eq!(ls(&w, &["-p"]).0, "b\nbig\nc\nc2\np\ns\n");
        assert_eq!(
            ls(&w, &["-l"]).0,
            "total 124\n\
             brw-r--r-- 1 user user  7,   0 Jan  2 03:04 b\n\
             -rw-r--r-- 1 user user  123456 Jan  2 03:04 big\n\
             crw-r--r-- 1 user user  1,   3 Jan  2 03:04 c\n\
             crw-r--r-- 1 user user 10, 237 Jan  2 03:04 c2\n\
             prw-r--r-- 1 user user       0 Jan  2 03:04 p\n\
             srw-r--r-- 1 user user       0 Jan  2 03:04 s\n"
        );
        assert_eq!(
            ls(&w, &["-l", "c", "p"]).0,
            "crw-r--r-- 1 user user 1, 3 Jan  2 03:04 c\nprw-r--r-- 1 user user    0 Jan  2 03:04 p\n"
        );
    }

    #[test]
    fn human_sizes() {
        // GNU `ls -sh`/`-lh` rounding: up, one decimal below 10.
        for (n, s) in [
            (0, "0"),
            (1023, "1023"),
            (1024, "1.0K"),
            (1025, "1.1K"),
            (5000, "4.9K"),
            (10_239, "10K"),
            (10_240, "10K"),
            (10_241, "11K"),
            (1_048_575, "1.0M"),
            (1_048_576, "1.0M"),
            (1_073_741_824, "1.0G"),
        ] {
            assert_eq!(super::human(n), s, "{n}");
        }
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
        assert_eq!(
            ls(&w, &["--color=bad"]),
            (
                String::new(),
                "ls: invalid argument 'bad' for '--color'\nValid arguments are:\n  - 'always', 'yes', 'force'\n  - 'never', 'no', 'none'\n  - 'auto', 'tty', 'if-tty'\nTry 'ls --help' for more information.\n".into(),
                1
            )
        );
        assert_eq!(ls(&w, &["--color"]).0, "u\n");
        assert_eq!(ls(&w, &["--color=never"]).0, "u\n");
    }
}
