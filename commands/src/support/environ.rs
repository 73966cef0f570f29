//! The environment a program gets from the session: its exported variables with a value
//! (never the host's environment). `printenv` and `env` print it.

use crate::Vars;

/// The exported variables with a value, as a program's environment holds them (in name
/// order; bash passes its own order). Arrays are not exported.
pub fn environment(vars: &Vars) -> impl Iterator<Item = (&str, &str)> {
    vars.iter().filter_map(|(name, var)| {
        if !var.exported || var.array.is_some() {
            return None;
        }
        var.value.as_deref().map(|v| (name, v))
    })
}

/// `NAME=VALUE` lines (each ended by `end`) for the whole environment.
pub fn listing<'a>(env: impl Iterator<Item = (&'a str, &'a str)>, end: u8) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, value) in env {
        out.extend_from_slice(name.as_bytes());
        out.push(b'=');
        out.extend_from_slice(value.as_bytes());
        out.push(end);
    }
    out
}
