//! `xargs [OPTION]... [COMMAND [INITIAL-ARGS]...]`, GNU findutils 4.9 in the C locale.
//!
//! Items are read from stdin (or `-a FILE`) in GNU's default format (blanks and newlines
//! separate; `'...'`, `"..."` and backslashes quote; blank lines are ignored; `-E` ends the
//! input at a logical end-of-file word), or split at a delimiter (`-0`, `-d`). Command lines
//! are built as GNU's `buildcmd` builds them: each argument counts its length plus its NUL
//! against the size limit (`-s`, by default 128 KiB), with `-n`, `-L` and `-I` batching, and
//! GNU's messages when an item cannot fit. Each command line runs through [`Ctx::run`], one
//! after the other (`-P` is accepted; the lines run in sequence), as `execvp` would run it:
//! a missing program is `xargs: NAME: No such file or directory`, status 127. The status is
//! 123 when a command exited 1–254, 124 (and xargs stops) when one exited 255.
//!
//! `-p` prints the command line and then fails as GNU does without a terminal (it reads the
//! answer from `/dev/tty`, which a command here never has): nothing runs. The commands'
//! stdin is empty (`/dev/null`), except with `-a`, where the first command reads what is
//! left of xargs' own stdin.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use crate::support::args::help_of;
use crate::{Ctx, Outcome, RunRequest, RunResult, RunWhat, Stop, quote_if_needed, quote_locale};

/// Build and execute command lines from standard input.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "xargs [OPTION]... COMMAND [INITIAL-ARGS]...")]
pub struct XargsHelp {
    /// items are separated by a null, not whitespace
    #[arg(short = '0', long = "null")]
    null: bool,
    /// read arguments from FILE, not standard input
    #[arg(short = 'a', long = "arg-file", value_name = "FILE")]
    arg_file: Option<String>,
    /// items in input stream are separated by CHARACTER, not by whitespace
    #[arg(short = 'd', long = "delimiter", value_name = "CHARACTER")]
    delimiter: Option<String>,
    /// set logical EOF string; if END occurs as a line of input, the rest is ignored
    #[arg(short = 'E', value_name = "END")]
    eof_posix: Option<String>,
    /// equivalent to -E END if END is specified
    #[arg(short = 'e', long = "eof", value_name = "END")]
    eof: Option<String>,
    /// same as --replace=R
    #[arg(short = 'I', value_name = "R")]
    replace_posix: Option<String>,
    /// replace R in INITIAL-ARGS with names read from standard input
    #[arg(short = 'i', long = "replace", value_name = "R")]
    replace: Option<String>,
    /// use at most MAX-LINES non-blank input lines per command line
    #[arg(short = 'L', long = "max-lines", value_name = "MAX-LINES")]
    max_lines: Option<String>,
    /// use at most MAX-ARGS arguments per command line
    #[arg(short = 'n', long = "max-args", value_name = "MAX-ARGS")]
    max_args: Option<String>,
    /// run at most MAX-PROCS processes at a time
    #[arg(short = 'P', long = "max-procs", value_name = "MAX-PROCS")]
    max_procs: Option<String>,
    /// prompt before running commands
    #[arg(short = 'p', long = "interactive")]
    interactive: bool,
    /// if there are no arguments, then do not run COMMAND
    #[arg(short = 'r', long = "no-run-if-empty")]
    no_run_if_empty: bool,
    /// limit length of command line to MAX-CHARS
    #[arg(short = 's', long = "max-chars", value_name = "MAX-CHARS")]
    max_chars: Option<String>,
    /// show limits on command-line length
    #[arg(long = "show-limits")]
    show_limits: bool,
    /// print commands before executing them
    #[arg(short = 't', long = "verbose")]
    verbose: bool,
    /// exit if the size (see -s) is exceeded
    #[arg(short = 'x', long = "exit")]
    exit: bool,
}

/// `sysconf(_SC_ARG_MAX)` on Linux with the usual 8 MiB stack.
const ARG_MAX: usize = 2_097_152;
/// The headroom POSIX asks xargs to leave for the environment.
const HEADROOM: usize = 2048;
/// GNU's default command buffer.
const DEFAULT_SIZE: usize = 128 * 1024;
/// `_POSIX_ARG_MAX`.
const POSIX_MIN: usize = 4096;
/// GNU's `MAX_PROC_MAX` (`INT_MAX`).
const MAX_PROCS: i64 = 2_147_483_647;

/// How an option takes its value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Has {
    No,
    Required,
    Optional,
}

/// The long options, in GNU's table order (which its ambiguity message follows), with the
/// short letter each stands for (`S`: `--show-limits`, `V`: `--process-slot-var`).
const LONGS: [(&str, Has, char); 18] = [
    ("null", Has::No, '0'),
    ("arg-file", Has::Required, 'a'),
    ("delimiter", Has::Required, 'd'),
    ("eof", Has::Optional, 'e'),
    ("replace", Has::Optional, 'I'),
    ("max-lines", Has::Optional, 'l'),
    ("max-args", Has::Required, 'n'),
    ("open-tty", Has::No, 'o'),
    ("interactive", Has::No, 'p'),
    ("no-run-if-empty", Has::No, 'r'),
    ("max-chars", Has::Required, 's'),
    ("verbose", Has::No, 't'),
    ("show-limits", Has::No, 'S'),
    ("exit", Has::No, 'x'),
    ("max-procs", Has::Required, 'P'),
    ("process-slot-var", Has::Required, 'V'),
    ("version", Has::No, 'v'),
    ("help", Has::No, 'h'),
];

/// GNU's short options: `+0a:E:e::i::I:l::L:n:oprs:txP:d:`.
fn short_has(c: char) -> Option<Has> {
    match c {
        '0' | 'o' | 'p' | 'r' | 't' | 'x' => Some(Has::No),
        'a' | 'E' | 'I' | 'L' | 'n' | 's' | 'P' | 'd' => Some(Has::Required),
        'e' | 'i' | 'l' => Some(Has::Optional),
        _ => None,
    }
}

/// One parsed option: its letter and value.
type Opt = (char, Option<Vec<u8>>);

/// GNU getopt in `+` mode (options end at the first operand): the options in order and
/// the index of the first operand.
#[allow(clippy::many_single_char_names)]
fn getopt(args: &[OsString]) -> Result<(Vec<Opt>, usize), Stop> {
    let mut opts = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let a = arg.as_bytes();
        if a == b"--" {
            return Ok((opts, i + 1));
        }
        if a.len() < 2 || a.first() != Some(&b'-') {
            break;
        }
        i += 1;
        if let Some(long) = a.strip_prefix(b"--") {
            let (name, value) = match memchr::memchr(b'=', long) {
                Some(k) => (
                    long.get(..k).unwrap_or_default(),
                    Some(long.get(k + 1..).unwrap_or_default().to_vec()),
                ),
                None => (long, None),
            };
            let shown = String::from_utf8_lossy(long);
            let exact = LONGS.iter().find(|(n, ..)| n.as_bytes() == name);
            let found: Vec<_> = match exact {
                Some(e) => vec![e],
                None => LONGS
                    .iter()
                    .filter(|(n, ..)| n.as_bytes().starts_with(name))
                    .collect(),
            };
            let (full, has, c) = match found.as_slice() {
                [] => return Err(Stop::Usage(format!("unrecognized option '--{shown}'"))),
                [one] => **one,
                many => {
                    let list: Vec<String> =
                        many.iter().map(|(n, ..)| format!(" '--{n}'")).collect();
                    return Err(Stop::Usage(format!(
                        "option '--{shown}' is ambiguous; possibilities:{}",
                        list.concat()
                    )));
                }
            };
            let value = match (has, value) {
                (Has::No, Some(_)) => {
                    return Err(Stop::Usage(format!(
                        "option '--{full}' doesn't allow an argument"
                    )));
                }
                (Has::Required, None) => {
                    let Some(v) = args.get(i) else {
                        return Err(Stop::Usage(format!(
                            "option '--{full}' requires an argument"
                        )));
                    };
                    i += 1;
                    Some(v.as_bytes().to_vec())
                }
                (_, v) => v,
            };
            opts.push((c, value));
            continue;
        }
        let cluster = a.get(1..).unwrap_or_default();
        let mut k = 0;
        while let Some(&b) = cluster.get(k) {
            k += 1;
            let c = char::from(b);
            let Some(has) = short_has(c) else {
                let shown = if b.is_ascii() {
                    c.to_string()
                } else {
                    String::from_utf8_lossy(&[b]).into_owned()
                };
                return Err(Stop::Usage(format!("invalid option -- '{shown}'")));
            };
            let rest = cluster.get(k..).unwrap_or_default();
            match has {
                Has::No => opts.push((c, None)),
                Has::Optional => {
                    opts.push((c, (!rest.is_empty()).then(|| rest.to_vec())));
                    break;
                }
                Has::Required => {
                    if rest.is_empty() {
                        let Some(v) = args.get(i) else {
                            return Err(Stop::Usage(format!(
                                "option requires an argument -- '{c}'"
                            )));
                        };
                        i += 1;
                        opts.push((c, Some(v.as_bytes().to_vec())));
                    } else {
                        opts.push((c, Some(rest.to_vec())));
                    }
                    break;
                }
            }
        }
    }
    Ok((opts, i))
}

/// `strtol` base 10: leading blanks and a sign; `None` when no digit was read or
/// something follows the number. Saturates as `strtol` does on overflow.
fn strtol(s: &[u8]) -> Option<i64> {
    let t = s.trim_ascii_start();
    let (neg, digits) = match t.first() {
        Some(b'-') => (true, t.get(1..).unwrap_or_default()),
        Some(b'+') => (false, t.get(1..).unwrap_or_default()),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v: i64 = 0;
    for d in digits {
        v = v.saturating_mul(10).saturating_add(i64::from(d - b'0'));
    }
    Some(if neg { v.saturating_neg() } else { v })
}

/// GNU's `parse_num`: the number of option `-c`, checked against `min` and `max`
/// (`None`: no maximum). Out of range: a message, then (when `fatal`) the usage error,
/// otherwise the nearest bound.
fn parse_num(
    o: &mut Outcome,
    v: &[u8],
    c: char,
    min: i64,
    max: Option<i64>,
    fatal: bool,
) -> Result<i64, Stop> {
    let shown = String::from_utf8_lossy(v);
    let Some(n) = strtol(v) else {
        return Err(
            Stop::Usage(format!("invalid number \"{shown}\" for -{c} option"))
                .after(std::mem::take(o)),
        );
    };
    let (bad, bound, rel) = if n < min {
        (true, min, ">=")
    } else if let Some(m) = max.filter(|&m| n > m) {
        (true, m, "<=")
    } else {
        (false, n, "")
    };
    if bad {
        if fatal {
            return Err(Stop::Usage(format!(
                "value {shown} for -{c} option should be {rel} {bound}"
            ))
            .after(std::mem::take(o)));
        }
        o.err(format!(
            "xargs: value {shown} for -{c} option should be {rel} {bound}\n"
        ));
        return Ok(bound);
    }
    Ok(n)
}

/// `strtoul` in `base` from the start of `s`: the value (saturated) and how many bytes it
/// used (0: no digit).
fn strtoul(s: &[u8], base: u32) -> (u64, usize) {
    let mut v: u64 = 0;
    let mut n = 0;
    for &b in s {
        let Some(d) = char::from(b).to_digit(base) else {
            break;
        };
        v = v
            .saturating_mul(u64::from(base))
            .saturating_add(u64::from(d));
        n += 1;
    }
    (v, n)
}

/// `-d`'s argument: one character, or an escape (`\n`, `\t`, `\0`, octal `\NNN`, hex
/// `\xHH`), with GNU's messages.
fn delimiter(spec: &[u8]) -> Result<u8, Stop> {
    let shown = String::from_utf8_lossy(spec);
    if let [c] = spec {
        return Ok(*c);
    }
    let Some(rest) = spec.strip_prefix(b"\\") else {
        return Err(Stop::Fail(format!(
            "Invalid input delimiter specification {shown}: the delimiter must be either a single character or an escape sequence starting with \\."
        )));
    };
    let simple = match rest.first() {
        Some(b'a') => Some(7),
        Some(b'b') => Some(8),
        Some(b'f') => Some(12),
        Some(b'n') => Some(b'\n'),
        Some(b'r') => Some(b'\r'),
        Some(b't') => Some(b'\t'),
        Some(b'v') => Some(11),
        Some(b'\\') => Some(b'\\'),
        _ => None,
    };
    if let Some(c) = simple {
        return Ok(c);
    }
    let (digits, base) = match rest.first() {
        Some(b'x') => (rest.get(1..).unwrap_or_default(), 16),
        Some(c) if c.is_ascii_digit() => (rest, 8),
        _ => {
            return Err(Stop::Fail(format!(
                "Invalid escape sequence {shown} in input delimiter specification."
            )));
        }
    };
    let (v, used) = strtoul(digits, base);
    if v > 255 {
        let max = if base == 16 { "ff" } else { "377" };
        return Err(Stop::Fail(format!(
            "Invalid escape sequence {shown} in input delimiter specification; character values must not exceed {max}."
        )));
    }
    let trailing = digits.get(used..).unwrap_or_default();
    if !trailing.is_empty() {
        return Err(Stop::Fail(format!(
            "Invalid escape sequence {shown} in input delimiter specification; trailing characters {} not recognised.",
            String::from_utf8_lossy(trailing)
        )));
    }
    Ok(u8::try_from(v).unwrap_or(0))
}

/// The settings that shape the command lines.
#[derive(Debug, Clone)]
struct Settings {
    /// `None`: GNU's quoting format; `Some(d)`: items end at `d` (`-0`, `-d`).
    delim: Option<u8>,
    eof: Option<Vec<u8>>,
    replace: Option<Vec<u8>>,
    lines: usize,
    args: usize,
    arg_max: usize,
    exit_if_exceeded: bool,
    verbose: bool,
    ask: bool,
    run_if_empty: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            delim: None,
            eof: None,
            replace: None,
            lines: 0,
            args: 0,
            arg_max: DEFAULT_SIZE,
            exit_if_exceeded: false,
            verbose: false,
            ask: false,
            run_if_empty: true,
        }
    }
}

/// How a command line is started: [`Ctx::run`], or a recorder in the unit tests.
trait Launch {
    fn launch(&mut self, o: &mut Outcome, argv: &[OsString]) -> Option<RunResult>;
}

/// Runs command lines through the shell ([`Ctx::run`]); with `-a`, the first one reads
/// what is left of xargs' stdin.
struct CtxLaunch<'c, 'a> {
    ctx: &'c Ctx<'a>,
    /// The next command reads what is left of xargs' stdin (`-a`: the first one).
    inherit: bool,
}

impl Launch for CtxLaunch<'_, '_> {
    fn launch(&mut self, o: &mut Outcome, argv: &[OsString]) -> Option<RunResult> {
        let inherit = std::mem::take(&mut self.inherit);
        self.ctx.run(
            o,
            RunRequest {
                what: RunWhat::Argv(argv),
                stdin: None,
                inherit_stdin: inherit,
                capture: false,
                cwd: None,
                env: None,
            },
        )
    }
}

/// Why the run ends early: a fatal message and status, or the line is over.
enum End {
    Fatal(String, i32),
    Stop,
}

/// GNU's `buildcmd` state: the command line being built.
struct Builder<'l> {
    set: Settings,
    launch: &'l mut dyn Launch,
    argv: Vec<Vec<u8>>,
    /// The bytes the arguments take (each with its NUL).
    chars: usize,
    initial_argc: usize,
    initial_chars: usize,
    /// Still pushing the command and its initial arguments.
    initial: bool,
    executed: bool,
    /// 123 once a command failed.
    child_error: i32,
}

impl Builder<'_> {
    fn push(&mut self, o: &mut Outcome, arg: Vec<u8>, len: usize) -> Result<(), End> {
        if self.chars + len > self.set.arg_max {
            if self.initial || self.argv.len() == self.initial_argc {
                return Err(End::Fatal(
                    "cannot fit single argument within argument list size limit".into(),
                    1,
                ));
            }
            if self.set.replace.is_some()
                || (self.set.exit_if_exceeded && (self.set.lines > 0 || self.set.args > 0))
            {
                return Err(End::Fatal("argument list too long".into(), 1));
            }
            self.exec(o)?;
        }
        if self.limit_reached() {
            self.exec(o)?;
        }
        self.argv.push(arg);
        self.chars += len;
        if self.limit_reached() {
            self.exec(o)?;
        }
        if self.initial {
            self.initial_chars = self.chars;
        }
        Ok(())
    }

    fn limit_reached(&self) -> bool {
        !self.initial && self.set.args > 0 && self.argv.len() - self.initial_argc == self.set.args
    }

    /// Runs the command line built so far, then starts the next one from the initial
    /// arguments.
    fn exec(&mut self, o: &mut Outcome) -> Result<(), End> {
        self.executed = true;
        // An argument ends at a NUL, as a C string does.
        let argv: Vec<OsString> = self
            .argv
            .iter()
            .map(|a| {
                let end = memchr::memchr(0, a).unwrap_or(a.len());
                OsString::from_vec(a.get(..end).unwrap_or_default().to_vec())
            })
            .collect();
        self.argv.truncate(self.initial_argc);
        self.chars = self.initial_chars;
        if self.set.verbose || self.set.ask {
            let shown: Vec<String> = argv.iter().map(quote_if_needed).collect();
            o.err(shown.join(" "));
            if self.set.ask {
                return Err(End::Fatal(
                    "failed to open /dev/tty for reading: No such device or address".into(),
                    1,
                ));
            }
            o.err("\n");
        }
        let name = argv
            .first()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(r) = self.launch.launch(o, &argv) else {
            return Err(End::Fatal(
                format!("{name}: No such file or directory"),
                127,
            ));
        };
        if r.not_found {
            return Err(End::Fatal(
                format!("{name}: No such file or directory"),
                127,
            ));
        }
        if r.stop {
            return Err(End::Stop);
        }
        if r.status == 255 {
            return Err(End::Fatal(
                format!("{name}: exited with status 255; aborting"),
                124,
            ));
        }
        if r.status != 0 {
            self.child_error = 123;
        }
        Ok(())
    }

    /// GNU's `exec_if_possible`: before a fatal input error, runs what was built when it may.
    fn exec_if_possible(&mut self, o: &mut Outcome) -> Result<(), End> {
        if self.set.replace.is_some()
            || self.initial
            || self.argv.len() == self.initial_argc
            || self.set.exit_if_exceeded
        {
            return Ok(());
        }
        self.exec(o)
    }

    /// `-I`: one command line per input line, the pattern replaced in each initial
    /// argument (not in the command name).
    fn exec_replaced(&mut self, o: &mut Outcome, cmd: &[Vec<u8>], item: &[u8]) -> Result<(), End> {
        let pat = self.set.replace.clone().unwrap_or_default();
        self.argv.clear();
        self.chars = 0;
        let Some((name, rest)) = cmd.split_first() else {
            return Ok(());
        };
        self.push(o, name.clone(), name.len() + 1)?;
        self.initial = false;
        for arg in rest {
            let inserted = insert(arg, &pat, item, self.set.arg_max)
                .ok_or_else(|| End::Fatal("command too long".into(), 1))?;
            let len = inserted.len() + 1;
            self.push(o, inserted, len)?;
        }
        self.exec(o)
    }
}

/// GNU's `bc_do_insert`: `arg` with each `pat` replaced by `item`; `None` when the result
/// does not fit in `arg_max - 1` bytes.
fn insert(arg: &[u8], pat: &[u8], item: &[u8], arg_max: usize) -> Option<Vec<u8>> {
    let mut left = arg_max.saturating_sub(1);
    let mut out = Vec::new();
    let mut rest = arg;
    loop {
        let found = if pat.is_empty() {
            None
        } else {
            memchr::memmem::find(rest, pat)
        };
        let len = found.unwrap_or(rest.len());
        if left <= len {
            return None;
        }
        left -= len;
        out.extend_from_slice(rest.get(..len).unwrap_or_default());
        rest = rest.get(len..).unwrap_or_default();
        if found.is_some() {
            if left <= item.len() {
                return None;
            }
            left -= item.len();
            out.extend_from_slice(item);
            rest = rest.get(pat.len()..).unwrap_or_default();
        }
        if rest.is_empty() {
            return Some(out);
        }
    }
}

/// Where the items come from, read a byte at a time as GNU's `getc`.
struct Input<'r> {
    bytes: Box<dyn Iterator<Item = u8> + 'r>,
    eof: bool,
    null_warned: bool,
    /// Input lines seen (`-L`).
    lineno: usize,
}

/// What one read gave: an item (in `-I` mode, the whole line) or the end.
enum Read {
    Line(Vec<u8>),
    /// Items were pushed (non-`-I` mode).
    Pushed,
    End,
}

fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

impl Builder<'_> {
    /// GNU's `read_line`: one logical line in the quoting format; each item is pushed as it
    /// ends (or, with `-I`, the whole line is returned).
    fn read_line(&mut self, o: &mut Outcome, inp: &mut Input) -> Result<Read, End> {
        #[derive(PartialEq, Clone, Copy)]
        enum St {
            Norm,
            Space,
            Quote,
            Backslash,
        }
        if inp.eof {
            return Ok(Read::End);
        }
        let replace = self.set.replace.is_some();
        let mut st = St::Space;
        let mut quote = 0u8;
        let mut c: Option<u8> = None;
        let mut first = true;
        let mut seen = false;
        let mut buf: Vec<u8> = Vec::new();
        let limit = self
            .set
            .arg_max
            .saturating_sub(self.initial_chars)
            .saturating_sub(1);
        let unmatched = |q: u8| {
            End::Fatal(
                format!(
                    "unmatched {} quote; by default quotes are special to xargs unless you use the -0 option",
                    if q == b'"' { "double" } else { "single" }
                ),
                1,
            )
        };
        loop {
            let prev = c;
            c = inp.bytes.next();
            let Some(ch) = c else {
                inp.eof = true;
                // As GNU: nothing in the buffer ends the input, even after a blank or an
                // open quote.
                if buf.is_empty() {
                    return Ok(Read::End);
                }
                if st == St::Quote {
                    self.exec_if_possible(o)?;
                    return Err(unmatched(quote));
                }
                if first && self.is_eof_str(&buf) {
                    return Ok(Read::End);
                }
                return self.item(o, buf);
            };
            match st {
                St::Space | St::Norm => {
                    if st == St::Space {
                        if ch.is_ascii_whitespace() || ch == 11 {
                            continue;
                        }
                        st = St::Norm;
                    }
                    if ch == b'\n' {
                        if !prev.is_some_and(is_blank) {
                            inp.lineno += 1;
                        }
                        if buf.is_empty() && !seen {
                            st = St::Space;
                            continue;
                        }
                        if self.is_eof_str(&buf) {
                            inp.eof = true;
                            return Ok(if first { Read::End } else { Read::Pushed });
                        }
                        return self.item(o, buf);
                    }
                    seen = true;
                    if !replace && is_blank(ch) {
                        if self.is_eof_str(&buf) {
                            inp.eof = true;
                            return Ok(if first { Read::End } else { Read::Pushed });
                        }
                        let len = buf.len() + 1;
                        self.push(o, std::mem::take(&mut buf), len)?;
                        st = St::Space;
                        first = false;
                        continue;
                    }
                    match ch {
                        b'\\' => {
                            st = St::Backslash;
                            continue;
                        }
                        b'\'' | b'"' => {
                            st = St::Quote;
                            quote = ch;
                            continue;
                        }
                        _ => {}
                    }
                }
                St::Quote => {
                    if ch == b'\n' {
                        self.exec_if_possible(o)?;
                        return Err(unmatched(quote));
                    }
                    if ch == quote {
                        st = St::Norm;
                        seen = true;
                        continue;
                    }
                }
                St::Backslash => st = St::Norm,
            }
            if ch == 0 && !inp.null_warned {
                inp.null_warned = true;
                o.err("xargs: WARNING: a NUL character occurred in the input.  It cannot be passed through in the argument list.  Did you mean to use the --null option?\n");
            }
            if buf.len() >= limit {
                self.exec_if_possible(o)?;
                return Err(End::Fatal("argument line too long".into(), 1));
            }
            buf.push(ch);
        }
    }

    fn is_eof_str(&self, buf: &[u8]) -> bool {
        self.set.eof.as_deref().is_some_and(|e| {
            let end = memchr::memchr(0, buf).unwrap_or(buf.len());
            buf.get(..end) == Some(e)
        })
    }

    /// The item that ends a read: pushed, or returned whole with `-I`.
    fn item(&mut self, o: &mut Outcome, buf: Vec<u8>) -> Result<Read, End> {
        if self.set.replace.is_some() {
            return Ok(Read::Line(buf));
        }
        let len = buf.len() + 1;
        self.push(o, buf, len)?;
        Ok(Read::Pushed)
    }

    /// GNU's `read_string`: one item ending at the delimiter (`-0`, `-d`).
    fn read_string(&mut self, o: &mut Outcome, inp: &mut Input, delim: u8) -> Result<Read, End> {
        if inp.eof {
            return Ok(Read::End);
        }
        let limit = self
            .set
            .arg_max
            .saturating_sub(self.initial_chars)
            .saturating_sub(1);
        let mut buf = Vec::new();
        loop {
            let Some(ch) = inp.bytes.next() else {
                inp.eof = true;
                if buf.is_empty() {
                    return Ok(Read::End);
                }
                return self.item(o, buf);
            };
            if ch == delim {
                inp.lineno += 1;
                return self.item(o, buf);
            }
            if buf.len() >= limit {
                self.exec_if_possible(o)?;
                return Err(End::Fatal("argument line too long".into(), 1));
            }
            buf.push(ch);
        }
    }

    fn read(&mut self, o: &mut Outcome, inp: &mut Input) -> Result<Read, End> {
        match self.set.delim {
            Some(d) => self.read_string(o, inp, d),
            None => self.read_line(o, inp),
        }
    }

    /// The whole run: the command's initial arguments, then the items.
    fn run(&mut self, o: &mut Outcome, cmd: &[Vec<u8>], inp: &mut Input) -> Result<(), End> {
        if self.set.replace.is_some() {
            loop {
                match self.read(o, inp)? {
                    Read::Line(item) => self.exec_replaced(o, cmd, &item)?,
                    Read::Pushed => {}
                    Read::End => return Ok(()),
                }
            }
        }
        for a in cmd {
            self.push(o, a.clone(), a.len() + 1)?;
        }
        self.initial = false;
        self.initial_argc = self.argv.len();
        self.initial_chars = self.chars;
        loop {
            if let Read::End = self.read(o, inp)? {
                break;
            }
            if self.set.lines > 0 && inp.lineno >= self.set.lines {
                self.exec(o)?;
                inp.lineno = 0;
            }
        }
        if self.argv.len() != self.initial_argc || (self.set.run_if_empty && !self.executed) {
            self.exec(o)?;
        }
        Ok(())
    }
}

/// What the options asked for besides the [`Settings`].
struct Parsed {
    set: Settings,
    arg_file: Option<Vec<u8>>,
    show_limits: bool,
    /// `-s` was given.
    size_given: bool,
    first_operand: usize,
}

/// The size of the environment the commands get: `NAME=value` and a NUL for each exported
/// variable.
fn env_size(ctx: &Ctx) -> usize {
    ctx.vars
        .iter()
        .filter(|(_, v)| v.exported)
        .filter_map(|(n, v)| v.scalar().map(|s| n.len() + s.len() + 2))
        .sum()
}

fn parse(args: &[OsString], o: &mut Outcome, size_max: usize) -> Result<Parsed, Stop> {
    let (opts, first_operand) = getopt(args)?;
    let mut set = Settings::default();
    let mut arg_file = None;
    let mut show_limits = false;
    let mut size_given = false;
    let warn = |o: &mut Outcome, a: &str, b: &str| {
        o.err(format!(
            "xargs: warning: options {b} and {a} are mutually exclusive, ignoring previous {b} value\n"
        ));
    };
    for (c, v) in opts {
        let val = v.clone().unwrap_or_default();
        match c {
            '0' => set.delim = Some(0),
            'd' => set.delim = Some(delimiter(&val).map_err(|e| e.after(std::mem::take(o)))?),
            'E' | 'e' => set.eof = v.filter(|s| !s.is_empty()),
            'I' | 'i' => {
                set.replace = Some(v.unwrap_or_else(|| b"{}".to_vec()));
                if set.args != 0 {
                    warn(o, "--replace/-I/-i", "--max-args");
                    set.args = 0;
                }
                if set.lines != 0 {
                    warn(o, "--replace/-I/-i", "--max-lines");
                    set.lines = 0;
                }
            }
            'L' | 'l' => {
                set.lines = match v {
                    Some(n) => {
                        usize::try_from(parse_num(o, &n, c, 1, None, true)?).unwrap_or(usize::MAX)
                    }
                    None => 1,
                };
                let me = if c == 'L' { "-L" } else { "--max-lines/-l" };
                if set.args != 0 {
                    warn(o, me, "--max-args");
                    set.args = 0;
                }
                if set.replace.is_some() {
                    warn(o, me, "--replace");
                    set.replace = None;
                }
            }
            'n' => {
                set.args =
                    usize::try_from(parse_num(o, &val, 'n', 1, None, true)?).unwrap_or(usize::MAX);
                if set.lines != 0 {
                    warn(o, "--max-args/-n", "--max-lines");
                    set.lines = 0;
                }
                if set.replace.is_some() {
                    if set.args == 1 {
                        set.args = 0;
                    } else {
                        warn(o, "--max-args/-n", "--replace");
                        set.replace = None;
                    }
                }
            }
            's' => {
                let max = i64::try_from(size_max).unwrap_or(i64::MAX);
                let n = parse_num(o, &val, 's', 1, Some(max), false)?;
                set.arg_max = usize::try_from(n).unwrap_or(1);
                size_given = true;
            }
            'S' => show_limits = true,
            't' => set.verbose = true,
            'x' => set.exit_if_exceeded = true,
            'p' => {
                set.ask = true;
                set.verbose = true;
            }
            'r' => set.run_if_empty = false,
            'P' => {
                parse_num(o, &val, 'P', 0, Some(MAX_PROCS), true)?;
            }
            'a' => arg_file = Some(val),
            'V' if val.contains(&b'=') => {
                return Err(Stop::Fail(
                    "option --process-slot-var may not be set to a value which includes `='".into(),
                )
                .after(std::mem::take(o)));
            }
            'v' => return Err(Stop::Version),
            'h' => {
                let mut h = Outcome::ok();
                h.out(help_of::<XargsHelp>());
                return Err(Stop::Done(h));
            }
            // `-o`: the commands' stdin would be the terminal, which none has here.
            _ => {}
        }
    }
    if set.eof.is_some() && set.delim.is_some() {
        o.err("xargs: warning: the -E option has no effect if -0 or -d is used.\n\n");
    }
    Ok(Parsed {
        set,
        arg_file,
        show_limits,
        size_given,
        first_operand,
    })
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut o = Outcome::ok();
    let env = env_size(ctx);
    let size_max = ARG_MAX.saturating_sub(env).saturating_sub(HEADROOM);
    let p = parse(args, &mut o, size_max)?;
    let mut set = p.set;
    if set.replace.is_some() || set.lines > 0 {
        set.exit_if_exceeded = true;
    }
    // The default buffer, within what the system allows.
    if !p.size_given {
        set.arg_max = DEFAULT_SIZE.clamp(POSIX_MIN, size_max.max(POSIX_MIN));
    }
    let file_bytes;
    let (bytes, inherit): (Box<dyn Iterator<Item = u8>>, bool) = match &p.arg_file {
        Some(f) if f != b"-" => {
            let name = OsStr::from_bytes(f);
            match ctx.fs.read(&ctx.resolve(name)) {
                Ok(b) => file_bytes = b,
                Err(e) => {
                    return Err(Stop::Fail(format!(
                        "Cannot open input file {}: {}",
                        quote_locale(name),
                        e.strerror()
                    ))
                    .after(o));
                }
            }
            (Box::new(file_bytes.into_iter()), true)
        }
        _ => (Box::new(StdinBytes(ctx.stdin.bytes_reader())), false),
    };
    let cmd: Vec<Vec<u8>> = match args.get(p.first_operand..) {
        Some(rest) if !rest.is_empty() => rest.iter().map(|a| a.as_bytes().to_vec()).collect(),
        _ => vec![b"echo".to_vec()],
    };
    if p.show_limits {
        o.err(format!(
            "Your environment variables take up {env} bytes\n\
             POSIX upper limit on argument length (this system): {size_max}\n\
             POSIX smallest allowable upper limit on argument length (all systems): {POSIX_MIN}\n\
             Maximum length of command we could actually use: {}\n\
             Size of command buffer we are actually using: {}\n\
             Maximum parallelism (--max-procs must be no greater): {MAX_PROCS}\n",
            size_max.saturating_sub(env),
            set.arg_max
        ));
    }
    let mut launch = CtxLaunch { ctx, inherit };
    let mut inp = Input {
        bytes,
        eof: false,
        null_warned: false,
        lineno: 0,
    };
    let (result, status) = drive(set, &mut launch, &mut o, &cmd, &mut inp);
    match result {
        Some((msg, st)) => Err(Stop::FailWith(msg, st).after(o)),
        None => Ok(o.with_status(status)),
    }
}

/// Runs the whole input; a fatal end's message and status, or the exit status.
fn drive(
    set: Settings,
    launch: &mut dyn Launch,
    o: &mut Outcome,
    cmd: &[Vec<u8>],
    inp: &mut Input,
) -> (Option<(String, i32)>, i32) {
    let mut b = Builder {
        set,
        launch,
        argv: Vec::new(),
        chars: 0,
        initial_argc: 0,
        initial_chars: 0,
        initial: true,
        executed: false,
        child_error: 0,
    };
    match b.run(o, cmd, inp) {
        Ok(()) | Err(End::Stop) => (None, b.child_error),
        Err(End::Fatal(msg, st)) => {
            let st = if st == 124 { st.max(b.child_error) } else { st };
            (Some((msg, st)), st)
        }
    }
}

/// Stdin as bytes, a chunk at a time.
struct StdinBytes<'s>(crate::ByteReader<'s>);

impl Iterator for StdinBytes<'_> {
    type Item = u8;
    fn next(&mut self) -> Option<u8> {
        self.0.next_byte().ok().flatten()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Records each command line and answers as `echo` would (status from a table).
    struct Rec {
        lines: Vec<String>,
        status: i32,
    }

    impl Launch for Rec {
        fn launch(&mut self, o: &mut Outcome, argv: &[OsString]) -> Option<RunResult> {
            let words: Vec<String> = argv
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            if words.first().is_some_and(|w| w == "nosuch") {
                return Some(RunResult {
                    status: 127,
                    not_found: true,
                    ..RunResult::default()
                });
            }
            self.lines.push(words.join(" "));
            o.out(format!(
                "{}\n",
                words.get(1..).unwrap_or_default().join(" ")
            ));
            Some(RunResult {
                status: self.status,
                ..RunResult::default()
            })
        }
    }

    /// (command lines, stderr, status) of `xargs ARGS` on `input`.
    fn xargs(args: &[&str], input: &[u8]) -> (Vec<String>, String, i32) {
        xargs_st(args, input, 0)
    }

    fn xargs_st(args: &[&str], input: &[u8], child: i32) -> (Vec<String>, String, i32) {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let mut o = Outcome::ok();
        let p = match parse(&args, &mut o, 2_093_831) {
            Ok(p) => p,
            Err(e) => {
                let r = e.render_program("xargs", 1);
                return (
                    vec![],
                    String::from_utf8_lossy(&r.stderr()).into_owned(),
                    r.status,
                );
            }
        };
        let mut set = p.set;
        if set.replace.is_some() || set.lines > 0 {
            set.exit_if_exceeded = true;
        }
        let cmd: Vec<Vec<u8>> = match args.get(p.first_operand..) {
            Some(r) if !r.is_empty() => r.iter().map(|a| a.as_bytes().to_vec()).collect(),
            _ => vec![b"echo".to_vec()],
        };
        let mut rec = Rec {
            lines: vec![],
            status: child,
        };
        let data = input.to_vec();
        let mut inp = Input {
            bytes: Box::new(data.into_iter()),
            eof: false,
            null_warned: false,
            lineno: 0,
        };
        let (fatal, status) = drive(set, &mut rec, &mut o, &cmd, &mut inp);
        if let Some((msg, _)) = fatal {
            o.err(format!("xargs: {msg}\n"));
        }
        (
            rec.lines,
            String::from_utf8_lossy(&o.stderr()).into_owned(),
            status,
        )
    }

    #[test]
    fn batches_as_gnu() {
        // All from GNU findutils 4.9.0, LC_ALL=C.
        assert_eq!(
            xargs(&["-n1"], b"a b\nc d\n").0,
            ["echo a", "echo b", "echo c", "echo d"]
        );
        assert_eq!(
            xargs(&["-L1"], b"a b \nc d\ne\n").0,
            ["echo a b c d", "echo e"]
        );
        assert_eq!(xargs(&["-l2"], b"a b\nc\nd\n").0, ["echo a b c", "echo d"]);
        assert_eq!(
            xargs(&["-n1"], b"a\\ b \"c d\" 'e f' g\\\nh\n").0,
            ["echo a b", "echo c d", "echo e f", "echo g\nh"]
        );
        assert_eq!(
            xargs(&["-I{}", "echo", "x{}y", "{}"], b"a b\n  c\n").0,
            ["echo xa by a b", "echo xcy c"]
        );
        assert_eq!(xargs(&["-i", "echo", "[{}]"], b"a b\n").0, ["echo [a b]"]);
        assert_eq!(xargs(&["echo", "hi"], b"").0, ["echo hi"]);
        assert!(xargs(&["-r", "echo", "hi"], b"").0.is_empty());
        assert_eq!(xargs(&["-E", "EOF"], b"a b EOF c\n").0, ["echo a b"]);
        assert_eq!(
            xargs(&["-0", "-n1"], b"a b\0c\n\0\0d").0,
            ["echo a b", "echo c\n", "echo ", "echo d"]
        );
        assert_eq!(xargs(&["-d,"], b"a,b,,c\n").0, ["echo a b  c\n"]);
        assert_eq!(
            xargs(&["-s", "13"], b"aaa bbb ccc\n").0,
            ["echo aaa bbb", "echo ccc"]
        );
        assert_eq!(
            xargs(&["-x", "-s", "12"], b"aaaaa b\n").0,
            ["echo aaaaa", "echo b"]
        );
        assert_eq!(xargs(&["-n1", "echo", "x"], b"''\n").0, ["echo x "]);
    }

    #[test]
    fn errors_and_statuses() {
        let (_, err, st) = xargs(&[], b"it's\n");
        assert_eq!(
            (err.as_str(), st),
            (
                "xargs: unmatched single quote; by default quotes are special to xargs unless you use the -0 option\n",
                1
            )
        );
        assert_eq!(
            xargs(&["-s", "12", "echo"], b"aaaaaaaaaaaaaa\n").1,
            "xargs: argument line too long\n"
        );
        assert_eq!(
            xargs(&["-x", "-n2", "-s", "12"], b"aaaa bbbb\n").1,
            "xargs: argument list too long\n"
        );
        assert_eq!(
            xargs(&["-s", "1"], b"a\n").1,
            "xargs: cannot fit single argument within argument list size limit\n"
        );
        assert_eq!(
            xargs(&["-n", "0"], b"").1,
            "xargs: value 0 for -n option should be >= 1\nTry 'xargs --help' for more information.\n"
        );
        assert_eq!(
            xargs(&["--ma=2"], b"").1,
            "xargs: option '--ma=2' is ambiguous; possibilities: '--max-lines' '--max-args' '--max-chars' '--max-procs'\nTry 'xargs --help' for more information.\n"
        );
        assert_eq!(
            xargs(&["-d", "ab"], b"").1,
            "xargs: Invalid input delimiter specification ab: the delimiter must be either a single character or an escape sequence starting with \\.\n"
        );
        assert_eq!(
            xargs(&["nosuch"], b"a\n").1,
            "xargs: nosuch: No such file or directory\n"
        );
        assert_eq!(xargs(&["nosuch"], b"a\n").2, 127);
        assert_eq!(xargs_st(&["-n1"], b"a b\n", 3).2, 123);
        let (lines, err, st) = xargs_st(&["-n1"], b"a b\n", 255);
        assert_eq!(
            (lines.len(), err.as_str(), st),
            (1, "xargs: echo: exited with status 255; aborting\n", 124)
        );
        assert_eq!(
            xargs(&["-t", "echo", "x y", "it's"], b"a\n").1,
            "echo 'x y' \"it's\" a\n"
        );
        assert_eq!(
            xargs(&["-p"], b"a b\n").1,
            "echo a bxargs: failed to open /dev/tty for reading: No such device or address\n"
        );
    }
}
