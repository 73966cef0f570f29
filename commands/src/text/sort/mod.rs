//! `sort [OPTION]... [FILE]...`, GNU coreutils 9.1 in the C locale: keys (`-k POS1[,POS2]`
//! with `.CHAR` and per-key flags), field separators (`-t`, blank runs by default), the
//! orderings `-n -g -h -M -V -R -d -f -i -b -r`, `-u`, `-s`, `-m`, `-c`/`-C`, `-z` and
//! `-o FILE` (one [`Op::WriteFile`] after everything is read, so `sort -o f f` works).
//!
//! The algorithm is GNU's: each key's text is cut with `begfield`/`limfield`, keys are
//! compared in order, and unless `-s` or `-u` equal keys fall back to a byte comparison of
//! whole lines (reversed by a global `-r`). Options without `-k` form one key over the whole
//! line, and a key without flags inherits the global ones. `-R` orders by a hash salted with
//! the session's clock, so equal keys still group together as in GNU.
//!
//! Input is read as a stream into runs of at most the buffer size (`-S`, else a share of
//! the session's hold cap); a full run is sorted and spilled to a scratch file, and the runs
//! are merged at the end ([`external`]), so a file of any size sorts in bounded memory. One
//! line longer than the hold cap is `memory exhausted`.

mod compare;
mod external;
mod keys;
#[allow(clippy::wildcard_imports, unused_imports)]
use compare::*;
#[allow(clippy::wildcard_imports, unused_imports)]
use keys::*;

use std::cmp::Ordering;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use external::{Run, Spilled};

use crate::Stop;
use crate::support::argmatch::argmatch;
use crate::support::args::parse_args;
use crate::support::input::{names_stdin, operands_or_stdin};
use crate::support::size::unit_power;
use crate::text::lines::{EXHAUSTED, RecordError, Records};
use crate::{Ctx, Effect, FsError, Op, Outcome, SPILL_AT, quote, quote_if_needed, quote_locale};

/// GNU sort's failure status (`SORT_FAILURE`).
const FAIL: i32 = 2;

/// Write sorted concatenation of all FILE(s) to standard output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "sort [OPTION]... [FILE]...")]
#[allow(clippy::struct_excessive_bools)] // one bool per GNU flag
pub struct SortArgs {
    /// ignore leading blanks
    #[arg(short = 'b', long = "ignore-leading-blanks")]
    ignore_leading_blanks: bool,
    /// consider only blanks and alphanumeric characters
    #[arg(short = 'd', long = "dictionary-order")]
    dictionary_order: bool,
    /// fold lower case to upper case characters
    #[arg(short = 'f', long = "ignore-case")]
    ignore_case: bool,
    /// compare according to general numerical value
    #[arg(short = 'g', long = "general-numeric-sort")]
    general_numeric: bool,
    /// consider only printable characters
    #[arg(short = 'i', long = "ignore-nonprinting")]
    ignore_nonprinting: bool,
    /// compare (unknown) < 'JAN' < ... < 'DEC'
    #[arg(short = 'M', long = "month-sort")]
    month: bool,
    /// compare human readable numbers (e.g., 2K 1G)
    #[arg(short = 'h', long = "human-numeric-sort")]
    human: bool,
    /// compare according to string numerical value
    #[arg(short = 'n', long = "numeric-sort")]
    numeric: bool,
    /// shuffle, but group identical keys
    #[arg(short = 'R', long = "random-sort")]
    random: bool,
    /// reverse the result of comparisons
    #[arg(short = 'r', long = "reverse")]
    reverse: bool,
    /// sort according to WORD: general-numeric -g, human-numeric -h, month -M, numeric -n,
    /// random -R, version -V
    #[arg(long = "sort", value_name = "WORD", action = clap::ArgAction::Append)]
    sort: Vec<String>,
    /// natural sort of (version) numbers within text
    #[arg(short = 'V', long = "version-sort")]
    version: bool,
    /// check for sorted input; do not sort
    #[arg(short = 'c')]
    check_diagnose: bool,
    /// like -c (WHEN: 'diagnose-first'), or -C ('quiet', 'silent')
    #[arg(
        long = "check",
        value_name = "WHEN",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "diagnose-first",
        action = clap::ArgAction::Append
    )]
    check: Vec<String>,
    /// like -c, but do not report first bad line
    #[arg(short = 'C')]
    check_quiet: bool,
    /// sort via a key; KEYDEF gives location and type
    #[arg(short = 'k', long = "key", value_name = "KEYDEF", action = clap::ArgAction::Append)]
    keys: Vec<OsString>,
    /// merge already sorted files; do not sort
    #[arg(short = 'm', long = "merge")]
    merge: bool,
    /// write result to FILE instead of standard output
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<OsString>,
    /// stabilize sort by disabling last-resort comparison
    #[arg(short = 's', long = "stable")]
    stable: bool,
    /// use SIZE for main memory buffer (ignored)
    #[arg(short = 'S', long = "buffer-size", value_name = "SIZE")]
    buffer_size: Option<String>,
    /// use SEP instead of non-blank to blank transition
    #[arg(short = 't', long = "field-separator", value_name = "SEP", action = clap::ArgAction::Append)]
    separator: Vec<OsString>,
    /// use DIR for temporaries (ignored)
    #[arg(short = 'T', long = "temporary-directory", value_name = "DIR", action = clap::ArgAction::Append)]
    temp: Vec<OsString>,
    /// change the number of sorts run concurrently to N (ignored)
    #[arg(long = "parallel", value_name = "N")]
    parallel: Option<String>,
    /// with -c, check for strict ordering; without -c, output only the first of an equal run
    #[arg(short = 'u', long = "unique")]
    unique: bool,
    /// line delimiter is NUL, not newline
    #[arg(short = 'z', long = "zero-terminated")]
    zero: bool,
    files: Vec<OsString>,
}

/// Opens an operand as records, or GNU's message: what `access(R_OK)` refuses is "cannot
/// read", what open(2) refuses once access allowed it (a socket, a fifo) "open failed".
fn open_records<'c>(ctx: &'c Ctx, f: &OsStr, eol: u8) -> Result<Records<'c>, Stop> {
    Records::open(ctx, f, eol).map_err(|e| {
        let what = match e {
            FsError::TooLarge | FsError::IsADirectory | FsError::Io | FsError::TimedOut => {
                "read failed"
            }
            FsError::NoDevice | FsError::WouldBlock => "open failed",
            _ => "cannot read",
        };
        Stop::Fail(format!("{what}: {}: {e}", quote_if_needed(f)))
    })
}

/// A record that could not be read: GNU's message.
fn record_error(f: &OsStr, e: RecordError) -> Stop {
    match e {
        RecordError::TooLong => Stop::Fail(EXHAUSTED.into()),
        RecordError::Io(e) => Stop::Fail(format!("read failed: {}: {e}", quote_if_needed(f))),
    }
}

/// The buffer size: `-S SIZE` (a number of KiB, or with a suffix `b K M G T P E Z Y %`),
/// at most the session's hold cap; without it a quarter of that cap, at most 64 MiB.
fn buffer_size(a: &SortArgs, args: &[OsString], ctx: &Ctx) -> Result<usize, Stop> {
    let hold = usize::try_from(ctx.hold_bytes()).unwrap_or(usize::MAX);
    let Some(s) = &a.buffer_size else {
        return Ok((hold / 4).clamp(64 * 1024, 64 << 20));
    };
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let (num, suffix) = s.split_at(digits);
    let shift = match suffix {
        "" | "k" | "K" => Some(10),
        "b" => Some(0),
        // A percent of memory is counted as that many MiB.
        "M" | "m" | "%" => Some(20),
        "G" | "g" => Some(30),
        "T" | "t" | "P" | "p" | "E" | "e" | "Z" | "z" | "Y" | "y" => Some(40),
        _ => None,
    };
    let (Some(shift), Ok(n)) = (shift, num.parse::<u128>()) else {
        let long = args.iter().any(|w| w.as_bytes().starts_with(b"--b"));
        let opt = if long { "--buffer-size" } else { "-S" };
        // xstrtol's two messages: digits with a bad suffix, or no number at all.
        let what = if digits > 0 && shift.is_none() {
            "invalid suffix in"
        } else {
            "invalid"
        };
        return Err(Stop::Fail(format!("{what} {opt} argument {}", quote(s))));
    };
    let bytes = n
        .checked_mul(1 << shift)
        .and_then(|b| usize::try_from(b).ok())
        .unwrap_or(usize::MAX);
    Ok(bytes.clamp(1024, hold.max(1024)))
}

/// The global options as one key, and the separator, or the first option error.
fn settings(a: &SortArgs) -> Result<(Key, Option<u8>), Stop> {
    let mut g = Key::default();
    let flags = [
        (a.ignore_leading_blanks, b'b'),
        (a.dictionary_order, b'd'),
        (a.ignore_case, b'f'),
        (a.general_numeric, b'g'),
        (a.human, b'h'),
        (a.ignore_nonprinting, b'i'),
        (a.month, b'M'),
        (a.numeric, b'n'),
        (a.random, b'R'),
        (a.reverse, b'r'),
        (a.version, b'V'),
    ];
    for (on, c) in flags {
        if on {
            set_ordering(&[c], &mut g, Blanks::Both);
        }
    }
    for w in &a.sort {
        let c = argmatch(
            "--sort",
            w,
            &[
                ("general-numeric", b'g'),
                ("human-numeric", b'h'),
                ("month", b'M'),
                ("numeric", b'n'),
                ("random", b'R'),
                ("version", b'V'),
            ],
        )?;
        set_ordering(&[c], &mut g, Blanks::Both);
    }
    let mut tab: Option<u8> = None;
    for t in &a.separator {
        let b = t.as_bytes();
        let new = match b {
            [] => return Err(Stop::Fail("empty tab".into())),
            [c] => *c,
            b"\\0" => 0,
            _ => {
                return Err(Stop::Fail(format!(
                    "multi-character tab {}",
                    quote_locale(t)
                )));
            }
        };
        if tab.is_some_and(|old| old != new) {
            return Err(Stop::Fail("incompatible tabs".into()));
        }
        tab = Some(new);
    }
    Ok((g, tab))
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<SortArgs>(args)?;
    let (gkey, tab) = settings(&a)?;
    let mut keys = Vec::new();
    for spec in &a.keys {
        match parse_key(spec.as_bytes()) {
            Ok(k) => keys.push(k),
            Err(msg) => return Err(Stop::Fail(msg)),
        }
    }
    for k in &mut keys {
        if k.is_default() && !k.reverse {
            k.inherit(&gkey);
        }
    }
    if keys.is_empty() && !gkey.is_default() {
        keys.push(gkey.clone());
    }
    if let Some(k) = keys.iter().find(|k| k.incompatible()) {
        return Err(Stop::Fail(format!(
            "options '-{}' are incompatible",
            k.opts()
        )));
    }
    // -c / -C / --check=WHEN
    let mut check: Option<bool> = if a.check_quiet {
        Some(true)
    } else {
        a.check_diagnose.then_some(false)
    };
    for w in &a.check {
        // argmatch lists synonyms on one line.
        let quiet = argmatch(
            "--check",
            w,
            &[("quiet", true), ("silent", true), ("diagnose-first", false)],
        )?;
        check = Some(quiet);
    }
    let files = operands_or_stdin(a.files.clone());
    let cmp = Cmp {
        keys,
        tab,
        reverse: gkey.reverse,
        stable: a.stable,
        unique: a.unique,
        salt: crate::support::datetime::to_epoch(ctx.now).1.into(),
    };
    let eol = if a.zero { 0 } else { b'\n' };
    if let Some(quiet) = check {
        let letter = if quiet { 'C' } else { 'c' };
        if let Some(extra) = files.get(1) {
            return Err(Stop::Fail(format!(
                "extra operand {} not allowed with -{letter}",
                quote(extra)
            )));
        }
        if a.output.is_some() {
            return Err(Stop::Fail(format!("options '-{letter}o' are incompatible")));
        }
        return check_sorted(ctx, &files, &cmp, eol, quiet);
    }
    let run_bytes = buffer_size(&a, args, ctx)?;
    let line_cap = usize::try_from(ctx.hold_bytes()).unwrap_or(usize::MAX);
    let mut o = Outcome::ok();
    let mut out = Output {
        ctx,
        file: a.output.as_ref().map(|f| (ctx.resolve(f), f.clone())),
        buf: Vec::new(),
        started: false,
        written: 0,
    };
    if a.merge {
        let mut copies = Vec::new();
        for f in &files {
            copies.push(copy_if_output(
                ctx,
                f,
                out.file.as_ref(),
                &cmp,
                eol,
                line_cap,
            )?);
        }
        let mut sources = Vec::with_capacity(files.len());
        for (f, copy) in files.iter().zip(copies.iter_mut()) {
            match copy {
                Some(spilled) => sources.extend(spilled.readers()),
                None => sources.push(external::Source::Input(
                    open_records(ctx, f, eol)?,
                    Vec::new(),
                    f.as_os_str(),
                )),
            }
        }
        let r = external::merge(sources, &cmp, eol, line_cap, &mut |line| {
            Ok(out.line(&mut o, line, eol))
        });
        return finish(o, out, r);
    }
    let mut run = Run::default();
    let mut spilled: Option<Spilled> = None;
    for f in &files {
        let mut rec = open_records(ctx, f, eol)?;
        let mut polled: u64 = 0;
        loop {
            match run.push_from(&mut rec, line_cap) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => return Err(record_error(f, e)),
            }
            if run.cost() >= run_bytes {
                run.sort(&cmp);
                let sp = match &mut spilled {
                    Some(sp) => sp,
                    None => spilled.insert(Spilled::new(ctx)?),
                };
                sp.push(&run, &cmp, eol)?;
                run.clear();
            }
            polled += 1;
            if polled.is_multiple_of(4096) && ctx.expired() {
                return Ok(Outcome::status(FAIL));
            }
        }
    }
    run.sort(&cmp);
    let r = match &mut spilled {
        None => {
            let mut last: Option<&[u8]> = None;
            for i in 0..run.idx.len() {
                let line = run.line(i);
                if a.unique {
                    if last.is_some_and(|l| cmp.compare(l, line) == Ordering::Equal) {
                        continue;
                    }
                    last = Some(line);
                }
                if !out.line(&mut o, line, eol) {
                    break;
                }
            }
            Ok(())
        }
        Some(sp) => {
            let sources = external::final_sources(ctx, sp, &run, &cmp, eol)?;
            external::merge(sources, &cmp, eol, line_cap, &mut |line| {
                Ok(out.line(&mut o, line, eol))
            })
        }
    };
    finish(o, out, r)
}

/// The end of a sort or merge: what is left of the output, or the error after what was
/// written.
fn finish(mut o: Outcome, mut out: Output, r: Result<(), Stop>) -> Result<Outcome, Stop> {
    match r {
        Ok(()) => {
            out.finish(&mut o);
            Ok(o)
        }
        Err(stop) => {
            out.drain(&mut o);
            Err(stop.after(o))
        }
    }
}

/// `-m -o FILE` where FILE is also an input: the input is copied to a scratch file first,
/// as GNU does, so that writing the output does not clobber what is still to be merged.
fn copy_if_output<'c>(
    ctx: &'c Ctx,
    f: &OsStr,
    output: Option<&(PathBuf, OsString)>,
    cmp: &Cmp,
    eol: u8,
    line_cap: usize,
) -> Result<Option<Spilled<'c>>, Stop> {
    let Some((out, _)) = output else {
        return Ok(None);
    };
    if f == "-" || names_stdin(ctx, f) {
        return Ok(None);
    }
    let same = match (ctx.fs.stat(&ctx.resolve(f), true), ctx.fs.stat(out, true)) {
        (Ok(a), Ok(b)) => a.dev == b.dev && a.ino == b.ino,
        _ => false,
    };
    if !same {
        return Ok(None);
    }
    let mut rec = open_records(ctx, f, eol)?;
    let mut sp = Spilled::new(ctx)?;
    let mut run = Run::default();
    loop {
        match run.push_from(&mut rec, line_cap) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return Err(record_error(f, e)),
        }
        if run.cost() >= (1 << 20) {
            sp.push_raw(&run, cmp, eol)?;
            run.clear();
        }
    }
    sp.push_raw(&run, cmp, eol)?;
    sp.join_runs();
    Ok(Some(sp))
}

/// Where the sorted lines go: stdout in chunks (polling [`Ctx::flush`]), or `-o FILE` in
/// writes of [`FILE_CHUNK`] (the first one truncating), each applied as it is made.
struct Output<'c, 'a> {
    ctx: &'c Ctx<'a>,
    file: Option<(PathBuf, OsString)>,
    buf: Vec<u8>,
    /// A write to the file was made.
    started: bool,
    /// The bytes the file is known to hold.
    written: u64,
}

/// The bytes gathered before a write to `-o FILE`.
const FILE_CHUNK: usize = 4 << 20;

impl Output<'_, '_> {
    /// Adds one line; false when the output is gone (or the deadline passed): stop.
    fn line(&mut self, o: &mut Outcome, line: &[u8], eol: u8) -> bool {
        self.buf.extend_from_slice(line);
        self.buf.push(eol);
        if self.file.is_none() {
            if self.buf.len() >= SPILL_AT {
                o.out(std::mem::take(&mut self.buf));
                return self.ctx.flush(o);
            }
            return true;
        }
        if self.buf.len() >= FILE_CHUNK {
            return self.write_file(o);
        }
        true
    }

    /// One write to `-o FILE`; false when it failed (its effect said so) or the deadline
    /// passed.
    fn write_file(&mut self, o: &mut Outcome) -> bool {
        let Some((path, name)) = &self.file else {
            return true;
        };
        let data = std::mem::take(&mut self.buf);
        let n = data.len() as u64;
        let what = if self.started {
            "write failed"
        } else {
            "open failed"
        };
        let mut e = Effect::new(
            Op::WriteFile {
                path: path.clone(),
                data,
                append: self.started,
            },
            format!("{}: {what}: {}", self.ctx.name, quote_if_needed(name)),
        );
        e.fail_status = FAIL;
        o.effect(e);
        self.started = true;
        if self.ctx.apply_now(o) {
            self.written += n;
            let held = self.ctx.fs.stat(path, true).map(|m| m.len);
            if held != Ok(self.written) {
                return false;
            }
        }
        !self.ctx.expired()
    }

    /// Hands over what is buffered (before a diagnostic).
    fn drain(&mut self, o: &mut Outcome) {
        if self.file.is_none() {
            if !self.buf.is_empty() {
                o.out(std::mem::take(&mut self.buf));
            }
        } else if !self.buf.is_empty() {
            self.write_file(o);
        }
    }

    /// The end: the rest, and for `-o` at least one write (an empty output truncates).
    fn finish(&mut self, o: &mut Outcome) {
        if self.file.is_some() && !self.started {
            self.write_file(o);
        } else {
            self.drain(o);
        }
    }
}

/// `-c`/`-C`: the first line out of order (or equal to the previous one with `-u`), read
/// as a stream holding two lines.
fn check_sorted(
    ctx: &Ctx,
    files: &[OsString],
    cmp: &Cmp,
    eol: u8,
    quiet: bool,
) -> Result<Outcome, Stop> {
    let Some(file) = files.first() else {
        return Ok(Outcome::ok());
    };
    let line_cap = usize::try_from(ctx.hold_bytes()).unwrap_or(usize::MAX);
    let mut rec = open_records(ctx, file, eol)?;
    let (mut prev, mut line) = (Vec::new(), Vec::new());
    let mut n: u64 = 0;
    loop {
        line.clear();
        match rec.append_capped(&mut line, line_cap) {
            Ok(true) => {}
            Ok(false) => return Ok(Outcome::ok()),
            Err(e) => return Err(record_error(file, e)),
        }
        if line.last() == Some(&eol) {
            line.pop();
        }
        n += 1;
        if n > 1 {
            let d = cmp.compare(&prev, &line);
            if d == Ordering::Greater || (cmp.unique && d == Ordering::Equal) {
                let mut o = Outcome::status(1);
                if !quiet {
                    let mut msg =
                        format!("{}: {}:{n}: disorder: ", ctx.name, file.to_string_lossy())
                            .into_bytes();
                    msg.extend_from_slice(&line);
                    msg.push(b'\n');
                    o.err(msg);
                }
                return Ok(o);
            }
        }
        std::mem::swap(&mut prev, &mut line);
        if n.is_multiple_of(4096) && ctx.expired() {
            return Ok(Outcome::status(FAIL));
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::path::PathBuf;

    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text};
    use crate::{FsError, Op};

    const UNSORTED: &[u8] = b"b\na\nc\na\nB\n10\n9\n100\n-1\n2.5\n1e3\n\nb\n";

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .dir("/s/d")
                .file("/s/u", UNSORTED)
                .file("/s/csv", b"name,age\nalice,30\nbob,25\ncarol,35\ndave,25\n")
                .file("/s/sizes", b"1K\n2M\n512\n1G\n3k\n")
                .file("/s/vers", b"v1.10\nv1.2\nv1.9\nv2.0\nv1.2.3\n")
                .file("/s/ws", b"b  2\na 10\n  c 1\n")
                .file("/s/months", b"mar x\nJan y\nfoo\nDEC z\n")
                .file("/s/g", b"1e3\n-inf\nnan\nabc\n0x10\n.5\n")
                .file("/s/s1", b"a\nc\ne\n")
                .file("/s/s2", b"b\nc\nd\n"),
        )
    }

    fn sort(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Sort, args))
    }

    fn out(s: &str) -> (String, String, i32) {
        (s.into(), String::new(), 0)
    }

    #[test]
    fn orderings_as_gnu() {
        // Every expected output copied from GNU sort 9.1 with LC_ALL=C on the same bytes.
        let w = world();
        assert_eq!(
            sort(&w, &["u"]),
            out("\n-1\n10\n100\n1e3\n2.5\n9\nB\na\na\nb\nb\nc\n")
        );
        assert_eq!(
            sort(&w, &["-n", "u"]),
            out("-1\n\nB\na\na\nb\nb\nc\n1e3\n2.5\n9\n10\n100\n")
        );
        assert_eq!(
            sort(&w, &["-rn", "u"]),
            out("100\n10\n9\n2.5\n1e3\nc\nb\nb\na\na\nB\n\n-1\n")
        );
        assert_eq!(
            sort(&w, &["-u", "u"]),
            out("\n-1\n10\n100\n1e3\n2.5\n9\nB\na\nb\nc\n")
        );
        assert_eq!(
            sort(&w, &["-f", "u"]),
            out("\n-1\n10\n100\n1e3\n2.5\n9\na\na\nB\nb\nb\nc\n")
        );
        assert_eq!(
            sort(&w, &["-fu", "u"]),
            out("\n-1\n10\n100\n1e3\n2.5\n9\na\nb\nc\n")
        );
        assert_eq!(
            sort(&w, &["-g", "u"]),
            out("\nB\na\na\nb\nb\nc\n-1\n2.5\n9\n10\n100\n1e3\n")
        );
        assert_eq!(
            sort(&w, &["-g", "g"]),
            out("abc\nnan\n-inf\n.5\n0x10\n1e3\n")
        );
        assert_eq!(sort(&w, &["-h", "sizes"]), out("512\n1K\n3k\n2M\n1G\n"));
        assert_eq!(
            sort(&w, &["-V", "vers"]),
            out("v1.2\nv1.2.3\nv1.9\nv1.10\nv2.0\n")
        );
        assert_eq!(
            sort(&w, &["-M", "months"]),
            out("foo\nJan y\nmar x\nDEC z\n")
        );
        assert_eq!(sort(&w, &["-d", "ws"]), out("  c 1\na 10\nb  2\n"));
        assert_eq!(sort(&w, &["-b", "ws"]), out("a 10\nb  2\n  c 1\n"));
    }

    #[test]
    fn keys_as_gnu() {
        let w = world();
        assert_eq!(
            sort(&w, &["-t", ",", "-k2n", "csv"]),
            out("name,age\nbob,25\ndave,25\nalice,30\ncarol,35\n")
        );
        assert_eq!(
            sort(&w, &["-t", ",", "-k2,2n", "-k1,1r", "csv"]),
            out("name,age\ndave,25\nbob,25\nalice,30\ncarol,35\n")
        );
        assert_eq!(
            sort(&w, &["-t,", "-k2,2nr", "-s", "csv"]),
            out("carol,35\nalice,30\nbob,25\ndave,25\nname,age\n")
        );
        assert_eq!(
            sort(&w, &["-t,", "-k1.2,1.2", "csv"]),
            out("carol,35\ndave,25\nname,age\nalice,30\nbob,25\n")
        );
        assert_eq!(sort(&w, &["-k2n", "ws"]), out("  c 1\nb  2\na 10\n"));
        assert_eq!(sort(&w, &["-k2", "ws"]), out("b  2\n  c 1\na 10\n"));
        assert_eq!(sort(&w, &["-k2b", "ws"]), out("  c 1\na 10\nb  2\n"));
        assert_eq!(
            sort(&w, &["-t,", "-k2,2", "-u", "csv"]),
            out("bob,25\nalice,30\ncarol,35\nname,age\n")
        );
    }

    #[test]
    fn merge_check_zero_output() {
        let w = world().stdin(b"z\0a\0");
        assert_eq!(sort(&w, &["-m", "s1", "s2"]), out("a\nb\nc\nc\nd\ne\n"));
        assert_eq!(sort(&w, &["-mu", "s1", "s2"]), out("a\nb\nc\nd\ne\n"));
        assert_eq!(sort(&w, &["-z"]).0, "a\0z\0");
        assert_eq!(
            sort(&w, &["-c", "u"]),
            (String::new(), "sort: u:2: disorder: a\n".into(), 1)
        );
        assert_eq!(sort(&w, &["-C", "u"]), (String::new(), String::new(), 1));
        assert_eq!(sort(&w, &["-c", "s1"]), out(""));
        let o = w.run(crate::CommandName::Sort, &["-o", "s1", "s2", "s1"]);
        assert_eq!(text(&o), out(""));
        assert_eq!(
            ops(&o),
            [Op::WriteFile {
                path: PathBuf::from("/s/s1"),
                data: b"a\nb\nc\nc\nd\ne\n".to_vec(),
                append: false
            }]
        );
        let e = o.effects().next().unwrap();
        assert_eq!(e.on_err.as_deref(), Some("sort: open failed: s1"));
        assert_eq!(e.fail_status, 2);
    }

    /// Lines with fields, numbers, case and blanks, from a fixed seed.
    fn many_lines(seed: u64, n: usize) -> Vec<u8> {
        let mut x = seed | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let words = [
            "a", "B", "b", "10", "9", "-3", "1.5", "2K", "x y", "", " c", "Jan", "v1.2",
        ];
        let mut out = Vec::new();
        for _ in 0..n {
            let k = usize::try_from(next() % 4).unwrap() + 1;
            for f in 0..k {
                if f > 0 {
                    out.push(if next() % 3 == 0 { b' ' } else { b',' });
                }
                let w = words[usize::try_from(next() % words.len() as u64).unwrap()];
                out.extend_from_slice(w.as_bytes());
            }
            out.push(b'\n');
        }
        out
    }

    #[test]
    fn spilled_runs_merge_to_the_in_memory_order() {
        // -S 1K makes runs of about 1 KiB: a few thousand lines spill dozens of runs,
        // merged in two passes; the output must be the one-run sort's, byte for byte.
        let options: &[&[&str]] = &[
            &[],
            &["-r"],
            &["-u"],
            &["-s"],
            &["-n"],
            &["-rn"],
            &["-f", "-u"],
            &["-t,", "-k2,2"],
            &["-t,", "-k2,2", "-s"],
            &["-t,", "-k2n", "-k1,1r"],
            &["-t,", "-k2,2", "-u"],
            &["-k2", "-b"],
            &["-h"],
            &["-g"],
            &["-V"],
            &["-M", "-k1,1"],
            &["-d", "-f"],
            &["-R"],
            &["-z"],
        ];
        for seed in [1u64, 7, 42] {
            let data = many_lines(seed, 3000);
            let w = World::new(MemFs::rooted("/s").file("/s/in", &data));
            for opts in options {
                let mut small = vec!["-S", "1K"];
                small.extend_from_slice(opts);
                small.push("in");
                let mut whole = opts.to_vec();
                whole.push("in");
                let (a, b) = (sort(&w, &whole), sort(&w, &small));
                assert_eq!(a.2, 0, "{opts:?}: {}", a.1);
                assert!(a == b, "seed {seed} {opts:?}");
            }
            // -c agrees with the sort it checks; -m of two sorted halves.
            let sorted = sort(&w, &["in"]).0;
            let w2 = World::new(
                MemFs::rooted("/s")
                    .file("/s/sorted", sorted.as_bytes())
                    .file("/s/in", &data),
            );
            assert_eq!(sort(&w2, &["-c", "sorted"]), out(""));
            assert_eq!(
                sort(&w2, &["-m", "-S", "1K", "sorted", "sorted"]).0.len(),
                sorted.len() * 2
            );
        }
    }

    #[test]
    fn buffer_size_is_checked() {
        let w = world().stdin(b"b\na\n");
        assert_eq!(sort(&w, &["-S", "10K"]), out("a\nb\n"));
        assert_eq!(sort(&w, &["-S", "1%"]), out("a\nb\n"));
        assert_eq!(
            sort(&w, &["-S", "x"]),
            (String::new(), "sort: invalid -S argument 'x'\n".into(), 2)
        );
        assert_eq!(
            sort(&w, &["-S", "1q"]),
            (
                String::new(),
                "sort: invalid suffix in -S argument '1q'\n".into(),
                2
            )
        );
        assert_eq!(
            sort(&w, &["--buffer-size=q"]),
            (
                String::new(),
                "sort: invalid --buffer-size argument 'q'\n".into(),
                2
            )
        );
    }

    #[test]
    fn merge_output_onto_an_input_copies_it_first() {
        let w = world();
        let o = w.run(crate::CommandName::Sort, &["-m", "-o", "s1", "s1", "s2"]);
        assert_eq!(
            ops(&o),
            [Op::WriteFile {
                path: PathBuf::from("/s/s1"),
                data: b"a\nb\nc\nc\nd\ne\n".to_vec(),
                append: false
            }]
        );
    }

    #[test]
    fn errors_as_gnu() {
        let w = world().stdin(b"1\n2\n2\n");
        let cases: &[(&[&str], &str)] = &[
            (
                &["nope", "u"],
                "sort: cannot read: nope: No such file or directory\n",
            ),
            (&["u", "d"], "sort: read failed: d: Is a directory\n"),
            (
                &["-k", "x"],
                "sort: invalid number at field start: invalid count at start of 'x'\n",
            ),
            (
                &["-k", "0"],
                "sort: field number is zero: invalid field specification '0'\n",
            ),
            (
                &["-k", "1.0"],
                "sort: character offset is zero: invalid field specification '1.0'\n",
            ),
            (
                &["-k", "1,x"],
                "sort: invalid number after ',': invalid count at start of 'x'\n",
            ),
            (
                &["-k", "1.1x"],
                "sort: stray character in field spec: invalid field specification '1.1x'\n",
            ),
            (
                &["-k", "1,0"],
                "sort: field number is zero: invalid field specification '1,0'\n",
            ),
            (
                &["-k", ""],
                "sort: invalid number at field start: invalid count at start of ''\n",
            ),
            (&["-t", "ab"], "sort: multi-character tab 'ab'\n"),
            (&["-t", ""], "sort: empty tab\n"),
            (&["-t", "a", "-t", "b"], "sort: incompatible tabs\n"),
            (
                &["-c", "u", "u"],
                "sort: extra operand 'u' not allowed with -c\n",
            ),
            (&["-co", "x", "u"], "sort: options '-co' are incompatible\n"),
            (&["-ng"], "sort: options '-gn' are incompatible\n"),
            (&["-k1n,1g"], "sort: options '-gn' are incompatible\n"),
            (&["-dn"], "sort: options '-dn' are incompatible\n"),
            (&["-Rn"], "sort: options '-nR' are incompatible\n"),
            (&["-Mn"], "sort: options '-Mn' are incompatible\n"),
            (
                &["-x"],
                "sort: invalid option -- 'x'\nTry 'sort --help' for more information.\n",
            ),
        ];
        for (args, err) in cases {
            assert_eq!(
                sort(&w, args),
                (String::new(), (*err).to_string(), 2),
                "{args:?}"
            );
        }
        assert_eq!(
            sort(&w, &["-cu"]),
            (String::new(), "sort: -:3: disorder: 2\n".into(), 1)
        );
        let w = World::new(
            MemFs::rooted("/s")
                .file("/s/big", b"x\n")
                .fail("/s/big", FsError::TooLarge),
        );
        assert_eq!(
            sort(&w, &["big"]).1,
            "sort: read failed: big: File too large\n"
        );
    }
}
