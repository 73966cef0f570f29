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
mod datetime;
mod escapes;
mod fnmatch;
mod fsview;
mod lookup;
pub mod memfs;
mod mode;
mod outcome;
mod paths;
mod quote;
mod regex_gnu;
#[cfg(test)]
mod testutil;

mod basename;
mod cat;
mod cd;
mod cp;
mod cut;
mod date;
mod dirname;
mod echo;
mod exit;
mod export;
mod false_;
mod find;
mod grep;
mod head;
mod headtail;
mod help;
mod input;
mod ls;
mod mkdir;
mod mv;
mod pwd;
mod rm;
mod sort;
mod tail;
mod tee;
mod touch;
mod tr;
mod true_;
mod type_;
mod undo;
mod uniq;
mod unset;
mod wc;
mod which;

use std::ffi::OsString;
use std::str::FromStr;

pub use args::parse_args;
pub use ctx::{Ctx, Identity, SPILL_AT, SeekableStdin, Spill, Stdin, Var, Vars, resolve_against};
pub use fnmatch::fnmatch;
pub use fsview::{DirEntry, FileKind, FsError, FsView, Meta, ReadSeek};
pub use outcome::{Directive, Effect, Op, Outcome, Step};
pub use quote::{ansic_if_needed, quote, quote_if_needed, quote_locale};

/// Every command trumansh knows. Anything else is `command not found` (127).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CommandName {
    Basename,
    Cat,
    Cd,
    Cp,
    Cut,
    Date,
    Dirname,
    Echo,
    Exit,
    Export,
    False,
    Find,
    Grep,
    Head,
    Help,
    Ls,
    Mkdir,
    Mv,
    Pwd,
    Rm,
    Sort,
    Tail,
    Tee,
    Touch,
    Tr,
    True,
    Type,
    Undo,
    Uniq,
    Unset,
    Wc,
    Which,
}

impl CommandName {
    /// All commands, in name order.
    pub const ALL: &'static [CommandName] = &[
        CommandName::Basename,
        CommandName::Cat,
        CommandName::Cd,
        CommandName::Cp,
        CommandName::Cut,
        CommandName::Date,
        CommandName::Dirname,
        CommandName::Echo,
        CommandName::Exit,
        CommandName::Export,
        CommandName::False,
        CommandName::Find,
        CommandName::Grep,
        CommandName::Head,
        CommandName::Help,
        CommandName::Ls,
        CommandName::Mkdir,
        CommandName::Mv,
        CommandName::Pwd,
        CommandName::Rm,
        CommandName::Sort,
        CommandName::Tail,
        CommandName::Tee,
        CommandName::Touch,
        CommandName::Tr,
        CommandName::True,
        CommandName::Type,
        CommandName::Undo,
        CommandName::Uniq,
        CommandName::Unset,
        CommandName::Wc,
        CommandName::Which,
    ];

    /// The name the agent types.
    pub fn as_str(self) -> &'static str {
        match self {
            CommandName::Basename => "basename",
            CommandName::Cat => "cat",
            CommandName::Cd => "cd",
            CommandName::Cp => "cp",
            CommandName::Cut => "cut",
            CommandName::Date => "date",
            CommandName::Dirname => "dirname",
            CommandName::Echo => "echo",
            CommandName::Exit => "exit",
            CommandName::Export => "export",
            CommandName::False => "false",
            CommandName::Find => "find",
            CommandName::Grep => "grep",
            CommandName::Head => "head",
            CommandName::Help => "help",
            CommandName::Ls => "ls",
            CommandName::Mkdir => "mkdir",
            CommandName::Mv => "mv",
            CommandName::Pwd => "pwd",
            CommandName::Rm => "rm",
            CommandName::Sort => "sort",
            CommandName::Tail => "tail",
            CommandName::Tee => "tee",
            CommandName::Touch => "touch",
            CommandName::Tr => "tr",
            CommandName::True => "true",
            CommandName::Type => "type",
            CommandName::Undo => "undo",
            CommandName::Uniq => "uniq",
            CommandName::Unset => "unset",
            CommandName::Wc => "wc",
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
                | CommandName::Undo
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
            | CommandName::Undo
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
        CommandName::Basename => basename::run(args, ctx),
        CommandName::Cat => cat::run(args, ctx),
        CommandName::Cd => cd::run(args, ctx),
        CommandName::Cp => cp::run(args, ctx),
        CommandName::Cut => cut::run(args, ctx),
        CommandName::Date => date::run(args, ctx),
        CommandName::Dirname => dirname::run(args, ctx),
        CommandName::Echo => echo::run(args, ctx),
        CommandName::Exit => exit::run(args, ctx),
        CommandName::Export => export::run(args, ctx),
        CommandName::False => false_::run(args, ctx),
        CommandName::Find => find::run(args, ctx),
        CommandName::Grep => grep::run(args, ctx),
        CommandName::Head => head::run(args, ctx),
        CommandName::Help => help::run(args, ctx),
        CommandName::Ls => ls::run(args, ctx),
        CommandName::Mkdir => mkdir::run(args, ctx),
        CommandName::Mv => mv::run(args, ctx),
        CommandName::Pwd => pwd::run(args, ctx),
        CommandName::Rm => rm::run(args, ctx),
        CommandName::Sort => sort::run(args, ctx),
        CommandName::Tail => tail::run(args, ctx),
        CommandName::Tee => tee::run(args, ctx),
        CommandName::Touch => touch::run(args, ctx),
        CommandName::Tr => tr::run(args, ctx),
        CommandName::True => true_::run(args, ctx),
        CommandName::Type => type_::run(args, ctx),
        CommandName::Undo => undo::run(args, ctx),
        CommandName::Uniq => uniq::run(args, ctx),
        CommandName::Unset => unset::run(args, ctx),
        CommandName::Wc => wc::run(args, ctx),
        CommandName::Which => which::run(args, ctx),
    }
}
