//! `true`: does nothing, successfully. Bash's builtin ignores every argument (even `--help`).

use std::ffi::OsString;

use crate::Stop;
use crate::{Ctx, Outcome};

pub const USAGE: &str = "true";

/// Return a successful result.
///
/// Does nothing and exits with status 0.
#[derive(clap::Parser, Debug)]
pub struct TrueArgs {}

/// The text of `help true`.
pub fn help() -> String {
    crate::support::args::builtin_help_of::<TrueArgs>("true", USAGE)
}

#[allow(clippy::unnecessary_wraps)] // the command table's handler signature
pub fn run(_args: &[OsString], _ctx: &Ctx) -> Result<Outcome, Stop> {
    Ok(Outcome::ok())
}

#[cfg(test)]
mod tests {

    use crate::testing::world::{World, text};

    #[test]
    fn ignores_everything() {
        let w = World::empty();
        assert_eq!(
            text(&w.run(crate::CommandName::True, &["--help", "-x"])),
            (String::new(), String::new(), 0)
        );
    }
}
