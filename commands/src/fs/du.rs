//! `du [OPTION]... [FILE]...`, GNU coreutils 9.1: disk usage from the view's `st_blocks`
//! (or apparent sizes, or inode counts), summed post-order over the shared [`Walk`] in
//! directory order, as GNU's `fts` walk without sorting. A file with several hard links is
//! counted once (by device and inode, unless `-l`); with several operands or `-L` every
//! object is (so `du a a/b` counts `a/b` once, inside `a`). Sizes are rounded up to the
//! block size; `-h`/`--si` autoscale as GNU's `human_readable` with its ceiling rounding.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::fnmatch::fnmatch;
use crate::support::size::{SizeError, block_size, human_ceil};
use crate::support::walk::{Follow, Node, Refused, Visit, Walk};
use crate::{Ctx, FileKind, Meta, Outcome, quote};

/// Summarize device usage of the set of FILEs, recursively for directories.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "du [OPTION]... [FILE]...")]
pub struct DuArgs {
    /// end each output line with NUL, not newline
    #[arg(short = '0', long = "null")]
    null: bool,
    /// write counts for all files, not just directories
    #[arg(short = 'a', long = "all")]
    all: bool,
    /// print apparent sizes rather than device usage
    #[arg(long = "apparent-size")]
    apparent: bool,
    /// scale sizes by SIZE before printing them
    #[arg(short = 'B', long = "block-size", value_name = "SIZE",
          overrides_with_all = ["bytes", "human", "si", "k", "m"])]
    block_size: Option<OsString>,
    /// equivalent to '--apparent-size --block-size=1'
    #[arg(short = 'b', long = "bytes", overrides_with_all = ["block_size", "human", "si", "k", "m"])]
    bytes: bool,
    /// produce a grand total
    #[arg(short = 'c', long = "total")]
    total: bool,
    /// dereference only symlinks that are listed on the command line
    #[arg(short = 'D', long = "dereference-args", visible_short_alias = 'H')]
    deref_args: bool,
    /// print sizes in human readable format (e.g., 1K 234M 2G)
    #[arg(short = 'h', long = "human-readable", overrides_with_all = ["block_size", "bytes", "si", "k", "m"])]
    human: bool,
    /// list inode usage information instead of block usage
    #[arg(long = "inodes")]
    inodes: bool,
    /// like --block-size=1K
    #[arg(short = 'k', overrides_with_all = ["block_size", "bytes", "human", "si", "m"])]
    k: bool,
    /// dereference all symbolic links
    #[arg(short = 'L', long = "dereference", overrides_with = "no_deref")]
    deref: bool,
    /// count sizes many times if hard linked
    #[arg(short = 'l', long = "count-links")]
    count_links: bool,
    /// like --block-size=1M
    #[arg(short = 'm', overrides_with_all = ["block_size", "bytes", "human", "si", "k"])]
    m: bool,
    /// don't follow any symbolic links (this is the default)
    #[arg(short = 'P', long = "no-dereference", overrides_with = "deref")]
    no_deref: bool,
    /// for directories do not include size of subdirectories
    #[arg(short = 'S', long = "separate-dirs")]
    separate: bool,
    /// like -h, but use powers of 1000 not 1024
    #[arg(long = "si", overrides_with_all = ["block_size", "bytes", "human", "k", "m"])]
    si: bool,
    /// display only a total for each argument
    #[arg(short = 's', long = "summarize")]
    summarize: bool,
    /// skip directories on different file systems
    #[arg(short = 'x', long = "one-file-system")]
    one_fs: bool,
    /// exclude files that match PATTERN
    #[arg(long = "exclude", value_name = "PATTERN")]
    exclude: Vec<OsString>,
    /// print the total for a directory only if it is N or fewer levels below the command
    /// line argument
    #[arg(short = 'd', long = "max-depth", value_name = "N")]
    max_depth: Option<OsString>,
    files: Vec<OsString>,
}

/// How a size is shown.
enum Scale {
    Human(u64),
    Blocks(u64, String),
}

impl Scale {
    fn show(&self, n: u64) -> String {
        match self {
            Scale::Human(base) => human_ceil(n, *base),
            Scale::Blocks(b, suffix) => format!("{}{suffix}", n.div_ceil((*b).max(1))),
        }
    }
}

struct Job<'a> {
    ctx: &'a Ctx<'a>,
    scale: Scale,
    apparent: bool,
    inodes: bool,
    all: bool,
    max_depth: usize,
    count_links: bool,
    hash_all: bool,
    separate: bool,
    one_fs: bool,
    follow: bool,
    exclude: Vec<OsString>,
    end: u8,
    seen: HashSet<(u64, u64)>,
    o: Outcome,
    status: i32,
}

/// gnulib `exclude` with `EXCLUDE_WILDCARDS`, unanchored: the pattern matches the whole
/// name or what follows any of its slashes.
fn excluded(patterns: &[OsString], name: &[u8]) -> bool {
    patterns.iter().any(|p| {
        let p = p.as_bytes();
        fnmatch(p, name, false)
            || name.iter().enumerate().any(|(i, &c)| {
                c == b'/'
                    && name.get(i + 1).is_some_and(|&n| n != b'/')
                    && fnmatch(p, name.get(i + 1..).unwrap_or_default(), false)
            })
    })
}

impl Job<'_> {
    fn size(&self, m: &Meta) -> u64 {
        if self.inodes {
            1
        } else if self.apparent {
            m.len
        } else {
            m.blocks.saturating_mul(512)
        }
    }

    fn print(&mut self, n: u64, name: &OsStr) {
        let mut line = self.scale.show(n).into_bytes();
        line.push(b'\t');
        line.extend_from_slice(name.as_bytes());
        line.push(self.end);
        self.o.out(line);
    }

    /// Whether the object is counted (not a second sight of a hard-linked inode).
    fn first_sight(&mut self, m: &Meta) -> bool {
        if self.count_links || !(self.hash_all || (!m.is_dir() && m.nlink > 1)) {
            return true;
        }
        self.seen.insert((m.dev, m.ino))
    }

    /// One operand; its total is added to the grand total.
    fn operand(&mut self, name: &OsStr, follow_root: bool) -> Option<u64> {
        let path = self.ctx.resolve(name);
        let meta = match self.ctx.fs.stat(&path, follow_root) {
            Ok(m) => m,
            Err(e) => {
                self.o
                    .err(format!("du: cannot access {}: {e}\n", quote(name)));
                self.status = 1;
                return None;
            }
        };
        if !self.first_sight(&meta) {
            return Some(0);
        }
        let own = self.size(&meta);
        if !meta.is_dir() {
            self.print(own, name);
            return Some(own);
        }
        let follow = if self.follow {
            Follow::Always
        } else {
            Follow::Never
        };
        let mut walk: Walk<u64> = Walk::carrying(self.ctx.fs, follow, self.ctx.walk_depth);
        let root = Walk::root(path, name);
        if let Err((node, Refused::Unreadable(e), _)) = walk.enter_with(root, own) {
            self.o.err(format!(
                "du: cannot read directory {}: {e}\n",
                quote(&node.display)
            ));
            self.status = 1;
            self.print(own, name);
            return Some(own);
        }
        let dev = meta.dev;
        let mut grand = 0;
        while let Some(v) = walk.next() {
            match v {
                Visit::Entry(node) | Visit::Broken(node, _) => self.entry(&mut walk, node, dev),
                Visit::Leave(node, total) => {
                    if node.depth <= self.max_depth {
                        self.print(total, &node.display);
                    }
                    match walk.data_mut() {
                        Some(parent) if !self.separate => *parent = parent.saturating_add(total),
                        Some(_) => {}
                        None => grand = total,
                    }
                }
                Visit::Listed(_) | Visit::Refused(..) => {}
            }
            if !self.ctx.flush(&mut self.o) {
                return None;
            }
        }
        Some(grand)
    }

    fn entry(&mut self, walk: &mut Walk<u64>, node: Node, dev: u64) {
        let meta = match self.ctx.fs.stat(&node.path, self.follow) {
            Ok(m) => m,
            Err(_) if self.follow => match self.ctx.fs.stat(&node.path, false) {
                Ok(m) => m,
                Err(e) => return self.cannot_access(&node, &e),
            },
            Err(e) => return self.cannot_access(&node, &e),
        };
        if !self.exclude.is_empty() && excluded(&self.exclude, node.display.as_bytes()) {
            return;
        }
        if self.one_fs && meta.dev != dev {
            return;
        }
        if !self.first_sight(&meta) {
            return;
        }
        let own = self.size(&meta);
        if meta.is_dir() && node.kind == FileKind::Dir {
            let depth = node.depth;
            let display = node.display.clone();
            if let Err((_, why, own)) = walk.descend_with(node, own) {
                let e = match why {
                    Refused::Unreadable(e) => e.to_string(),
                    Refused::Loop => "Too many levels of symbolic links".into(),
                    Refused::TooDeep => "File name too long".into(),
                };
                self.o.err(format!(
                    "du: cannot read directory {}: {e}\n",
                    quote(&display)
                ));
                self.status = 1;
                if depth <= self.max_depth {
                    self.print(own, &display);
                }
                if let Some(parent) = walk.data_mut() {
                    *parent = parent.saturating_add(own);
                }
            }
            return;
        }
        if self.all && node.depth <= self.max_depth {
            self.print(own, &node.display);
        }
        if let Some(parent) = walk.data_mut() {
            *parent = parent.saturating_add(own);
        }
    }

    fn cannot_access(&mut self, node: &Node, e: &crate::FsError) {
        self.o
            .err(format!("du: cannot access {}: {e}\n", quote(&node.display)));
        self.status = 1;
    }
}

fn scale_of(a: &DuArgs) -> Result<Scale, Stop> {
    if a.human {
        return Ok(Scale::Human(1024));
    }
    if a.si {
        return Ok(Scale::Human(1000));
    }
    if let Some(b) = &a.block_size {
        return match block_size(b.as_bytes()) {
            Ok((n, suffix)) => Ok(Scale::Blocks(n, suffix)),
            Err(SizeError::Overflow) => {
                Err(Stop::Fail(format!("-B argument {} too large", quote(b))))
            }
            Err(SizeError::Invalid) => Err(Stop::Fail(format!("invalid -B argument {}", quote(b)))),
        };
    }
    if a.m {
        return Ok(Scale::Blocks(1 << 20, String::new()));
    }
    if a.bytes || a.inodes {
        return Ok(Scale::Blocks(1, String::new()));
    }
    Ok(Scale::Blocks(1024, String::new()))
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<DuArgs>(args)?;
    let mut o = Outcome::ok();
    let mut max_depth = usize::MAX;
    if let Some(d) = &a.max_depth {
        match d.to_str().and_then(|s| s.parse::<usize>().ok()) {
            Some(n) => max_depth = n,
            None => {
                return Err(Stop::Usage(format!("invalid maximum depth {}", quote(d))));
            }
        }
    }
    if a.summarize {
        if a.all {
            return Err(Stop::Usage(
                "cannot both summarize and show all entries".into(),
            ));
        }
        match &a.max_depth {
            Some(_) if max_depth == 0 => {
                o.err("du: warning: summarizing is the same as using --max-depth=0\n");
            }
            Some(_) => {
                return Err(Stop::Usage(format!(
                    "warning: summarizing conflicts with --max-depth={max_depth}"
                )));
            }
            None => {}
        }
        max_depth = 0;
    }
    let scale = scale_of(&a)?;
    let files = if a.files.is_empty() {
        vec![OsString::from(".")]
    } else {
        a.files.clone()
    };
    let mut job = Job {
        ctx,
        scale,
        apparent: a.apparent || a.bytes,
        inodes: a.inodes,
        all: a.all,
        max_depth,
        count_links: a.count_links,
        hash_all: files.len() > 1 || a.deref,
        separate: a.separate,
        one_fs: a.one_fs,
        follow: a.deref,
        exclude: a.exclude.clone(),
        end: if a.null { b'\0' } else { b'\n' },
        seen: HashSet::new(),
        o,
        status: 0,
    };
    let mut grand: u64 = 0;
    for f in &files {
        if f.is_empty() {
            job.o
                .err("du: cannot access '': No such file or directory\n");
            job.status = 1;
            continue;
        }
        if let Some(n) = job.operand(f, a.deref || a.deref_args) {
            grand = grand.saturating_add(n);
        }
        if !ctx.flush(&mut job.o) {
            return Ok(job.o);
        }
    }
    if a.total {
        job.print(grand, OsStr::new("total"));
    }
    job.o.status = job.status;
    Ok(job.o)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::CommandName;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .dir("/s/a/b")
                .file("/s/a/f", b"hello\n")
                .file("/s/a/b/g", &[0u8; 5000]),
        )
    }

    fn du(args: &[&str]) -> (String, String, i32) {
        text(&world().run(CommandName::Du, args))
    }

    #[test]
    fn directories_post_order() {
        assert_eq!(du(&[]).0, "12\t./a/b\n20\t./a\n24\t.\n");
        assert_eq!(du(&["-s"]).0, "24\t.\n");
        assert_eq!(du(&["-a", "a"]).0, "8\ta/b/g\n12\ta/b\n4\ta/f\n20\ta\n");
        assert_eq!(du(&["-d", "1"]).0, "20\t./a\n24\t.\n");
    }

    #[test]
    fn units() {
        assert_eq!(du(&["-sh"]).0, "24K\t.\n");
        assert_eq!(du(&["-s", "--si"]).0, "25k\t.\n");
        assert_eq!(du(&["-sm"]).0, "1\t.\n");
        assert_eq!(du(&["-s", "-BK"]).0, "24K\t.\n");
        assert_eq!(du(&["-s", "-B", "KB"]).0, "25kB\t.\n");
        assert_eq!(du(&["-sb", "a/b"]).0, "9096\ta/b\n");
        assert_eq!(du(&["-s", "--inodes"]).0, "5\t.\n");
        assert_eq!(du(&["-s0"]).0, "24\t.\0");
    }

    #[test]
    fn operands_counted_once_and_total() {
        assert_eq!(du(&["-c", "a", "a/b"]).0, "12\ta/b\n20\ta\n20\ttotal\n");
        assert_eq!(du(&["-a", "--exclude=b"]).0, "4\t./a/f\n8\t./a\n12\t.\n");
    }

    #[test]
    fn errors() {
        assert_eq!(
            du(&["x"]),
            (
                String::new(),
                "du: cannot access 'x': No such file or directory\n".into(),
                1
            )
        );
        let (_, err, st) = du(&["-s", "-a"]);
        assert!(err.starts_with("du: cannot both summarize and show all entries\nTry"));
        assert_eq!(st, 1);
        assert_eq!(du(&["-B", "0"]).1, "du: invalid -B argument '0'\n");
        assert!(
            du(&["-d", "x"])
                .1
                .starts_with("du: invalid maximum depth 'x'\nTry")
        );
    }
}
