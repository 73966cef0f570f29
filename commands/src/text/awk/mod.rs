//! `awk` (and `gawk`): GNU awk 5.2 in the C locale — the POSIX language with gawk's common
//! extensions (`gensub`, 3-argument `match`, `\y`-style regex operators, regex `RS` and `RT`,
//! `nextfile`, `length(array)`, `strftime`, `systime`, `fflush`, `**`).
//!
//! The program is cut into tokens (`lexer`), parsed into a tree with variables resolved to
//! slots (`parser`, `ast`), and run (`interp`) over records read from the operands or stdin
//! (`io`), with values converted as POSIX says (`value`), `printf` through the shared C
//! conversions (`builtins`, [`crate::support::cprintf`]) and regexes through the shared GNU
//! engine (`regex`). Files written with `>`/`>>` become one `WriteFile` effect each, when
//! closed or at the end; `system()`, `cmd | getline` and `print | cmd` run command lines
//! through [`Ctx::run`].
//!
//! `for (k in a)` visits keys in an order of its own (gawk's is its hash order: neither is
//! specified). `rand()` is not gawk's sequence.

// awk's numbers are doubles: conversions between them and sizes, indexes and integers
// are the language's own (truncation, `%d` of a double), and its comparisons are exact.
#![allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    clippy::float_cmp,
    clippy::many_single_char_names
)]

mod ast;
mod builtins;
mod interp;
mod io;
mod lexer;
mod parser;
mod regex;
mod value;

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::text::lines::{EXHAUSTED, RecordError, read_held};
use crate::{CommandName, Ctx, Outcome, Stop};

use interp::{Abort, Interp, process_escapes, split_assignment};

const USAGE: &str = include_str!("usage.txt");

fn usage(name: &str) -> String {
    USAGE
        .replace("Usage: awk", &format!("Usage: {name}"))
        .replace("\tawk '", &format!("\t{name} '"))
}

/// One piece of program text and what gawk calls it in messages.
struct Source {
    text: Vec<u8>,
    /// `cmd. line` or the file's name.
    name: String,
}

#[allow(clippy::unnecessary_wraps)] // the handler signature
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let me = if ctx.name == CommandName::Gawk {
        "gawk"
    } else {
        "awk"
    };
    let mut o = Outcome::ok();
    let mut fs: Option<Vec<u8>> = None;
    let mut assigns: Vec<Vec<u8>> = Vec::new();
    let mut sources: Vec<Source> = Vec::new();
    let mut i = 0;
    let arg = |k: usize| args.get(k).map(|a| a.as_bytes().to_vec());
    let usage_err = |o: &mut Outcome, msg: &str| {
        o.err(format!("{me}: {msg}\n"));
        o.err(usage(me));
        o.status = 1;
    };
    // Options (gawk's getopt: stops at the first operand).
    while let Some(a) = arg(i) {
        if a == b"--" {
            i += 1;
            break;
        }
        if a.len() < 2 || a.first() != Some(&b'-') {
            break;
        }
        let (opt, inline): (Vec<u8>, Option<Vec<u8>>) = if a.starts_with(b"--") {
            match a.iter().position(|&c| c == b'=') {
                Some(p) => (
                    a.get(..p).unwrap_or_default().to_vec(),
                    Some(a.get(p + 1..).unwrap_or_default().to_vec()),
                ),
                None => (a.clone(), None),
            }
        } else {
            let rest = a.get(2..).unwrap_or_default();
            (
                a.get(..2).unwrap_or_default().to_vec(),
                (!rest.is_empty()).then(|| rest.to_vec()),
            )
        };
        let long = |l: &str| opt == l.as_bytes();
        let needs = matches!(opt.as_slice(), b"-F" | b"-v" | b"-f" | b"-e")
            || long("--field-separator")
            || long("--assign")
            || long("--file")
            || long("--source");
        let value = if needs {
            if let Some(v) = inline {
                Some(v)
            } else {
                i += 1;
                if let Some(v) = arg(i) {
                    Some(v)
                } else {
                    {
                        {
                            let letter = opt.get(1).map_or('?', |&c| char::from(c));
                            if opt.starts_with(b"--") {
                                usage_err(
                                    &mut o,
                                    &format!(
                                        "option '{}' requires an argument",
                                        String::from_utf8_lossy(&opt)
                                    ),
                                );
                            } else {
                                usage_err(
                                    &mut o,
                                    &format!("option requires an argument -- {letter}"),
                                );
                            }
                            return Ok(o);
                        }
                    }
                }
            }
        } else {
            None
        };
        i += 1;
        match opt.as_slice() {
            b"-F" | b"--field-separator" => {
                let v = value.unwrap_or_default();
                // gawk takes `-Ft` as a tab only with --traditional.
                fs = Some(process_escapes(&v));
            }
            b"-v" | b"--assign" => {
                let v = value.unwrap_or_default();
                if let Some(eq) = v.iter().position(|&c| c == b'=')
                    && split_assignment(&v).is_none()
                {
                    o.err(format!(
                        "{me}: fatal: `{}' is not a legal variable name\n",
                        String::from_utf8_lossy(v.get(..eq).unwrap_or_default())
                    ));
                    o.status = 2;
                    return Ok(o);
                }
                if split_assignment(&v).is_none() {
                    o.err(format!(
                        "{me}: `{}' argument to `-v' not in `var=value' form\n\n",
                        String::from_utf8_lossy(&v)
                    ));
                    o.err(usage(me));
                    o.status = 1;
                    return Ok(o);
                }
                assigns.push(v);
            }
            b"-f" | b"--file" => {
                let v = value.unwrap_or_default();
                let os = std::ffi::OsStr::from_bytes(&v);
                let text = if v == b"-" {
                    let mut r = ctx.stdin;
                    match read_held(ctx, &mut r) {
                        Ok(t) => Some(t),
                        Err(RecordError::TooLong) => {
                            o.err(format!("{me}: fatal: {EXHAUSTED}\n"));
                            o.status = 2;
                            return Ok(o);
                        }
                        Err(RecordError::Io(_)) => None,
                    }
                } else {
                    ctx.fs.read(&ctx.resolve(os)).ok()
                };
                let Some(text) = text else {
                    o.err(format!(
                        "{me}: fatal: cannot open source file `{}' for reading: No such file or directory\n",
                        String::from_utf8_lossy(&v)
                    ));
                    o.status = 2;
                    return Ok(o);
                };
                sources.push(Source {
                    text,
                    name: String::from_utf8_lossy(&v).into_owned(),
                });
            }
            b"-e" | b"--source" => sources.push(Source {
                text: value.unwrap_or_default(),
                name: "cmd. line".into(),
            }),
            b"--version" | b"-V" => {
                o.out(b"GNU Awk 5.2.1, API 3.2\nCopyright (C) 1989, 1991-2022 Free Software Foundation.\n");
                return Ok(o);
            }
            b"--help" | b"-h" => {
                o.out(usage(me));
                return Ok(o);
            }
            b"-b"
            | b"--characters-as-bytes"
            | b"-P"
            | b"--posix"
            | b"-c"
            | b"--traditional"
            | b"-r"
            | b"--re-interval"
            | b"-O"
            | b"--optimize"
            | b"-s"
            | b"--no-optimize"
            | b"-N"
            | b"--use-lc-numeric"
            | b"-S"
            | b"--sandbox" => {}
            _ => {
                if opt.starts_with(b"--") {
                    o.err(usage(me));
                    o.status = 1;
                } else {
                    // gawk's getopt stays silent here: the usage alone.
                    o.err(usage(me));
                    o.status = 1;
                }
                return Ok(o);
            }
        }
    }
    if sources.is_empty() {
        let Some(p) = arg(i) else {
            o.err(usage(me));
            o.status = 1;
            return Ok(o);
        };
        i += 1;
        sources.push(Source {
            text: p,
            name: "cmd. line".into(),
        });
    }
    let operands: Vec<Vec<u8>> = args
        .get(i..)
        .unwrap_or_default()
        .iter()
        .map(|a| a.as_bytes().to_vec())
        .collect();

    // Parse: the sources joined by newlines.
    let mut text = Vec::new();
    let mut starts = Vec::new();
    for s in &sources {
        starts.push(text.len());
        text.extend_from_slice(&s.text);
        text.push(b'\n');
    }
    let toks = match lexer::tokenize(&text) {
        Ok((t, warnings)) => {
            for w in warnings {
                o.err(format!("{me}: cmd. line:1: {w}\n"));
            }
            t
        }
        Err(e) => {
            syntax_error(&mut o, me, &text, &sources, &starts, e.at, &e.msg, false);
            return Ok(o);
        }
    };
    let prog = match parser::Parser::new(toks).program() {
        Ok(p) => p,
        Err(e) => {
            if let Some((m, st)) = e.bare {
                let name = sources.first().map_or("cmd. line", |s| s.name.as_str());
                o.err(format!("{me}: {name}:1: {m}\n"));
                if m.contains("is not allowed outside a loop") {
                    // gawk reports these twice.
                    o.err(format!("{me}: {name}:1: {m}\n"));
                }
                o.status = st;
            } else {
                syntax_error(&mut o, me, &text, &sources, &starts, e.at, &e.msg, e.eol);
            }
            return Ok(o);
        }
    };
    let Ok(mut it) = Interp::new(ctx, &prog) else {
        o.err(format!(
            "{me}: cmd. line:1: fatal: invalid regular expression\n"
        ));
        o.status = 2;
        return Ok(o);
    };
    it.set_argv(&operands);
    if let Some(f) = fs
        && it.assign_var("FS", &f).is_err()
    {
        o.status = 2;
        return Ok(o);
    }
    for a in &assigns {
        if let Some((n, v)) = split_assignment(a) {
            let v = process_escapes(v);
            if let Err(Abort::Fatal(m) | Abort::FatalOpen(m)) = it.assign_var(n, &v) {
                o.err(format!("{me}: fatal: {m}\n"));
                o.status = 2;
                return Ok(o);
            }
        }
    }
    let r = it.run();
    let r = match r {
        Ok(()) | Err(Abort::Exit) => it.close_all(),
        Err(e) => Err(e),
    };
    let mut status = if it.status != 0 {
        it.status
    } else {
        it.exit_code
    };
    if it.exit_code != 0 {
        status = it.exit_code;
    }
    it.flush_stdout();
    match r {
        Ok(()) | Err(Abort::Exit | Abort::Stop | Abort::Next(_)) => {}
        Err(Abort::Fatal(m)) => {
            let loc = it.location(true);
            it.o.err(format!("{me}: {loc}fatal: {m}\n"));
            status = 2;
        }
        Err(Abort::FatalOpen(m)) => {
            let loc = it.location(false);
            it.o.err(format!("{me}: {loc}fatal: {m}\n"));
            status = 2;
        }
    }
    let mut out = std::mem::take(&mut it.o);
    let mut steps = std::mem::take(&mut o.steps);
    steps.append(&mut out.steps);
    o.steps = steps;
    o.status = status;
    Ok(o)
}

/// gawk's syntax error: the source line, then a caret under the offending token.
#[allow(clippy::too_many_arguments)]
fn syntax_error(
    o: &mut Outcome,
    me: &str,
    text: &[u8],
    sources: &[Source],
    starts: &[usize],
    at: usize,
    msg: &str,
    eol: bool,
) {
    let at = at.min(text.len().saturating_sub(1));
    let k = starts.iter().rposition(|&s| s <= at).unwrap_or(0);
    let base = starts.get(k).copied().unwrap_or(0);
    let name = sources.get(k).map_or("cmd. line", |s| s.name.as_str());
    let before = text.get(base..at).unwrap_or_default();
    let mut line_no = memchr::memchr_iter(b'\n', before).count() + 1;
    let line_start = before
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(base, |p| base + p + 1);
    let line_end = text
        .get(line_start..)
        .and_then(|r| r.iter().position(|&c| c == b'\n'))
        .map_or(text.len(), |p| line_start + p);
    let line = text.get(line_start..line_end).unwrap_or_default();
    if eol && text.get(at) == Some(&b'\n') && at + 1 < text.len() {
        // gawk has already counted the newline it stopped at.
        line_no += 1;
    }
    let col = at - line_start;
    o.err(format!(
        "{me}: {name}:{line_no}: {}\n",
        String::from_utf8_lossy(line)
    ));
    o.err(format!(
        "{me}: {name}:{line_no}: {}^ {msg}\n",
        " ".repeat(col)
    ));
    o.status = 1;
}

#[cfg(test)]
mod tests;

/// Parses an awk program (for the fuzz target `awk_parse`): `Err` is gawk's message.
pub fn parse_program(text: &[u8]) -> Result<(), String> {
    let (toks, _) = lexer::tokenize(text).map_err(|e| e.msg)?;
    parser::Parser::new(toks)
        .program()
        .map(|_| ())
        .map_err(|e| e.msg)
}
