//! `paste [OPTION]... [FILE]...`, GNU coreutils 9.1: merges corresponding lines of the files
//! side by side, or each file's lines into one (`-s`), separated by the delimiters of `-d
//! LIST` used in turn (`\n \t \\ \0` and the other C escapes; `\0` is no delimiter). Each `-`
//! reads the same stdin, one line in turn (`paste - - < f` pairs lines). Inputs stream.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::input::{operand_error, operands_or_stdin};
use crate::text::lines::{Records, Sink, eol, split_eol};
use crate::{Ctx, Outcome};

/// Write lines consisting of the sequentially corresponding lines from each FILE, separated
/// by TABs, to standard output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "paste [OPTION]... [FILE]...")]
pub struct PasteArgs {
    /// reuse characters from LIST instead of TABs
    #[arg(short = 'd', long = "delimiters", value_name = "LIST")]
    delimiters: Option<OsString>,
    /// paste one file at a time instead of in parallel
    #[arg(short = 's', long = "serial")]
    serial: bool,
    /// line delimiter is NUL, not newline
    #[arg(short = 'z', long = "zero-terminated")]
    zero: bool,
    files: Vec<OsString>,
}

/// GNU's `collapse_escapes`: the delimiters, `None` for `\0` (no delimiter).
fn delimiters(list: &[u8]) -> Result<Vec<Option<u8>>, Stop> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = list.get(i) {
        i += 1;
        if c != b'\\' {
            out.push(Some(c));
            continue;
        }
        let Some(&e) = list.get(i) else {
            return Err(Stop::Fail(format!(
                "delimiter list ends with an unescaped backslash: {}",
                OsStr::from_bytes(list).to_string_lossy()
            )));
        };
        i += 1;
        out.push(match e {
            b'0' => None,
            b'b' => Some(b'\x08'),
            b'f' => Some(b'\x0c'),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(b'\x0b'),
            other => Some(other),
        });
    }
    if out.is_empty() {
        out.push(None);
    }
    Ok(out)
}

/// The delimiters used in turn.
struct Cycle {
    list: Vec<Option<u8>>,
    at: usize,
}

impl Cycle {
    fn next(&mut self) -> Option<u8> {
        let d = self.list.get(self.at).copied().flatten();
        self.at = (self.at + 1) % self.list.len().max(1);
        d
    }
}

fn serial(files: &[OsString], delims: &mut Cycle, delim: u8, ctx: &Ctx, o: &mut Outcome) -> i32 {
    let mut status = 0;
    let mut sink = Sink::new();
    let mut line = Vec::new();
    for name in files {
        let mut input = match Records::open(ctx, name, delim) {
            Ok(r) => r,
            Err(e) => {
                sink.drain(o);
                o.err(operand_error(ctx.name, name, &e));
                status = 1;
                continue;
            }
        };
        delims.at = 0;
        let mut first = true;
        loop {
            match input.next_into(&mut line) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    sink.drain(o);
                    o.err(operand_error(ctx.name, name, &e));
                    status = 1;
                    break;
                }
            }
            if !first && let Some(d) = delims.next() {
                sink.buf.push(d);
            }
            first = false;
            sink.buf.extend_from_slice(split_eol(&line, delim).0);
            if !sink.poll(o, ctx) {
                return status;
            }
        }
        sink.buf.push(delim);
    }
    sink.drain(o);
    status
}

fn parallel(files: &[OsString], delims: &mut Cycle, delim: u8, ctx: &Ctx, o: &mut Outcome) -> i32 {
    // One reader per operand; every `-` shares the one on stdin.
    let mut readers: Vec<Records> = Vec::new();
    let mut slot: Vec<Option<usize>> = Vec::new();
    let mut stdin_slot = None;
    for name in files {
        if name == "-" && stdin_slot.is_some() {
            slot.push(stdin_slot);
            continue;
        }
        match Records::open(ctx, name, delim) {
            Ok(r) => {
                readers.push(r);
                slot.push(Some(readers.len() - 1));
                if name == "-" {
                    stdin_slot = Some(readers.len() - 1);
                }
            }
            // GNU opens every file first and gives up at the first it cannot.
            Err(e) => {
                o.err(operand_error(ctx.name, name, &e));
                return 1;
            }
        }
    }
    let mut status = 0;
    let mut sink = Sink::new();
    let mut line = Vec::new();
    let mut open = files.len();
    let last = files.len().saturating_sub(1);
    while open > 0 {
        delims.at = 0;
        let mut saved: Vec<u8> = Vec::new();
        let mut some_done = false;
        for (i, name) in files.iter().enumerate() {
            let mut read = false;
            let mut had_delim = false;
            if let Some(Some(k)) = slot.get(i).copied()
                && let Some(r) = readers.get_mut(k)
            {
                match r.next_into(&mut line) {
                    Ok(true) => {
                        read = true;
                        sink.buf.append(&mut saved);
                        let (body, d) = split_eol(&line, delim);
                        had_delim = d;
                        sink.buf.extend_from_slice(body);
                    }
                    Ok(false) => {}
                    Err(e) => {
                        sink.drain(o);
                        o.err(operand_error(ctx.name, name, &e));
                        status = 1;
                    }
                }
                if !read || !had_delim {
                    // At its end (or with a last line that lacks the delimiter, which the
                    // next read finds at its end): closed from the next round on.
                    if !read {
                        if let Some(s) = slot.get_mut(i) {
                            *s = None;
                        }
                        open -= 1;
                    }
                }
            }
            if read {
                some_done = true;
                if i == last {
                    sink.buf.push(delim);
                } else if let Some(d) = delims.next() {
                    sink.buf.push(d);
                }
            } else if i == last {
                if some_done {
                    sink.buf.append(&mut saved);
                    sink.buf.push(delim);
                }
            } else if let Some(d) = delims.next() {
                saved.push(d);
            }
            if open == 0 && !some_done {
                break;
            }
        }
        if !sink.poll(o, ctx) {
            return status;
        }
    }
    sink.drain(o);
    status
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<PasteArgs>(args)?;
    let list = a.delimiters.as_ref().map_or(&b"\t"[..], |d| d.as_bytes());
    let mut delims = Cycle {
        list: delimiters(list)?,
        at: 0,
    };
    let files = operands_or_stdin(a.files);
    let delim = eol(a.zero);
    let mut o = Outcome::ok();
    let status = if a.serial {
        serial(&files, &mut delims, delim, ctx, &mut o)
    } else {
        parallel(&files, &mut delims, delim, ctx, &mut o)
    };
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {
    use crate::testing::world::{World, text, texts};

    fn paste(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Paste, args))
    }

    #[test]
    fn pastes_as_gnu() {
        // Expected outputs from GNU coreutils 9.1 paste, LC_ALL=C.
        let w = World::new(
            texts()
                .file("/s/n3", b"1\n2\n3\n")
                .file("/s/ab", b"a\nb")
                .file("/s/f1", b"ab\n"),
        )
        .stdin(b"1\n2\n3\n");
        assert_eq!(
            paste(&w, &["n3", "ab", "f1"]).0,
            "1\ta\tab\n2\tb\t\n3\t\t\n"
        );
        assert_eq!(
            paste(&w, &["-d", ",;", "n3", "ab", "n3"]).0,
            "1,a;1\n2,b;2\n3,;3\n"
        );
        assert_eq!(paste(&w, &["-s", "-d", ",;", "n3", "ab"]).0, "1,2;3\na,b\n");
        assert_eq!(paste(&w, &["-", "-"]).0, "1\t2\n3\t\n");
        assert_eq!(paste(&w, &["-d", "\\0", "n3", "ab"]).0, "1a\n2b\n3\n");
        assert_eq!(paste(&w, &["-d", "", "n3", "ab"]).0, "1a\n2b\n3\n");
        assert_eq!(paste(&w, &["-d", "\\q", "n3", "ab"]).0, "1qa\n2qb\n3q\n");
        assert_eq!(paste(&w, &["-s", "empty.txt", "n3"]).0, "\n1\t2\t3\n");
        assert_eq!(
            paste(&w, &["n3", "nope", "ab"]),
            (
                String::new(),
                "paste: nope: No such file or directory\n".into(),
                1
            )
        );
        assert_eq!(
            paste(&w, &["n3", "d", "ab"]),
            (
                "1\t\ta\n2\t\tb\n3\t\t\n".into(),
                "paste: d: Is a directory\n".into(),
                1
            )
        );
        assert_eq!(
            paste(&w, &["-d", "a\\", "n3"]),
            (
                String::new(),
                "paste: delimiter list ends with an unescaped backslash: a\\\n".into(),
                1
            )
        );
    }
}
