//! The one error path of a handler: `run(args, ctx) -> Result<Outcome, Stop>`, so that a
//! handler stops with `?`. [`crate::run`] turns a [`Stop`] into the command's diagnostic in
//! exactly one place ([`Stop::render`]): the `NAME: ` prefix, the `Try 'NAME --help'` line
//! and the status come from the command table, the way GNU's `error()` and `usage()` add
//! `program_name` and the utility's failure status. For a bash builtin the same stop becomes
//! bash's form: the message as a shell diagnostic (`bash: cd: ...`, prefixed by the executor)
//! and, for a usage error, the `NAME: usage: SYNOPSIS` line, status 2.

use crate::{CommandName, Outcome, Step};

/// Why a handler stops before its normal end.
#[derive(Debug)]
pub enum Stop {
    /// The command is done and this is its whole outcome (`--help`, or output already
    /// produced before a failure).
    Done(Outcome),
    /// `NAME: MSG` (no newline in MSG), with the command's failure status.
    Fail(String),
    /// `NAME: MSG` with this status.
    FailWith(String, i32),
    /// A usage error: `NAME: MSG` then `Try 'NAME --help' for more information.` (a builtin:
    /// `NAME: usage: SYNOPSIS`), with the command's failure status.
    Usage(String),
    /// A usage error with its own status (argmatch's 1 in a utility whose usage status is 2).
    UsageWith(String, i32),
    /// What the command produced before it stopped (warnings, earlier output), then the
    /// stop's own diagnostic; the status is the stop's. Built with [`Stop::after`].
    After(Outcome, Box<Stop>),
    /// `--help` of a bash builtin: its help topic on stdout, status 0.
    Help,
    /// `--version` of a utility, status 0.
    Version,
}

impl From<Outcome> for Stop {
    fn from(o: Outcome) -> Self {
        Stop::Done(o)
    }
}

/// What this emulation answers to `--version`.
const VERSION_LINE: &str = concat!(
    " (trumansh ",
    env!("CARGO_PKG_VERSION"),
    "; emulates GNU coreutils 9.1)\n"
);

/// The `Try '<name> --help' ...` tail of every GNU usage error.
pub fn try_help(name: &str) -> String {
    format!("Try '{name} --help' for more information.\n")
}

impl Stop {
    /// This stop, preceded by what `before` already holds.
    #[must_use]
    pub fn after(self, before: Outcome) -> Stop {
        Stop::After(before, Box::new(self))
    }

    /// The outcome of this stop for the command `name` (the only place a handler's own
    /// diagnostic gets its prefix and status).
    pub fn render(self, name: CommandName) -> Outcome {
        match name.help_topic() {
            Some(topic) if name.is_builtin() => self.render_builtin(
                name.as_str(),
                topic.usage,
                topic.help,
                name.failure_status(),
            ),
            _ => self.render_program(name.as_str(), name.failure_status()),
        }
    }

    /// GNU's form: `NAME: MSG` on stderr.
    pub fn render_program(self, name: &str, status: i32) -> Outcome {
        match self {
            Stop::Done(o) => o,
            Stop::Fail(msg) => with_err(status, format!("{name}: {msg}\n")),
            Stop::FailWith(msg, status) => with_err(status, format!("{name}: {msg}\n")),
            Stop::Usage(msg) => with_err(status, format!("{name}: {msg}\n{}", try_help(name))),
            Stop::UsageWith(msg, status) => {
                with_err(status, format!("{name}: {msg}\n{}", try_help(name)))
            }
            Stop::After(before, stop) => append(before, stop.render_program(name, status)),
            Stop::Help => Outcome::ok(),
            Stop::Version => {
                let mut o = Outcome::ok();
                o.out(format!("{name}{VERSION_LINE}"));
                o
            }
        }
    }

    /// bash's form: the message as a shell diagnostic; a usage error adds the plain
    /// `NAME: usage: USAGE` line and has status 2.
    pub fn render_builtin(
        self,
        name: &str,
        usage: &str,
        help: fn() -> String,
        status: i32,
    ) -> Outcome {
        match self {
            Stop::Done(o) => o,
            Stop::Fail(msg) => with_shell_err(status, format!("{name}: {msg}\n")),
            Stop::FailWith(msg, status) => with_shell_err(status, format!("{name}: {msg}\n")),
            Stop::Usage(msg) | Stop::UsageWith(msg, _) => {
                let mut o = with_shell_err(2, format!("{name}: {msg}\n"));
                o.err(format!("{name}: usage: {usage}\n"));
                o
            }
            Stop::After(before, stop) => {
                append(before, stop.render_builtin(name, usage, help, status))
            }
            Stop::Help | Stop::Version => {
                let mut o = Outcome::ok();
                o.out(help());
                o
            }
        }
    }
}

/// `before`'s steps then `then`'s (adjacent output of one stream merged, as if written in
/// one go), with `then`'s status.
fn append(mut before: Outcome, then: Outcome) -> Outcome {
    for step in then.steps {
        match step {
            Step::Out(b) => {
                before.out(b);
            }
            Step::Err(b) => {
                before.err(b);
            }
            Step::ShellErr(b) => {
                before.shell_err(b);
            }
            change @ (Step::Effect(_) | Step::Directive(_)) => before.steps.push(change),
        }
    }
    before.status = then.status;
    before
}

fn with_err(status: i32, text: String) -> Outcome {
    let mut o = Outcome::status(status);
    o.err(text);
    o
}

fn with_shell_err(status: i32, text: String) -> Outcome {
    let mut o = Outcome::status(status);
    o.shell_err(text);
    o
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn text(o: &Outcome) -> (String, String, i32) {
        (
            String::from_utf8(o.stdout()).unwrap(),
            String::from_utf8(o.stderr()).unwrap(),
            o.status,
        )
    }

    #[test]
    fn programs_get_prefix_try_line_and_failure_status() {
        let o = Stop::Usage("missing operand".into()).render(CommandName::Mkdir);
        assert_eq!(
            text(&o),
            (
                String::new(),
                "mkdir: missing operand\nTry 'mkdir --help' for more information.\n".into(),
                1
            )
        );
        // sort's failure status is 2 (SORT_FAILURE).
        let o = Stop::Fail("x".into()).render(CommandName::Sort);
        assert_eq!(text(&o), (String::new(), "sort: x\n".into(), 2));
        let o = Stop::FailWith("x".into(), 3).render(CommandName::Cat);
        assert_eq!(o.status, 3);
        let o = Stop::Version.render(CommandName::Cat);
        assert!(text(&o).0.starts_with("cat (trumansh "));
    }

    #[test]
    fn builtins_get_the_shell_form() {
        let o = Stop::Usage("-x: invalid option".into()).render(CommandName::Cd);
        assert_eq!(
            o.steps[0],
            Step::ShellErr(b"cd: -x: invalid option\n".to_vec())
        );
        assert_eq!(
            o.steps[1],
            Step::Err(format!("cd: usage: {}\n", crate::builtins::cd::USAGE).into_bytes())
        );
        assert_eq!(o.status, 2);
        let o = Stop::Help.render(CommandName::Pwd);
        assert_eq!(o.stdout(), crate::builtins::pwd::help().into_bytes());
        assert_eq!(o.status, 0);
    }
}
