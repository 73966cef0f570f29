//! `readarray`, bash's other name for `mapfile` (the command is [`super::lines`]).

use std::ffi::OsString;

use crate::Stop;
use crate::support::args::builtin_help_of;
use crate::{Ctx, Outcome};

pub const USAGE: &str = "readarray [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]";

/// Read lines from a file into an array variable.
///
/// A synonym for `mapfile`.
#[derive(clap::Parser, Debug)]
pub struct ReadarrayHelp {}

/// The text of `help readarray`.
pub fn help() -> String {
    builtin_help_of::<ReadarrayHelp>("readarray", USAGE)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    super::lines::run(args, ctx)
}
