//! `timeout`, GNU coreutils: runs a command through the emulated shell under its own
//! deadline ([`Ctx::run_until`]): past it the command stops as a command stops at the line's
//! deadline (as if killed by the signal), the rest of the line goes on, and `timeout` exits
//! 124 (`--preserve-status`: 128 + the signal; `-s KILL`: 137). 125: `timeout`'s own error;
//! 126/127: the command cannot run or is not found. `-k` is accepted: the command always
//! stops at the first signal.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::time::{Duration, Instant};

use super::system::{interval_seconds, signal_name, signal_number};
use crate::Stop;
use crate::support::quote::quote;
use crate::{Ctx, Outcome, RunRequest, RunWhat};

const TRY: &str = "Try 'timeout --help' for more information.\n";

/// GNU's `--help` text.
const HELP: &str = "Usage: timeout [OPTION] DURATION COMMAND [ARG]...
  or:  timeout [OPTION]
Start COMMAND, and kill it if still running after DURATION.

Mandatory arguments to long options are mandatory for short options too.
      --preserve-status
                 exit with the same status as COMMAND, even when the
                   command times out
      --foreground
                 when not running timeout directly from a shell prompt,
                   allow COMMAND to read from the TTY and get TTY signals;
                   in this mode, children of COMMAND will not be timed out
  -k, --kill-after=DURATION
                 also send a KILL signal if COMMAND is still running
                   this long after the initial signal was sent
  -s, --signal=SIGNAL
                 specify the signal to be sent on timeout;
                   SIGNAL may be a name like 'HUP' or a number;
                   see 'kill -l' for a list of signals
  -v, --verbose  diagnose to stderr any signal sent upon timeout
      --help        display this help and exit
      --version     output version information and exit

DURATION is a floating point number with an optional suffix:
's' for seconds (the default), 'm' for minutes, 'h' for hours or 'd' for days.
A duration of 0 disables the associated timeout.

Upon timeout, send the TERM signal to COMMAND, if no other SIGNAL specified.
The TERM signal kills any process that does not block or catch that signal.
It may be necessary to use the KILL signal, since this signal can't be caught.

Exit status:
  124  if COMMAND times out, and --preserve-status is not specified
  125  if the timeout command itself fails
  126  if COMMAND is found but cannot be invoked
  127  if COMMAND cannot be found
  -    the exit status of COMMAND otherwise
";

fn fail(msg: &str, try_help: bool) -> Outcome {
    let mut o = Outcome::status(125);
    if !msg.is_empty() {
        o.err(format!("timeout: {msg}\n"));
    }
    if try_help {
        o.err(TRY);
    }
    o
}

/// The options before the duration, GNU's `+` getopt (the command's own options are its).
struct Options {
    signal: i64,
    preserve: bool,
    verbose: bool,
    /// Where the duration is in the arguments.
    rest: usize,
}

fn options(args: &[OsString]) -> Result<Options, Outcome> {
    let mut opts = Options {
        signal: 15,
        preserve: false,
        verbose: false,
        rest: args.len(),
    };
    let signal = |v: &[u8]| -> Result<i64, Outcome> {
        let text = String::from_utf8_lossy(v);
        signal_number(&text)
            .filter(|&n| n > 0)
            .ok_or_else(|| fail(&format!("{}: invalid signal", quote(&*text)), true))
    };
    let duration = |v: &[u8]| -> Result<(), Outcome> {
        interval_seconds(v).map(|_| ()).ok_or_else(|| {
            fail(
                &format!(
                    "invalid time interval {}",
                    quote(OsString::from(std::ffi::OsStr::from_bytes(v)))
                ),
                true,
            )
        })
    };
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let b = a.as_bytes();
        i += 1;
        if b == b"--" {
            break;
        }
        if let Some(long) = b.strip_prefix(b"--") {
            let (name, value) = match long.iter().position(|&c| c == b'=') {
                Some(k) => (long.get(..k).unwrap_or_default(), long.get(k + 1..)),
                None => (long, None),
            };
            let name = String::from_utf8_lossy(name).into_owned();
            let pick = [
                "preserve-status",
                "foreground",
                "kill-after",
                "signal",
                "verbose",
                "help",
                "version",
            ]
            .iter()
            .filter(|n| n.starts_with(name.as_str()))
            .copied()
            .collect::<Vec<_>>();
            let full = if pick.len() == 1 || pick.contains(&name.as_str()) {
                if pick.contains(&name.as_str()) {
                    name.as_str()
                } else {
                    pick.first().copied().unwrap_or("")
                }
            } else {
                return Err(fail(
                    &format!("unrecognized option '{}'", a.to_string_lossy()),
                    true,
                ));
            };
            match full {
                "preserve-status" => opts.preserve = true,
                "verbose" => opts.verbose = true,
                "help" => {
                    let mut out = Outcome::ok();
                    out.out(HELP);
                    return Err(out);
                }
                "version" => return Err(Stop::Version.render_program("timeout", 125)),
                "kill-after" | "signal" => {
                    let v = match value {
                        Some(v) => v.to_vec(),
                        None => match args.get(i) {
                            Some(v) => {
                                i += 1;
                                v.as_bytes().to_vec()
                            }
                            None => {
                                return Err(fail(
                                    &format!("option '--{full}' requires an argument"),
                                    true,
                                ));
                            }
                        },
                    };
                    if full == "signal" {
                        opts.signal = signal(&v)?;
                    } else {
                        duration(&v)?;
                    }
                }
                _ => {}
            }
            continue;
        }
        if b.len() < 2 || !b.starts_with(b"-") {
            i -= 1;
            break;
        }
        let mut k = 1;
        while let Some(&c) = b.get(k) {
            k += 1;
            match c {
                b'v' => opts.verbose = true,
                b's' | b'k' => {
                    let inline = b.get(k..).unwrap_or_default();
                    let v = if inline.is_empty() {
                        match args.get(i) {
                            Some(v) => {
                                i += 1;
                                v.as_bytes().to_vec()
                            }
                            None => {
                                return Err(fail(
                                    &format!("option requires an argument -- '{}'", char::from(c)),
                                    true,
                                ));
                            }
                        }
                    } else {
                        inline.to_vec()
                    };
                    if c == b's' {
                        opts.signal = signal(&v)?;
                    } else {
                        duration(&v)?;
                    }
                    break;
                }
                _ => {
                    return Err(fail(
                        &format!("invalid option -- '{}'", char::from(c)),
                        true,
                    ));
                }
            }
        }
    }
    opts.rest = i;
    Ok(opts)
}

#[allow(clippy::unnecessary_wraps)] // the command table's handler signature
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let opts = match options(args) {
        Ok(o) => o,
        Err(out) => return Ok(out),
    };
    let rest = args.get(opts.rest..).unwrap_or_default();
    let (Some(duration), Some(_)) = (rest.first(), rest.get(1)) else {
        return Ok(fail("", true));
    };
    let Some(secs) = interval_seconds(duration.as_bytes()) else {
        return Ok(fail(
            &format!("invalid time interval {}", quote(duration)),
            true,
        ));
    };
    let command = rest.get(1..).unwrap_or_default();
    let limit = Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX);
    let req = RunRequest {
        what: RunWhat::Argv(command),
        stdin: None,
        inherit_stdin: true,
        capture: false,
        cwd: None,
        env: None,
    };
    let mut o = Outcome::ok();
    let start = Instant::now();
    let result = if limit.is_zero() {
        ctx.run(&mut o, req)
    } else {
        ctx.run_until(&mut o, req, limit)
    };
    let Some(result) = result else {
        return Ok(o);
    };
    if result.not_found {
        let name = command.first().map(quote).unwrap_or_default();
        o.err(format!(
            "timeout: failed to run command {name}: No such file or directory\n"
        ));
        return Ok(o.with_status(127));
    }
    if !limit.is_zero() && start.elapsed() >= limit && !result.stop {
        if opts.verbose {
            let name = command.first().map(quote).unwrap_or_default();
            o.err(format!(
                "timeout: sending signal {} to command {name}\n",
                signal_name(opts.signal).unwrap_or_default()
            ));
        }
        let status = if opts.preserve || opts.signal == 9 {
            128 + i32::try_from(opts.signal).unwrap_or(15)
        } else {
            124
        };
        return Ok(o.with_status(status));
    }
    Ok(o.with_status(result.status))
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Timeout;
    use crate::testing::world::{World, text};

    fn out(args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(Timeout, args))
    }

    #[test]
    fn errors_as_gnu() {
        let try_help = "Try 'timeout --help' for more information.\n";
        assert_eq!(out(&[]), (String::new(), try_help.into(), 125));
        assert_eq!(out(&["1"]), (String::new(), try_help.into(), 125));
        assert_eq!(
            out(&["x", "sleep", "1"]),
            (
                String::new(),
                format!("timeout: invalid time interval 'x'\n{try_help}"),
                125
            )
        );
        assert_eq!(
            out(&["-s", "FOO", "1", "true"]),
            (
                String::new(),
                format!("timeout: 'FOO': invalid signal\n{try_help}"),
                125
            )
        );
        assert_eq!(
            out(&["-Z", "1", "true"]).1,
            format!("timeout: invalid option -- 'Z'\n{try_help}")
        );
        assert_eq!(out(&["-s", "KILL", "-k", "1", "-v", "1", "true"]).2, 0);
    }
}
