//! The shell language: lexing and parsing an input into a [`ast::Script`], and expanding its
//! words into fields (braces, tilde, parameters, word splitting, globs, quote removal).

pub mod ast;
mod expand;
mod parser;

pub use expand::{ExpandCtx, ExpandError, expand_word, expand_words, expand_word_nosplit};
pub use parser::{ParseError, parse};
