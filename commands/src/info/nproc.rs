//! `nproc`, GNU coreutils: the emulated machine's processors ([`super::system`]).

use std::ffi::OsString;

use super::system::PROCESSORS;
use crate::Stop;
use crate::support::args::parse_args;
use crate::support::quote::quote;
use crate::{Ctx, Outcome};

/// Print the number of processing units available to the current process,
/// which may be less than the number of online processors
#[derive(clap::Parser, Debug)]
#[command(override_usage = "nproc [OPTION]...")]
pub struct NprocArgs {
    /// print the number of installed processors
    #[arg(long = "all")]
    all: bool,
    /// if possible, exclude N processing units
    #[arg(long = "ignore", value_name = "N")]
    ignore: Option<OsString>,
    operands: Vec<OsString>,
}

/// `nproc`: the emulated machine's processors, less `--ignore`, at least 1.
pub fn run(args: &[OsString], _ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<NprocArgs>(args)?;
    if let Some(extra) = a.operands.first() {
        return Err(Stop::Usage(format!("extra operand {}", quote(extra))));
    }
    let _ = a.all;
    let ignore = match &a.ignore {
        None => 0,
        Some(n) => n
            .to_str()
            .and_then(|t| {
                t.trim_start()
                    .strip_prefix('+')
                    .unwrap_or(t.trim_start())
                    .parse::<u64>()
                    .ok()
            })
            .ok_or_else(|| Stop::Fail(format!("invalid number: {}", quote(n))))?,
    };
    let mut o = Outcome::ok();
    o.out(format!("{}\n", PROCESSORS.saturating_sub(ignore).max(1)));
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Nproc;
    use crate::testing::world::{World, text};

    fn out(c: crate::CommandName, args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(c, args))
    }

    #[test]
    fn processors() {
        assert_eq!(out(Nproc, &[]).0, "4\n");
        assert_eq!(out(Nproc, &["--ignore=1"]).0, "3\n");
        assert_eq!(out(Nproc, &["--ignore=9"]).0, "1\n");
        assert_eq!(
            out(Nproc, &["--ignore=x"]),
            (String::new(), "nproc: invalid number: 'x'\n".into(), 1)
        );
    }
}
