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
//! Not emulated: `-exec`, `-execdir`, `-ok`, `-okdir` (nothing is spawned: refused in one
//! line, status 1), `-regex`, `-ls`, `-fprint*`, owner and permission tests. GNU prints its
//! warnings (global option after a test, ...) only when stdin is a terminal, which a command
//! here never has, so none are printed.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::Stop;
use crate::support::fnmatch::fnmatch;
use crate::support::paths::join_display;
use crate::{Ctx, DirEntry, Effect, FileKind, FsError, Meta, Op, Outcome, quote_locale};

/// How deep the walk descends.
const DEPTH_CAP: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Less,
    Equal,
    Greater,
}

impl Cmp {
    fn test(self, value: i128, n: i128) -> bool {
        match self {
            Cmp::Less => value < n,
            Cmp::Equal => value == n,
            Cmp::Greater => value > n,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimeField {
    Access,
    Modify,
    Change,
}

#[derive(Debug)]
enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    True,
    False,
    Name {
        pat: Vec<u8>,
        fold: bool,
    },
    Path {
        pat: Vec<u8>,
        fold: bool,
    },
    Lname {
        pat: Vec<u8>,
        fold: bool,
    },
    Type(Vec<u8>),
    Size {
        cmp: Cmp,
        n: u64,
        unit: u64,
    },
    Empty,
    Newer(SystemTime),
    Time {
        field: TimeField,
        cmp: Cmp,
        n: i64,
        unit: i64,
    },
    Links {
        cmp: Cmp,
        n: u64,
    },
    Print,
    Print0,
    Printf(Vec<u8>),
    Prune,
    Delete,
    Quit,
}

impl Expr {
    fn has_action(&self) -> bool {
        match self {
            Expr::And(a, b) | Expr::Or(a, b) | Expr::Comma(a, b) => {
                a.has_action() || b.has_action()
            }
            Expr::Not(a) => a.has_action(),
            Expr::Print | Expr::Print0 | Expr::Printf(_) | Expr::Delete => true,
            _ => false,
        }
    }
    fn has(&self, f: fn(&Expr) -> bool) -> bool {
        f(self)
            || match self {
                Expr::And(a, b) | Expr::Or(a, b) | Expr::Comma(a, b) => a.has(f) || b.has(f),
                Expr::Not(a) => a.has(f),
                _ => false,
            }
    }
}

/// Options that apply to the whole run, wherever they appear.
#[derive(Debug, Default)]
struct Global {
    maxdepth: Option<usize>,
    mindepth: usize,
    depth_first: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Follow {
    Never,
    StartPoints,
    Always,
}

struct Parser<'a> {
    toks: &'a [OsString],
    i: usize,
    ctx: &'a Ctx<'a>,
    global: Global,
    follow: Follow,
    /// The last primary parsed, for GNU's hint about an unquoted pattern.
    last_primary: Option<String>,
}

type Parse<T> = Result<T, String>;

fn int_arg(s: &[u8]) -> Option<(Cmp, &[u8])> {
    match s.first() {
        Some(b'+') => Some((Cmp::Greater, s.get(1..)?)),
        Some(b'-') => Some((Cmp::Less, s.get(1..)?)),
        _ => Some((Cmp::Equal, s)),
    }
}

fn digits(s: &[u8]) -> Option<u64> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

impl Parser<'_> {
    fn peek(&self) -> Option<&[u8]> {
        self.toks.get(self.i).map(|t| t.as_bytes())
    }

    fn arg(&mut self, pred: &str) -> Parse<Vec<u8>> {
        let v = self
            .toks
            .get(self.i)
            .ok_or_else(|| format!("missing argument to `{pred}'"))?;
        self.i += 1;
        Ok(v.as_bytes().to_vec())
    }

    fn or(&mut self) -> Parse<Expr> {
        let mut left = self.and()?;
        while let Some(t) = self.peek() {
            let comma = t == b",";
            if !(t == b"-o" || t == b"-or" || comma) {
                break;
            }
            let op = String::from_utf8_lossy(t).into_owned();
            self.i += 1;
            if self.peek().is_none() {
                return Err(format!("expected an expression after '{op}'"));
            }
            let right = self.and()?;
            left = if comma {
                Expr::Comma(Box::new(left), Box::new(right))
            } else {
                Expr::Or(Box::new(left), Box::new(right))
            };
        }
        Ok(left)
    }

    fn and(&mut self) -> Parse<Expr> {
        let mut left = self.not()?;
        while let Some(t) = self.peek() {
            if t == b"-a" || t == b"-and" {
                let op = String::from_utf8_lossy(t).into_owned();
                self.i += 1;
                if self.peek().is_none() {
                    return Err(format!("expected an expression after '{op}'"));
                }
            } else if matches!(t, b"-o" | b"-or" | b"," | b")") {
                break;
            }
            let right = self.not()?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn not(&mut self) -> Parse<Expr> {
        let Some(t) = self.peek() else {
            return Err("expected an expression".into());
        };
        match t {
            b"!" | b"-not" => {
                let op = String::from_utf8_lossy(t).into_owned();
                self.i += 1;
                if self.peek().is_none() {
                    return Err(format!("expected an expression after '{op}'"));
                }
                Ok(Expr::Not(Box::new(self.not()?)))
            }
            b"(" => {
                self.i += 1;
                if self.peek() == Some(b")") {
                    return Err("invalid expression; empty parentheses are not allowed.".into());
                }
                if self.peek().is_none() {
                    return Err("invalid expression; I was expecting to find a ')' somewhere but did not see one.".into());
                }
                let e = self.or()?;
                if self.peek() != Some(b")") {
                    return Err("invalid expression; I was expecting to find a ')' somewhere but did not see one.".into());
                }
                self.i += 1;
                Ok(e)
            }
            b")" => Err("you have too many ')'".into()),
            b"-o" | b"-or" | b"-a" | b"-and" | b"," => Err(format!(
                "invalid expression; you have used a binary operator '{}' with nothing before it.",
                String::from_utf8_lossy(t)
            )),
            _ => self.primary(),
        }
    }

    fn time(&mut self, pred: &str, field: TimeField, unit: i64) -> Parse<Expr> {
        let v = self.arg(pred)?;
        let bad = || {
            format!(
                "invalid argument `{}' to `{pred}'",
                String::from_utf8_lossy(&v)
            )
        };
        let (cmp, rest) = int_arg(&v).ok_or_else(bad)?;
        let n = digits(rest).ok_or_else(bad)?;
        Ok(Expr::Time {
            field,
            cmp,
            n: i64::try_from(n).unwrap_or(i64::MAX),
            unit,
        })
    }

    fn depth_arg(&mut self, pred: &str) -> Parse<usize> {
        let v = self.arg(pred)?;
        digits(&v)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                format!(
                    "Expected a positive decimal integer argument to {pred}, but got {}",
                    quote_locale(OsStr::from_bytes(&v))
                )
            })
    }

    fn type_arg(&mut self, pred: &str) -> Parse<Expr> {
        let v = self.arg(pred)?;
        if v.is_empty() {
            return Err(format!(
                "Arguments to {pred} should contain at least one letter"
            ));
        }
        let mut kinds = Vec::new();
        for (k, part) in v.split(|&c| c == b',').enumerate() {
            match part {
                [c] if b"bcdpflsD".contains(c) => kinds.push(*c),
                [] if k > 0 => {
                    return Err(format!(
                        "Last file type in list argument to {pred} is missing, i.e., list is ending on: ','"
                    ));
                }
                [c, ..] if b"bcdpflsD".contains(c) => {
                    return Err(format!(
                        "Must separate multiple arguments to {pred} using: ','"
                    ));
                }
                _ => {
                    return Err(format!(
                        "Unknown argument to {pred}: {}",
                        String::from_utf8_lossy(part.get(..1).unwrap_or(part))
                    ));
                }
            }
        }
        Ok(Expr::Type(kinds))
    }

    fn size_arg(&mut self) -> Parse<Expr> {
        let v = self.arg("-size")?;
        if v.is_empty() {
            return Err("invalid null argument to -size".into());
        }
        let (cmp, rest) = int_arg(&v).unwrap_or((Cmp::Equal, &v));
        let (num, unit) = match rest.last() {
            Some(c) if c.is_ascii_digit() => (rest, 512),
            Some(&c) => {
                let unit = match c {
                    b'b' => 512,
                    b'c' => 1,
                    b'w' => 2,
                    b'k' => 1024,
                    b'M' => 1024 * 1024,
                    b'G' => 1024 * 1024 * 1024,
                    _ => {
                        return Err(format!(
                            "invalid -size type `{}'",
                            String::from_utf8_lossy(&[c])
                        ));
                    }
                };
                (rest.get(..rest.len() - 1).unwrap_or_default(), unit)
            }
            None => {
                return Err(format!(
                    "invalid -size type `{}'",
                    String::from_utf8_lossy(&v)
                ));
            }
        };
        let n = digits(num).ok_or_else(|| {
            format!(
                "Invalid argument `{}' to -size",
                String::from_utf8_lossy(&v)
            )
        })?;
        Ok(Expr::Size { cmp, n, unit })
    }

    fn primary(&mut self) -> Parse<Expr> {
        let tok = self.peek().unwrap_or_default().to_vec();
        let name = String::from_utf8_lossy(&tok).into_owned();
        if tok.first() != Some(&b'-') || tok.len() < 2 {
            let mut msg = format!("paths must precede expression: `{name}'");
            // GNU guesses at a glob the shell expanded when the stray word names a file.
            let exists = self
                .ctx
                .fs
                .stat(&self.ctx.resolve(OsStr::from_bytes(&tok)), true);
            if let (Some(p), true) = (&self.last_primary, exists.is_ok()) {
                msg.push_str("\nfind: possible unquoted pattern after predicate `");
                msg.push_str(p);
                msg.push_str("'?");
            }
            return Err(msg);
        }
        self.i += 1;
        self.last_primary = Some(name.clone());
        let pattern = |p: &mut Self, fold: bool, kind: u8| -> Parse<Expr> {
            let pat = p.arg(&name)?;
            Ok(match kind {
                b'n' => Expr::Name { pat, fold },
                b'p' => Expr::Path { pat, fold },
                _ => Expr::Lname { pat, fold },
            })
        };
        match name.as_str() {
            "-name" => pattern(self, false, b'n'),
            "-iname" => pattern(self, true, b'n'),
            "-path" | "-wholename" => pattern(self, false, b'p'),
            "-ipath" | "-iwholename" => pattern(self, true, b'p'),
            "-lname" => pattern(self, false, b'l'),
            "-ilname" => pattern(self, true, b'l'),
            "-type" => self.type_arg("-type"),
            "-size" => self.size_arg(),
            "-empty" => Ok(Expr::Empty),
            "-false" => Ok(Expr::False),
            "-newer" => {
                let f = self.arg("-newer")?;
                let follow = self.follow != Follow::Never;
                let path = self.ctx.resolve(OsStr::from_bytes(&f));
                match self.ctx.fs.stat(&path, follow) {
                    Ok(m) => Ok(Expr::Newer(m.mtime)),
                    Err(e) => Err(format!(
                        "{}: {}",
                        quote_locale(OsStr::from_bytes(&f)),
                        e.strerror()
                    )),
                }
            }
            "-mtime" => self.time("-mtime", TimeField::Modify, 86400),
            "-atime" => self.time("-atime", TimeField::Access, 86400),
            "-ctime" => self.time("-ctime", TimeField::Change, 86400),
            "-mmin" => self.time("-mmin", TimeField::Modify, 60),
            "-amin" => self.time("-amin", TimeField::Access, 60),
            "-cmin" => self.time("-cmin", TimeField::Change, 60),
            "-links" => {
                let v = self.arg("-links")?;
                let bad = || {
                    format!(
                        "invalid argument `{}' to `-links'",
                        String::from_utf8_lossy(&v)
                    )
                };
                let (cmp, rest) = int_arg(&v).ok_or_else(bad)?;
                let n = digits(rest).ok_or_else(bad)?;
                Ok(Expr::Links { cmp, n })
            }
            "-maxdepth" => {
                self.global.maxdepth = Some(self.depth_arg("-maxdepth")?);
                Ok(Expr::True)
            }
            "-mindepth" => {
                self.global.mindepth = self.depth_arg("-mindepth")?;
                Ok(Expr::True)
            }
            "-depth" | "-d" => {
                self.global.depth_first = true;
                Ok(Expr::True)
            }
            "-follow" => {
                self.follow = Follow::Always;
                Ok(Expr::True)
            }
            "-true"
            | "-xdev"
            | "-mount"
            | "-noleaf"
            | "-ignore_readdir_race"
            | "-noignore_readdir_race"
            | "-nowarn"
            | "-warn"
            | "-daystart" => Ok(Expr::True),
            "-print" => Ok(Expr::Print),
            "-print0" => Ok(Expr::Print0),
            "-printf" => Ok(Expr::Printf(self.arg("-printf")?)),
            "-prune" => Ok(Expr::Prune),
            "-delete" => {
                self.global.depth_first = true;
                Ok(Expr::Delete)
            }
            "-quit" => Ok(Expr::Quit),
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let rest = self.toks.get(self.i..).unwrap_or_default();
                let Some(end) = rest
                    .iter()
                    .position(|t| t == ";" || (t == "+" && name.starts_with("-exec")))
                else {
                    return Err(format!("missing argument to `{name}'"));
                };
                self.i += end + 1;
                Err(format!(
                    "{name} is not supported: trumansh runs no other programs"
                ))
            }
            "-regex" | "-iregex" | "-ls" | "-fls" | "-fprint" | "-fprint0" | "-fprintf"
            | "-perm" | "-user" | "-group" | "-uid" | "-gid" | "-nouser" | "-nogroup"
            | "-readable" | "-writable" | "-executable" | "-inum" | "-samefile" | "-xtype"
            | "-used" | "-anewer" | "-cnewer" | "-fstype" | "-context" | "-regextype" => {
                Err(format!("{name} is not supported by this find"))
            }
            _ => Err(format!("unknown predicate `{name}'")),
        }
    }
}

/// One visited object.
struct Entry<'e> {
    path: &'e Path,
    display: &'e [u8],
    /// The name `-name` tests (the base name, trailing slashes dropped).
    name: &'e [u8],
    kind: FileKind,
    depth: usize,
    /// The length of the start point's display name (for `%P`).
    start_len: usize,
    /// Whether links are followed for this entry's metadata.
    follow: bool,
    meta: Option<Result<Meta, FsError>>,
}

struct Find<'a> {
    ctx: &'a Ctx<'a>,
    expr: Expr,
    global: Global,
    follow: Follow,
    out: Vec<u8>,
    outcome: Outcome,
    status: i32,
    quit: bool,
    /// Set by `-prune` for the entry being evaluated.
    prune: bool,
    /// While a directory is evaluated after its content: everything in it was deleted.
    children_gone: bool,
    /// `-delete` asked to trash the entry being evaluated.
    trashed: bool,
}

fn basename(display: &[u8]) -> &[u8] {
    let mut end = display.len();
    while end > 1 && display.get(end - 1) == Some(&b'/') {
        end -= 1;
    }
    let trimmed = display.get(..end).unwrap_or(display);
    match memchr::memrchr(b'/', trimmed) {
        Some(i) if trimmed.len() > 1 => trimmed.get(i + 1..).unwrap_or(trimmed),
        _ => trimmed,
    }
}

fn secs(t: SystemTime) -> i128 {
    match t.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(d) => i128::from(d.as_secs()),
        Err(e) => -i128::from(e.duration().as_secs()),
    }
}

impl Find<'_> {
    fn flush(&mut self) {
        if !self.out.is_empty() {
            self.outcome.out(&self.out);
            self.out.clear();
        }
    }

    fn error(&mut self, msg: &str) {
        self.flush();
        self.outcome.err(format!("find: {msg}\n"));
        self.status = 1;
    }

    fn meta(&self, e: &mut Entry) -> Option<Meta> {
        if e.meta.is_none() {
            let m = match self.ctx.fs.stat(e.path, e.follow) {
                Err(_) if e.follow => self.ctx.fs.stat(e.path, false),
                m => m,
            };
            e.meta = Some(m);
        }
        e.meta.as_ref().and_then(|m| m.as_ref().ok()).cloned()
    }

    fn eval(&mut self, x: &Expr, e: &mut Entry) -> bool {
        match x {
            Expr::And(a, b) => self.eval(a, e) && !self.quit && self.eval(b, e),
            Expr::Or(a, b) => self.eval(a, e) || (!self.quit && self.eval(b, e)),
            Expr::Comma(a, b) => {
                self.eval(a, e);
                !self.quit && self.eval(b, e)
            }
            Expr::Not(a) => !self.eval(a, e),
            Expr::True => true,
            Expr::False => false,
            Expr::Name { pat, fold } => fnmatch(pat, e.name, *fold),
            Expr::Path { pat, fold } => fnmatch(pat, e.display, *fold),
            Expr::Lname { pat, fold } => {
                e.kind == FileKind::Symlink
                    && self
                        .ctx
                        .fs
                        .read_link(e.path)
                        .is_ok_and(|t| fnmatch(pat, t.as_os_str().as_bytes(), *fold))
            }
            Expr::Type(kinds) => kinds.iter().any(|&k| match k {
                b'f' => e.kind == FileKind::File,
                b'd' => e.kind == FileKind::Dir,
                b'l' => e.kind == FileKind::Symlink,
                _ => e.kind == FileKind::Other,
            }),
            Expr::Size { cmp, n, unit } => self.meta(e).is_some_and(|m| {
                let size = m.len.div_ceil(*unit);
                cmp.test(i128::from(size), i128::from(*n))
            }),
            Expr::Empty => match e.kind {
                FileKind::File => self.meta(e).is_some_and(|m| m.len == 0),
                FileKind::Dir => self.ctx.fs.read_dir(e.path).is_ok_and(|v| v.is_empty()),
                _ => false,
            },
            Expr::Newer(t) => self.meta(e).is_some_and(|m| m.mtime > *t),
            Expr::Time {
                field,
                cmp,
                n,
                unit,
            } => self.meta(e).is_some_and(|m| {
                let t = match field {
                    TimeField::Access => m.atime,
                    TimeField::Modify => m.mtime,
                    TimeField::Change => m.ctime,
                };
                let delta = secs(self.ctx.now) - secs(t);
                let units = delta.div_euclid(i128::from(*unit));
                cmp.test(units, i128::from(*n))
            }),
            Expr::Links { cmp, n } => self
                .meta(e)
                .is_some_and(|m| cmp.test(i128::from(m.nlink), i128::from(*n))),
            Expr::Print => {
                self.out.extend_from_slice(e.display);
                self.out.push(b'\n');
                true
            }
            Expr::Print0 => {
                self.out.extend_from_slice(e.display);
                self.out.push(0);
                true
            }
            Expr::Printf(fmt) => {
                self.printf(fmt, e);
                true
            }
            Expr::Prune => {
                self.prune = true;
                true
            }
            Expr::Quit => {
                self.quit = true;
                true
            }
            Expr::Delete => self.delete(e),
        }
    }

    fn delete(&mut self, e: &mut Entry) -> bool {
        let base = basename(e.display);
        if base == b"." || base == b".." {
            // GNU never removes `.` (rmdir would fail with EINVAL); it says nothing.
            return true;
        }
        let shown = quote_locale(OsStr::from_bytes(e.display));
        if e.kind == FileKind::Dir && !self.ctx.fs.read_dir(e.path).is_ok_and(|v| v.is_empty()) {
            // Children still there: those not selected, or not yet deleted by this run.
            if !self.children_gone {
                self.error(&format!("cannot delete {shown}: Directory not empty"));
                return false;
            }
        }
        self.flush();
        self.outcome.effect(Effect::new(
            Op::Trash {
                path: e.path.to_path_buf(),
            },
            format!("find: cannot delete {shown}"),
        ));
        self.trashed = true;
        true
    }

    fn printf(&mut self, fmt: &[u8], e: &mut Entry) {
        let mut i = 0;
        while let Some(&c) = fmt.get(i) {
            i += 1;
            match c {
                b'\\' => {
                    let Some(&n) = fmt.get(i) else {
                        self.out.push(b'\\');
                        break;
                    };
                    i += 1;
                    match n {
                        b'n' => self.out.push(b'\n'),
                        b't' => self.out.push(b'\t'),
                        b'0' => self.out.push(0),
                        b'\\' => self.out.push(b'\\'),
                        b'a' => self.out.push(7),
                        b'r' => self.out.push(b'\r'),
                        b'c' => return,
                        other => {
                            self.out.push(b'\\');
                            self.out.push(other);
                        }
                    }
                }
                b'%' => {
                    let Some(&d) = fmt.get(i) else {
                        self.out.push(b'%');
                        break;
                    };
                    i += 1;
                    match d {
                        b'%' => self.out.push(b'%'),
                        b'p' => self.out.extend_from_slice(e.display),
                        b'f' => self.out.extend_from_slice(e.name),
                        b'h' => {
                            let h = match memchr::memrchr(b'/', e.display) {
                                Some(0) => b"/".as_slice(),
                                Some(k) => e.display.get(..k).unwrap_or_default(),
                                None => b".".as_slice(),
                            };
                            self.out.extend_from_slice(h);
                        }
                        b'P' => {
                            let rel = e.display.get(e.start_len..).unwrap_or_default();
                            self.out
                                .extend_from_slice(rel.strip_prefix(b"/").unwrap_or(rel));
                        }
                        b'd' => self.out.extend_from_slice(e.depth.to_string().as_bytes()),
                        b's' => {
                            let len = self.meta(e).map_or(0, |m| m.len);
                            self.out.extend_from_slice(len.to_string().as_bytes());
                        }
                        b'm' => {
                            let perm = self.meta(e).map_or(0, |m| m.perm);
                            self.out.extend_from_slice(format!("{perm:o}").as_bytes());
                        }
                        b'y' => self.out.push(match e.kind {
                            FileKind::File => b'f',
                            FileKind::Dir => b'd',
                            FileKind::Symlink => b'l',
                            FileKind::Other => b'p',
                        }),
                        b'l' => {
                            if e.kind == FileKind::Symlink
                                && let Ok(t) = self.ctx.fs.read_link(e.path)
                            {
                                self.out.extend_from_slice(t.as_os_str().as_bytes());
                            }
                        }
                        other => {
                            self.out.push(b'%');
                            self.out.push(other);
                        }
                    }
                }
                _ => self.out.push(c),
            }
        }
    }

    /// Evaluates the expression for one entry; whether to descend (not pruned).
    fn visit(&mut self, e: &mut Entry) -> bool {
        self.prune = false;
        self.trashed = false;
        if e.depth >= self.global.mindepth {
            let expr = std::mem::replace(&mut self.expr, Expr::True);
            self.eval(&expr, e);
            self.expr = expr;
        }
        !self.prune || self.global.depth_first
    }

    fn start(&mut self, op: &OsStr) {
        let ctx = self.ctx;
        let path = ctx.resolve(op);
        let follow = self.follow != Follow::Never;
        let meta = match ctx.fs.stat(&path, follow) {
            Err(FsError::NotFound) if follow => ctx.fs.stat(&path, false),
            m => m,
        };
        let meta = match meta {
            Ok(m) => m,
            Err(e) => {
                self.error(&format!("{}: {}", quote_locale(op), e.strerror()));
                return;
            }
        };
        let display = op.as_bytes().to_vec();
        let name = basename(&display).to_vec();
        let kind = meta.kind;
        let id = (meta.dev, meta.ino);
        self.walk(&path, &display, &name, kind, Some(meta), id);
    }

    fn walk(
        &mut self,
        root: &Path,
        display: &[u8],
        name: &[u8],
        kind: FileKind,
        meta: Option<Meta>,
        id: (u64, u64),
    ) {
        struct Frame {
            path: PathBuf,
            display: Vec<u8>,
            name: Vec<u8>,
            depth: usize,
            entries: std::vec::IntoIter<DirEntry>,
            id: Option<(u64, u64)>,
            /// Every child was deleted (for `-delete` of the directory itself).
            all_deleted: bool,
        }
        let ctx = self.ctx;
        let follow_all = self.follow == Follow::Always;
        let maxdepth = self
            .global
            .maxdepth
            .unwrap_or(usize::MAX)
            .min(self.ctx.walk_depth);
        let depth_first = self.global.depth_first;
        let start_len = display.len();
        let mut root_entry = Entry {
            path: root,
            display,
            name,
            kind,
            depth: 0,
            start_len: display.len(),
            follow: self.follow != Follow::Never,
            meta: meta.map(Ok),
        };
        let descend = if depth_first {
            true
        } else {
            self.visit(&mut root_entry)
        };
        let mut stack: Vec<Frame> = Vec::new();
        let open = |this: &mut Self, path: &Path, display: &[u8]| -> Option<Vec<DirEntry>> {
            match ctx.fs.read_dir(path) {
                Ok(v) => Some(v),
                Err(e) => {
                    this.error(&format!(
                        "{}: {}",
                        quote_locale(OsStr::from_bytes(display)),
                        e.strerror()
                    ));
                    None
                }
            }
        };
        if kind == FileKind::Dir && descend && maxdepth > 0 && !self.quit {
            let entries = open(self, root, display);
            stack.push(Frame {
                path: root.to_path_buf(),
                display: display.to_vec(),
                name: name.to_vec(),
                depth: 0,
                entries: entries.unwrap_or_default().into_iter(),
                id: follow_all.then_some(id),
                all_deleted: true,
            });
        } else if depth_first {
            self.children_gone = false;
            self.visit(&mut root_entry);
            return;
        }
        while !self.quit {
            let Some(top) = stack.last_mut() else { break };
            let Some(entry) = top.entries.next() else {
                let Some(done) = stack.pop() else { break };
                if depth_first {
                    let mut e = Entry {
                        path: &done.path,
                        display: &done.display,
                        name: &done.name,
                        kind: FileKind::Dir,
                        depth: done.depth,
                        start_len,
                        follow: done.depth == 0 && self.follow != Follow::Never || follow_all,
                        meta: None,
                    };
                    self.children_gone = done.all_deleted;
                    self.visit(&mut e);
                    if let Some(parent) = stack.last_mut() {
                        parent.all_deleted &= self.trashed;
                    }
                }
                continue;
            };
            let depth = top.depth + 1;
            let path = top.path.join(&entry.name);
            let display =
                join_display(OsStr::from_bytes(&top.display), &entry.name).into_vec_bytes();
            let name = entry.name.as_bytes().to_vec();
            let mut kind = entry.kind;
            let mut meta = None;
            if follow_all
                && kind == FileKind::Symlink
                && let Ok(m) = ctx.fs.stat(&path, true)
            {
                kind = m.kind;
                meta = Some(Ok(m));
            }
            let mut e = Entry {
                path: &path,
                display: &display,
                name: &name,
                kind,
                depth,
                start_len,
                follow: follow_all,
                meta,
            };
            if kind == FileKind::Dir && depth < maxdepth {
                let id = if follow_all {
                    self.meta(&mut e).map(|m| (m.dev, m.ino))
                } else {
                    None
                };
                if let Some(ancestor) = id.and_then(|id| stack.iter().find(|f| f.id == Some(id))) {
                    let msg = format!(
                        "File system loop detected; {} is part of the same file system loop as {}.",
                        quote_locale(OsStr::from_bytes(&display)),
                        quote_locale(OsStr::from_bytes(&ancestor.display))
                    );
                    self.error(&msg);
                    if let Some(parent) = stack.last_mut() {
                        parent.all_deleted = false;
                    }
                    continue;
                }
                let descend = depth_first || self.visit(&mut e);
                if !descend || self.quit {
                    if let Some(parent) = stack.last_mut() {
                        parent.all_deleted = false;
                    }
                    continue;
                }
                if stack.len() >= DEPTH_CAP {
                    self.error(&format!(
                        "{}: directory nesting deeper than {DEPTH_CAP} levels; not descending",
                        quote_locale(OsStr::from_bytes(&display))
                    ));
                    continue;
                }
                let entries = open(self, &path, &display);
                stack.push(Frame {
                    path: path.clone(),
                    display: display.clone(),
                    name: name.clone(),
                    depth,
                    entries: entries.unwrap_or_default().into_iter(),
                    id,
                    all_deleted: true,
                });
            } else {
                self.children_gone = false;
                self.visit(&mut e);
                let gone = self.trashed;
                if let Some(parent) = stack.last_mut() {
                    parent.all_deleted &= gone;
                }
            }
        }
        self.flush();
    }
}

trait IntoBytes {
    fn into_vec_bytes(self) -> Vec<u8>;
}

impl IntoBytes for OsString {
    fn into_vec_bytes(self) -> Vec<u8> {
        use std::os::unix::ffi::OsStringExt;
        self.into_vec()
    }
}

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
    let expr = match parsed {
        Ok(e) => e,
        Err(msg) => {
            let mut o = Outcome::status(1);
            o.err(format!("find: {msg}\n"));
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
        outcome: Outcome::ok(),
        status: 0,
        quit: false,
        prune: false,
        children_gone: false,
        trashed: false,
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
}
