//! `printenv`, GNU coreutils: the environment a program gets from the session — its
//! exported variables (never the host's environment).

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::environ::{environment, listing};
use crate::{Ctx, Outcome};

/// Print the values of the specified environment VARIABLE(s).
/// If no VARIABLE is specified, print name and value pairs for them all.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "printenv [OPTION]... [VARIABLE]...")]
pub struct PrintenvArgs {
    /// end each output line with NUL, not newline
    #[arg(short = '0', long = "null")]
    null: bool,
    names: Vec<OsString>,
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<PrintenvArgs>(args)?;
    let end = if a.null { 0 } else { b'\n' };
    let mut o = Outcome::ok();
    let mut out = Vec::new();
    if a.names.is_empty() {
        out = listing(environment(ctx.vars), end);
    } else {
        let mut missing = false;
        for n in &a.names {
            let bytes = n.as_bytes();
            let value = (!bytes.contains(&b'='))
                .then(|| environment(ctx.vars).find(|(name, _)| name.as_bytes() == bytes))
                .flatten();
            match value {
                Some((_, v)) => {
                    out.extend_from_slice(v.as_bytes());
                    out.push(end);
                }
                None => missing = true,
            }
        }
        o.status = i32::from(missing);
    }
    o.out(out);
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Printenv;
    use crate::testing::world::{World, text};

    #[test]
    fn exported_variables_only() {
        let w = World::empty()
            .var("HOME", "/home/user", true)
            .var("LOCAL", "x", false)
            .declared("EMPTY");
        assert_eq!(text(&w.run(Printenv, &[])).0, "HOME=/home/user\n");
        assert_eq!(
            text(&w.run(Printenv, &["HOME", "LOCAL", "EMPTY"])),
            ("/home/user\n".into(), String::new(), 1)
        );
        assert_eq!(text(&w.run(Printenv, &["-0", "HOME"])).0, "/home/user\0");
        assert_eq!(text(&w.run(Printenv, &["HOME=x"])).2, 1);
    }
}
