//! gnulib's `argmatch` (`XARGMATCH`): the value of an enum-valued option (`--sort=WORD`,
//! `ls --color=WHEN`, `rm --interactive=WHEN`, `date --iso-8601=FMT`...). An exact name
//! matches; otherwise a prefix matches when every name it starts has the same value (so
//! `--color=n` is `never`, since `never`, `no` and `none` are synonyms); otherwise the
//! argument is `invalid` (no name) or `ambiguous`. The failure is GNU's text: the argument
//! quoted in the locale style, `Valid arguments are:` with synonyms on one line, and the Try
//! line, status 1 (coreutils' `ARGMATCH_DIE` is `usage (EXIT_FAILURE)`, even for the
//! utilities whose other usage errors exit 2, such as `ls` and `sort`).

use std::fmt::Write as _;

use crate::Stop;
use crate::quote_locale;

/// coreutils' `--color[=WHEN]` (`ls`, later `dir`, `diff`): always, never, auto.
pub const COLOR_WHEN: &[(&str, u8)] = &[
    ("always", 1),
    ("yes", 1),
    ("force", 1),
    ("never", 2),
    ("no", 2),
    ("none", 2),
    ("auto", 3),
    ("tty", 3),
    ("if-tty", 3),
];

/// The status of an argmatch failure.
const ARGMATCH_STATUS: i32 = 1;

/// The value `arg` names in `table` (name, value rows, synonyms adjacent), or the usage
/// error of `option` (`--color`).
pub fn argmatch<T: Copy + PartialEq>(
    option: &str,
    arg: &str,
    table: &[(&str, T)],
) -> Result<T, Stop> {
    match lookup(arg, table) {
        Ok(v) => Ok(v),
        Err(kind) => Err(Stop::UsageWith(
            format!(
                "{kind} argument {} for '{option}'\n{}",
                quote_locale(arg),
                valid_arguments(table)
            ),
            ARGMATCH_STATUS,
        )),
    }
}

/// gnulib's `argmatch`: the value, or `"invalid"`/`"ambiguous"`.
fn lookup<T: Copy + PartialEq>(arg: &str, table: &[(&str, T)]) -> Result<T, &'static str> {
    if let Some((_, v)) = table.iter().find(|(n, _)| *n == arg) {
        return Ok(*v);
    }
    let mut found: Option<T> = None;
    for (_, v) in table.iter().filter(|(n, _)| n.starts_with(arg)) {
        match found {
            None => found = Some(*v),
            Some(f) if f != *v => return Err("ambiguous"),
            Some(_) => {}
        }
    }
    found.ok_or("invalid")
}

/// gnulib's `argmatch_valid`: `Valid arguments are:` and one line per value, its synonyms
/// joined by `, ` (no trailing newline).
pub fn valid_arguments<T: PartialEq>(table: &[(&str, T)]) -> String {
    let mut s = String::from("Valid arguments are:");
    let mut last: Option<&T> = None;
    for (name, v) in table {
        if last == Some(v) {
            let _ = write!(s, ", '{name}'");
        } else {
            let _ = write!(s, "\n  - '{name}'");
        }
        last = Some(v);
    }
    s
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    const WHEN: &[(&str, u8)] = COLOR_WHEN;

    fn err(r: Result<u8, Stop>) -> (String, i32) {
        match r.unwrap_err() {
            Stop::UsageWith(m, s) => (m, s),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn exact_prefix_and_synonyms() {
        assert_eq!(argmatch("--color", "never", WHEN).unwrap(), 2);
        // GNU ls 9.1: `--color=n` is never (the three names starting with n are synonyms);
        // `--color=a` is ambiguous (`always` and `auto` differ).
        assert_eq!(argmatch("--color", "n", WHEN).unwrap(), 2);
        assert_eq!(argmatch("--color", "if", WHEN).unwrap(), 3);
        assert_eq!(argmatch("--color", "y", WHEN).unwrap(), 1);
        assert!(argmatch("--color", "a", WHEN).is_err());
        // The empty argument starts every name.
        assert!(argmatch("--color", "", WHEN).is_err());
    }

    #[test]
    fn gnu_texts() {
        // GNU coreutils 9.1, LC_ALL=C: `ls --color=bad`, `ls --color=a`.
        let (m, s) = err(argmatch("--color", "bad", WHEN));
        assert_eq!(
            m,
            "invalid argument 'bad' for '--color'\nValid arguments are:\n  - 'always', 'yes', 'force'\n  - 'never', 'no', 'none'\n  - 'auto', 'tty', 'if-tty'"
        );
        assert_eq!(s, 1);
        let (m, _) = err(argmatch("--color", "a", WHEN));
        assert!(m.starts_with("ambiguous argument 'a' for '--color'\n"));
        // The argument is quoted in the locale style: `date --iso-8601=$'a\tb'`.
        let (m, _) = err(argmatch("--iso-8601", "a\tb", &[("hours", 0u8), ("ns", 1)]));
        assert_eq!(
            m,
            "invalid argument 'a\\tb' for '--iso-8601'\nValid arguments are:\n  - 'hours'\n  - 'ns'"
        );
    }

    #[test]
    fn rendered_with_try_line_and_status_1() {
        let o = argmatch("--sort", "x", &[("month", 0u8)])
            .unwrap_err()
            .render(crate::CommandName::Sort);
        assert_eq!(
            String::from_utf8(o.stderr()).unwrap(),
            "sort: invalid argument 'x' for '--sort'\nValid arguments are:\n  - 'month'\nTry 'sort --help' for more information.\n"
        );
        assert_eq!(o.status, 1);
    }
}
