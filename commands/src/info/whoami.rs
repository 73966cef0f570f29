//! `whoami`, GNU coreutils: the session's user name.

use std::ffi::OsString;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::quote::quote;
use crate::{Ctx, Outcome};

/// Print the user name associated with the current effective user ID.
/// Same as id -un.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "whoami [OPTION]...")]
pub struct WhoamiArgs {
    operands: Vec<OsString>,
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<WhoamiArgs>(args)?;
    if let Some(extra) = a.operands.first() {
        return Err(Stop::Usage(format!("extra operand {}", quote(extra))));
    }
    let mut o = Outcome::ok();
    o.out(format!("{}\n", ctx.identity.user));
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Whoami;
    use crate::testing::world::{World, text};

    #[test]
    fn the_session_user() {
        let w = World::empty();
        assert_eq!(
            text(&w.run(Whoami, &[])),
            ("user\n".into(), String::new(), 0)
        );
        assert_eq!(
            text(&w.run(Whoami, &["x"])),
            (
                String::new(),
                "whoami: extra operand 'x'\nTry 'whoami --help' for more information.\n".into(),
                1
            )
        );
    }
}
