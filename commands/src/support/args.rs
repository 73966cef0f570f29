//! Argument parsing with GNU's and bash's diagnostics, on top of clap.
//!
//! Each command declares its options as a clap derive struct (the doc comments are its help),
//! but clap's own messages, exits and option syntax are not GNU's. So the raw arguments first
//! go through a small getopt written here, which knows every option from the clap
//! [`clap::Command`] and produces GNU's exact errors (`invalid option -- 'z'`,
//! `unrecognized option '--zz'`, `option '--a' is ambiguous; ...`, `option requires an
//! argument -- 'm'`), expands long-option prefixes (`--verb` → `--verbose`) and handles
//! `--help`/`--version`. Only a normalised, already valid argument list reaches clap, so clap
//! never prints, never exits, and its error text only shows for value checks.
//!
//! Bash builtins parse like bash's `internal_getopt`: options only before the first operand,
//! no long options, errors as `cd: -x: invalid option` plus a `cd: usage: ...` line, status 2.

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use crate::Outcome;
use crate::support::error::Stop;

/// One option as getopt sees it.
struct OptSpec {
    /// clap's id, to build the normalised argument.
    long: Option<String>,
    shorts: Vec<char>,
    longs: Vec<String>,
    /// Takes a value (`-m MODE`).
    takes_value: bool,
    /// The value is optional and only given with `=` (`--color[=WHEN]`).
    optional_value: bool,
}

fn specs(cmd: &clap::Command) -> Vec<OptSpec> {
    cmd.get_arguments()
        .filter(|a| !a.is_positional())
        .map(|a| {
            let takes_value = a.get_action().takes_values();
            let optional_value =
                takes_value && a.get_num_args().is_some_and(|r| r.min_values() == 0);
            let mut shorts: Vec<char> = a.get_short().into_iter().collect();
            shorts.extend(a.get_all_short_aliases().unwrap_or_default());
            let mut longs: Vec<String> = a.get_long().map(str::to_string).into_iter().collect();
            longs.extend(
                a.get_all_aliases()
                    .unwrap_or_default()
                    .into_iter()
                    .map(str::to_string),
            );
            OptSpec {
                long: a.get_long().map(str::to_string),
                shorts,
                longs,
                takes_value,
                optional_value,
            }
        })
        .collect()
}

fn flag_arg(spec: &OptSpec, short: char) -> OsString {
    match &spec.long {
        Some(l) => OsString::from(format!("--{l}")),
        None => OsString::from(format!("-{short}")),
    }
}

fn value_arg(spec: &OptSpec, short: char, value: &OsStr) -> OsString {
    let mut s = match &spec.long {
        Some(l) => OsString::from(format!("--{l}=")),
        // clap strips one `=` after a short option (`-t=x` is `x`): an empty value, or one
        // that starts with `=`, gets its own.
        None if value.is_empty() || value.as_bytes().first() == Some(&b'=') => {
            OsString::from(format!("-{short}="))
        }
        None => OsString::from(format!("-{short}")),
    };
    s.push(value);
    s
}

enum Gnu {
    Args(Vec<OsString>),
    Help,
    Version,
    Error(String),
}

/// GNU `getopt_long` with permutation: options anywhere before `--`.
fn gnu_getopt(specs: &[OptSpec], args: &[OsString]) -> Gnu {
    let mut opts = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_bytes();
        i += 1;
        if arg == b"--" {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(body) = arg.strip_prefix(b"--") {
            let (name, value) = match body.iter().position(|&b| b == b'=') {
                Some(p) => (&body[..p], Some(&body[p + 1..])),
                None => (body, None),
            };
            let name = String::from_utf8_lossy(name).into_owned();
            // Exact matches win; otherwise a prefix must name exactly one option.
            let builtin_longs = ["help", "version"];
            let mut hits: Vec<(Option<&OptSpec>, &str)> = Vec::new();
            for s in specs {
                for l in &s.longs {
                    if l.starts_with(&name) {
                        hits.push((Some(s), l));
                    }
                }
            }
            for l in builtin_longs {
                if l.starts_with(&name) {
                    hits.push((None, l));
                }
            }
            if let Some(exact) = hits.iter().find(|h| h.1 == name) {
                hits = vec![*exact];
            }
            let same_option = hits.windows(2).all(|w| match (w[0].0, w[1].0) {
                (Some(a), Some(b)) => std::ptr::eq(a, b),
                _ => false,
            });
            if hits.is_empty() {
                return Gnu::Error(format!(
                    "unrecognized option '{}'",
                    String::from_utf8_lossy(arg)
                ));
            }
            if !same_option {
                let list: Vec<String> = hits.iter().map(|h| format!("'--{}'", h.1)).collect();
                return Gnu::Error(format!(
                    "option '--{name}' is ambiguous; possibilities: {}",
                    list.join(" ")
                ));
            }
            let (spec, full) = hits[0];
            let Some(spec) = spec else {
                if value.is_some() {
                    return Gnu::Error(format!("option '--{full}' doesn't allow an argument"));
                }
                return if full == "help" {
                    Gnu::Help
                } else {
                    Gnu::Version
                };
            };
            let short = spec.shorts.first().copied().unwrap_or('?');
            match (spec.takes_value, value) {
                (false, Some(_)) => {
                    return Gnu::Error(format!("option '--{full}' doesn't allow an argument"));
                }
                (false, None) => opts.push(flag_arg(spec, short)),
                (true, Some(v)) => opts.push(value_arg(spec, short, OsStr::from_bytes(v))),
                (true, None) if spec.optional_value => opts.push(flag_arg(spec, short)),
                (true, None) => {
                    let Some(v) = args.get(i) else {
                        return Gnu::Error(format!("option '--{full}' requires an argument"));
                    };
                    i += 1;
                    opts.push(value_arg(spec, short, v));
                }
            }
            continue;
        }
        if arg.len() > 1 && arg[0] == b'-' {
            let text = String::from_utf8_lossy(&arg[1..]).into_owned();
            for (pos, c) in text.char_indices() {
                let Some(spec) = specs.iter().find(|s| s.shorts.contains(&c)) else {
                    return Gnu::Error(format!("invalid option -- '{c}'"));
                };
                if !spec.takes_value {
                    opts.push(flag_arg(spec, c));
                    continue;
                }
                let rest = &text[pos + c.len_utf8()..];
                if !rest.is_empty() {
                    opts.push(value_arg(spec, c, OsStr::new(rest)));
                } else if spec.optional_value {
                    opts.push(flag_arg(spec, c));
                } else if let Some(v) = args.get(i) {
                    i += 1;
                    opts.push(value_arg(spec, c, v));
                } else {
                    return Gnu::Error(format!("option requires an argument -- '{c}'"));
                }
                break;
            }
            continue;
        }
        operands.push(OsString::from_vec(arg.to_vec()));
    }
    opts.push(OsString::from("--"));
    opts.extend(operands);
    Gnu::Args(opts)
}

fn prepare<T: clap::CommandFactory>() -> clap::Command {
    let mut cmd = T::command()
        .disable_help_flag(true)
        .disable_version_flag(true)
        .args_override_self(true);
    cmd.build();
    cmd
}

/// Turns clap's matches into the struct; clap errors here are value errors, shown GNU-style.
fn finish<T: clap::Parser>(cmd: clap::Command, argv: Vec<OsString>) -> Result<T, Stop> {
    let matches = cmd
        .try_get_matches_from(argv)
        .map_err(|e| Stop::Usage(clap_message(&e)))?;
    T::from_arg_matches(&matches).map_err(|e| Stop::Usage(clap_message(&e)))
}

/// clap's message without its `error: ` prefix, usage and tips: one line.
fn clap_message(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or("invalid arguments");
    first
        .strip_prefix("error: ")
        .unwrap_or(first)
        .trim_end()
        .to_string()
}

/// The arguments with a `--` where `+` getopt stops (at `end`), so that the permuting
/// parser sees everything after it as operands: a `+`-mode getopt (`POSIXLY_CORRECT`-style)
/// for the utilities whose operands may start with `-` (`basename`, `tr`).
pub fn options_first(args: &[OsString], end: usize) -> Vec<OsString> {
    let rest = args.get(end..).unwrap_or_default();
    let rest = rest
        .strip_prefix(&[OsString::from("--")][..])
        .unwrap_or(rest);
    let mut out: Vec<OsString> = args.get(..end).unwrap_or_default().to_vec();
    out.push(OsString::from("--"));
    out.extend(rest.iter().cloned());
    out
}

/// Parses a GNU utility's `args`; an error is a [`Stop::Usage`] with GNU's diagnostic
/// (the command's name, Try line and status are added by [`Stop::render`]). `--help` is a
/// [`Stop::Done`] with the help on stdout, `--version` a [`Stop::Version`].
pub fn parse_args<T: clap::Parser>(args: &[OsString]) -> Result<T, Stop> {
    let cmd = prepare::<T>();
    match gnu_getopt(&specs(&cmd), args) {
        Gnu::Error(msg) => Err(Stop::Usage(msg)),
        Gnu::Help => {
            let mut o = Outcome::ok();
            o.out(gnu_help(&cmd));
            Err(Stop::Done(o))
        }
        Gnu::Version => Err(Stop::Version),
        Gnu::Args(norm) => {
            // clap wants a program name first; it never shows it.
            let full: Vec<OsString> = std::iter::once(OsString::new()).chain(norm).collect();
            finish(cmd, full)
        }
    }
}

/// Parses a bash builtin's `args` as bash's `internal_getopt` does: option letters only
/// before the first operand or `--`; `--help` is [`Stop::Help`] (the builtin's help topic).
/// Errors are [`Stop::Usage`], which [`Stop::render`] shows as `name: -x: invalid option`
/// plus the `name: usage: ...` line, status 2.
pub fn parse_builtin<T: clap::Parser>(args: &[OsString]) -> Result<T, Stop> {
    let cmd = prepare::<T>();
    let specs = specs(&cmd);
    let mut opts = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_bytes();
        if arg == b"--" {
            i += 1;
            break;
        }
        if arg == b"--help" {
            return Err(Stop::Help);
        }
        if arg.len() < 2 || arg[0] != b'-' {
            break;
        }
        i += 1;
        let text = String::from_utf8_lossy(&arg[1..]).into_owned();
        for (pos, c) in text.char_indices() {
            let Some(spec) = specs.iter().find(|s| s.shorts.contains(&c)) else {
                return Err(Stop::Usage(format!("-{c}: invalid option")));
            };
            if !spec.takes_value {
                opts.push(flag_arg(spec, c));
                continue;
            }
            let rest = &text[pos + c.len_utf8()..];
            if !rest.is_empty() {
                opts.push(value_arg(spec, c, OsStr::new(rest)));
            } else if let Some(v) = args.get(i) {
                i += 1;
                opts.push(value_arg(spec, c, v));
            } else {
                return Err(Stop::Usage(format!("-{c}: option requires an argument")));
            }
            break;
        }
    }
    let full: Vec<OsString> = std::iter::once(OsString::new())
        .chain(opts)
        .chain(std::iter::once(OsString::from("--")))
        .chain(args[i..].iter().cloned())
        .collect();
    finish(cmd, full)
}

/// The command's one-line summary, with the full stop clap's derive drops.
fn about(cmd: &clap::Command) -> Option<String> {
    let a = cmd.get_about()?.to_string();
    Some(if a.ends_with('.') { a } else { a + "." })
}

/// The option column of a help line: `-a, --all`, `    --help`, `-m, --mode=MODE`.
fn option_label(a: &clap::Arg) -> String {
    let value = if a.get_action().takes_values() {
        a.get_value_names()
            .and_then(|v| v.first())
            .map_or_else(|| "VALUE".into(), std::string::ToString::to_string)
    } else {
        String::new()
    };
    let short = a.get_short().map(|c| format!("-{c}"));
    let long = a.get_long().map(|l| format!("--{l}"));
    match (short, long) {
        (Some(s), Some(l)) if value.is_empty() => format!("{s}, {l}"),
        (Some(s), Some(l)) => format!("{s}, {l}={value}"),
        (Some(s), None) if value.is_empty() => s,
        (Some(s), None) => format!("{s} {value}"),
        (None, Some(l)) if value.is_empty() => format!("    {l}"),
        (None, Some(l)) => format!("    {l}={value}"),
        (None, None) => String::new(),
    }
}

/// The `--help` text of a utility's argument struct.
pub fn help_of<T: clap::CommandFactory>() -> String {
    gnu_help(&prepare::<T>())
}

/// A GNU-shaped `--help` written from the clap definition (never GNU's own text).
pub fn gnu_help(cmd: &clap::Command) -> String {
    // `override_usage` holds the whole line after `Usage: `, name included.
    let rendered = cmd.clone().render_usage().to_string();
    let usage = rendered
        .trim()
        .strip_prefix("Usage: ")
        .unwrap_or(rendered.trim())
        .to_string();
    let mut s = format!("Usage: {usage}\n");
    if let Some(about) = about(cmd) {
        let _ = writeln!(s, "{about}");
    }
    s.push('\n');
    let mut rows: Vec<(String, String)> = cmd
        .get_arguments()
        .filter(|a| !a.is_positional() && !a.is_hide_set())
        .map(|a| {
            (
                option_label(a),
                a.get_help().map(ToString::to_string).unwrap_or_default(),
            )
        })
        .collect();
    rows.push(("    --help".into(), "display this help and exit".into()));
    rows.push((
        "    --version".into(),
        "output version information and exit".into(),
    ));
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    for (label, help) in rows {
        let _ = writeln!(s, "  {label:<width$}  {help}");
    }
    s
}

/// A bash-shaped builtin help (`help cd`, `cd --help`) written from the clap definition.
pub fn builtin_help(cmd: &clap::Command, name: &str, usage: &str) -> String {
    let mut s = format!("{name}: {usage}\n");
    if let Some(about) = about(cmd) {
        let _ = writeln!(s, "    {about}");
    }
    if let Some(long) = cmd.get_long_about() {
        // clap's long about repeats the short one as its first paragraph.
        let long = long.to_string();
        let short = about(cmd).unwrap_or_default();
        let rest = long
            .strip_prefix(short.as_str())
            .unwrap_or(&long)
            .trim_start();
        s.push_str("    \n");
        for line in rest.lines() {
            let _ = writeln!(s, "    {line}");
        }
    }
    let rows: Vec<(String, String)> = cmd
        .get_arguments()
        .filter(|a| !a.is_positional() && !a.is_hide_set())
        .map(|a| {
            (
                option_label(a),
                a.get_help().map(ToString::to_string).unwrap_or_default(),
            )
        })
        .collect();
    if !rows.is_empty() {
        s.push_str("    \n    Options:\n");
        for (label, help) in rows {
            let _ = writeln!(s, "      {label}\t{help}");
        }
    }
    s
}

/// bash's `internal_getopt`, one option at a time, for the builtins that check each option's
/// value as they meet it (`read -t x -z` reports the timeout, not the unknown `-z`): options
/// only before the first operand, `--` ends them, `--help` is [`Stop::Help`], `-l2` and
/// `-l 2` both give `2`. `spec` is getopt's string (`"ra:d:"`: a `:` after a letter that
/// takes a value). Errors are [`Stop::Usage`] (`-x: invalid option`, `-x: option requires an
/// argument`).
pub struct BuiltinGetopt<'a> {
    args: &'a [OsString],
    spec: &'static str,
    /// The word being read.
    word: usize,
    /// The offset in that word of the next option letter (0: at a new word).
    at: usize,
    done: bool,
}

impl<'a> BuiltinGetopt<'a> {
    pub fn new(args: &'a [OsString], spec: &'static str) -> Self {
        BuiltinGetopt {
            args,
            spec,
            word: 0,
            at: 0,
            done: false,
        }
    }

    /// The operands: what follows the options (and a `--`). Meaningful once the iterator
    /// has given `None`.
    pub fn operands(&self) -> &'a [OsString] {
        self.args.get(self.word..).unwrap_or_default()
    }

    /// Whether option letter `c` takes a value, or `None` when it is not an option.
    fn takes_value(&self, c: u8) -> Option<bool> {
        let spec = self.spec.as_bytes();
        let i = spec.iter().position(|&s| s == c && c != b':')?;
        Some(spec.get(i + 1) == Some(&b':'))
    }
}

impl<'a> Iterator for BuiltinGetopt<'a> {
    type Item = Result<(u8, Option<&'a OsStr>), Stop>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let word = self.args.get(self.word)?.as_bytes();
        if self.at == 0 {
            if word.len() < 2 || word.first() != Some(&b'-') {
                self.done = true;
                return None;
            }
            if word == b"--help" {
                self.done = true;
                return Some(Err(Stop::Help));
            }
            if word == b"--" {
                self.word += 1;
                self.done = true;
                return None;
            }
            self.at = 1;
        }
        let c = word.get(self.at).copied().unwrap_or(0);
        let letter = String::from_utf8_lossy(&[c]).into_owned();
        self.at += 1;
        let at_end = self.at >= word.len();
        let Some(takes_value) = self.takes_value(c) else {
            if at_end {
                self.word += 1;
                self.at = 0;
            }
            self.done = true;
            return Some(Err(Stop::Usage(format!("-{letter}: invalid option"))));
        };
        if !takes_value {
            if at_end {
                self.word += 1;
                self.at = 0;
            }
            return Some(Ok((c, None)));
        }
        let glued = word.get(self.at..).unwrap_or_default();
        self.at = 0;
        if !at_end {
            let value = OsStr::from_bytes(glued);
            self.word += 1;
            return Some(Ok((c, Some(value))));
        }
        if let Some(v) = self.args.get(self.word + 1) {
            self.word += 2;
            return Some(Ok((c, Some(v.as_os_str()))));
        }
        self.done = true;
        Some(Err(Stop::Usage(format!(
            "-{letter}: option requires an argument"
        ))))
    }
}

/// The help of a builtin struct, for `help NAME`.
pub fn builtin_help_of<T: clap::CommandFactory>(name: &str, usage: &str) -> String {
    builtin_help(&prepare::<T>(), name, usage)
}

/// One long option `--NAME[=VALUE]` (`body` is what follows `--`) looked up in `table` of
/// `(name, value, takes_argument)` rows as `getopt_long` does: an exact name wins, else the
/// prefix must name one row. Its argument is the `=VALUE` or, when the row takes one, the next
/// word (`next`). Errors are getopt's messages, without the program's name.
pub fn long_option<T: Copy>(
    table: &[(&'static str, T, bool)],
    body: &[u8],
    next: impl FnOnce() -> Option<OsString>,
) -> Result<(T, Option<OsString>), String> {
    let (name, value) = match body.iter().position(|&c| c == b'=') {
        Some(i) => (
            body.get(..i).unwrap_or_default(),
            Some(OsStr::from_bytes(body.get(i + 1..).unwrap_or_default()).to_os_string()),
        ),
        None => (body, None),
    };
    let exact = table.iter().find(|(l, ..)| l.as_bytes() == name);
    let hits: Vec<_> = table
        .iter()
        .filter(|(l, ..)| l.as_bytes().starts_with(name))
        .collect();
    let &(full, v, takes) = match (exact, hits.as_slice()) {
        (Some(e), _) => e,
        (None, [e]) => *e,
        (None, []) => {
            return Err(format!(
                "unrecognized option '--{}'",
                String::from_utf8_lossy(body)
            ));
        }
        (None, many) => {
            let list: Vec<String> = many.iter().map(|(l, ..)| format!("'--{l}'")).collect();
            return Err(format!(
                "option '--{}' is ambiguous; possibilities: {}",
                String::from_utf8_lossy(name),
                list.join(" ")
            ));
        }
    };
    match (takes, value) {
        (false, Some(_)) => Err(format!("option '--{full}' doesn't allow an argument")),
        (true, None) => next()
            .map(|a| (v, Some(a)))
            .ok_or_else(|| format!("option '--{full}' requires an argument")),
        (_, value) => Ok((v, value)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Make directories.
    #[derive(clap::Parser, Debug)]
    #[command(override_usage = "mkdir [OPTION]... DIRECTORY...")]
    struct Demo {
        /// make parents
        #[arg(short, long)]
        parents: bool,
        /// print a message
        #[arg(short, long)]
        verbose: bool,
        /// set mode
        #[arg(short, long, value_name = "MODE")]
        mode: Option<String>,
        #[arg(long)]
        version_sort: bool,
        operands: Vec<OsString>,
    }

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    /// What the command table does with a stop: parse as command `name` with this status.
    fn parse_args<T: clap::Parser>(
        name: &str,
        args: &[OsString],
        status: i32,
    ) -> Result<T, Outcome> {
        super::parse_args(args).map_err(|s| s.render_program(name, status))
    }

    fn parse_builtin<T: clap::Parser>(
        name: &str,
        args: &[OsString],
        usage: &'static str,
    ) -> Result<T, Outcome> {
        super::parse_builtin(args).map_err(|s| s.render_builtin(name, usage, String::new, 1))
    }

    fn err_of(r: Result<Demo, Outcome>) -> (String, String, i32) {
        let o = r.unwrap_err();
        (
            String::from_utf8(o.stdout()).unwrap(),
            String::from_utf8(o.stderr()).unwrap(),
            o.status,
        )
    }

    #[test]
    fn parses_bundles_prefixes_and_permutes() {
        let d: Demo =
            parse_args("mkdir", &os(&["a", "-pm", "755", "--verb", "--", "-b"]), 1).unwrap();
        assert!(d.parents && d.verbose);
        assert_eq!(d.mode.as_deref(), Some("755"));
        assert_eq!(d.operands, os(&["a", "-b"]));
        let d: Demo = parse_args("mkdir", &os(&["-m-x", "--mode", "-y", "-"]), 1).unwrap();
        assert_eq!(d.mode.as_deref(), Some("-y"));
        assert_eq!(d.operands, os(&["-"]));
    }

    #[test]
    fn gnu_errors() {
        // All verified with GNU coreutils 9.1, LC_ALL=C.
        let (_, e, s) = err_of(parse_args("ls", &os(&["-z"]), 2));
        assert_eq!(
            e,
            "ls: invalid option -- 'z'\nTry 'ls --help' for more information.\n"
        );
        assert_eq!(s, 2);
        let (_, e, _) = err_of(parse_args("ls", &os(&["--zz=3"]), 2));
        assert_eq!(
            e,
            "ls: unrecognized option '--zz=3'\nTry 'ls --help' for more information.\n"
        );
        let (_, e, s) = err_of(parse_args("mkdir", &os(&["-m"]), 1));
        assert_eq!(
            e,
            "mkdir: option requires an argument -- 'm'\nTry 'mkdir --help' for more information.\n"
        );
        assert_eq!(s, 1);
        let (_, e, _) = err_of(parse_args("mkdir", &os(&["--mode"]), 1));
        assert_eq!(
            e,
            "mkdir: option '--mode' requires an argument\nTry 'mkdir --help' for more information.\n"
        );
        let (_, e, _) = err_of(parse_args("mkdir", &os(&["--parents=3"]), 1));
        assert_eq!(
            e,
            "mkdir: option '--parents' doesn't allow an argument\nTry 'mkdir --help' for more information.\n"
        );
        let (_, e, _) = err_of(parse_args("mkdir", &os(&["--ver"]), 1));
        assert_eq!(
            e,
            "mkdir: option '--ver' is ambiguous; possibilities: '--verbose' '--version-sort' '--version'\nTry 'mkdir --help' for more information.\n"
        );
    }

    #[test]
    fn help_and_version_go_to_stdout() {
        let (out, e, s) = err_of(parse_args("mkdir", &os(&["--help", "-z"]), 1));
        assert!(out.starts_with("Usage: mkdir [OPTION]... DIRECTORY...\nMake directories.\n"));
        assert!(out.contains("  -m, --mode=MODE"));
        assert!(e.is_empty());
        assert_eq!(s, 0);
        let (out, _, s) = err_of(parse_args("mkdir", &os(&["--version"]), 1));
        assert!(out.starts_with("mkdir (trumansh "));
        assert_eq!(s, 0);
    }

    /// Change directory.
    #[derive(clap::Parser, Debug)]
    struct Cd {
        #[arg(short = 'L', overrides_with = "physical")]
        logical: bool,
        #[arg(short = 'P', overrides_with = "logical")]
        physical: bool,
        operands: Vec<OsString>,
    }

    #[test]
    fn bash_internal_getopt_one_at_a_time() {
        let args = os(&["-rd,", "-n", "3", "-a", "--", "x", "-y"]);
        let mut g = BuiltinGetopt::new(&args, "ra:d:n:");
        let got: Vec<(u8, Option<String>)> = g
            .by_ref()
            .map(|r| {
                let (c, v) = r.unwrap();
                (c, v.map(|v| v.to_string_lossy().into_owned()))
            })
            .collect();
        assert_eq!(
            got,
            [
                (b'r', None),
                (b'd', Some(",".into())),
                (b'n', Some("3".into())),
                (b'a', Some("--".into()))
            ]
        );
        assert_eq!(g.operands(), os(&["x", "-y"]));
        // `-` alone and the first operand end the options; `--` is dropped.
        let args = os(&["-", "-r"]);
        let mut g = BuiltinGetopt::new(&args, "r");
        assert!(g.next().is_none());
        assert_eq!(g.operands(), os(&["-", "-r"]));
        let args = os(&["--", "-r"]);
        let mut g = BuiltinGetopt::new(&args, "r");
        assert!(g.next().is_none());
        assert_eq!(g.operands(), os(&["-r"]));
        // Errors stop the iteration.
        let args = os(&["-rz", "-r"]);
        let mut g = BuiltinGetopt::new(&args, "r");
        assert!(matches!(g.next(), Some(Ok((b'r', None)))));
        assert!(matches!(g.next(), Some(Err(Stop::Usage(m))) if m == "-z: invalid option"));
        assert!(g.next().is_none());
        let args = os(&["-a"]);
        let mut g = BuiltinGetopt::new(&args, "a:");
        assert!(
            matches!(g.next(), Some(Err(Stop::Usage(m))) if m == "-a: option requires an argument")
        );
        let args = os(&["--help", "-r"]);
        assert!(matches!(
            BuiltinGetopt::new(&args, "r").next(),
            Some(Err(Stop::Help))
        ));
        let args = os(&["-:"]);
        assert!(matches!(
            BuiltinGetopt::new(&args, "a:").next(),
            Some(Err(Stop::Usage(m))) if m == "-:: invalid option"
        ));
    }

    #[test]
    fn builtin_getopt() {
        let c: Cd = parse_builtin("cd", &os(&["-PL", "--", "-x"]), "cd [dir]").unwrap();
        assert!(c.logical && !c.physical);
        assert_eq!(c.operands, os(&["-x"]));
        let c: Cd = parse_builtin("cd", &os(&["-", "-P"]), "cd [dir]").unwrap();
        assert_eq!(c.operands, os(&["-", "-P"]));
        // bash 5.2: `cd --foo` → `cd: --: invalid option`.
        let o = parse_builtin::<Cd>("cd", &os(&["--foo"]), "cd [dir]").unwrap_err();
        assert_eq!(
            o.steps[0],
            crate::Step::ShellErr(b"cd: --: invalid option\n".to_vec())
        );
        assert_eq!(
            o.steps[1],
            crate::Step::Err(b"cd: usage: cd [dir]\n".to_vec())
        );
        assert_eq!(o.status, 2);
    }
}
