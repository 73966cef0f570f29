//! `basename NAME [SUFFIX]` / `basename OPTION... NAME...`, GNU coreutils: the last
//! component of each name, trailing slashes dropped, and a suffix removed unless it is the
//! whole name. Options are only read before the first operand (GNU parses with `+`), so
//! `basename x.c -s` takes `-s` as the suffix.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::{options_first, parse_args};
use crate::{Ctx, Outcome, quote};

/// Print NAME with any leading directory components removed.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "basename NAME [SUFFIX]\n  or:  basename OPTION... NAME...")]
pub struct BasenameArgs {
    /// support multiple arguments and treat each as a NAME
    #[arg(short = 'a', long = "multiple")]
    multiple: bool,
    /// remove a trailing SUFFIX; implies -a
    #[arg(short = 's', long = "suffix", value_name = "SUFFIX")]
    suffix: Option<OsString>,
    /// end each output line with NUL, not newline
    #[arg(short = 'z', long = "zero")]
    zero: bool,
    names: Vec<OsString>,
}

/// Where GNU's getopt with a leading `+` stops: the first operand (or after `--`).
fn options_end(args: &[OsString]) -> usize {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let b = a.as_bytes();
        if b == b"--" || b.len() < 2 || b.first() != Some(&b'-') {
            return i;
        }
        i += 1;
        if let Some(long) = b.strip_prefix(b"--") {
            // `--suffix X` (or a prefix of it) takes the next argument.
            if !long.contains(&b'=') && b"suffix".starts_with(long) {
                i += 1;
            }
            continue;
        }
        // `-as X`: a bundle ending in `s` takes the next argument.
        if let Some(p) = b.iter().skip(1).position(|&c| c == b's')
            && p + 2 == b.len()
        {
            i += 1;
        }
    }
    args.len()
}

/// GNU's `base_name` + `strip_trailing_slashes` + `remove_suffix`.
pub fn base(name: &[u8], suffix: Option<&[u8]>) -> Vec<u8> {
    if name.is_empty() {
        return Vec::new();
    }
    let end = name.iter().rposition(|&c| c != b'/').map_or(0, |i| i + 1);
    if end == 0 {
        return b"/".to_vec();
    }
    let trimmed = name.get(..end).unwrap_or_default();
    let start = trimmed
        .iter()
        .rposition(|&c| c == b'/')
        .map_or(0, |i| i + 1);
    let last = trimmed.get(start..).unwrap_or_default();
    match suffix {
        Some(s) if !s.is_empty() && last != s && last.ends_with(s) => last
            .get(..last.len() - s.len())
            .unwrap_or_default()
            .to_vec(),
        _ => last.to_vec(),
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let _ = ctx;
    let normalised = options_first(args, options_end(args));
    let a = parse_args::<BasenameArgs>(&normalised)?;
    let Some(first) = a.names.first() else {
        return Err(Stop::Usage("missing operand".into()));
    };
    let multiple = a.multiple || a.suffix.is_some();
    let (names, suffix): (&[OsString], Option<&OsString>) = if multiple {
        (&a.names, a.suffix.as_ref())
    } else {
        match a.names.len() {
            1 => (std::slice::from_ref(first), None),
            2 => (std::slice::from_ref(first), a.names.get(1)),
            _ => {
                let extra = a.names.get(2).map(quote).unwrap_or_default();
                return Err(Stop::Usage(format!("extra operand {extra}")));
            }
        }
    };
    let eol = if a.zero { 0 } else { b'\n' };
    let mut out = Vec::new();
    for n in names {
        out.extend(base(n.as_bytes(), suffix.map(|s| s.as_bytes())));
        out.push(eol);
    }
    let mut o = Outcome::ok();
    o.out(out);
    Ok(o)
}

#[cfg(test)]
mod tests {

    use crate::testing::world::{World, text};

    fn bn(args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(crate::CommandName::Basename, args))
    }

    #[test]
    fn edge_cases_as_gnu() {
        // Each expected line from GNU coreutils 9.1 `basename`, LC_ALL=C.
        for (args, want) in [
            (&["/a/b/"][..], "b\n"),
            (&["/"], "/\n"),
            (&["//"], "/\n"),
            (&[""], "\n"),
            (&["a/"], "a\n"),
            (&["."], ".\n"),
            (&["a.txt", ".txt"], "a\n"),
            (&[".txt", ".txt"], ".txt\n"),
            (&["/a/b.c.c", ".c"], "b.c\n"),
            (&["-a", "a/b", "c/d"], "b\nd\n"),
            (&["-s", ".c", "a.c", "b.c"], "a\nb\n"),
            (&["-as", ".c", "a.c"], "a\n"),
            (&["x.c", "-s"], "x.c\n"),
            (&["-a", "x", "-s", ".c"], "x\n-s\n.c\n"),
            (&["--", "-a"], "-a\n"),
            (&["-z", "a/b"], "b\0"),
        ] {
            assert_eq!(bn(args).0, want, "{args:?}");
        }
    }

    #[test]
    fn errors_as_gnu() {
        assert_eq!(
            bn(&[]),
            (
                String::new(),
                "basename: missing operand\nTry 'basename --help' for more information.\n".into(),
                1
            )
        );
        assert_eq!(
            bn(&["a", "b", "c"]).1,
            "basename: extra operand 'c'\nTry 'basename --help' for more information.\n"
        );
    }
}
