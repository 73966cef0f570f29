//! `tree [-adfilpshrxFJ] [-L level] [-P pattern] [-I pattern] [directory ...]`, tree 2.1.0 in
//! the C locale: each directory's entries sorted by name (bytewise, as `strcoll` in C), drawn
//! with ASCII lines, then the report `N directories, M files` over every operand. A link to a
//! directory counts as a directory and is only entered with `-l` (`[recursive, not
//! followed]` when its target was already listed); a missing operand is
//! `NAME  [error opening dir]` and exit status 2. Names are shown with C escapes (`\\`,
//! `\t`, `\351`), raw in `-J` JSON (with tree's JSON layout, quirks included). Options are
//! parsed as tree parses them (its own loop, not getopt), with its messages.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use crate::Stop;
use crate::support::fnmatch::fnmatch;
use crate::support::mode::perm_string;
use crate::{Ctx, FileKind, Meta, Outcome};

const USAGE: &str = "usage: tree [-acdfghilnpqrstuvxACDFJQNSUX] [-L level [-R]] [-H  baseHREF]
\t[-T title] [-o filename] [-P pattern] [-I pattern] [--gitignore]
\t[--gitfile[=]file] [--matchdirs] [--metafirst] [--ignore-case]
\t[--nolinks] [--hintro[=]file] [--houtro[=]file] [--inodes] [--device]
\t[--sort[=]<name>] [--dirsfirst] [--filesfirst] [--filelimit #] [--si]
\t[--du] [--prune] [--charset[=]X] [--timefmt[=]format] [--fromfile]
\t[--fflinks] [--info] [--infofile[=]file] [--noreport] [--version]
\t[--help] [--] [directory ...]
";

#[derive(Default)]
struct Opts {
    all: bool,
    dirs_only: bool,
    level: Option<usize>,
    full: bool,
    no_indent: bool,
    ignore: Vec<Vec<u8>>,
    pattern: Vec<Vec<u8>>,
    noreport: bool,
    classify: bool,
    size: bool,
    human: bool,
    si: bool,
    perms: bool,
    dirsfirst: bool,
    filesfirst: bool,
    reverse: bool,
    json: bool,
    follow: bool,
    prune: bool,
    filelimit: Option<usize>,
    ignore_case: bool,
    matchdirs: bool,
}

fn fail(msg: &str) -> Stop {
    let mut o = Outcome::status(1);
    o.err(msg);
    Stop::Done(o)
}

/// tree's `atoi`/`strtoul(…, 0)`: leading digits (with a `0x`/`0` base), else 0.
fn number(s: &[u8]) -> u64 {
    let (digits, radix) = if let Some(h) = s.strip_prefix(b"0x").or(s.strip_prefix(b"0X")) {
        (h, 16)
    } else if s.len() > 1 && s.first() == Some(&b'0') {
        (s.get(1..).unwrap_or_default(), 8)
    } else {
        (s, 10)
    };
    let mut v: u64 = 0;
    for &c in digits {
        match char::from(c).to_digit(radix) {
            Some(d) => {
                v = v
                    .saturating_mul(u64::from(radix))
                    .saturating_add(u64::from(d));
            }
            None => break,
        }
    }
    v
}

fn parse(args: &[OsString]) -> Result<(Opts, Vec<OsString>), Stop> {
    let mut opts = Opts::default();
    let mut dirs = Vec::new();
    let mut at = 0;
    let mut options = true;
    let take = |at: &mut usize, what: &str| -> Result<Vec<u8>, Stop> {
        *at += 1;
        args.get(*at)
            .map(|a| a.as_bytes().to_vec())
            .ok_or_else(|| fail(&format!("tree: Missing argument to {what}\n")))
    };
    while let Some(arg) = args.get(at) {
        let b = arg.as_bytes();
        if !options || b.first() != Some(&b'-') || b.len() < 2 {
            dirs.push(arg.clone());
            at += 1;
            continue;
        }
        if let Some(long) = b.strip_prefix(b"--") {
            let (name, value) = match long.iter().position(|&c| c == b'=') {
                Some(p) => (long.get(..p).unwrap_or_default(), long.get(p + 1..)),
                None => (long, None),
            };
            match name {
                b"" => options = false,
                b"noreport" => opts.noreport = true,
                b"dirsfirst" => opts.dirsfirst = true,
                b"filesfirst" => opts.filesfirst = true,
                b"prune" => opts.prune = true,
                b"si" => {
                    opts.si = true;
                    opts.size = true;
                }
                b"ignore-case" => opts.ignore_case = true,
                b"matchdirs" => opts.matchdirs = true,
                b"help" => {
                    let mut out = Outcome::ok();
                    out.out(USAGE);
                    return Err(Stop::Done(out));
                }
                b"version" => {
                    let mut out = Outcome::ok();
                    out.out("tree v2.1.0 (trumansh; emulates tree 2.1.0)\n");
                    return Err(Stop::Done(out));
                }
                b"filelimit" => {
                    let v = match value {
                        Some(v) => v.to_vec(),
                        None => take(&mut at, "--filelimit")?,
                    };
                    opts.filelimit = usize::try_from(number(&v)).ok();
                }
                _ => {
                    let mut out = Outcome::status(1);
                    out.err(format!(
                        "tree: Invalid argument `{}'.\n{USAGE}",
                        arg.to_string_lossy()
                    ));
                    return Err(Stop::Done(out));
                }
            }
            at += 1;
            continue;
        }
        let mut next = at;
        for &c in b.get(1..).unwrap_or_default() {
            match c {
                b'a' => opts.all = true,
                b'd' => opts.dirs_only = true,
                b'f' => opts.full = true,
                b'i' => opts.no_indent = true,
                b'l' => opts.follow = true,
                b'p' => opts.perms = true,
                b's' => opts.size = true,
                b'h' => {
                    opts.human = true;
                    opts.size = true;
                }
                b'r' => opts.reverse = true,
                b'F' => opts.classify = true,
                b'J' => opts.json = true,
                b'n' | b'x' | b'N' | b'q' | b'v' => {}
                b'L' => {
                    let v = take(&mut next, "-L option.")?;
                    match number(&v).checked_sub(1) {
                        Some(n) => opts.level = usize::try_from(n).ok(),
                        None => {
                            return Err(fail("tree: Invalid level, must be greater than 0.\n"));
                        }
                    }
                }
                b'P' => opts.pattern.push(take(&mut next, "-P option.")?),
                b'I' => opts.ignore.push(take(&mut next, "-I option.")?),
                _ => {
                    let mut out = Outcome::status(1);
                    out.err(format!(
                        "tree: Invalid argument -`{}'.\n{USAGE}",
                        char::from(c)
                    ));
                    return Err(Stop::Done(out));
                }
            }
        }
        at = next + 1;
    }
    Ok((opts, dirs))
}

/// tree's pattern match: `|` separates alternatives, each a shell pattern on the name.
fn matches(pats: &[Vec<u8>], name: &[u8], fold: bool) -> bool {
    pats.iter()
        .any(|p| p.split(|&c| c == b'|').any(|alt| fnmatch(alt, name, fold)))
}

/// A name as tree prints it in the C locale: `\\`, C escapes, octal for the rest.
fn escaped(name: &[u8], out: &mut Vec<u8>) {
    for &c in name {
        match c {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0x0b => out.extend_from_slice(b"\\v"),
            0x0c => out.extend_from_slice(b"\\f"),
            0x07 => out.extend_from_slice(b"\\a"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x20..=0x7e => out.push(c),
            _ => out.extend_from_slice(format!("\\{c:03o}").as_bytes()),
        }
    }
}

/// A JSON string's body: tree escapes quotes, backslashes and control bytes only.
fn json_escaped(name: &[u8], out: &mut Vec<u8>) {
    for &c in name {
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0x0c => out.extend_from_slice(b"\\f"),
            0x08 => out.extend_from_slice(b"\\b"),
            0..=0x1f => out.extend_from_slice(format!("\\u{c:04x}").as_bytes()),
            _ => out.push(c),
        }
    }
}

/// tree's `-h`/`--si` size: `%4d` below one unit, else one decimal below 10 units
/// (integer test), rounded to nearest as `printf` does with a `float`.
fn human(size: u64, si: bool) -> String {
    let base: u64 = if si { 1000 } else { 1024 };
    let units = [
        "",
        if si { "k" } else { "K" },
        "M",
        "G",
        "T",
        "P",
        "E",
        "Z",
        "Y",
    ];
    let mut size = size;
    let mut idx = usize::from(size >= base);
    while size >= base * base && idx + 1 < units.len() {
        size /= base;
        idx += 1;
    }
    if idx == 0 {
        return format!("{size:>4}");
    }
    let unit = units.get(idx).copied().unwrap_or("Y");
    #[allow(clippy::cast_precision_loss)]
    let v = size as f32 / base as f32;
    if size / base >= 10 {
        format!("{v:>3.0}{unit}")
    } else {
        format!("{v:>3.1}{unit}")
    }
}

/// The JSON `type` of an object.
fn json_type(kind: FileKind) -> &'static str {
    match kind {
        FileKind::Dir => "directory",
        FileKind::File => "file",
        FileKind::Symlink => "link",
        FileKind::Fifo => "fifo",
        FileKind::Socket => "socket",
        FileKind::CharDevice(_) => "char",
        FileKind::BlockDevice(_) => "block",
    }
}

struct Entry {
    name: OsString,
    path: PathBuf,
    meta: Meta,
    /// A link's target, and the target's metadata when it resolves.
    target: Option<(OsString, Option<Meta>)>,
    /// A directory, or a link to one.
    is_dir: bool,
}

struct Frame {
    entries: std::vec::IntoIter<Entry>,
    /// How many entries are left after the one being shown (0: it is the last).
    left: usize,
    /// The full path shown with `-f`.
    shown: Vec<u8>,
}

struct Job<'a> {
    ctx: &'a Ctx<'a>,
    o: Opts,
    out: Outcome,
    dirs: u64,
    files: u64,
    /// Directories listed under the current operand (`-l` loop detection).
    seen: HashSet<(u64, u64)>,
}

impl Job<'_> {
    /// The filtered, sorted entries of a directory; `None` when it cannot be read.
    fn read(&self, path: &std::path::Path, depth: usize) -> Option<Vec<Entry>> {
        let list = self.ctx.fs.read_dir(path).ok()?;
        let mut entries = Vec::with_capacity(list.len());
        for e in list {
            let name = e.name;
            let nb = name.as_bytes();
            if !self.o.all && nb.first() == Some(&b'.') {
                continue;
            }
            let p = path.join(&name);
            let Ok(meta) = self.ctx.fs.stat(&p, false) else {
                continue;
            };
            let target = if meta.is_symlink() {
                let t = self
                    .ctx
                    .fs
                    .read_link(&p)
                    .map(PathBuf::into_os_string)
                    .unwrap_or_default();
                Some((t, self.ctx.fs.stat(&p, true).ok()))
            } else {
                None
            };
            let is_dir = meta.is_dir()
                || target
                    .as_ref()
                    .is_some_and(|(_, m)| m.as_ref().is_some_and(Meta::is_dir));
            if matches(&self.o.ignore, nb, self.o.ignore_case) {
                continue;
            }
            if !self.o.pattern.is_empty()
                && (!meta.is_dir() || self.o.matchdirs)
                && !matches(&self.o.pattern, nb, self.o.ignore_case)
            {
                continue;
            }
            if self.o.dirs_only && !is_dir {
                continue;
            }
            let entry = Entry {
                name,
                path: p,
                meta,
                target,
                is_dir,
            };
            if self.o.prune && entry.is_dir && !self.has_content(&entry, depth + 1) {
                continue;
            }
            entries.push(entry);
        }
        let (dirsfirst, filesfirst, reverse) =
            (self.o.dirsfirst, self.o.filesfirst, self.o.reverse);
        entries.sort_by(|a, b| {
            if dirsfirst && a.is_dir != b.is_dir {
                return b.is_dir.cmp(&a.is_dir);
            }
            if filesfirst && a.is_dir != b.is_dir {
                return a.is_dir.cmp(&b.is_dir);
            }
            let c = a.name.as_bytes().cmp(b.name.as_bytes());
            if reverse { c.reverse() } else { c }
        });
        Some(entries)
    }

    /// `--prune`: whether a directory would show anything (it is entered, within the level).
    fn has_content(&self, e: &Entry, depth: usize) -> bool {
        if e.meta.is_symlink() && !self.o.follow {
            return false;
        }
        if self.o.level.is_some_and(|l| depth > l) {
            return false;
        }
        let mut stack = vec![(e.path.clone(), depth)];
        while let Some((p, d)) = stack.pop() {
            let Ok(list) = self.ctx.fs.read_dir(&p) else {
                continue;
            };
            for c in list {
                let nb = c.name.as_bytes();
                if !self.o.all && nb.first() == Some(&b'.') {
                    continue;
                }
                if matches(&self.o.ignore, nb, self.o.ignore_case) {
                    continue;
                }
                let cp = p.join(&c.name);
                let dir = self.ctx.fs.stat(&cp, true).is_ok_and(|m| m.is_dir());
                if dir {
                    let enter = c.kind == FileKind::Dir || self.o.follow;
                    if enter && self.o.level.is_none_or(|l| d < l) && d < self.ctx.walk_depth {
                        stack.push((cp, d + 1));
                    }
                    continue;
                }
                if self.o.dirs_only {
                    continue;
                }
                if self.o.pattern.is_empty() || matches(&self.o.pattern, nb, self.o.ignore_case) {
                    return true;
                }
            }
        }
        false
    }

    /// The `[perms size]` box, with its two trailing spaces; empty without `-p`/`-s`.
    fn info(&self, meta: &Meta) -> String {
        let mut fields = Vec::new();
        if self.o.perms {
            fields.push(format!("{}{}", meta.kind.letter(), perm_string(meta.perm)));
        }
        if self.o.size {
            fields.push(if self.o.human || self.o.si {
                human(meta.len, self.o.si)
            } else {
                format!("{:>11}", meta.len)
            });
        }
        if fields.is_empty() {
            String::new()
        } else {
            format!("[{}]  ", fields.join(" "))
        }
    }

    fn indicator(meta: &Meta) -> &'static str {
        match meta.kind {
            FileKind::Dir => "/",
            FileKind::Symlink => "@",
            FileKind::Fifo => "|",
            FileKind::Socket => "=",
            FileKind::File if meta.perm & 0o111 != 0 => "*",
            _ => "",
        }
    }

    fn count(&mut self, is_dir: bool) {
        if is_dir {
            self.dirs += 1;
        } else {
            self.files += 1;
        }
    }

    fn root(&mut self, name: &OsStr, more: bool) {
        let b = name.as_bytes();
        let trimmed = {
            let t = b
                .iter()
                .rposition(|&c| c != b'/')
                .map_or(b.get(..1), |p| b.get(..=p));
            t.unwrap_or(b)
        };
        let path = self.ctx.resolve(name);
        let meta = self.ctx.fs.stat(&path, true);
        let lmeta = self.ctx.fs.stat(&path, false);
        self.seen.clear();
        let mut line = Vec::new();
        if self.o.json {
            let Ok(meta) = meta else {
                line.extend_from_slice(b",\"name\":\"");
                json_escaped(trimmed, &mut line);
                line.extend_from_slice(
                    b"\",\"contents\":[{\"error\": \"error opening dir\"}\n\n  ]}\n",
                );
                self.out.out(line);
                self.out.status = 2;
                return;
            };
            if !meta.is_dir() {
                self.files += 1;
                line.extend_from_slice(b"  {\"type\":\"");
                line.extend_from_slice(json_type(meta.kind).as_bytes());
                line.extend_from_slice(b"\",\"name\":\"");
                json_escaped(trimmed, &mut line);
                line.extend_from_slice(b"\",\"contents\":[{\"error\": \"error opening dir\"}]}\n");
                self.out.out(line);
                return;
            }
            self.seen.insert((meta.dev, meta.ino));
            let head = self.json_head(&meta, None, trimmed);
            self.out.out(format!("  {head}"));
            let entries = self.read(&path, 0).unwrap_or_default();
            // tree 2.1 counts an operand directory only when it lists something, and puts
            // a comma after one whose contents were listed when another operand follows.
            let listed = !entries.is_empty();
            if listed {
                self.dirs += 1;
            }
            self.json_body(entries, 1);
            self.out.out(if listed && more { ",\n" } else { "\n" });
            return;
        }
        let Ok(meta) = meta else {
            escaped(trimmed, &mut line);
            line.extend_from_slice(b"  [error opening dir]\n");
            self.out.out(line);
            self.out.status = 2;
            return;
        };
        line.extend_from_slice(self.info(&meta).as_bytes());
        escaped(trimmed, &mut line);
        if self.o.classify {
            let shown = lmeta.as_ref().unwrap_or(&meta);
            line.extend_from_slice(Self::indicator(shown).as_bytes());
        }
        if !meta.is_dir() {
            self.files += 1;
            line.extend_from_slice(b"  [error opening dir]\n");
            self.out.out(line);
            return;
        }
        self.seen.insert((meta.dev, meta.ino));
        let mut entries = self.read(&path, 0);
        match &entries {
            None => line.extend_from_slice(b"  [error opening dir]"),
            Some(list) if !list.is_empty() => {
                // tree 2.1 counts an operand directory only when it lists something.
                self.dirs += 1;
                if let Some(limit) = self.o.filelimit
                    && list.len() > limit
                {
                    line.extend_from_slice(
                        format!(
                            "  [{} entries exceeds filelimit, not opening dir]",
                            list.len()
                        )
                        .as_bytes(),
                    );
                    entries = None;
                }
            }
            Some(_) => {}
        }
        line.push(b'\n');
        self.out.out(line);
        if let Some(entries) = entries {
            self.list(entries, trimmed.to_vec());
        }
    }

    /// Prints a directory's entries and, depth first, what is below them.
    fn list(&mut self, entries: Vec<Entry>, shown: Vec<u8>) {
        let mut stack = vec![Frame {
            left: entries.len(),
            entries: entries.into_iter(),
            shown,
        }];
        while let Some(top) = stack.last_mut() {
            let Some(e) = top.entries.next() else {
                stack.pop();
                continue;
            };
            top.left = top.left.saturating_sub(1);
            let depth = stack.len();
            let mut line = Vec::new();
            if !self.o.no_indent {
                let n = stack.len();
                for (k, f) in stack.iter().enumerate() {
                    let last = f.left == 0;
                    line.extend_from_slice(match (k + 1 == n, last) {
                        (false, true) => b"    ",
                        (false, false) => b"|   ",
                        (true, true) => b"`-- ",
                        (true, false) => b"|-- ",
                    });
                }
            }
            line.extend_from_slice(self.info(&e.meta).as_bytes());
            let mut full = Vec::new();
            if let Some(f) = stack.last() {
                full.clone_from(&f.shown);
                full.push(b'/');
            }
            full.extend_from_slice(e.name.as_bytes());
            if self.o.full {
                escaped(&full, &mut line);
            } else {
                escaped(e.name.as_bytes(), &mut line);
            }
            if let Some((target, tmeta)) = &e.target {
                line.extend_from_slice(b" -> ");
                escaped(target.as_bytes(), &mut line);
                if self.o.classify
                    && let Some(m) = tmeta
                {
                    line.extend_from_slice(Self::indicator(m).as_bytes());
                }
            } else if self.o.classify {
                line.extend_from_slice(Self::indicator(&e.meta).as_bytes());
            }
            self.count(e.is_dir);
            let mut below = None;
            let within = self.o.level.is_none_or(|l| depth <= l) && depth < self.ctx.walk_depth;
            if e.is_dir && within && (e.target.is_none() || self.o.follow) {
                let id = e
                    .target
                    .as_ref()
                    .and_then(|(_, m)| m.as_ref())
                    .map_or((e.meta.dev, e.meta.ino), |m| (m.dev, m.ino));
                if e.target.is_some() && self.seen.contains(&id) {
                    line.extend_from_slice(b"  [recursive, not followed]");
                } else {
                    self.seen.insert(id);
                    match self.read(&e.path, depth) {
                        Some(list) => match self.o.filelimit {
                            Some(limit) if list.len() > limit => line.extend_from_slice(
                                format!(
                                    "  [{} entries exceeds filelimit, not opening dir]",
                                    list.len()
                                )
                                .as_bytes(),
                            ),
                            _ => below = Some(list),
                        },
                        None => line.extend_from_slice(b"  [error opening dir]"),
                    }
                }
            }
            line.push(b'\n');
            self.out.out(line);
            if let Some(list) = below
                && !list.is_empty()
            {
                stack.push(Frame {
                    left: list.len(),
                    entries: list.into_iter(),
                    shown: full,
                });
            }
            if !self.ctx.flush(&mut self.out) {
                return;
            }
        }
    }

    /// `{"type":"…","name":"…"[,"target":"…"][,"mode":…][,"size":…]` (not closed).
    fn json_head(&self, meta: &Meta, target: Option<&OsStr>, name: &[u8]) -> String {
        let mut s = Vec::new();
        s.extend_from_slice(b"{\"type\":\"");
        s.extend_from_slice(json_type(meta.kind).as_bytes());
        s.extend_from_slice(b"\",\"name\":\"");
        json_escaped(name, &mut s);
        s.push(b'"');
        if let Some(t) = target {
            s.extend_from_slice(b",\"target\":\"");
            json_escaped(t.as_bytes(), &mut s);
            s.push(b'"');
        }
        if self.o.perms {
            s.extend_from_slice(
                format!(
                    ",\"mode\":\"{:04o}\",\"prot\":\"{}{}\"",
                    meta.perm,
                    meta.kind.letter(),
                    perm_string(meta.perm)
                )
                .as_bytes(),
            );
        }
        if self.o.size {
            s.extend_from_slice(format!(",\"size\":{}", meta.len).as_bytes());
        }
        String::from_utf8_lossy(&s).into_owned()
    }

    /// The `,"contents":[` … `]}` of a directory whose head is out (or `}` when empty).
    fn json_body(&mut self, entries: Vec<Entry>, depth: usize) {
        struct JFrame {
            entries: std::vec::IntoIter<Entry>,
            first: bool,
        }
        if entries.is_empty() {
            self.out.out("}");
            return;
        }
        self.out.out(",\"contents\":[\n");
        let mut stack = vec![JFrame {
            entries: entries.into_iter(),
            first: true,
        }];
        loop {
            let level = depth + stack.len().saturating_sub(1);
            let Some(top) = stack.last_mut() else { break };
            let Some(e) = top.entries.next() else {
                stack.pop();
                let indent = " ".repeat(2 * level);
                self.out.out(format!("\n{indent}]}}"));
                continue;
            };
            if !std::mem::replace(&mut top.first, false) {
                self.out.out(",\n");
            }
            let indent = " ".repeat(2 * (level + 1));
            let head = self.json_head(
                &e.meta,
                e.target.as_ref().map(|(t, _)| t.as_os_str()),
                e.name.as_bytes(),
            );
            self.out.out(format!("{indent}{head}"));
            self.count(e.is_dir);
            let within = self.o.level.is_none_or(|l| level <= l) && level < self.ctx.walk_depth;
            let mut below = Vec::new();
            if e.is_dir && within && (e.target.is_none() || self.o.follow) {
                below = self.read(&e.path, level).unwrap_or_default();
            }
            if below.is_empty() {
                self.out.out("}");
            } else {
                self.out.out(",\"contents\":[\n");
                stack.push(JFrame {
                    entries: below.into_iter(),
                    first: true,
                });
            }
            if !self.ctx.flush(&mut self.out) {
                return;
            }
        }
    }

    fn report(&mut self) {
        let d = if self.dirs == 1 {
            "directory"
        } else {
            "directories"
        };
        let f = if self.files == 1 { "file" } else { "files" };
        if self.o.json {
            if self.o.noreport {
                self.out.out("\n]\n");
            } else if self.o.dirs_only {
                self.out.out(format!(
                    ",\n  {{\"type\":\"report\",\"directories\":{}}}\n]\n",
                    self.dirs
                ));
            } else {
                self.out.out(format!(
                    ",\n  {{\"type\":\"report\",\"directories\":{},\"files\":{}}}\n]\n",
                    self.dirs, self.files
                ));
            }
            return;
        }
        if self.o.noreport {
            return;
        }
        if self.o.dirs_only {
            self.out.out(format!("\n{} {d}\n", self.dirs));
        } else {
            self.out
                .out(format!("\n{} {d}, {} {f}\n", self.dirs, self.files));
        }
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let (o, mut roots) = parse(args)?;
    if roots.is_empty() {
        roots.push(OsString::from("."));
    }
    let json = o.json;
    let mut job = Job {
        ctx,
        o,
        out: Outcome::ok(),
        dirs: 0,
        files: 0,
        seen: HashSet::new(),
    };
    if json {
        job.out.out("[\n");
    }
    for (i, r) in roots.iter().enumerate() {
        job.root(r, i + 1 < roots.len());
        if !ctx.flush(&mut job.out) {
            return Ok(job.out);
        }
    }
    job.report();
    Ok(job.out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::human;
    use crate::CommandName;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .dir("/s/a/b")
                .file("/s/a/f", b"hello\n")
                .file("/s/a/b/g", &[0u8; 5000])
                .dir("/s/c")
                .file("/s/c/.hid", b"")
                .file("/s/c/Z", b"")
                .file("/s/c/b10", b"")
                .file("/s/c/b9", b"")
                .symlink("/s/c/dang", "nowhere")
                .symlink("/s/c/ln", "../a"),
        )
    }

    fn tree(args: &[&str]) -> (String, String, i32) {
        text(&world().run(CommandName::Tree, args))
    }

    #[test]
    fn draws_and_counts() {
        assert_eq!(
            tree(&[]).0,
            ".\n|-- a\n|   |-- b\n|   |   `-- g\n|   `-- f\n`-- c\n    |-- Z\n    |-- b10\n    \
             |-- b9\n    |-- dang -> nowhere\n    `-- ln -> ../a\n\n5 directories, 6 files\n"
        );
        assert_eq!(
            tree(&["-d", "-L", "1"]).0,
            ".\n|-- a\n`-- c\n\n3 directories\n"
        );
        assert_eq!(
            tree(&["-a", "-i", "-f", "--noreport", "c"]).0,
            "c\nc/.hid\nc/Z\nc/b10\nc/b9\nc/dang -> nowhere\nc/ln -> ../a\n"
        );
    }

    #[test]
    fn filters_and_sizes() {
        assert_eq!(
            tree(&["-P", "b*|Z", "--noreport", "c"]).0,
            "c\n|-- Z\n|-- b10\n`-- b9\n"
        );
        assert_eq!(
            tree(&["-I", "b*", "-r", "--noreport", "c"]).0,
            "c\n|-- ln -> ../a\n|-- dang -> nowhere\n`-- Z\n"
        );
        assert_eq!(
            tree(&["-s", "--noreport", "a/b"]).0,
            "[       4096]  a/b\n`-- [       5000]  g\n"
        );
        assert_eq!(human(10188, false), "9.9K");
        assert_eq!(human(10189, false), "10.0K");
        assert_eq!(human(10240, false), " 10K");
        assert_eq!(human(6, false), "   6");
        assert_eq!(human(4096, true), "4.1k");
    }

    #[test]
    fn json() {
        assert_eq!(
            tree(&["-J", "a"]).0,
            "[\n  {\"type\":\"directory\",\"name\":\"a\",\"contents\":[\n    \
             {\"type\":\"directory\",\"name\":\"b\",\"contents\":[\n      \
             {\"type\":\"file\",\"name\":\"g\"}\n    ]},\n    \
             {\"type\":\"file\",\"name\":\"f\"}\n  ]}\n,\n  \
             {\"type\":\"report\",\"directories\":2,\"files\":2}\n]\n"
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            tree(&["x"]),
            (
                "x  [error opening dir]\n\n0 directories, 0 files\n".into(),
                String::new(),
                2
            )
        );
        assert_eq!(
            tree(&["-L", "0"]),
            (
                String::new(),
                "tree: Invalid level, must be greater than 0.\n".into(),
                1
            )
        );
        assert_eq!(tree(&["-L"]).1, "tree: Missing argument to -L option.\n");
        assert!(
            tree(&["-z"])
                .1
                .starts_with("tree: Invalid argument -`z'.\nusage: tree")
        );
    }
}
