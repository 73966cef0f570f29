//! `tee [OPTION]... [FILE]...`, GNU coreutils: copies the command's stdin to stdout and to
//! each FILE. Each file is one [`Op::WriteFile`] (created or truncated, or appended with
//! `-a`); GNU opens every file before copying, so the effects come first and a file that
//! cannot be written (`tee: d: Is a directory`) is reported before the output, and the others
//! are still written. `-` is a file named `-`, as in GNU 9.1; `/dev/stdout` and `/dev/stderr`
//! are the command's own outputs, `/dev/null` nothing. An input larger than one chunk (the
//! session's hold cap, at most [`FILE_CHUNK`]) streams: each chunk goes to stdout and is
//! appended to each file, so tee holds one chunk at a time.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;

use crate::Stop;
use crate::support::argmatch::argmatch;
use crate::support::args::parse_args;
use crate::text::lines::{FILE_CHUNK, FileOut};
use crate::{Ctx, Effect, Op, Outcome, normalize_lexical, quote_if_needed};

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

/// `--output-error=MODE`, as GNU's `XARGMATCH`.
fn check_mode(mode: &str) -> Result<(), Stop> {
    argmatch("--output-error", mode, &MODES.map(|m| (m, m))).map(|_| ())
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<TeeArgs>(args)?;
    if let Some(mode) = a.output_error.as_deref() {
        check_mode(mode)?;
    }
    let mut o = Outcome::ok();
    let chunk = usize::try_from(ctx.hold_bytes())
        .unwrap_or(usize::MAX)
        .clamp(1, FILE_CHUNK);
    let (input, mut more) = read_chunk(ctx, chunk);
    // `/dev/stdout` and `/dev/stderr` are the command's own fds: written after stdout, in
    // their order, as GNU writes each chunk to stdout and then to each file.
    let mut streams = Vec::new();
    let mut files = Vec::new();
    for file in &a.files {
        let path = normalize_lexical(&ctx.resolve(file));
        if path == Path::new("/dev/stdout") || path == Path::new("/dev/fd/1") {
            streams.push(false);
            continue;
        }
        if path == Path::new("/dev/stderr") || path == Path::new("/dev/fd/2") {
            streams.push(true);
            continue;
        }
        if path == Path::new("/dev/null") {
            continue;
        }
        files.push((
            ctx.resolve(file),
            format!("{}: {}", ctx.name, quote_if_needed(file)),
        ));
    }
    if !more {
        for (path, msg) in files {
            o.effect(Effect::new(
                Op::WriteFile {
                    path,
                    data: input.clone(),
                    append: a.append,
                },
                msg,
            ));
        }
        copy_out(&mut o, &input, &streams);
        return Ok(o);
    }
    // Streaming: every file is opened (written with the first chunk) before any output.
    let mut outs: Vec<FileOut> = files
        .into_iter()
        .map(|(path, msg)| {
            let f = FileOut::new(path, msg.clone(), msg);
            if a.append { f.appending(ctx) } else { f }
        })
        .collect();
    // With `-p` or `--output-error`, the files are still written once stdout is closed.
    let keep_going = a.p || a.output_error.is_some();
    let mut stdout_open = true;
    let mut data = input;
    loop {
        let mut live = Vec::with_capacity(outs.len());
        for mut f in outs {
            if f.write(ctx, &mut o, data.clone()) {
                live.push(f);
            } else if ctx.expired() {
                return Ok(o);
            }
        }
        outs = live;
        if stdout_open {
            copy_out(&mut o, &data, &streams);
            if !ctx.flush(&mut o) {
                if !keep_going {
                    return Ok(o);
                }
                stdout_open = false;
            }
        }
        if !more {
            return Ok(o);
        }
        (data, more) = read_chunk(ctx, chunk);
        if data.is_empty() {
            return Ok(o);
        }
    }
}

/// Up to `max` bytes of stdin, and whether there may be more.
fn read_chunk(ctx: &Ctx, max: usize) -> (Vec<u8>, bool) {
    let mut data = Vec::new();
    let mut r = ctx.stdin;
    // A read error ends the input where it happened, as a short read would.
    let _ = (&mut r).take(max as u64).read_to_end(&mut data);
    let more = data.len() == max;
    (data, more)
}

/// A chunk to stdout, then to `/dev/stdout` and `/dev/stderr` operands in their order.
fn copy_out(o: &mut Outcome, data: &[u8], streams: &[bool]) {
    o.out(data);
    for &to_stderr in streams {
        if to_stderr {
            o.err(data);
        } else {
            o.out(data);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::testing::world::{World, ops, text};
    use crate::{Op, Step};

    #[test]
    fn writes_each_file_then_stdout() {
        let w = World::empty().stdin(b"hi\n");
        let o = w.run(crate::CommandName::Tee, &["-a", "x", "d/y"]);
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
        let w = World::empty();
        assert_eq!(
            text(&w.run(crate::CommandName::Tee, &["--output-error=x"])).1,
            "tee: invalid argument 'x' for '--output-error'\nValid arguments are:\n  - 'warn'\n  - 'warn-nopipe'\n  - 'exit'\n  - 'exit-nopipe'\nTry 'tee --help' for more information.\n"
        );
        assert_eq!(
            text(&w.run(crate::CommandName::Tee, &["-x"])).1,
            "tee: invalid option -- 'x'\nTry 'tee --help' for more information.\n"
        );
    }
}
