//! `dirname [OPTION] NAME...`, GNU coreutils: each name with its last component and the
//! slashes before it removed (gnulib's `dir_len`), `.` when nothing is left.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::{Ctx, Outcome};

/// Output each NAME with its last non-slash component and trailing slashes removed; if NAME
/// contains no /'s, output '.' (meaning the current directory).
#[derive(clap::Parser, Debug)]
#[command(override_usage = "dirname [OPTION] NAME...")]
pub struct DirnameArgs {
    /// end each output line with NUL, not newline
    #[arg(short = 'z', long = "zero")]
    zero: bool,
    names: Vec<OsString>,
}

/// gnulib's `dir_len`: the length of the directory part, slashes before the base removed,
/// a leading `/` kept.
fn dir_len(name: &[u8]) -> usize {
    let prefix = usize::from(name.first() == Some(&b'/'));
    // `last_component`: past the leading slashes, the start of the last component.
    let mut base = name.iter().position(|&c| c != b'/').unwrap_or(name.len());
    let mut last_was_slash = false;
    for (i, &c) in name.iter().enumerate().skip(base) {
        if c == b'/' {
            last_was_slash = true;
        } else if last_was_slash {
            base = i;
            last_was_slash = false;
        }
    }
    let mut len = base;
    while prefix < len && name.get(len - 1) == Some(&b'/') {
        len -= 1;
    }
    len
}

/// The directory part of a name, as GNU `dirname` prints it.
pub fn dir(name: &[u8]) -> &[u8] {
    match dir_len(name) {
        0 => b".",
        n => name.get(..n).unwrap_or(b"."),
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let _ = ctx;
    let a = parse_args::<DirnameArgs>(args)?;
    if a.names.is_empty() {
        return Err(Stop::Usage("missing operand".into()));
    }
    let eol = if a.zero { 0 } else { b'\n' };
    let mut out = Vec::new();
    for n in &a.names {
        out.extend_from_slice(dir(n.as_bytes()));
        out.push(eol);
    }
    let mut o = Outcome::ok();
    o.out(out);
    Ok(o)
}

#[cfg(test)]
mod tests {

    use crate::testing::world::{World, text};

    fn dn(args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(crate::CommandName::Dirname, args))
    }

    #[test]
    fn edge_cases_as_gnu() {
        // Each expected line from GNU coreutils 9.1 `dirname`, LC_ALL=C.
        for (args, want) in [
            (&["/a/b/"][..], "/a\n"),
            (&["/"], "/\n"),
            (&["//"], "/\n"),
            (&["///a"], "/\n"),
            (&["//a"], "/\n"),
            (&[""], ".\n"),
            (&["a"], ".\n"),
            (&["a/"], ".\n"),
            (&["."], ".\n"),
            (&["a//b//"], "a\n"),
            (&["..//x"], "..\n"),
            (&["a/b/../c"], "a/b/..\n"),
            (&["a", "b/c", "/d"], ".\nb\n/\n"),
            (&["a/b", "-z"], "a\0"),
        ] {
            assert_eq!(dn(args).0, want, "{args:?}");
        }
    }

    #[test]
    fn errors_as_gnu() {
        assert_eq!(
            dn(&[]),
            (
                String::new(),
                "dirname: missing operand\nTry 'dirname --help' for more information.\n".into(),
                1
            )
        );
        assert_eq!(
            dn(&["-x"]).1,
            "dirname: invalid option -- 'x'\nTry 'dirname --help' for more information.\n"
        );
    }
}
