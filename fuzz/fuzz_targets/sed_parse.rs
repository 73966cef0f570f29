//! Any bytes as a sed script (the first byte picks BRE or ERE; everything after the first
//! NUL, if any, is the text the script's regular expressions are run over): compiled by the
//! sed handler's parser with GNU's diagnostics, and every regex it holds searched over the
//! text (matches and groups, through the shared GNU regex engine). Must never panic, and stays
//! bounded (the backtracker's step budget).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() > 4096 {
        return;
    }
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (script, hay) = match rest.iter().position(|&b| b == 0) {
        Some(k) => (&rest[..k], &rest[k + 1..]),
        None => (rest, &b"hello world\nfoo bar baz\naaa\n"[..]),
    };
    let _ = trumansh_commands::sed_fuzz_compile(script, mode & 1 == 1, hay);
});
