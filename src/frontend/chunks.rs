//! Splitting input into complete commands: what line mode (and a transcript's parser) uses
//! to know when a command is complete (an open quote, a pending here-document or a trailing
//! `|` waits for the next line).

use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::Arc;

use crate::shell::{self, ParseError, ParseOpts};

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
    /// The syntax options inputs are read with ([`Chunks::set_syntax`]).
    extglob: bool,
    aliases: Option<Arc<BTreeMap<String, String>>>,
}

impl<R: BufRead> Chunks<R> {
    /// Chunks read with extended patterns on (an `@(a|b)` pattern spread over lines is
    /// one input) and no aliases: [`Chunks::set_syntax`] gives the shell's own options.
    pub fn new(reader: R) -> Self {
        Chunks {
            reader,
            next_line: 1,
            done: false,
            extglob: true,
            aliases: None,
        }
    }

    /// The options the shell has now (`extglob`, the aliases it expands), for the next
    /// inputs.
    pub fn set_syntax(&mut self, extglob: bool, aliases: Option<Arc<BTreeMap<String, String>>>) {
        self.extglob = extglob;
        self.aliases = aliases;
    }
}

/// Whether the shell needs more lines to complete this input (an open quote, a pending
/// here-document, a trailing `|`, `&&`, `\`...), read with extended patterns.
pub fn is_incomplete(text: &[u8], first_line: usize) -> bool {
    is_incomplete_with(
        text,
        first_line,
        ParseOpts {
            extglob: true,
            aliases: None,
        },
    )
}

/// [`is_incomplete`] with the shell's options.
pub fn is_incomplete_with(text: &[u8], first_line: usize, opts: ParseOpts<'_>) -> bool {
    matches!(
        shell::parse_with_opts(text, first_line, opts),
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
            let opts = ParseOpts {
                extglob: self.extglob,
                aliases: self.aliases.as_deref(),
            };
            if !is_incomplete_with(&text, first_line, opts) {
                return Some(Chunk { first_line, text });
            }
        }
    }
}
