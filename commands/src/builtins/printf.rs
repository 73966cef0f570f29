//! `printf [-v var] format [arguments]`, bash's builtin (not coreutils' program, which the
//! builtin hides): the format is reused until the arguments are used up; conversions are
//! C's (`%d %i %o %u %x %X %e %E %f %F %g %G %a %A %c %s`, through
//! [`crate::support::cprintf`], floats in x87 `long double` as bash computes them) plus
//! bash's `%b` (escapes in the argument, `\c` ends everything), `%q`/`%Q` (shell quoting),
//! `%(FMT)T` (strftime of a time) and `%n` (the count so far, into a variable).
//!
//! A numeric argument may be `'c` or `"c` (the character's code); a bad one is reported
//! (`printf: abc: invalid number`), the value parsed so far is printed, and the status
//! becomes 1. Output goes as bash's line-buffered stdout writes it: each complete line as it
//! is finished, so that a diagnostic lands between lines exactly where bash's does with
//! `2>&1`. `-v VAR` assigns the output instead ([`Directive::SetVar`]).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::{BuiltinGetopt, builtin_help_of};
use crate::support::cnum::{strtoimax, strtoumax};
use crate::support::cprintf::{self, Field, Spec};
use crate::support::datetime::{broken_down, session_zone, strftime, to_epoch};
use crate::support::escapes::{PrintfEscapes, printf_b, printf_escape, utf8_locale};
use crate::support::ident::is_assignable;
use crate::support::ldouble::{LongDouble, strtold};
use crate::support::quote::{printf_q, quote_if_needed};
use crate::{Ctx, Directive, Outcome};

pub const USAGE: &str = "printf [-v var] format [arguments]";

/// Formats and prints ARGUMENTS under control of the FORMAT.
///
/// FORMAT holds plain characters (copied), backslash escapes (converted) and conversions,
/// each of which uses the next argument: C's %d %i %o %u %x %X %e %E %f %F %g %G %a %A %c
/// %s with their flags, width and precision, and %b (the argument's backslash escapes
/// interpreted), %q (the argument quoted for reuse as shell input), %Q (the same, the
/// precision applied before quoting), %(FMT)T (the time given in seconds since the epoch,
/// -1 for now, through strftime's FMT) and %n (the number of bytes printed so far, into the
/// variable the argument names). The format is reused until the arguments are used up; a
/// missing argument is 0 or an empty string.
///
/// Exit status: 0, unless an option is invalid, an argument is not a valid number, or a
/// write or an assignment fails.
#[derive(clap::Parser, Debug)]
pub struct PrintfHelp {
    /// assign the output to shell variable VAR rather than display it on the standard output
    #[arg(short = 'v', value_name = "var")]
    var: Option<OsString>,
}

/// The text of `help printf`.
pub fn help() -> String {
    builtin_help_of::<PrintfHelp>("printf", USAGE)
}

/// The seconds beyond which glibc's `localtime` fails (a year past `INT_MAX`).
const LOCALTIME_LIMIT: i64 = 67_767_976_233_316_800;

/// What glibc buffers before a line-buffered stream writes even without a newline.
const LINE_BUFFER: usize = 4096;

/// Where the bytes go: stdout (line-buffered, as bash's) or the `-v` variable.
struct Printer<'a, 'c> {
    ctx: &'a Ctx<'c>,
    o: Outcome,
    /// Bytes written since the last newline, not yet on stdout.
    line: Vec<u8>,
    /// `-v`: everything is kept for the variable.
    var: Option<Vec<u8>>,
    /// Bytes printed in this pass over the format (`%n`).
    written: usize,
    /// Nobody reads the output any more: stop.
    closed: bool,
    /// Run as coreutils' program ([`Ctx::program`], its name): its messages, no bash
    /// extensions.
    program: Option<&'a str>,
}

impl Printer<'_, '_> {
    fn put(&mut self, bytes: &[u8]) -> bool {
        self.written = self.written.saturating_add(bytes.len());
        if let Some(v) = &mut self.var {
            v.extend_from_slice(bytes);
            return true;
        }
        if let Some(nl) = bytes.iter().rposition(|&b| b == b'\n') {
            self.line
                .extend_from_slice(bytes.get(..=nl).unwrap_or_default());
            let line = std::mem::take(&mut self.line);
            self.o.out(line);
            self.line
                .extend_from_slice(bytes.get(nl + 1..).unwrap_or_default());
        } else {
            self.line.extend_from_slice(bytes);
            if self.line.len() < LINE_BUFFER {
                return true;
            }
            let line = std::mem::take(&mut self.line);
            self.o.out(line);
        }
        if !self.ctx.flush(&mut self.o) {
            self.closed = true;
        }
        !self.closed
    }

    fn field(&mut self, f: &Field) -> bool {
        f.write(&mut |b| self.put(b))
    }

    /// A diagnostic: written at once, while the current line waits in the buffer.
    fn error(&mut self, msg: &str) {
        if let Some(name) = self.program {
            // glibc's `error()` flushes stdout first.
            if self.var.is_none() {
                self.o.out(std::mem::take(&mut self.line));
            }
            self.o.err(format!("{name}: {msg}\n"));
        } else {
            self.o.shell_err(format!("printf: {msg}\n"));
        }
    }
}

/// What the rest of the format does after a conversion.
enum Flow {
    Go,
    /// Stop here with this status (an invalid conversion, `\c` in `%b`, output closed).
    Stop(i32),
}

/// The state of one `printf`: its arguments and what it has printed.
struct Run<'a, 'c> {
    p: Printer<'a, 'c>,
    args: &'a [OsString],
    next: usize,
    utf8: bool,
    /// A numeric argument was not a number: the status will be 1.
    conversion_error: bool,
}

impl Run<'_, '_> {
    fn arg(&mut self) -> Option<&[u8]> {
        let a = self.args.get(self.next)?;
        self.next += 1;
        Some(a.as_bytes())
    }

    fn getstr(&mut self) -> Vec<u8> {
        self.arg().map(<[u8]>::to_vec).unwrap_or_default()
    }

    fn getchr(&mut self) -> u8 {
        self.arg().and_then(|a| a.first().copied()).unwrap_or(0)
    }

    /// `'c` / `"c`: the code of the character after the quote (its byte in the C locale).
    fn char_code(&self, a: &[u8]) -> i64 {
        let rest = a.get(1..).unwrap_or_default();
        if self.utf8 && rest.first().is_some_and(|&b| b >= 0x80) {
            let len = match rest.first() {
                Some(0xc0..=0xdf) => 2,
                Some(0xe0..=0xef) => 3,
                Some(0xf0..=0xf7) => 4,
                _ => 1,
            };
            if let Some(c) = rest
                .get(..len)
                .and_then(|b| std::str::from_utf8(b).ok())
                .and_then(|s| s.chars().next())
            {
                return i64::from(u32::from(c));
            }
        }
        i64::from(rest.first().copied().unwrap_or(0))
    }

    /// Reports a number that did not parse whole, or that was out of range.
    fn check_number(&mut self, a: &[u8], end: usize, overflow: bool) {
        if self.p.program.is_some() {
            // coreutils: every one of these makes the status 1.
            let shown = String::from_utf8_lossy(a);
            let msg = if end == 0 && !a.is_empty() {
                "expected a numeric value"
            } else if end < a.len() {
                "value not completely converted"
            } else if overflow {
                "Numerical result out of range"
            } else {
                return;
            };
            self.p.error(&format!("'{shown}': {msg}"));
            self.conversion_error = true;
            return;
        }
        if end < a.len() {
            self.p
                .error(&format!("{}: invalid number", String::from_utf8_lossy(a)));
            self.conversion_error = true;
        } else if overflow {
            self.p.error(&format!(
                "warning: {}: Numerical result out of range",
                String::from_utf8_lossy(a)
            ));
        }
    }

    fn quoted(a: &[u8]) -> bool {
        matches!(a.first(), Some(b'\'' | b'"'))
    }

    fn getintmax(&mut self) -> i64 {
        let Some(a) = self.arg().map(<[u8]>::to_vec) else {
            return 0;
        };
        if Self::quoted(&a) {
            return self.char_code(&a);
        }
        let r = strtoimax(&a, 0);
        self.check_number(&a, r.end, r.overflow);
        r.value
    }

    fn getuintmax(&mut self) -> u64 {
        let Some(a) = self.arg().map(<[u8]>::to_vec) else {
            return 0;
        };
        if Self::quoted(&a) {
            return self.char_code(&a).unsigned_abs();
        }
        let r = strtoumax(&a, 0);
        self.check_number(&a, r.end, r.overflow);
        r.value
    }

    fn getfloat(&mut self) -> LongDouble {
        let Some(a) = self.arg().map(<[u8]>::to_vec) else {
            return LongDouble::ZERO;
        };
        if Self::quoted(&a) {
            return LongDouble::from_i64(self.char_code(&a));
        }
        let r = strtold(&a);
        self.check_number(&a, r.end, r.range_error);
        r.value
    }

    /// A `*` width or precision: an `int`, clamped with a warning that names the argument
    /// after it (as bash's `getint` does).
    fn getint(&mut self) -> i64 {
        let v = self.getintmax();
        let Some(next) = self.args.get(self.next) else {
            // bash converts without a check when no argument is left.
            return i64::from(v as i32);
        };
        let next = String::from_utf8_lossy(next.as_bytes()).into_owned();
        let clamped = v.clamp(i64::from(i32::MIN), i64::from(i32::MAX));
        if clamped != v {
            self.p
                .error(&format!("warning: {next}: Numerical result out of range"));
        }
        clamped
    }

    /// One pass over the format.
    fn pass(&mut self, format: &[u8]) -> Flow {
        self.p.written = 0;
        let mut i = 0;
        while let Some(&c) = format.get(i) {
            if self.p.closed {
                return Flow::Stop(0);
            }
            if c == b'\\' {
                let mut out = Vec::new();
                let (used, _, err) =
                    printf_escape(format, i + 1, PrintfEscapes::Format, self.utf8, &mut out);
                if let Some(msg) = err {
                    self.p.error(msg);
                }
                self.p.put(&out);
                i += 1 + used;
                continue;
            }
            if c != b'%' {
                let end = format
                    .iter()
                    .skip(i)
                    .position(|&b| b == b'\\' || b == b'%')
                    .map_or(format.len(), |k| i + k);
                self.p.put(format.get(i..end).unwrap_or_default());
                i = end;
                continue;
            }
            if format.get(i + 1) == Some(&b'%') {
                self.p.put(b"%");
                i += 2;
                continue;
            }
            match self.conversion(format, i) {
                Ok(next) => i = next,
                Err(flow) => return flow,
            }
        }
        Flow::Go
    }

    /// One conversion starting at `format[start] == '%'`: where the format goes on, or how
    /// the whole command stops.
    #[allow(clippy::too_many_lines)] // one arm per conversion, as bash's switch
    fn conversion(&mut self, format: &[u8], start: usize) -> Result<usize, Flow> {
        let mut spec = Spec::default();
        let mut i = start + 1;
        while let Some(&f) = format.get(i).filter(|b| b"#'-+ 0".contains(b)) {
            match f {
                b'#' => spec.alt = true,
                b'-' => spec.minus = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'0' => spec.zero = true,
                _ => {}
            }
            i += 1;
        }
        if format.get(i) == Some(&b'*') {
            i += 1;
            let w = self.getint();
            if w < 0 {
                spec.minus = true;
            }
            spec.width = usize::try_from(w.unsigned_abs()).unwrap_or(usize::MAX);
        } else {
            while let Some(d) = format.get(i).filter(|b| b.is_ascii_digit()) {
                spec.width = spec
                    .width
                    .saturating_mul(10)
                    .saturating_add(usize::from(d - b'0'));
                i += 1;
            }
        }
        // The precision's digits, for `%Q` (which applies them to the unquoted string).
        let mut literal_precision = None;
        if format.get(i) == Some(&b'.') {
            i += 1;
            if format.get(i) == Some(&b'*') {
                i += 1;
                let p = self.getint();
                spec.precision = usize::try_from(p).ok();
            } else {
                let negative = format.get(i) == Some(&b'-');
                if negative {
                    i += 1;
                }
                let mut p: usize = 0;
                let digits_from = i;
                while let Some(d) = format.get(i).filter(|b| b.is_ascii_digit()) {
                    p = p.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                    i += 1;
                }
                if i > digits_from && !negative {
                    literal_precision = Some(p);
                }
                spec.precision = (!negative).then_some(p);
            }
        }
        while format.get(i).is_some_and(|b| b"hjlLtz".contains(b)) {
            i += 1;
        }
        let invalid = |p: &mut Printer, to: usize| {
            let text = String::from_utf8_lossy(format.get(start..to).unwrap_or_default());
            p.error(&format!("{text}: invalid conversion specification"));
            Err(Flow::Stop(1))
        };
        if self.p.program.is_some()
            && format
                .get(i)
                .is_none_or(|c| !b"csbqdiouxXeEfFgGaA".contains(c))
        {
            return invalid(&mut self.p, (i + 1).min(format.len()));
        }
        let Some(&conv) = format.get(i) else {
            let spec_text = String::from_utf8_lossy(format.get(start..).unwrap_or_default());
            self.p
                .error(&format!("`{spec_text}': missing format character"));
            return Err(Flow::Stop(1));
        };
        i += 1;
        match conv {
            b'c' => {
                let c = self.getchr();
                spec.precision = None;
                self.p.field(&cprintf::string(&[c], &spec));
            }
            b's' => {
                let s = self.getstr();
                self.p.field(&cprintf::string(&s, &spec));
            }
            b'b' => {
                let s = self.getstr();
                let (bytes, stop, errors) = printf_b(&s, self.utf8);
                for e in errors {
                    self.p.error(e);
                }
                self.p.field(&cprintf::string(&bytes, &spec));
                if stop {
                    return Err(Flow::Stop(0));
                }
            }
            b'q' | b'Q' => {
                let mut s = self.getstr();
                if conv == b'Q' {
                    if let Some(p) = literal_precision {
                        s.truncate(p);
                    }
                    spec.precision = None;
                }
                let quoted = if self.p.program.is_some() {
                    quote_if_needed(OsStr::from_bytes(&s)).into_bytes()
                } else {
                    printf_q(&s, self.utf8)
                };
                self.p.field(&cprintf::string(&quoted, &spec));
            }
            b'd' | b'i' => {
                let v = self.getintmax();
                self.p.field(&cprintf::signed(v, &spec));
            }
            b'o' | b'u' | b'x' | b'X' => {
                let v = self.getuintmax();
                self.p.field(&cprintf::unsigned(v, conv, &spec));
            }
            b'e' | b'E' | b'f' | b'F' | b'g' | b'G' | b'a' | b'A' => {
                let v = self.getfloat();
                self.p.field(&cprintf::float(&v, conv, &spec));
            }
            b'n' => {
                let name = self.getstr();
                if !name.is_empty() {
                    let name = String::from_utf8_lossy(&name).into_owned();
                    if !is_assignable(&name) {
                        self.p.error(&format!("`{name}': not a valid identifier"));
                        return Err(Flow::Stop(1));
                    }
                    let value = self.p.written.to_string();
                    self.p.o.directive(Directive::SetVar {
                        name,
                        value: Some(value),
                        export: false,
                    });
                }
            }
            b'(' => return Ok(self.time(format, start, i, &spec)),
            other => {
                let c = String::from_utf8_lossy(&[other]).into_owned();
                self.p.error(&format!("`{c}': invalid format character"));
                return Err(Flow::Stop(1));
            }
        }
        if self.p.closed {
            return Err(Flow::Stop(0));
        }
        Ok(i)
    }

    /// `%(FMT)T`, `open` just after the `(`: where the format goes on.
    fn time(&mut self, format: &[u8], start: usize, open: usize, spec: &Spec) -> usize {
        let mut depth = 1;
        let mut j = open;
        while let Some(&b) = format.get(j) {
            if b == b'(' {
                depth += 1;
            } else if b == b')' {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            j += 1;
        }
        let fmt = format.get(open..j).unwrap_or_default();
        let after = format.get(j + 1).copied();
        if after != Some(b'T') {
            let c = after.map_or_else(String::new, |b| String::from_utf8_lossy(&[b]).into_owned());
            self.p.error(&format!(
                "warning: `{c}': invalid time format specification"
            ));
            // bash prints the `%` and goes on with the character after it.
            self.p.put(b"%");
            return start + 1;
        }
        let fmt: &[u8] = if fmt.is_empty() { b"%X" } else { fmt };
        let secs = if self.next < self.args.len() {
            self.getintmax()
        } else {
            -1
        };
        // -1 is now; -2 the time the shell started, which is now for trumansh.
        let secs = if secs == -1 || secs == -2 {
            to_epoch(self.ctx().now).0
        } else {
            secs
        };
        // glibc's localtime fails past the year 2^31: bash then shows the epoch.
        let secs = if secs.unsigned_abs() > LOCALTIME_LIMIT.unsigned_abs() {
            0
        } else {
            secs
        };
        let tm = broken_down(secs, 0, &session_zone(self.ctx()));
        let mut text = strftime(fmt, &tm);
        // bash's buffer holds 127 bytes: a longer result is empty.
        if text.len() > 127 {
            text.clear();
        }
        self.p.field(&cprintf::string(&text, spec));
        j + 2
    }

    fn ctx(&self) -> &Ctx<'_> {
        self.p.ctx
    }
}

/// The last line bash's builtins print after a usage error.
fn usage_only() -> Stop {
    let mut o = Outcome::status(2);
    o.err(format!("printf: usage: {USAGE}\n"));
    Stop::Done(o)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    if let Some(name) = ctx.program {
        // coreutils' program: no `-v`; a leading `--` is skipped; the format is required.
        let args = match args.first() {
            Some(a) if a == "--" => args.get(1..).unwrap_or_default(),
            _ => args,
        };
        let Some((format, rest)) = args.split_first() else {
            let mut o = Outcome::status(1);
            o.err(format!(
                "{name}: missing operand\nTry '{name} --help' for more information.\n"
            ));
            return Ok(o);
        };
        return Ok(print(format.as_bytes(), rest, None, ctx));
    }
    let mut getopt = BuiltinGetopt::new(args, "v:");
    let mut var = None;
    for opt in getopt.by_ref() {
        if let (b'v', Some(name)) = opt? {
            let name = String::from_utf8_lossy(name.as_bytes()).into_owned();
            if !is_assignable(&name) {
                return Err(Stop::FailWith(
                    format!("`{name}': not a valid identifier"),
                    2,
                ));
            }
            var = Some(name);
        }
    }
    let Some((format, rest)) = getopt.operands().split_first() else {
        return Err(usage_only());
    };
    Ok(print(format.as_bytes(), rest, var, ctx))
}

/// Prints FORMAT with ARGUMENTS (into `var` with `-v`).
fn print(format: &[u8], rest: &[OsString], var: Option<String>, ctx: &Ctx) -> Outcome {
    if format.is_empty() {
        let mut o = Outcome::ok();
        if let Some(name) = var {
            o.directive(Directive::SetVar {
                name,
                value: Some(String::new()),
                export: false,
            });
        }
        return o;
    }
    let mut run = Run {
        p: Printer {
            ctx,
            o: Outcome::ok(),
            line: Vec::new(),
            var: var.is_some().then(Vec::new),
            written: 0,
            closed: false,
            program: ctx.program,
        },
        args: rest,
        next: 0,
        utf8: utf8_locale(ctx.vars),
        conversion_error: false,
    };
    let status = loop {
        if let Flow::Stop(status) = run.pass(format) {
            break status;
        }
        // Again while arguments are left, if this pass used any.
        if run.next == 0 || run.next >= rest.len() {
            break i32::from(run.conversion_error);
        }
    };
    if ctx.program.is_some()
        && run.next == 0
        && let Some(first) = rest.first()
    {
        let first = String::from_utf8_lossy(first.as_bytes()).into_owned();
        run.p.error(&format!(
            "warning: ignoring excess arguments, starting with '{first}'"
        ));
    }
    let mut o = run.p.o;
    o.out(run.p.line);
    if let (Some(name), Some(bytes)) = (var, run.p.var) {
        // A shell variable ends at its first NUL byte.
        let bytes = bytes.split(|&b| b == 0).next().unwrap_or_default();
        o.directive(Directive::SetVar {
            name,
            value: Some(String::from_utf8_lossy(bytes).into_owned()),
            export: false,
        });
    }
    o.with_status(status)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Printf;
    use crate::Directive;
    use crate::testing::world::{World, directives, text};

    fn set(name: &str, value: &str) -> Directive {
        Directive::SetVar {
            name: name.into(),
            value: Some(value.into()),
            export: false,
        }
    }

    #[test]
    fn as_a_program_it_has_no_options_and_needs_a_format() {
        // `/usr/bin/printf` (coreutils 9.1).
        let w = World::empty().run_as_program();
        assert_eq!(
            text(&w.run(Printf, &["-v", "x"])),
            ("-v".into(), String::new(), 0)
        );
        assert_eq!(text(&w.run(Printf, &["--", "%s\n", "a"])).0, "a\n");
        assert_eq!(
            text(&w.run(Printf, &[])),
            (
                String::new(),
                "printf: missing operand\nTry 'printf --help' for more information.\n".into(),
                1
            )
        );
    }

    #[test]
    fn reuses_the_format_and_reports_bad_numbers() {
        // `bash -c "printf '%s=%d\n' a 1 b x c"`, bash 5.2.
        let w = World::empty();
        assert_eq!(
            text(&w.run(Printf, &["%s=%d\n", "a", "1", "b", "x", "c"])),
            (
                "a=1\nb=0\nc=0\n".into(),
                "printf: x: invalid number\n".into(),
                1
            )
        );
        assert_eq!(text(&w.run(Printf, &["%b|%s\n", r"a\cb", "x"])).0, "a");
        assert_eq!(
            text(&w.run(Printf, &[])),
            (
                String::new(),
                "printf: usage: printf [-v var] format [arguments]\n".into(),
                2
            )
        );
    }

    #[test]
    fn line_buffered_output_around_diagnostics() {
        // With `2>&1`, bash's error lands before the unfinished line, after finished ones.
        let w = World::empty();
        let o = w.run(Printf, &["x%dy\n", "a", "b"]);
        let steps: Vec<String> = o
            .steps
            .iter()
            .map(|s| match s {
                crate::Step::Out(b) => format!("out:{}", String::from_utf8_lossy(b)),
                crate::Step::ShellErr(b) | crate::Step::Err(b) => {
                    format!("err:{}", String::from_utf8_lossy(b))
                }
                _ => String::new(),
            })
            .collect();
        assert_eq!(
            steps,
            [
                "err:printf: a: invalid number\n",
                "out:x0y\n",
                "err:printf: b: invalid number\n",
                "out:x0y\n"
            ]
        );
    }

    #[test]
    fn assigns_with_v_and_n() {
        let w = World::empty();
        let o = w.run(Printf, &["-v", "v", "%s-%d\\n", "a", "5"]);
        assert_eq!(directives(&o), [set("v", "a-5\n")]);
        assert!(o.stdout().is_empty());
        let o = w.run(Printf, &["-v", "v", "a\\0b"]);
        assert_eq!(directives(&o), [set("v", "a")]);
        let o = w.run(Printf, &["ab%ncd%n", "x", "y"]);
        assert_eq!(directives(&o), [set("x", "2"), set("y", "4")]);
        assert_eq!(
            text(&w.run(Printf, &["-v", "1x", "a"])),
            (
                String::new(),
                "printf: `1x': not a valid identifier\n".into(),
                2
            )
        );
    }

    #[test]
    fn times_in_the_session_zone() {
        // NOW is 2024-01-02 03:04:05 UTC; -1 and no argument are now.
        let w = World::empty();
        assert_eq!(
            text(&w.run(Printf, &["%(%F %T)T"])).0,
            "2024-01-02 03:04:05"
        );
        assert_eq!(text(&w.run(Printf, &["%(%H)T", "-1"])).0, "03");
        let w = World::empty().var("TZ", "UTC-2", true);
        assert_eq!(text(&w.run(Printf, &["%(%H)T", "0"])).0, "02");
    }
}
