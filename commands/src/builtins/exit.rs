//! `exit [n]`, bash's builtin: ends the session (through [`Directive::Exit`]) once the line is done.
//!
//! Parsed by hand, as bash does: a leading `--` is skipped and anything else, `-1` included,
//! is the status operand (so no clap here beyond the help text).

use std::ffi::OsString;

use crate::Stop;
use crate::support::args::builtin_help_of;
use crate::{Ctx, Directive, Outcome};

pub const USAGE: &str = "exit [n]";
const NUMERIC: &str = "numeric argument required";
const TOO_MANY: &str = "exit: too many arguments\n";

/// Exit the shell.
///
/// Ends the session with status N (taken modulo 256), or with the status of the last command
/// when N is omitted.
#[derive(clap::Parser, Debug)]
pub struct ExitArgs {
    operands: Vec<OsString>,
}

/// Bash's `legal_number`: optional blanks, an optional sign, decimal digits, optional blanks;
/// `None` on anything else or on overflow of a 64-bit integer.
fn legal_number(s: &str) -> Option<i64> {
    let t = s.trim_matches(|c: char| c == ' ' || c == '\t' || c == '\n');
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse::<i64>().ok()
}

/// Ends the shell with `status` (`None`: `$?`, which the interpreter fills in).
fn exit_with(status: Option<i32>) -> Outcome {
    let mut o = Outcome::status(status.unwrap_or(0));
    o.directive(Directive::Exit { status });
    o
}

/// The text of `help exit` and `exit --help`.
pub fn help() -> String {
    builtin_help_of::<ExitArgs>("exit", USAGE)
}

#[allow(clippy::unnecessary_wraps)] // the command table's handler signature
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut rest = args;
    if let Some(first) = rest.first() {
        if first == "--help" {
            let mut o = Outcome::ok();
            o.out(help());
            return Ok(o);
        }
        if first == "--" {
            rest = &rest[1..];
        }
    }
    let Some(arg) = rest.first() else {
        return Ok(exit_with(None));
    };
    let text = arg.to_string_lossy();
    let Some(n) = legal_number(&text) else {
        let mut o = exit_with(Some(2));
        o.steps.insert(
            0,
            crate::Step::ShellErr(format!("{}: {text}: {NUMERIC}\n", ctx.name).into_bytes()),
        );
        return Ok(o);
    };
    if rest.len() > 1 {
        let mut o = Outcome::status(1);
        o.shell_err(TOO_MANY);
        return Ok(o);
    }
    Ok(exit_with(Some((n & 255) as i32)))
}

#[cfg(test)]
mod tests {
    use crate::Directive;

    use crate::testing::world::{World, directives, text};

    fn exit(args: &[&str], last: &str) -> (Vec<Directive>, String, i32) {
        let w = World::empty().var("?", last, false);
        let o = w.run(crate::CommandName::Exit, args);
        let (_, err, status) = text(&o);
        (directives(&o), err, status)
    }

    #[test]
    fn statuses_as_bash() {
        // `bash -c 'exit ...'; echo $?` with bash 5.2.
        // Without an operand, `$?`: the interpreter's to fill in.
        assert_eq!(exit(&[], "1").0, [Directive::Exit { status: None }]);
        assert_eq!(
            exit(&["-1"], "0").0,
            [Directive::Exit { status: Some(255) }]
        );
        assert_eq!(exit(&["256"], "0").0, [Directive::Exit { status: Some(0) }]);
        assert_eq!(exit(&[" 3 "], "0").0, [Directive::Exit { status: Some(3) }]);
        assert_eq!(exit(&["+3"], "0").0, [Directive::Exit { status: Some(3) }]);
        assert_eq!(
            exit(&["--", "-3"], "0").0,
            [Directive::Exit { status: Some(253) }]
        );
        assert_eq!(
            exit(&["9223372036854775807"], "0").0,
            [Directive::Exit { status: Some(255) }]
        );
        assert_eq!(
            exit(&["-9223372036854775808"], "0").0,
            [Directive::Exit { status: Some(0) }]
        );
    }

    #[test]
    fn errors_as_bash() {
        assert_eq!(
            exit(&["x", "y"], "0"),
            (
                vec![Directive::Exit { status: Some(2) }],
                "exit: x: numeric argument required\n".into(),
                2
            )
        );
        for bad in ["0x10", "3x", "-x", "", "9223372036854775808"] {
            let (ops, err, status) = exit(&[bad], "0");
            assert_eq!(ops, [Directive::Exit { status: Some(2) }]);
            assert_eq!(err, format!("exit: {bad}: numeric argument required\n"));
            assert_eq!(status, 2);
        }
        // Interactive and script bash: reported, status 1, the shell goes on.
        assert_eq!(
            exit(&["1", "2"], "0"),
            (vec![], "exit: too many arguments\n".into(), 1)
        );
    }
}
