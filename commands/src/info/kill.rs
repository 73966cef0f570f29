//! `kill`, bash's builtin (and procps' `/usr/bin/kill` as a program): signals by name or
//! number, `-l`/`-L` to list them. The emulated machine has no process but the shell
//! (`$$`) and no job, so a signal to `$$` succeeds without effect, and any other process or
//! job does not exist.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;

use super::system::{SHELL_PID, signal_name as name, signal_number as number};
use crate::Stop;
use crate::{Ctx, Outcome};

pub const USAGE: &str =
    "kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]";

/// The text of `help kill`.
pub fn help() -> String {
    "kill: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]
    Send a signal to a job.
    
    Send the processes identified by PID or JOBSPEC the signal named by
    SIGSPEC or SIGNUM.  If neither SIGSPEC nor SIGNUM is present, then
    SIGTERM is assumed.
    
    Options:
      -s sig\tSIG is a signal name
      -n sig\tSIG is a signal number
      -l\tlist the signal names; if arguments follow `-l' they are
    \t\tassumed to be signal numbers for which names should be listed
      -L\tsynonym for -l
    
    Kill is a shell builtin for two reasons: it allows job IDs to be used
    instead of process IDs, and allows processes to be killed if the limit
    on processes that you can create is reached.
    
    Exit Status:
    Returns success unless an invalid option is given or an error occurs.
"
    .to_string()
}

/// `kill -l`'s table: five `%2d) SIG%s\t` a line.
fn table() -> String {
    let mut out = String::new();
    let mut k = 0;
    for n in 1..=64 {
        if let Some(nm) = name(n) {
            let _ = write!(out, "{n:2}) SIG{nm}");
            k += 1;
            out.push(if k % 5 == 0 { '\n' } else { '\t' });
        }
    }
    if k % 5 != 0 {
        out.push('\n');
    }
    out
}

fn list(specs: &[String], o: &mut Outcome, program: Option<&str>) {
    if specs.is_empty() {
        o.out(table());
        return;
    }
    for s in specs {
        let answer = match s.parse::<i64>() {
            Ok(n) => name(if n > 128 { n - 128 } else { n }),
            Err(_) => number(s).map(|n| n.to_string()),
        };
        if let Some(a) = answer {
            o.out(format!("{a}\n"));
        } else {
            say(o, program, &format!("{s}: invalid signal specification"));
            o.status = 1;
        }
    }
}

/// A diagnostic: bash's (`bash: kill: MSG`) or, run as a program, procps' (`kill: MSG`).
fn say(o: &mut Outcome, program: Option<&str>, msg: &str) {
    match program {
        Some(p) => o.err(format!("{p}: {msg}\n")),
        None => o.shell_err(format!("kill: {msg}\n")),
    };
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let program = ctx.program;
    let args: Vec<String> = args
        .iter()
        .map(|a| String::from_utf8_lossy(a.as_bytes()).into_owned())
        .collect();
    let mut o = Outcome::ok();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "--help" if program.is_none() => return Err(Stop::Help),
            "-l" | "-L" | "--list" => {
                list(args.get(i + 1..).unwrap_or_default(), &mut o, program);
                return Ok(o);
            }
            "-s" | "-n" => {
                let Some(spec) = args.get(i + 1) else {
                    say(
                        &mut o,
                        program,
                        &format!("{a}: option requires an argument"),
                    );
                    return Ok(o.with_status(1));
                };
                if number(spec).is_none() {
                    say(
                        &mut o,
                        program,
                        &format!("{spec}: invalid signal specification"),
                    );
                    return Ok(o.with_status(1));
                }
                i += 2;
            }
            "--" => {
                i += 1;
                break;
            }
            _ if a.len() > 1 && a.starts_with('-') => {
                let spec = a.get(1..).unwrap_or_default();
                if number(spec).is_none() {
                    say(
                        &mut o,
                        program,
                        &format!("{spec}: invalid signal specification"),
                    );
                    return Ok(o.with_status(1));
                }
                i += 1;
            }
            _ => break,
        }
    }
    let targets = args.get(i..).unwrap_or_default();
    if targets.is_empty() {
        o.err(format!("kill: usage: {USAGE}\n"));
        return Ok(o.with_status(2));
    }
    for t in targets {
        if t.starts_with('%') {
            say(&mut o, program, &format!("{t}: no such job"));
            o.status = 1;
            continue;
        }
        match t.parse::<i64>() {
            Ok(pid) if pid == i64::from(SHELL_PID) => {}
            Ok(pid) => {
                let msg = if program.is_some() {
                    format!("({pid}): No such process")
                } else {
                    format!("({pid}) - No such process")
                };
                say(&mut o, program, &msg);
                o.status = 1;
            }
            Err(_) => {
                say(
                    &mut o,
                    program,
                    &format!("{t}: arguments must be process or job IDs"),
                );
                o.status = 1;
            }
        }
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Kill;
    use crate::testing::world::{World, text};

    fn out(args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(Kill, args))
    }

    #[test]
    fn signals_as_bash() {
        let l = out(&["-l"]).0;
        assert!(l.starts_with(" 1) SIGHUP\t 2) SIGINT\t"));
        assert!(l.contains("5) SIGTRAP\n 6)"));
        assert!(l.ends_with("63) SIGRTMAX-1\t64) SIGRTMAX\t\n"));
        assert_eq!(
            out(&["-l", "9", "KILL", "sigterm", "137"]).0,
            "KILL\n9\n15\nKILL\n"
        );
        assert_eq!(out(&["-0", "4242"]).2, 0);
        assert_eq!(out(&["-9", "4242"]).2, 0);
    }

    #[test]
    fn errors_as_bash() {
        assert_eq!(out(&["123"]).1, "kill: (123) - No such process\n");
        assert_eq!(out(&["123"]).2, 1);
        assert_eq!(out(&["%1"]).1, "kill: %1: no such job\n");
        assert_eq!(
            out(&["abc"]).1,
            "kill: abc: arguments must be process or job IDs\n"
        );
        assert_eq!(
            out(&["-FOO", "1"]).1,
            "kill: FOO: invalid signal specification\n"
        );
        assert_eq!(out(&[]).2, 2);
        assert_eq!(
            out(&["-l", "999"]).1,
            "kill: 999: invalid signal specification\n"
        );
    }
}
