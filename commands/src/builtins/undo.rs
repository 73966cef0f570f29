//! `undo [n]`, trumansh's own builtin: reverts the last `n` command lines that changed files
//! (through [`Directive::Undo`]; the session's journal does the work).

use std::ffi::OsString;

use crate::Stop;
use crate::support::args::{builtin_help_of, parse_builtin};
use crate::{Ctx, Directive, Outcome};

pub const USAGE: &str = "undo [n]";

/// Revert the last command lines that changed files.
///
/// Reverts the last N command lines (default 1) that changed files, newest first: files they
/// removed come back, files they overwrote get their old bytes, files and directories they
/// created are removed. Each reverted line is listed. Undo itself cannot be undone, and it
/// does not change the current directory or variables.
#[derive(clap::Parser, Debug)]
pub struct UndoArgs {
    operands: Vec<OsString>,
}

/// The text of `help undo` and `undo --help`.
pub fn help() -> String {
    builtin_help_of::<UndoArgs>("undo", USAGE)
}

pub fn run(args: &[OsString], _ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_builtin::<UndoArgs>(args)?;
    let count = match a.operands.as_slice() {
        [] => 1,
        [n] => match n.to_str().and_then(|s| s.trim().parse::<usize>().ok()) {
            Some(n) if n > 0 => n,
            _ => {
                let mut o = Outcome::status(2);
                o.shell_err(format!(
                    "undo: {}: numeric argument required\n",
                    n.to_string_lossy()
                ));
                return Ok(o);
            }
        },
        _ => {
            let mut o = Outcome::status(2);
            o.shell_err("undo: too many arguments\n");
            return Ok(o);
        }
    };
    let mut o = Outcome::ok();
    o.directive(Directive::Undo { count });
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::Directive;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, directives, text};

    #[test]
    fn counts_and_errors() {
        let w = World::new(MemFs::new());
        let o = w.run(crate::CommandName::Undo, &[]);
        assert_eq!(directives(&o), vec![Directive::Undo { count: 1 }]);
        let o = w.run(crate::CommandName::Undo, &["3"]);
        assert_eq!(directives(&o), vec![Directive::Undo { count: 3 }]);
        for bad in ["0", "x", "-1"] {
            let o = w.run(crate::CommandName::Undo, &[bad]);
            assert_eq!(o.status, 2, "{bad}");
            assert!(directives(&o).is_empty());
        }
        let o = w.run(crate::CommandName::Undo, &["1", "2"]);
        assert_eq!(o.status, 2);
        assert!(text(&o).1.contains("too many arguments"));
    }
}
