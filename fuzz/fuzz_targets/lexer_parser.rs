//! Any bytes through the lexer and parser: `parse` (line mode: an incomplete input is an
//! error, not a panic), `parse_at_eof` (the end of a script), and the `Reader` of one
//! complete command at a time with extended patterns and aliases. Must never panic.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use trumansh::shell::{ParseOpts, Reader};

fuzz_target!(|data: &[u8]| {
    let _ = trumansh::shell::parse(data, 1);
    let _ = trumansh::shell::parse_at_eof(data, 1);
    // A line number far from 1 (messages are `line N`).
    let _ = trumansh::shell::parse(data, usize::MAX / 2);
    // Aliases whose texts open quotes, compound commands, more aliases.
    let aliases: BTreeMap<String, String> = [
        ("a", "echo @(x "),
        ("b", "a b "),
        ("c", "'"),
        ("d", "$(b"),
        ("e", "if a; then c"),
        ("f", "f f;f "),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let opts = ParseOpts {
        extglob: true,
        aliases: Some(&aliases),
    };
    let _ = trumansh::shell::parse_with_opts(data, 1, opts);
    let mut reader = Reader::new(data, 1);
    while reader.next_command(opts).is_some() {}
});
