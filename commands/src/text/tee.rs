//! `tee [OPTION]... [FILE]...`, GNU coreutils: copies the command's stdin to stdout and to
//! each FILE. Each file is one [`Op::WriteFile`] (created or truncated, or appended with
//! `-a`); GNU opens every file before copying, so the effects come first and a file that
//! cannot be written (`tee: d: Is a directory`) is reported before the output, and the others
//! are still written. `-` is a file named `-`, as in GNU 9.1.

use std::ffi::OsString;
use std::fmt::Write as _;

use crate::support::args::{parse_args, try_help};
use crate::{Ctx, Effect, Op, Outcome, quote_if_needed, quote_locale};

/// Copy standard input to each FILE, and also to standard output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "tee [OPTION]... [FILE]...")]
pub struct TeeArgs {
    /// append to the given FILEs, do not overwrite
    #[arg(short = 'a', long = "append")]
    append: bool,
    /// ignore interrupt signals
    #[arg(short = 'i', long = "ignore-interrupts")]
    ignore_interrupts: bool,
    /// diagnose errors writing to non pipes
    #[arg(short = 'p')]
    p: bool,
    /// set behavior on write error (warn, warn-nopipe, exit, exit-nopipe)
    #[arg(long = "output-error", value_name = "MODE", num_args = 0..=1, default_missing_value = "warn-nopipe")]
    output_error: Option<String>,
    files: Vec<OsString>,
}

const MODES: [&str; 4] = ["warn", "warn-nopipe", "exit", "exit-nopipe"];

/// `--output-error=MODE` by exact name or unambiguous prefix, as GNU's `XARGMATCH`.
fn check_mode(mode: &str) -> Option<Outcome> {
    let hits = MODES.iter().filter(|m| m.starts_with(mode)).count();
    if MODES.contains(&mode) || hits == 1 {
        return None;
    }
    let kind = if hits == 0 { "invalid" } else { "ambiguous" };
    let mut msg = format!(
        "tee: {kind} argument {} for '--output-error'\nValid arguments are:\n",
        quote_locale(mode)
    );
    for m in MODES {
        let _ = writeln!(msg, "  - '{m}'");
    }
    msg.push_str(&try_help("tee"));
    let mut o = Outcome::status(1);
    o.err(msg);
    Some(o)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Outcome {
    let a = match parse_args::<TeeArgs>("tee", args, 1) {
        Ok(a) => a,
        Err(o) => return o,
    };
    if let Some(o) = a.output_error.as_deref().and_then(check_mode) {
        return o;
    }
    let mut o = Outcome::ok();
    let input = ctx.stdin.read_all().unwrap_or_default();
    for file in &a.files {
        o.effect(Effect::new(
            Op::WriteFile {
                path: ctx.resolve(file),
                data: input.clone(),
                append: a.append,
            },
            format!("tee: {}", quote_if_needed(file)),
        ));
    }
    o.out(&input);
    o
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text};
    use crate::{Op, Step};

    #[test]
    fn writes_each_file_then_stdout() {
        let w = World::new(MemFs::rooted("/s")).stdin(b"hi\n");
        let o = w.run(super::run, &["-a", "x", "d/y"]);
        assert_eq!(
            ops(&o),
            [
                Op::WriteFile {
                    path: PathBuf::from("/s/x"),
                    data: b"hi\n".to_vec(),
                    append: true
                },
                Op::WriteFile {
                    path: PathBuf::from("/s/d/y"),
                    data: b"hi\n".to_vec(),
                    append: true
                }
            ]
        );
        // GNU: `tee: d/y: No such file or directory` is printed before the output.
        assert!(
            matches!(o.steps.get(1), Some(Step::Effect(e)) if e.on_err.as_deref() == Some("tee: d/y"))
        );
        assert_eq!(o.steps.last(), Some(&Step::Out(b"hi\n".to_vec())));
    }

    #[test]
    fn errors_as_gnu() {
        // GNU coreutils 9.1, LC_ALL=C.
        let w = World::new(MemFs::rooted("/s"));
        assert_eq!(
            text(&w.run(super::run, &["--output-error=x"])).1,
            "tee: invalid argument 'x' for '--output-error'\nValid arguments are:\n  - 'warn'\n  - 'warn-nopipe'\n  - 'exit'\n  - 'exit-nopipe'\nTry 'tee --help' for more information.\n"
        );
        assert_eq!(
            text(&w.run(super::run, &["-x"])).1,
            "tee: invalid option -- 'x'\nTry 'tee --help' for more information.\n"
        );
    }
}
