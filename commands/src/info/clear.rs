//! `clear`, ncurses 6.4: the clear-screen sequence of `$TERM` (or `-T`), and the one that
//! clears the scrollback unless `-x` ([`super::terminfo`]). It only prints those bytes.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use super::terminfo;
use crate::Stop;
use crate::{Ctx, Outcome};

/// ncurses' usage text, on stderr for a usage error.
const USAGE: &str = "Usage: clear [options]

Options:
  -T TERM     use this instead of $TERM
  -V          print curses-version
  -x          do not try to clear scrollback
";

fn usage_error(msg: Option<&str>) -> Outcome {
    let mut o = Outcome::status(1);
    if let Some(m) = msg {
        o.err(format!("clear: {m}\n"));
    }
    o.err(USAGE);
    o
}

#[allow(clippy::unnecessary_wraps)] // the command table's handler signature
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut term_name: Option<String> = None;
    let mut no_e3 = false;
    let mut rest = args.iter().map(|a| a.as_bytes());
    while let Some(a) = rest.next() {
        if a == b"--" {
            if rest.next().is_some() {
                return Ok(usage_error(None));
            }
            break;
        }
        if a.len() < 2 || !a.starts_with(b"-") {
            return Ok(usage_error(None));
        }
        for (k, &c) in a.iter().enumerate().skip(1) {
            match c {
                b'x' => no_e3 = true,
                b'V' => {
                    let mut o = Outcome::ok();
                    o.out("ncurses 6.4.20221231\n");
                    return Ok(o);
                }
                b'T' => {
                    let inline = a.get(k + 1..).unwrap_or_default();
                    term_name = Some(if inline.is_empty() {
                        match rest.next() {
                            Some(v) => String::from_utf8_lossy(v).into_owned(),
                            None => {
                                return Ok(usage_error(Some("option requires an argument -- 'T'")));
                            }
                        }
                    } else {
                        String::from_utf8_lossy(inline).into_owned()
                    });
                    break;
                }
                _ => {
                    return Ok(usage_error(Some(&format!(
                        "invalid option -- '{}'",
                        char::from(c)
                    ))));
                }
            }
        }
    }
    let Some(name) = term_name
        .or_else(|| terminfo::term_var(ctx))
        .filter(|n| !n.is_empty())
    else {
        let mut o = Outcome::status(1);
        o.err("TERM environment variable not set.\n");
        return Ok(o);
    };
    let Some(term) = terminfo::lookup(&name) else {
        let mut o = Outcome::status(1);
        o.err(format!("'{name}': unknown terminal type.\n"));
        return Ok(o);
    };
    let Some(clear) = term.string("clear") else {
        return Ok(Outcome::status(1));
    };
    let mut o = Outcome::ok();
    o.out(clear);
    if !no_e3 && let Some(e3) = term.string("E3") {
        o.out(e3);
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Clear;
    use crate::testing::world::{World, text};

    #[test]
    fn clears_as_ncurses() {
        let xterm = World::empty().var("TERM", "xterm", true);
        assert_eq!(text(&xterm.run(Clear, &[])).0, "\x1b[H\x1b[2J\x1b[3J");
        assert_eq!(text(&xterm.run(Clear, &["-x"])).0, "\x1b[H\x1b[2J");
        assert_eq!(
            text(&World::empty().run(Clear, &[])),
            (
                String::new(),
                "TERM environment variable not set.\n".into(),
                1
            )
        );
        assert_eq!(
            text(&xterm.run(Clear, &["-T", "x"])).1,
            "'x': unknown terminal type.\n"
        );
        assert_eq!(text(&xterm.run(Clear, &["foo"])).2, 1);
    }
}
