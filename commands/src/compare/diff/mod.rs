//! `diff [OPTION]... FILES`, GNU diffutils 3.8: compares two files line by line, or two
//! directories entry by entry (`-r` recursively). Normal, unified (`-u`, `-U N`), context
//! (`-c`, `-C N`), ed (`-e`) and side-by-side (`-y`, `-W N`, `--suppress-common-lines`)
//! output; `-q`, `-s`, `-i`, `-w`, `-b`, `-B`, `-a`, `-d`, `-N`, `--unidirectional-new-file`,
//! `-x PAT`, `--label`, `--color=never`. The script is GNU's own (see [`analyze`]); the files
//! are read whole through the view, as GNU slurps them, and the hunks stream out as they are
//! printed. What a comparison holds (both files and its per-line tables) is bounded by the
//! session's hold cap: past it `diff: memory exhausted`, status 2, as GNU's `xalloc_die`.
//! Exit status 0 same, 1 different, 2 trouble.

// a and b, x and y: the two sides.
#![allow(clippy::many_single_char_names)]

mod analyze;
mod output;

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;
use std::time::SystemTime;

use analyze::{Opts, Text, White};
use output::{Format, Style};

use crate::support::args::parse_args;
use crate::support::datetime::{broken_down, session_zone, strftime, to_epoch};
use crate::support::input::names_stdin;
use crate::text::lines::{EXHAUSTED, RecordError, read_held};
use crate::{Ctx, FileKind, FsError, Meta, Outcome, Stop, fnmatch};

/// What comparing two files holds per line beyond its bytes (where the line starts, its
/// equivalence class, the marks and the search's diagonals): about eight words.
const LINE_COST: u64 = 64;

/// Compare FILES line by line.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "diff [OPTION]... FILES")]
#[allow(clippy::struct_excessive_bools)] // one bool per GNU flag
pub struct DiffArgs {
    /// output a normal diff (the default)
    #[arg(long = "normal")]
    normal: bool,
    /// report only when files differ
    #[arg(short = 'q', long = "brief")]
    brief: bool,
    /// report when two files are the same
    #[arg(short = 's', long = "report-identical-files")]
    identical: bool,
    /// output 3 lines of copied context
    #[arg(short = 'c')]
    c: bool,
    /// output NUM lines of copied context
    #[arg(short = 'C', value_name = "NUM")]
    context_lines: Option<OsString>,
    /// output NUM (default 3) lines of copied context
    #[arg(long = "context", value_name = "NUM", num_args = 0..=1, require_equals = true, default_missing_value = "3")]
    context_long: Option<OsString>,
    /// output 3 lines of unified context
    #[arg(short = 'u')]
    u: bool,
    /// output NUM lines of unified context
    #[arg(short = 'U', value_name = "NUM")]
    unified_lines: Option<OsString>,
    /// output NUM (default 3) lines of unified context
    #[arg(long = "unified", value_name = "NUM", num_args = 0..=1, require_equals = true, default_missing_value = "3")]
    unified_long: Option<OsString>,
    /// output an ed script
    #[arg(short = 'e', long = "ed")]
    ed: bool,
    /// output in two columns
    #[arg(short = 'y', long = "side-by-side")]
    side: bool,
    /// output at most NUM (default 130) print columns
    #[arg(short = 'W', long = "width", value_name = "NUM")]
    width: Option<OsString>,
    /// do not output common lines
    #[arg(long = "suppress-common-lines")]
    suppress_common: bool,
    /// recursively compare any subdirectories found
    #[arg(short = 'r', long = "recursive")]
    recursive: bool,
    /// treat absent files as empty
    #[arg(short = 'N', long = "new-file")]
    new_file: bool,
    /// treat absent first files as empty
    #[arg(long = "unidirectional-new-file")]
    unidirectional: bool,
    /// exclude files that match PAT
    #[arg(short = 'x', long = "exclude", value_name = "PAT")]
    exclude: Vec<OsString>,
    /// ignore case differences in file contents
    #[arg(short = 'i', long = "ignore-case")]
    ignore_case: bool,
    /// ignore changes in the amount of white space
    #[arg(short = 'b', long = "ignore-space-change")]
    space_change: bool,
    /// ignore all white space
    #[arg(short = 'w', long = "ignore-all-space")]
    all_space: bool,
    /// ignore changes where lines are all blank
    #[arg(short = 'B', long = "ignore-blank-lines")]
    blank_lines: bool,
    /// treat all files as text
    #[arg(short = 'a', long = "text")]
    text: bool,
    /// try hard to find a smaller set of changes
    #[arg(short = 'd', long = "minimal")]
    minimal: bool,
    /// use LABEL instead of file name and timestamp (can be repeated)
    #[arg(long = "label", value_name = "LABEL")]
    label: Vec<OsString>,
    /// color output (only 'never' is emulated)
    #[arg(long = "color", value_name = "WHEN", num_args = 0..=1, require_equals = true, default_missing_value = "auto")]
    color: Option<String>,
    operands: Vec<OsString>,
}

/// GNU diff's usage errors: `diff: MSG` and `diff: Try 'diff --help' ...`, status 2.
fn usage(msg: &str) -> Stop {
    Stop::FailWith(
        format!("{msg}\ndiff: Try 'diff --help' for more information."),
        2,
    )
}

/// A context or width count (`diff: invalid context length 'x'`).
fn count(v: &OsStr, what: &str) -> Result<usize, Stop> {
    let b = v.as_bytes();
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return Err(usage(&format!(
            "invalid {what} '{}'",
            String::from_utf8_lossy(b)
        )));
    }
    Ok(b.iter().fold(0usize, |n, &d| {
        n.saturating_mul(10).saturating_add(usize::from(d - b'0'))
    }))
}

/// The options as given, before the operands (GNU's `switch_string` for `diff -r` lines).
fn switches(args: &[OsString]) -> String {
    let mut out = String::new();
    let mut takes = false;
    for a in args {
        let b = a.as_bytes();
        if takes {
            takes = false;
        } else if b == b"--" {
            out.push_str(" --");
            break;
        } else if let Some(long) = b.strip_prefix(b"--") {
            takes = !long.contains(&b'=')
                && ["width", "label", "exclude"]
                    .iter()
                    .any(|l| !long.is_empty() && l.as_bytes().starts_with(long));
        } else if b.len() > 1 && b.first() == Some(&b'-') {
            let shorts = b.get(1..).unwrap_or_default();
            if let Some(p) = shorts.iter().position(|c| b"CUWx".contains(c)) {
                takes = p + 1 == shorts.len();
            }
        } else {
            continue;
        }
        out.push(' ');
        out.push_str(&sh_quote(b));
    }
    out
}

/// gnulib's `sh_quote`, as diff shows its options: quoted when a character is special to the
/// shell anywhere (`=` and `#` included), `'` written `'\''`.
fn sh_quote(b: &[u8]) -> String {
    let text = String::from_utf8_lossy(b);
    if !b.is_empty()
        && !b
            .iter()
            .any(|c| b"\t\n !\"#$&'()*;<=>?[\\]^`{|}~".contains(c))
    {
        return text.into_owned();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[allow(clippy::struct_excessive_bools)]
struct Run<'c, 'a> {
    ctx: &'c Ctx<'a>,
    style: Style,
    opts: Opts,
    brief: bool,
    identical: bool,
    recursive: bool,
    new_file: bool,
    unidirectional: bool,
    text: bool,
    exclude: Vec<OsString>,
    labels: [Option<OsString>; 2],
    switches: String,
    o: Outcome,
    /// The output is no longer read.
    closed: bool,
}

/// One side of a comparison.
struct Side {
    name: OsString,
    path: PathBuf,
    stdin: bool,
    meta: Option<Meta>,
    /// The stat error, for `diff: NAME: strerror`.
    error: Option<FsError>,
    /// Absent, and compared as empty (`-N`).
    nonexistent: bool,
}

impl Side {
    fn is_dir(&self) -> bool {
        self.meta.as_ref().is_some_and(Meta::is_dir)
    }
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a: DiffArgs = parse_args(args).map_err(|e| match e {
        Stop::Usage(m) | Stop::UsageWith(m, _) => usage(&m),
        other => other,
    })?;
    let mut formats = Vec::new();
    if a.normal {
        formats.push(Format::Normal);
    }
    if a.c || a.context_lines.is_some() || a.context_long.is_some() {
        formats.push(Format::Context);
    }
    if a.u || a.unified_lines.is_some() || a.unified_long.is_some() {
        formats.push(Format::Unified);
    }
    if a.ed {
        formats.push(Format::Ed);
    }
    if a.side {
        formats.push(Format::Side);
    }
    formats.dedup();
    if formats.len() > 1 {
        return Err(usage("conflicting output style options"));
    }
    let format = formats.first().copied().unwrap_or(Format::Normal);
    let mut context = 0;
    for v in [
        &a.context_lines,
        &a.context_long,
        &a.unified_lines,
        &a.unified_long,
    ]
    .into_iter()
    .flatten()
    {
        context = count(v, "context length")?;
    }
    if matches!(format, Format::Context | Format::Unified)
        && a.context_lines.is_none()
        && a.context_long.is_none()
        && a.unified_lines.is_none()
        && a.unified_long.is_none()
    {
        context = 3;
    }
    let width = match &a.width {
        Some(w) => count(w, "width")?,
        None => 130,
    };
    if let Some(c) = &a.color
        && !["never", "auto", "always"].contains(&c.as_str())
    {
        return Err(usage(&format!("invalid color '{c}'")));
    }
    if a.label.len() > 2 {
        return Err(usage("too many file label options"));
    }
    match a.operands.len() {
        0 => return Err(usage("missing operand after 'diff'")),
        1 => {
            return Err(usage(&format!(
                "missing operand after '{}'",
                a.operands
                    .first()
                    .map(|s| s.to_string_lossy())
                    .unwrap_or_default()
            )));
        }
        2 => {}
        _ => {
            return Err(usage(&format!(
                "extra operand '{}'",
                a.operands
                    .get(2)
                    .map(|s| s.to_string_lossy())
                    .unwrap_or_default()
            )));
        }
    }
    let white = if a.all_space {
        White::AllSpace
    } else if a.space_change {
        White::SpaceChange
    } else {
        White::None
    };
    let mut labels = a.label.iter().cloned().map(Some);
    let mut run = Run {
        ctx,
        style: Style {
            format,
            context,
            ignore_blank: a.blank_lines,
            white,
            width,
            suppress_common: a.suppress_common,
        },
        opts: Opts {
            ignore_case: a.ignore_case,
            white,
            horizon: context,
            robust: format != Format::Ed,
            minimal: a.minimal,
        },
        brief: a.brief,
        identical: a.identical,
        recursive: a.recursive,
        new_file: a.new_file,
        unidirectional: a.unidirectional,
        text: a.text,
        exclude: a.exclude.clone(),
        labels: [labels.next().flatten(), labels.next().flatten()],
        switches: switches(args),
        o: Outcome::ok(),
        closed: false,
    };
    let (n0, n1) = match (a.operands.first(), a.operands.get(1)) {
        (Some(x), Some(y)) => (x.clone(), y.clone()),
        _ => return Err(usage("missing operand after 'diff'")),
    };
    let status = run.top(n0, n1);
    run.o.status = status;
    Ok(run.o)
}

/// `a/b` as GNU's `file_name_concat` joins them (no doubled slash).
fn join(dir: &OsStr, name: &OsStr) -> OsString {
    let mut v = dir.as_bytes().to_vec();
    if !v.ends_with(b"/") {
        v.push(b'/');
    }
    v.extend_from_slice(name.as_bytes());
    OsString::from_vec(v)
}

fn basename(name: &OsStr) -> OsString {
    let b = name.as_bytes();
    let t = b.strip_suffix(b"/").unwrap_or(b);
    let base = t.rsplit(|&c| c == b'/').next().unwrap_or(t);
    OsString::from_vec(base.to_vec())
}

fn file_type(m: Option<&Meta>) -> &'static str {
    match m.map(|m| (m.kind, m.len)) {
        Some((FileKind::Dir, _)) => "directory",
        Some((FileKind::File, 0)) => "regular empty file",
        Some((FileKind::Symlink, _)) => "symbolic link",
        Some((FileKind::Fifo, _)) => "fifo",
        Some((FileKind::Socket, _)) => "socket",
        Some((FileKind::CharDevice(_), _)) => "character special file",
        Some((FileKind::BlockDevice(_), _)) => "block special file",
        _ => "regular file",
    }
}

impl Run<'_, '_> {
    fn side(&self, name: OsString) -> Side {
        let stdin = name == "-" || names_stdin(self.ctx, &name);
        let path = self.ctx.resolve(&name);
        let (meta, error) = if stdin {
            (None, None)
        } else {
            match self.ctx.fs.stat(&path, true) {
                Ok(m) => (Some(m), None),
                Err(e) => (None, Some(e)),
            }
        };
        Side {
            name,
            path,
            stdin,
            meta,
            error,
            nonexistent: false,
        }
    }

    fn error(&mut self, name: &OsStr, e: &FsError) {
        self.o.err(format!(
            "diff: {}: {}\n",
            name.to_string_lossy(),
            e.strerror()
        ));
    }

    /// More to hold than the hold cap: GNU's `memory exhausted` (status 2), and nothing more
    /// is compared.
    fn exhausted(&mut self) -> i32 {
        self.o.err(format!("diff: {EXHAUSTED}\n"));
        self.closed = true;
        2
    }

    fn message(&mut self, text: &str) {
        self.o.out(text);
        if !self.ctx.flush(&mut self.o) {
            self.closed = true;
        }
    }

    fn label(&self, f: usize, name: &OsStr) -> String {
        self.labels.get(f).and_then(Option::as_ref).map_or_else(
            || name.to_string_lossy().into_owned(),
            |l| l.to_string_lossy().into_owned(),
        )
    }

    /// The top-level comparison of the two operands.
    fn top(&mut self, n0: OsString, n1: OsString) -> i32 {
        let mut s = [self.side(n0), self.side(n1)];
        self.mark_nonexistent(&mut s, false);
        let mut status = 0;
        for side in &s {
            if let (Some(e), false) = (&side.error, side.nonexistent) {
                let (n, e) = (side.name.clone(), e.clone());
                self.error(&n, &e);
                status = 2;
            }
        }
        if status != 0 {
            return status;
        }
        let [s0, s1] = s;
        if s0.is_dir() != s1.is_dir() && !s0.nonexistent && !s1.nonexistent {
            // A directory and a file: the file of that name in the directory.
            let (dir, file, f) = if s0.is_dir() {
                (&s0, &s1, 0)
            } else {
                (&s1, &s0, 1)
            };
            if file.stdin {
                self.o.err("diff: cannot compare '-' to a directory\n");
                return 2;
            }
            let inner = self.side(join(&dir.name, &basename(&file.name)));
            if let Some(e) = &inner.error {
                let (n, e) = (inner.name.clone(), e.clone());
                self.error(&n, &e);
                return 2;
            }
            let file = self.side(file.name.clone());
            return if f == 0 {
                self.pair(&inner, &file, false)
            } else {
                self.pair(&file, &inner, false)
            };
        }
        self.pair(&s0, &s1, false)
    }

    /// `-N` and `--unidirectional-new-file`: which absent sides count as empty.
    fn mark_nonexistent(&self, s: &mut [Side; 2], nested: bool) {
        for f in 0..2 {
            let other_ok = s.get(1 - f).is_some_and(|o| o.error.is_none());
            if let Some(side) = s.get_mut(f)
                && (self.new_file || (f == 0 && self.unidirectional))
                && matches!(side.error, Some(FsError::NotFound))
                && (nested || other_ok)
            {
                side.nonexistent = true;
            }
        }
        // An absent side takes the other's type (an absent directory is an empty one).
        let kinds = [s[0].meta.clone(), s[1].meta.clone()];
        for (f, side) in s.iter_mut().enumerate() {
            if side.nonexistent {
                side.meta = kinds.get(1 - f).cloned().flatten().map(|mut m| {
                    m.len = 0;
                    m.mtime = SystemTime::UNIX_EPOCH;
                    m
                });
            }
        }
    }

    /// `compare_files` once both sides are known.
    fn pair(&mut self, s0: &Side, s1: &Side, nested: bool) -> i32 {
        if self.closed {
            return 0;
        }
        let (d0, d1) = (s0.is_dir(), s1.is_dir());
        if d0 && d1 {
            if nested && !self.recursive {
                let t = format!(
                    "Common subdirectories: {} and {}\n",
                    s0.name.to_string_lossy(),
                    s1.name.to_string_lossy()
                );
                self.message(&t);
                return 0;
            }
            return self.dirs(s0, s1);
        }
        let regular = |s: &Side| {
            s.stdin
                || s.meta
                    .as_ref()
                    .is_some_and(|m| matches!(m.kind, FileKind::File))
        };
        if d0 || d1 || (nested && !(regular(s0) && regular(s1))) {
            if s0.nonexistent || s1.nonexistent {
                let (dir, name) = if s0.nonexistent { (s1, s0) } else { (s0, s1) };
                let parent = dir.name.as_bytes();
                let cut = parent.len() - basename(&dir.name).len();
                let parent = parent.get(..cut.saturating_sub(1)).unwrap_or_default();
                let t = format!(
                    "Only in {}: {}\n",
                    String::from_utf8_lossy(parent),
                    basename(&name.name).to_string_lossy()
                );
                self.message(&t);
                return 1;
            }
            let t = format!(
                "File {} is a {} while file {} is a {}\n",
                self.label(0, &s0.name),
                file_type(s0.meta.as_ref()),
                self.label(1, &s1.name),
                file_type(s1.meta.as_ref())
            );
            self.message(&t);
            return 1;
        }
        self.files(s0, s1, nested)
    }

    fn read(&mut self, s: &Side) -> Result<Vec<u8>, i32> {
        if s.nonexistent {
            return Ok(Vec::new());
        }
        if s.stdin {
            let mut r = self.ctx.stdin;
            return read_held(self.ctx, &mut r).map_err(|e| match e {
                RecordError::TooLong => self.exhausted(),
                RecordError::Io(e) => {
                    self.error(&s.name.clone(), &e);
                    2
                }
            });
        }
        self.ctx.fs.read(&s.path).map_err(|e| {
            self.error(&s.name.clone(), &e);
            2
        })
    }

    /// `diff_2_files`.
    fn files(&mut self, s0: &Side, s1: &Side, nested: bool) -> i32 {
        let b0 = match self.read(s0) {
            Ok(b) => b,
            Err(st) => return st,
        };
        let b1 = if s1.stdin && s0.stdin {
            b0.clone()
        } else {
            match self.read(s1) {
                Ok(b) => b,
                Err(st) => return st,
            }
        };
        let (l0, l1) = (self.label(0, &s0.name), self.label(1, &s1.name));
        let binary = |b: &[u8]| b.get(..4096.min(b.len())).unwrap_or(b).contains(&0);
        let plain =
            self.opts.white == White::None && !self.opts.ignore_case && !self.style.ignore_blank;
        if !self.text && (binary(&b0) || binary(&b1) || (self.brief && plain)) {
            if b0 == b1 {
                return self.same(&l0, &l1);
            }
            let t = if self.brief {
                format!("Files {l0} and {l1} differ\n")
            } else {
                format!("Binary files {l0} and {l1} differ\n")
            };
            self.message(&t);
            return 1;
        }
        let cost = |b: &[u8]| {
            let lines = memchr::memchr_iter(b'\n', b).count() as u64 + 1;
            (b.len() as u64).saturating_add(lines.saturating_mul(LINE_COST))
        };
        if cost(&b0).saturating_add(cost(&b1)) > self.ctx.hold_bytes() {
            return self.exhausted();
        }
        let (t0, t1) = (Text::new(b0), Text::new(b1));
        let script = analyze::diff(&t0, &t1, &self.opts);
        let changes = if self.style.ignore_blank {
            script.iter().any(|c| {
                let one = std::slice::from_ref(c);
                output::has_change(one, &t0, &t1, &self.style)
            })
        } else {
            !script.is_empty()
        };
        if self.brief {
            if changes {
                self.message(&format!("Files {l0} and {l1} differ\n"));
                return 1;
            }
            return self.same(&l0, &l1);
        }
        let mut status = i32::from(changes);
        if changes || self.style.format == Format::Side {
            let mut header = Vec::new();
            if nested {
                header.extend_from_slice(
                    format!(
                        "diff{} {} {}\n",
                        self.switches,
                        s0.name.to_string_lossy(),
                        s1.name.to_string_lossy()
                    )
                    .as_bytes(),
                );
            }
            match self.style.format {
                Format::Unified => {
                    header.extend(self.file_label("---", 0, s0));
                    header.extend(self.file_label("+++", 1, s1));
                }
                Format::Context => {
                    header.extend(self.file_label("***", 0, s0));
                    header.extend(self.file_label("---", 1, s1));
                }
                _ => {}
            }
            let style = self.style;
            if !output::print(
                &script,
                &t0,
                &t1,
                &style,
                &mut header,
                &mut self.o,
                self.ctx,
            ) {
                self.closed = true;
            }
        } else if !changes {
            status = self.same(&l0, &l1);
        }
        if self.style.format == Format::Ed {
            for (f, (t, s)) in [(&t0, s0), (&t1, s1)].into_iter().enumerate() {
                if t.missing_newline {
                    let l = self.label(f, &s.name);
                    self.o
                        .err(format!("diff: {l}: No newline at end of file\n\n"));
                    status = 2;
                }
            }
        }
        status
    }

    fn same(&mut self, l0: &str, l1: &str) -> i32 {
        if self.identical {
            self.message(&format!("Files {l0} and {l1} are identical\n"));
        }
        0
    }

    /// `--- NAME\tTIME` (or the label).
    fn file_label(&self, mark: &str, f: usize, s: &Side) -> Vec<u8> {
        if let Some(l) = self.labels.get(f).and_then(Option::as_ref) {
            let mut v = format!("{mark} ").into_bytes();
            v.extend_from_slice(l.as_bytes());
            v.push(b'\n');
            return v;
        }
        let mtime = if s.stdin {
            self.ctx.now
        } else {
            s.meta.as_ref().map_or(SystemTime::UNIX_EPOCH, |m| m.mtime)
        };
        let (secs, nsec) = to_epoch(mtime);
        let tm = broken_down(secs, nsec, &session_zone(self.ctx));
        let mut v = format!("{mark} ").into_bytes();
        v.extend_from_slice(s.name.as_bytes());
        v.push(b'\t');
        // Under LC_ALL=C the context format keeps the traditional `ctime` form.
        let format: &[u8] = if self.style.format == Format::Context {
            b"%a %b %e %H:%M:%S %Y"
        } else {
            b"%Y-%m-%d %H:%M:%S.%N %z"
        };
        v.extend(strftime(format, &tm));
        v.push(b'\n');
        v
    }

    fn excluded(&self, name: &OsStr) -> bool {
        self.exclude
            .iter()
            .any(|p| fnmatch(p.as_bytes(), name.as_bytes(), false))
    }

    /// `diff_dirs`: the two listings merged in name order.
    fn dirs(&mut self, s0: &Side, s1: &Side) -> i32 {
        let list = |s: &Side, run: &mut Self| -> Result<Vec<OsString>, i32> {
            if s.nonexistent {
                return Ok(Vec::new());
            }
            match run.ctx.fs.read_dir(&s.path) {
                Ok(v) => {
                    let mut names: Vec<OsString> = v
                        .into_iter()
                        .map(|e| e.name)
                        .filter(|n| !run.excluded(n))
                        .collect();
                    names.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
                    Ok(names)
                }
                Err(e) => {
                    run.error(&s.name.clone(), &e);
                    Err(2)
                }
            }
        };
        let n0 = match list(s0, self) {
            Ok(v) => v,
            Err(st) => return st,
        };
        let n1 = match list(s1, self) {
            Ok(v) => v,
            Err(st) => return st,
        };
        let (mut i, mut j) = (0, 0);
        let mut status = 0;
        while (i < n0.len() || j < n1.len()) && !self.closed {
            let (a, b) = (n0.get(i), n1.get(j));
            let order = match (a, b) {
                (Some(x), Some(y)) => x.as_bytes().cmp(y.as_bytes()),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            let (name, in0, in1) = match order {
                std::cmp::Ordering::Less => (a, true, false),
                std::cmp::Ordering::Greater => (b, false, true),
                std::cmp::Ordering::Equal => (a, true, true),
            };
            let Some(name) = name.cloned() else { break };
            if in0 {
                i += 1;
            }
            if in1 {
                j += 1;
            }
            let st = if in0 && in1 || self.new_file || (self.unidirectional && in1) {
                let mut s = [
                    self.side(join(&s0.name, &name)),
                    self.side(join(&s1.name, &name)),
                ];
                self.mark_nonexistent(&mut s, true);
                let [x, y] = s;
                self.pair(&x, &y, true)
            } else {
                let dir = if in0 { &s0.name } else { &s1.name };
                let t = format!(
                    "Only in {}: {}\n",
                    dir.to_string_lossy(),
                    name.to_string_lossy()
                );
                self.message(&t);
                1
            };
            status = status.max(st);
        }
        status
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
