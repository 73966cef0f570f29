//! The fixed set of commands trumansh emulates, and the contract every handler follows.
//!
//! A handler is a pure function `run(args, ctx) -> Result<Outcome, Stop>`: it reads the sandbox only through
//! [`Ctx::fs`] (an [`FsView`]), never touches the disk, the process cwd, the environment or the
//! terminal, and describes every change as an [`Effect`] for the runtime to check, apply and
//! journal. The crate-local `clippy.toml` and the print lints below make the compiler refuse
//! the APIs that would break that.
//!
//! Adding a command is one row in the `commands!` table below (variant, name, handler module,
//! builtin/program) and one file with its handler in its family folder; the table generates
//! the rest. `which`, `type`, `help` and completion all read [`CommandName::ALL`].
#![deny(clippy::print_stdout, clippy::print_stderr)]

#[macro_use]
mod registry;

mod builtins;
mod contract;
mod fs;
mod info;
mod search;
mod support;
mod testing;
mod text;

use std::ffi::OsString;

pub use contract::ctx::{
    Ctx, Identity, SPILL_AT, SeekableStdin, Spill, Stdin, Var, Vars, resolve_against,
};
pub use contract::fsview::{DirEntry, FileKind, FsError, FsView, Meta, ReadSeek};
pub use contract::outcome::{Effect, Op, Outcome, Step};
pub use registry::{HelpTopic, Kind};
pub use support::args::parse_args;
pub use support::error::Stop;
pub use support::fnmatch::fnmatch;
pub use support::quote::{ansic_if_needed, quote, quote_if_needed, quote_locale};
pub use testing::memfs;

/// A handler: the operands after the command name, and what it may look at. It stops early
/// with `?` and a [`Stop`]; [`run`] renders the stop.
pub type Handler = fn(&[OsString], &Ctx) -> Result<Outcome, Stop>;

// The command table: one row per command, in name order; `registry.rs` generates the rest.
// Kind: `Builtin` (bash builtin, no program), `Program` (`/usr/bin/NAME`), `Both`. `(N)`: the
// status of the command's own failures when it is not 1 (GNU's "trouble" status).
commands! {
//  variant    name        handler                         kind
    Basename   "basename"  info::basename                  Program;
    Cat        "cat"       text::cat                       Program;
    Cd         "cd"        builtins::cd                    Builtin;
    Cp         "cp"        fs::cp                          Program;
    Cut        "cut"       text::cut                       Program;
    Date       "date"      info::date                      Program;
    Dirname    "dirname"   info::dirname                   Program;
    Echo       "echo"      builtins::echo                  Both;
    Exit       "exit"      builtins::exit                  Builtin;
    Export     "export"    builtins::export                Builtin;
    False      "false"     builtins::false_                Both;
    Find       "find"      search::find                    Program;
    Grep       "grep"      search::grep                    Program(2);
    Head       "head"      text::headtail::head            Program;
    Help       "help"      builtins::help                  Builtin;
    Ls         "ls"        fs::ls                          Program(2);
    Mkdir      "mkdir"     fs::mkdir                       Program;
    Mv         "mv"        fs::mv                          Program;
    Pwd        "pwd"       builtins::pwd                   Both;
    Rm         "rm"        fs::rm                          Program;
    Sort       "sort"      text::sort                      Program(2);
    Tail       "tail"      text::headtail::tail            Program;
    Tee        "tee"       text::tee                       Program;
    Touch      "touch"     fs::touch                       Program;
    Tr         "tr"        text::tr                        Program;
    True       "true"      builtins::true_                 Both;
    Type       "type"      builtins::type_                 Builtin;
    Undo       "undo"      builtins::undo                  Builtin;
    Uniq       "uniq"      text::uniq                      Program;
    Unset      "unset"     builtins::unset                 Builtin;
    Wc         "wc"        text::wc                        Program;
    Which      "which"     info::which                     Program;
}

/// Runs one command. `args` are the operands after the command name; `ctx.name` is `name`.
/// The one place where a handler's [`Stop`] becomes its diagnostic ([`Stop::render`]).
pub fn run(name: CommandName, args: &[OsString], ctx: &Ctx) -> Outcome {
    (name.handler())(args, ctx).unwrap_or_else(|stop| stop.render(name))
}
