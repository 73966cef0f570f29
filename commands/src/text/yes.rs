//! `yes`, GNU coreutils: its operands (or `y`) on a line, again and again, until nobody
//! reads the output (`yes | head`), the line's output cap or its deadline.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::{Ctx, Outcome, SPILL_AT};

/// Repeatedly output a line with all specified STRING(s), or 'y'.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "yes [STRING]...\n  or:  yes OPTION")]
pub struct YesArgs {
    strings: Vec<OsString>,
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<YesArgs>(args)?;
    let mut line = Vec::new();
    for (i, s) in a.strings.iter().enumerate() {
        if i > 0 {
            line.push(b' ');
        }
        line.extend_from_slice(s.as_bytes());
    }
    if a.strings.is_empty() {
        line.push(b'y');
    }
    line.push(b'\n');
    // One buffer of whole lines, handed over again and again.
    let copies = (SPILL_AT / line.len()).max(1);
    let chunk = line.repeat(copies);
    let mut o = Outcome::ok();
    if ctx.spill.is_none() {
        // A unit test's world: nothing would ever stop it; one buffer shows the lines.
        o.out(&chunk);
        return Ok(o);
    }
    loop {
        o.out(&chunk);
        if !ctx.flush(&mut o) {
            return Ok(o);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Yes;
    use crate::testing::world::{World, text};

    #[test]
    fn lines_of_the_operands() {
        let w = World::empty();
        assert!(text(&w.run(Yes, &[])).0.starts_with("y\ny\ny\n"));
        assert!(text(&w.run(Yes, &["a", "b"])).0.starts_with("a b\na b\n"));
    }
}
