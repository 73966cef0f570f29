//! `unset [-f] [-v] [-n] [name ...]`, bash's builtin: removes variables through
//! [`Directive::UnsetVar`] and functions through [`Directive::UnsetFunction`].

use std::ffi::OsString;

use crate::Stop;
use crate::support::args::{builtin_help_of, parse_builtin};
use crate::support::ident::{is_identifier, not_identifier};
use crate::{Ctx, Directive, Outcome};

pub const USAGE: &str = "unset [-f] [-v] [-n] [name ...]";

/// Unset values and attributes of shell variables and functions.
///
/// Removes each variable NAME. Without -v, a NAME that is not a valid variable name is taken
/// as a function name.
#[derive(clap::Parser, Debug)]
pub struct UnsetArgs {
    /// treat each NAME as a shell function
    #[arg(short = 'f')]
    functions: bool,
    /// treat each NAME as a shell variable
    #[arg(short = 'v')]
    variables: bool,
    /// treat each NAME as a name reference
    #[arg(short = 'n')]
    nameref: bool,
    operands: Vec<OsString>,
}

/// The text of `help unset` and `unset --help`.
pub fn help() -> String {
    builtin_help_of::<UnsetArgs>("unset", USAGE)
}

pub fn run(args: &[OsString], _ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_builtin::<UnsetArgs>(args)?;
    let mut o = Outcome::ok();
    let mut status = 0;
    if a.functions && !a.variables {
        for name in &a.operands {
            o.directive(Directive::UnsetFunction {
                name: name.to_string_lossy().into_owned(),
            });
        }
        return Ok(o);
    }
    for name in &a.operands {
        let name = name.to_string_lossy();
        // `unset 'a[1]'`: an array element (the interpreter evaluates the subscript).
        let element = name
            .split_once('[')
            .is_some_and(|(n, rest)| is_identifier(n) && rest.ends_with(']'));
        if element {
            o.directive(Directive::UnsetVar {
                name: name.to_string(),
            });
            continue;
        }
        if !is_identifier(&name) {
            // bash 5.2: only `-v` reports it; plain `unset 1x` falls back to functions.
            if a.variables {
                o.shell_err(not_identifier("unset", &name));
                status = 1;
            } else {
                o.directive(Directive::UnsetFunction {
                    name: name.to_string(),
                });
            }
            continue;
        }
        o.directive(Directive::UnsetVar {
            name: name.to_string(),
        });
    }
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {
    use crate::Directive;

    use crate::testing::world::{World, directives, text};

    fn unset(name: &str) -> Directive {
        Directive::UnsetVar { name: name.into() }
    }

    #[test]
    fn as_bash_5_2() {
        let w = World::empty();
        assert_eq!(
            directives(&w.run(crate::CommandName::Unset, &["a", "b"])),
            [unset("a"), unset("b")]
        );
        // `unset 1x` and `unset -f 1x`: silent, status 0; `unset -v 1x y`: reported, status 1.
        assert_eq!(
            text(&w.run(crate::CommandName::Unset, &["1x"])),
            (String::new(), String::new(), 0)
        );
        assert_eq!(
            text(&w.run(crate::CommandName::Unset, &["-f", "1x"])),
            (String::new(), String::new(), 0)
        );
        assert_eq!(
            directives(&w.run(crate::CommandName::Unset, &["-f", "f"])),
            [Directive::UnsetFunction { name: "f".into() }]
        );
        let o = w.run(crate::CommandName::Unset, &["-v", "1x", "y"]);
        assert_eq!(
            text(&o),
            (
                String::new(),
                "unset: `1x': not a valid identifier\n".into(),
                1
            )
        );
        assert_eq!(directives(&o), [unset("y")]);
        assert_eq!(
            text(&w.run(crate::CommandName::Unset, &["-x"])),
            (
                String::new(),
                "unset: -x: invalid option\nunset: usage: unset [-f] [-v] [-n] [name ...]\n".into(),
                2
            )
        );
    }
}
