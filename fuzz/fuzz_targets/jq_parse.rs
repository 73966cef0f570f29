//! Any bytes as a jq program and its JSON input (split at the first NUL; without one, the
//! input is a small fixed document): the program is compiled by jaq behind jq 1.6's
//! preparation (`$__loc__`, surrogate pairs) and its error rendering, the input parsed by
//! jq 1.6's JSON reader and printed back in every style. Must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() > 4096 {
        return;
    }
    let (program, input) = match data.iter().position(|&b| b == 0) {
        Some(k) => (&data[..k], &data[k + 1..]),
        None => (data, &br#"{"a":[1,2.5,"x\u00e9"],"b":null}"#[..]),
    };
    let program = String::from_utf8_lossy(program);
    let _ = trumansh_commands::jq_fuzz(&program, input);
});
