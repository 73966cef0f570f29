//! `cat [OPTION]... [FILE]...`, GNU coreutils: concatenates files (`-` and no operand mean
//! the command's stdin). Keeps going after a bad operand and ends with status 1. Numbering,
//! squeezing and an unfinished last line carry over from one file to the next, as in GNU.

use std::ffi::OsString;
use std::io::Read;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::input::{open_input, operand_error, operands_or_stdin};
use crate::{Ctx, FsError, Outcome};

/// Output lines of files or stdin, concatenated.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "cat [OPTION]... [FILE]...")]
pub struct CatArgs {
    /// equivalent to -vET
    #[arg(short = 'A', long = "show-all")]
    show_all: bool,
    /// number nonempty output lines, overrides -n
    #[arg(short = 'b', long = "number-nonblank")]
    number_nonblank: bool,
    /// equivalent to -vE
    #[arg(short = 'e')]
    e: bool,
    /// display $ at end of each line
    #[arg(short = 'E', long = "show-ends")]
    show_ends: bool,
    /// number all output lines
    #[arg(short = 'n', long = "number")]
    number: bool,
    /// suppress repeated empty output lines
    #[arg(short = 's', long = "squeeze-blank")]
    squeeze: bool,
    /// equivalent to -vT
    #[arg(short = 't')]
    t: bool,
    /// display TAB characters as ^I
    #[arg(short = 'T', long = "show-tabs")]
    show_tabs: bool,
    /// (ignored)
    #[arg(short = 'u')]
    unbuffered: bool,
    /// use ^ and M- notation, except for LFD and TAB
    #[arg(short = 'v', long = "show-nonprinting")]
    show_nonprinting: bool,
    files: Vec<OsString>,
}

/// What the options ask for, once combined.
struct Format {
    number: bool,
    nonblank: bool,
    ends: bool,
    tabs: bool,
    nonprinting: bool,
    squeeze: bool,
}

impl Format {
    fn plain(&self) -> bool {
        !(self.number || self.ends || self.tabs || self.nonprinting || self.squeeze)
    }
}

/// The state GNU keeps across files.
struct State {
    line: u64,
    at_line_start: bool,
    prev_blank: bool,
}

fn push_visible(c: u8, f: &Format, out: &mut Vec<u8>) {
    if c == b'\t' {
        if f.tabs {
            out.extend_from_slice(b"^I");
        } else {
            out.push(c);
        }
        return;
    }
    if !f.nonprinting || c == b'\n' {
        out.push(c);
        return;
    }
    let mut c = c;
    if c >= 0x80 {
        out.extend_from_slice(b"M-");
        c -= 0x80;
    }
    match c {
        0..=0x1f => out.extend_from_slice(&[b'^', c + 0x40]),
        0x7f => out.extend_from_slice(b"^?"),
        _ => out.push(c),
    }
}

fn format(data: &[u8], f: &Format, st: &mut State) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 8);
    for &c in data {
        if st.at_line_start {
            if c == b'\n' {
                if f.squeeze && st.prev_blank {
                    continue;
                }
                st.prev_blank = true;
                if f.number && !f.nonblank {
                    st.line += 1;
                    out.extend_from_slice(format!("{:6}\t", st.line).as_bytes());
                }
                if f.ends {
                    out.push(b'$');
                }
                out.push(b'\n');
                continue;
            }
            st.prev_blank = false;
            st.at_line_start = false;
            if f.number {
                st.line += 1;
                out.extend_from_slice(format!("{:6}\t", st.line).as_bytes());
            }
        }
        if c == b'\n' {
            if f.ends {
                out.push(b'$');
            }
            st.at_line_start = true;
        }
        push_visible(c, f, &mut out);
    }
    out
}

/// Streams one input to the outcome in chunks, formatted; false when the output is closed.
fn copy_formatted(
    r: &mut dyn Read,
    f: &Format,
    st: &mut State,
    ctx: &Ctx,
    o: &mut Outcome,
) -> Result<bool, FsError> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => return Ok(true),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(FsError::from_io(&e)),
        };
        let chunk = buf.get(..n).unwrap_or_default();
        if f.plain() {
            o.out(chunk);
        } else {
            o.out(format(chunk, f, st));
        }
        if !ctx.flush(o) {
            return Ok(false);
        }
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<CatArgs>(args)?;
    let f = Format {
        number: a.number || a.number_nonblank,
        nonblank: a.number_nonblank,
        ends: a.show_ends || a.show_all || a.e,
        tabs: a.show_tabs || a.show_all || a.t,
        nonprinting: a.show_nonprinting || a.show_all || a.e || a.t,
        squeeze: a.squeeze,
    };
    let mut st = State {
        line: 0,
        at_line_start: true,
        prev_blank: false,
    };
    let files = operands_or_stdin(a.files);
    let mut o = Outcome::ok();
    let mut status = 0;
    for file in &files {
        let result = open_input(ctx, file)
            .and_then(|mut r| copy_formatted(&mut *r, &f, &mut st, ctx, &mut o));
        match result {
            Ok(true) => {}
            // Nobody reads the output any more: stop, as on SIGPIPE.
            Ok(false) => return Ok(o.with_status(status)),
            Err(e) => {
                o.err(operand_error(ctx.name, file, &e));
                status = 1;
            }
        }
    }
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .dir("/s/d")
                .file("/s/v", b"a\tb\n\n\n\x01\x7f\xe9\x85x")
                .file("/s/w", b"c\n"),
        )
    }

    fn cat(w: &World, args: &[&str]) -> (Vec<u8>, String, i32) {
        let o = w.run(crate::CommandName::Cat, args);
        (o.stdout(), text(&o).1, o.status)
    }

    #[test]
    fn plain_and_stdin() {
        let w = world().stdin(b"in\n");
        assert_eq!(cat(&w, &["w", "-", "w"]).0, b"c\nin\nc\n");
        assert_eq!(cat(&w, &[]).0, b"in\n");
    }

    #[test]
    fn formatting_as_gnu() {
        // GNU coreutils 9.1, LC_ALL=C, same bytes in files v and w.
        let w = world().stdin(b"\n");
        assert_eq!(
            cat(&w, &["-A", "v", "w"]).0,
            b"a^Ib$\n$\n$\n^A^?M-iM-^Exc$\n"
        );
        assert_eq!(
            cat(&w, &["-n", "v", "w"]).0,
            b"     1\ta\tb\n     2\t\n     3\t\n     4\t\x01\x7f\xe9\x85xc\n"
        );
        assert_eq!(
            cat(&w, &["-sb", "v"]).0,
            b"     1\ta\tb\n\n     2\t\x01\x7f\xe9\x85x"
        );
        assert_eq!(
            cat(&w, &["-ns", "v", "-", "w"]).0,
            b"     1\ta\tb\n     2\t\n     3\t\x01\x7f\xe9\x85x\n     4\tc\n"
        );
    }

    #[test]
    fn keeps_going_after_errors() {
        let w = world();
        let o = w.run(crate::CommandName::Cat, &["nope", "d", "w", "a b"]);
        assert_eq!(
            text(&o),
            (
                "c\n".into(),
                "cat: nope: No such file or directory\ncat: d: Is a directory\ncat: 'a b': No such file or directory\n".into(),
                1
            )
        );
        assert_eq!(
            cat(&w, &["-z"]).1,
            "cat: invalid option -- 'z'\nTry 'cat --help' for more information.\n"
        );
    }
}
