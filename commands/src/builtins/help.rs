//! `help [-dms] [pattern ...]`, bash's builtin: trumansh's own short texts (generated from
//! each builtin's argument definition), never bash's.

use std::ffi::OsString;
use std::fmt::Write as _;

use crate::Stop;
use crate::support::args::{builtin_help_of, parse_builtin};
use crate::{CommandName, Ctx, Outcome};

pub const USAGE: &str = "help [-dms] [pattern ...]";

/// Display information about builtin commands.
///
/// Shows a summary of the builtin commands matching PATTERN (a prefix or a glob); with no
/// PATTERN, lists every builtin and command trumansh provides.
#[derive(clap::Parser, Debug)]
pub struct HelpArgs {
    /// output a short description of each topic
    #[arg(short = 'd')]
    description: bool,
    /// display usage in a pseudo-manpage format
    #[arg(short = 'm')]
    manpage: bool,
    /// output only a short usage synopsis for each topic
    #[arg(short = 's')]
    synopsis: bool,
    patterns: Vec<OsString>,
}

pub fn help() -> String {
    builtin_help_of::<HelpArgs>("help", USAGE)
}

/// The builtins with help topics (from the command table, in name order): name, usage, full
/// text.
fn topics() -> Vec<(&'static str, &'static str, String)> {
    CommandName::ALL
        .iter()
        .filter_map(|c| c.help_topic().map(|t| (c.as_str(), t.usage, (t.help)())))
        .collect()
}

/// A minimal glob (`*`, `?`), enough for help patterns.
fn glob(p: &[u8], s: &[u8]) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some((b'*', rest)) => (0..=s.len()).any(|i| glob(rest, &s[i..])),
        Some((b'?', rest)) => !s.is_empty() && glob(rest, &s[1..]),
        Some((c, rest)) => s.first() == Some(c) && glob(rest, &s[1..]),
    }
}

fn overview(denied: &[CommandName]) -> String {
    let mut s = String::from(concat!(
        "trumansh ",
        env!("CARGO_PKG_VERSION"),
        ", an emulated bash.\n"
    ));
    s.push_str("Type `help name' to find out more about the builtin `name'.\n");
    s.push_str("Use `COMMAND --help' for the options of the other commands.\n\n");
    let names = |builtin: bool| {
        CommandName::ALL
            .iter()
            .filter(|c| c.is_builtin() == builtin && !denied.contains(c))
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = writeln!(s, "Builtins: {}", names(true));
    let _ = writeln!(s, "Commands: {}\n", names(false));
    s.push_str(
        "Pipes, redirections, quoting, variables, globs and `;', `&&', `||' work as in bash.\n\
         Loops, `if', functions, `$(...)' and background jobs are not supported.\n",
    );
    s
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_builtin::<HelpArgs>(args)?;
    let mut o = Outcome::ok();
    if a.patterns.is_empty() {
        o.out(overview(ctx.denied));
        return Ok(o);
    }
    let topics: Vec<_> = topics()
        .into_iter()
        .filter(|(name, _, _)| name.parse::<CommandName>().is_ok_and(|c| ctx.available(c)))
        .collect();
    let mut status = 0;
    for pat in &a.patterns {
        let pat = pat.to_string_lossy();
        let is_glob = pat.contains(['*', '?', '[']);
        if is_glob {
            o.out(format!("Shell commands matching keyword `{pat}'\n\n"));
        }
        // bash looks for exact (or glob) matches first, and for prefixes only when there is
        // none: `help read` is not `help readarray`.
        let mut hits: Vec<_> = topics
            .iter()
            .filter(|(name, _, _)| {
                *name == pat.as_ref() || (is_glob && glob(pat.as_bytes(), name.as_bytes()))
            })
            .collect();
        if hits.is_empty() && !is_glob {
            hits = topics
                .iter()
                .filter(|(name, _, _)| name.starts_with(pat.as_ref()))
                .collect();
        }
        if hits.is_empty() {
            o.shell_err(format!(
                "{}: no help topics match `{pat}'.  Try `help help' or `man -k {pat}' or `info {pat}'.\n",
                ctx.name,
            ));
            status = 1;
            continue;
        }
        for (name, usage, text) in hits {
            let summary = text
                .lines()
                .nth(1)
                .map(str::trim)
                .unwrap_or_default()
                .to_string();
            if a.synopsis {
                o.out(format!("{name}: {usage}\n"));
            } else if a.description {
                o.out(format!("{name} - {summary}\n"));
            } else if a.manpage {
                o.out(format!(
                    "NAME\n    {name} - {summary}\n\nSYNOPSIS\n    {usage}\n\nDESCRIPTION\n"
                ));
                for line in text.lines().skip(1) {
                    o.out(format!("{line}\n"));
                }
                o.out("\n");
            } else {
                o.out(text);
            }
        }
    }
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {

    use crate::testing::world::{World, text};

    fn help(args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(crate::CommandName::Help, args))
    }

    #[test]
    fn overview_lists_every_command() {
        let (out, _, status) = help(&[]);
        assert_eq!(status, 0);
        for c in crate::CommandName::ALL {
            assert!(out.contains(c.as_str()), "{c}");
        }
        assert!(out.contains("not supported"));
    }

    #[test]
    fn topics() {
        let (out, _, status) = help(&["cd"]);
        assert!(out.starts_with(
            "cd: cd [-L|[-P [-e]] [-@]] [dir]\n    Change the shell working directory.\n"
        ));
        assert!(out.contains("      -P\t"));
        assert_eq!(status, 0);
        // `help -s` / `help -d` lines have bash's shape.
        assert_eq!(
            help(&["-s", "cd", "echo"]).0,
            "cd: cd [-L|[-P [-e]] [-@]] [dir]\necho: echo [-neE] [arg ...]\n"
        );
        assert_eq!(
            help(&["-d", "cd"]).0,
            "cd - Change the shell working directory.\n"
        );
        assert_eq!(
            help(&["-s", "e"]).0,
            "echo: echo [-neE] [arg ...]\nexit: exit [n]\nexport: export [-fn] [name[=value] ...] or export -p\n"
        );
        // An exact name wins over the prefix matches (bash 5.2: `help -s read`).
        assert_eq!(
            help(&["-s", "read"]).0,
            format!("read: {}\n", crate::builtins::read::USAGE)
        );
        assert_eq!(
            help(&["-s", "rea"]).0,
            format!(
                "read: {}\nreadarray: {}\n",
                crate::builtins::read::USAGE,
                crate::builtins::readarray::USAGE
            )
        );
    }

    #[test]
    fn unknown_topic_as_bash() {
        assert_eq!(
            help(&["foo"]),
            (
                String::new(),
                "help: no help topics match `foo'.  Try `help help' or `man -k foo' or `info foo'.\n".into(),
                1
            )
        );
        assert_eq!(
            help(&["zz*"]),
            (
                "Shell commands matching keyword `zz*'\n\n".into(),
                "help: no help topics match `zz*'.  Try `help help' or `man -k zz*' or `info zz*'.\n".into(),
                1
            )
        );
        assert_eq!(
            help(&["-x"]).1,
            "help: -x: invalid option\nhelp: usage: help [-dms] [pattern ...]\n"
        );
    }
}
