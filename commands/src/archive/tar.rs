//! `tar`, GNU tar 1.34: `-c`, `-x`, `-t` on GNU-format archives (ustar and pax are read too),
//! plain or gzip-compressed (`-z`, `-a`, or recognised when reading a file), with `-f`, `-v`,
//! `-C`, `--exclude`, `-p`, `--strip-components`, `-O`, `-k`, `--skip-old-files`, `-T`, and
//! the old bundled form (`tar czf a.tgz dir`).
//!
//! Creation reads through the view and writes the archive as effects (in appended chunks, so a
//! big archive streams); the header writer is our own (GNU's field layout, long names as
//! `././@LongLink` members); reading uses the `tar` crate. Extraction makes every name safe as
//! GNU does (leading `/` and `../` prefixes removed with GNU's notice, members whose name holds
//! `..` skipped), creates symlinks whose target is absolute or climbs with `..` only at the end
//! (GNU's delayed links), so that no later member is written through one, and links hard links
//! only to members it extracted.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::{Cursor, Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;

use super::{GZIP_MAGIC, MEMBER_CAP, TOTAL_CAP, perm_string, read_capped};
use crate::support::args::long_option;
use crate::support::datetime::{broken_down, session_zone, strftime, to_epoch};
use crate::support::fnmatch::fnmatch;
use crate::{Ctx, Effect, FileKind, FsError, Op, Outcome, Stop};

const TRY: &str = "Try 'tar --help' or 'tar --usage' for more information.";
const FAILED: &str = "tar: Exiting with failure status due to previous errors\n";
const FATAL: &str = "tar: Error is not recoverable: exiting now\n";
/// GNU's record: 20 blocks of 512 bytes; an archive is padded to a whole record.
const RECORD: usize = 10240;
/// The umask extraction applies without `-p` (the sandbox's user is not root).
const UMASK: u32 = 0o022;
/// How much archive is gathered before it is handed over as one appended write.
const CHUNK: usize = 1 << 20;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Create,
    Extract,
    List,
}

#[derive(Default, Debug)]
struct Opts {
    mode: Option<Mode>,
    file: Option<OsString>,
    gzip: bool,
    auto: bool,
    other_compressor: Option<&'static str>,
    verbose: u8,
    excludes: Vec<Vec<u8>>,
    keep_perms: bool,
    strip: usize,
    to_stdout: bool,
    keep_old: bool,
    skip_old: bool,
    files_from: Vec<OsString>,
    /// Operands with the `-C` directory in force where they appear.
    operands: Vec<(Option<OsString>, OsString)>,
    /// The last `-C` (where extraction happens).
    dir: Option<OsString>,
}

fn usage(msg: &str) -> Stop {
    Stop::FailWith(format!("{msg}\n{TRY}"), 64)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Opt {
    Create,
    Extract,
    List,
    File,
    Dir,
    Gzip,
    Bzip2,
    Xz,
    Verbose,
    Exclude,
    KeepPerms,
    NoPerms,
    Strip,
    ToStdout,
    KeepOld,
    SkipOld,
    Overwrite,
    FilesFrom,
    Auto,
    Ignored,
    Help,
    Version,
}

/// The long options, with whether they take an argument.
const LONG: &[(&str, Opt, bool)] = &[
    ("absolute-names", Opt::Ignored, false),
    ("auto-compress", Opt::Auto, false),
    ("bzip2", Opt::Bzip2, false),
    ("create", Opt::Create, false),
    ("directory", Opt::Dir, true),
    ("exclude", Opt::Exclude, true),
    ("extract", Opt::Extract, false),
    ("file", Opt::File, true),
    ("files-from", Opt::FilesFrom, true),
    ("get", Opt::Extract, false),
    ("gunzip", Opt::Gzip, false),
    ("gzip", Opt::Gzip, false),
    ("help", Opt::Help, false),
    ("keep-old-files", Opt::KeepOld, false),
    ("list", Opt::List, false),
    ("no-same-owner", Opt::Ignored, false),
    ("no-same-permissions", Opt::NoPerms, false),
    ("overwrite", Opt::Overwrite, false),
    ("preserve-permissions", Opt::KeepPerms, false),
    ("same-owner", Opt::Ignored, false),
    ("same-permissions", Opt::KeepPerms, false),
    ("skip-old-files", Opt::SkipOld, false),
    ("strip-components", Opt::Strip, true),
    ("to-stdout", Opt::ToStdout, false),
    ("ungzip", Opt::Gzip, false),
    ("verbose", Opt::Verbose, false),
    ("version", Opt::Version, false),
    ("xz", Opt::Xz, false),
];

fn short(c: u8) -> Option<(Opt, bool)> {
    Some(match c {
        b'c' => (Opt::Create, false),
        b'x' => (Opt::Extract, false),
        b't' => (Opt::List, false),
        b'f' => (Opt::File, true),
        b'C' => (Opt::Dir, true),
        b'z' => (Opt::Gzip, false),
        b'j' => (Opt::Bzip2, false),
        b'J' => (Opt::Xz, false),
        b'v' => (Opt::Verbose, false),
        b'p' => (Opt::KeepPerms, false),
        b'O' => (Opt::ToStdout, false),
        b'k' => (Opt::KeepOld, false),
        b'T' => (Opt::FilesFrom, true),
        b'a' => (Opt::Auto, false),
        b'P' | b'o' => (Opt::Ignored, false),
        _ => return None,
    })
}

fn set_mode(o: &mut Opts, m: Mode) -> Result<(), Stop> {
    if o.mode.is_some_and(|old| old != m) {
        return Err(Stop::FailWith(
            format!(
                "You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option\n{TRY}"
            ),
            2,
        ));
    }
    o.mode = Some(m);
    Ok(())
}

fn apply(o: &mut Opts, opt: Opt, arg: Option<OsString>) -> Result<(), Stop> {
    let arg = arg.unwrap_or_default();
    match opt {
        Opt::Create => set_mode(o, Mode::Create)?,
        Opt::Extract => set_mode(o, Mode::Extract)?,
        Opt::List => set_mode(o, Mode::List)?,
        Opt::File => o.file = Some(arg),
        Opt::Dir => o.dir = Some(arg),
        Opt::Gzip => o.gzip = true,
        Opt::Bzip2 => o.other_compressor = Some("bzip2"),
        Opt::Xz => o.other_compressor = Some("xz"),
        Opt::Verbose => o.verbose = o.verbose.saturating_add(1),
        Opt::Exclude => o.excludes.push(arg.into_vec()),
        Opt::KeepPerms => o.keep_perms = true,
        Opt::NoPerms => o.keep_perms = false,
        Opt::Strip => {
            o.strip = arg.to_str().and_then(|s| s.parse().ok()).ok_or_else(|| {
                Stop::FailWith(
                    format!(
                        "{}: Invalid number of elements\n{TRY}",
                        arg.to_string_lossy()
                    ),
                    2,
                )
            })?;
        }
        Opt::ToStdout => o.to_stdout = true,
        Opt::KeepOld => o.keep_old = true,
        Opt::SkipOld => o.skip_old = true,
        Opt::Overwrite => {
            o.keep_old = false;
            o.skip_old = false;
        }
        Opt::FilesFrom => o.files_from.push(arg),
        Opt::Auto => o.auto = true,
        Opt::Ignored => {}
        Opt::Help => return Err(Stop::Help),
        Opt::Version => return Err(Stop::Version),
    }
    if opt == Opt::Dir {
        let d = o.dir.clone();
        o.operands.push((d, OsString::new()));
    }
    Ok(())
}

fn parse(args: &[OsString]) -> Result<Opts, Stop> {
    let mut args: Vec<OsString> = args.to_vec();
    // The old form: a first word without `-` is a bundle of letters, whose arguments follow
    // in order.
    if let Some(first) = args.first().map(|a| a.as_bytes().to_vec())
        && !first.is_empty()
        && !first.starts_with(b"-")
    {
        let mut rest = args.split_off(1).into_iter();
        let mut expanded = Vec::new();
        for &c in &first {
            expanded.push(OsString::from_vec(vec![b'-', c]));
            if short(c).is_some_and(|(_, takes)| takes) {
                match rest.next() {
                    Some(a) => expanded.push(a),
                    None => {
                        return Err(usage(&format!(
                            "option requires an argument -- '{}'",
                            char::from(c)
                        )));
                    }
                }
            }
        }
        expanded.extend(rest);
        args = expanded;
    }
    let mut o = Opts::default();
    let mut it = args.into_iter();
    let mut only_operands = false;
    while let Some(a) = it.next() {
        let b = a.as_bytes();
        if only_operands || b == b"-" || !b.starts_with(b"-") {
            o.operands.push((o.dir.clone(), a));
            continue;
        }
        if b == b"--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = b.strip_prefix(b"--") {
            let (opt, arg) = long_option(LONG, long, || it.next()).map_err(|e| usage(&e))?;
            apply(&mut o, opt, arg)?;
            continue;
        }
        let mut i = 1;
        while let Some(&c) = b.get(i) {
            let Some((opt, takes)) = short(c) else {
                return Err(usage(&format!("invalid option -- '{}'", char::from(c))));
            };
            if takes {
                let rest = b.get(i + 1..).unwrap_or_default();
                let arg = if rest.is_empty() {
                    it.next().ok_or_else(|| {
                        usage(&format!(
                            "option requires an argument -- '{}'",
                            char::from(c)
                        ))
                    })?
                } else {
                    OsString::from_vec(rest.to_vec())
                };
                apply(&mut o, opt, Some(arg))?;
                break;
            }
            apply(&mut o, opt, None)?;
            i += 1;
        }
    }
    Ok(o)
}

/// GNU's `quotearg` escape style for member names in listings.
fn shown(name: &[u8]) -> String {
    let mut s = String::new();
    for &c in name {
        match c {
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            b'\r' => s.push_str("\\r"),
            0x20..=0x7e => s.push(char::from(c)),
            _ => {
                let _ = write!(s, "\\{c:03o}");
            }
        }
    }
    s
}

/// Removes what would lead out (`/` and everything up to a last `..` component), as GNU's
/// `safer_name_suffix`; returns the prefix removed, if any.
fn safer_name(name: &[u8]) -> (Vec<u8>, Option<Vec<u8>>) {
    let mut cut = 0;
    // A leading run of slashes.
    while name.get(cut) == Some(&b'/') {
        cut += 1;
    }
    // Everything up to and including the last `..` component.
    let mut i = cut;
    let mut start = cut;
    while i <= name.len() {
        if i == name.len() || name.get(i) == Some(&b'/') {
            if name.get(start..i) == Some(b"..".as_slice()) {
                cut = i;
                while name.get(cut) == Some(&b'/') {
                    cut += 1;
                }
            }
            start = i + 1;
        }
        i += 1;
    }
    let rest = name.get(cut..).unwrap_or_default().to_vec();
    let prefix = (cut > 0).then(|| name.get(..cut).unwrap_or_default().to_vec());
    let rest = if rest.is_empty() && prefix.is_some() {
        b".".to_vec()
    } else {
        rest
    };
    (rest, prefix)
}

fn has_dotdot(name: &[u8]) -> bool {
    name.split(|&c| c == b'/').any(|c| c == b"..")
}

/// GNU's `--exclude` default: the pattern may match the whole name or any tail of it that
/// starts after a `/`; `*` crosses slashes.
fn excluded(pats: &[Vec<u8>], name: &[u8]) -> bool {
    let name = name.strip_suffix(b"/").unwrap_or(name);
    pats.iter().any(|p| {
        fnmatch(p, name, false)
            || name
                .iter()
                .enumerate()
                .filter(|(_, c)| **c == b'/')
                .any(|(i, _)| fnmatch(p, name.get(i + 1..).unwrap_or_default(), false))
    })
}

/// Removes `n` leading components; `None` when nothing is left.
fn strip_components(name: &[u8], n: usize) -> Option<Vec<u8>> {
    if n == 0 {
        return Some(name.to_vec());
    }
    let mut rest = name;
    for _ in 0..n {
        let i = rest.iter().position(|&c| c == b'/')?;
        rest = rest.get(i + 1..).unwrap_or_default();
        while let Some(r) = rest.strip_prefix(b"/") {
            rest = r;
        }
    }
    (!rest.is_empty()).then(|| rest.to_vec())
}

/// The shared state of one run: output, status, notices given once.
struct Run<'a> {
    ctx: &'a Ctx<'a>,
    o: Outcome,
    failed: bool,
    warned: HashSet<(bool, Vec<u8>)>,
    /// The widest `user/group size` seen, as GNU's `ugswidth`.
    ugswidth: usize,
    /// Listing lines go to stderr (the archive or the members are on stdout).
    list_to_err: bool,
}

impl Run<'_> {
    fn err(&mut self, msg: &str) {
        self.o.err(format!("tar: {msg}\n"));
        self.failed = true;
    }
    fn notice(&mut self, prefix: &[u8], links: bool) {
        if self.warned.insert((links, prefix.to_vec())) {
            let what = if links {
                "hard link targets"
            } else {
                "member names"
            };
            self.o.err(format!(
                "tar: Removing leading `{}' from {what}\n",
                shown(prefix)
            ));
        }
    }
    fn listing(&mut self, text: String) {
        if self.list_to_err {
            self.o.err(text);
        } else {
            self.o.out(text);
        }
    }
    /// One `tar -tv` line.
    fn long_line(&mut self, h: &Listed) -> String {
        let kind = match h.kind {
            b'0' | 0 | b'7' => '-',
            b'1' => 'h',
            b'2' => 'l',
            b'3' => 'c',
            b'4' => 'b',
            b'5' => 'd',
            b'6' => 'p',
            _ => '?',
        };
        let user = if h.uname.is_empty() {
            h.uid.to_string()
        } else {
            String::from_utf8_lossy(&h.uname).into_owned()
        };
        let group = if h.gname.is_empty() {
            h.gid.to_string()
        } else {
            String::from_utf8_lossy(&h.gname).into_owned()
        };
        let size = if matches!(h.kind, b'3' | b'4') {
            format!("{},{}", h.dev.0, h.dev.1)
        } else {
            h.size.to_string()
        };
        let pad = user.len() + 1 + group.len() + 1 + size.len();
        self.ugswidth = self.ugswidth.max(pad);
        let zone = session_zone(self.ctx);
        let tm = broken_down(h.mtime, 0, &zone);
        let date = String::from_utf8_lossy(&strftime(b"%Y-%m-%d %H:%M", &tm)).into_owned();
        let width = self.ugswidth - pad + size.len();
        let mut line = format!(
            "{kind}{} {user}/{group} {size:>width$} {date} {}",
            perm_string(h.perm & 0o7777),
            shown(&h.name)
        );
        match h.kind {
            b'2' => {
                let _ = write!(line, " -> {}", shown(&h.link));
            }
            b'1' => {
                let _ = write!(line, " link to {}", shown(&h.link));
            }
            _ => {}
        }
        line.push('\n');
        line
    }
}

/// What a listing shows of a member.
struct Listed {
    name: Vec<u8>,
    link: Vec<u8>,
    kind: u8,
    perm: u32,
    uid: u64,
    gid: u64,
    uname: Vec<u8>,
    gname: Vec<u8>,
    size: u64,
    mtime: i64,
    dev: (u32, u32),
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut opts = parse(args)?;
    let Some(mode) = opts.mode else {
        return Err(Stop::FailWith(
            format!(
                "You must specify one of the '-Acdtrux', '--delete' or '--test-label' options\n{TRY}"
            ),
            2,
        ));
    };
    if let Some(prog) = opts.other_compressor {
        // What GNU tar says where the compressor is not installed.
        let mut o = Outcome::status(2);
        o.err(format!(
            "tar (child): {prog}: Cannot exec: No such file or directory\ntar (child): Error is not recoverable: exiting now\n"
        ));
        return Ok(o);
    }
    let archive = opts.file.clone().unwrap_or_else(|| OsString::from("-"));
    let on_stdout = archive == "-";
    let mut r = Run {
        ctx,
        o: Outcome::ok(),
        failed: false,
        warned: HashSet::new(),
        ugswidth: 19,
        list_to_err: (mode == Mode::Create && on_stdout) || opts.to_stdout,
    };
    // Names from `-T` files join the operands.
    for from in std::mem::take(&mut opts.files_from) {
        let data = if from == "-" {
            ctx.stdin.read_all().unwrap_or_default()
        } else {
            match ctx.fs.read(&ctx.resolve(&from)) {
                Ok(d) => d,
                Err(e) => {
                    r.o.err(format!(
                        "tar: {}: Cannot open: {e}\n{FATAL}",
                        shown(from.as_bytes())
                    ));
                    return Ok(r.o.with_status(2));
                }
            }
        };
        for line in data.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
            opts.operands
                .push((opts.dir.clone(), OsString::from_vec(line.to_vec())));
        }
    }
    if opts.auto && mode == Mode::Create {
        let b = archive.as_bytes();
        if b.ends_with(b".gz") || b.ends_with(b".tgz") || b.ends_with(b".taz") {
            opts.gzip = true;
        }
    }
    match mode {
        Mode::Create => create(&mut r, &opts, &archive)?,
        Mode::Extract | Mode::List => read_archive(&mut r, &opts, &archive, mode),
    }
    let mut o = r.o;
    if r.failed {
        o.err(FAILED);
        o.status = 2;
    }
    Ok(o)
}

// ---------------------------------------------------------------------------------------------
// Creation
// ---------------------------------------------------------------------------------------------

/// A GNU tar header block for one member (names too long for their fields get a
/// `././@LongLink` member first).
struct Header<'h> {
    name: &'h [u8],
    link: &'h [u8],
    kind: u8,
    perm: u32,
    uid: u32,
    gid: u32,
    uname: &'h str,
    gname: &'h str,
    size: u64,
    mtime: i64,
}

fn octal(field: &mut [u8], v: u64) {
    let width = field.len().saturating_sub(1);
    let s = format!("{v:0width$o}");
    let s = s.as_bytes();
    // A value too wide for its field keeps its low digits (sizes are capped well below).
    let s = s.get(s.len().saturating_sub(width)..).unwrap_or_default();
    if let Some(dst) = field.get_mut(..s.len()) {
        dst.copy_from_slice(s);
    }
    if let Some(last) = field.last_mut() {
        *last = 0;
    }
}

fn put(field: &mut [u8], bytes: &[u8]) {
    let n = bytes.len().min(field.len());
    if let (Some(dst), Some(src)) = (field.get_mut(..n), bytes.get(..n)) {
        dst.copy_from_slice(src);
    }
}

fn field(b: &mut [u8; 512], start: usize, len: usize) -> &mut [u8] {
    b.get_mut(start..start + len).unwrap_or_default()
}

fn block(h: &Header) -> [u8; 512] {
    let mut b = [0u8; 512];
    put(field(&mut b, 0, 100), h.name);
    octal(field(&mut b, 100, 8), u64::from(h.perm & 0o7777));
    octal(field(&mut b, 108, 8), u64::from(h.uid));
    octal(field(&mut b, 116, 8), u64::from(h.gid));
    octal(field(&mut b, 124, 12), h.size);
    octal(field(&mut b, 136, 12), h.mtime.max(0) as u64);
    put(field(&mut b, 148, 8), b"        ");
    put(field(&mut b, 156, 1), &[h.kind]);
    put(field(&mut b, 157, 100), h.link);
    put(field(&mut b, 257, 8), b"ustar  \0");
    put(field(&mut b, 265, 32), h.uname.as_bytes());
    put(field(&mut b, 297, 32), h.gname.as_bytes());
    let sum: u32 = b.iter().map(|&c| u32::from(c)).sum();
    put(field(&mut b, 148, 8), format!("{sum:06o}\0 ").as_bytes());
    b
}

/// The sink an archive is written to: plain or gzip, handed over in chunks.
enum Sink {
    Plain(Vec<u8>),
    Gzip(GzEncoder<Vec<u8>>),
}

impl Sink {
    fn write(&mut self, data: &[u8]) {
        // Writing into a vector cannot fail.
        let _ = match self {
            Sink::Plain(v) => v.write_all(data),
            Sink::Gzip(g) => g.write_all(data),
        };
    }
    fn buffered(&mut self) -> usize {
        match self {
            Sink::Plain(v) => v.len(),
            Sink::Gzip(g) => g.get_ref().len(),
        }
    }
    fn take(&mut self) -> Vec<u8> {
        match self {
            Sink::Plain(v) => std::mem::take(v),
            Sink::Gzip(g) => std::mem::take(g.get_mut()),
        }
    }
    fn finish(self) -> Vec<u8> {
        match self {
            Sink::Plain(v) => v,
            Sink::Gzip(g) => g.finish().unwrap_or_default(),
        }
    }
}

struct Writer<'w> {
    sink: Sink,
    /// Bytes of tar stream written (before compression), for the final padding.
    written: usize,
    /// Where the archive goes: `None` is stdout.
    path: Option<PathBuf>,
    shown_path: &'w [u8],
    started: bool,
}

impl Writer<'_> {
    fn write(&mut self, data: &[u8]) {
        self.sink.write(data);
        self.written += data.len();
    }
    fn member(&mut self, h: &Header, data: &[u8]) {
        let mut h2 = Header { ..*h };
        let long_name;
        let long_link;
        if h.link.len() > 100 {
            long_link = [h.link, b"\0"].concat();
            self.long(b'K', &long_link);
            h2.link = h.link.get(..100).unwrap_or_default();
        }
        if h.name.len() > 100 {
            long_name = [h.name, b"\0"].concat();
            self.long(b'L', &long_name);
            h2.name = h.name.get(..100).unwrap_or_default();
        }
        self.write(&block(&h2));
        self.write(data);
        self.pad();
    }
    fn long(&mut self, kind: u8, data: &[u8]) {
        let h = Header {
            name: b"././@LongLink",
            link: b"",
            kind,
            perm: 0o644,
            uid: 0,
            gid: 0,
            uname: "root",
            gname: "root",
            size: data.len() as u64,
            mtime: 0,
        };
        self.write(&block(&h));
        self.write(data);
        self.pad();
    }
    fn pad(&mut self) {
        let rem = self.written % 512;
        if rem != 0 {
            self.write(&vec![0u8; 512 - rem]);
        }
    }
    /// Hands over what was gathered, once there is enough of it (or `force`).
    fn flush(&mut self, r: &mut Run, force: bool) {
        if !force && self.sink.buffered() < CHUNK {
            return;
        }
        let data = self.sink.take();
        self.emit(r, data);
    }
    fn emit(&mut self, r: &mut Run, data: Vec<u8>) {
        match &self.path {
            None => {
                r.o.out(data);
                r.ctx.flush(&mut r.o);
            }
            Some(p) => {
                if self.started && data.is_empty() {
                    return;
                }
                let mut e = Effect::new(
                    Op::WriteFile {
                        path: p.clone(),
                        data,
                        append: self.started,
                    },
                    format!("tar: {}: Cannot open", shown(self.shown_path)),
                );
                e.fail_status = 2;
                r.o.effect(e);
                self.started = true;
                r.ctx.apply_now(&mut r.o);
            }
        }
    }
    fn finish(mut self, r: &mut Run) {
        // Two zero blocks, then zeros up to a whole record.
        let end = (self.written + 1024).div_ceil(RECORD) * RECORD;
        let zeros = vec![0u8; end - self.written];
        self.write(&zeros);
        let sink = std::mem::replace(&mut self.sink, Sink::Plain(Vec::new()));
        let rest = sink.finish();
        self.emit(r, rest);
    }
}

struct Creator<'c, 'w> {
    opts: &'c Opts,
    w: Writer<'w>,
    /// Files with more than one link already archived: (dev, ino) → member name.
    links: HashMap<(u64, u64), Vec<u8>>,
    /// The archive itself, as a lexical path (never archived into itself).
    archive_path: Option<PathBuf>,
}

fn create(run: &mut Run, opts: &Opts, archive: &OsString) -> Result<(), Stop> {
    let names: Vec<_> = opts
        .operands
        .iter()
        .filter(|(_, n)| !n.is_empty())
        .collect();
    if names.is_empty() {
        return Err(Stop::FailWith(
            format!("Cowardly refusing to create an empty archive\n{TRY}"),
            2,
        ));
    }
    let r = run;
    let path = (archive != "-").then(|| r.ctx.resolve(archive));
    if path.is_none() && r.ctx.stdout_is_tty {
        r.o.err(format!(
            "tar: Refusing to write archive contents to terminal (missing -f option?)\n{FATAL}"
        ));
        r.o.status = 2;
        return Ok(());
    }
    let sink = if opts.gzip {
        Sink::Gzip(GzEncoder::new(Vec::new(), Compression::default()))
    } else {
        Sink::Plain(Vec::new())
    };
    let mut creator = Creator {
        opts,
        w: Writer {
            sink,
            written: 0,
            path: path.clone(),
            shown_path: archive.as_bytes(),
            started: false,
        },
        links: HashMap::new(),
        archive_path: path.map(|p| crate::normalize_lexical(&p)),
    };
    for (dir, name) in names {
        if r.ctx.expired() {
            break;
        }
        let base = match dir {
            Some(d) => {
                let p = r.ctx.resolve(d);
                if !r.ctx.fs.stat(&p, true).is_ok_and(|m| m.is_dir()) {
                    let e = r
                        .ctx
                        .fs
                        .stat(&p, true)
                        .err()
                        .unwrap_or(FsError::NotADirectory);
                    r.o.err(format!(
                        "tar: {}: Cannot chdir: {e}\n{FATAL}",
                        shown(d.as_bytes())
                    ));
                    r.o.status = 2;
                    return Ok(());
                }
                p
            }
            None => r.ctx.cwd.to_path_buf(),
        };
        let disk = crate::resolve_against(&base, name);
        creator.add(r, &disk, name.as_bytes());
    }
    creator.w.finish(r);
    Ok(())
}

impl Creator<'_, '_> {
    fn add(&mut self, r: &mut Run, disk: &Path, name: &[u8]) {
        if !r.ctx.flush(&mut r.o) {
            return;
        }
        let meta = match r.ctx.fs.stat(disk, false) {
            Ok(m) => m,
            Err(e) => return r.err(&format!("{}: Cannot stat: {e}", shown(name))),
        };
        if excluded(&self.opts.excludes, name) {
            return;
        }
        if meta.is_file()
            && self
                .archive_path
                .as_ref()
                .is_some_and(|a| *a == crate::normalize_lexical(disk))
        {
            r.o.err(format!(
                "tar: {}: file is the archive; not dumped\n",
                shown(name)
            ));
            return;
        }
        let (member, prefix) = safer_name(name);
        if let Some(p) = prefix {
            r.notice(&p, false);
        }
        let mut member = member;
        if meta.is_dir() && !member.ends_with(b"/") {
            member.push(b'/');
        }
        let id = &r.ctx.identity;
        let (uname, gname) = (id.user.clone(), id.group.clone());
        let mtime = to_epoch(meta.mtime).0;
        let mut h = Header {
            name: &member,
            link: b"",
            kind: b'0',
            perm: meta.perm,
            uid: id.uid,
            gid: id.gid,
            uname: &uname,
            gname: &gname,
            size: 0,
            mtime,
        };
        let mut data = Vec::new();
        let target;
        let link_to;
        match meta.kind {
            FileKind::Dir => h.kind = b'5',
            FileKind::Symlink => {
                target = r.ctx.fs.read_link(disk).map(PathBuf::into_os_string);
                match &target {
                    Ok(t) => h.link = t.as_bytes(),
                    Err(e) => {
                        return r.err(&format!("{}: Cannot readlink: {e}", shown(name)));
                    }
                }
                h.kind = b'2';
            }
            FileKind::File => {
                if meta.nlink > 1 {
                    if let Some(first) = self.links.get(&(meta.dev, meta.ino)) {
                        link_to = first.clone();
                        h.kind = b'1';
                        h.link = &link_to;
                    } else {
                        self.links.insert((meta.dev, meta.ino), member.clone());
                    }
                }
                if h.kind == b'0' {
                    let read = r.ctx.fs.open(disk).and_then(|mut f| {
                        read_capped(&mut f, MEMBER_CAP)
                            .map_err(|e| FsError::from_io(&e))?
                            .ok_or(FsError::TooLarge)
                    });
                    match read {
                        Ok(d) => data = d,
                        Err(e) => {
                            return r.err(&format!("{}: Cannot open: {e}", shown(name)));
                        }
                    }
                    h.size = data.len() as u64;
                }
            }
            FileKind::Fifo => h.kind = b'6',
            FileKind::Socket => {
                r.o.err(format!("tar: {}: socket ignored\n", shown(name)));
                return;
            }
            FileKind::CharDevice(_) | FileKind::BlockDevice(_) => {
                return r.err(&format!("{}: Cannot open: Permission denied", shown(name)));
            }
        }
        match self.opts.verbose {
            0 => {}
            1 => {
                let slash = if meta.is_dir() && !name.ends_with(b"/") {
                    "/"
                } else {
                    ""
                };
                r.listing(format!("{}{slash}\n", shown(name)));
            }
            _ => {
                let mut shown_name = name.to_vec();
                if meta.is_dir() && !shown_name.ends_with(b"/") {
                    shown_name.push(b'/');
                }
                let line = r.long_line(&Listed {
                    name: shown_name,
                    link: h.link.to_vec(),
                    kind: h.kind,
                    perm: h.perm,
                    uid: u64::from(h.uid),
                    gid: u64::from(h.gid),
                    uname: uname.as_bytes().to_vec(),
                    gname: gname.as_bytes().to_vec(),
                    size: h.size,
                    mtime,
                    dev: (0, 0),
                });
                r.listing(line);
            }
        }
        self.w.member(&h, &data);
        drop(data);
        self.w.flush(r, false);
        if meta.is_dir() {
            let entries = match r.ctx.fs.read_dir(disk) {
                Ok(v) => v,
                Err(e) => return r.err(&format!("{}: Cannot open: {e}", shown(name))),
            };
            for ent in entries {
                let mut child = name.to_vec();
                if !child.ends_with(b"/") {
                    child.push(b'/');
                }
                child.extend_from_slice(ent.name.as_bytes());
                self.add(r, &disk.join(&ent.name), &child);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Listing and extraction
// ---------------------------------------------------------------------------------------------

/// Opens the archive and says whether it is gzip-compressed; `Err` has been reported.
fn open_archive<'a>(
    r: &mut Run<'a>,
    opts: &Opts,
    archive: &OsString,
) -> Option<Box<dyn Read + 'a>> {
    let ctx = r.ctx;
    let (mut raw, seekable): (Box<dyn Read + 'a>, bool) = if archive == "-" {
        (Box::new(ctx.stdin), false)
    } else {
        match ctx.fs.open(&ctx.resolve(archive)) {
            Ok(f) => (Box::new(f), true),
            Err(e) => {
                r.o.err(format!(
                    "tar: {}: Cannot open: {e}\n{FATAL}",
                    shown(archive.as_bytes())
                ));
                r.o.status = 2;
                return None;
            }
        }
    };
    let mut head = Vec::new();
    let _ = (&mut raw).take(512).read_to_end(&mut head);
    let gz = head.starts_with(&GZIP_MAGIC);
    let chained: Box<dyn Read + 'a> = Box::new(Cursor::new(head).chain(raw));
    if opts.gzip {
        if !gz {
            r.o.err(format!(
                "gzip: stdin: not in gzip format\ntar: Child returned status 1\n{FATAL}"
            ));
            r.o.status = 2;
            return None;
        }
        return Some(Box::new(MultiGzDecoder::new(chained)));
    }
    if gz {
        if !seekable {
            r.o.err(format!(
                "tar: Archive is compressed. Use -z option\n{FATAL}"
            ));
            r.o.status = 2;
            return None;
        }
        return Some(Box::new(MultiGzDecoder::new(chained)));
    }
    Some(chained)
}

/// What extraction remembers between members.
struct Extractor<'e> {
    base: PathBuf,
    /// Members extracted so far (names relative to `base`): hard links may point to them.
    extracted: HashSet<Vec<u8>>,
    /// Directories known to exist or asked for.
    dirs: HashSet<Vec<u8>>,
    /// Symlinks made at the end (absolute or climbing targets): name → target.
    delayed: Vec<(Vec<u8>, Vec<u8>)>,
    delayed_names: HashSet<Vec<u8>>,
    /// Directories whose mode and time are set at the end.
    dir_stats: Vec<(PathBuf, u32, SystemTime)>,
    total: u64,
    opts: &'e Opts,
}

fn read_archive(run: &mut Run, opts: &Opts, archive: &OsString, mode: Mode) {
    let r = run;
    let base = match &opts.dir {
        Some(d) if mode == Mode::Extract => {
            let p = r.ctx.resolve(d);
            match r.ctx.fs.stat(&p, true) {
                Ok(m) if m.is_dir() => p,
                res => {
                    let e = res.err().unwrap_or(FsError::NotADirectory);
                    r.o.err(format!(
                        "tar: {}: Cannot open: {e}\n{FATAL}",
                        shown(d.as_bytes())
                    ));
                    r.o.status = 2;
                    return;
                }
            }
        }
        _ => r.ctx.cwd.to_path_buf(),
    };
    let Some(reader) = open_archive(r, opts, archive) else {
        return;
    };
    let wanted: Vec<Vec<u8>> = opts
        .operands
        .iter()
        .filter(|(_, n)| !n.is_empty())
        .map(|(_, n)| {
            let b = n.as_bytes();
            b.strip_suffix(b"/").unwrap_or(b).to_vec()
        })
        .collect();
    let mut found = vec![false; wanted.len()];
    let mut ext = Extractor {
        base,
        extracted: HashSet::new(),
        dirs: HashSet::new(),
        delayed: Vec::new(),
        delayed_names: HashSet::new(),
        dir_stats: Vec::new(),
        total: 0,
        opts,
    };
    let mut ar = tar::Archive::new(reader);
    let Ok(entries) = ar.entries() else {
        r.err("This does not look like a tar archive");
        return;
    };
    for (seen, entry) in entries.enumerate() {
        if !r.ctx.flush(&mut r.o) {
            return;
        }
        let Ok(mut entry) = entry else {
            if seen == 0 {
                r.err("This does not look like a tar archive");
            } else {
                r.o.err(format!("tar: Unexpected EOF in archive\n{FATAL}"));
                r.o.status = 2;
                r.failed = false;
                ext.finish(r);
                return;
            }
            break;
        };
        let h = entry.header();
        let raw_name = entry.path_bytes().into_owned();
        let link = entry
            .link_name_bytes()
            .map(std::borrow::Cow::into_owned)
            .unwrap_or_default();
        let listed = Listed {
            name: raw_name.clone(),
            link: link.clone(),
            kind: h.entry_type().as_byte(),
            perm: h.mode().unwrap_or(0o644),
            uid: h.uid().unwrap_or(0),
            gid: h.gid().unwrap_or(0),
            uname: h.username_bytes().map(<[u8]>::to_vec).unwrap_or_default(),
            gname: h.groupname_bytes().map(<[u8]>::to_vec).unwrap_or_default(),
            size: entry.size(),
            mtime: h.mtime().unwrap_or(0) as i64,
            dev: (
                h.device_major().ok().flatten().unwrap_or(0),
                h.device_minor().ok().flatten().unwrap_or(0),
            ),
        };
        let (safe, prefix) = safer_name(&raw_name);
        if let Some(p) = prefix {
            r.notice(&p, false);
        }
        let mut listed = listed;
        if listed.kind == b'1' {
            let (t, p) = safer_name(&link);
            if let Some(p) = p {
                r.notice(&p, true);
            }
            listed.link = t;
        }
        if !wanted.is_empty() {
            let name = safe.strip_suffix(b"/").unwrap_or(&safe);
            let hit = wanted.iter().position(|w| {
                name == w.as_slice() || (name.starts_with(w) && name.get(w.len()) == Some(&b'/'))
            });
            match hit {
                Some(i) => {
                    if let Some(f) = found.get_mut(i) {
                        *f = true;
                    }
                }
                None => continue,
            }
        }
        if excluded(&opts.excludes, &safe) {
            continue;
        }
        if mode == Mode::List {
            if opts.verbose > 0 {
                let text = r.long_line(&listed);
                r.o.out(text);
            } else {
                r.o.out(format!("{}\n", shown(&raw_name)));
            }
            continue;
        }
        if has_dotdot(&raw_name) {
            r.err(&format!("{}: Member name contains '..'", shown(&raw_name)));
            continue;
        }
        let Some(name) = strip_components(&safe, opts.strip) else {
            continue;
        };
        match opts.verbose {
            0 => {}
            1 => r.listing(format!("{}\n", shown(&raw_name))),
            _ => {
                let text = r.long_line(&listed);
                r.listing(text);
            }
        }
        if !ext.member(r, &mut entry, &name, &listed) {
            return;
        }
        r.ctx.apply_now(&mut r.o);
    }
    if mode == Mode::Extract {
        ext.finish(r);
    }
    for (w, f) in wanted.iter().zip(found) {
        if !f {
            r.err(&format!("{}: Not found in archive", shown(w)));
        }
    }
}

impl Extractor<'_> {
    fn path(&self, name: &[u8]) -> PathBuf {
        let name = name.strip_suffix(b"/").unwrap_or(name);
        self.base.join(std::ffi::OsStr::from_bytes(name))
    }

    /// Whether a name passes through a link made only at the end (GNU's placeholder file).
    fn through_delayed(&self, name: &[u8]) -> bool {
        name.iter()
            .enumerate()
            .filter(|(_, c)| **c == b'/')
            .any(|(i, _)| {
                self.delayed_names
                    .contains(name.get(..i).unwrap_or_default())
            })
    }

    /// Asks for the missing parent directories of a member.
    fn parents(&mut self, r: &mut Run, name: &[u8]) {
        let trimmed = name.strip_suffix(b"/").unwrap_or(name);
        let ends: Vec<usize> = trimmed
            .iter()
            .enumerate()
            .filter(|(_, c)| **c == b'/')
            .map(|(i, _)| i)
            .collect();
        for end in ends {
            let dir = trimmed.get(..end).unwrap_or_default().to_vec();
            if dir.is_empty() || self.dirs.contains(&dir) {
                continue;
            }
            let p = self.path(&dir);
            if !r.ctx.fs.stat(&p, true).is_ok_and(|m| m.is_dir()) {
                let mut e = Effect::new(
                    Op::CreateDir {
                        path: p,
                        mode: None,
                        exist_ok: true,
                    },
                    format!("tar: {}: Cannot mkdir", shown(&dir)),
                );
                e.fail_status = 2;
                r.o.effect(e);
            }
            self.dirs.insert(dir);
        }
    }

    /// Makes room for a new object: `Err` when something is there and must stay (`-k`).
    fn clear(&mut self, r: &mut Run, name: &[u8], path: &Path, what: &str) -> Result<(), bool> {
        let Ok(meta) = r.ctx.fs.stat(path, false) else {
            return Ok(());
        };
        if self.opts.skip_old {
            return Err(false);
        }
        if self.opts.keep_old {
            r.err(&format!("{}: {what}: File exists", shown(name)));
            return Err(false);
        }
        if meta.is_dir() {
            r.err(&format!("{}: {what}: Is a directory", shown(name)));
            return Err(false);
        }
        r.o.effect(Effect {
            op: Op::Trash {
                path: path.to_path_buf(),
            },
            on_ok: None,
            on_err: None,
            fail_status: 2,
        });
        Ok(())
    }

    fn perm(&self, perm: u32) -> u32 {
        if self.opts.keep_perms {
            perm & 0o7777
        } else {
            perm & 0o7777 & !UMASK
        }
    }

    /// Extracts one member. False: stop (the cap was reached; reported).
    fn member(&mut self, r: &mut Run, entry: &mut dyn Read, name: &[u8], h: &Listed) -> bool {
        let kind = h.kind;
        if self.opts.to_stdout {
            if matches!(kind, b'0' | 0 | b'7') {
                match self.read_data(r, entry, name) {
                    Some(d) => {
                        r.o.out(d);
                    }
                    None => return false,
                }
            }
            return true;
        }
        let path = self.path(name);
        let mtime = SystemTime::UNIX_EPOCH + Duration::from_secs(h.mtime.max(0) as u64);
        if self.through_delayed(name) {
            let what = if kind == b'5' {
                "Cannot mkdir"
            } else {
                "Cannot open"
            };
            r.err(&format!("{}: {what}: Not a directory", shown(name)));
            return true;
        }
        self.parents(r, name);
        let trimmed = name.strip_suffix(b"/").unwrap_or(name).to_vec();
        match kind {
            b'5' => {
                if !self.dirs.contains(&trimmed)
                    && !r.ctx.fs.stat(&path, false).is_ok_and(|m| m.is_dir())
                {
                    let mut e = Effect::new(
                        Op::CreateDir {
                            path: path.clone(),
                            mode: None,
                            exist_ok: true,
                        },
                        format!("tar: {}: Cannot mkdir", shown(name)),
                    );
                    e.fail_status = 2;
                    r.o.effect(e);
                }
                self.dirs.insert(trimmed.clone());
                self.dir_stats.push((path, self.perm(h.perm), mtime));
            }
            b'2' => {
                if self
                    .clear(r, name, &path, "Cannot create symlink to")
                    .is_err()
                {
                    return true;
                }
                let target = &h.link;
                if target.starts_with(b"/") || has_dotdot(target) {
                    self.delayed.push((trimmed.clone(), target.clone()));
                    self.delayed_names.insert(trimmed.clone());
                } else {
                    let mut e = Effect::new(
                        Op::Symlink {
                            path,
                            target: PathBuf::from(std::ffi::OsStr::from_bytes(target)),
                        },
                        format!(
                            "tar: {}: Cannot create symlink to {}",
                            shown(name),
                            crate::quote(std::ffi::OsStr::from_bytes(target))
                        ),
                    );
                    e.fail_status = 2;
                    r.o.effect(e);
                }
            }
            b'1' => {
                let Some(target) = strip_components(&h.link, self.opts.strip) else {
                    return true;
                };
                let target_t = target.strip_suffix(b"/").unwrap_or(&target).to_vec();
                let q = crate::quote(std::ffi::OsStr::from_bytes(&target));
                if !self.extracted.contains(&target_t) || self.through_delayed(&target_t) {
                    r.err(&format!(
                        "{}: Cannot hard link to {q}: No such file or directory",
                        shown(name)
                    ));
                    return true;
                }
                if self.clear(r, name, &path, "Cannot hard link to").is_err() {
                    return true;
                }
                let mut e = Effect::new(
                    Op::HardLink {
                        from: self.path(&target_t),
                        to: path,
                    },
                    format!("tar: {}: Cannot hard link to {q}", shown(name)),
                );
                e.fail_status = 2;
                r.o.effect(e);
            }
            b'0' | 0 | b'7' => {
                let Some(data) = self.read_data(r, entry, name) else {
                    return false;
                };
                if self.clear(r, name, &path, "Cannot open").is_err() {
                    return true;
                }
                let shown_name = shown(name);
                let mut e = Effect::new(
                    Op::WriteFile {
                        path: path.clone(),
                        data,
                        append: false,
                    },
                    format!("tar: {shown_name}: Cannot open"),
                );
                e.fail_status = 2;
                r.o.effect(e);
                for op in [
                    Op::SetMode {
                        path: path.clone(),
                        mode: self.perm(h.perm),
                    },
                    Op::Touch {
                        path,
                        atime: None,
                        mtime: Some(mtime),
                        create: false,
                    },
                ] {
                    r.o.effect(Effect {
                        op,
                        on_ok: None,
                        on_err: None,
                        fail_status: 2,
                    });
                }
            }
            b'3' | b'4' | b'6' => {
                r.err(&format!(
                    "{}: Cannot mknod: Operation not permitted",
                    shown(name)
                ));
                return true;
            }
            _ => {
                r.o.err(format!(
                    "tar: {}: Unknown file type '{}', extracted as normal file\n",
                    shown(name),
                    char::from(kind)
                ));
                return self.member(
                    r,
                    entry,
                    name,
                    &Listed {
                        kind: b'0',
                        name: h.name.clone(),
                        link: Vec::new(),
                        uname: Vec::new(),
                        gname: Vec::new(),
                        ..*h
                    },
                );
            }
        }
        self.extracted.insert(trimmed);
        true
    }

    /// A member's data, within the caps; `None` once a cap is reached (reported, status 2).
    fn read_data(&mut self, r: &mut Run, entry: &mut dyn Read, name: &[u8]) -> Option<Vec<u8>> {
        let cap = MEMBER_CAP.min(TOTAL_CAP.saturating_sub(self.total));
        match read_capped(entry, cap) {
            Ok(Some(d)) => {
                self.total += d.len() as u64;
                Some(d)
            }
            Ok(None) => {
                r.o.err(format!(
                    "tar: {}: Cannot write: Disk quota exceeded\n{FATAL}",
                    shown(name)
                ));
                r.o.status = 2;
                r.failed = false;
                None
            }
            Err(_) => {
                r.o.err(format!("tar: Unexpected EOF in archive\n{FATAL}"));
                r.o.status = 2;
                r.failed = false;
                None
            }
        }
    }

    /// What GNU does last: the delayed links, then the directories' modes and times.
    fn finish(&mut self, r: &mut Run) {
        for (name, target) in std::mem::take(&mut self.delayed) {
            let path = self.path(&name);
            let q = crate::quote(std::ffi::OsStr::from_bytes(&target));
            let mut e = Effect::new(
                Op::Symlink {
                    path,
                    target: PathBuf::from(OsString::from_vec(target)),
                },
                format!("tar: {}: Cannot create symlink to {q}", shown(&name)),
            );
            e.fail_status = 2;
            r.o.effect(e);
        }
        for (path, mode, mtime) in std::mem::take(&mut self.dir_stats).into_iter().rev() {
            for op in [
                Op::SetMode {
                    path: path.clone(),
                    mode,
                },
                Op::Touch {
                    path,
                    atime: None,
                    mtime: Some(mtime),
                    create: false,
                },
            ] {
                r.o.effect(Effect {
                    op,
                    on_ok: None,
                    on_err: None,
                    fail_status: 2,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::CommandName::Tar;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .dir("/s/d/s")
                .file("/s/d/a", b"hello\n")
                .file("/s/d/s/b", b"x")
                .symlink("/s/d/l", "a"),
        )
    }

    /// A raw archive of the given (name, type, link, data) members, names taken as they are.
    fn raw(members: &[(&str, u8, &str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        for &(name, kind, link, data) in members {
            let h = Header {
                name: name.as_bytes(),
                link: link.as_bytes(),
                kind,
                perm: 0o644,
                uid: 1000,
                gid: 1000,
                uname: "user",
                gname: "user",
                size: data.len() as u64,
                mtime: 1_700_000_000,
            };
            out.extend_from_slice(&block(&h));
            out.extend_from_slice(data);
            out.resize(out.len().div_ceil(512) * 512, 0);
        }
        out.resize(out.len() + 1024, 0);
        out
    }

    #[test]
    fn names_made_safe_as_gnu() {
        assert_eq!(safer_name(b"/abs"), (b"abs".to_vec(), Some(b"/".to_vec())));
        assert_eq!(
            safer_name(b"a/../../y"),
            (b"y".to_vec(), Some(b"a/../../".to_vec()))
        );
        assert_eq!(safer_name(b"ok/x"), (b"ok/x".to_vec(), None));
        assert_eq!(safer_name(b"/"), (b".".to_vec(), Some(b"/".to_vec())));
        assert!(has_dotdot(b"a/../b") && !has_dotdot(b"a..b/c"));
        assert_eq!(strip_components(b"d/s/b", 1), Some(b"s/b".to_vec()));
        assert_eq!(strip_components(b"d/", 1), None);
        assert!(excluded(&[b"s".to_vec()], b"d/s/"));
        assert!(excluded(&[b"*.o".to_vec()], b"d/x.o"));
        assert!(!excluded(&[b"s".to_vec()], b"d/sx"));
    }

    #[test]
    fn usage_errors_as_gnu() {
        let w = world();
        let cases: &[(&[&str], &str, i32)] = &[
            (
                &[],
                "tar: You must specify one of the '-Acdtrux', '--delete' or '--test-label' options\nTry 'tar --help' or 'tar --usage' for more information.\n",
                2,
            ),
            (
                &["-y"],
                "tar: invalid option -- 'y'\nTry 'tar --help' or 'tar --usage' for more information.\n",
                64,
            ),
            (
                &["-cf"],
                "tar: option requires an argument -- 'f'\nTry 'tar --help' or 'tar --usage' for more information.\n",
                64,
            ),
            (
                &["--list", "--fi", "x"],
                "tar: option '--fi' is ambiguous; possibilities: '--file' '--files-from'\nTry 'tar --help' or 'tar --usage' for more information.\n",
                64,
            ),
            (
                &["cf", "x.tar"],
                "tar: Cowardly refusing to create an empty archive\nTry 'tar --help' or 'tar --usage' for more information.\n",
                2,
            ),
            (
                &["-ct"],
                "tar: You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option\nTry 'tar --help' or 'tar --usage' for more information.\n",
                2,
            ),
            (
                &["xf", "nope.tar"],
                "tar: nope.tar: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now\n",
                2,
            ),
        ];
        for (args, err, status) in cases {
            let o = w.run(Tar, args);
            assert_eq!(
                text(&o),
                (String::new(), (*err).to_string(), *status),
                "{args:?}"
            );
        }
    }

    #[test]
    fn create_then_list_and_extract() {
        let w = world();
        let o = w.run(Tar, &["cvf", "-", "d"]);
        assert_eq!(o.status, 0);
        // The names go to stderr when the archive is on stdout.
        assert_eq!(text(&o).1, "d/\nd/s/\nd/s/b\nd/a\nd/l\n");
        let archive = o.stdout();
        assert_eq!(archive.len() % RECORD, 0);
        let listed = World::new(MemFs::rooted("/s"))
            .stdin(&archive)
            .run(Tar, &["tf", "-"]);
        assert_eq!(text(&listed).0, "d/\nd/s/\nd/s/b\nd/a\nd/l\n");
        let long = World::new(MemFs::rooted("/s"))
            .stdin(&archive)
            .run(Tar, &["-tvf", "-"]);
        assert!(
            text(&long)
                .0
                .contains("lrwxrwxrwx user/user         0 2024-01-02 03:04 d/l -> a\n")
                || text(&long).0.contains(" d/l -> a\n"),
            "{:?}",
            text(&long)
        );
        let x = World::new(MemFs::rooted("/s"))
            .stdin(&archive)
            .run(Tar, &["-x", "--strip-components=1"]);
        let got = ops(&x);
        assert!(got.contains(&Op::WriteFile {
            path: PathBuf::from("/s/a"),
            data: b"hello\n".to_vec(),
            append: false
        }));
        assert!(got.contains(&Op::Symlink {
            path: PathBuf::from("/s/l"),
            target: PathBuf::from("a")
        }));
        // `-O`: the contents, nothing written.
        let o = World::new(MemFs::rooted("/s"))
            .stdin(&archive)
            .run(Tar, &["xOf", "-", "d/a"]);
        assert_eq!(text(&o), ("hello\n".into(), String::new(), 0));
        assert!(ops(&o).is_empty());
    }

    #[test]
    fn gzip_round_trip() {
        let w = world();
        let o = w.run(Tar, &["czf", "-", "d/a"]);
        assert!(o.stdout().starts_with(&GZIP_MAGIC));
        let z = o.stdout();
        // From a pipe a compressed archive needs `-z`; a file is recognised.
        let o = World::new(MemFs::rooted("/s"))
            .stdin(&z)
            .run(Tar, &["tf", "-"]);
        assert_eq!(
            text(&o).1,
            "tar: Archive is compressed. Use -z option\ntar: Error is not recoverable: exiting now\n"
        );
        let o = World::new(MemFs::rooted("/s").file("/s/a.tgz", &z)).run(Tar, &["tf", "a.tgz"]);
        assert_eq!(text(&o), ("d/a\n".into(), String::new(), 0));
    }

    #[test]
    fn hostile_members_stay_inside() {
        let ar = raw(&[
            ("../x", b'0', "", b"x\n"),
            ("/abs", b'0', "", b"x\n"),
            ("l", b'2', "/tmp", b""),
            ("l/pwned", b'0', "", b"x\n"),
            ("h", b'1', "../x", b""),
            ("ok", b'0', "", b"x\n"),
        ]);
        let o = World::new(MemFs::rooted("/s"))
            .stdin(&ar)
            .run(Tar, &["xf", "-"]);
        assert_eq!(
            text(&o).1,
            "tar: Removing leading `../' from member names\n\
             tar: ../x: Member name contains '..'\n\
             tar: Removing leading `/' from member names\n\
             tar: l/pwned: Cannot open: Not a directory\n\
             tar: Removing leading `../' from hard link targets\n\
             tar: h: Cannot hard link to 'x': No such file or directory\n\
             tar: Exiting with failure status due to previous errors\n"
        );
        assert_eq!(o.status, 2);
        let paths: Vec<PathBuf> = ops(&o)
            .into_iter()
            .filter_map(|op| match op {
                Op::WriteFile { path, .. } | Op::Symlink { path, .. } => Some(path),
                _ => None,
            })
            .collect();
        assert_eq!(
            paths,
            [
                PathBuf::from("/s/abs"),
                PathBuf::from("/s/ok"),
                PathBuf::from("/s/l")
            ]
        );
    }

    #[test]
    fn keep_old_and_not_found() {
        let ar = raw(&[("d/a", b'0', "", b"new\n")]);
        let o = world().stdin(&ar).run(Tar, &["xkf", "-"]);
        assert_eq!(
            text(&o).1,
            "tar: d/a: Cannot open: File exists\ntar: Exiting with failure status due to previous errors\n"
        );
        let o = World::new(MemFs::rooted("/s"))
            .stdin(&ar)
            .run(Tar, &["tf", "-", "nope", "d"]);
        assert_eq!(
            text(&o),
            (
                "d/a\n".into(),
                "tar: nope: Not found in archive\ntar: Exiting with failure status due to previous errors\n".into(),
                2
            )
        );
    }
}
