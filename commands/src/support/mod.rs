//! GNU and bash mechanics shared by many handlers: argument parsing, quoting, inputs, paths,
//! patterns, modes, dates. Never a handler here, and a handler never imports another handler:
//! what two commands share lives in this module (or in their family's `mod.rs`).

pub mod argmatch;
pub mod args;
pub mod cnum;
pub mod cprintf;
pub mod datetime;
pub mod environ;
pub mod error;
pub mod escapes;
pub mod fnmatch;
pub mod ident;
pub mod input;
pub mod ldmath;
pub mod ldouble;
pub mod lookup;
pub mod mode;
pub mod paths;
pub mod quote;
pub mod regex_bt;
pub mod regex_gnu;
pub mod size;
pub mod testexpr;
pub mod walk;
