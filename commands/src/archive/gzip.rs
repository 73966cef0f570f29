//! `gzip`, `gunzip`, `zcat`, GNU gzip 1.12: `-c -d -f -k -l -n -N -q -t -v -1..-9 -S SUF`.
//! A file is replaced by its compressed (or decompressed) form: one `WriteFile`, its mode and
//! time copied (`SetMode`, `Touch`), then the original trashed (kept with `-k`). The deflate
//! stream is `flate2`'s, so compressed bytes (and the sizes `-l` and `-v` report of our own
//! output) may differ from GNU's; `-l` and `-t` of any gzip file are GNU's. Decompressing to a
//! file stops at the member cap with one line; to stdout it streams.

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::time::{Duration, SystemTime};

use flate2::read::MultiGzDecoder;
use flate2::{Compression, GzBuilder};

use super::{GZIP_MAGIC, MEMBER_CAP, read_capped};
use crate::support::args::long_option;
use crate::support::datetime::{broken_down, session_zone, to_epoch};
use crate::{CommandName, Ctx, Effect, FileKind, Op, Outcome, Stop};

const TRY: &str = "Try `gzip --help' for more information.";

#[derive(Debug)]
struct Opts {
    stdout: bool,
    decompress: bool,
    force: bool,
    keep: bool,
    list: bool,
    name: Option<bool>,
    quiet: bool,
    test: bool,
    verbose: bool,
    level: u32,
    suffix: Vec<u8>,
    files: Vec<OsString>,
}

const LONG: &[(&str, u8, bool)] = &[
    ("best", b'9', false),
    ("decompress", b'd', false),
    ("fast", b'1', false),
    ("force", b'f', false),
    ("help", b'h', false),
    ("keep", b'k', false),
    ("list", b'l', false),
    ("name", b'N', false),
    ("no-name", b'n', false),
    ("quiet", b'q', false),
    ("recursive", b'r', false),
    ("silent", b'q', false),
    ("stdout", b'c', false),
    ("suffix", b'S', true),
    ("test", b't', false),
    ("to-stdout", b'c', false),
    ("uncompress", b'd', false),
    ("verbose", b'v', false),
    ("version", b'V', false),
];

fn usage(msg: &str) -> Stop {
    Stop::Fail(format!("{msg}\n{TRY}"))
}

fn set(o: &mut Opts, c: u8, arg: Option<OsString>) -> Result<(), Stop> {
    match c {
        b'c' => o.stdout = true,
        b'd' => o.decompress = true,
        b'f' => o.force = true,
        b'k' => o.keep = true,
        b'l' => o.list = true,
        b'N' => o.name = Some(true),
        b'n' => o.name = Some(false),
        b'q' => {
            o.quiet = true;
            o.verbose = false;
        }
        b'v' => {
            o.verbose = true;
            o.quiet = false;
        }
        b't' => o.test = true,
        b'1'..=b'9' => o.level = u32::from(c - b'0'),
        b'S' => o.suffix = arg.unwrap_or_default().into_vec(),
        b'r' => {
            return Err(Stop::Fail(
                "-r (recursive) is not supported in this sandbox".into(),
            ));
        }
        b'h' => return Err(Stop::Help),
        b'V' => return Err(Stop::Version),
        _ => return Err(usage(&format!("invalid option -- '{}'", char::from(c)))),
    }
    Ok(())
}

fn parse(args: &[OsString], name: CommandName) -> Result<Opts, Stop> {
    let mut opts = Opts {
        stdout: name == CommandName::Zcat,
        decompress: name != CommandName::Gzip,
        force: false,
        keep: false,
        list: false,
        name: None,
        quiet: false,
        test: false,
        verbose: false,
        level: 6,
        suffix: b".gz".to_vec(),
        files: Vec::new(),
    };
    let mut it = args.iter().cloned();
    let mut only = false;
    while let Some(a) = it.next() {
        let b = a.as_bytes();
        if only || b == b"-" || !b.starts_with(b"-") {
            opts.files.push(a);
            continue;
        }
        if b == b"--" {
            only = true;
            continue;
        }
        if let Some(long) = b.strip_prefix(b"--") {
            let (c, arg) = long_option(LONG, long, || it.next()).map_err(|e| usage(&e))?;
            set(&mut opts, c, arg)?;
            continue;
        }
        let mut i = 1;
        while let Some(&c) = b.get(i) {
            if c == b'S' {
                let rest = b.get(i + 1..).unwrap_or_default();
                let arg = if rest.is_empty() {
                    it.next()
                        .ok_or_else(|| usage("option requires an argument -- 'S'"))?
                } else {
                    OsString::from_vec(rest.to_vec())
                };
                set(&mut opts, c, Some(arg))?;
                break;
            }
            set(&mut opts, c, None)?;
            i += 1;
        }
    }
    if opts.suffix.is_empty() {
        return Err(Stop::Fail(format!("invalid suffix ''\n{TRY}")));
    }
    Ok(opts)
}

/// The gzip header's length (up to the deflate data), its stored name and time; `None`: not
/// gzip.
fn header(data: &[u8]) -> Option<(usize, Option<Vec<u8>>, u32)> {
    if !data.starts_with(&GZIP_MAGIC) || data.get(2) != Some(&8) {
        return None;
    }
    let flags = *data.get(3)?;
    let mtime = u32::from_le_bytes(data.get(4..8)?.try_into().ok()?);
    let mut at = 10usize;
    if flags & 4 != 0 {
        let len = u16::from_le_bytes(data.get(at..at + 2)?.try_into().ok()?);
        at += 2 + usize::from(len);
    }
    let mut name = None;
    if flags & 8 != 0 {
        let end = data.get(at..)?.iter().position(|&c| c == 0)?;
        name = Some(data.get(at..at + end)?.to_vec());
        at += end + 1;
    }
    if flags & 16 != 0 {
        let end = data.get(at..)?.iter().position(|&c| c == 0)?;
        at += end + 1;
    }
    if flags & 2 != 0 {
        at += 2;
    }
    (at <= data.len()).then_some((at, name, mtime))
}

/// gzip's `display_ratio`: `%5.1f%%`.
#[allow(clippy::cast_precision_loss)] // sizes are capped far below 2^52
fn ratio(num: i64, den: i64) -> String {
    let v = if den == 0 {
        0.0
    } else {
        100.0 * (num as f64) / (den as f64)
    };
    format!("{v:5.1}%")
}

/// The suffixes gzip strips when decompressing, after `-S`'s.
fn strip_suffix(name: &[u8], suffix: &[u8]) -> Option<Vec<u8>> {
    let base = name.rsplit(|&c| c == b'/').next().unwrap_or(name);
    let known: [&[u8]; 6] = [b".gz", b"-gz", b".z", b"-z", b"_z", b".Z"];
    for s in std::iter::once(suffix).chain(known) {
        if base.len() > s.len() && base.ends_with(s) {
            return Some(
                name.get(..name.len() - s.len())
                    .unwrap_or_default()
                    .to_vec(),
            );
        }
    }
    for (s, to) in [(b".tgz".as_slice(), b".tar".as_slice()), (b".taz", b".tar")] {
        if base.len() > s.len() && base.ends_with(s) {
            let mut n = name
                .get(..name.len() - s.len())
                .unwrap_or_default()
                .to_vec();
            n.extend_from_slice(to);
            return Some(n);
        }
    }
    None
}

struct Run<'a> {
    ctx: &'a Ctx<'a>,
    opts: Opts,
    o: Outcome,
    status: i32,
    /// `-l` state: whether the heading was printed, totals, the last header size.
    listed: usize,
    total_in: i64,
    total_out: i64,
    last_header: i64,
}

impl Run<'_> {
    fn error(&mut self, msg: &str) {
        self.o.err(format!("gzip: {msg}\n"));
        self.status = 1;
    }
    fn warn(&mut self, msg: &str) {
        if !self.opts.quiet {
            self.o.err(format!("gzip: {msg}\n"));
        }
        if self.status == 0 {
            self.status = 2;
        }
    }
    fn not_gzip(&mut self, name: &str) {
        self.o.err(format!("\ngzip: {name}: not in gzip format\n"));
        self.status = 1;
    }

    const MON: [&'static str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];

    /// One `-l` line.
    fn list_one(&mut self, data: &[u8], shown: &str, ofname: &[u8]) {
        let Some((hlen, stored, mtime)) = header(data) else {
            return self.not_gzip(shown);
        };
        let tail = data.get(data.len().saturating_sub(8)..).unwrap_or_default();
        let crc = tail
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u32::from_le_bytes);
        let size = tail
            .get(4..)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u32::from_le_bytes);
        let header_bytes = hlen as i64 + 8;
        let (bin, bout) = (data.len() as i64, i64::from(size));
        let mut line = String::new();
        if self.listed == 0 {
            if self.opts.verbose {
                line.push_str("method  crc     date  time  ");
            }
            if !self.opts.quiet {
                line.push_str("         compressed        uncompressed  ratio uncompressed_name\n");
            }
        }
        self.listed += 1;
        if self.opts.verbose {
            let zone = session_zone(self.ctx);
            let tm = broken_down(i64::from(mtime), 0, &zone);
            let mon = Self::MON
                .get(usize::try_from(tm.month - 1).unwrap_or(0))
                .unwrap_or(&"???");
            let _ = write!(
                line,
                "defla {crc:08x} {mon}{:3} {:02}:{:02} ",
                tm.day, tm.hour, tm.min
            );
        }
        let name = if self.opts.name == Some(true) {
            stored.unwrap_or_else(|| ofname.to_vec())
        } else {
            ofname.to_vec()
        };
        let _ = writeln!(
            line,
            "{bin:>19} {bout:>19} {} {}",
            ratio(bout - (bin - header_bytes), bout),
            String::from_utf8_lossy(&name)
        );
        self.o.out(line);
        self.total_in += bin;
        self.total_out += bout;
        self.last_header = header_bytes;
    }

    fn totals(&mut self) {
        if self.listed < 2 || self.total_in <= 0 || self.total_out <= 0 {
            return;
        }
        let mut line = String::new();
        if self.opts.verbose {
            line.push_str("                            ");
        }
        if self.opts.verbose || !self.opts.quiet {
            let _ = write!(line, "{:>19} {:>19} ", self.total_in, self.total_out);
        }
        line.push_str(&ratio(
            self.total_out - (self.total_in - self.last_header),
            self.total_out,
        ));
        line.push_str(" (totals)\n");
        self.o.out(line);
    }

    /// Decompresses `data`; `Err(msg)` is gzip's diagnostic tail; `Ok(None)`: over the cap.
    fn inflate(data: &[u8]) -> Result<Option<Vec<u8>>, &'static str> {
        let mut d = MultiGzDecoder::new(data);
        match read_capped(&mut d, MEMBER_CAP) {
            Ok(v) => Ok(v),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                Err("unexpected end of file")
            }
            Err(e) if e.to_string().contains("checksum") => {
                Err("invalid compressed data--crc error")
            }
            Err(_) => Err("invalid compressed data--format violated"),
        }
    }

    fn deflate(&self, data: &[u8], name: Option<&[u8]>, mtime: u32) -> Vec<u8> {
        let mut b = GzBuilder::new().operating_system(3);
        if self.opts.name != Some(false) {
            if let Some(n) = name {
                b = b.filename(n.to_vec());
            }
            b = b.mtime(mtime);
        }
        let mut enc = b.write(Vec::new(), Compression::new(self.opts.level));
        let _ = enc.write_all(data);
        enc.finish().unwrap_or_default()
    }

    /// stdin to stdout.
    fn stdin(&mut self) {
        let ctx = self.ctx;
        if !self.opts.decompress && !self.opts.test && !self.opts.list {
            if ctx.stdout_is_tty && !self.opts.force {
                self.o.err("gzip: compressed data not written to a terminal. Use -f to force compression.\nFor help, type: gzip -h\n");
                self.status = 1;
                return;
            }
            let Ok(Some(data)) = read_capped(&mut { ctx.stdin }, MEMBER_CAP) else {
                return self.error("stdin: File too large");
            };
            let z = self.deflate(&data, None, 0);
            if self.opts.verbose {
                let hb = 10 + 8;
                self.o.err(format!(
                    "{}\n",
                    ratio(data.len() as i64 - (z.len() as i64 - hb), data.len() as i64)
                ));
            }
            self.o.out(z);
            return;
        }
        let Ok(Some(data)) = read_capped(&mut { ctx.stdin }, MEMBER_CAP) else {
            return self.error("stdin: File too large");
        };
        if self.opts.list {
            return self.list_one(&data, "stdin", b"stdout");
        }
        self.unpack_out(&data, "stdin");
    }

    /// Decompresses to stdout (or only checks, with `-t`), streaming.
    fn unpack_out(&mut self, data: &[u8], shown: &str) {
        if header(data).is_none() {
            return self.not_gzip(shown);
        }
        let mut d = MultiGzDecoder::new(data);
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match d.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if !self.opts.test {
                        self.o.out(buf.get(..n).unwrap_or_default());
                        if !self.ctx.flush(&mut self.o) {
                            return;
                        }
                    } else if self.ctx.expired() {
                        return;
                    }
                }
                Err(e) => {
                    let msg = if e.kind() == std::io::ErrorKind::UnexpectedEof {
                        "unexpected end of file"
                    } else if e.to_string().contains("checksum") {
                        "invalid compressed data--crc error"
                    } else {
                        "invalid compressed data--format violated"
                    };
                    return self.error(&format!("{shown}: {msg}"));
                }
            }
        }
        if self.opts.test && self.opts.verbose {
            self.o.err(format!("{shown}:\t OK\n"));
        }
    }

    fn file(&mut self, operand: &OsStr) {
        let ctx = self.ctx;
        let shown_s = operand.to_string_lossy().into_owned();
        let mut name = operand.as_bytes().to_vec();
        let mut path = ctx.resolve(operand);
        let mut meta = ctx.fs.stat(&path, false);
        if meta.is_err() && self.opts.decompress {
            // gunzip x tries x.gz (the `-S` suffix).
            let mut alt = name.clone();
            alt.extend_from_slice(&self.opts.suffix);
            let alt_path = ctx.resolve(OsStr::from_bytes(&alt));
            meta = ctx.fs.stat(&alt_path, false);
            match meta {
                Ok(_) => {
                    name = alt;
                    path = alt_path;
                }
                Err(e) => {
                    return self.error(&format!("{}: {e}", String::from_utf8_lossy(&alt)));
                }
            }
        }
        let shown = String::from_utf8_lossy(&name).into_owned();
        let meta = match meta {
            Ok(m) => m,
            Err(e) => return self.error(&format!("{shown_s}: {e}")),
        };
        match meta.kind {
            FileKind::File => {}
            FileKind::Dir => return self.warn(&format!("{shown} is a directory -- ignored")),
            FileKind::Symlink if self.opts.force || self.opts.stdout => {}
            _ => {
                return self.warn(&format!(
                    "{shown} is not a directory or a regular file - ignored"
                ));
            }
        }
        let compress = !self.opts.decompress && !self.opts.test && !self.opts.list;
        // The output name, when there is one.
        let out_name = if compress {
            if self.opts.stdout {
                None
            } else if strip_suffix(&name, &self.opts.suffix).is_some() {
                // A warning that leaves the status alone, as GNU's.
                if !self.opts.quiet {
                    let sfx = String::from_utf8_lossy(&self.opts.suffix).into_owned();
                    self.o.err(format!(
                        "gzip: {shown} already has {sfx} suffix -- unchanged\n"
                    ));
                }
                return;
            } else {
                let mut n = name.clone();
                n.extend_from_slice(&self.opts.suffix);
                Some(n)
            }
        } else {
            let stripped = strip_suffix(&name, &self.opts.suffix);
            if self.opts.list || self.opts.stdout || self.opts.test {
                None
            } else if let Some(s) = stripped {
                Some(s)
            } else {
                return self.warn(&format!("{shown}: unknown suffix -- ignored"));
            }
        };
        let data = match ctx.fs.open(&path).and_then(|mut f| {
            read_capped(&mut f, MEMBER_CAP)
                .map_err(|e| crate::FsError::from_io(&e))?
                .ok_or(crate::FsError::TooLarge)
        }) {
            Ok(d) => d,
            Err(e) => return self.error(&format!("{shown}: {e}")),
        };
        if self.opts.list {
            let of = strip_suffix(&name, &self.opts.suffix).unwrap_or_else(|| name.clone());
            return self.list_one(&data, &shown, &of);
        }
        if !compress && out_name.is_none() {
            return self.unpack_out(&data, &shown);
        }
        let (bytes, header_bytes, stored) = if compress {
            let base = name.rsplit(|&c| c == b'/').next().unwrap_or(&name).to_vec();
            let z = self.deflate(&data, Some(&base), to_epoch(meta.mtime).0 as u32);
            let hb = 10 + base.len() as i64 + 1 + 8;
            (z, hb, None)
        } else {
            let Some((hlen, stored, mtime)) = header(&data) else {
                return self.not_gzip(&shown);
            };
            match Self::inflate(&data) {
                Ok(Some(d)) => (d, hlen as i64 + 8, Some((stored, mtime))),
                Ok(None) => {
                    return self.error(&format!("{shown}: Disk quota exceeded"));
                }
                Err(msg) => return self.error(&format!("{shown}: {msg}")),
            }
        };
        if compress && self.opts.stdout {
            if self.opts.verbose {
                self.o.err(format!(
                    "{shown}:\t{} -- replaced with stdout\n",
                    ratio(
                        data.len() as i64 - (bytes.len() as i64 - header_bytes),
                        data.len() as i64
                    )
                ));
            }
            self.o.out(bytes);
            return;
        }
        let Some(mut out_name) = out_name else {
            return;
        };
        let mut mtime = meta.mtime;
        if let Some((Some(stored), stamp)) = &stored
            && self.opts.name == Some(true)
        {
            // `-N`: the stored name (in the input's directory) and time.
            let dir = match name.iter().rposition(|&c| c == b'/') {
                Some(i) => name.get(..=i).unwrap_or_default().to_vec(),
                None => Vec::new(),
            };
            let base = stored.rsplit(|&c| c == b'/').next().unwrap_or(stored);
            out_name = [dir.as_slice(), base].concat();
            if *stamp != 0 {
                mtime = SystemTime::UNIX_EPOCH + Duration::from_secs(u64::from(*stamp));
            }
        }
        let out_path = ctx.resolve(OsStr::from_bytes(&out_name));
        let out_shown = String::from_utf8_lossy(&out_name).into_owned();
        if ctx.fs.stat(&out_path, false).is_ok() {
            if !self.opts.force {
                return self.warn(&format!("{out_shown} already exists;\tnot overwritten"));
            }
            self.o.effect(Effect {
                op: Op::Trash {
                    path: out_path.clone(),
                },
                on_ok: None,
                on_err: None,
                fail_status: 1,
            });
        }
        let (bin, bout) = (data.len() as i64, bytes.len() as i64);
        self.o.effect(Effect::new(
            Op::WriteFile {
                path: out_path.clone(),
                data: bytes,
                append: false,
            },
            format!("gzip: {out_shown}"),
        ));
        for op in [
            Op::SetMode {
                path: out_path.clone(),
                mode: meta.perm,
            },
            Op::Touch {
                path: out_path,
                atime: None,
                mtime: Some(mtime),
                create: false,
            },
        ] {
            self.o.effect(Effect {
                op,
                on_ok: None,
                on_err: None,
                fail_status: 1,
            });
        }
        if !self.opts.keep {
            self.o
                .effect(Effect::new(Op::Trash { path }, format!("gzip: {shown}")));
        }
        if self.opts.verbose {
            let r = if compress {
                ratio(bin - (bout - header_bytes), bin)
            } else {
                ratio(bout - (bin - header_bytes), bout)
            };
            let how = if self.opts.keep {
                "created"
            } else {
                "replaced with"
            };
            self.o.err(format!("{shown}:\t{r} -- {how} {out_shown}\n"));
        }
        ctx.apply_now(&mut self.o);
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let opts = parse(args, ctx.name)?;
    let files = if opts.files.is_empty() {
        vec![OsString::from("-")]
    } else {
        opts.files.clone()
    };
    let mut r = Run {
        ctx,
        opts,
        o: Outcome::ok(),
        status: 0,
        listed: 0,
        total_in: 0,
        total_out: 0,
        last_header: 0,
    };
    for f in &files {
        if !ctx.flush(&mut r.o) {
            break;
        }
        if f == "-" {
            r.stdin();
        } else {
            r.file(f);
        }
    }
    if r.opts.list {
        r.totals();
    }
    let status = r.status;
    Ok(r.o.with_status(status))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::CommandName::{Gunzip, Gzip, Zcat};
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text};

    /// `gzip -c a` by GNU gzip 1.12 of `hello\n` with mtime 2024-01-01 00:00 UTC.
    const GNU_A: &[u8] = &[
        0x1f, 0x8b, 8, 8, 0x80, 0, 0x92, 0x65, 0, 3, b'a', 0, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xe7,
        2, 0, 0x20, 0x30, 0x3a, 0x36, 6, 0, 0, 0,
    ];

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .file("/s/a.gz", GNU_A)
                .file("/s/b", b"x\n")
                .file("/s/b.gz", b"x\n")
                .dir("/s/d"),
        )
    }

    #[test]
    fn list_as_gnu() {
        let w = world();
        assert_eq!(
            text(&w.run(Gzip, &["-l", "a.gz"])).0,
            "         compressed        uncompressed  ratio uncompressed_name\n                 28                   6 -33.3% a\n"
        );
        assert_eq!(
            text(&w.run(Gzip, &["-lv", "a.gz", "a.gz"])).0,
            "method  crc     date  time           compressed        uncompressed  ratio uncompressed_name\n\
             defla 363a3020 Jan  1 00:00                  28                   6 -33.3% a\n\
             defla 363a3020 Jan  1 00:00                  28                   6 -33.3% a\n\
             \x20                                            56                  12 -200.0% (totals)\n"
        );
        assert_eq!(
            text(&w.run(Gzip, &["-l", "b.gz"])),
            (
                String::new(),
                "\ngzip: b.gz: not in gzip format\n".into(),
                1
            )
        );
    }

    #[test]
    fn test_and_cat() {
        let w = world();
        assert_eq!(
            text(&w.run(Gzip, &["-t", "a.gz"])),
            (String::new(), String::new(), 0)
        );
        assert_eq!(
            text(&w.run(Gzip, &["-tv", "a.gz"])),
            (String::new(), "a.gz:\t OK\n".into(), 0)
        );
        assert_eq!(
            text(&w.run(Zcat, &["a.gz"])),
            ("hello\n".into(), String::new(), 0)
        );
        assert_eq!(
            text(&w.run(Gzip, &["-dc", "a.gz", "b"])),
            (
                "hello\n".into(),
                "\ngzip: b: not in gzip format\n".into(),
                1
            )
        );
    }

    #[test]
    fn replaces_files() {
        let w = world();
        let o = w.run(Gunzip, &["a.gz"]);
        let got = ops(&o);
        assert!(matches!(got.first(), Some(Op::WriteFile { path, data, .. })
            if path == &PathBuf::from("/s/a") && data == b"hello\n"));
        assert_eq!(
            got.last(),
            Some(&Op::Trash {
                path: PathBuf::from("/s/a.gz")
            })
        );
        let o = w.run(Gzip, &["-k", "b"]);
        assert_eq!(
            text(&o),
            (
                String::new(),
                "gzip: b.gz already exists;\tnot overwritten\n".into(),
                2
            )
        );
        let o = w.run(Gzip, &["a.gz", "d", "nope"]);
        assert_eq!(
            text(&o),
            (
                String::new(),
                "gzip: a.gz already has .gz suffix -- unchanged\ngzip: d is a directory -- ignored\ngzip: nope: No such file or directory\n".into(),
                1
            )
        );
        assert_eq!(
            text(&w.run(Gzip, &["-d", "b"])),
            (
                String::new(),
                "gzip: b: unknown suffix -- ignored\n".into(),
                2
            )
        );
    }

    #[test]
    fn stdin_round_trip_and_errors() {
        let z = World::empty().stdin(b"hi\n").run(Gzip, &[]).stdout();
        assert!(z.starts_with(&GZIP_MAGIC));
        assert_eq!(text(&World::empty().stdin(&z).run(Gzip, &["-d"])).0, "hi\n");
        assert_eq!(
            text(&World::empty().stdin(b"junk").run(Gzip, &["-d"])),
            (
                String::new(),
                "\ngzip: stdin: not in gzip format\n".into(),
                1
            )
        );
        assert_eq!(
            text(&World::empty().run(Gzip, &["-y"])),
            (
                String::new(),
                "gzip: invalid option -- 'y'\nTry `gzip --help' for more information.\n".into(),
                1
            )
        );
    }
}
