//! `expand [OPTION]... [FILE]...`, GNU coreutils 9.1: tabs to spaces, at the stops of
//! [`crate::text::tabstops`] (`-t N`, `-t LIST`, `-N`), only leading ones under `-i`. The
//! operands are one stream, read in chunks.

use std::ffi::OsString;

use crate::Stop;
use crate::support::args::parse_args;
use crate::text::tabstops::{each_byte, obsolete_stops, stops};
use crate::{Ctx, Outcome};

/// Convert tabs in each FILE to spaces, writing to standard output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "expand [OPTION]... [FILE]...")]
pub struct ExpandArgs {
    /// do not convert tabs after non blanks
    #[arg(short = 'i', long = "initial")]
    initial: bool,
    /// have tabs N characters apart, not 8; or use comma separated list of explicit tab
    /// positions
    #[arg(short = 't', long = "tabs", value_name = "N", action = clap::ArgAction::Append)]
    tabs: Vec<OsString>,
    files: Vec<OsString>,
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<ExpandArgs>(&obsolete_stops(args))?;
    let t = stops(&a.tabs)?;
    let (mut column, mut index, mut convert) = (0u64, 0usize, true);
    Ok(each_byte(a.files, ctx, |c, out| {
        let Some(c) = c else { return };
        if c == b'\n' {
            out.push(c);
            (column, index, convert) = (0, 0, true);
            return;
        }
        if !convert {
            out.push(c);
            return;
        }
        match c {
            b'\t' => {
                let next = t.next(column, &mut index).unwrap_or(column + 1);
                while column < next {
                    out.push(b' ');
                    column += 1;
                }
            }
            b'\x08' => {
                column = column.saturating_sub(1);
                index = index.saturating_sub(1);
                out.push(c);
            }
            _ => {
                column += 1;
                out.push(c);
            }
        }
        convert = !a.initial || c == b' ' || c == b'\t';
    }))
}

#[cfg(test)]
mod tests {
    use crate::testing::world::{World, text, texts};

    fn expand(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Expand, args))
    }

    #[test]
    fn expands_as_gnu() {
        // Expected outputs from GNU coreutils 9.1 expand, LC_ALL=C (spaces shown as dots).
        let w = World::new(
            texts()
                .file("/s/t", b"a\tb\tc\td\te\tf\n")
                .file("/s/i", b"a\tb\n  \tx\n")
                .file("/s/p1", b"ab")
                .file("/s/p2", b"\tc\n"),
        );
        let dots = |args: &[&str]| expand(&w, args).0.replace(' ', ".");
        assert_eq!(dots(&["-t", "2,/4", "t"]), "a.b.c...d...e...f\n");
        assert_eq!(dots(&["-t", "2,+4", "t"]), "a.b...c...d...e...f\n");
        assert_eq!(dots(&["-t", "/4", "t"]), "a...b...c...d...e...f\n");
        assert_eq!(dots(&["-t", "3,5", "t"]), "a..b.c.d.e.f\n");
        assert_eq!(dots(&["-t", "2,/3", "t"]), "a.b...c..d..e..f\n");
        assert_eq!(dots(&["-t2", "-t4", "i"]), "a.b\n....x\n");
        assert_eq!(dots(&["-3,5", "t"]), "a..b.c.d.e.f\n");
        assert_eq!(dots(&["-i", "i"]), "a\tb\n........x\n");
        assert_eq!(dots(&["p1", "p2"]), "ab......c\n");
        let fail = |m: &str| (String::new(), format!("expand: {m}\n"), 1);
        assert_eq!(
            expand(&w, &["-t", "x", "t"]),
            fail("tab size contains invalid character(s): 'x'")
        );
        assert_eq!(expand(&w, &["-t", "0", "t"]), fail("tab size cannot be 0"));
        assert_eq!(
            expand(&w, &["-t", "4,2", "t"]),
            fail("tab sizes must be ascending")
        );
        assert_eq!(
            expand(&w, &["-t", "4,/2,6", "t"]),
            fail("'/' specifier only allowed with the last value")
        );
        assert_eq!(
            expand(&w, &["-t", "4/", "t"]),
            fail("'/' specifier not at start of number: '/'")
        );
        assert_eq!(
            expand(&w, &["-t", "99999999999999999999", "t"]),
            fail("tab stop is too large '99999999999999999999'")
        );
        assert_eq!(
            expand(&w, &["p1", "nope"]),
            (
                "ab".into(),
                "expand: nope: No such file or directory\n".into(),
                1
            )
        );
    }
}
