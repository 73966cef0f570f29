//! `which [-a] name...`, Debian's `which`: the path of each program in the fixed `PATH`.
//! Builtins without a program of the same name (`cd`) and unknown names print nothing and
//! make the status 1.

use std::ffi::OsString;

use crate::Stop;
use crate::support::lookup::program_paths;
use crate::{Ctx, Outcome};

/// Debian `which` reports option errors in its own words, and only knows `-a`.
const ILLEGAL: &str = "Illegal option -";
const USAGE: &str = "Usage: /usr/bin/which [-a] args\n";

/// Locate a command: print the path of each NAME found in PATH.
#[derive(clap::Parser, Debug)]
pub struct WhichArgs {
    /// print all matching pathnames of each argument
    #[arg(short = 'a')]
    all: bool,
    names: Vec<OsString>,
}

/// Debian `which` parses with `getopts "a"`: options only before the first name.
fn parse(args: &[OsString]) -> Result<WhichArgs, Outcome> {
    let mut all = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let s = arg.to_string_lossy();
        if s == "--" {
            i += 1;
            break;
        }
        let Some(letters) = s.strip_prefix('-').filter(|l| !l.is_empty()) else {
            break;
        };
        for c in letters.chars() {
            if c != 'a' {
                let mut o = Outcome::status(2);
                o.err(format!("{ILLEGAL}{c}\n{USAGE}"));
                return Err(o);
            }
            all = true;
        }
        i += 1;
    }
    Ok(WhichArgs {
        all,
        names: args[i..].to_vec(),
    })
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse(args)?;
    let mut o = Outcome::ok();
    let mut status = i32::from(a.names.is_empty());
    for name in &a.names {
        let paths = program_paths(&name.to_string_lossy(), ctx.denied);
        if paths.is_empty() {
            status = 1;
        }
        let shown = if a.all {
            paths.len()
        } else {
            paths.len().min(1)
        };
        for p in &paths[..shown] {
            o.out(format!("{p}\n"));
        }
    }
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {

    use crate::testing::world::{World, text};

    fn which(args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(crate::CommandName::Which, args))
    }

    #[test]
    fn as_debian_which() {
        // Debian `which` with PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin.
        assert_eq!(which(&["ls"]), ("/usr/bin/ls\n".into(), String::new(), 0));
        assert_eq!(
            which(&["-a", "ls", "cd"]),
            ("/usr/bin/ls\n/bin/ls\n".into(), String::new(), 1)
        );
        assert_eq!(
            which(&["foo", "ls"]),
            ("/usr/bin/ls\n".into(), String::new(), 1)
        );
        assert_eq!(
            which(&["echo"]),
            ("/usr/bin/echo\n".into(), String::new(), 0)
        );
        assert_eq!(which(&[]), (String::new(), String::new(), 1));
        assert_eq!(
            which(&["-x", "ls"]),
            (
                String::new(),
                "Illegal option -x\nUsage: /usr/bin/which [-a] args\n".into(),
                2
            )
        );
    }
}
