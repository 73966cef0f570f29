//! `uptime`, procps-ng 4.0: how long the emulated machine has been up — since the session
//! started ([`crate::Identity::booted`]) — with its one user and an idle load.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;

use super::system::{local, up_seconds};
use crate::Stop;
use crate::{Ctx, Outcome};

const USAGE: &str = "
Usage:
 uptime [options]

Options:
 -p, --pretty   show uptime in pretty format
 -h, --help     display this help and exit
 -s, --since    system up since
 -V, --version  output version information and exit

For more details see uptime(1).
";

fn plural(n: u64, one: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// `up 2 hours, 5 minutes` (`-p`).
fn pretty(secs: u64) -> String {
    let (weeks, days) = (secs / 604_800, secs / 86_400 % 7);
    let (hours, minutes) = (secs / 3600 % 24, secs / 60 % 60);
    let mut parts = Vec::new();
    if weeks > 0 {
        parts.push(plural(weeks, "week"));
    }
    if days > 0 {
        parts.push(plural(days, "day"));
    }
    if hours > 0 {
        parts.push(plural(hours, "hour"));
    }
    if minutes > 0 || parts.is_empty() {
        parts.push(plural(minutes, "minute"));
    }
    format!("up {}\n", parts.join(", "))
}

/// ` 19:26:25 up 17:11,  1 user,  load average: 0.00, 0.00, 0.00`.
fn line(ctx: &Ctx) -> String {
    let now = local(ctx, ctx.now);
    let secs = up_seconds(ctx);
    let (days, hours, minutes) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60);
    let mut up = String::new();
    if days > 0 {
        let unit = if days > 1 { "days" } else { "day" };
        let _ = write!(up, "{days} {unit}, ");
    }
    if hours > 0 {
        let _ = write!(up, "{hours:2}:{minutes:02}, ");
    } else {
        let _ = write!(up, "{minutes} min, ");
    }
    format!(
        " {:02}:{:02}:{:02} up {up} 1 user,  load average: 0.00, 0.00, 0.00\n",
        now.hour, now.min, now.sec
    )
}

#[allow(clippy::unnecessary_wraps)] // the command table's handler signature
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut o = Outcome::ok();
    let mut mode = ' ';
    for a in args {
        let b = a.as_bytes();
        let flags: Vec<u8> = match b {
            b"--pretty" => vec![b'p'],
            b"--since" => vec![b's'],
            b"--help" => vec![b'h'],
            b"--version" => vec![b'V'],
            _ if b.starts_with(b"--") => {
                o.err(format!(
                    "uptime: unrecognized option '{}'\n{USAGE}",
                    a.to_string_lossy()
                ));
                return Ok(o.with_status(1));
            }
            _ if b.len() > 1 && b.starts_with(b"-") => b.get(1..).unwrap_or_default().to_vec(),
            _ => {
                o.err(USAGE);
                return Ok(o.with_status(1));
            }
        };
        for c in flags {
            match c {
                b'p' | b's' => mode = char::from(c),
                b'h' => {
                    o.out(USAGE);
                    return Ok(o);
                }
                b'V' => {
                    o.out("uptime from procps-ng 4.0.2\n");
                    return Ok(o);
                }
                _ => {
                    o.err(format!(
                        "uptime: invalid option -- '{}'\n{USAGE}",
                        char::from(c)
                    ));
                    return Ok(o.with_status(1));
                }
            }
        }
    }
    match mode {
        'p' => o.out(pretty(up_seconds(ctx))),
        's' => {
            let t = local(ctx, ctx.identity.booted);
            o.out(format!(
                "{:04}-{:02}-{:02} {:02}:{:02}:{:02}\n",
                t.year, t.month, t.day, t.hour, t.min, t.sec
            ))
        }
        _ => o.out(line(ctx)),
    };
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::pretty;
    use crate::CommandName::Uptime;
    use crate::testing::world::{World, text};

    #[test]
    fn up_since_the_session() {
        assert_eq!(pretty(0), "up 0 minutes\n");
        assert_eq!(pretty(61), "up 1 minute\n");
        assert_eq!(pretty(3600 * 26 + 120), "up 1 day, 2 hours, 2 minutes\n");
        let (out, _, status) = text(&World::empty().run(Uptime, &[]));
        assert_eq!(status, 0);
        assert!(
            out.ends_with(" up 0 min,  1 user,  load average: 0.00, 0.00, 0.00\n"),
            "{out}"
        );
        assert_eq!(text(&World::empty().run(Uptime, &["-x"])).2, 1);
    }
}
