//! The shell language: lexing and parsing an input into a [`ast::Script`], and expanding its
//! words into fields (braces, tilde, parameters, word splitting, globs, quote removal).

pub mod ast;
mod brace;
mod expand;
#[cfg(test)]
mod expand_tests;
mod glob;
mod lexer;
mod parser;
#[cfg(test)]
mod parser_tests;

pub use expand::{ExpandCtx, ExpandError, expand_word, expand_word_nosplit, expand_words};
pub use parser::{ParseError, Parsed, Warning, parse, parse_at_eof};
