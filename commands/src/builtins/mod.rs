//! bash builtins: parsed like bash's `internal_getopt`, diagnostics with the shell's `bash: `
//! prefix (as [`Step::ShellErr`](crate::Step::ShellErr)), help topics for `help`.

pub mod bracket;
pub mod cd;
pub mod echo;
pub mod exit;
pub mod export;
pub mod false_;
pub mod help;
pub mod lines;
pub mod mapfile;
pub mod printf;
pub mod pwd;
pub mod read;
pub mod readarray;
pub mod test_;
pub mod true_;
pub mod type_;
pub mod undo;
pub mod unset;
