//! The shell language: lexing and parsing an input into a [`ast::Script`]. The syntax only:
//! it uses nothing of the runtime (word expansion, which needs variables and the
//! filesystem, is `crate::expand`).

pub mod ast;
mod lexer;
mod parser;
#[cfg(test)]
mod parser_tests;
pub mod print;

pub(crate) use lexer::{is_name_char, is_name_start};
pub use parser::{
    ParseError, ParseOpts, Parsed, Reader, Warning, first_command_lines, is_plainly_complete,
    parse, parse_at_eof, parse_with_opts,
};
