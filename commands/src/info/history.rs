//! `history`, bash's builtin, as in a non-interactive bash (`bash -c`, a script, bash reading
//! its stdin): history is off, so the list is empty and every line ran is forgotten. The
//! emulation keeps no history in the REPL either (known gap); `-s` is accepted and adds
//! nothing, `-a -n -r -w` do nothing, `-p` prints its arguments (no `!` expansion).

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::{Ctx, Outcome};

pub const USAGE: &str =
    "history [-c] [-d offset] [n] or history -anrw [filename] or history -ps arg [arg...]";

/// The text of `help history`.
pub fn help() -> String {
    "history: history [-c] [-d offset] [n] or history -anrw [filename] or history -ps arg [arg...]
    Display or manipulate the history list.
    
    Display the history list with line numbers, prefixing each modified
    entry with a `*'.  An argument of N lists only the last N entries.
    
    Options:
      -c\tclear the history list by deleting all of the entries
      -d offset\tdelete the history entry at position OFFSET. Negative
    \t\toffsets count back from the end of the history list
    
      -a\tappend history lines from this session to the history file
      -n\tread all history lines not already read from the history file
    \t\tand append them to the history list
      -r\tread the history file and append the contents to the history
    \t\tlist
      -w\twrite the current history to the history file
    
      -p\tperform history expansion on each ARG and display the result
    \t\twithout storing it in the history list
      -s\tappend the ARGs to the history list as a single entry
    
    If FILENAME is given, it is used as the history file.  Otherwise,
    if HISTFILE has a value, that is used, else ~/.bash_history.
    
    If the HISTTIMEFORMAT variable is set and not null, its value is used
    as a format string for strftime(3) to print the time stamp associated
    with each displayed history entry.  No time stamps are printed otherwise.
    
    Exit Status:
    Returns success unless an invalid option is given or an error occurs.
"
    .to_string()
}

#[allow(clippy::unnecessary_wraps)] // the command table's handler signature
pub fn run(args: &[OsString], _ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut o = Outcome::ok();
    let mut i = 0;
    let mut print = false;
    let mut delete: Option<OsString> = None;
    while let Some(a) = args.get(i) {
        let b = a.as_bytes();
        if b == b"--" {
            i += 1;
            break;
        }
        if b == b"--help" {
            return Err(Stop::Help);
        }
        if b.len() < 2 || !b.starts_with(b"-") {
            break;
        }
        i += 1;
        let flags = b.get(1..).unwrap_or_default();
        for (k, &c) in flags.iter().enumerate() {
            match c {
                b'c' | b'a' | b'n' | b'r' | b'w' | b's' => {}
                b'p' => print = true,
                b'd' => {
                    let inline = flags.get(k + 1..).unwrap_or_default();
                    delete = if inline.is_empty() {
                        let Some(v) = args.get(i) else {
                            return Err(Stop::Usage("-d: option requires an argument".into()));
                        };
                        i += 1;
                        Some(v.clone())
                    } else {
                        Some(std::ffi::OsStr::from_bytes(inline).to_os_string())
                    };
                    break;
                }
                _ => {
                    return Err(Stop::Usage(format!("-{}: invalid option", char::from(c))));
                }
            }
        }
    }
    let rest = args.get(i..).unwrap_or_default();
    if let Some(d) = delete {
        return Err(Stop::Fail(format!(
            "{}: history position out of range",
            d.to_string_lossy()
        )));
    }
    if print {
        for a in rest {
            o.out(a.as_bytes());
            o.out(b"\n");
        }
        return Ok(o);
    }
    if let Some(n) = rest.first() {
        let text = n.to_string_lossy();
        let t = text.strip_prefix(['-', '+']).unwrap_or(&text);
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Stop::Fail(format!("{text}: numeric argument required")));
        }
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::History;
    use crate::testing::world::{World, text};

    #[test]
    fn history_is_off() {
        let w = World::empty();
        assert_eq!(
            text(&w.run(History, &[])),
            (String::new(), String::new(), 0)
        );
        assert_eq!(text(&w.run(History, &["5"])).2, 0);
        assert_eq!(text(&w.run(History, &["-c"])).2, 0);
        assert_eq!(text(&w.run(History, &["-p", "abc"])).0, "abc\n");
        assert_eq!(
            text(&w.run(History, &["x"])).1,
            "history: x: numeric argument required\n"
        );
        assert_eq!(
            text(&w.run(History, &["-d", "1"])).1,
            "history: 1: history position out of range\n"
        );
        assert_eq!(text(&w.run(History, &["-Z"])).2, 2);
    }
}
