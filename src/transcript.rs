//! Splitting input into complete commands, and rendering a session as a transcript.
//!
//! [`Chunks`] is what line mode uses to know when a command is complete (an open quote, a
//! pending here-document or a trailing `|` waits for the next line), so that the transcript
//! tests replay a `.sh` file exactly as an agent's pipe would feed it.
//!
//! A transcript renders each command as `$ first line` (continuation lines as `> line`), its
//! stdout as is, each stderr line as `[stderr] ...` (in the order written), and `[exit N]` when the status is not 0.

use std::io::BufRead;

use crate::session::{Captured, Session, Sink, Stream};
use crate::shell::{self, ParseError};

/// One complete input: its text and the number of its first line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub first_line: usize,
    pub text: Vec<u8>,
}

/// Reads complete inputs from a line-oriented reader.
pub struct Chunks<R> {
    reader: R,
    next_line: usize,
    done: bool,
}

impl<R: BufRead> Chunks<R> {
    pub fn new(reader: R) -> Self {
        Chunks {
            reader,
            next_line: 1,
            done: false,
        }
    }
}

impl<R: BufRead> Iterator for Chunks<R> {
    type Item = Chunk;

    fn next(&mut self) -> Option<Chunk> {
        if self.done {
            return None;
        }
        let first_line = self.next_line;
        let mut text = Vec::new();
        loop {
            let mut line = Vec::new();
            let n = self.reader.read_until(b'\n', &mut line).unwrap_or(0);
            if n == 0 {
                self.done = true;
                // At end of input an unfinished command is still handed over: running it
                // reports bash's end-of-file error.
                return (!text.is_empty()).then_some(Chunk { first_line, text });
            }
            self.next_line += 1;
            text.extend_from_slice(&line);
            if !matches!(
                shell::parse(&text, first_line),
                Err(ParseError::Incomplete { .. })
            ) {
                return Some(Chunk { first_line, text });
            }
        }
    }
}

/// A sink that keeps both streams and the order in which their pieces came.
#[derive(Debug, Default, Clone)]
pub struct Recorded {
    pub captured: Captured,
    pub events: Vec<(Stream, Vec<u8>)>,
}

impl Sink for Recorded {
    fn write(&mut self, stream: Stream, bytes: &[u8]) {
        self.captured.write(stream, bytes);
        match self.events.last_mut() {
            Some((s, b)) if *s == stream => b.extend_from_slice(bytes),
            _ => self.events.push((stream, bytes.to_vec())),
        }
    }
}

/// Renders one command and its result: stdout as is, stderr lines as `[stderr] ...`, in the
/// order they were written.
pub fn render_step(out: &mut Vec<u8>, chunk: &[u8], result: &Recorded, status: i32) {
    let text = chunk.strip_suffix(b"\n").unwrap_or(chunk);
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        out.extend_from_slice(if i == 0 { b"$ " } else { b"> " });
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    for (stream, bytes) in &result.events {
        match stream {
            Stream::Stdout => {
                out.extend_from_slice(bytes);
                if !bytes.ends_with(b"\n") {
                    out.extend_from_slice(b"[no newline]\n");
                }
            }
            Stream::Stderr => {
                let err = bytes.strip_suffix(b"\n").unwrap_or(bytes);
                for line in err.split(|&b| b == b'\n') {
                    out.extend_from_slice(b"[stderr] ");
                    out.extend_from_slice(line);
                    out.push(b'\n');
                }
            }
        }
    }
    if status != 0 {
        out.extend_from_slice(format!("[exit {status}]\n").as_bytes());
    }
}

/// Whether an input holds only comments and blank lines.
pub fn is_comment_only(chunk: &[u8]) -> bool {
    chunk.split(|&b| b == b'\n').all(|l| {
        let t = l.trim_ascii_start();
        t.is_empty() || t.starts_with(b"#")
    })
}

/// Replays a script in a session, one complete input at a time, and renders the transcript.
/// Returns the rendering and, per command, its captured output and status.
pub fn replay(session: &mut Session, script: &[u8]) -> (Vec<u8>, Vec<(Chunk, Captured, i32)>) {
    let mut out = Vec::new();
    let mut steps = Vec::new();
    for chunk in Chunks::new(script) {
        if is_comment_only(&chunk.text) {
            out.extend_from_slice(&chunk.text);
            continue;
        }
        let mut recorded = Recorded::default();
        let status = session.run_input(&chunk.text, chunk.first_line, &mut recorded);
        render_step(&mut out, &chunk.text, &recorded, status);
        steps.push((chunk, recorded.captured, status));
        if session.exit_status().is_some() {
            break;
        }
    }
    (out, steps)
}
