//! The fixed set of commands trumansh emulates, and the contract every handler follows.
//!
//! A handler is a pure function `run(args, ctx) -> Result<Outcome, Stop>`: it reads the
//! sandbox only through [`Ctx::fs`] (an [`FsView`]), never touches the disk, the process cwd,
//! the environment or the terminal, and describes every change as an [`Effect`] for the
//! runtime to check, apply and journal. It stops early with `?` and a [`Stop`]; [`run`] turns
//! the stop into the command's diagnostic in one place (the `NAME: ` prefix, the `Try` line and
//! the status from the table). The crate-local `clippy.toml` and the print lints below make
//! the compiler refuse the APIs that would break that.
//!
//! The crate is laid out by what a file is:
//!
//! - `contract/`: what a handler is given and returns ([`Ctx`], [`FsView`], [`Outcome`]);
//! - `support/`: GNU and bash mechanics shared by handlers (argument parsing, argmatch, the
//!   error path, inputs, the directory walk, sizes, quoting, dates...); never a handler;
//! - `builtins/`, `bytes/`, `fs/`, `text/`, `search/`, `info/`: the handlers by family, one file per
//!   command, a folder once a command passes about 600 lines; no handler imports another
//!   (what a family shares lives in its `mod.rs` or a non-handler file beside them);
//! - `testing/`: [`memfs`] and the unit-test harness with its named worlds.
//!
//! Adding a command:
//!
//! 1. write `FAMILY/NAME.rs` with the clap argument struct (its doc comments are the help) and
//!    `pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop>`, parsing with
//!    `support::args::parse_args` (a builtin: `parse_builtin`, plus `pub const USAGE` and
//!    `pub fn help()`), failing with `Err(Stop::...)` or `?`;
//! 2. declare it in `FAMILY/mod.rs`;
//! 3. add its row to the `commands!` table below, in name order (kind, and the failure
//!    status when it is not 1);
//! 4. put anything a second command would need in `support/` (or the family's shared file),
//!    never in the handler;
//! 5. add unit tests at the bottom of the file (on a named world of `testing::world` where one
//!    fits) and a transcript case; `which`, `type`, `help` and completion read
//!    [`CommandName::ALL`] without further changes.
#![deny(clippy::print_stdout, clippy::print_stderr)]

#[macro_use]
mod registry;

mod archive;
mod builtins;
mod bytes;
mod compare;
mod contract;
mod fs;
mod info;
mod search;
mod support;
mod testing;
mod text;

use std::ffi::OsString;

pub use contract::ctx::{
    Array, ByteReader, Ctx, DiskUsage, EnvChange, HOLD_BYTES, Identity, RunRequest, RunResult,
    RunWhat, Runner, SPILL_AT, ScratchFile, SeekableStdin, Spill, Stdin, Var, Vars,
    resolve_against,
};
pub use contract::fsview::{DevNum, DirEntry, FileKind, FsError, FsView, Meta, ReadSeek};
pub use contract::outcome::{Directive, Effect, Op, Outcome, Step};
pub use registry::{HelpTopic, Kind};
pub use support::args::parse_args;
pub use support::datetime::format_now;
pub use support::error::Stop;
pub use support::fnmatch::{class_matches, fnmatch};
pub use support::lookup::SHELL_BUILTINS;
pub use support::paths::normalize_lexical;
pub use support::quote::{ansic_if_needed, quote, quote_if_needed, quote_locale};
pub use support::regex_gnu::{
    Options as RegexOptions, Regex as GnuRegex, Syntax as RegexSyntax, translate as translate_regex,
};
pub use support::testexpr::{binary_test, unary_file_test};
pub use testing::memfs;
#[doc(hidden)]
pub use text::awk::parse_program as awk_parse;
#[doc(hidden)]
pub use text::jq::fuzz as jq_fuzz;
#[doc(hidden)]
pub use text::sed::fuzz_compile as sed_fuzz_compile;

/// A handler: the operands after the command name, and what it may look at. It stops early
/// with `?` and a [`Stop`]; [`run`] renders the stop.
pub type Handler = fn(&[OsString], &Ctx) -> Result<Outcome, Stop>;

// The command table: one row per command, in name order; `registry.rs` generates the rest.
// Kind: `Builtin` (bash builtin, no program), `Program` (`/usr/bin/NAME`), `Both`. `(N)`: the
// status of the command's own failures when it is not 1 (GNU's "trouble" status).
commands! {
//  variant    name        handler                         kind
    Bracket    "["         builtins::bracket               Both;
    Awk        "awk"       text::awk                       Program(2);
    B2sum      "b2sum"     bytes::sum                      Program;
    Base32     "base32"    bytes::base                     Program;
    Base64     "base64"    bytes::base                     Program;
    Basename   "basename"  info::basename                  Program;
    Cat        "cat"       text::cat                       Program;
    Cd         "cd"        builtins::cd                    Builtin;
    Chmod      "chmod"     fs::chmod                       Program;
    Cksum      "cksum"     bytes::cksum                    Program;
    Clear      "clear"     info::clear                     Program;
    Cmp        "cmp"       compare::cmp                    Program(2);
    Column     "column"    text::column                    Program;
    Comm       "comm"      text::comm                      Program;
    Cp         "cp"        fs::cp                          Program;
    Cut        "cut"       text::cut                       Program;
    Date       "date"      info::date                      Program;
    Df         "df"        fs::df                          Program;
    Diff       "diff"      compare::diff                   Program(2);
    Dirname    "dirname"   info::dirname                   Program;
    Du         "du"        fs::du                          Program;
    Echo       "echo"      builtins::echo                  Both;
    Env        "env"       info::env                       Program(125);
    Exit       "exit"      builtins::exit                  Builtin;
    Expand     "expand"    text::expand                    Program;
    Export     "export"    builtins::export                Builtin;
    Expr       "expr"      text::expr                      Program(2);
    Factor     "factor"    info::factor                    Program;
    False      "false"     builtins::false_                Both;
    File       "file"      bytes::file                     Program;
    Find       "find"      search::find                    Program;
    Fold       "fold"      text::fold                      Program;
    Gawk       "gawk"      text::awk                       Program(2);
    Grep       "grep"      search::grep                    Program(2);
    Groups     "groups"    info::id                        Program;
    Gunzip     "gunzip"    archive::gzip                   Program;
    Gzip       "gzip"      archive::gzip                   Program;
    Head       "head"      text::headtail::head            Program;
    Help       "help"      builtins::help                  Builtin;
    Hexdump    "hexdump"   bytes::hexdump                  Program;
    History    "history"   info::history                   Builtin;
    Hostname   "hostname"  info::hostname                  Program;
    Id         "id"        info::id                        Program;
    Install    "install"   fs::install                     Program;
    Jobs       "jobs"      info::jobs                      Builtin;
    Join       "join"      text::join                      Program;
    Jq         "jq"        text::jq                        Program(2);
    Kill       "kill"      info::kill                      Both;
    Less       "less"      info::less                      Program;
    Ln         "ln"        fs::ln                          Program;
    Ls         "ls"        fs::ls                          Program(2);
    Mapfile    "mapfile"   builtins::mapfile               Builtin;
    Md5sum     "md5sum"    bytes::sum                      Program;
    Mkdir      "mkdir"     fs::mkdir                       Program;
    Mktemp     "mktemp"    fs::mktemp                      Program;
    More       "more"      info::more                      Program;
    Mv         "mv"        fs::mv                          Program;
    Nl         "nl"        text::nl                        Program;
    Nproc      "nproc"     info::nproc                     Program;
    Numfmt     "numfmt"    info::numfmt                    Program;
    Od         "od"        bytes::od                       Program;
    Paste      "paste"     text::paste                     Program;
    Printenv   "printenv"  info::printenv                  Program;
    Printf     "printf"    builtins::printf                Both;
    Ps         "ps"        info::ps                        Program;
    Pwd        "pwd"       builtins::pwd                   Both;
    Read       "read"      builtins::read                  Builtin;
    Readarray  "readarray" builtins::readarray             Builtin;
    Readlink   "readlink"  fs::readlink                    Program;
    Realpath   "realpath"  fs::realpath                    Program;
    Rev        "rev"       text::rev                       Program;
    Rm         "rm"        fs::rm                          Program;
    Rmdir      "rmdir"     fs::rmdir                       Program;
    Sed        "sed"       text::sed                       Program;
    Seq        "seq"       text::seq                       Program;
    Sha1sum    "sha1sum"   bytes::sum                      Program;
    Sha224sum  "sha224sum" bytes::sum                      Program;
    Sha256sum  "sha256sum" bytes::sum                      Program;
    Sha384sum  "sha384sum" bytes::sum                      Program;
    Sha512sum  "sha512sum" bytes::sum                      Program;
    Shuf       "shuf"      text::shuf                      Program;
    Sleep      "sleep"     info::sleep                     Program;
    Sort       "sort"      text::sort                      Program(2);
    Split      "split"     text::split                     Program;
    Stat       "stat"      fs::stat                        Program;
    Strings    "strings"   bytes::strings                  Program;
    Tac        "tac"       text::tac                       Program;
    Tail       "tail"      text::headtail::tail            Program;
    Tar        "tar"       archive::tar                    Program(2);
    Tee        "tee"       text::tee                       Program;
    Test       "test"      builtins::test_                 Both;
    Timeout    "timeout"   info::timeout                   Program(125);
    Touch      "touch"     fs::touch                       Program;
    Tput       "tput"      info::tput                      Program;
    Tr         "tr"        text::tr                        Program;
    Tree       "tree"      fs::tree                        Program;
    True       "true"      builtins::true_                 Both;
    Truncate   "truncate"  fs::truncate                    Program;
    Type       "type"      builtins::type_                 Builtin;
    Uname      "uname"     info::uname                     Program;
    Undo       "undo"      builtins::undo                  Builtin;
    Unexpand   "unexpand"  text::unexpand                  Program;
    Uniq       "uniq"      text::uniq                      Program;
    Unset      "unset"     builtins::unset                 Builtin;
    Uptime     "uptime"    info::uptime                    Program;
    Wc         "wc"        text::wc                        Program;
    Which      "which"     info::which                     Program;
    Whoami     "whoami"    info::whoami                    Program;
    Xargs      "xargs"     search::xargs                   Program;
    Xxd        "xxd"       bytes::xxd                      Program(2);
    Yes        "yes"       text::yes                       Program;
    Zcat       "zcat"      archive::gzip                   Program;
}

/// Runs one command. `args` are the operands after the command name; `ctx.name` is `name`.
/// The one place where a handler's [`Stop`] becomes its diagnostic ([`Stop::render`]).
pub fn run(name: CommandName, args: &[OsString], ctx: &Ctx) -> Outcome {
    (name.handler())(args, ctx).unwrap_or_else(|stop| stop.render(name))
}
