//! `uniq [OPTION]... [INPUT [OUTPUT]]`, GNU coreutils 9.1: filters adjacent matching lines
//! (`-c -d -D[METHOD] -u -i -f N -s N -w N -z --group[=METHOD]`, the obsolete `-N` and `+N`).
//! The input is read as a stream, one line at a time (one longer than the session's hold cap
//! is `memory exhausted`, status 1), and the output streams; OUTPUT is written in chunks of
//! [`Op::WriteFile`](crate::Op::WriteFile) (created even when empty, as GNU's `freopen`
//! does).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::argmatch::argmatch;
use crate::support::args::parse_args;
use crate::support::input::open_input;
use crate::text::lines::{EXHAUSTED, FILE_CHUNK, FileOut, RecordError, Records};
use crate::{Ctx, Outcome, quote, quote_if_needed, quote_locale};

/// The output gathered before it is handed over.
const CHUNK: usize = 32 * 1024;

/// Filter adjacent matching lines from INPUT (or standard input), writing to OUTPUT (or
/// standard output).
#[derive(clap::Parser, Debug)]
#[command(override_usage = "uniq [OPTION]... [INPUT [OUTPUT]]")]
#[allow(clippy::struct_excessive_bools)] // one bool per GNU flag
pub struct UniqArgs {
    /// prefix lines by the number of occurrences
    #[arg(short = 'c', long = "count")]
    count: bool,
    /// only print duplicate lines, one for each group
    #[arg(short = 'd', long = "repeated")]
    repeated: bool,
    /// print all duplicate lines
    #[arg(short = 'D')]
    all_repeated_flag: bool,
    /// like -D, but allow separating groups with an empty line (METHOD: none, prepend,
    /// separate)
    #[arg(
        long = "all-repeated",
        value_name = "METHOD",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "none"
    )]
    all_repeated: Option<String>,
    /// avoid comparing the first N fields
    #[arg(short = 'f', long = "skip-fields", value_name = "N")]
    skip_fields: Option<OsString>,
    /// show all items, separating groups with an empty line (METHOD: separate, prepend,
    /// append, both)
    #[arg(
        long = "group",
        value_name = "METHOD",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "separate"
    )]
    group: Option<String>,
    /// ignore differences in case when comparing
    #[arg(short = 'i', long = "ignore-case")]
    ignore_case: bool,
    /// avoid comparing the first N characters
    #[arg(short = 's', long = "skip-chars", value_name = "N")]
    skip_chars: Option<OsString>,
    /// only print unique lines
    #[arg(short = 'u', long = "unique")]
    unique: bool,
    /// line delimiter is NUL, not newline
    #[arg(short = 'z', long = "zero-terminated")]
    zero: bool,
    /// compare no more than N characters in lines
    #[arg(short = 'w', long = "check-chars", value_name = "N")]
    check_chars: Option<OsString>,
    operands: Vec<OsString>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delimit {
    None,
    Prepend,
    Separate,
    Append,
    Both,
}

/// A count option's value (`xstrtoumax`; too large saturates), or GNU's message.
fn count_arg(v: &OsStr, what: &str) -> Result<usize, Stop> {
    let b = v.as_bytes();
    let digits = b.strip_prefix(b"+").unwrap_or(b);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(Stop::Fail(format!("{}: {what}", quote_if_needed(v))));
    }
    Ok(digits.iter().fold(0usize, |n, &d| {
        n.checked_mul(10)
            .and_then(|n| n.checked_add(usize::from(d - b'0')))
            .unwrap_or(usize::MAX)
    }))
}

/// The obsolete forms: `-N` is `-f N`; `+N` among the operands is `-s N`.
fn normalize(args: &[OsString]) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut done = false;
    let mut takes_next = false;
    for a in args {
        let b = a.as_bytes();
        if takes_next {
            takes_next = false;
            out.push(a.clone());
            continue;
        }
        if !done {
            takes_next = value_follows(b);
            if b == b"--" {
                done = true;
            } else if let Some(d) = b
                .strip_prefix(b"-")
                .filter(|d| !d.is_empty() && d.iter().all(u8::is_ascii_digit))
            {
                let mut s = OsString::from("--skip-fields=");
                s.push(OsStr::from_bytes(d));
                out.push(s);
                continue;
            }
        }
        if let Some(d) = b
            .strip_prefix(b"+")
            .filter(|d| !d.is_empty() && d.iter().all(u8::is_ascii_digit))
        {
            let mut s = OsString::from("--skip-chars=");
            s.push(OsStr::from_bytes(d));
            // Options must precede `--` for the shared getopt: put it first.
            out.insert(0, s);
            continue;
        }
        out.push(a.clone());
    }
    out
}

/// Whether an option argument leaves its value to the next argument (`-f N`, `-cw N`,
/// `--skip-chars N`).
fn value_follows(b: &[u8]) -> bool {
    if let Some(long) = b.strip_prefix(b"--") {
        return !long.contains(&b'=')
            && ["skip-fields", "skip-chars", "check-chars"]
                .iter()
                .any(|l| !long.is_empty() && l.as_bytes().starts_with(long));
    }
    let Some(shorts) = b.strip_prefix(b"-") else {
        return false;
    };
    match shorts.iter().position(|c| matches!(c, b'f' | b's' | b'w')) {
        Some(p) => p + 1 == shorts.len(),
        None => false,
    }
}

/// What to print and how to compare.
#[allow(clippy::struct_excessive_bools)]
struct Mode {
    skip_fields: usize,
    skip_chars: usize,
    check_chars: usize,
    ignore_case: bool,
    count: bool,
    output_unique: bool,
    output_first_repeated: bool,
    output_later_repeated: bool,
    delimit: Delimit,
    grouping: Delimit,
    eol: u8,
}

impl Mode {
    /// GNU's `find_field`: the part of a line (without its delimiter) that is compared.
    fn field<'l>(&self, line: &'l [u8]) -> &'l [u8] {
        let blank = |c: &u8| matches!(c, b' ' | b'\t');
        let mut i = 0;
        for _ in 0..self.skip_fields {
            while line.get(i).is_some_and(blank) {
                i += 1;
            }
            while line.get(i).is_some_and(|c| !blank(c)) {
                i += 1;
            }
            if i >= line.len() {
                break;
            }
        }
        let start = i.saturating_add(self.skip_chars).min(line.len());
        let rest = line.get(start..).unwrap_or_default();
        rest.get(..self.check_chars.min(rest.len())).unwrap_or(rest)
    }

    fn different(&self, a: &[u8], b: &[u8]) -> bool {
        if self.ignore_case {
            !a.eq_ignore_ascii_case(b)
        } else {
            a != b
        }
    }

    /// GNU's `writeline`.
    fn write(&self, out: &mut Vec<u8>, line: &[u8], matched: bool, count: u64) {
        let wanted = if count == 0 {
            self.output_unique
        } else if !matched {
            self.output_first_repeated
        } else {
            self.output_later_repeated
        };
        if !wanted {
            return;
        }
        if self.count {
            out.extend_from_slice(format!("{:7} ", count + 1).as_bytes());
        }
        out.extend_from_slice(line);
        out.push(self.eol);
    }

    /// Runs GNU's `check_file` over the lines.
    /// `out` is handed to `flush` whenever it passes [`CHUNK`] bytes (false from it: stop).
    fn filter(
        &self,
        lines: &mut dyn Iterator<Item = Result<Vec<u8>, RecordError>>,
        out: &mut Vec<u8>,
        flush: &mut dyn FnMut(&mut Vec<u8>) -> bool,
    ) -> Result<(), RecordError> {
        let simple = self.output_unique && self.output_first_repeated && !self.count;
        let mut first_group_printed = false;
        let Some(first) = lines.next().transpose()? else {
            return Ok(());
        };
        if simple {
            let g = self.grouping;
            if matches!(g, Delimit::Prepend | Delimit::Both) {
                out.push(self.eol);
            }
            out.extend_from_slice(&first);
            out.push(self.eol);
            first_group_printed = true;
            let mut prev = first;
            for line in lines {
                let line = line?;
                if out.len() >= CHUNK && !flush(out) {
                    return Ok(());
                }
                let new_group = self.different(self.field(&line), self.field(&prev));
                if new_group
                    && g != Delimit::None
                    && (matches!(g, Delimit::Prepend | Delimit::Both)
                        || (first_group_printed
                            && matches!(g, Delimit::Append | Delimit::Separate)))
                {
                    out.push(self.eol);
                }
                if new_group || g != Delimit::None {
                    out.extend_from_slice(&line);
                    out.push(self.eol);
                    prev = line;
                }
            }
            if matches!(g, Delimit::Both | Delimit::Append) {
                out.push(self.eol);
            }
            return Ok(());
        }
        let mut prev = first;
        let mut match_count: u64 = 0;
        for line in lines {
            let line = line?;
            if out.len() >= CHUNK && !flush(out) {
                return Ok(());
            }
            let matched = !self.different(self.field(&line), self.field(&prev));
            if matched {
                match_count += 1;
            }
            if self.delimit != Delimit::None {
                if !matched {
                    if match_count > 0 {
                        first_group_printed = true;
                    }
                } else if match_count == 1
                    && (self.delimit == Delimit::Prepend
                        || (self.delimit == Delimit::Separate && first_group_printed))
                {
                    out.push(self.eol);
                }
            }
            if !matched || self.output_later_repeated {
                self.write(out, &prev, matched, match_count);
                prev = line;
                if !matched {
                    match_count = 0;
                }
            }
        }
        self.write(out, &prev, false, match_count);
        Ok(())
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<UniqArgs>(&normalize(args))?;
    if let Some(extra) = a.operands.get(2) {
        return Err(Stop::Usage(format!(
            "extra operand {}",
            quote_locale(extra)
        )));
    }
    let counts = [
        (&a.skip_fields, "invalid number of fields to skip", 0),
        (&a.skip_chars, "invalid number of bytes to skip", 0),
        (
            &a.check_chars,
            "invalid number of bytes to compare",
            usize::MAX,
        ),
    ];
    let mut values = [0usize; 3];
    for (slot, (v, what, default)) in values.iter_mut().zip(counts) {
        *slot = match v {
            Some(v) => count_arg(v, what)?,
            None => default,
        };
    }
    let [skip_fields, skip_chars, check_chars] = values;
    let mut delimit = Delimit::None;
    let all_repeated = a.all_repeated_flag || a.all_repeated.is_some();
    if let Some(m) = &a.all_repeated {
        let names = [
            ("none", Delimit::None),
            ("prepend", Delimit::Prepend),
            ("separate", Delimit::Separate),
        ];
        delimit = argmatch("--all-repeated", m, &names)?;
    }
    let mut grouping = Delimit::None;
    if let Some(m) = &a.group {
        let names = [
            ("prepend", Delimit::Prepend),
            ("append", Delimit::Append),
            ("separate", Delimit::Separate),
            ("both", Delimit::Both),
        ];
        grouping = argmatch("--group", m, &names)?;
    }
    if a.group.is_some() && (a.count || a.repeated || all_repeated || a.unique) {
        return Err(Stop::Usage(
            "--group is mutually exclusive with -c/-d/-D/-u".into(),
        ));
    }
    if a.count && all_repeated {
        return Err(Stop::Usage(
            "printing all duplicated lines and repeat counts is meaningless".into(),
        ));
    }
    let mode = Mode {
        skip_fields,
        skip_chars,
        check_chars,
        ignore_case: a.ignore_case,
        count: a.count,
        output_unique: !(a.repeated || all_repeated),
        output_first_repeated: !a.unique,
        output_later_repeated: all_repeated,
        delimit,
        grouping,
        eol: if a.zero { 0 } else { b'\n' },
    };
    let input = a.operands.first().cloned().unwrap_or_else(|| "-".into());
    let reader = match open_input(ctx, &input) {
        Ok(r) => r,
        Err(e) => {
            let mut o = Outcome::status(1);
            o.err(format!("{}: {}: {e}\n", ctx.name, quote_if_needed(&input)));
            return Ok(o);
        }
    };
    let mut rec = Records::from_reader(reader, mode.eol);
    let eol = mode.eol;
    let line_cap = usize::try_from(ctx.hold_bytes()).unwrap_or(usize::MAX);
    let mut lines = std::iter::from_fn(move || {
        let mut buf = Vec::new();
        match rec.append_capped(&mut buf, line_cap) {
            Ok(false) => None,
            Ok(true) => {
                if buf.last() == Some(&eol) {
                    buf.pop();
                }
                Some(Ok(buf))
            }
            Err(e) => Some(Err(e)),
        }
    });
    let mut o = Outcome::ok();
    let mut file = match a.operands.get(1) {
        Some(out) if out != "-" => Some(FileOut::new(
            ctx.resolve(out),
            format!("{}: {}", ctx.name, quote_if_needed(out)),
            format!("{}: write error", ctx.name),
        )),
        _ => None,
    };
    let mut out = Vec::new();
    let mut stopped = false;
    let r = mode.filter(&mut lines, &mut out, &mut |buf| {
        let go = match &mut file {
            Some(f) if buf.len() >= FILE_CHUNK => f.write(ctx, &mut o, std::mem::take(buf)),
            Some(_) => true,
            None => {
                o.out(std::mem::take(buf));
                ctx.flush(&mut o)
            }
        };
        stopped |= !go;
        go
    });
    match &mut file {
        Some(f) if !stopped && (!f.started() || !out.is_empty()) => {
            f.write(ctx, &mut o, out);
        }
        Some(_) => {}
        None => {
            o.out(out);
        }
    }
    match r {
        Ok(()) => Ok(o),
        Err(RecordError::Io(_)) => {
            o.err(format!("uniq: error reading {}\n", quote(&input)));
            Ok(o.with_status(1))
        }
        Err(RecordError::TooLong) => {
            o.err(format!("{}: {EXHAUSTED}\n", ctx.name));
            Ok(o.with_status(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::Op;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text};

    const DUPES: &[u8] = b"apple\napple\nApple\nbanana\nbanana\nbanana\ncherry\napple\n";

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .dir("/s/d")
                .file("/s/dupes", DUPES)
                .file("/s/fields", b"1 a x\n2 a x\n3 b x\nc\n")
                .file("/s/nonl", b"a\na"),
        )
    }

    fn uniq(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Uniq, args))
    }

    fn out(s: &str) -> (String, String, i32) {
        (s.into(), String::new(), 0)
    }

    #[test]
    fn modes_as_gnu() {
        // Expected outputs copied from GNU uniq 9.1, LC_ALL=C, on the same bytes.
        let w = world();
        assert_eq!(
            uniq(&w, &["dupes"]),
            out("apple\nApple\nbanana\ncherry\napple\n")
        );
        assert_eq!(
            uniq(&w, &["-c", "dupes"]),
            out("      2 apple\n      1 Apple\n      3 banana\n      1 cherry\n      1 apple\n")
        );
        assert_eq!(uniq(&w, &["-d", "dupes"]), out("apple\nbanana\n"));
        assert_eq!(
            uniq(&w, &["-D", "dupes"]),
            out("apple\napple\nbanana\nbanana\nbanana\n")
        );
        assert_eq!(
            uniq(&w, &["--all-repeated=separate", "dupes"]),
            out("apple\napple\n\nbanana\nbanana\nbanana\n")
        );
        assert_eq!(
            uniq(&w, &["--all-repeated=prepend", "dupes"]),
            out("\napple\napple\n\nbanana\nbanana\nbanana\n")
        );
        assert_eq!(uniq(&w, &["-u", "dupes"]), out("Apple\ncherry\napple\n"));
        assert_eq!(
            uniq(&w, &["-ic", "dupes"]),
            out("      3 apple\n      3 banana\n      1 cherry\n      1 apple\n")
        );
        assert_eq!(
            uniq(&w, &["--group", "dupes"]),
            out("apple\napple\n\nApple\n\nbanana\nbanana\nbanana\n\ncherry\n\napple\n")
        );
        assert_eq!(
            uniq(&w, &["--group=both", "-i", "dupes"]),
            out("\napple\napple\nApple\n\nbanana\nbanana\nbanana\n\ncherry\n\napple\n\n")
        );
        assert_eq!(uniq(&w, &["-f1", "fields"]), out("1 a x\n3 b x\nc\n"));
        assert_eq!(uniq(&w, &["-1", "fields"]), out("1 a x\n3 b x\nc\n"));
        assert_eq!(
            uniq(&w, &["-s2", "-w1", "fields"]),
            out("1 a x\n3 b x\nc\n")
        );
        assert_eq!(uniq(&w, &["+2", "fields"]), out("1 a x\n3 b x\nc\n"));
        assert_eq!(uniq(&w, &["-w0", "dupes"]), out("apple\n"));
        assert_eq!(uniq(&w, &["nonl"]), out("a\n"));
        let w = world().stdin(b"x\0x\0y");
        assert_eq!(uniq(&w, &["-z"]), out("x\0y\0"));
        assert_eq!(uniq(&w, &["-zc", "-"]), out("      2 x\0      1 y\0"));
    }

    #[test]
    fn output_file() {
        let w = world();
        let o = w.run(crate::CommandName::Uniq, &["dupes", "out"]);
        assert_eq!(text(&o), out(""));
        assert_eq!(
            ops(&o),
            [Op::WriteFile {
                path: PathBuf::from("/s/out"),
                data: b"apple\nApple\nbanana\ncherry\napple\n".to_vec(),
                append: false
            }]
        );
        assert_eq!(
            o.effects().next().and_then(|e| e.on_err.clone()).as_deref(),
            Some("uniq: out")
        );
    }

    #[test]
    fn errors_as_gnu() {
        let w = world();
        let try_help = "Try 'uniq --help' for more information.\n";
        let cases: &[(&[&str], String)] = &[
            (&["nope"], "uniq: nope: No such file or directory\n".into()),
            (&["d"], "uniq: error reading 'd'\n".into()),
            (
                &["dupes", "o1", "o2"],
                format!("uniq: extra operand 'o2'\n{try_help}"),
            ),
            (
                &["-f", "x"],
                "uniq: x: invalid number of fields to skip\n".into(),
            ),
            (
                &["-s", "x"],
                "uniq: x: invalid number of bytes to skip\n".into(),
            ),
            (
                &["-w", "x"],
                "uniq: x: invalid number of bytes to compare\n".into(),
            ),
            (
                &["-f", "-1"],
                "uniq: -1: invalid number of fields to skip\n".into(),
            ),
            (
                &["--group", "-c"],
                format!("uniq: --group is mutually exclusive with -c/-d/-D/-u\n{try_help}"),
            ),
            (
                &["-D", "-c"],
                format!(
                    "uniq: printing all duplicated lines and repeat counts is meaningless\n{try_help}"
                ),
            ),
            (
                &["--all-repeated=x"],
                format!(
                    "uniq: invalid argument 'x' for '--all-repeated'\nValid arguments are:\n  - 'none'\n  - 'prepend'\n  - 'separate'\n{try_help}"
                ),
            ),
            (
                &["--group=x"],
                format!(
                    "uniq: invalid argument 'x' for '--group'\nValid arguments are:\n  - 'prepend'\n  - 'append'\n  - 'separate'\n  - 'both'\n{try_help}"
                ),
            ),
            (&["-x"], format!("uniq: invalid option -- 'x'\n{try_help}")),
        ];
        for (args, err) in cases {
            assert_eq!(uniq(&w, args), (String::new(), err.clone(), 1), "{args:?}");
        }
    }
}
