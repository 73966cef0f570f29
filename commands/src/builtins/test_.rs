//! `test [expr]`, bash's builtin: the expression is [`crate::support::testexpr`]'s (shared
//! with `[` and, later, the interpreter's `[[ ]]`); this file is the command around it.
//! Status 0 (true), 1 (false) or 2 with bash's message (`test: too many arguments`).

use std::ffi::OsString;

use crate::Stop;
use crate::support::args::builtin_help_of;
use crate::support::testexpr::command;
use crate::{Ctx, Outcome};

pub const USAGE: &str = "test [expr]";

/// Evaluate conditional expression.
///
/// Exits with status 0 when EXPR is true, 1 when it is false, and 2 when it cannot be
/// parsed. How the arguments are read depends on how many there are (POSIX's rules for up
/// to four, then the full grammar); see bash(1).
///
/// Files (links followed, except by -h and -L): -a/-e exists, -f regular file,
/// -d directory, -h/-L symbolic link, -b/-c block/character device, -p named pipe,
/// -S socket, -s not empty, -r/-w/-x readable/writable/executable by you, -O/-G owned by
/// you/your group, -u/-g/-k set-user-id/set-group-id/sticky bit, -N modified since last
/// read; -t FD: FD is a terminal. FILE1 -nt/-ot FILE2: newer/older by modification time;
/// FILE1 -ef FILE2: the same file.
///
/// Strings: -z empty, -n (or the string alone) not empty; S1 = S2, S1 == S2, S1 != S2;
/// S1 < S2 and S1 > S2 compare byte by byte.
///
/// Integers: N1 -eq, -ne, -lt, -le, -gt, -ge N2.
///
/// Others: -o OPTION the shell option is on, -v VAR the variable is set, -R VAR it is a
/// name reference, ! EXPR negation, EXPR1 -a EXPR2 both, EXPR1 -o EXPR2 either, ( EXPR )
/// grouping.
#[derive(clap::Parser, Debug)]
pub struct TestHelp {}

/// The text of `help test`.
pub fn help() -> String {
    builtin_help_of::<TestHelp>("test", USAGE)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    command(args, ctx)
}
