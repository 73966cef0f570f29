//! `tput`, ncurses 6.4: a terminal capability's value for `$TERM` (or `-T`), from the few
//! terminal descriptions the emulated machine knows ([`super::terminfo`]). It only prints
//! bytes; `init` and `reset` fail as they do with no terminal to set up.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;

use super::terminfo::{self, KNOWN_BOOLEANS, KNOWN_NUMBERS, KNOWN_STRINGS, Term};
use crate::Stop;
use crate::{Ctx, Outcome};

/// ncurses' usage text, on stderr for a usage error.
pub const USAGE: &str = "Usage: tput [options] [command]

Options:
  -S <<       read commands from standard input
  -T TERM     use this instead of $TERM
  -V          print curses-version
  -x          do not try to clear scrollback

Commands:
  clear       clear the screen
  init        initialize the terminal
  reset       reinitialize the terminal
  capname     unlike clear/init/reset, print value for capability \"capname\"
";

/// What `-V` prints.
pub const CURSES_VERSION: &str = "ncurses 6.4.20221231\n";

/// A parameter as tput reads it (`strtol`: leading sign and digits, else 0).
fn number(arg: &[u8]) -> i64 {
    let text = String::from_utf8_lossy(arg);
    let t = text.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, t.get(1..).unwrap_or("")),
        Some(b'+') => (false, t.get(1..).unwrap_or("")),
        _ => (false, t),
    };
    let end = digits
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(digits.len());
    let n = digits.get(..end).unwrap_or("").parse::<i64>().unwrap_or(0);
    if neg { -n } else { n }
}

fn usage_error(msg: &str) -> Outcome {
    let mut o = Outcome::status(2);
    o.err(format!("tput: {msg}\n{USAGE}"));
    o
}

/// One capability (with its parameters) into the outcome; its status.
fn one(term: &Term, cap: &str, params: &[i64], no_e3: bool, ctx: &Ctx, o: &mut Outcome) -> i32 {
    match cap {
        "cols" | "lines" => {
            let var = if cap == "cols" { "COLUMNS" } else { "LINES" };
            let n = terminfo::env_number(ctx, var).unwrap_or(if cap == "cols" { 80 } else { 24 });
            o.out(format!("{n}\n"));
            return 0;
        }
        "colors" => {
            o.out(format!("{}\n", term.colors));
            return 0;
        }
        "pairs" => {
            o.out(format!("{}\n", term.pairs));
            return 0;
        }
        "it" => {
            o.out(format!("{}\n", term.tabs));
            return 0;
        }
        "longname" => {
            o.out(term.longname);
            return 0;
        }
        "init" | "reset" => {
            o.err("tput: terminal attributes: No such device or address\n\n");
            return 10;
        }
        "clear" => {
            let Some(clear) = term.string("clear") else {
                return 2;
            };
            o.out(clear);
            if !no_e3 && let Some(e3) = term.string("E3") {
                o.out(e3);
            }
            return 0;
        }
        _ => {}
    }
    if KNOWN_NUMBERS.contains(&cap) {
        o.out("-1\n");
        return 0;
    }
    if KNOWN_BOOLEANS.contains(&cap) {
        return i32::from(!term.booleans.contains(&cap));
    }
    if Term::params(cap) > 0 {
        return match term.with_params(cap, params) {
            Some(v) => {
                o.out(v);
                0
            }
            None => 1,
        };
    }
    if let Some(v) = term.string(cap) {
        o.out(v);
        return 0;
    }
    if KNOWN_STRINGS.contains(&cap) {
        return 1;
    }
    o.err(format!("tput: unknown terminfo capability '{cap}'\n"));
    4
}

/// Runs the capabilities of one command line (`cols lines`, `setaf 1 bold`): the last
/// failure's status.
fn line(term: &Term, words: &[Vec<u8>], no_e3: bool, ctx: &Ctx, o: &mut Outcome) -> i32 {
    let mut status = 0;
    let mut i = 0;
    while let Some(word) = words.get(i) {
        let cap = String::from_utf8_lossy(word).into_owned();
        let n = Term::params(&cap);
        let params: Vec<i64> = words
            .iter()
            .skip(i + 1)
            .take(n)
            .map(|w| number(w))
            .collect();
        i += 1 + params.len();
        let s = one(term, &cap, &params, no_e3, ctx, o);
        if s != 0 {
            status = s;
        }
    }
    status
}

#[allow(clippy::unnecessary_wraps)] // the command table's handler signature
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut term_name: Option<String> = None;
    let (mut stdin_mode, mut no_e3) = (false, false);
    let mut rest = args.iter().map(|a| a.as_bytes()).peekable();
    while let Some(&a) = rest.peek() {
        if a == b"--" {
            rest.next();
            break;
        }
        if a.len() < 2 || !a.starts_with(b"-") {
            break;
        }
        rest.next();
        let mut chars = a.iter().skip(1).enumerate();
        while let Some((k, &c)) = chars.next() {
            match c {
                b'S' => stdin_mode = true,
                b'x' => no_e3 = true,
                b'V' => {
                    let mut o = Outcome::ok();
                    o.out(CURSES_VERSION);
                    return Ok(o);
                }
                b'T' => {
                    let inline = a.get(k + 2..).unwrap_or_default();
                    if inline.is_empty() {
                        match rest.next() {
                            Some(v) => term_name = Some(String::from_utf8_lossy(v).into_owned()),
                            None => {
                                return Ok(usage_error("option requires an argument -- 'T'"));
                            }
                        }
                    } else {
                        term_name = Some(String::from_utf8_lossy(inline).into_owned());
                    }
                    break;
                }
                _ => {
                    return Ok(usage_error(&format!(
                        "invalid option -- '{}'",
                        char::from(c)
                    )));
                }
            }
            let _ = &mut chars;
        }
    }
    let words: Vec<Vec<u8>> = rest.map(<[u8]>::to_vec).collect();
    let Some(name) = term_name
        .or_else(|| terminfo::term_var(ctx))
        .filter(|n| !n.is_empty())
    else {
        let mut o = Outcome::status(2);
        o.err("tput: No value for $TERM and no -T specified\n");
        return Ok(o);
    };
    let Some(term) = terminfo::lookup(&name) else {
        let mut o = Outcome::status(3);
        o.err(format!("tput: unknown terminal \"{name}\"\n"));
        return Ok(o);
    };
    let mut o = Outcome::ok();
    if stdin_mode {
        let mut text = Vec::new();
        let _ = ctx.stdin.take(1 << 20).read_to_end(&mut text);
        let mut status = 0;
        for l in text.split(|&b| b == b'\n') {
            let ws: Vec<Vec<u8>> = l
                .split(u8::is_ascii_whitespace)
                .filter(|w| !w.is_empty())
                .map(<[u8]>::to_vec)
                .collect();
            let s = line(term, &ws, no_e3, ctx, &mut o);
            if s != 0 {
                status = s;
            }
        }
        o.status = status;
        return Ok(o);
    }
    if words.is_empty() {
        let mut o = Outcome::status(2);
        o.err(USAGE);
        return Ok(o);
    }
    o.status = line(term, &words, no_e3, ctx, &mut o);
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Tput;
    use crate::testing::world::{World, text};

    fn out(term: &str, args: &[&str]) -> (String, String, i32) {
        text(&World::empty().var("TERM", term, true).run(Tput, args))
    }

    #[test]
    fn xterm_values() {
        assert_eq!(out("xterm", &["cols", "lines"]).0, "80\n24\n");
        assert_eq!(out("xterm", &["colors"]).0, "8\n");
        assert_eq!(out("xterm-256color", &["colors"]).0, "256\n");
        assert_eq!(out("xterm", &["clear"]).0, "\x1b[H\x1b[2J\x1b[3J");
        assert_eq!(out("xterm", &["-x", "clear"]).0, "\x1b[H\x1b[2J");
        assert_eq!(out("xterm", &["setaf", "1", "bold"]).0, "\x1b[31m\x1b[1m");
        assert_eq!(out("xterm-256color", &["setaf", "9"]).0, "\x1b[91m");
        assert_eq!(out("xterm-256color", &["setab", "100"]).0, "\x1b[48;5;100m");
        assert_eq!(out("xterm", &["cup", "1", "2"]).0, "\x1b[2;3H");
        assert_eq!(out("xterm", &["sgr0"]).0, "\x1b(B\x1b[m");
        assert_eq!(out("xterm", &["am"]).2, 0);
        assert_eq!(out("xterm", &["hs"]).2, 1);
        assert_eq!(out("vt100", &["setaf", "1"]).2, 1);
    }

    #[test]
    fn errors_as_ncurses() {
        assert_eq!(
            out("x", &["cols"]),
            (String::new(), "tput: unknown terminal \"x\"\n".into(), 3)
        );
        assert_eq!(
            out("xterm", &["foo"]),
            (
                String::new(),
                "tput: unknown terminfo capability 'foo'\n".into(),
                4
            )
        );
        assert_eq!(
            text(&World::empty().run(super::super::super::CommandName::Tput, &["cols"])),
            (
                String::new(),
                "tput: No value for $TERM and no -T specified\n".into(),
                2
            )
        );
        assert_eq!(out("xterm", &[]).2, 2);
        assert_eq!(out("xterm", &["-T", "dumb", "colors"]).0, "-1\n");
    }
}
