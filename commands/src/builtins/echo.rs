//! `echo [-neE] [arg ...]`, bash's builtin.
//!
//! Not parsed with clap on purpose: bash's `echo` takes no `--`, no `--help`, and an argument
//! that is not wholly made of option letters (`-x`, `-n-`, `-`) is text. It never fails.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::escapes::{echo_escapes, utf8_locale};
use crate::{Ctx, Outcome};

pub const USAGE: &str = "echo [-neE] [arg ...]";

/// Write arguments to the standard output.
///
/// Prints the ARGs separated by single spaces and followed by a newline. With -e, \a \b \c
/// \e \f \n \r \t \v \\ \0nnn \xHH \uHHHH and \UHHHHHHHH are interpreted; \c stops all
/// further output.
#[derive(clap::Parser, Debug)]
pub struct EchoHelp {
    /// do not append a newline
    #[arg(short = 'n')]
    no_newline: bool,
    /// enable interpretation of backslash escapes
    #[arg(short = 'e')]
    escapes: bool,
    /// disable interpretation of backslash escapes (the default)
    #[arg(short = 'E')]
    no_escapes: bool,
}

/// The text of `help echo`.
pub fn help() -> String {
    crate::support::args::builtin_help_of::<EchoHelp>("echo", USAGE)
}

/// The parsed options and the words to print.
struct EchoArgs<'a> {
    /// `-n`: no trailing newline.
    no_newline: bool,
    /// `-e` (on) / `-E` (off, the default): interpret backslash escapes; the last one wins.
    escapes: bool,
    words: &'a [OsString],
}

fn parse(args: &[OsString]) -> EchoArgs<'_> {
    let mut a = EchoArgs {
        no_newline: false,
        escapes: false,
        words: args,
    };
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let b = arg.as_bytes();
        let letters = match b.split_first() {
            Some((b'-', rest)) if !rest.is_empty() => rest,
            _ => break,
        };
        if !letters.iter().all(|c| matches!(c, b'n' | b'e' | b'E')) {
            break;
        }
        for c in letters {
            match c {
                b'n' => a.no_newline = true,
                b'e' => a.escapes = true,
                _ => a.escapes = false,
            }
        }
        i += 1;
    }
    a.words = &args[i..];
    a
}

#[allow(clippy::unnecessary_wraps)] // the command table's handler signature
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse(args);
    let utf8 = utf8_locale(ctx.vars);
    let mut out = Vec::new();
    let mut newline = !a.no_newline;
    for (k, w) in a.words.iter().enumerate() {
        if k > 0 {
            out.push(b' ');
        }
        if a.escapes {
            if !echo_escapes(w.as_bytes(), utf8, &mut out) {
                newline = false;
                break;
            }
        } else {
            out.extend_from_slice(w.as_bytes());
        }
    }
    if newline {
        out.push(b'\n');
    }
    let mut o = Outcome::ok();
    o.out(out);
    Ok(o)
}

#[cfg(test)]
mod tests {

    use crate::testing::world::{World, text};

    fn echo(args: &[&str]) -> Vec<u8> {
        let w = World::empty();
        let o = w.run(crate::CommandName::Echo, args);
        assert_eq!(o.status, 0);
        o.stdout()
    }

    #[test]
    fn options_as_bash() {
        // Each expectation is `bash -c 'echo ...' | od -c` with bash 5.2.
        assert_eq!(echo(&["-neE", "a"]), b"a");
        assert_eq!(echo(&["-n", "-x", "a"]), b"-x a");
        assert_eq!(echo(&["--", "-n"]), b"-- -n\n");
        assert_eq!(echo(&["-"]), b"-\n");
        assert_eq!(echo(&["-e", r"a\tb", r"\n"]), b"a\tb \n\n");
        assert_eq!(echo(&["-eE", r"a\tb"]), b"a\\tb\n");
        assert_eq!(echo(&["-e", r"a\cb", "c"]), b"a");
        assert_eq!(echo(&[]), b"\n");
        assert_eq!(echo(&["a", "-n"]), b"a -n\n");
    }

    #[test]
    fn unicode_follows_the_session_locale() {
        let w = World::empty().var("LANG", "C.UTF-8", true);
        assert_eq!(
            text(&w.run(crate::CommandName::Echo, &["-e", r"\u00e9"])).0,
            "é\n"
        );
        let w = World::empty();
        assert_eq!(
            text(&w.run(crate::CommandName::Echo, &["-e", r"\u00e9"])).0,
            "\\u00E9\n"
        );
    }
}
