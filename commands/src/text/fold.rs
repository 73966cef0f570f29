//! `fold [OPTION]... [FILE]...`, GNU coreutils 9.1: wraps lines longer than a width (80, or
//! `-w N`, or the obsolete `-N`) counting columns (a tab to the next multiple of 8, a
//! backspace back one, a carriage return to 0) or bytes (`-b`), breaking after the last
//! blank under `-s`. Input streams.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::input::{operand_error, operands_or_stdin};
use crate::text::lines::{Records, Sink, obsolete_number};
use crate::{Ctx, Outcome, quote};

/// Wrap input lines in each FILE, writing to standard output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "fold [OPTION]... [FILE]...")]
pub struct FoldArgs {
    /// count bytes rather than columns
    #[arg(short = 'b', long = "bytes")]
    bytes: bool,
    /// break at spaces
    #[arg(short = 's', long = "spaces")]
    spaces: bool,
    /// use WIDTH columns instead of 80
    #[arg(short = 'w', long = "width", value_name = "WIDTH")]
    width: Option<OsString>,
    files: Vec<OsString>,
}

const TAB_WIDTH: usize = 8;

struct Folder {
    width: usize,
    bytes: bool,
    spaces: bool,
    line: Vec<u8>,
    column: usize,
}

impl Folder {
    fn adjust(&self, column: usize, c: u8) -> usize {
        if self.bytes {
            return column + 1;
        }
        match c {
            b'\x08' => column.saturating_sub(1),
            b'\r' => 0,
            b'\t' => column + TAB_WIDTH - column % TAB_WIDTH,
            _ => column + 1,
        }
    }

    /// GNU's `fold_file` loop, one byte.
    fn byte(&mut self, c: u8, out: &mut Vec<u8>) {
        if c == b'\n' {
            out.extend_from_slice(&self.line);
            out.push(b'\n');
            self.line.clear();
            self.column = 0;
            return;
        }
        loop {
            self.column = self.adjust(self.column, c);
            if self.column <= self.width {
                self.line.push(c);
                return;
            }
            if self.spaces
                && let Some(blank) = self.line.iter().rposition(|&b| b == b' ' || b == b'\t')
            {
                let end = blank + 1;
                out.extend_from_slice(self.line.get(..end).unwrap_or_default());
                out.push(b'\n');
                self.line.drain(..end);
                self.column = self.line.iter().fold(0, |col, &b| self.adjust(col, b));
                continue;
            }
            if self.line.is_empty() {
                self.line.push(c);
                return;
            }
            out.extend_from_slice(&self.line);
            out.push(b'\n');
            self.line.clear();
            self.column = 0;
        }
    }
}

/// `xdectoumax (s, 1, SIZE_MAX - TAB_WIDTH - 1, ...)` with fold's messages.
fn parse_width(s: &OsString) -> Result<usize, Stop> {
    let b = s.as_bytes();
    let digits = b
        .iter()
        .skip_while(|&&c| c == b' ' || c == b'\t')
        .skip_while(|&&c| c == b'+');
    let all: Vec<u8> = digits.copied().collect();
    if all.is_empty() || !all.iter().all(u8::is_ascii_digit) {
        return Err(Stop::Fail(format!(
            "invalid number of columns: {}",
            quote(s)
        )));
    }
    let range = || {
        Stop::Fail(format!(
            "invalid number of columns: {}: Numerical result out of range",
            quote(s)
        ))
    };
    let v = std::str::from_utf8(&all)
        .ok()
        .and_then(|t| t.parse::<u64>().ok())
        .ok_or_else(range)?;
    if v == 0 || v > u64::MAX - TAB_WIDTH as u64 - 1 {
        return Err(range());
    }
    Ok(usize::try_from(v).unwrap_or(usize::MAX))
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<FoldArgs>(&obsolete_number(args, b'w', "--width", false))?;
    let width = match &a.width {
        Some(w) => parse_width(w)?,
        None => 80,
    };
    let mut f = Folder {
        width,
        bytes: a.bytes,
        spaces: a.spaces,
        line: Vec::new(),
        column: 0,
    };
    let mut o = Outcome::ok();
    let mut sink = Sink::new();
    let mut status = 0;
    let mut buf = vec![0u8; 64 * 1024];
    for name in &operands_or_stdin(a.files) {
        let mut input = match Records::open(ctx, name, b'\n') {
            Ok(r) => r,
            Err(e) => {
                sink.drain(&mut o);
                o.err(operand_error(ctx.name, name, &e));
                status = 1;
                continue;
            }
        };
        loop {
            match input.read_chunk(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    for &c in buf.get(..n).unwrap_or_default() {
                        f.byte(c, &mut sink.buf);
                    }
                    if !sink.poll(&mut o, ctx) {
                        return Ok(o.with_status(status));
                    }
                }
                Err(e) => {
                    sink.drain(&mut o);
                    o.err(operand_error(ctx.name, name, &e));
                    status = 1;
                    break;
                }
            }
        }
        // GNU flushes what is left of a file's last line at the end of that file.
        sink.buf.append(&mut f.line);
        f.column = 0;
    }
    sink.drain(&mut o);
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {
    use crate::testing::world::{World, text, texts};

    fn fold(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Fold, args))
    }

    #[test]
    fn folds_as_gnu() {
        // Expected outputs from GNU coreutils 9.1 fold, LC_ALL=C.
        let w = World::new(
            texts()
                .file("/s/hw", b"hello world foo bar\n")
                .file("/s/tab", b"a\tbcdefghij\n"),
        );
        assert_eq!(
            fold(&w, &["-w", "7", "-s", "hw"]).0,
            "hello \nworld \nfoo bar\n"
        );
        assert_eq!(fold(&w, &["-w", "7", "hw"]).0, "hello w\norld fo\no bar\n");
        assert_eq!(fold(&w, &["-w", "5", "tab"]).0, "a\n\t\nbcdef\nghij\n");
        assert_eq!(fold(&w, &["-b", "-w", "5", "tab"]).0, "a\tbcd\nefghi\nj\n");
        assert_eq!(
            fold(&w, &["-3", "nonl.txt"]).0,
            "no \nnew\nlin\ne a\nt e\nnd"
        );
        let err = |m: &str| {
            (
                String::new(),
                format!("fold: invalid number of columns: {m}\n"),
                1,
            )
        };
        assert_eq!(fold(&w, &["-w", "x", "hw"]), err("'x'"));
        assert_eq!(fold(&w, &["-w", "-1", "hw"]), err("'-1'"));
        assert_eq!(
            fold(&w, &["-w", "0", "hw"]),
            err("'0': Numerical result out of range")
        );
        assert_eq!(
            fold(&w, &["nope", "d"]).1,
            "fold: nope: No such file or directory\nfold: d: Is a directory\n"
        );
    }
}
