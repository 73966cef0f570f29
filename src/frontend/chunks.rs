//! Splitting input into complete commands: what line mode (and a transcript's parser) uses
//! to know when a command is complete (an open quote, a pending here-document or a trailing
//! `|` waits for the next line).

use std::io::BufRead;

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

/// Whether the shell needs more lines to complete this input (an open quote, a pending
/// here-document, a trailing `|`, `&&`, `\`...).
pub fn is_incomplete(text: &[u8], first_line: usize) -> bool {
    matches!(
        shell::parse(text, first_line),
        Err(ParseError::Incomplete { .. })
    )
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
            if !is_incomplete(&text, first_line) {
                return Some(Chunk { first_line, text });
            }
        }
    }
}
