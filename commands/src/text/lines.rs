//! What the line filters share (`nl`, `paste`, `comm`, `join`, `fold`, `expand`, `rev`...):
//! an operand opened as a stream and read one record at a time up to a delimiter byte (`\n`,
//! or NUL under `-z`), and the output buffer that goes to the outcome in chunks, polling
//! [`Ctx::flush`] so that a large input streams in bounded memory.

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Read};
use std::os::unix::ffi::OsStrExt;

use crate::support::input::open_input;
use crate::{Ctx, Effect, FsError, Op, Outcome};

/// The line delimiter: NUL under `-z`, else newline.
pub fn eol(zero: bool) -> u8 {
    if zero { 0 } else { b'\n' }
}

/// An input read record by record.
pub struct Records<'a> {
    reader: BufReader<Box<dyn Read + 'a>>,
    pub delim: u8,
    /// The longest record [`Records::next_into`] reads (the session's hold cap for an
    /// operand opened with [`Records::open`]).
    cap: usize,
}

impl<'a> Records<'a> {
    /// Opens an operand (`-` is stdin) through [`open_input`].
    pub fn open(ctx: &'a Ctx, operand: &OsStr, delim: u8) -> Result<Self, FsError> {
        open_input(ctx, operand).map(|r| {
            let mut rec = Records::from_reader(r, delim);
            rec.cap = usize::try_from(ctx.hold_bytes()).unwrap_or(usize::MAX);
            rec
        })
    }

    /// Reads an already open stream.
    pub fn from_reader(r: Box<dyn Read + 'a>, delim: u8) -> Self {
        Records {
            reader: BufReader::with_capacity(64 * 1024, r),
            delim,
            cap: usize::MAX,
        }
    }

    /// The next record into `buf` (cleared first), with its delimiter when it has one;
    /// false at the end of the input. A record longer than the cap is `EFBIG`
    /// (`TooLarge`), never an abort.
    pub fn next_into(&mut self, buf: &mut Vec<u8>) -> Result<bool, FsError> {
        buf.clear();
        match self.append_capped(buf, self.cap) {
            Ok(more) => Ok(more),
            Err(RecordError::Io(e)) => Err(e),
            Err(RecordError::TooLong) => Err(FsError::TooLarge),
        }
    }

    /// Appends the next record to `out` (with its delimiter when it has one), refusing one
    /// longer than `cap` bytes ([`RecordError::TooLong`]: what is appended so far stays) and
    /// growing `out` fallibly, so that one huge line is an error, never an abort. False at
    /// the end of the input.
    pub fn append_capped(&mut self, out: &mut Vec<u8>, cap: usize) -> Result<bool, RecordError> {
        let start = out.len();
        loop {
            let avail = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(RecordError::Io(FsError::from_io(&e))),
            };
            if avail.is_empty() {
                return Ok(out.len() > start);
            }
            let (take, done) = match memchr::memchr(self.delim, avail) {
                Some(i) => (i + 1, true),
                None => (avail.len(), false),
            };
            if (out.len() - start).saturating_add(take) > cap || out.try_reserve(take).is_err() {
                return Err(RecordError::TooLong);
            }
            out.extend_from_slice(avail.get(..take).unwrap_or_default());
            self.reader.consume(take);
            if done {
                return Ok(true);
            }
        }
    }

    /// Reads raw bytes (for the filters that work on bytes, not records).
    pub fn read_chunk(&mut self, buf: &mut [u8]) -> Result<usize, FsError> {
        loop {
            match self.reader.read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(FsError::from_io(&e)),
            }
        }
    }
}

/// Why [`Records::append_capped`] stopped.
#[derive(Debug)]
pub enum RecordError {
    /// Reading failed.
    Io(FsError),
    /// The record is longer than the cap (or memory for it could not be had): GNU's
    /// `memory exhausted`.
    TooLong,
}

/// All of an input a command must hold (`tac`, `shuf`), read in chunks up to the session's
/// hold cap ([`Ctx::hold_bytes`]): past it, or when memory cannot be had,
/// [`RecordError::TooLong`] (GNU's `memory exhausted`), never an abort. The deadline is
/// looked at after each chunk (`TimedOut`).
pub fn read_held(ctx: &Ctx, r: &mut dyn Read) -> Result<Vec<u8>, RecordError> {
    let cap = usize::try_from(ctx.hold_bytes()).unwrap_or(usize::MAX);
    let mut data = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => return Ok(data),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(RecordError::Io(FsError::from_io(&e))),
        };
        if data.len().saturating_add(n) > cap || data.try_reserve(n).is_err() {
            return Err(RecordError::TooLong);
        }
        data.extend_from_slice(buf.get(..n).unwrap_or_default());
        if ctx.expired() {
            return Err(RecordError::Io(FsError::TimedOut));
        }
    }
}

/// GNU's message when memory runs out (`xalloc_die`).
pub const EXHAUSTED: &str = "memory exhausted";

/// A record without its delimiter, and whether it had one.
pub fn split_eol(record: &[u8], delim: u8) -> (&[u8], bool) {
    match record.split_last() {
        Some((&last, body)) if last == delim => (body, true),
        _ => (record, false),
    }
}

/// Output gathered in a buffer and handed to the outcome in chunks.
pub struct Sink {
    pub buf: Vec<u8>,
}

/// How much output is gathered before it goes to the outcome.
const CHUNK: usize = 32 * 1024;

impl Sink {
    pub fn new() -> Self {
        Sink { buf: Vec::new() }
    }

    /// Hands the buffer to the outcome once it is large; false when nobody reads any more
    /// (the command then stops, as on `SIGPIPE`).
    pub fn poll(&mut self, o: &mut Outcome, ctx: &Ctx) -> bool {
        if self.buf.len() < CHUNK {
            return true;
        }
        self.drain(o);
        ctx.flush(o)
    }

    /// Hands whatever is buffered to the outcome (before a diagnostic, and at the end).
    pub fn drain(&mut self, o: &mut Outcome) {
        if !self.buf.is_empty() {
            o.out(std::mem::take(&mut self.buf));
        }
    }
}

/// An output file operand (`uniq IN OUT`) written in chunks of [`FILE_CHUNK`] bytes, each
/// one effect applied as it is made (the first truncating, the next ones appending), so a
/// large output never sits whole in memory.
pub struct FileOut {
    pub path: std::path::PathBuf,
    /// The effect's message for the first write (`uniq: out`), and for the next ones.
    pub first_err: String,
    pub later_err: String,
    pub fail_status: i32,
    started: bool,
    written: u64,
}

/// The bytes gathered before one write of a [`FileOut`].
pub const FILE_CHUNK: usize = 4 << 20;

impl FileOut {
    pub fn new(path: std::path::PathBuf, first_err: String, later_err: String) -> Self {
        FileOut {
            path,
            first_err,
            later_err,
            fail_status: 1,
            started: false,
            written: 0,
        }
    }

    /// Appends from the first write on (`tee -a`): the file's length now is where its
    /// writes start.
    #[must_use]
    pub fn appending(mut self, ctx: &Ctx) -> Self {
        self.started = true;
        self.written = ctx.fs.stat(&self.path, true).map_or(0, |m| m.len);
        self
    }

    /// Whether a write was made already.
    pub fn started(&self) -> bool {
        self.started
    }

    /// One write; false when it failed (its effect reported it) or the deadline passed:
    /// stop.
    pub fn write(&mut self, ctx: &Ctx, o: &mut Outcome, data: Vec<u8>) -> bool {
        let n = data.len() as u64;
        let msg = if self.started {
            self.later_err.clone()
        } else {
            self.first_err.clone()
        };
        let mut e = Effect::new(
            Op::WriteFile {
                path: self.path.clone(),
                data,
                append: self.started,
            },
            msg,
        );
        e.fail_status = self.fail_status;
        o.effect(e);
        self.started = true;
        if ctx.apply_now(o) {
            self.written += n;
            if ctx.fs.stat(&self.path, true).map(|m| m.len) != Ok(self.written) {
                return false;
            }
        }
        !ctx.expired()
    }
}

/// The obsolete `-N` option of `fold` (`-w N`), `expand` and `unexpand` (`-t N`, where
/// `-N,M` lists stops too) rewritten as `-LETTER N`; a word that is the value of the option
/// (`-w -1`), or after `--`, is left alone.
pub fn obsolete_number(args: &[OsString], letter: u8, long: &str, commas: bool) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut value_next = false;
    for (i, a) in args.iter().enumerate() {
        let b = a.as_bytes();
        if b == b"--" {
            out.extend(args.iter().skip(i).cloned());
            break;
        }
        let is_value = std::mem::replace(
            &mut value_next,
            (b.len() > 2 && long.as_bytes().starts_with(b))
                || (b.first() == Some(&b'-')
                    && b.get(1) != Some(&b'-')
                    && b.last() == Some(&letter)),
        );
        if !is_value
            && b.first() == Some(&b'-')
            && b.get(1).is_some_and(u8::is_ascii_digit)
            && b.iter()
                .skip(1)
                .all(|c| c.is_ascii_digit() || (commas && *c == b','))
        {
            let mut w = OsString::from(format!("-{}", char::from(letter)));
            w.push(OsStr::from_bytes(b.get(1..).unwrap_or_default()));
            out.push(w);
        } else {
            out.push(a.clone());
        }
    }
    out
}
