//! `split [OPTION]... [FILE [PREFIX]]`, GNU coreutils 9.1: the input (or stdin, for `-` or
//! none) cut into files `PREFIXaa`, `PREFIXab`, … by lines (`-l`, the default 1000), bytes
//! (`-b`), lines of at most N bytes (`-C`) or into N chunks (`-n N`, `K/N`, `l/N`, `l/K/N`,
//! `r/N`, `r/K/N`; `K/N` writes chunk K to stdout). Each output file is one
//! [`Op::WriteFile`]; with `-l`/`-b`/`-C` the input streams and only the file being filled
//! is held. Suffixes: alphabetic, `-d`/`--numeric-suffixes[=FROM]`, `-x`/`--hex-suffixes`,
//! `-a N` fixed; without `-a` they widen as GNU's do (`xyz` is followed by `xzaaa`).

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::input::open_input;
use crate::support::size::{SizeError, parse_size};
use crate::text::lines::{EXHAUSTED, FILE_CHUNK, FileOut, RecordError, read_held};
use crate::{Ctx, Effect, Op, Outcome, quote};

/// Output pieces of FILE to PREFIXaa, PREFIXab, ...; default size is 1000 lines, and
/// default PREFIX is 'x'.
#[allow(clippy::doc_markdown)]
#[derive(clap::Parser, Debug)]
#[command(override_usage = "split [OPTION]... [FILE [PREFIX]]")]
pub struct SplitArgs {
    /// generate suffixes of length N (default 2)
    #[arg(short = 'a', long = "suffix-length", value_name = "N")]
    suffix_length: Option<OsString>,
    /// append an additional SUFFIX to file names
    #[arg(long = "additional-suffix", value_name = "SUFFIX")]
    additional: Option<OsString>,
    /// put SIZE bytes per output file
    #[arg(short = 'b', long = "bytes", value_name = "SIZE")]
    bytes: Option<OsString>,
    /// put at most SIZE bytes of records per output file
    #[arg(short = 'C', long = "line-bytes", value_name = "SIZE")]
    line_bytes: Option<OsString>,
    /// use numeric suffixes starting at 0, not alphabetic
    #[arg(short = 'd')]
    digits: bool,
    /// same as -d, but allow setting the start value
    #[arg(long = "numeric-suffixes", value_name = "FROM", num_args = 0..=1,
          require_equals = true, default_missing_value = "")]
    numeric: Option<OsString>,
    /// use hex suffixes starting at 0, not alphabetic
    #[arg(short = 'x')]
    hex: bool,
    /// same as -x, but allow setting the start value
    #[arg(long = "hex-suffixes", value_name = "FROM", num_args = 0..=1,
          require_equals = true, default_missing_value = "")]
    hex_from: Option<OsString>,
    /// do not generate empty output files with '-n'
    #[arg(short = 'e', long = "elide-empty-files")]
    elide: bool,
    /// put NUMBER lines/records per output file
    #[arg(short = 'l', long = "lines", value_name = "NUMBER")]
    lines: Option<OsString>,
    /// generate CHUNKS output files; see explanation below
    #[arg(short = 'n', long = "number", value_name = "CHUNKS")]
    number: Option<OsString>,
    /// use SEP instead of newline as the record separator; '\0' (zero) specifies the NUL
    /// character
    #[arg(short = 't', long = "separator", value_name = "SEP")]
    separator: Option<OsString>,
    /// immediately copy input to output with '-n r/...'
    #[arg(short = 'u', long = "unbuffered")]
    unbuffered: bool,
    /// print a diagnostic just before each output file is opened
    #[arg(long = "verbose")]
    verbose: bool,
    operands: Vec<OsString>,
}

/// How the input is cut.
#[derive(Clone, Copy)]
enum Mode {
    Lines(u64),
    Bytes(u64),
    LineBytes(u64),
    /// `-n`: how (bytes, lines, round robin), chunk count, only this chunk to stdout.
    Chunks(ChunkKind, u64, Option<u64>),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ChunkKind {
    Bytes,
    Lines,
    RoundRobin,
}

/// The output file names, GNU's `next_file_name`.
struct Names {
    prefix: Vec<u8>,
    alphabet: &'static [u8],
    idx: Vec<usize>,
    auto: bool,
    additional: Vec<u8>,
    first: bool,
}

impl Names {
    /// The next name, or `None` when the suffixes are exhausted.
    fn next(&mut self) -> Option<Vec<u8>> {
        if !std::mem::replace(&mut self.first, false) {
            let last = self.alphabet.len() - 1;
            let mut i = self.idx.len();
            loop {
                if i == 0 {
                    return None;
                }
                i -= 1;
                let d = self.idx.get_mut(i)?;
                *d += 1;
                if self.auto && i == 0 && *d == last {
                    self.prefix.push(*self.alphabet.get(last)?);
                    let n = self.idx.len() + 1;
                    self.idx = vec![0; n];
                    break;
                }
                if *d <= last {
                    break;
                }
                *d = 0;
            }
        }
        let mut name = self.prefix.clone();
        for &d in &self.idx {
            name.push(*self.alphabet.get(d)?);
        }
        name.extend_from_slice(&self.additional);
        Some(name)
    }
}

struct Job<'a> {
    ctx: &'a Ctx<'a>,
    names: Names,
    verbose: bool,
    o: Outcome,
    /// The output file being written in parts (one larger than [`Job::chunk`]).
    open: Option<FileOut>,
    /// The most bytes of one output file held before they are written.
    chunk: usize,
}

impl Job<'_> {
    /// The next output file's name (announced under `--verbose`); `None` when the suffixes
    /// are exhausted (reported).
    fn next_name(&mut self) -> Option<OsString> {
        let Some(name) = self.names.next() else {
            self.o.err("split: output file suffixes exhausted\n");
            self.o.status = 1;
            return None;
        };
        let name = OsStr::from_bytes(&name).to_os_string();
        if self.verbose {
            self.o.out(format!("creating file {}\n", quote(&name)));
        }
        Some(name)
    }

    /// Writes one output file (the end of the one written in parts, if any); false when
    /// the suffixes are exhausted (reported) or a part could not be written.
    fn emit(&mut self, data: Vec<u8>) -> bool {
        if let Some(mut f) = self.open.take() {
            return (data.is_empty() || f.write(self.ctx, &mut self.o, data))
                && self.ctx.flush(&mut self.o);
        }
        let Some(name) = self.next_name() else {
            return false;
        };
        self.o.effect(Effect::new(
            Op::WriteFile {
                path: self.ctx.resolve(&name),
                data,
                append: false,
            },
            format!("split: {}", quote(&name)),
        ));
        self.ctx.flush(&mut self.o)
    }

    /// Writes the first bytes of an output file larger than [`Job::chunk`] (the file is
    /// created by the first part, appended to by the next); false as [`Job::emit`].
    fn part(&mut self, data: Vec<u8>) -> bool {
        if self.open.is_none() {
            let Some(name) = self.next_name() else {
                return false;
            };
            let msg = format!("split: {}", quote(&name));
            self.open = Some(FileOut::new(self.ctx.resolve(&name), msg.clone(), msg));
        }
        match &mut self.open {
            Some(f) => f.write(self.ctx, &mut self.o, data),
            None => false,
        }
    }
}

fn number_of(s: &OsStr, what: &str) -> Result<u64, Stop> {
    match parse_size(s.as_bytes()) {
        Ok(0) | Err(SizeError::Overflow) => Err(Stop::Fail(format!(
            "invalid number of {what}: {}: Numerical result out of range",
            quote(s)
        ))),
        Ok(n) => Ok(n),
        Err(SizeError::Invalid) => Err(Stop::Fail(format!(
            "invalid number of {what}: {}",
            quote(s)
        ))),
    }
}

fn plain(s: &[u8]) -> Option<u64> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

fn chunks(spec: &OsStr) -> Result<Mode, Stop> {
    let bytes = spec.as_bytes();
    let (kind, rest) = if let Some(r) = bytes.strip_prefix(b"l/") {
        (ChunkKind::Lines, r)
    } else if let Some(r) = bytes.strip_prefix(b"r/") {
        (ChunkKind::RoundRobin, r)
    } else {
        (ChunkKind::Bytes, bytes)
    };
    let (kth, n) = match rest.iter().position(|&c| c == b'/') {
        Some(p) => (
            Some(rest.get(..p).unwrap_or_default()),
            rest.get(p + 1..).unwrap_or_default(),
        ),
        None => (None, rest),
    };
    let shown = |x: &[u8]| quote(OsStr::from_bytes(x));
    let n = match parse_size(n) {
        Ok(0) | Err(SizeError::Overflow) => {
            return Err(Stop::Fail(format!(
                "invalid number of chunks: {}: Numerical result out of range",
                shown(n)
            )));
        }
        Ok(v) => v,
        Err(SizeError::Invalid) => {
            return Err(Stop::Fail(format!(
                "invalid number of chunks: {}",
                shown(n)
            )));
        }
    };
    let kth = match kth {
        None => None,
        Some(kth) => match plain(kth) {
            Some(v) if v >= 1 && v <= n => Some(v),
            Some(_) => {
                return Err(Stop::Fail(format!(
                    "invalid chunk number: {}: Numerical result out of range",
                    shown(kth)
                )));
            }
            None => return Err(Stop::Fail(format!("invalid chunk number: {}", shown(kth)))),
        },
    };
    Ok(Mode::Chunks(kind, n, kth))
}

fn mode_of(a: &SplitArgs) -> Result<Mode, Stop> {
    let given = [&a.lines, &a.bytes, &a.line_bytes, &a.number]
        .iter()
        .filter(|x| x.is_some())
        .count();
    if given > 1 {
        return Err(Stop::Usage("cannot split in more than one way".into()));
    }
    if let Some(l) = &a.lines {
        return Ok(Mode::Lines(number_of(l, "lines")?));
    }
    if let Some(b) = &a.bytes {
        return Ok(Mode::Bytes(number_of(b, "bytes")?));
    }
    if let Some(c) = &a.line_bytes {
        return Ok(Mode::LineBytes(number_of(c, "bytes")?));
    }
    if let Some(n) = &a.number {
        return chunks(n);
    }
    Ok(Mode::Lines(1000))
}

fn names_of(a: &SplitArgs, prefix: &OsStr, mode: Mode) -> Result<Names, Stop> {
    let hex = a.hex || a.hex_from.is_some();
    let numeric = a.digits || a.numeric.is_some();
    let alphabet: &'static [u8] = if hex {
        b"0123456789abcdef"
    } else if numeric {
        b"0123456789"
    } else {
        b"abcdefghijklmnopqrstuvwxyz"
    };
    let mut len: usize = 2;
    let mut auto = true;
    if let Some(s) = &a.suffix_length {
        match plain(s.as_bytes()).and_then(|v| usize::try_from(v).ok()) {
            Some(0) => {}
            Some(v) => {
                len = v;
                auto = false;
            }
            None => {
                return Err(Stop::Fail(format!("invalid suffix length: {}", quote(s))));
            }
        }
    }
    if let Mode::Chunks(_, n, _) = mode {
        auto = false;
        let base = alphabet.len() as u64;
        let mut need = 1usize;
        let mut cap = base;
        while cap < n {
            cap = cap.saturating_mul(base);
            need += 1;
        }
        if a.suffix_length.is_some() && need > len {
            return Err(Stop::Fail(format!(
                "the suffix length needs to be at least {need}"
            )));
        }
        len = len.max(need);
    }
    let mut idx = vec![0usize; len];
    let from = a
        .hex_from
        .as_ref()
        .or(a.numeric.as_ref())
        .filter(|f| !f.is_empty());
    if let Some(f) = from {
        let radix = if hex { 16 } else { 10 };
        let Some(mut v) = std::str::from_utf8(f.as_bytes())
            .ok()
            .and_then(|s| u64::from_str_radix(s, radix).ok())
        else {
            return Err(Stop::Fail(format!("invalid number: {}", quote(f))));
        };
        auto = false;
        for slot in idx.iter_mut().rev() {
            #[allow(clippy::cast_possible_truncation)]
            {
                *slot = (v % u64::from(radix)) as usize;
            }
            v /= u64::from(radix);
        }
        if v != 0 {
            return Err(Stop::Fail(
                "numerical suffix start value is too large for the suffix length".into(),
            ));
        }
    }
    Ok(Names {
        prefix: prefix.as_bytes().to_vec(),
        alphabet,
        idx,
        auto,
        additional: a
            .additional
            .as_ref()
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_default(),
        first: true,
    })
}

/// Streams `-l`/`-b`/`-C`: fills one file at a time, holding at most [`Job::chunk`] bytes
/// of it (written in parts past that); under `-C` a line and what is gathered before it
/// are held, up to the hold cap (`Err(None)`: `memory exhausted`).
fn stream(job: &mut Job, input: &mut dyn Read, mode: Mode, sep: u8) -> Result<(), Option<String>> {
    let hold = usize::try_from(job.ctx.hold_bytes()).unwrap_or(usize::MAX);
    let mut cur: Vec<u8> = Vec::new();
    let mut lines_in: u64 = 0;
    let mut bytes_in: u64 = 0;
    let mut buf = vec![0u8; 64 * 1024];
    // `-C`: the record being gathered, not yet placed.
    let mut rec: Vec<u8> = Vec::new();
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => return Err(Some(crate::FsError::from_io(&e).to_string())),
        };
        for &c in buf.get(..n).unwrap_or_default() {
            match mode {
                Mode::Lines(max) => {
                    cur.push(c);
                    if c == sep {
                        lines_in += 1;
                        if lines_in == max {
                            lines_in = 0;
                            if !job.emit(std::mem::take(&mut cur)) {
                                return Ok(());
                            }
                        }
                    }
                }
                Mode::Bytes(max) => {
                    cur.push(c);
                    // Counted apart from `cur`: what was written in parts counts too.
                    bytes_in += 1;
                    if bytes_in == max {
                        bytes_in = 0;
                        if !job.emit(std::mem::take(&mut cur)) {
                            return Ok(());
                        }
                    }
                }
                Mode::LineBytes(max) => {
                    rec.push(c);
                    if cur.len() + rec.len() > hold {
                        return Err(None);
                    }
                    let full = rec.len() as u64 == max;
                    if c != sep && !full {
                        continue;
                    }
                    if (cur.len() + rec.len()) as u64 > max
                        && !cur.is_empty()
                        && !job.emit(std::mem::take(&mut cur))
                    {
                        return Ok(());
                    }
                    cur.append(&mut rec);
                    if cur.len() as u64 == max && !job.emit(std::mem::take(&mut cur)) {
                        return Ok(());
                    }
                }
                Mode::Chunks(..) => {}
            }
            if cur.len() >= job.chunk
                && !matches!(mode, Mode::LineBytes(_))
                && !job.part(std::mem::take(&mut cur))
            {
                return Ok(());
            }
        }
    }
    if !rec.is_empty() {
        if (cur.len() + rec.len()) as u64 > mode_max(mode)
            && !cur.is_empty()
            && !job.emit(std::mem::take(&mut cur))
        {
            return Ok(());
        }
        cur.append(&mut rec);
    }
    if !cur.is_empty() || job.open.is_some() {
        job.emit(cur);
    }
    Ok(())
}

fn mode_max(mode: Mode) -> u64 {
    match mode {
        Mode::Lines(n) | Mode::Bytes(n) | Mode::LineBytes(n) => n,
        Mode::Chunks(..) => u64::MAX,
    }
}

/// `-n`: the chunks of the whole input, by index.
fn split_chunks(data: &[u8], kind: ChunkKind, n: u64, sep: u8) -> Vec<Vec<u8>> {
    let count = usize::try_from(n).unwrap_or(usize::MAX).min(1 << 20);
    let mut out: Vec<Vec<u8>> = vec![Vec::new(); count];
    let size = data.len() as u64;
    let cs = size / n;
    let index = |start: u64| -> usize {
        let k = start.checked_div(cs).unwrap_or(0).min(n - 1);
        usize::try_from(k).unwrap_or(0)
    };
    match kind {
        ChunkKind::Bytes => {
            for (k, slot) in out.iter_mut().enumerate() {
                let k = k as u64;
                let lo = usize::try_from(k * cs).unwrap_or(usize::MAX);
                let hi = if k + 1 == n {
                    data.len()
                } else {
                    usize::try_from((k + 1) * cs).unwrap_or(usize::MAX)
                };
                *slot = data.get(lo..hi).unwrap_or_default().to_vec();
            }
        }
        ChunkKind::Lines | ChunkKind::RoundRobin => {
            let mut start = 0usize;
            let mut line_no = 0u64;
            while start < data.len() {
                let end = data
                    .get(start..)
                    .and_then(|r| r.iter().position(|&c| c == sep))
                    .map_or(data.len(), |p| start + p + 1);
                let k = if kind == ChunkKind::Lines {
                    index(start as u64)
                } else {
                    usize::try_from(line_no % n).unwrap_or(0)
                };
                if let Some(slot) = out.get_mut(k) {
                    slot.extend_from_slice(data.get(start..end).unwrap_or_default());
                }
                line_no += 1;
                start = end;
            }
        }
    }
    out
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<SplitArgs>(args)?;
    if let Some(x) = a.operands.get(2) {
        return Err(Stop::Usage(format!("extra operand {}", quote(x))));
    }
    let mode = mode_of(&a)?;
    let sep = match &a.separator {
        None => b'\n',
        Some(s) => match s.as_bytes() {
            [c] => *c,
            b"\\0" => 0,
            [] => return Err(Stop::Fail("empty record separator".into())),
            _ => {
                return Err(Stop::Fail(format!(
                    "multi-character separator {}",
                    quote(s)
                )));
            }
        },
    };
    let input = a.operands.first().cloned().unwrap_or_else(|| "-".into());
    let prefix = a.operands.get(1).cloned().unwrap_or_else(|| "x".into());
    let names = names_of(&a, &prefix, mode)?;
    let mut job = Job {
        ctx,
        names,
        verbose: a.verbose,
        o: Outcome::ok(),
        open: None,
        chunk: usize::try_from(ctx.hold_bytes())
            .unwrap_or(usize::MAX)
            .clamp(1, FILE_CHUNK),
    };
    if matches!(mode, Mode::Chunks(..)) && input == "-" {
        // A pipe's size is unknown (GNU reads a regular file's size; stdin is a pipe here).
        return Err(Stop::Fail("-: cannot determine file size".into()));
    }
    let mut reader = match open_input(ctx, &input) {
        Ok(r) => r,
        Err(e) => {
            return Err(Stop::Fail(format!(
                "cannot open {} for reading: {e}",
                quote(&input)
            )));
        }
    };
    match mode {
        Mode::Chunks(kind, n, only) => {
            // The chunks are cut from the whole input, held up to the hold cap.
            let data = match read_held(ctx, reader.as_mut()) {
                Ok(d) => d,
                Err(RecordError::TooLong) => return Err(Stop::Fail(EXHAUSTED.into()).after(job.o)),
                Err(RecordError::Io(e)) => {
                    return Err(Stop::Fail(format!("{}: {e}", quote(&input))).after(job.o));
                }
            };
            let parts = split_chunks(&data, kind, n, sep);
            if let Some(k) = only {
                let k = usize::try_from(k - 1).unwrap_or(0);
                job.o.out(parts.get(k).cloned().unwrap_or_default());
                return Ok(job.o);
            }
            for p in parts {
                if a.elide && p.is_empty() {
                    continue;
                }
                if !job.emit(p) {
                    break;
                }
            }
        }
        _ => match stream(&mut job, &mut reader, mode, sep) {
            Ok(()) => {}
            Err(Some(e)) => {
                job.o.err(format!("split: {}: {e}\n", quote(&input)));
                job.o.status = 1;
            }
            Err(None) => return Err(Stop::Fail(EXHAUSTED.into()).after(job.o)),
        },
    }
    Ok(job.o)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::os::unix::ffi::OsStrExt;

    use crate::CommandName::Split;
    use crate::Op;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text};

    fn seq10() -> World {
        let data: String = (1..=10)
            .map(|i| format!("{i}\n"))
            .collect::<Vec<_>>()
            .concat();
        World::new(MemFs::rooted("/s").file("/s/in", data.as_bytes()))
    }

    /// (name, content) of the files written.
    fn files(args: &[&str]) -> Vec<(String, String)> {
        ops(&seq10().run(Split, args))
            .into_iter()
            .filter_map(|op| match op {
                Op::WriteFile { path, data, .. } => Some((
                    String::from_utf8_lossy(path.file_name().unwrap().as_bytes()).into_owned(),
                    String::from_utf8_lossy(&data).into_owned(),
                )),
                _ => None,
            })
            .collect()
    }

    fn names(args: &[&str]) -> Vec<String> {
        files(args).into_iter().map(|(n, _)| n).collect()
    }

    #[test]
    fn by_lines_bytes_and_line_bytes() {
        assert_eq!(names(&["-l", "3", "in"]), ["xaa", "xab", "xac", "xad"]);
        assert_eq!(files(&["-l", "3", "in"]).last().unwrap().1, "10\n");
        assert_eq!(
            files(&["-C", "8", "in"])
                .into_iter()
                .map(|(_, d)| d)
                .collect::<Vec<_>>(),
            ["1\n2\n3\n4\n", "5\n6\n7\n8\n", "9\n10\n"]
        );
        assert_eq!(files(&["-b", "7", "in", "p_"]).len(), 3);
        assert_eq!(
            names(&[
                "-d",
                "-a",
                "3",
                "-l",
                "4",
                "in",
                "d_",
                "--additional-suffix=.txt"
            ]),
            ["d_000.txt", "d_001.txt", "d_002.txt"]
        );
        assert_eq!(
            names(&["--numeric-suffixes=5", "-l", "5", "in", "s_"]),
            ["s_05", "s_06"]
        );
        assert_eq!(names(&["-x", "-l", "5", "in", "h_"]), ["h_00", "h_01"]);
        let o = seq10().run(Split, &["--verbose", "-l", "5", "in"]);
        assert_eq!(text(&o).0, "creating file 'xaa'\ncreating file 'xab'\n");
    }

    #[test]
    fn chunks() {
        let lens = |args: &[&str]| -> Vec<usize> {
            files(args).into_iter().map(|(_, d)| d.len()).collect()
        };
        assert_eq!(lens(&["-n", "3", "in"]), [7, 7, 7]);
        assert_eq!(lens(&["-n", "l/3", "in"]), [8, 6, 7]);
        assert_eq!(
            text(&seq10().run(Split, &["-n", "l/2/3", "in"])).0,
            "5\n6\n7\n"
        );
        assert_eq!(
            text(&seq10().run(Split, &["-n", "2/3", "in"])).0,
            "\n5\n6\n7\n"
        );
        assert_eq!(files(&["-n", "r/3", "in"])[0].1, "1\n4\n7\n10\n");
    }

    #[test]
    fn suffixes_widen_and_run_out() {
        let data: String = (1..=700)
            .map(|i| format!("{i}\n"))
            .collect::<Vec<_>>()
            .concat();
        let w = World::new(MemFs::rooted("/s").file("/s/in", data.as_bytes()));
        let n: Vec<String> = ops(&w.run(Split, &["-l", "1", "in"]))
            .into_iter()
            .filter_map(|op| match op {
                Op::WriteFile { path, .. } => {
                    Some(path.file_name().unwrap().to_string_lossy().into_owned())
                }
                _ => None,
            })
            .collect();
        assert_eq!(n[649], "xyz");
        assert_eq!(n[650], "xzaaa");
        let o = w.run(Split, &["-a", "1", "-l", "1", "in", "y_"]);
        assert_eq!(ops(&o).len(), 26);
        assert_eq!(text(&o).1, "split: output file suffixes exhausted\n");
        assert_eq!(text(&o).2, 1);
    }

    #[test]
    fn errors() {
        let err = |args: &[&str]| text(&seq10().run(Split, args)).1;
        assert_eq!(
            err(&["-l", "0", "in"]),
            "split: invalid number of lines: '0': Numerical result out of range\n"
        );
        assert_eq!(
            err(&["-b", "x", "in"]),
            "split: invalid number of bytes: 'x'\n"
        );
        assert!(err(&["-l", "2", "-b", "3", "in"]).starts_with("split: cannot split in more"));
        assert_eq!(
            err(&["-n", "q/3", "in"]),
            "split: invalid chunk number: 'q'\n"
        );
        assert!(err(&["a", "b", "c"]).starts_with("split: extra operand 'c'\nTry"));
        assert_eq!(
            err(&["nofile"]),
            "split: cannot open 'nofile' for reading: No such file or directory\n"
        );
    }
}
