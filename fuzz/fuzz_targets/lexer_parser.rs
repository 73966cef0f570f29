//! Any bytes through the lexer and parser: `parse` (line mode: an incomplete input is an
//! error, not a panic) and `parse_at_eof` (the end of a script). Must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = trumansh::shell::parse(data, 1);
    let _ = trumansh::shell::parse_at_eof(data, 1);
    // A line number far from 1 (messages are `line N`).
    let _ = trumansh::shell::parse(data, usize::MAX / 2);
});
