//! Sorting in bounded memory, as GNU sort does: lines are gathered into a run of at most
//! the buffer size (`-S`, else a share of the session's hold cap); a full run is sorted and
//! written to a scratch file ([`Ctx::scratch`]: in the state directory, charged to the quota,
//! gone when dropped); at the end the runs are merged, [`NMERGE`] at a time (earlier passes
//! into new scratch files), the last run straight from memory. A merge takes the smallest
//! head and, on a tie, the earlier run's, so the output is that of one stable sort of all
//! the lines with the same comparison: byte for byte the in-memory result.

use std::cell::RefCell;
use std::io::{Read, Seek, SeekFrom, Write};

#[allow(clippy::wildcard_imports)]
use super::*;
use crate::ScratchFile;
use crate::text::lines::{EXHAUSTED, RecordError, Records};

/// How many runs one merge pass reads at once (GNU's `NMERGE` default).
pub(super) const NMERGE: usize = 16;

/// What a line costs in a run besides its bytes (its index entry).
const LINE_COST: usize = std::mem::size_of::<(usize, usize)>();

/// The bytes read from a scratch file at once, per run being merged.
const READ_CHUNK: usize = 64 * 1024;

/// Lines gathered in memory: their bytes, and each line's place (without its delimiter).
#[derive(Default)]
pub(super) struct Run {
    pub(super) data: Vec<u8>,
    pub(super) idx: Vec<(usize, usize)>,
}

impl Run {
    /// The memory the run holds, as counted against the buffer size.
    pub(super) fn cost(&self) -> usize {
        self.data
            .len()
            .saturating_add(self.idx.len().saturating_mul(LINE_COST))
    }

    pub(super) fn line(&self, i: usize) -> &[u8] {
        self.idx
            .get(i)
            .and_then(|&(s, l)| self.data.get(s..s + l))
            .unwrap_or_default()
    }

    /// Reads the next record of `rec` into the run; false at the end of the input.
    pub(super) fn push_from(
        &mut self,
        rec: &mut Records,
        line_cap: usize,
    ) -> Result<bool, RecordError> {
        let start = self.data.len();
        if !rec.append_capped(&mut self.data, line_cap)? {
            return Ok(false);
        }
        if self.data.last() == Some(&rec.delim) {
            self.data.pop();
        }
        self.idx.try_reserve(1).map_err(|_| RecordError::TooLong)?;
        self.idx.push((start, self.data.len() - start));
        Ok(true)
    }

    /// Sorts the lines (stably: ties keep their input order).
    pub(super) fn sort(&mut self, cmp: &Cmp) {
        let data = &self.data;
        let get = |&(s, l): &(usize, usize)| data.get(s..s + l).unwrap_or_default();
        self.idx.sort_by(|a, b| cmp.compare(get(a), get(b)));
    }

    pub(super) fn clear(&mut self) {
        self.data.clear();
        self.idx.clear();
    }
}

/// Sorted runs written one after the other in one scratch file.
pub(super) struct Spilled<'c> {
    file: RefCell<Box<dyn ScratchFile + 'c>>,
    /// Each run's offset and length.
    runs: Vec<(u64, u64)>,
    len: u64,
}

/// The name GNU would show for its temporary file (the sandbox shows no real one).
pub(super) fn temp_name(cmp: &Cmp) -> String {
    let mut x = cmp.salt | 1;
    let name: String = (0..6)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let set = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
            char::from(set.get((x % 62) as usize).copied().unwrap_or(b'X'))
        })
        .collect();
    format!("/tmp/sort{name}")
}

/// GNU's messages for a scratch file that cannot be made or written.
fn create_failed(e: &FsError) -> Stop {
    Stop::Fail(format!("cannot create temporary file in '/tmp': {e}"))
}

fn write_failed(cmp: &Cmp, e: &std::io::Error) -> Stop {
    Stop::Fail(format!(
        "write failed: {}: {}",
        temp_name(cmp),
        FsError::from_io(e)
    ))
}

/// A buffer in front of a scratch file's writes.
struct RunWriter<'f, 'c> {
    file: &'f mut Box<dyn ScratchFile + 'c>,
    buf: Vec<u8>,
    written: u64,
}

impl RunWriter<'_, '_> {
    fn line(&mut self, line: &[u8], eol: u8) -> std::io::Result<()> {
        self.buf.extend_from_slice(line);
        self.buf.push(eol);
        if self.buf.len() >= READ_CHUNK {
            self.drain()?;
        }
        Ok(())
    }

    fn drain(&mut self) -> std::io::Result<()> {
        self.file.write_all(&self.buf)?;
        self.written += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }
}

impl<'c> Spilled<'c> {
    pub(super) fn new(ctx: &'c Ctx) -> Result<Self, Stop> {
        let file = ctx.scratch().map_err(|e| create_failed(&e))?;
        Ok(Spilled {
            file: RefCell::new(file),
            runs: Vec::new(),
            len: 0,
        })
    }

    pub(super) fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Appends a sorted run (without the later of equal lines under `-u`).
    pub(super) fn push(&mut self, run: &Run, cmp: &Cmp, eol: u8) -> Result<(), Stop> {
        self.append(run, cmp, eol, cmp.unique)
    }

    /// Appends lines as they are (a copy of an input of `-m`).
    pub(super) fn push_raw(&mut self, run: &Run, cmp: &Cmp, eol: u8) -> Result<(), Stop> {
        self.append(run, cmp, eol, false)
    }

    /// Makes everything appended so far one run.
    pub(super) fn join_runs(&mut self) {
        self.runs = vec![(0, self.len)];
    }

    fn append(&mut self, run: &Run, cmp: &Cmp, eol: u8, dedupe: bool) -> Result<(), Stop> {
        let mut file = self.file.borrow_mut();
        file.seek(SeekFrom::Start(self.len))
            .map_err(|e| write_failed(cmp, &e))?;
        let mut w = RunWriter {
            file: &mut file,
            buf: Vec::with_capacity(READ_CHUNK * 2),
            written: 0,
        };
        let mut last: Option<&[u8]> = None;
        for i in 0..run.idx.len() {
            let line = run.line(i);
            if dedupe {
                if last.is_some_and(|l| cmp.compare(l, line) == Ordering::Equal) {
                    continue;
                }
                last = Some(line);
            }
            w.line(line, eol).map_err(|e| write_failed(cmp, &e))?;
        }
        w.drain().map_err(|e| write_failed(cmp, &e))?;
        self.runs.push((self.len, w.written));
        self.len += w.written;
        Ok(())
    }

    /// A reader of each run, in order.
    pub(super) fn readers(&self) -> Vec<Source<'_, 'c>> {
        self.runs
            .iter()
            .map(|&(off, len)| {
                Source::File(RunReader {
                    file: &self.file,
                    off,
                    end: off + len,
                    buf: Vec::new(),
                    pos: 0,
                    line: Vec::new(),
                })
            })
            .collect()
    }
}

/// Reads one run of a [`Spilled`] file line by line.
pub(super) struct RunReader<'s, 'c> {
    file: &'s RefCell<Box<dyn ScratchFile + 'c>>,
    off: u64,
    end: u64,
    buf: Vec<u8>,
    pos: usize,
    line: Vec<u8>,
}

impl RunReader<'_, '_> {
    fn next(&mut self, eol: u8) -> std::io::Result<bool> {
        self.line.clear();
        loop {
            let rest = self.buf.get(self.pos..).unwrap_or_default();
            if let Some(i) = memchr::memchr(eol, rest) {
                self.line
                    .extend_from_slice(rest.get(..i).unwrap_or_default());
                self.pos += i + 1;
                return Ok(true);
            }
            self.line.extend_from_slice(rest);
            self.pos = self.buf.len();
            if self.off >= self.end {
                return Ok(!self.line.is_empty());
            }
            let want = usize::try_from(self.end - self.off)
                .unwrap_or(READ_CHUNK)
                .min(READ_CHUNK);
            self.buf.resize(want, 0);
            let mut f = self.file.borrow_mut();
            f.seek(SeekFrom::Start(self.off))?;
            f.read_exact(&mut self.buf)?;
            self.off += want as u64;
            self.pos = 0;
        }
    }
}

/// One sorted sequence of lines being merged.
pub(super) enum Source<'s, 'c> {
    /// A run still in memory, and the position of its next line.
    Mem(&'s Run, usize),
    /// A run in a scratch file.
    File(RunReader<'s, 'c>),
    /// An input of `-m`, and its name (for a read error).
    Input(Records<'c>, Vec<u8>, &'s OsStr),
}

impl Source<'_, '_> {
    fn head(&self) -> &[u8] {
        match self {
            Source::Mem(run, i) => run.line(*i),
            Source::File(r) => &r.line,
            Source::Input(_, line, _) => line,
        }
    }

    /// Moves to the next line (the first one when `first`); false at the end.
    fn advance(&mut self, first: bool, cmp: &Cmp, eol: u8, line_cap: usize) -> Result<bool, Stop> {
        match self {
            Source::Mem(run, i) => {
                if !first {
                    *i += 1;
                }
                Ok(*i < run.idx.len())
            }
            Source::File(r) => r.next(eol).map_err(|e| {
                Stop::Fail(format!(
                    "read failed: {}: {}",
                    temp_name(cmp),
                    FsError::from_io(&e)
                ))
            }),
            Source::Input(rec, line, name) => {
                line.clear();
                match rec.append_capped(line, line_cap) {
                    Ok(more) => {
                        if line.last() == Some(&eol) {
                            line.pop();
                        }
                        Ok(more)
                    }
                    Err(RecordError::TooLong) => Err(Stop::Fail(EXHAUSTED.into())),
                    Err(RecordError::Io(e)) => Err(Stop::Fail(format!(
                        "read failed: {}: {e}",
                        quote_if_needed(name)
                    ))),
                }
            }
        }
    }
}

/// Merges sorted sources, calling `emit` with each line in order (false from it: stop);
/// ties go to the earlier source. Under `-u` only the first of equal lines is emitted.
pub(super) fn merge(
    mut sources: Vec<Source>,
    cmp: &Cmp,
    eol: u8,
    line_cap: usize,
    emit: &mut dyn FnMut(&[u8]) -> Result<bool, Stop>,
) -> Result<(), Stop> {
    // The live sources, ordered by (head, index).
    let mut order: Vec<usize> = Vec::with_capacity(sources.len());
    for i in 0..sources.len() {
        let live = match sources.get_mut(i) {
            Some(s) => s.advance(true, cmp, eol, line_cap)?,
            None => false,
        };
        if live {
            insert(&mut order, &sources, i, cmp);
        }
    }
    let mut last: Option<Vec<u8>> = None;
    while let Some(&i) = order.first() {
        let Some(src) = sources.get_mut(i) else { break };
        let line = src.head();
        let dup = cmp.unique
            && last
                .as_deref()
                .is_some_and(|l| cmp.compare(l, line) == Ordering::Equal);
        if !dup {
            if cmp.unique {
                let l = last.get_or_insert_with(Vec::new);
                l.clear();
                l.extend_from_slice(line);
            }
            if !emit(line)? {
                return Ok(());
            }
        }
        order.remove(0);
        if src.advance(false, cmp, eol, line_cap)? {
            insert(&mut order, &sources, i, cmp);
        }
    }
    Ok(())
}

/// Puts source `i` where its head goes among `order` (after equal heads of earlier sources,
/// before those of later ones).
fn insert(order: &mut Vec<usize>, sources: &[Source], i: usize, cmp: &Cmp) {
    let Some(head) = sources.get(i).map(Source::head) else {
        return;
    };
    let at = order.partition_point(|&j| {
        let other = sources.get(j).map(Source::head).unwrap_or_default();
        match cmp.compare(other, head) {
            Ordering::Less => true,
            Ordering::Equal => j < i,
            Ordering::Greater => false,
        }
    });
    order.insert(at, i);
}

/// The sources of the final merge: the spilled runs (merged down to fewer than
/// [`NMERGE`] first, into new scratch files), then the run still in memory.
pub(super) fn final_sources<'s, 'c>(
    ctx: &'c Ctx,
    spilled: &'s mut Spilled<'c>,
    last: &'s Run,
    cmp: &Cmp,
    eol: u8,
) -> Result<Vec<Source<'s, 'c>>, Stop> {
    while spilled.runs() >= NMERGE {
        let mut next = Spilled::new(ctx)?;
        {
            let mut sources = spilled.readers();
            let mut groups = Vec::new();
            while !sources.is_empty() {
                let rest = sources.split_off(sources.len().min(NMERGE));
                groups.push(std::mem::replace(&mut sources, rest));
            }
            for group in groups {
                let mut file = next.file.borrow_mut();
                let start = next.len;
                file.seek(SeekFrom::Start(start))
                    .map_err(|e| write_failed(cmp, &e))?;
                let mut w = RunWriter {
                    file: &mut file,
                    buf: Vec::with_capacity(READ_CHUNK * 2),
                    written: 0,
                };
                merge(group, cmp, eol, usize::MAX, &mut |line| {
                    w.line(line, eol).map_err(|e| write_failed(cmp, &e))?;
                    Ok(!ctx.expired())
                })?;
                w.drain().map_err(|e| write_failed(cmp, &e))?;
                let written = w.written;
                drop(file);
                next.runs.push((start, written));
                next.len += written;
                if ctx.expired() {
                    return Err(Stop::Done(Outcome::status(FAIL)));
                }
            }
        }
        *spilled = next;
    }
    let mut sources = spilled.readers();
    sources.push(Source::Mem(last, 0));
    Ok(sources)
}
