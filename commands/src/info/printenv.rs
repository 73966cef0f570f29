//! `printenv`, GNU coreutils: the environment a program gets from the session — its
//! exported variables (never the host's environment).

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
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

/// The exported variables with a value, as a program's environment holds them (in name
/// order; bash passes its own order).
pub fn environment<'a>(ctx: &'a Ctx) -> impl Iterator<Item = (&'a str, &'a str)> {
    ctx.vars.iter().filter_map(|(name, var)| {
        if !var.exported || var.array.is_some() {
            return None;
        }
        var.value.as_deref().map(|v| (name, v))
    })
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<PrintenvArgs>(args)?;
    let end: &[u8] = if a.null { b"\0" } else { b"\n" };
    let mut o = Outcome::ok();
    let mut out = Vec::new();
    if a.names.is_empty() {
        for (name, value) in environment(ctx) {
            out.extend_from_slice(name.as_bytes());
            out.push(b'=');
            out.extend_from_slice(value.as_bytes());
            out.extend_from_slice(end);
        }
    } else {
        let mut missing = false;
        for n in &a.names {
            let bytes = n.as_bytes();
            let value = (!bytes.contains(&b'='))
                .then(|| environment(ctx).find(|(name, _)| name.as_bytes() == bytes))
                .flatten();
            match value {
                Some((_, v)) => {
                    out.extend_from_slice(v.as_bytes());
                    out.extend_from_slice(end);
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
