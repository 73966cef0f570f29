//! `false`: does nothing, unsuccessfully (status 1). Bash's builtin ignores every argument.

use std::ffi::OsString;

use crate::Stop;
use crate::{Ctx, Outcome};

pub const USAGE: &str = "false";

/// Return an unsuccessful result.
///
/// Does nothing and exits with status 1.
#[derive(clap::Parser, Debug)]
pub struct FalseArgs {}

/// The text of `help false`.
pub fn help() -> String {
    crate::support::args::builtin_help_of::<FalseArgs>("false", USAGE)
}

#[allow(clippy::unnecessary_wraps)] // the command table's handler signature
pub fn run(_args: &[OsString], _ctx: &Ctx) -> Result<Outcome, Stop> {
    Ok(Outcome::status(1))
}

#[cfg(test)]
mod tests {

    use crate::testing::world::{World, text};

    #[test]
    fn fails_quietly() {
        let w = World::empty();
        assert_eq!(
            text(&w.run(crate::CommandName::False, &["--help"])),
            (String::new(), String::new(), 1)
        );
    }
}
