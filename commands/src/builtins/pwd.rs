//! `pwd [-LP]`, bash's builtin: the logical cwd, or its physical form with `-P`.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::{builtin_help_of, parse_builtin};
use crate::{Ctx, Outcome};

pub const USAGE: &str = "pwd [-LP]";

/// Print the name of the current working directory.
///
/// Extra operands are ignored, as in bash.
#[derive(clap::Parser, Debug)]
pub struct PwdArgs {
    /// print the value of $PWD, which may contain symbolic links (the default)
    #[arg(short = 'L', overrides_with = "physical")]
    logical: bool,
    /// print the physical directory, without any symbolic links
    #[arg(short = 'P', overrides_with = "logical")]
    physical: bool,
    operands: Vec<OsString>,
}

/// The text of `help pwd` and `pwd --help`.
pub fn help() -> String {
    builtin_help_of::<PwdArgs>("pwd", USAGE)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_builtin::<PwdArgs>(args)?;
    let mut o = Outcome::ok();
    let path = if a.physical {
        match ctx.fs.canonicalize(ctx.cwd) {
            Ok(p) => p,
            Err(e) => {
                // bash: `pwd: error retrieving current directory: getcwd: ...`
                o.shell_err(format!(
                    "{}: error retrieving current directory: getcwd: cannot access parent directories: {e}\n",
                    ctx.name,
                ));
                return Ok(o.with_status(1));
            }
        }
    } else {
        ctx.cwd.to_path_buf()
    };
    o.out(path.as_os_str().as_bytes());
    o.out(b"\n");
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn world() -> World {
        World::new(MemFs::rooted("/s").dir("/s/d").symlink("/s/l", "d")).cwd("/s/l")
    }

    #[test]
    fn logical_and_physical() {
        let w = world();
        assert_eq!(
            text(&w.run(crate::CommandName::Pwd, &[])),
            ("/s/l\n".into(), String::new(), 0)
        );
        assert_eq!(text(&w.run(crate::CommandName::Pwd, &["-P"])).0, "/s/d\n");
        assert_eq!(text(&w.run(crate::CommandName::Pwd, &["-PL"])).0, "/s/l\n");
        // bash ignores operands: `pwd extra` prints the cwd.
        assert_eq!(
            text(&w.run(crate::CommandName::Pwd, &["extra"])).0,
            "/s/l\n"
        );
    }

    #[test]
    fn bad_option_as_bash() {
        // bash 5.2: `bash: pwd: -x: invalid option` / `pwd: usage: pwd [-LP]`, status 2.
        let o = world().run(crate::CommandName::Pwd, &["-x"]);
        assert_eq!(
            text(&o),
            (
                String::new(),
                "pwd: -x: invalid option\npwd: usage: pwd [-LP]\n".into(),
                2
            )
        );
        assert!(matches!(o.steps[0], crate::Step::ShellErr(_)));
        assert!(matches!(o.steps[1], crate::Step::Err(_)));
    }
}
