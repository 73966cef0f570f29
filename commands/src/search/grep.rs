//! `grep [OPTION]... PATTERNS [FILE]...`, GNU grep 3.8 in the C locale.
//!
//! Patterns (BRE by default, `-E`, `-F`, `-P`) are translated once into one `regex` crate
//! automaton (see [`crate::support::regex_gnu`]) compiled without Unicode, so bytes match bytes as in
//! the C locale. Files are read in large chunks and searched as a multi-line buffer: the
//! automaton runs over many lines at once and line boundaries are only looked for around a
//! match (memchr), which is what keeps `grep -r` on a large tree within reach of GNU. A match
//! that crosses a newline (possible with `-P` classes) is re-checked on its own line, since a
//! GNU match never spans lines.
//!
//! Deliberate differences, each for a stated reason:
//! - back-references (`\1`) cannot be expressed by a finite automaton: refused in one line,
//!   status 2, rather than matched wrongly;
//! - `-P` is the `regex` crate's syntax (no look-around, no back-references);
//! - `--color=always`/`auto` print no colour: the output is never a terminal the agent sees;
//! - GNU 3.8 reports a matching binary file on stderr (`grep: X: binary file matches`), and so
//!   does this one.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use memchr::{memchr, memchr_iter, memrchr};
use regex::bytes::{Regex, RegexBuilder};

use crate::Stop;
use crate::support::argmatch::argmatch;
use crate::support::args::{help_of, parse_args};
use crate::support::error::try_help;
use crate::support::fnmatch::fnmatch;
use crate::support::input::read_error;
use crate::support::paths::join_display;
use crate::support::regex_gnu::{self, Syntax};
use crate::{Ctx, FileKind, FsError, Outcome};

const USAGE: &str = "Usage: grep [OPTION]... PATTERNS [FILE]...\n";
/// How much is read at once; also the longest stretch held besides one line.
const CHUNK: usize = 256 * 1024;
const STDIN_NAME: &str = "(standard input)";

/// Search for PATTERNS in each FILE.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "grep [OPTION]... PATTERNS [FILE]...")]
#[allow(clippy::struct_excessive_bools)]
pub struct GrepArgs {
    /// PATTERNS are extended regular expressions
    #[arg(short = 'E', long = "extended-regexp")]
    extended: bool,
    /// PATTERNS are strings
    #[arg(short = 'F', long = "fixed-strings")]
    fixed: bool,
    /// PATTERNS are basic regular expressions
    #[arg(short = 'G', long = "basic-regexp")]
    basic: bool,
    /// PATTERNS are Perl regular expressions (the regex crate's syntax)
    #[arg(short = 'P', long = "perl-regexp")]
    perl: bool,
    /// use PATTERNS for matching
    #[arg(short = 'e', long = "regexp", value_name = "PATTERNS")]
    regexp: Vec<OsString>,
    /// take PATTERNS from FILE
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    file: Vec<OsString>,
    /// ignore case distinctions in patterns and data
    #[arg(
        short = 'i',
        short_alias = 'y',
        long = "ignore-case",
        overrides_with = "no_ignore_case"
    )]
    ignore_case: bool,
    /// do not ignore case distinctions (default)
    #[arg(long = "no-ignore-case", overrides_with = "ignore_case")]
    no_ignore_case: bool,
    /// match only whole words
    #[arg(short = 'w', long = "word-regexp")]
    word: bool,
    /// match only whole lines
    #[arg(short = 'x', long = "line-regexp")]
    line: bool,
    /// suppress error messages
    #[arg(short = 's', long = "no-messages")]
    no_messages: bool,
    /// select non-matching lines
    #[arg(short = 'v', long = "invert-match")]
    invert: bool,
    /// stop after NUM selected lines
    #[arg(short = 'm', long = "max-count", value_name = "NUM")]
    max_count: Option<OsString>,
    /// print the byte offset with output lines
    #[arg(short = 'b', long = "byte-offset")]
    byte_offset: bool,
    /// print line number with output lines
    #[arg(short = 'n', long = "line-number")]
    line_number: bool,
    /// flush output on every line (no effect here)
    #[arg(long = "line-buffered")]
    line_buffered: bool,
    /// print file name with output lines
    #[arg(short = 'H', long = "with-filename", overrides_with = "no_filename")]
    with_filename: bool,
    /// suppress the file name prefix on output
    #[arg(short = 'h', long = "no-filename", overrides_with = "with_filename")]
    no_filename: bool,
    /// use LABEL as the standard input file name prefix
    #[arg(long = "label", value_name = "LABEL")]
    label: Option<OsString>,
    /// show only nonempty parts of lines that match
    #[arg(short = 'o', long = "only-matching")]
    only_matching: bool,
    /// suppress all normal output
    #[arg(short = 'q', long = "quiet", alias = "silent")]
    quiet: bool,
    /// assume that binary files are TYPE; TYPE is 'binary', 'text', or 'without-match'
    #[arg(long = "binary-files", value_name = "TYPE")]
    binary_files: Option<String>,
    /// equivalent to --binary-files=text
    #[arg(short = 'a', long = "text")]
    text: bool,
    /// equivalent to --binary-files=without-match
    #[arg(short = 'I')]
    no_binary: bool,
    /// how to handle directories; ACTION is 'read', 'recurse', or 'skip'
    #[arg(short = 'd', long = "directories", value_name = "ACTION")]
    directories: Option<String>,
    /// how to handle devices, FIFOs and sockets; ACTION is 'read' or 'skip'
    #[arg(short = 'D', long = "devices", value_name = "ACTION")]
    devices: Option<String>,
    /// like --directories=recurse
    #[arg(short = 'r', long = "recursive")]
    recursive: bool,
    /// likewise, but follow all symlinks
    #[arg(short = 'R', long = "dereference-recursive")]
    dereference_recursive: bool,
    /// search only files that match GLOB (a file pattern)
    #[arg(long = "include", value_name = "GLOB")]
    include: Vec<OsString>,
    /// skip files that match GLOB
    #[arg(long = "exclude", value_name = "GLOB")]
    exclude: Vec<OsString>,
    /// skip files that match any file pattern from FILE
    #[arg(long = "exclude-from", value_name = "FILE")]
    exclude_from: Vec<OsString>,
    /// skip directories that match GLOB
    #[arg(long = "exclude-dir", value_name = "GLOB")]
    exclude_dir: Vec<OsString>,
    /// print only names of FILEs with no selected lines
    #[arg(short = 'L', long = "files-without-match")]
    files_without_match: bool,
    /// print only names of FILEs with selected lines
    #[arg(short = 'l', long = "files-with-matches")]
    files_with_matches: bool,
    /// print only a count of selected lines per FILE
    #[arg(short = 'c', long = "count")]
    count: bool,
    /// print 0 byte after FILE name
    #[arg(short = 'Z', long = "null")]
    null: bool,
    /// print NUM lines of leading context
    #[arg(short = 'B', long = "before-context", value_name = "NUM")]
    before: Option<OsString>,
    /// print NUM lines of trailing context
    #[arg(short = 'A', long = "after-context", value_name = "NUM")]
    after: Option<OsString>,
    /// print NUM lines of output context
    #[arg(short = 'C', long = "context", value_name = "NUM")]
    context: Option<OsString>,
    /// print SEP on line between matches with context
    #[arg(long = "group-separator", value_name = "SEP")]
    group_separator: Option<OsString>,
    /// do not print separator for matches with context
    #[arg(long = "no-group-separator")]
    no_group_separator: bool,
    /// use markers to highlight the matching strings (never done here); WHEN is 'always',
    /// 'never', or 'auto'
    #[arg(long = "color", alias = "colour", value_name = "WHEN", num_args = 0..=1, default_missing_value = "auto")]
    color: Option<String>,
    /// do not strip CR characters at EOL (no effect here)
    #[arg(short = 'U', long = "binary")]
    binary: bool,
    operands: Vec<OsString>,
}

/// GNU grep prints its Usage line between a usage error's message and the Try line.
fn with_usage_line(stop: Stop) -> Stop {
    let usage = USAGE.trim_end();
    match stop {
        Stop::Usage(msg) => Stop::Usage(format!("{msg}\n{usage}")),
        Stop::UsageWith(msg, status) => Stop::UsageWith(format!("{msg}\n{usage}"), status),
        other => other,
    }
}

/// Rewrites GNU's `-NUM` (same as `--context=NUM`) into `-C NUM`, leaving option values alone.
fn expand_context_digits(args: &[OsString]) -> Vec<OsString> {
    const VALUED: &[u8] = b"efmdDABC";
    let mut out = Vec::with_capacity(args.len());
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        let b = a.as_bytes();
        if b == b"--" {
            out.extend(args.iter().skip(i - 1).cloned());
            break;
        }
        if b.len() > 1 && b.first() == Some(&b'-') && b.iter().skip(1).all(u8::is_ascii_digit) {
            out.push(OsString::from("-C"));
            out.push(OsStr::from_bytes(b.get(1..).unwrap_or_default()).to_os_string());
            continue;
        }
        out.push(a.clone());
        // A value-taking option whose value is the next argument.
        let takes_next = if let Some(long) = b.strip_prefix(b"--") {
            !long.contains(&b'=')
                && [
                    "regexp",
                    "file",
                    "max-count",
                    "label",
                    "binary-files",
                    "directories",
                    "devices",
                    "include",
                    "exclude",
                    "exclude-from",
                    "exclude-dir",
                    "before-context",
                    "after-context",
                    "context",
                    "group-separator",
                ]
                .iter()
                .any(|o| !long.is_empty() && o.as_bytes().starts_with(long))
        } else if b.len() > 1 && b.first() == Some(&b'-') {
            let shorts = b.get(1..).unwrap_or_default();
            shorts
                .iter()
                .position(|c| VALUED.contains(c))
                .is_some_and(|p| p + 2 == b.len())
        } else {
            false
        };
        if takes_next && let Some(v) = args.get(i) {
            out.push(v.clone());
            i += 1;
        }
    }
    out
}

fn parse_num(v: &OsStr) -> Option<u64> {
    let s = std::str::from_utf8(v.as_bytes()).ok()?;
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    // GNU saturates huge values.
    Some(s.parse::<u64>().unwrap_or(u64::MAX))
}

#[derive(Clone, Copy, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)]
enum Binary {
    Binary,
    Text,
    WithoutMatch,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Lines,
    Count,
    FilesWith,
    FilesWithout,
    Quiet,
}

/// Everything the search needs, validated.
struct Opts {
    invert: bool,
    mode: Mode,
    max: u64,
    before: usize,
    after: usize,
    line_number: bool,
    byte_offset: bool,
    only_matching: bool,
    null: bool,
    binary: Binary,
    separator: Option<Vec<u8>>,
    no_messages: bool,
    recursive: bool,
    deref: bool,
    skip_dirs: bool,
    skip_devices: bool,
    include: Vec<Vec<u8>>,
    exclude: Vec<Vec<u8>>,
    exclude_dir: Vec<Vec<u8>>,
    label: Vec<u8>,
}

impl Opts {
    fn context(&self) -> bool {
        self.before > 0 || self.after > 0
    }
    fn need_lines(&self) -> bool {
        self.line_number || self.context()
    }
}

/// Whether a glob matches a name (recursion: the base name) or, for a command-line name,
/// any suffix of it that starts after a `/` (GNU's `EXCLUDE_ANCHORED` off).
fn glob_hits(globs: &[Vec<u8>], name: &[u8], command_line: bool) -> bool {
    globs.iter().any(|g| {
        if fnmatch(g, name, false) {
            return true;
        }
        command_line
            && memchr_iter(b'/', name).any(|i| {
                name.get(i + 1..).is_some_and(|rest| {
                    rest.first().is_some_and(|&c| c != b'/') && fnmatch(g, rest, false)
                })
            })
    })
}

/// Per-file search state. Offsets are absolute positions in the file.
struct FileRun {
    /// File offset of `buf[0]`.
    base: u64,
    /// Lines are counted up to here; `lineno` is the number of the line there.
    count_pos: u64,
    lineno: u64,
    /// Offset just past the last line printed (or shown as context).
    printed_until: u64,
    after_left: usize,
    /// Number of the last line output, for the `--` separator.
    last_out: Option<u64>,
    selected: u64,
    binary: bool,
    /// Stop reading this file.
    done: bool,
    /// The maximum was reached: only trailing context remains.
    stopping: bool,
}

struct Grep<'a> {
    ctx: &'a Ctx<'a>,
    o: Opts,
    re: Option<Regex>,
    /// For `-w`: the bare pattern, a fast first pass whose lines `re` then confirms (the
    /// word assertions keep the `regex` crate off its literal fast paths).
    pre: Option<Regex>,
    with_name: bool,
    out: Vec<u8>,
    outcome: Outcome,
    error: bool,
    any_selected: bool,
    /// Something was printed before (for `--` between files).
    any_output: bool,
    /// `-q` matched: stop everything.
    quit: bool,
    /// The output is no longer read (a closed pipe): stop everything.
    done_reading: bool,
    buf: Vec<u8>,
}

impl Grep<'_> {
    fn flush(&mut self) {
        if !self.out.is_empty() {
            self.outcome.out(&self.out);
            self.out.clear();
        }
        // Large output flows on while grep runs; a closed pipe stops it, as SIGPIPE would.
        if !self.ctx.flush(&mut self.outcome) {
            self.quit = true;
            self.done_reading = true;
        }
    }

    fn message(&mut self, text: &str) {
        self.flush();
        self.outcome.err(text);
    }

    /// A file error: status 2, message unless `-s`.
    fn file_error(&mut self, name: &[u8], e: &FsError) {
        self.error = true;
        if !self.o.no_messages {
            self.message(&format!(
                "grep: {}: {}\n",
                String::from_utf8_lossy(name),
                e.strerror()
            ));
        }
    }

    fn excluded(&self, name: &[u8], command_line: bool) -> bool {
        let base = if command_line {
            name
        } else {
            name.rsplit(|&c| c == b'/').next().unwrap_or(name)
        };
        if glob_hits(&self.o.exclude, base, command_line) {
            return true;
        }
        !self.o.include.is_empty() && !glob_hits(&self.o.include, base, command_line)
    }

    fn dir_excluded(&self, name: &[u8], command_line: bool) -> bool {
        let base = if command_line {
            name
        } else {
            name.rsplit(|&c| c == b'/').next().unwrap_or(name)
        };
        glob_hits(&self.o.exclude_dir, base, command_line)
    }

    /// One operand as given on the command line.
    fn operand(&mut self, op: &OsStr) {
        let name = op.as_bytes();
        if op == "-" {
            let label = self.o.label.clone();
            let mut r = self.ctx.stdin;
            self.search(&mut r, &label);
            return;
        }
        let path = self.ctx.resolve(op);
        if self.o.recursive || self.o.skip_dirs {
            match self.ctx.fs.stat(&path, true) {
                Err(e) => return self.file_error(name, &e),
                Ok(m) if m.is_dir() => {
                    if self.o.skip_dirs || self.dir_excluded(name, true) {
                        return;
                    }
                    return self.walk(path, op.to_os_string());
                }
                Ok(m) if m.kind == FileKind::Other && self.o.skip_devices => return,
                Ok(_) => {}
            }
        }
        if self.excluded(name, true) {
            return;
        }
        self.search_path(&path, name);
    }

    fn search_path(&mut self, path: &std::path::Path, name: &[u8]) {
        let ctx = self.ctx;
        match ctx.fs.open(path) {
            Ok(mut r) => self.search(&mut r, name),
            Err(e) => self.file_error(name, &e),
        }
    }

    /// `-r`: an iterative walk in directory order; links followed only with `-R`.
    fn walk(&mut self, root: PathBuf, display: OsString) {
        struct Frame {
            path: PathBuf,
            display: OsString,
            entries: std::vec::IntoIter<crate::DirEntry>,
            id: Option<(u64, u64)>,
        }
        let ctx = self.ctx;
        let id_of = |p: &std::path::Path| ctx.fs.stat(p, true).ok().map(|m| (m.dev, m.ino));
        let mut stack: Vec<Frame> = Vec::new();
        let root_id = if self.o.deref { id_of(&root) } else { None };
        match ctx.fs.read_dir(&root) {
            Ok(entries) => stack.push(Frame {
                path: root,
                display,
                entries: entries.into_iter(),
                id: root_id,
            }),
            Err(e) => return self.file_error(display.as_bytes(), &e),
        }
        while let Some(top) = stack.last_mut() {
            if self.quit {
                return;
            }
            let Some(entry) = top.entries.next() else {
                stack.pop();
                continue;
            };
            let path = top.path.join(&entry.name);
            // `grep -r pat` with no operand shows names without `./`.
            let shown = if top.display.is_empty() {
                entry.name.clone()
            } else {
                join_display(&top.display, &entry.name)
            };
            let kind = match entry.kind {
                FileKind::Symlink if self.o.deref => match ctx.fs.stat(&path, true) {
                    Ok(m) => m.kind,
                    Err(e) => {
                        self.file_error(shown.as_bytes(), &e);
                        continue;
                    }
                },
                k => k,
            };
            match kind {
                FileKind::Dir => {
                    if self.dir_excluded(shown.as_bytes(), false) {
                        continue;
                    }
                    let id = if self.o.deref { id_of(&path) } else { None };
                    if id.is_some() && stack.iter().any(|f| f.id == id) {
                        self.message(&format!(
                            "grep: {}: warning: recursive directory loop\n",
                            String::from_utf8_lossy(shown.as_bytes())
                        ));
                        continue;
                    }
                    if stack.len() >= ctx.walk_depth {
                        self.message(&format!(
                            "grep: {}: directory nesting deeper than {} levels; not searched\n",
                            String::from_utf8_lossy(shown.as_bytes()),
                            ctx.walk_depth
                        ));
                        self.error = true;
                        continue;
                    }
                    match ctx.fs.read_dir(&path) {
                        Ok(entries) => stack.push(Frame {
                            path,
                            display: shown,
                            entries: entries.into_iter(),
                            id,
                        }),
                        Err(e) => self.file_error(shown.as_bytes(), &e),
                    }
                }
                FileKind::File => {
                    if !self.excluded(shown.as_bytes(), false) {
                        self.search_path(&path, shown.as_bytes());
                    }
                }
                // Links under `-r`, devices and fifos: skipped, as GNU does when recursing.
                FileKind::Symlink | FileKind::Other => {}
            }
        }
    }

    fn prefix(&mut self, name: &[u8], sep: u8, lineno: u64, offset: u64) {
        if self.with_name {
            self.out.extend_from_slice(name);
            self.out.push(if self.o.null { 0 } else { sep });
        }
        if self.o.line_number {
            self.out.extend_from_slice(lineno.to_string().as_bytes());
            self.out.push(sep);
        }
        if self.o.byte_offset {
            self.out.extend_from_slice(offset.to_string().as_bytes());
            self.out.push(sep);
        }
    }

    /// The number of the line starting at absolute offset `at` (lines are counted forward).
    fn line_at(&self, st: &mut FileRun, buf: &[u8], at: u64) -> u64 {
        if !self.o.need_lines() {
            return 0;
        }
        if at > st.count_pos {
            let from = usize::try_from(st.count_pos.saturating_sub(st.base)).unwrap_or(0);
            let to = usize::try_from(at - st.base).unwrap_or(0);
            let n = buf
                .get(from..to)
                .map_or(0, |s| memchr_iter(b'\n', s).count());
            st.lineno += n as u64;
            st.count_pos = at;
        }
        st.lineno
    }

    /// Prints the group separator before line `n` if it does not follow the last output.
    fn separate(&mut self, st: &mut FileRun, n: u64) {
        if !self.o.context() {
            return;
        }
        let gap = match st.last_out {
            Some(l) => n > l + 1,
            None => self.any_output,
        };
        if gap && let Some(sep) = &self.o.separator {
            self.out.extend_from_slice(sep);
            self.out.push(b'\n');
        }
        st.last_out = Some(n);
        self.any_output = true;
    }

    /// Outputs the context line `[ls, le)` (buffer indices).
    fn context_line(&mut self, st: &mut FileRun, buf: &[u8], name: &[u8], ls: usize, le: usize) {
        let at = st.base + ls as u64;
        let n = self.line_at(st, buf, at);
        self.separate(st, n);
        if !self.o.only_matching {
            self.prefix(name, b'-', n, st.base + ls as u64);
            self.out
                .extend_from_slice(buf.get(ls..le).unwrap_or_default());
            self.out.push(b'\n');
        }
        st.printed_until = st.base + le as u64 + 1;
    }

    /// Prints pending trailing context from `printed_until`, before buffer index `limit`.
    fn flush_after(&mut self, st: &mut FileRun, buf: &[u8], name: &[u8], limit: usize) {
        while st.after_left > 0 {
            let Some(ls) = usize::try_from(st.printed_until.saturating_sub(st.base)).ok() else {
                return;
            };
            if ls >= limit {
                return;
            }
            let le = buf
                .get(ls..limit)
                .and_then(|s| memchr(b'\n', s))
                .map_or(limit, |i| ls + i);
            self.context_line(st, buf, name, ls, le);
            st.after_left -= 1;
        }
    }

    /// The next selected line at or after `pos` in `buf[..=end]` (`buf[end]` is a newline).
    fn next_selected(&self, buf: &[u8], pos: usize, end: usize) -> Option<(usize, usize)> {
        let hay = buf.get(..end)?;
        let line_end = |from: usize| {
            hay.get(from..)
                .and_then(|s| memchr(b'\n', s))
                .map_or(end, |i| from + i)
        };
        // The next matching line at or after `p`.
        let next_match = |mut p: usize| -> Option<(usize, usize)> {
            let re = self.re.as_ref()?;
            while p <= end {
                let m = self.pre.as_ref().unwrap_or(re).find_at(hay, p)?;
                let ls = hay
                    .get(p..m.start())
                    .and_then(|s| memrchr(b'\n', s))
                    .map_or(p, |i| p + i + 1);
                let le = line_end(m.start());
                let line = hay.get(ls..le).unwrap_or_default();
                let confirmed = if self.pre.is_some() {
                    re.is_match(line)
                } else {
                    m.end() <= le || re.is_match(line)
                };
                if confirmed {
                    return Some((ls, le));
                }
                p = le + 1;
            }
            None
        };
        if !self.o.invert {
            return next_match(pos);
        }
        let mut p = pos;
        while p <= end {
            match next_match(p) {
                Some((ls, le)) if ls == p => p = le + 1,
                _ => return Some((p, line_end(p))),
            }
        }
        None
    }

    /// Handles the lines `buf[start..=end]` (`buf[end]` is a newline).
    fn region(&mut self, st: &mut FileRun, buf: &[u8], name: &[u8], start: usize, end: usize) {
        let mut pos = start;
        while pos <= end && !st.done {
            if st.stopping {
                self.flush_after(st, buf, name, end + 1);
                if st.after_left == 0 {
                    st.done = true;
                }
                return;
            }
            let Some((ls, le)) = self.next_selected(buf, pos, end) else {
                break;
            };
            self.selected(st, buf, name, ls, le);
            pos = le + 1;
        }
        if !st.done {
            self.flush_after(st, buf, name, end + 1);
        }
    }

    fn selected(&mut self, st: &mut FileRun, buf: &[u8], name: &[u8], ls: usize, le: usize) {
        st.selected += 1;
        self.any_selected = true;
        let reached = st.selected >= self.o.max;
        match self.o.mode {
            Mode::Quiet => {
                self.quit = true;
                st.done = true;
                return;
            }
            Mode::FilesWith | Mode::FilesWithout => {
                st.done = true;
                return;
            }
            Mode::Count => {
                st.done = reached;
                return;
            }
            Mode::Lines => {}
        }
        if st.binary && self.o.binary == Binary::Binary {
            self.message(&format!(
                "grep: {}: binary file matches\n",
                String::from_utf8_lossy(name)
            ));
            st.done = true;
            return;
        }
        self.flush_after(st, buf, name, ls);
        if self.o.before > 0 {
            let floor = usize::try_from(st.printed_until.saturating_sub(st.base)).unwrap_or(0);
            let mut b = ls;
            for _ in 0..self.o.before {
                if b <= floor {
                    break;
                }
                b = buf
                    .get(floor..b - 1)
                    .and_then(|s| memrchr(b'\n', s))
                    .map_or(floor, |i| floor + i + 1);
            }
            while b < ls {
                let e = buf
                    .get(b..ls)
                    .and_then(|s| memchr(b'\n', s))
                    .map_or(ls, |i| b + i);
                self.context_line(st, buf, name, b, e);
                b = e + 1;
            }
        }
        let at = st.base + ls as u64;
        let n = self.line_at(st, buf, at);
        self.separate(st, n);
        if self.o.only_matching {
            if !self.o.invert {
                self.only_matches(st, buf, name, ls, le, n);
            }
        } else {
            self.prefix(name, b':', n, st.base + ls as u64);
            self.out
                .extend_from_slice(buf.get(ls..le).unwrap_or_default());
            self.out.push(b'\n');
        }
        st.printed_until = st.base + le as u64 + 1;
        st.after_left = self.o.after;
        if reached {
            st.stopping = true;
            st.done = self.o.after == 0;
        }
    }

    fn only_matches(
        &mut self,
        st: &FileRun,
        buf: &[u8],
        name: &[u8],
        ls: usize,
        le: usize,
        n: u64,
    ) {
        let Some(re) = self.re.as_ref() else { return };
        let hay = buf.get(..le).unwrap_or_default();
        let mut p = ls;
        let mut found = Vec::new();
        while p <= le {
            let Some(m) = re.find_at(hay, p) else { break };
            if m.start() < ls {
                break;
            }
            if m.is_empty() {
                p = m.end() + 1;
                continue;
            }
            found.push((m.start(), m.end()));
            p = m.end();
        }
        for (s, e) in found {
            self.prefix(name, b':', n, st.base + s as u64);
            self.out
                .extend_from_slice(buf.get(s..e).unwrap_or_default());
            self.out.push(b'\n');
        }
    }

    /// Searches one stream and prints what the mode asks for.
    fn search(&mut self, r: &mut dyn Read, name: &[u8]) {
        if self.quit {
            return;
        }
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let mut st = FileRun {
            base: 0,
            count_pos: 0,
            lineno: 1,
            printed_until: 0,
            after_left: 0,
            last_out: None,
            selected: 0,
            binary: false,
            done: false,
            stopping: false,
        };
        let mut start = 0usize;
        let mut eof = false;
        let mut read_failed = None;
        while !st.done {
            let len = buf.len();
            buf.resize(len + CHUNK, 0);
            let n = loop {
                match r.read(buf.get_mut(len..).unwrap_or_default()) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        read_failed = Some(read_error(&e));
                        break 0;
                    }
                }
            };
            buf.truncate(len + n);
            if read_failed.is_some() {
                break;
            }
            eof = n == 0;
            if !st.binary && buf.get(len..).is_some_and(|s| memchr(0, s).is_some()) {
                st.binary = true;
                if self.o.binary == Binary::WithoutMatch {
                    break;
                }
            }
            if eof && buf.len() > start && buf.last() != Some(&b'\n') {
                buf.push(b'\n');
            }
            let Some(end) = buf
                .get(start..)
                .and_then(|s| memrchr(b'\n', s))
                .map(|i| start + i)
            else {
                if eof {
                    break;
                }
                continue;
            };
            self.region(&mut st, &buf, name, start, end);
            start = end + 1;
            if self.out.len() >= crate::SPILL_AT {
                self.flush();
                if self.done_reading {
                    break;
                }
            }
            if eof {
                break;
            }
            // Keep the lines before-context may still need; drop the rest.
            let mut keep = start;
            let floor = usize::try_from(st.printed_until.saturating_sub(st.base)).unwrap_or(0);
            for _ in 0..self.o.before {
                if keep <= floor {
                    break;
                }
                keep = buf
                    .get(floor..keep - 1)
                    .and_then(|s| memrchr(b'\n', s))
                    .map_or(floor, |i| floor + i + 1);
            }
            let keep = keep.min(start);
            if keep > 0 {
                let at = st.base + keep as u64;
                self.line_at(&mut st, &buf, at);
                buf.drain(..keep);
                st.base += keep as u64;
                start -= keep;
            }
        }
        self.buf = buf;
        if let Some(e) = read_failed {
            self.file_error(name, &e);
            return;
        }
        if st.binary && self.o.binary == Binary::WithoutMatch {
            st.selected = 0;
        }
        match self.o.mode {
            Mode::Count => {
                if self.with_name {
                    self.out.extend_from_slice(name);
                    self.out.push(if self.o.null { 0 } else { b':' });
                }
                self.out
                    .extend_from_slice(format!("{}\n", st.selected).as_bytes());
            }
            Mode::FilesWith if st.selected > 0 => self.file_name_line(name),
            Mode::FilesWithout if st.selected == 0 => self.file_name_line(name),
            _ => {}
        }
        let _ = eof;
    }

    fn file_name_line(&mut self, name: &[u8]) {
        self.out.extend_from_slice(name);
        self.out.push(if self.o.null { 0 } else { b'\n' });
    }
}

/// Collects the patterns: `-e` and `-f` in order, else the first operand. `None` when a
/// pattern file cannot be read (the error is in `o`).
fn patterns(a: &mut GrepArgs, ctx: &Ctx, o: &mut Outcome) -> Option<Vec<Vec<u8>>> {
    let mut pats: Vec<Vec<u8>> = Vec::new();
    for e in &a.regexp {
        pats.extend(e.as_bytes().split(|&c| c == b'\n').map(<[u8]>::to_vec));
    }
    for f in &a.file {
        let data = if f == "-" {
            ctx.stdin.read_all().map_err(|e| read_error(&e))
        } else {
            ctx.fs.read(&ctx.resolve(f))
        };
        match data {
            Ok(d) => {
                let d = d.strip_suffix(b"\n").unwrap_or(&d);
                if !d.is_empty() || a.file.len() > 1 || !a.regexp.is_empty() {
                    pats.extend(d.split(|&c| c == b'\n').map(<[u8]>::to_vec));
                }
            }
            Err(e) => {
                o.err(format!(
                    "grep: {}: {}\n",
                    String::from_utf8_lossy(f.as_bytes()),
                    e.strerror()
                ));
                return None;
            }
        }
    }
    if a.regexp.is_empty() && a.file.is_empty() {
        if a.operands.is_empty() {
            return None;
        }
        let p = a.operands.remove(0);
        pats.extend(p.as_bytes().split(|&c| c == b'\n').map(<[u8]>::to_vec));
    }
    Some(pats)
}

/// Checks a `-P` pattern for what the `regex` crate cannot do.
fn perl_unsupported(p: &[u8]) -> Option<&'static str> {
    let mut i = 0;
    while let Some(&c) = p.get(i) {
        if c == b'\\' {
            match p.get(i + 1) {
                Some(b'1'..=b'9' | b'g' | b'k') => return Some(regex_gnu::BACKREF),
                _ => i += 2,
            }
            continue;
        }
        if c == b'(' && p.get(i + 1) == Some(&b'?') {
            let rest = p.get(i + 2..).unwrap_or_default();
            if rest.starts_with(b"=")
                || rest.starts_with(b"!")
                || rest.starts_with(b"<=")
                || rest.starts_with(b"<!")
            {
                return Some("look-around assertions are not supported with -P");
            }
        }
        i += 1;
    }
    None
}

type Regexes = (Option<Regex>, Option<Regex>);

fn compile(pattern: &str, a: &GrepArgs, o: &mut Outcome) -> Result<Regex, ()> {
    RegexBuilder::new(pattern)
        .unicode(false)
        .multi_line(true)
        .case_insensitive(a.ignore_case)
        .size_limit(1 << 28)
        .dfa_size_limit(1 << 28)
        .build()
        .map_err(|e| {
            let text = e.to_string();
            let last = text
                .lines()
                .rev()
                .find(|l| l.starts_with("error:"))
                .unwrap_or("invalid pattern")
                .trim_start_matches("error: ");
            o.err(format!("grep: {last}\n"));
        })
}

/// The automaton, and for `-w` a faster first pass (see [`Grep::pre`]).
fn build_regex(a: &GrepArgs, pats: &[Vec<u8>], o: &mut Outcome) -> Result<Regexes, ()> {
    if pats.is_empty() {
        return Ok((None, None));
    }
    let mut alts = Vec::with_capacity(pats.len());
    for p in pats {
        if a.fixed {
            alts.push(regex_gnu::escape_literal(p));
        } else if a.perl {
            if let Some(msg) = perl_unsupported(p) {
                o.err(format!("grep: {msg}\n"));
                return Err(());
            }
            alts.push(String::from_utf8_lossy(p).into_owned());
        } else {
            let syn = if a.extended {
                Syntax::Extended
            } else {
                Syntax::Basic
            };
            match regex_gnu::translate(p, syn) {
                Ok(t) => {
                    for w in t.warnings {
                        o.err(format!("grep: {w}\n"));
                    }
                    alts.push(t.pattern);
                }
                Err(msg) => {
                    o.err(format!("grep: {msg}\n"));
                    return Err(());
                }
            }
        }
    }
    let body = if alts.len() == 1 {
        alts.pop().unwrap_or_default()
    } else {
        alts.iter()
            .map(|s| format!("(?:{s})"))
            .collect::<Vec<_>>()
            .join("|")
    };
    if a.line {
        return Ok((Some(compile(&format!("^(?:{body})$"), a, o)?), None));
    }
    if a.word {
        let full = format!("\\b{{start-half}}(?:{body})\\b{{end-half}}");
        return Ok((Some(compile(&full, a, o)?), Some(compile(&body, a, o)?)));
    }
    Ok((Some(compile(&body, a, o)?), None))
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let args = expand_context_digits(args);
    let mut a = parse_args::<GrepArgs>(&args).map_err(with_usage_line)?;
    let matchers = [a.extended, a.fixed, a.basic, a.perl]
        .iter()
        .filter(|&&b| b)
        .count();
    if matchers > 1 {
        return Err(Stop::Fail("conflicting matchers specified".into()));
    }
    let binary = match a.binary_files.as_deref() {
        None | Some("binary") => Binary::Binary,
        Some("text") => Binary::Text,
        Some("without-match") => Binary::WithoutMatch,
        Some(_) => return Err(Stop::Fail("unknown binary-files type".into())),
    };
    let binary = if a.text {
        Binary::Text
    } else if a.no_binary {
        Binary::WithoutMatch
    } else {
        binary
    };
    let dirs = match a.directories.as_deref() {
        None => "read",
        Some(d) => argmatch(
            "--directories",
            d,
            &[("read", "read"), ("recurse", "recurse"), ("skip", "skip")],
        )
        .map_err(with_usage_line)?,
    };
    let devices_skip = match a.devices.as_deref() {
        None | Some("read") => false,
        Some("skip") => true,
        Some(_) => return Err(Stop::Fail("unknown devices method".into())),
    };
    if let Some(c) = a.color.as_deref()
        && !matches!(
            c,
            "always" | "yes" | "force" | "never" | "no" | "none" | "auto" | "tty" | "if-tty"
        )
    {
        // GNU shows its help for an unknown WHEN (it compares names, no argmatch).
        let mut o = Outcome::ok();
        o.out(help_of::<GrepArgs>());
        return Ok(o);
    }
    let context_num = |v: &Option<OsString>| -> Result<Option<usize>, Stop> {
        match v {
            None => Ok(None),
            Some(v) => parse_num(v)
                .map(|n| Some(usize::try_from(n).unwrap_or(usize::MAX)))
                .ok_or_else(|| {
                    Stop::Fail(format!(
                        "{}: invalid context length argument",
                        String::from_utf8_lossy(v.as_bytes())
                    ))
                }),
        }
    };
    let (before, after, both) = match (
        context_num(&a.before),
        context_num(&a.after),
        context_num(&a.context),
    ) {
        (Ok(b), Ok(af), Ok(c)) => (b, af, c),
        (Err(stop), _, _) | (_, Err(stop), _) | (_, _, Err(stop)) => return Err(stop),
    };
    let max = match &a.max_count {
        None => u64::MAX,
        Some(v) => match parse_num(v) {
            Some(n) => n,
            None => return Err(Stop::Fail("invalid max count".into())),
        },
    };
    let mut o = Outcome::ok();
    let Some(pats) = patterns(&mut a, ctx, &mut o) else {
        if o.steps.is_empty() {
            // No pattern: GNU's usage(EXIT_TROUBLE), the Usage and Try lines alone.
            let mut u = Outcome::status(2);
            u.err(format!("{USAGE}{}", try_help("grep")));
            return Ok(u);
        }
        return Ok(o.with_status(2));
    };
    let Ok((re, pre)) = build_regex(&a, &pats, &mut o) else {
        return Ok(o.with_status(2));
    };
    if max == 0 {
        return Ok(o.with_status(1));
    }
    let mut exclude: Vec<Vec<u8>> = a.exclude.iter().map(|g| g.as_bytes().to_vec()).collect();
    for f in &a.exclude_from {
        match ctx.fs.read(&ctx.resolve(f)) {
            Ok(d) => exclude.extend(
                d.split(|&c| c == b'\n')
                    .filter(|l| !l.is_empty())
                    .map(<[u8]>::to_vec),
            ),
            Err(e) => {
                o.err(format!(
                    "grep: {}: {}\n",
                    String::from_utf8_lossy(f.as_bytes()),
                    e.strerror()
                ));
                return Ok(o.with_status(2));
            }
        }
    }
    let recursive = a.recursive || a.dereference_recursive || dirs == "recurse";
    let mode = if a.quiet {
        Mode::Quiet
    } else if a.files_with_matches {
        Mode::FilesWith
    } else if a.files_without_match {
        Mode::FilesWithout
    } else if a.count {
        Mode::Count
    } else {
        Mode::Lines
    };
    let no_operand = a.operands.is_empty();
    let operands = if no_operand {
        vec![OsString::from(if recursive { "." } else { "-" })]
    } else {
        std::mem::take(&mut a.operands)
    };
    let opts = Opts {
        invert: a.invert,
        mode,
        max,
        before: before.or(both).unwrap_or(0),
        after: after.or(both).unwrap_or(0),
        line_number: a.line_number,
        byte_offset: a.byte_offset,
        only_matching: a.only_matching,
        null: a.null,
        binary,
        separator: if a.no_group_separator {
            None
        } else {
            Some(
                a.group_separator
                    .as_ref()
                    .map_or_else(|| b"--".to_vec(), |s| s.as_bytes().to_vec()),
            )
        },
        no_messages: a.no_messages,
        recursive,
        deref: a.dereference_recursive,
        skip_dirs: dirs == "skip",
        skip_devices: devices_skip,
        include: a.include.iter().map(|g| g.as_bytes().to_vec()).collect(),
        exclude,
        exclude_dir: a
            .exclude_dir
            .iter()
            .map(|g| g.as_bytes().to_vec())
            .collect(),
        label: a
            .label
            .as_ref()
            .map_or_else(|| STDIN_NAME.as_bytes().to_vec(), |l| l.as_bytes().to_vec()),
    };
    let with_name = if a.with_filename {
        true
    } else if a.no_filename {
        false
    } else if operands.len() > 1 {
        true
    } else {
        // `-r` shows names when it actually walks a directory.
        recursive
            && operands.first().is_some_and(|op| {
                op != "-"
                    && ctx
                        .fs
                        .stat(&ctx.resolve(op), true)
                        .is_ok_and(|m| m.is_dir())
            })
    };
    let mut g = Grep {
        ctx,
        o: opts,
        re,
        pre,
        with_name,
        out: Vec::new(),
        outcome: o,
        error: false,
        any_selected: false,
        any_output: false,
        quit: false,
        done_reading: false,
        buf: Vec::with_capacity(CHUNK * 2),
    };
    for op in &operands {
        if g.quit {
            break;
        }
        if no_operand && recursive {
            // Names without the `./` prefix.
            let root = ctx.resolve(".");
            g.walk(root, OsString::new());
        } else {
            g.operand(op);
        }
    }
    g.flush();
    // `-q` with a match wins over errors; otherwise an error wins over a match.
    let status = if g.quit || (g.any_selected && !g.error) {
        0
    } else if g.error {
        2
    } else {
        1
    };
    Ok(g.outcome.with_status(status))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .file("/s/ctx.txt", b"a1\nb\nc\na2\nd\ne\nf\ng\na3\nh\n")
                .file("/s/a.txt", b"foo\nbar\n")
                .file("/s/bin", b"x\0foo\n")
                .file("/s/d/e/f.txt", b"foo\n")
                .symlink("/s/l", "d"),
        )
    }

    fn grep(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Grep, args))
    }

    #[test]
    fn context_and_separators() {
        // `LC_ALL=C grep -C1 a ctx.txt a.txt`, GNU grep 3.8, same files.
        assert_eq!(
            grep(&world(), &["-C1", "a", "ctx.txt", "a.txt"]).0,
            "ctx.txt:a1\nctx.txt-b\nctx.txt-c\nctx.txt:a2\nctx.txt-d\n--\nctx.txt-g\nctx.txt:a3\nctx.txt-h\n--\na.txt-foo\na.txt:bar\n"
        );
        // `grep -n -m1 -A3 a ctx.txt`: trailing context goes on past the maximum.
        assert_eq!(
            grep(&world(), &["-n", "-m1", "-A3", "a", "ctx.txt"]).0,
            "1:a1\n2-b\n3-c\n4-a2\n"
        );
        // `grep -o -C1 a ctx.txt`: no context lines, but the separators stay.
        assert_eq!(
            grep(&world(), &["-o", "-C1", "a", "ctx.txt"]).0,
            "a\na\n--\na\n"
        );
        // `grep -n -b -H -A1 d ctx.txt`.
        assert_eq!(
            grep(&world(), &["-n", "-b", "-H", "-A1", "d", "ctx.txt"]).0,
            "ctx.txt:5:10:d\nctx.txt-6-12-e\n"
        );
    }

    #[test]
    fn binary_recursive_and_statuses() {
        let w = world();
        // GNU grep 3.8 reports a matching binary file on stderr.
        assert_eq!(
            grep(&w, &["foo", "bin"]),
            (String::new(), "grep: bin: binary file matches\n".into(), 0)
        );
        assert_eq!(
            grep(&w, &["-c", "foo", "bin", "a.txt"]).0,
            "bin:1\na.txt:1\n"
        );
        // `grep -r foo` (no operand): names without `./`; links under -r are skipped.
        let (out, err, st) = grep(&w, &["-r", "foo"]);
        assert_eq!(out, "a.txt:foo\nd/e/f.txt:foo\n");
        assert_eq!(err, "grep: bin: binary file matches\n");
        assert_eq!(st, 0);
        assert_eq!(grep(&w, &["-R", "foo", "l"]).0, "l/e/f.txt:foo\n");
        assert_eq!(
            grep(&w, &["foo", "nope", "d"]),
            (
                String::new(),
                "grep: nope: No such file or directory\ngrep: d: Is a directory\n".into(),
                2
            )
        );
        assert_eq!(grep(&w, &["-q", "foo", "nope", "a.txt"]).2, 0);
        assert_eq!(
            grep(&w, &["-L", "zzz", "a.txt"]),
            ("a.txt\n".into(), String::new(), 1)
        );
        assert_eq!(
            grep(&w, &["-Y", "x"]).1,
            "grep: invalid option -- 'Y'\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n"
        );
    }

    #[test]
    fn lines_across_chunks() {
        // 200,000 numbered lines (about 1.3 MB): several read chunks.
        let mut data = Vec::new();
        for i in 1..=200_000 {
            data.extend_from_slice(format!("l{i}\n").as_bytes());
        }
        let w = World::new(MemFs::rooted("/s").file("/s/big", &data));
        assert_eq!(grep(&w, &["-c", "", "big"]).0, "200000\n");
        assert_eq!(
            grep(&w, &["-n", "-B2", "-A1", "^l150000$", "big"]).0,
            "149998-l149998\n149999-l149999\n150000:l150000\n150001-l150001\n"
        );
        assert_eq!(grep(&w, &["-vc", "0$", "big"]).0, "180000\n");
    }

    #[test]
    fn word_and_line_matching() {
        let w = World::new(MemFs::rooted("/s")).stdin(b"foo bar\nfoobar\nbar_foo\n@x y\n");
        // `printf 'foo bar\nfoobar\nbar_foo\n@x y\n' | LC_ALL=C grep -w ...`, GNU grep 3.8.
        assert_eq!(grep(&w, &["-w", "foo"]).0, "foo bar\n");
        assert_eq!(grep(&w, &["-w", "@x"]).0, "@x y\n");
        assert_eq!(grep(&w, &["-x", "foobar"]).0, "foobar\n");
        assert_eq!(grep(&w, &["-ic", "FOO"]).0, "3\n");
    }
}
