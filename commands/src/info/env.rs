//! `env`, GNU coreutils: prints the environment, or runs a command with a changed one
//! (`-i`, `-u NAME`, `NAME=VALUE`, `-C DIR`) through the emulated shell ([`Ctx::run`]): the
//! command is a program (a handler, `bash`/`sh`, a script by path), never a function or a
//! builtin without a program (`env cd` is `No such file or directory`, as `execvp` says).

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use crate::Stop;
use crate::support::environ::{environment, listing};
use crate::support::quote::quote;
use crate::{Ctx, EnvChange, Outcome, RunRequest, RunWhat};

const HELP: &str = "Usage: env [OPTION]... [-] [NAME=VALUE]... [COMMAND [ARG]...]
Set each NAME to VALUE in the environment and run COMMAND.

Mandatory arguments to long options are mandatory for short options too.
  -i, --ignore-environment  start with an empty environment
  -0, --null           end each output line with NUL, not newline
  -u, --unset=NAME     remove variable from the environment
  -C, --chdir=DIR      change working directory to DIR
  -S, --split-string=S  process and split S into separate arguments;
                        used to pass multiple arguments on shebang lines
      --block-signal[=SIG]    block delivery of SIG signal(s) to COMMAND
      --default-signal[=SIG]  reset handling of SIG signal(s) to the default
      --ignore-signal[=SIG]   set handling of SIG signal(s) to do nothing
      --list-signal-handling  list non default signal handling to stderr
  -v, --debug          print verbose information for each processing step
      --help        display this help and exit
      --version     output version information and exit

A mere - implies -i.  If no COMMAND, print the resulting environment.

SIG may be a signal name like 'PIPE', or a signal number like '13'.
Without SIG, all known signals are included.  Multiple signals can be
comma-separated.

GNU coreutils online help: <https://www.gnu.org/software/coreutils/>
Report any translation bugs to <https://translationproject.org/team/>
Full documentation <https://www.gnu.org/software/coreutils/env>
or available locally via: info '(coreutils) env invocation'
";

/// A usage error: the message, the `Try` line, status 125.
fn usage(msg: &str) -> Stop {
    Stop::UsageWith(msg.into(), 125)
}

/// What the options asked for.
#[derive(Default)]
struct Plan {
    change: EnvChange,
    null: bool,
    chdir: Option<OsString>,
    /// `-S`: words split from a string, before the rest of the operands.
    split: Vec<OsString>,
}

/// `-S STRING`: split at blanks, with single and double quotes and backslash escapes
/// (the common subset of GNU's rules).
fn split_string(s: &[u8]) -> Vec<OsString> {
    let mut words = Vec::new();
    let mut cur = Vec::new();
    let mut in_word = false;
    let mut quote = None;
    let mut it = s.iter().copied().peekable();
    while let Some(c) = it.next() {
        match (quote, c) {
            (None, b' ' | b'\t' | b'\n') => {
                if in_word {
                    words.push(std::ffi::OsStr::from_bytes(&cur).to_os_string());
                    cur.clear();
                    in_word = false;
                }
            }
            (None, b'\'' | b'"') => {
                quote = Some(c);
                in_word = true;
            }
            (Some(q), _) if c == q => quote = None,
            (Some(b'\''), _) => cur.push(c),
            (_, b'\\') => {
                in_word = true;
                match it.next() {
                    Some(b'n') => cur.push(b'\n'),
                    Some(b't') => cur.push(b'\t'),
                    Some(b'_') if quote.is_none() => {
                        words.push(std::ffi::OsStr::from_bytes(&cur).to_os_string());
                        cur.clear();
                        in_word = false;
                    }
                    Some(b'_') => cur.push(b' '),
                    Some(other) => cur.push(other),
                    None => {}
                }
            }
            _ => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(std::ffi::OsStr::from_bytes(&cur).to_os_string());
    }
    words
}

/// Parses the options (getopt's `+` mode: they stop at the first operand); returns the plan
/// and the index of the first operand.
#[allow(clippy::many_single_char_names)] // getopt's loop: the plan, the index, the argument
fn options(args: &[OsString]) -> Result<(Plan, usize), Stop> {
    let mut p = Plan::default();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let b = a.as_bytes();
        if b == b"-" {
            p.change.clear = true;
            i += 1;
            break;
        }
        if b == b"--" {
            i += 1;
            break;
        }
        if !b.starts_with(b"-") || b.len() < 2 {
            break;
        }
        i += 1;
        if let Some(long) = b.strip_prefix(b"--") {
            let (name, value) = match long.iter().position(|&c| c == b'=') {
                Some(k) => (long.get(..k).unwrap_or_default(), long.get(k + 1..)),
                None => (long, None),
            };
            let name = String::from_utf8_lossy(name).into_owned();
            let full = [
                "ignore-environment",
                "null",
                "unset",
                "chdir",
                "split-string",
                "debug",
                "help",
                "version",
                "block-signal",
                "default-signal",
                "ignore-signal",
                "list-signal-handling",
            ];
            let matches: Vec<&str> = full
                .iter()
                .copied()
                .filter(|f| f.starts_with(&name))
                .collect();
            let Some(&opt) = matches.iter().find(|f| **f == name).or(matches.first()) else {
                return Err(usage(&format!("unrecognized option '--{name}'")));
            };
            if matches.len() > 1 && !matches.contains(&name.as_str()) {
                return Err(usage(&format!("option '--{name}' is ambiguous")));
            }
            let value = |p_i: &mut usize| -> Result<Vec<u8>, Stop> {
                if let Some(v) = value {
                    return Ok(v.to_vec());
                }
                let v = args
                    .get(*p_i)
                    .ok_or_else(|| usage(&format!("option '--{opt}' requires an argument")))?;
                *p_i += 1;
                Ok(v.as_bytes().to_vec())
            };
            match opt {
                "ignore-environment" => p.change.clear = true,
                "null" => p.null = true,
                "unset" => p
                    .change
                    .unset
                    .push(String::from_utf8_lossy(&value(&mut i)?).into_owned()),
                "chdir" => {
                    p.chdir = Some(std::ffi::OsStr::from_bytes(&value(&mut i)?).to_os_string());
                }
                "split-string" => p.split.extend(split_string(&value(&mut i)?)),
                "help" => {
                    let mut o = Outcome::ok();
                    o.out(HELP);
                    return Err(Stop::Done(o));
                }
                "version" => return Err(Stop::Version),
                _ => {}
            }
            continue;
        }
        let mut k = 1;
        while let Some(&c) = b.get(k) {
            k += 1;
            let rest = b.get(k..).unwrap_or_default();
            let arg = |i: &mut usize| -> Result<Vec<u8>, Stop> {
                if !rest.is_empty() {
                    return Ok(rest.to_vec());
                }
                let v = args.get(*i).ok_or_else(|| {
                    usage(&format!(
                        "option requires an argument -- '{}'",
                        char::from(c)
                    ))
                })?;
                *i += 1;
                Ok(v.as_bytes().to_vec())
            };
            match c {
                b'i' => p.change.clear = true,
                b'0' => p.null = true,
                b'v' => {}
                b'u' => {
                    p.change
                        .unset
                        .push(String::from_utf8_lossy(&arg(&mut i)?).into_owned());
                    break;
                }
                b'C' => {
                    p.chdir = Some(std::ffi::OsStr::from_bytes(&arg(&mut i)?).to_os_string());
                    break;
                }
                b'S' => {
                    p.split.extend(split_string(&arg(&mut i)?));
                    break;
                }
                _ => {
                    return Err(usage(&format!("invalid option -- '{}'", char::from(c))));
                }
            }
        }
    }
    Ok((p, i))
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let (mut plan, first) = options(args)?;
    let mut rest: Vec<OsString> = std::mem::take(&mut plan.split);
    rest.extend(args.get(first..).unwrap_or_default().iter().cloned());
    for name in &plan.change.unset {
        if name.is_empty() || name.contains('=') {
            return Err(Stop::FailWith(
                format!("cannot unset {}: Invalid argument", quote(name)),
                125,
            ));
        }
    }
    // NAME=VALUE operands, up to the command.
    let mut k = 0;
    while let Some(a) = rest.get(k) {
        let b = a.as_bytes();
        let Some(eq) = b.iter().position(|&c| c == b'=') else {
            break;
        };
        let name = String::from_utf8_lossy(b.get(..eq).unwrap_or_default()).into_owned();
        let value = String::from_utf8_lossy(b.get(eq + 1..).unwrap_or_default()).into_owned();
        plan.change.set.push((name, value));
        k += 1;
    }
    let command = rest.get(k..).unwrap_or_default();
    let mut o = Outcome::ok();
    if command.is_empty() {
        if plan.chdir.is_some() {
            return Err(usage("must specify command with --chdir (-C)"));
        }
        // The resulting environment: the session's exported variables, changed.
        let mut env: Vec<(String, String)> = if plan.change.clear {
            Vec::new()
        } else {
            environment(ctx.vars)
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        };
        env.retain(|(n, _)| !plan.change.unset.contains(n));
        for (n, v) in &plan.change.set {
            if let Some(slot) = env.iter_mut().find(|(k, _)| k == n) {
                slot.1.clone_from(v);
            } else {
                env.push((n.clone(), v.clone()));
            }
        }
        let end = if plan.null { 0 } else { b'\n' };
        o.out(listing(
            env.iter().map(|(n, v)| (n.as_str(), v.as_str())),
            end,
        ));
        return Ok(o);
    }
    let cwd: Option<PathBuf> = match &plan.chdir {
        Some(dir) => {
            let path = ctx.resolve(dir);
            match ctx.fs.stat(&path, true) {
                Ok(m) if m.kind == crate::FileKind::Dir => Some(crate::normalize_lexical(&path)),
                Ok(_) => {
                    return Err(Stop::FailWith(
                        format!("cannot change directory to {}: Not a directory", quote(dir)),
                        125,
                    ));
                }
                Err(e) => {
                    return Err(Stop::FailWith(
                        format!(
                            "cannot change directory to {}: {}",
                            quote(dir),
                            e.strerror()
                        ),
                        125,
                    ));
                }
            }
        }
        None => None,
    };
    let req = RunRequest {
        what: RunWhat::Argv(command),
        stdin: None,
        inherit_stdin: true,
        capture: false,
        cwd: cwd.as_deref(),
        env: Some(&plan.change),
    };
    let Some(result) = ctx.run(&mut o, req) else {
        return Ok(o.with_status(127));
    };
    if result.not_found {
        let name = command.first().map(quote).unwrap_or_default();
        o.err(format!("env: {name}: No such file or directory\n"));
        return Ok(o.with_status(127));
    }
    Ok(o.with_status(result.status))
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Env;
    use crate::testing::world::{World, text};

    fn w() -> World {
        World::empty()
            .var("HOME", "/home/user", true)
            .var("LOCAL", "x", false)
    }

    #[test]
    fn prints_the_changed_environment() {
        assert_eq!(text(&w().run(Env, &[])).0, "HOME=/home/user\n");
        assert_eq!(text(&w().run(Env, &["-i", "A=1"])).0, "A=1\n");
        assert_eq!(text(&w().run(Env, &["-u", "HOME", "B=2"])).0, "B=2\n");
        assert_eq!(text(&w().run(Env, &["-", "C=3"])).0, "C=3\n");
        assert_eq!(text(&w().run(Env, &["-0", "-i", "A=1"])).0, "A=1\0");
    }

    #[test]
    fn errors_as_gnu() {
        // GNU coreutils 9.1 `env`, LC_ALL=C.
        assert_eq!(
            text(&w().run(Env, &["-x"])),
            (
                String::new(),
                "env: invalid option -- 'x'\nTry 'env --help' for more information.\n".into(),
                125
            )
        );
        assert_eq!(
            text(&w().run(Env, &["-u"])).1,
            "env: option requires an argument -- 'u'\nTry 'env --help' for more information.\n"
        );
        assert_eq!(
            text(&w().run(Env, &["-C", "/s"])).1,
            "env: must specify command with --chdir (-C)\nTry 'env --help' for more information.\n"
        );
        assert_eq!(
            text(&w().run(Env, &["-u", "a=b", "true"])),
            (
                String::new(),
                "env: cannot unset 'a=b': Invalid argument\n".into(),
                125
            )
        );
        assert_eq!(
            text(&w().run(Env, &["-C", "/nonexist", "true"])),
            (
                String::new(),
                "env: cannot change directory to '/nonexist': No such file or directory\n".into(),
                125
            )
        );
    }
}
