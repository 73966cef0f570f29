//! `type [-afptP] name...`, bash's builtin: how each name would be interpreted — a keyword,
//! one of trumansh's builtins, or a program in the fixed `PATH`.

use std::ffi::OsString;

use crate::Stop;
use crate::support::args::{builtin_help_of, parse_builtin};
use crate::support::lookup::{is_builtin_name, is_keyword, program_paths};
use crate::{Ctx, Outcome};

pub const USAGE: &str = "type [-afptP] name [name ...]";

/// Display information about command type.
///
/// For each NAME, tells whether it is a shell keyword, a shell builtin, or a program found in
/// $PATH (functions and aliases are the shell's: it answers for them before this runs).
#[derive(clap::Parser, Debug)]
pub struct TypeArgs {
    /// display every location of each NAME, not only the first
    #[arg(short = 'a')]
    all: bool,
    /// do not look up shell functions
    #[arg(short = 'f')]
    no_functions: bool,
    /// print the path of the program NAME would run, or nothing if it is not a program
    #[arg(short = 'p')]
    path: bool,
    /// search $PATH for NAME even if it is a builtin or keyword
    #[arg(short = 'P')]
    force_path: bool,
    /// print a single word: keyword, builtin or file
    #[arg(short = 't')]
    kind: bool,
    names: Vec<OsString>,
}

/// The text of `help type` and `type --help`.
pub fn help() -> String {
    builtin_help_of::<TypeArgs>("type", USAGE)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_builtin::<TypeArgs>(args)?;
    let mut o = Outcome::ok();
    let mut status = 0;
    for name in &a.names {
        let name = name.to_string_lossy();
        let paths = program_paths(&name, ctx.denied);
        let shown_paths = if a.all {
            paths.len()
        } else {
            paths.len().min(1)
        };
        let mut found = false;
        if a.force_path {
            // `type -P`: only the path search, builtins and keywords ignored.
            for p in &paths[..shown_paths] {
                o.out(format!("{p}\n"));
            }
            if paths.is_empty() {
                status = 1;
            }
            continue;
        }
        if is_keyword(&name) {
            found = true;
            if a.kind {
                o.out("keyword\n");
            } else if !a.path {
                o.out(format!("{name} is a shell keyword\n"));
            }
        }
        if (!found || a.all) && is_builtin_name(&name, ctx.denied) {
            found = true;
            if a.kind {
                o.out("builtin\n");
            } else if !a.path {
                o.out(format!("{name} is a shell builtin\n"));
            }
        }
        // With -p, a name that is a keyword or builtin prints nothing (and is found), unless
        // -a asks for every location.
        let list_files = !found || a.all;
        if list_files {
            for p in &paths[..shown_paths] {
                found = true;
                if a.kind {
                    o.out("file\n");
                } else if a.path {
                    o.out(format!("{p}\n"));
                } else {
                    o.out(format!("{name} is {p}\n"));
                }
            }
        }
        if !found {
            status = 1;
            if !a.kind && !a.path {
                o.shell_err(format!("{}: {name}: not found\n", ctx.name));
            }
        }
    }
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {

    use crate::testing::world::{World, text};

    fn ty(args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(crate::CommandName::Type, args))
    }

    #[test]
    fn as_bash_5_2() {
        // bash 5.2 with PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin.
        assert_eq!(
            ty(&["-a", "echo"]),
            (
                "echo is a shell builtin\necho is /usr/bin/echo\necho is /bin/echo\n".into(),
                String::new(),
                0
            )
        );
        assert_eq!(
            ty(&["cd", "ls", "if", "foo"]),
            (
                "cd is a shell builtin\nls is /usr/bin/ls\nif is a shell keyword\n".into(),
                "type: foo: not found\n".into(),
                1
            )
        );
        assert_eq!(
            ty(&["-t", "cd", "ls", "if", "foo"]),
            ("builtin\nfile\nkeyword\n".into(), String::new(), 1)
        );
        assert_eq!(
            ty(&["-p", "ls", "cd"]),
            ("/usr/bin/ls\n".into(), String::new(), 0)
        );
        assert_eq!(
            ty(&["-P", "cd", "ls"]),
            ("/usr/bin/ls\n".into(), String::new(), 1)
        );
        assert_eq!(
            ty(&["-a", "ls"]),
            (
                "ls is /usr/bin/ls\nls is /bin/ls\n".into(),
                String::new(),
                0
            )
        );
        assert_eq!(
            ty(&["-at", "echo"]),
            ("builtin\nfile\nfile\n".into(), String::new(), 0)
        );
        assert_eq!(
            ty(&["-ap", "echo"]),
            ("/usr/bin/echo\n/bin/echo\n".into(), String::new(), 0)
        );
        assert_eq!(
            ty(&["-aP", "echo"]),
            ("/usr/bin/echo\n/bin/echo\n".into(), String::new(), 0)
        );
        assert_eq!(ty(&["-t", "foo"]), (String::new(), String::new(), 1));
        assert_eq!(ty(&["-P", "foo"]), (String::new(), String::new(), 1));
        assert_eq!(ty(&[]), (String::new(), String::new(), 0));
        assert_eq!(
            ty(&["function"]),
            ("function is a shell keyword\n".into(), String::new(), 0)
        );
        assert_eq!(
            ty(&["--", "ls"]),
            ("ls is /usr/bin/ls\n".into(), String::new(), 0)
        );
        assert_eq!(
            ty(&["-x"]),
            (
                String::new(),
                "type: -x: invalid option\ntype: usage: type [-afptP] name [name ...]\n".into(),
                2
            )
        );
    }
}
