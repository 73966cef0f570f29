//! `stat [-L] [-f] [-t] [-c FORMAT | --printf FORMAT] FILE...`, GNU coreutils 9.1: the
//! default forms (file, directory, link, fifo, device; file system), the terse forms and
//! every `%` directive GNU knows, with printf flags, width and precision.
//!
//! Owner and group are the sandbox's identity, never the host's; the birth time is unknown
//! (`%w` is `-`, `%W` is `0`); no security context (`%C` is `?`). The file system (`-f`) is
//! the one `df` shows: tmpfs, 4096-byte blocks, sized by the quotas ([`Ctx::disk_usage`]). A
//! link's text (`%N`) shows only under [`shown_link_target`]'s rule.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::SystemTime;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::datetime::{Zone, broken_down, session_zone, to_epoch};
use crate::support::mode::perm_string;
use crate::support::paths::shown_link_target;
use crate::{Ctx, DevNum, DiskUsage, FileKind, Meta, Outcome, quote};

const DEFAULT: &[u8] = b"  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n\
Device: %Hd,%Ld\tInode: %-11i Links: %h\n\
Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n\
Access: %x\nModify: %y\nChange: %z\n Birth: %w\n";
const DEFAULT_DEV: &[u8] = b"  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n\
Device: %Hd,%Ld\tInode: %-11i Links: %-5h Device type: %Hr,%Lr\n\
Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n\
Access: %x\nModify: %y\nChange: %z\n Birth: %w\n";
const TERSE: &[u8] = b"%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o\n";
const FS_DEFAULT: &[u8] = b"  File: \"%n\"\n    ID: %-8i Namelen: %-7l Type: %T\n\
Block size: %-10s Fundamental block size: %S\n\
Blocks: Total: %-10b Free: %-10f Available: %a\n\
Inodes: Total: %-10c Free: %d\n";
const FS_TERSE: &[u8] = b"%n %i %l %t %s %S %b %f %a %c %d\n";

/// The sandbox file system's id for `-f`; its figures are `df`'s ([`Ctx::disk_usage`]: the
/// quotas, in blocks of 4096 bytes), its type tmpfs.
const FS_ID: u64 = 0x1f2e_3d4c_5b6a_7988;
const TMPFS_MAGIC: u64 = 0x0102_1994;

/// Display file or file system status.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "stat [OPTION]... FILE...")]
pub struct StatArgs {
    /// follow links
    #[arg(short = 'L', long = "dereference")]
    dereference: bool,
    /// display file system status instead of file status
    #[arg(short = 'f', long = "file-system")]
    file_system: bool,
    /// use the specified FORMAT instead of the default; output a newline after each use of
    /// FORMAT
    #[arg(short = 'c', long = "format", value_name = "FORMAT")]
    format: Option<OsString>,
    /// like --format, but interpret backslash escapes, and do not output a mandatory
    /// trailing newline
    #[arg(long = "printf", value_name = "FORMAT")]
    printf: Option<OsString>,
    /// print the information in terse form
    #[arg(short = 't', long = "terse")]
    terse: bool,
    /// how to get file attributes (accepted, ignored)
    #[arg(long = "cached", value_name = "MODE")]
    cached: Option<String>,
    files: Vec<OsString>,
}

/// What one directive expands to (`None`: unknown, shown as `?`).
type Directive<'a> = dyn Fn(u8, &Spec) -> Option<Vec<u8>> + 'a;
/// The same for `%H?`/`%L?` (`true`: the major).
type SplitDirective<'a> = dyn Fn(bool, u8, &Spec) -> Option<Vec<u8>> + 'a;

/// One directive's value.
enum Val {
    Int(i128),
    Hex(u64),
    Str(Vec<u8>),
}

/// A directive's printf specification.
#[derive(Default)]
struct Spec {
    left: bool,
    zero: bool,
    plus: bool,
    space: bool,
    alt: bool,
    width: usize,
    prec: Option<usize>,
}

fn pad(body: Vec<u8>, s: &Spec, zero_ok: bool) -> Vec<u8> {
    if body.len() >= s.width {
        return body;
    }
    let fill = s.width - body.len();
    if s.left {
        let mut b = body;
        b.extend(std::iter::repeat_n(b' ', fill));
        return b;
    }
    if s.zero && zero_ok {
        // Zeros go after a sign or `0x`.
        let lead = match body.first() {
            Some(b'-' | b'+' | b' ') => 1,
            _ if body.starts_with(b"0x") => 2,
            _ => 0,
        };
        let mut b = body.get(..lead).unwrap_or_default().to_vec();
        b.extend(std::iter::repeat_n(b'0', fill));
        b.extend_from_slice(body.get(lead..).unwrap_or_default());
        return b;
    }
    let mut b = vec![b' '; fill];
    b.extend(body);
    b
}

fn render(v: Val, s: &Spec) -> Vec<u8> {
    match v {
        Val::Int(n) => {
            let mut t = n.unsigned_abs().to_string();
            if let Some(p) = s.prec
                && t.len() < p
            {
                t = format!("{}{t}", "0".repeat(p - t.len()));
            }
            let sign = if n < 0 {
                "-"
            } else if s.plus {
                "+"
            } else if s.space {
                " "
            } else {
                ""
            };
            pad(format!("{sign}{t}").into_bytes(), s, s.prec.is_none())
        }
        Val::Hex(n) => {
            let t = if s.alt && n != 0 {
                format!("0x{n:x}")
            } else {
                format!("{n:x}")
            };
            pad(t.into_bytes(), s, s.prec.is_none())
        }
        Val::Str(mut b) => {
            if let Some(p) = s.prec {
                b.truncate(p);
            }
            pad(b, s, false)
        }
    }
}

/// `st_mode`'s type bits.
fn type_bits(k: FileKind) -> u32 {
    match k {
        FileKind::File => 0o100_000,
        FileKind::Dir => 0o040_000,
        FileKind::Symlink => 0o120_000,
        FileKind::Fifo => 0o010_000,
        FileKind::Socket => 0o140_000,
        FileKind::CharDevice(_) => 0o020_000,
        FileKind::BlockDevice(_) => 0o060_000,
    }
}

fn type_name(m: &Meta) -> &'static str {
    match m.kind {
        FileKind::File if m.len == 0 => "regular empty file",
        FileKind::File => "regular file",
        FileKind::Dir => "directory",
        FileKind::Symlink => "symbolic link",
        FileKind::Fifo => "fifo",
        FileKind::Socket => "socket",
        FileKind::CharDevice(_) => "character special file",
        FileKind::BlockDevice(_) => "block special file",
    }
}

fn rdev(k: FileKind) -> DevNum {
    match k {
        FileKind::CharDevice(d) | FileKind::BlockDevice(d) => d,
        _ => DevNum { major: 0, minor: 0 },
    }
}

/// `2026-11-24 19:22:16.512437523 +0000` in the session's zone.
fn human_time(t: SystemTime, zone: &Zone) -> Vec<u8> {
    let (secs, nsec) = to_epoch(t);
    let tm = broken_down(secs, nsec, zone);
    let off = zone.offset;
    let sign = if off < 0 { '-' } else { '+' };
    let a = off.unsigned_abs();
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:09} {sign}{:02}{:02}",
        tm.year,
        tm.month,
        tm.day,
        tm.hour,
        tm.min,
        tm.sec,
        nsec,
        a / 3600,
        a / 60 % 60
    )
    .into_bytes()
}

/// Seconds since the epoch, with `prec` digits of its fraction (`%.3Y`).
fn epoch_time(t: SystemTime, s: &Spec) -> Vec<u8> {
    let (secs, nsec) = to_epoch(t);
    let Some(p) = s.prec else {
        return render(Val::Int(i128::from(secs)), s);
    };
    let frac = format!("{nsec:09}");
    let mut digits = frac.get(..p.min(9)).unwrap_or_default().to_string();
    digits.extend(std::iter::repeat_n('0', p.saturating_sub(9)));
    let body = if digits.is_empty() {
        secs.to_string()
    } else {
        format!("{secs}.{digits}")
    };
    let spec = Spec {
        prec: None,
        ..Spec {
            left: s.left,
            zero: s.zero,
            plus: s.plus,
            space: s.space,
            alt: s.alt,
            width: s.width,
            prec: None,
        }
    };
    let sign = if s.plus && secs >= 0 { "+" } else { "" };
    pad(format!("{sign}{body}").into_bytes(), &spec, true)
}

struct Target<'a> {
    name: &'a OsStr,
    path: &'a Path,
    meta: &'a Meta,
    /// `%N` of the default form: names as they are, not quoted.
    literal: bool,
}

#[allow(clippy::many_single_char_names)] // c, s, m, v, f: directive, spec, meta, value, format
fn file_directive(ctx: &Ctx, t: &Target, c: u8, s: &Spec, zone: &Zone) -> Option<Vec<u8>> {
    let m = t.meta;
    let v = match c {
        b'a' => {
            let oct = format!("{:o}", m.perm);
            let oct = if s.alt && m.perm != 0 {
                format!("0{oct}")
            } else {
                oct
            };
            return Some(pad(oct.into_bytes(), s, true));
        }
        b'A' => {
            let mut a = String::new();
            a.push(m.kind.letter());
            a.push_str(&perm_string(m.perm));
            Val::Str(a.into_bytes())
        }
        b'b' => Val::Int(i128::from(m.blocks)),
        b'B' => Val::Int(512),
        b'C' => Val::Str(b"?".to_vec()),
        b'd' => Val::Int(i128::from(m.dev)),
        b'D' => Val::Hex(m.dev),
        b'f' => Val::Hex(u64::from(type_bits(m.kind) | m.perm)),
        b'F' => Val::Str(type_name(m).as_bytes().to_vec()),
        b'g' => Val::Int(i128::from(ctx.identity.gid)),
        b'G' => Val::Str(ctx.identity.group.clone().into_bytes()),
        b'h' => Val::Int(i128::from(m.nlink)),
        b'i' => Val::Int(i128::from(m.ino)),
        b'm' => Val::Str(ctx.mount_point.as_os_str().as_bytes().to_vec()),
        b'n' => Val::Str(t.name.as_bytes().to_vec()),
        b'N' => {
            let q = |n: &OsStr| {
                if t.literal {
                    n.as_bytes().to_vec()
                } else {
                    quote(n).into_bytes()
                }
            };
            let mut n = q(t.name);
            if m.kind == FileKind::Symlink
                && let Some(text) = shown_link_target(ctx, t.path)
            {
                n.extend_from_slice(b" -> ");
                n.extend(q(&text));
            }
            Val::Str(n)
        }
        b'o' => Val::Int(4096),
        b's' => Val::Int(i128::from(m.len)),
        b't' => Val::Hex(u64::from(rdev(m.kind).major)),
        b'T' => Val::Hex(u64::from(rdev(m.kind).minor)),
        b'u' => Val::Int(i128::from(ctx.identity.uid)),
        b'U' => Val::Str(ctx.identity.user.clone().into_bytes()),
        b'w' => Val::Str(b"-".to_vec()),
        b'W' => Val::Int(0),
        b'x' => Val::Str(human_time(m.atime, zone)),
        b'y' => Val::Str(human_time(m.mtime, zone)),
        b'z' => Val::Str(human_time(m.ctime, zone)),
        b'X' => return Some(epoch_time(m.atime, s)),
        b'Y' => return Some(epoch_time(m.mtime, s)),
        b'Z' => return Some(epoch_time(m.ctime, s)),
        _ => return None,
    };
    Some(render(v, s))
}

/// `%Hd %Ld %Hr %Lr`: the major or minor of the device or of the special file's number.
#[allow(clippy::many_single_char_names)] // c, s, m, v, f: directive, spec, meta, value, format
fn split_directive(m: &Meta, hi: bool, c: u8, s: &Spec) -> Option<Vec<u8>> {
    let d = match c {
        b'd' => DevNum::from_rdev(m.dev),
        b'r' => rdev(m.kind),
        _ => return None,
    };
    let n = if hi { d.major } else { d.minor };
    Some(render(Val::Int(i128::from(n)), s))
}

#[allow(clippy::many_single_char_names)] // c, s, m, v, f: directive, spec, meta, value, format
fn fs_directive(name: &OsStr, u: &DiskUsage, c: u8, s: &Spec) -> Option<Vec<u8>> {
    let blocks = u.quota_bytes / 4096;
    let used = u.used_bytes.div_ceil(4096);
    let v = match c {
        b'a' | b'f' => Val::Int(i128::from(blocks.saturating_sub(used))),
        b'b' => Val::Int(i128::from(blocks)),
        b'c' => Val::Int(i128::from(u.file_quota)),
        b'd' => Val::Int(i128::from(u.file_quota.saturating_sub(u.files))),
        b'i' => Val::Hex(FS_ID),
        b'l' => Val::Int(255),
        b'n' => Val::Str(name.as_bytes().to_vec()),
        b's' | b'S' => Val::Int(4096),
        b't' => Val::Hex(TMPFS_MAGIC),
        b'T' => Val::Str(DiskUsage::FSTYPE.as_bytes().to_vec()),
        _ => return None,
    };
    Some(render(v, s))
}

/// stat's `print_esc_char` escapes (`--printf`); an unknown one warns and stands for itself.
#[allow(clippy::many_single_char_names)] // c, s, m, v, f: directive, spec, meta, value, format
fn escape(f: &[u8], i: &mut usize, out: &mut Vec<u8>, warn: &mut Vec<u8>) {
    let Some(&c) = f.get(*i) else {
        out.push(b'\\');
        return;
    };
    *i += 1;
    match c {
        b'0'..=b'7' => {
            let mut v = u32::from(c - b'0');
            for _ in 0..2 {
                match f.get(*i) {
                    Some(&d @ b'0'..=b'7') => {
                        v = v * 8 + u32::from(d - b'0');
                        *i += 1;
                    }
                    _ => break,
                }
            }
            out.push(v as u8);
        }
        b'x' if f.get(*i).is_some_and(u8::is_ascii_hexdigit) => {
            let mut v = 0u32;
            for _ in 0..2 {
                match f.get(*i).and_then(|&d| char::from(d).to_digit(16)) {
                    Some(d) => {
                        v = v * 16 + d;
                        *i += 1;
                    }
                    None => break,
                }
            }
            out.push(v as u8);
        }
        b'a' => out.push(7),
        b'b' => out.push(8),
        b'e' => out.push(0x1b),
        b'f' => out.push(0x0c),
        b'n' => out.push(b'\n'),
        b'r' => out.push(b'\r'),
        b't' => out.push(b'\t'),
        b'v' => out.push(0x0b),
        b'"' | b'\\' => out.push(c),
        _ => {
            warn.extend_from_slice(b"stat: warning: unrecognized escape '\\");
            warn.push(c);
            warn.extend_from_slice(b"'\n");
            out.push(c);
        }
    }
}

/// Expands a format for one operand: `dir` gives each directive's bytes (`None`: unknown,
/// shown as `?`), the `H`/`L` prefixed ones through `split`.
#[allow(clippy::many_single_char_names)] // c, s, m, v, f: directive, spec, meta, value, format
fn expand(
    f: &[u8],
    escapes: bool,
    warn: &mut Vec<u8>,
    dir: &Directive,
    split: &SplitDirective,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = f.get(i) {
        i += 1;
        if c == b'\\' && escapes {
            escape(f, &mut i, &mut out, warn);
            continue;
        }
        if c != b'%' {
            out.push(c);
            continue;
        }
        let start = i - 1;
        let mut s = Spec::default();
        while let Some(&fl) = f.get(i) {
            match fl {
                b'-' => s.left = true,
                b'0' => s.zero = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'#' => s.alt = true,
                b'\'' | b'I' => {}
                _ => break,
            }
            i += 1;
        }
        while let Some(&d @ b'0'..=b'9') = f.get(i) {
            s.width = s
                .width
                .saturating_mul(10)
                .saturating_add(usize::from(d - b'0'));
            i += 1;
        }
        if f.get(i) == Some(&b'.') {
            i += 1;
            let mut p = 0usize;
            let mut any = false;
            while let Some(&d @ b'0'..=b'9') = f.get(i) {
                p = p.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                i += 1;
                any = true;
            }
            s.prec = Some(if any { p } else { usize::MAX });
        }
        let Some(&conv) = f.get(i) else {
            out.extend_from_slice(f.get(start..).unwrap_or_default());
            break;
        };
        i += 1;
        if s.prec == Some(usize::MAX) {
            // `%.Y`: all nine digits of the fraction; elsewhere, precision 0.
            s.prec = Some(if matches!(conv, b'X' | b'Y' | b'Z' | b'W') {
                9
            } else {
                0
            });
        }
        let got = match conv {
            b'%' => Some(b"%".to_vec()),
            b'H' | b'L' => match f.get(i) {
                Some(&c2) => {
                    i += 1;
                    split(conv == b'H', c2, &s)
                }
                None => None,
            },
            _ => dir(conv, &s),
        };
        out.extend(got.unwrap_or_else(|| b"?".to_vec()));
    }
    out
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<StatArgs>(args)?;
    if a.files.is_empty() {
        return Err(Stop::Usage("missing operand".into()));
    }
    let zone = session_zone(ctx);
    let (fmt, escapes, newline): (Option<Vec<u8>>, bool, bool) = match (&a.printf, &a.format) {
        (Some(p), _) => (Some(p.as_bytes().to_vec()), true, false),
        (None, Some(f)) => (Some(f.as_bytes().to_vec()), false, true),
        _ => (None, false, false),
    };
    let mut o = Outcome::ok();
    let mut status = 0;
    for name in &a.files {
        let path = ctx.resolve(name);
        let mut warn = Vec::new();
        if a.file_system {
            if name.is_empty() || ctx.fs.stat(&path, true).is_err() {
                let e = if name.is_empty() {
                    crate::FsError::NotFound
                } else {
                    ctx.fs
                        .stat(&path, true)
                        .err()
                        .unwrap_or(crate::FsError::NotFound)
                };
                o.err(format!(
                    "stat: cannot read file system information for {}: {e}\n",
                    quote(name)
                ));
                status = 1;
                continue;
            }
            let f = fmt
                .clone()
                .unwrap_or_else(|| if a.terse { FS_TERSE } else { FS_DEFAULT }.to_vec());
            let usage = ctx.disk_usage();
            let mut line = expand(
                &f,
                escapes,
                &mut warn,
                &|c, s| fs_directive(name, &usage, c, s),
                &|_, _, _| None,
            );
            if newline {
                line.push(b'\n');
            }
            o.err(warn);
            o.out(line);
        } else {
            let meta = if name.is_empty() {
                Err(crate::FsError::NotFound)
            } else {
                ctx.fs.stat(&path, a.dereference)
            };
            let meta = match meta {
                Ok(m) => m,
                Err(e) => {
                    o.err(format!("stat: cannot statx {}: {e}\n", quote(name)));
                    status = 1;
                    continue;
                }
            };
            let f = fmt.clone().unwrap_or_else(|| {
                if a.terse {
                    TERSE.to_vec()
                } else if matches!(
                    meta.kind,
                    FileKind::CharDevice(_) | FileKind::BlockDevice(_)
                ) {
                    DEFAULT_DEV.to_vec()
                } else {
                    DEFAULT.to_vec()
                }
            });
            let t = Target {
                name,
                path: &path,
                meta: &meta,
                literal: fmt.is_none() && !a.terse,
            };
            let mut line = expand(
                &f,
                escapes,
                &mut warn,
                &|c, s| file_directive(ctx, &t, c, s, &zone),
                &|hi, c, s| split_directive(&meta, hi, c, s),
            );
            if newline {
                line.push(b'\n');
            }
            o.err(warn);
            o.out(line);
        }
        if !ctx.flush(&mut o) {
            break;
        }
    }
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use crate::CommandName::Stat;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn world() -> World {
        let t = UNIX_EPOCH + Duration::new(1_795_548_136, 512_437_523);
        World::new(
            MemFs::rooted("/s")
                .file("/s/f", b"hello")
                .times("/s/f", t, t)
                .perm("/s/f", 0o644)
                .dir("/s/d")
                .symlink("/s/lf", "f")
                .symlink("/s/out", "/etc/passwd"),
        )
    }

    fn out(args: &[&str]) -> String {
        let (o, e, st) = text(&world().run(Stat, args));
        assert_eq!((e.as_str(), st), ("", 0), "{args:?}");
        o
    }

    #[test]
    fn formats() {
        assert_eq!(
            out(&["-c", "%n %s %F %a %A %h %u %U %g %G", "f"]),
            "f 5 regular file 644 -rw-r--r-- 1 1000 user 1000 user\n"
        );
        assert_eq!(
            out(&["-c", "%F %A", "d", "lf"]),
            "directory drwxr-xr-x\nsymbolic link lrwxrwxrwx\n"
        );
        assert_eq!(out(&["-L", "-c", "%F", "lf"]), "regular file\n");
        assert_eq!(
            out(&["-c", "%N", "lf", "out", "f"]),
            "'lf' -> 'f'\n'out'\n'f'\n"
        );
        assert_eq!(
            out(&[
                "-c",
                "%q|%%|%5s|%-5s|%05s|%+s|%.3Y|%.Y|%10n|%-3n|%w|%W|x%",
                "f"
            ]),
            "?|%|    5|5    |00005|+5|1795548136.512|1795548136.512437523|         f|f  |-|0|x%\n"
        );
        assert_eq!(
            out(&["-c", "%y", "f"]),
            "2026-11-24 19:22:16.512437523 +0000\n"
        );
        assert_eq!(out(&["--printf", "%n\\t%s\\n\\x41\\101", "f"]), "f\t5\nAA");
        assert_eq!(
            out(&["-c", "%f %B %o %Hr %Lr %t %T", "f"]),
            "81a4 512 4096 0 0 0 0\n"
        );
    }

    #[test]
    fn default_forms() {
        let o = out(&["f"]);
        let lines: Vec<&str> = o.lines().collect();
        assert_eq!(lines.first(), Some(&"  File: f"));
        assert!(
            lines
                .get(1)
                .is_some_and(|l| l.starts_with("  Size: 5         \tBlocks: ")
                    && l.ends_with("IO Block: 4096   regular file"))
        );
        assert!(
            lines.get(3).is_some_and(|l| *l
                == "Access: (0644/-rw-r--r--)  Uid: ( 1000/    user)   Gid: ( 1000/    user)")
        );
        assert_eq!(
            lines.get(5),
            Some(&"Modify: 2026-11-24 19:22:16.512437523 +0000")
        );
        assert_eq!(lines.get(7), Some(&" Birth: -"));
        assert_eq!(
            out(&["-f", "."]),
            "  File: \".\"\n    ID: 1f2e3d4c5b6a7988 Namelen: 255     Type: tmpfs\nBlock size: 4096       Fundamental block size: 4096\nBlocks: Total: 2097152    Free: 2097152    Available: 2097152\nInodes: Total: 1000000    Free: 1000000\n"
        );
        assert_eq!(out(&["-f", "-c", "%T %t %s", "f"]), "tmpfs 1021994 4096\n");
        assert!(out(&["-t", "f"]).starts_with("f 5 "));
    }

    #[test]
    fn errors() {
        let w = world();
        assert_eq!(
            text(&w.run(Stat, &["nope", "f", "-c", "%n"])),
            (
                "f\n".into(),
                "stat: cannot statx 'nope': No such file or directory\n".into(),
                1
            )
        );
        assert_eq!(
            text(&w.run(Stat, &["-L", "out"])),
            (
                String::new(),
                "stat: cannot statx 'out': No such file or directory\n".into(),
                1
            )
        );
        assert_eq!(
            text(&w.run(Stat, &["-f", "nope"])),
            (
                String::new(),
                "stat: cannot read file system information for 'nope': No such file or directory\n"
                    .into(),
                1
            )
        );
        assert_eq!(
            text(&w.run(Stat, &["--printf", "\\c", "f"])),
            (
                "c".into(),
                "stat: warning: unrecognized escape '\\c'\n".into(),
                0
            )
        );
        assert_eq!(
            text(&w.run(Stat, &[])),
            (
                String::new(),
                "stat: missing operand\nTry 'stat --help' for more information.\n".into(),
                1
            )
        );
    }
}
