//! Placeholder: GNU-style argument parsing on top of clap.

use std::ffi::OsString;

use crate::Outcome;

/// Parses `args` with clap; on error, returns GNU's diagnostic and status.
pub fn parse_args<T: clap::Parser>(
    name: &str,
    args: &[OsString],
    usage_status: i32,
) -> Result<T, Outcome> {
    let argv = std::iter::once(OsString::from(name)).chain(args.iter().cloned());
    T::try_parse_from(argv).map_err(|e| {
        let mut o = Outcome::status(usage_status);
        o.err(format!("{name}: {e}\n"));
        o
    })
}
