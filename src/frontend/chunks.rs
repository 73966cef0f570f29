//! Splitting input into complete commands: what line mode (and a transcript's parser) uses
//! to know when a command is complete (an open quote, a pending here-document or a trailing
//! `|` waits for the next line).
//!
//! # Linear time
//!
//! A command is complete when the first line alone is, or else when the parser, reading what
//! has arrived in one pass, finds its end ([`shell::first_command_lines`]). What has arrived
//! is parsed again only when the reader would wait for more (so an agent writing one line at
//! a time gets each command run as soon as its last line is there) or when it has doubled
//! since the last parse: a 64,000-line command read at once is parsed a few times, not once
//! per line. Lines read past the end of a command wait for the next one.
//!
//! # Bounded memory
//!
//! An input longer than the limit (the policy's `line_bytes`) is not held: the line that
//! passes it is read on and dropped as it arrives, and, when the command went on over several
//! lines, so are its next lines until it ends (judged by its first line with each next line:
//! the delimiter of a here-document, the closing quote or `}`). The chunk then says how long
//! it was ([`Chunk::too_long`]) and the session reports it.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::Arc;

use crate::shell::{self, ParseError, ParseOpts};

/// One complete input: its text and the number of its first line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub first_line: usize,
    pub text: Vec<u8>,
    /// The input was longer than the limit: its length in bytes (its text was dropped).
    pub too_long: Option<u64>,
}

/// Reads complete inputs from a line-oriented reader.
pub struct Chunks<R> {
    reader: R,
    next_line: usize,
    /// The reader is at its end.
    eof: bool,
    /// Lines read and not handed over yet (the start of the next input), from `next_line`.
    pending: Vec<u8>,
    /// The most one input may hold.
    max: usize,
    /// The input after `pending`'s complete ones passed the limit: the next is dropped.
    overflow: bool,
    /// Bytes of the current line already read and dropped (it passed the limit).
    carry: u64,
    /// The syntax options inputs are read with ([`Chunks::set_syntax`]).
    extglob: bool,
    aliases: Option<Arc<BTreeMap<String, String>>>,
}

/// What reading one line gave.
enum Read {
    /// A line (with its newline, unless at the end); `drained`: the reader's buffer was used
    /// up, so reading more may wait.
    Line { drained: bool },
    /// The line would pass the limit: what was read of it is dropped (counted in `carry`).
    Full,
    /// End of input.
    End,
}

/// The input's next piece: up to and including a newline (`true`), or all the reader holds;
/// with how much it holds. Empty at the end of input (or on an error: as the end).
fn next_piece<R: BufRead>(reader: &mut R) -> (&[u8], bool, usize) {
    let held = loop {
        match reader.fill_buf() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Ok(b) => break b.len(),
            Err(_) => break 0,
        }
    };
    if held == 0 {
        return (&[], false, 0);
    }
    // What was just filled, given again without a read.
    let buf = reader.fill_buf().unwrap_or_default();
    match memchr(buf) {
        Some(i) => (buf.get(..=i).unwrap_or(buf), true, buf.len()),
        None => (buf, false, buf.len()),
    }
}

/// The most of a line kept to judge where a dropped input ends.
const PROBE_BYTES: usize = 64 * 1024;

impl<R: BufRead> Chunks<R> {
    /// Chunks read with extended patterns on (an `@(a|b)` pattern spread over lines is
    /// one input), no aliases and no limit: [`Chunks::set_syntax`] gives the shell's own
    /// options, [`Chunks::with_limit`] a limit.
    pub fn new(reader: R) -> Self {
        Chunks {
            reader,
            next_line: 1,
            eof: false,
            pending: Vec::new(),
            max: usize::MAX,
            overflow: false,
            carry: 0,
            extglob: true,
            aliases: None,
        }
    }

    /// Inputs longer than `max` bytes are dropped as they are read (see the module doc).
    #[must_use]
    pub fn with_limit(mut self, max: usize) -> Self {
        self.max = max.max(1);
        self
    }

    /// The options the shell has now (`extglob`, the aliases it expands), for the next
    /// inputs.
    pub fn set_syntax(&mut self, extglob: bool, aliases: Option<Arc<BTreeMap<String, String>>>) {
        self.extglob = extglob;
        self.aliases = aliases;
    }

    fn opts(&self) -> ParseOpts<'_> {
        ParseOpts {
            extglob: self.extglob,
            aliases: self.aliases.as_deref(),
        }
    }

    /// Reads one line into `pending` if it fits the limit.
    fn read_line(&mut self) -> Read {
        let start = self.pending.len();
        loop {
            let (piece, done, buffered) = next_piece(&mut self.reader);
            if piece.is_empty() {
                self.eof = true;
                return if self.pending.len() > start {
                    Read::Line { drained: true }
                } else {
                    Read::End
                };
            }
            if self.pending.len().saturating_add(piece.len()) > self.max
                || self.pending.try_reserve(piece.len()).is_err()
            {
                self.carry = (self.pending.len() - start) as u64;
                self.pending.truncate(start);
                return Read::Full;
            }
            self.pending.extend_from_slice(piece);
            let (used, left) = (piece.len(), buffered - piece.len());
            self.reader.consume(used);
            if done {
                return Read::Line { drained: left == 0 };
            }
        }
    }

    /// Reads and drops one line, keeping its first [`PROBE_BYTES`] in `probe`. Returns its
    /// length (0 at the end of input).
    fn skip_line(&mut self, probe: &mut Vec<u8>) -> u64 {
        probe.clear();
        let mut n = 0u64;
        loop {
            let (piece, done, _) = next_piece(&mut self.reader);
            if piece.is_empty() {
                self.eof = true;
                return n;
            }
            let room = PROBE_BYTES.saturating_sub(probe.len());
            probe.extend_from_slice(piece.get(..room.min(piece.len())).unwrap_or_default());
            let used = piece.len();
            n += used as u64;
            self.reader.consume(used);
            if done {
                return n;
            }
        }
    }

    /// Where the first complete input of `pending` ends (bytes), if it is complete; at the
    /// end of input, everything is.
    fn find_end(&self) -> Option<usize> {
        let opts = self.opts();
        let first = memchr(&self.pending).map_or(self.pending.len(), |i| i + 1);
        let head = self.pending.get(..first).unwrap_or_default();
        if shell::is_plainly_complete(head, opts) {
            return Some(first);
        }
        if !matches!(
            shell::parse_with_opts(head, self.next_line, opts),
            Err(ParseError::Incomplete { .. })
        ) {
            return Some(first);
        }
        if first < self.pending.len() {
            let lines = match shell::first_command_lines(&self.pending, self.next_line, opts) {
                Ok(n) => n,
                Err(ParseError::Syntax { line, .. } | ParseError::Unsupported { line, .. }) => {
                    Some(line.saturating_sub(self.next_line) + 1)
                }
                Err(ParseError::Incomplete { .. }) => None,
            };
            if let Some(n) = lines.filter(|&n| n > 0)
                && let Some(end) = nth_line_end(&self.pending, n)
            {
                return Some(end);
            }
        }
        self.eof.then_some(self.pending.len())
    }

    /// Hands over the first `end` bytes of `pending`.
    fn take(&mut self, end: usize, too_long: Option<u64>) -> Chunk {
        let rest = self.pending.split_off(end.min(self.pending.len()));
        let text = std::mem::replace(&mut self.pending, rest);
        let first_line = self.next_line;
        self.next_line += newlines(&text);
        Chunk {
            first_line,
            text,
            too_long,
        }
    }

    /// The input in `pending` (incomplete) and the line after it pass the limit: drops them
    /// and the lines after until the input ends.
    fn drop_input(&mut self) -> Chunk {
        let first_line = self.next_line;
        let pending = std::mem::take(&mut self.pending);
        let mut total = pending.len() as u64 + std::mem::take(&mut self.carry);
        let mut lines = newlines(&pending);
        // The input's first line, to judge where it ends with each next line.
        let first_end = memchr(&pending).map(|i| i + 1);
        let mut probe = Vec::new();
        let n = self.skip_line(&mut probe);
        total += n;
        lines += 1;
        if let Some(first_end) = first_end {
            let mut head = pending;
            head.truncate(first_end.min(PROBE_BYTES));
            if head.last() != Some(&b'\n') {
                head.push(b'\n');
            }
            let keep = head.len();
            while !self.eof {
                let n = self.skip_line(&mut probe);
                if n == 0 {
                    break;
                }
                total += n;
                lines += 1;
                head.truncate(keep);
                head.extend_from_slice(&probe);
                let opts = ParseOpts {
                    extglob: self.extglob,
                    aliases: self.aliases.as_deref(),
                };
                if !matches!(
                    shell::parse_with_opts(&head, first_line, opts),
                    Err(ParseError::Incomplete { .. })
                ) {
                    break;
                }
            }
        }
        self.next_line += lines.max(1);
        Chunk {
            first_line,
            text: Vec::new(),
            too_long: Some(total),
        }
    }
}

/// How many newlines `bytes` holds.
fn newlines(bytes: &[u8]) -> usize {
    bytes.iter().fold(0, |n, &b| n + usize::from(b == b'\n'))
}

/// The offset of the first newline.
fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

/// The offset just past the `n`th newline (1-based), if there are that many.
fn nth_line_end(bytes: &[u8], n: usize) -> Option<usize> {
    bytes
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(n - 1)
        .map(|(i, _)| i + 1)
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
        // The length of `pending` when it was last found incomplete.
        let mut parsed = 0usize;
        if std::mem::take(&mut self.overflow) {
            return Some(self.drop_input());
        }
        let mut check = !self.pending.is_empty();
        loop {
            if check {
                if let Some(end) = self.find_end() {
                    return (end > 0).then(|| self.take(end, None));
                }
                parsed = self.pending.len();
            }
            if self.eof {
                // At end of input an unfinished command is still handed over: running it
                // reports bash's end-of-file error.
                let end = self.pending.len();
                return (end > 0).then(|| self.take(end, None));
            }
            match self.read_line() {
                Read::End => check = !self.pending.is_empty(),
                Read::Line { drained } => {
                    check = drained || self.eof || self.pending.len() >= parsed.saturating_mul(2);
                }
                Read::Full => {
                    if self.pending.len() > parsed
                        && let Some(end) = self.find_end()
                    {
                        // What came before the long line ends first.
                        self.overflow = true;
                        return (end > 0).then(|| self.take(end, None));
                    }
                    return Some(self.drop_input());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(input: &[u8], capacity: usize, max: usize) -> Vec<(usize, String, Option<u64>)> {
        let reader = std::io::BufReader::with_capacity(capacity, input);
        Chunks::new(reader)
            .with_limit(max)
            .map(|c| {
                (
                    c.first_line,
                    String::from_utf8_lossy(&c.text).into_owned(),
                    c.too_long,
                )
            })
            .collect()
    }

    /// Splitting one line at a time, parsing every prefix (the old way).
    fn slow(input: &[u8]) -> Vec<(usize, String, Option<u64>)> {
        let mut out = Vec::new();
        let mut text = Vec::new();
        let mut first = 1;
        let mut line = 1;
        for l in input.split_inclusive(|&b| b == b'\n') {
            text.extend_from_slice(l);
            line += 1;
            if !is_incomplete(&text, first) {
                out.push((first, String::from_utf8_lossy(&text).into_owned(), None));
                text.clear();
                first = line;
            }
        }
        if !text.is_empty() {
            out.push((first, String::from_utf8_lossy(&text).into_owned(), None));
        }
        out
    }

    #[test]
    fn inputs_split_as_when_read_line_by_line() {
        let inputs: &[&[u8]] = &[
            b"echo a\necho b\n",
            b"\n# c\necho 'x\ny'\ncat <<E\nbody\nE\nfor i in 1 2\ndo\n echo $i\ndone\n\n",
            b"{\n echo a\n}\nif true; then\n echo b\nfi; echo c\nx |\n y\n",
            b"echo a \\\n b\n(\n)\n )\necho ok\n",
            b"if true; then\n ;; fi\necho after\n",
            b"echo \"open\nand never closed\n",
            b"cat <<A; cat <<B\na\nA\nb\nB\necho $(\necho x\n)\n",
            b"no newline at the end",
            b"{\n:\n}",
            b"{\n:\n}\nfoo",
            b"{\n:\n}\n{\n:",
        ];
        for input in inputs {
            for capacity in [1, 3, 16, 8192] {
                assert_eq!(
                    chunks(input, capacity, usize::MAX),
                    slow(input),
                    "{capacity} {}",
                    String::from_utf8_lossy(input)
                );
            }
        }
    }

    #[test]
    fn a_long_command_is_split_in_linear_time() {
        let mut input = b"{\n".to_vec();
        for i in 0..64_000 {
            input.extend_from_slice(format!("echo {i}\n").as_bytes());
        }
        input.extend_from_slice(b"}\necho after\n");
        // One parse of the whole text: what the old way paid 64,000 times (on ever longer
        // prefixes), and what the split should pay a small multiple of.
        let start = std::time::Instant::now();
        assert!(is_incomplete(
            input.get(..input.len() - 13).unwrap_or_default(),
            1
        ));
        let one = start.elapsed();
        let start = std::time::Instant::now();
        // All of it at hand (`-c`, a script): parsed as it doubles, a few times in all.
        let got: Vec<usize> = Chunks::new(input.as_slice())
            .map(|c| c.first_line)
            .collect();
        let took = start.elapsed();
        assert!(
            took < one * 8 + std::time::Duration::from_secs(1),
            "{took:?} for the split, {one:?} for one parse"
        );
        assert_eq!(got, vec![1, 64_003]);
        // In a pipe's blocks, each block is parsed once at most.
        let got = chunks(&input, 1 << 16, usize::MAX);
        assert_eq!(got.get(1).map(|c| c.0), Some(64_003));
    }

    #[test]
    fn an_input_past_the_limit_is_dropped_to_its_end() {
        let long = "x".repeat(100);
        let input = format!("echo a\necho {long}\necho b\ncat <<E\n{long}\n{long}\nE\necho c\n");
        let got = chunks(input.as_bytes(), 7, 50);
        assert_eq!(
            got,
            vec![
                (1, "echo a\n".into(), None),
                (2, String::new(), Some(106)),
                (3, "echo b\n".into(), None),
                (4, String::new(), Some(212)),
                (8, "echo c\n".into(), None),
            ]
        );
        // A quoted string over lines ends at its closing quote.
        let input = format!("echo '\n{long}\nx'\necho d\n");
        let got = chunks(input.as_bytes(), 4096, 50);
        assert_eq!(
            got,
            vec![(1, String::new(), Some(111)), (4, "echo d\n".into(), None)]
        );
    }
}
