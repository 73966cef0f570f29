//! `ps`, procps-ng 4.0: the emulated machine's processes, which are only the session's shell
//! (`bash`, `$$`) and `ps` itself. The common forms: `ps`, `ps -e`/`-A`, `ps -f`/`-ef`,
//! `ps aux`, `ps -p PID[,PID]`, `ps -o FIELD[,FIELD]`.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use super::system::{PARENT_PID, PS_PID, SHELL_PID, TTY, local};
use crate::Stop;
use crate::{Ctx, Outcome};

const USAGE: &str = "
Usage:
 ps [options]

 Try 'ps --help <simple|list|output|threads|misc|all>'
  or 'ps --help <s|l|o|t|m|a>'
 for additional help text.

For more details see ps(1).
";

/// One process of the table.
struct Proc {
    pid: u32,
    ppid: u32,
    comm: String,
    args: String,
    start: String,
    stat: &'static str,
    vsz: u32,
    rss: u32,
}

/// A column: its header, width, right-aligned.
fn column(field: &str) -> Option<(&'static str, usize, bool)> {
    Some(match field {
        "pid" => ("PID", 7, true),
        "ppid" => ("PPID", 7, true),
        "user" | "euser" | "uname" => ("USER", 8, false),
        "uid" | "euid" => ("UID", 5, true),
        "comm" | "ucomm" | "ucmd" => ("COMMAND", 15, false),
        "args" | "command" => ("COMMAND", 30, false),
        "cmd" => ("CMD", 30, false),
        "tty" | "tt" | "tname" => ("TT", 8, false),
        "stat" => ("STAT", 4, false),
        "time" | "cputime" => ("TIME", 8, true),
        "etime" => ("ELAPSED", 11, true),
        "%cpu" | "pcpu" => ("%CPU", 4, true),
        "%mem" | "pmem" => ("%MEM", 4, true),
        "rss" | "rssize" => ("RSS", 5, true),
        "vsz" | "vsize" => ("VSZ", 6, true),
        "start" | "stime" => ("STIME", 5, false),
        "c" => ("C", 2, true),
        "ni" | "nice" => ("NI", 3, true),
        "pri" => ("PRI", 3, true),
        _ => return None,
    })
}

fn value(field: &str, p: &Proc, ctx: &Ctx, elapsed: &str) -> String {
    match field {
        "pid" => p.pid.to_string(),
        "ppid" => p.ppid.to_string(),
        "user" | "euser" | "uname" => ctx.identity.user.clone(),
        "uid" | "euid" => ctx.identity.uid.to_string(),
        "comm" | "ucomm" | "ucmd" => p.comm.clone(),
        "args" | "command" | "cmd" => p.args.clone(),
        "tty" | "tt" | "tname" => TTY.to_string(),
        "stat" => p.stat.to_string(),
        "time" | "cputime" => "00:00:00".to_string(),
        "etime" => elapsed.to_string(),
        "%cpu" | "pcpu" | "%mem" | "pmem" => "0.0".to_string(),
        "rss" | "rssize" => p.rss.to_string(),
        "vsz" | "vsize" => p.vsz.to_string(),
        "start" | "stime" => p.start.clone(),
        "pri" => "19".to_string(),
        _ => "0".to_string(),
    }
}

/// `MM:SS`, `HH:MM:SS` or `D-HH:MM:SS`, as `etime`.
fn etime(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    if d > 0 {
        format!("{d}-{h:02}:{m:02}:{s:02}")
    } else if h > 0 {
        format!("{h:02}:{m:02}:{s:02}")
    } else {
        format!("{m:02}:{s:02}")
    }
}

fn pad(text: &str, width: usize, right: bool, last: bool) -> String {
    if last && !right {
        text.to_string()
    } else if right {
        format!("{text:>width$}")
    } else {
        format!("{text:<width$}")
    }
}

fn usage_error(msg: &str) -> Outcome {
    let mut o = Outcome::status(1);
    o.err(format!("{msg}\n{USAGE}"));
    o
}

#[allow(clippy::too_many_lines, clippy::unnecessary_wraps)] // the table's signature
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let (mut full, mut bsd_user) = (false, false);
    let mut pids: Vec<u32> = Vec::new();
    let mut fields: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let text = a.to_string_lossy().into_owned();
        let b = a.as_bytes();
        let mut take = |inline: &[u8]| -> Option<String> {
            if inline.is_empty() {
                it.next().map(|v| v.to_string_lossy().into_owned())
            } else {
                Some(String::from_utf8_lossy(inline).into_owned())
            }
        };
        if let Some(long) = text.strip_prefix("--") {
            let (name, val) = long
                .split_once('=')
                .map_or((long, None), |(n, v)| (n, Some(v)));
            match name {
                "pid" | "format" => {
                    let Some(v) = val.map(str::to_string).or_else(|| take(b"")) else {
                        return Ok(usage_error("error: list of process IDs must follow --pid"));
                    };
                    if name == "pid" {
                        for p in v.split([',', ' ']).filter(|s| !s.is_empty()) {
                            match p.parse() {
                                Ok(n) => pids.push(n),
                                Err(_) => {
                                    return Ok(usage_error("error: process ID list syntax error"));
                                }
                            }
                        }
                    } else {
                        fields.extend(v.split([',', ' ']).map(str::to_string));
                    }
                }
                "help" => {
                    let mut o = Outcome::ok();
                    o.out(USAGE);
                    return Ok(o);
                }
                "version" | "V" => {
                    let mut o = Outcome::ok();
                    o.out("ps from procps-ng 4.0.2\n");
                    return Ok(o);
                }
                _ => return Ok(usage_error("error: unknown gnu long option")),
            }
            continue;
        }
        let (dash, opts) = match b.strip_prefix(b"-") {
            Some(rest) => (true, rest),
            None => (false, b),
        };
        let mut k = 0;
        while let Some(&c) = opts.get(k) {
            k += 1;
            match (dash, c) {
                (_, b'e' | b'A' | b'a' | b'x' | b'w' | b'H' | b'l' | b'j') => {}
                (true, b'f' | b'F') => full = true,
                (false, b'u') => bsd_user = true,
                (_, b'p' | b'o') => {
                    let Some(v) = take(opts.get(k..).unwrap_or_default()) else {
                        return Ok(usage_error(if c == b'p' {
                            "error: list of process IDs must follow -p"
                        } else {
                            "error: format specification must follow -o"
                        }));
                    };
                    if c == b'p' {
                        for p in v.split([',', ' ']).filter(|s| !s.is_empty()) {
                            match p.parse() {
                                Ok(n) => pids.push(n),
                                Err(_) => {
                                    return Ok(usage_error("error: process ID list syntax error"));
                                }
                            }
                        }
                    } else {
                        fields.extend(v.split([',', ' ']).map(str::to_string));
                    }
                    break;
                }
                (true, b'V') => {
                    let mut o = Outcome::ok();
                    o.out("ps from procps-ng 4.0.2\n");
                    return Ok(o);
                }
                _ => {
                    return Ok(usage_error(if dash {
                        "error: unsupported SysV option"
                    } else {
                        "error: unsupported option (BSD syntax)"
                    }));
                }
            }
        }
    }
    let boot = local(ctx, ctx.identity.booted);
    let now = local(ctx, ctx.now);
    let me: Vec<String> = std::iter::once("ps".to_string())
        .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
        .collect();
    let table = [
        Proc {
            pid: SHELL_PID,
            ppid: PARENT_PID,
            comm: "bash".into(),
            args: "bash".into(),
            start: format!("{:02}:{:02}", boot.hour, boot.min),
            stat: "Ss",
            vsz: 8012,
            rss: 4608,
        },
        Proc {
            pid: PS_PID,
            ppid: SHELL_PID,
            comm: "ps".into(),
            args: me.join(" "),
            start: format!("{:02}:{:02}", now.hour, now.min),
            stat: "R+",
            vsz: 11084,
            rss: 4352,
        },
    ];
    let up = super::system::up_seconds(ctx);
    let mut o = Outcome::ok();
    let rows: Vec<&Proc> = table
        .iter()
        .filter(|p| pids.is_empty() || pids.contains(&p.pid))
        .collect();
    if rows.is_empty() {
        o.status = 1;
    }
    if fields.is_empty() {
        // The fixed formats.
        if bsd_user {
            o.out("USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n");
            for p in &rows {
                o.out(format!(
                    "{:<8} {:>7} {:>4} {:>4} {:>6} {:>5} {:<8} {:<4} {:>5} {:>6} {}\n",
                    ctx.identity.user,
                    p.pid,
                    "0.0",
                    "0.0",
                    p.vsz,
                    p.rss,
                    TTY,
                    p.stat,
                    p.start,
                    "0:00",
                    p.args
                ));
            }
        } else if full {
            o.out("UID          PID    PPID  C STIME TTY          TIME CMD\n");
            for p in &rows {
                o.out(format!(
                    "{:<8} {:>7} {:>7} {:>2} {:<5} {:<8} {:>8} {}\n",
                    ctx.identity.user, p.pid, p.ppid, 0, p.start, TTY, "00:00:00", p.args
                ));
            }
        } else {
            o.out("    PID TTY          TIME CMD\n");
            for p in &rows {
                o.out(format!(
                    "{:>7} {:<8} {:>8} {}\n",
                    p.pid, TTY, "00:00:00", p.comm
                ));
            }
        }
        return Ok(o);
    }
    let mut cols = Vec::new();
    for f in fields.iter().filter(|f| !f.is_empty()) {
        let (name, header) = f
            .split_once('=')
            .map_or((f.as_str(), None), |(n, h)| (n, Some(h)));
        let Some((h, w, right)) = column(name) else {
            return Ok(usage_error(&format!(
                "error: unknown user-defined format specifier \"{name}\""
            )));
        };
        cols.push((
            name.to_string(),
            header.map_or(h.to_string(), str::to_string),
            w,
            right,
        ));
    }
    let n = cols.len();
    let render = |cells: Vec<String>| -> String {
        let mut line = cells
            .iter()
            .zip(&cols)
            .enumerate()
            .map(|(i, (c, (_, _, w, right)))| pad(c, *w, *right, i + 1 == n))
            .collect::<Vec<_>>()
            .join(" ");
        line.truncate(line.trim_end().len());
        line.push('\n');
        line
    };
    if cols.iter().any(|(_, h, _, _)| !h.is_empty()) {
        o.out(render(cols.iter().map(|(_, h, _, _)| h.clone()).collect()));
    }
    for p in &rows {
        let el = etime(if p.pid == SHELL_PID { up } else { 0 });
        o.out(render(
            cols.iter()
                .map(|(f, _, _, _)| value(f, p, ctx, &el))
                .collect(),
        ));
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Ps;
    use crate::testing::world::{World, text};

    fn out(args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(Ps, args))
    }

    #[test]
    fn the_shell_and_ps() {
        assert_eq!(
            out(&[]).0,
            "    PID TTY          TIME CMD\n   4242 pts/0    00:00:00 bash\n   4243 pts/0    00:00:00 ps\n"
        );
        assert_eq!(
            out(&["-o", "pid,comm"]).0,
            "    PID COMMAND\n   4242 bash\n   4243 ps\n"
        );
        assert_eq!(
            out(&["-p", "1"]),
            ("    PID TTY          TIME CMD\n".into(), String::new(), 1)
        );
        assert!(out(&["-ef"]).0.contains(" ps -ef\n"));
        assert!(out(&["aux"]).0.starts_with("USER "));
        assert_eq!(out(&["-o", "foo"]).2, 1);
    }
}
