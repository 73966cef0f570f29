//! The fixed set of commands trumansh emulates, and the contract every handler follows.
//!
//! A handler is a pure function `run(args, ctx) -> Outcome`: it reads the sandbox only through
//! [`Ctx::fs`] (an [`FsView`]), never touches the disk, the process cwd, the environment or the
//! terminal, and describes every change as an [`Effect`] for the runtime to check, apply and
//! journal. The crate-local `clippy.toml` and the print lints below make the compiler refuse
//! the APIs that would break that.
//!
//! Adding a command is a compile-time checklist: a variant in [`CommandName`], its entry in
//! [`CommandName::ALL`] and [`CommandName::as_str`], one file with its handler, and the arm in
//! [`run`]. `which`, `type`, `help` and completion all read [`CommandName::ALL`].
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod args;
mod ctx;
mod escapes;
mod fsview;
mod lookup;
pub mod memfs;
mod mode;
mod outcome;
mod paths;
mod quote;
#[cfg(test)]
mod testutil;

mod cat;
mod cd;
mod echo;
mod exit;
mod export;
mod false_;
mod help;
mod ls;
mod mkdir;
mod pwd;
mod rm;
mod touch;
mod true_;
mod type_;
mod unset;
mod which;

use std::ffi::OsString;
use std::str::FromStr;

pub use args::parse_args;
pub use ctx::{Ctx, Identity, Var, Vars, resolve_against};
pub use fsview::{DirEntry, FileKind, FsError, FsView, Meta, ReadSeek};
pub use outcome::{Effect, Op, Outcome, Step};
pub use quote::{ansic_if_needed, quote, quote_if_needed, quote_locale};

/// Every command trumansh knows. Anything else is `command not found` (127).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CommandName {
    Cat,
    Cd,
    Echo,
    Exit,
    Export,
    False,
    Help,
    Ls,
    Mkdir,
    Pwd,
    Rm,
    Touch,
    True,
    Type,
    Unset,
    Which,
}

impl CommandName {
    /// All commands, in name order.
    pub const ALL: &'static [CommandName] = &[
        CommandName::Cat,
        CommandName::Cd,
        CommandName::Echo,
        CommandName::Exit,
        CommandName::Export,
        CommandName::False,
        CommandName::Help,
        CommandName::Ls,
        CommandName::Mkdir,
        CommandName::Pwd,
        CommandName::Rm,
        CommandName::Touch,
        CommandName::True,
        CommandName::Type,
        CommandName::Unset,
        CommandName::Which,
    ];

    /// The name the agent types.
    pub fn as_str(self) -> &'static str {
        match self {
            CommandName::Cat => "cat",
            CommandName::Cd => "cd",
            CommandName::Echo => "echo",
            CommandName::Exit => "exit",
            CommandName::Export => "export",
            CommandName::False => "false",
            CommandName::Help => "help",
            CommandName::Ls => "ls",
            CommandName::Mkdir => "mkdir",
            CommandName::Pwd => "pwd",
            CommandName::Rm => "rm",
            CommandName::Touch => "touch",
            CommandName::True => "true",
            CommandName::Type => "type",
            CommandName::Unset => "unset",
            CommandName::Which => "which",
        }
    }

    /// Whether bash implements it as a builtin (`type` says `is a shell builtin`; errors get
    /// the shell's `bash: ` prefix).
    pub fn is_builtin(self) -> bool {
        matches!(
            self,
            CommandName::Cd
                | CommandName::Echo
                | CommandName::Exit
                | CommandName::Export
                | CommandName::False
                | CommandName::Help
                | CommandName::Pwd
                | CommandName::True
                | CommandName::Type
                | CommandName::Unset
        )
    }

    /// Where the command appears to be installed, for `which`/`type`: every emulated
    /// utility looks like a GNU one in `/usr/bin`. `None` for builtins with no program of
    /// the same name (`cd`, `export`, ...).
    pub fn program_path(self) -> Option<String> {
        match self {
            CommandName::Cd
            | CommandName::Exit
            | CommandName::Export
            | CommandName::Help
            | CommandName::Type
            | CommandName::Unset => None,
            other => Some(format!("/usr/bin/{}", other.as_str())),
        }
    }
}

impl FromStr for CommandName {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        CommandName::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .ok_or(())
    }
}

impl std::fmt::Display for CommandName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Runs one command. `args` are the operands after the command name.
pub fn run(name: CommandName, args: &[OsString], ctx: &Ctx) -> Outcome {
    match name {
        CommandName::Cat => cat::run(args, ctx),
        CommandName::Cd => cd::run(args, ctx),
        CommandName::Echo => echo::run(args, ctx),
        CommandName::Exit => exit::run(args, ctx),
        CommandName::Export => export::run(args, ctx),
        CommandName::False => false_::run(args, ctx),
        CommandName::Help => help::run(args, ctx),
        CommandName::Ls => ls::run(args, ctx),
        CommandName::Mkdir => mkdir::run(args, ctx),
        CommandName::Pwd => pwd::run(args, ctx),
        CommandName::Rm => rm::run(args, ctx),
        CommandName::Touch => touch::run(args, ctx),
        CommandName::True => true_::run(args, ctx),
        CommandName::Type => type_::run(args, ctx),
        CommandName::Unset => unset::run(args, ctx),
        CommandName::Which => which::run(args, ctx),
    }
}
