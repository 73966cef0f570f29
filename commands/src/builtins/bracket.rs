//! `[ arg... ]`, bash's builtin: `test` whose last argument must be `]`
//! ([`crate::support::testexpr`] evaluates what is between).

use std::ffi::OsString;

use crate::Stop;
use crate::support::args::builtin_help_of;
use crate::support::testexpr::command;
use crate::{Ctx, Outcome};

pub const USAGE: &str = "[ arg... ]";

/// Evaluate conditional expression.
///
/// The same as the `test` builtin, except that the last argument must be a `]` that closes
/// the opening `[`.
#[derive(clap::Parser, Debug)]
pub struct BracketHelp {}

/// The text of `help [`.
pub fn help() -> String {
    builtin_help_of::<BracketHelp>("[", USAGE)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    match args.split_last() {
        Some((last, expr)) if last == "]" => command(expr, ctx),
        _ => Err(Stop::FailWith("missing `]'".into(), 2)),
    }
}
