//! Any bytes as an awk program through awk's lexer and parser
//! (`trumansh_commands::awk_parse`): a syntax error is an `Err`, never a panic, and nesting
//! deeper than the parser's limit is refused, not a stack overflow.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = trumansh_commands::awk_parse(data);
});
