//! `mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback]
//! [-c quantum] [array]`, bash's builtin: the lines of stdin into an indexed array (the
//! command is [`super::lines`], shared with `readarray`).

use std::ffi::OsString;

use crate::Stop;
use crate::support::args::builtin_help_of;
use crate::{Ctx, Outcome};

pub const USAGE: &str = "mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]";

/// Read lines from the standard input into an indexed array variable.
///
/// Reads the lines of the standard input (or of file descriptor FD with -u) into the indexed
/// array ARRAY, MAPFILE when no ARRAY is named, one line per element from index 0.
///
/// Exit status: 0, unless an option is invalid or ARRAY is not a valid variable name.
#[derive(clap::Parser, Debug)]
pub struct MapfileHelp {
    /// end each line at the first character of DELIM instead of a newline
    #[arg(short = 'd', value_name = "delim")]
    delim: Option<OsString>,
    /// copy at most COUNT lines (0: all of them)
    #[arg(short = 'n', value_name = "count")]
    count: Option<OsString>,
    /// assign from index ORIGIN, without clearing the array
    #[arg(short = 'O', value_name = "origin")]
    origin: Option<OsString>,
    /// skip the first COUNT lines
    #[arg(short = 's', value_name = "count")]
    skip: Option<OsString>,
    /// remove the delimiter at the end of each line
    #[arg(short = 't')]
    trim: bool,
    /// read from file descriptor FD instead of the standard input (one opened by a redirection or exec)
    #[arg(short = 'u', value_name = "fd")]
    fd: Option<OsString>,
    /// run CALLBACK with the index and the line before every QUANTUM-th line
    #[arg(short = 'C', value_name = "callback")]
    callback: Option<OsString>,
    /// the number of lines between two calls of CALLBACK (5000)
    #[arg(short = 'c', value_name = "quantum")]
    quantum: Option<OsString>,
}

/// The text of `help mapfile`.
pub fn help() -> String {
    builtin_help_of::<MapfileHelp>("mapfile", USAGE)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    super::lines::run(args, ctx)
}
