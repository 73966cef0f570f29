//! Reading records: a buffered stream cut by `RS` (one byte, paragraphs for `RS = ""`, or
//! a regular expression as gawk, with the terminator in `RT`), for the main input, `getline <
//! file` and `"cmd" | getline`.

use std::io::{self, Read};
use std::rc::Rc;

use crate::support::regex_gnu::Regex;

/// How records end.
#[derive(Clone)]
pub enum RsMode {
    Byte(u8),
    Para,
    Regex(Rc<Regex>),
}

pub struct RecReader<'a> {
    src: Box<dyn Read + 'a>,
    /// The longest record held (the session's hold cap; gawk has no limit): past it a read
    /// fails with `OutOfMemory` (`memory exhausted`).
    cap: usize,
    buf: Vec<u8>,
    start: usize,
    eof: bool,
    /// Paragraph mode: leading newlines of the input were skipped.
    para_started: bool,
}

const CHUNK: usize = 64 * 1024;

impl<'a> RecReader<'a> {
    pub fn new(src: Box<dyn Read + 'a>, cap: usize) -> Self {
        RecReader {
            src,
            cap,
            buf: Vec::new(),
            start: 0,
            eof: false,
            para_started: false,
        }
    }

    /// Reads more; false at the end of the input.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        if self.buf.len() > self.cap {
            return Err(io::Error::new(
                io::ErrorKind::OutOfMemory,
                crate::text::lines::EXHAUSTED,
            ));
        }
        let old = self.buf.len();
        self.buf.resize(old + CHUNK, 0);
        loop {
            match self.src.read(self.buf.get_mut(old..).unwrap_or_default()) {
                Ok(n) => {
                    self.buf.truncate(old + n);
                    if n == 0 {
                        self.eof = true;
                        return Ok(false);
                    }
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.buf.truncate(old);
                    self.eof = true;
                    return Err(e);
                }
            }
        }
    }

    fn rest(&self) -> &[u8] {
        self.buf.get(self.start..).unwrap_or_default()
    }

    /// The next record into `rec` and its terminator into `rt`; false at the end.
    pub fn read(&mut self, mode: &RsMode, rec: &mut Vec<u8>, rt: &mut Vec<u8>) -> io::Result<bool> {
        rec.clear();
        rt.clear();
        match mode {
            RsMode::Byte(b) => self.read_byte(*b, rec, rt),
            RsMode::Para => self.read_para(rec, rt),
            RsMode::Regex(re) => self.read_regex(re, rec, rt),
        }
    }

    fn read_byte(&mut self, sep: u8, rec: &mut Vec<u8>, rt: &mut Vec<u8>) -> io::Result<bool> {
        let mut scanned = 0;
        loop {
            let rest = self.rest();
            if let Some(p) = rest.get(scanned..).and_then(|r| memchr::memchr(sep, r)) {
                let end = scanned + p;
                rec.extend_from_slice(rest.get(..end).unwrap_or_default());
                rt.push(sep);
                self.start += end + 1;
                return Ok(true);
            }
            scanned = rest.len();
            if !self.fill()? {
                let rest = self.rest();
                if rest.is_empty() {
                    return Ok(false);
                }
                rec.extend_from_slice(rest);
                self.start = self.buf.len();
                return Ok(true);
            }
        }
    }

    fn read_para(&mut self, rec: &mut Vec<u8>, rt: &mut Vec<u8>) -> io::Result<bool> {
        // Skip leading newlines.
        loop {
            let rest = self.rest();
            let n = rest.iter().take_while(|&&c| c == b'\n').count();
            self.start += n;
            if self.start < self.buf.len() {
                break;
            }
            if !self.fill()? {
                return Ok(false);
            }
        }
        self.para_started = true;
        let mut scanned = 0;
        loop {
            let rest = self.rest();
            let found = rest
                .get(scanned..)
                .and_then(|r| memchr::memmem::find(r, b"\n\n"))
                .map(|p| scanned + p);
            if let Some(p) = found {
                let n = rest
                    .get(p..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|&&c| c == b'\n')
                    .count();
                if p + n < rest.len() || self.eof {
                    rec.extend_from_slice(rest.get(..p).unwrap_or_default());
                    rt.extend(std::iter::repeat_n(b'\n', n));
                    self.start += p + n;
                    return Ok(true);
                }
            }
            scanned = rest.len().saturating_sub(1);
            if !self.fill()? {
                let rest = self.rest();
                if rest.is_empty() {
                    return Ok(false);
                }
                let trimmed = rest.len() - rest.iter().rev().take_while(|&&c| c == b'\n').count();
                rec.extend_from_slice(rest.get(..trimmed).unwrap_or_default());
                rt.extend(std::iter::repeat_n(b'\n', rest.len() - trimmed));
                self.start = self.buf.len();
                return Ok(true);
            }
        }
    }

    fn read_regex(&mut self, re: &Regex, rec: &mut Vec<u8>, rt: &mut Vec<u8>) -> io::Result<bool> {
        loop {
            let rest = self.rest();
            let mut from = 0;
            let mut found = None;
            while let Some((s, e)) = re.find_at(rest, from) {
                if e > s {
                    found = Some((s, e));
                    break;
                }
                from = s + 1;
                if from > rest.len() {
                    break;
                }
            }
            if let Some((s, e)) = found
                && (e < rest.len() || self.eof)
            {
                rec.extend_from_slice(rest.get(..s).unwrap_or_default());
                rt.extend_from_slice(rest.get(s..e).unwrap_or_default());
                self.start += e;
                return Ok(true);
            }
            if !self.fill()? {
                let rest = self.rest();
                if rest.is_empty() {
                    return Ok(false);
                }
                if let Some((s, e)) = found {
                    rec.extend_from_slice(rest.get(..s).unwrap_or_default());
                    rt.extend_from_slice(rest.get(s..e).unwrap_or_default());
                    self.start += e;
                    return Ok(true);
                }
                rec.extend_from_slice(rest);
                self.start = self.buf.len();
                return Ok(true);
            }
        }
    }
}
