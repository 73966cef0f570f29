//! The options: the clap definition, GNU grep's `-NUM` pre-pass, and the validated `Opts`
//! the search runs with.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Search for PATTERNS in each FILE.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "grep [OPTION]... PATTERNS [FILE]...")]
#[allow(clippy::struct_excessive_bools)]
pub struct GrepArgs {
    /// PATTERNS are extended regular expressions
    #[arg(short = 'E', long = "extended-regexp")]
    pub(super) extended: bool,
    /// PATTERNS are strings
    #[arg(short = 'F', long = "fixed-strings")]
    pub(super) fixed: bool,
    /// PATTERNS are basic regular expressions
    #[arg(short = 'G', long = "basic-regexp")]
    pub(super) basic: bool,
    /// PATTERNS are Perl regular expressions
    #[arg(short = 'P', long = "perl-regexp")]
    pub(super) perl: bool,
    /// use PATTERNS for matching
    #[arg(short = 'e', long = "regexp", value_name = "PATTERNS")]
    pub(super) regexp: Vec<OsString>,
    /// take PATTERNS from FILE
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub(super) file: Vec<OsString>,
    /// ignore case distinctions in patterns and data
    #[arg(
        short = 'i',
        short_alias = 'y',
        long = "ignore-case",
        overrides_with = "no_ignore_case"
    )]
    pub(super) ignore_case: bool,
    /// do not ignore case distinctions (default)
    #[arg(long = "no-ignore-case", overrides_with = "ignore_case")]
    pub(super) no_ignore_case: bool,
    /// match only whole words
    #[arg(short = 'w', long = "word-regexp")]
    pub(super) word: bool,
    /// match only whole lines
    #[arg(short = 'x', long = "line-regexp")]
    pub(super) line: bool,
    /// suppress error messages
    #[arg(short = 's', long = "no-messages")]
    pub(super) no_messages: bool,
    /// select non-matching lines
    #[arg(short = 'v', long = "invert-match")]
    pub(super) invert: bool,
    /// stop after NUM selected lines
    #[arg(short = 'm', long = "max-count", value_name = "NUM")]
    pub(super) max_count: Option<OsString>,
    /// print the byte offset with output lines
    #[arg(short = 'b', long = "byte-offset")]
    pub(super) byte_offset: bool,
    /// print line number with output lines
    #[arg(short = 'n', long = "line-number")]
    pub(super) line_number: bool,
    /// flush output on every line (no effect here)
    #[arg(long = "line-buffered")]
    pub(super) line_buffered: bool,
    /// print file name with output lines
    #[arg(short = 'H', long = "with-filename", overrides_with = "no_filename")]
    pub(super) with_filename: bool,
    /// suppress the file name prefix on output
    #[arg(short = 'h', long = "no-filename", overrides_with = "with_filename")]
    pub(super) no_filename: bool,
    /// use LABEL as the standard input file name prefix
    #[arg(long = "label", value_name = "LABEL")]
    pub(super) label: Option<OsString>,
    /// show only nonempty parts of lines that match
    #[arg(short = 'o', long = "only-matching")]
    pub(super) only_matching: bool,
    /// suppress all normal output
    #[arg(short = 'q', long = "quiet", alias = "silent")]
    pub(super) quiet: bool,
    /// assume that binary files are TYPE; TYPE is 'binary', 'text', or 'without-match'
    #[arg(long = "binary-files", value_name = "TYPE")]
    pub(super) binary_files: Option<String>,
    /// equivalent to --binary-files=text
    #[arg(short = 'a', long = "text")]
    pub(super) text: bool,
    /// equivalent to --binary-files=without-match
    #[arg(short = 'I')]
    pub(super) no_binary: bool,
    /// how to handle directories; ACTION is 'read', 'recurse', or 'skip'
    #[arg(short = 'd', long = "directories", value_name = "ACTION")]
    pub(super) directories: Option<String>,
    /// how to handle devices, FIFOs and sockets; ACTION is 'read' or 'skip'
    #[arg(short = 'D', long = "devices", value_name = "ACTION")]
    pub(super) devices: Option<String>,
    /// like --directories=recurse
    #[arg(short = 'r', long = "recursive")]
    pub(super) recursive: bool,
    /// likewise, but follow all symlinks
    #[arg(short = 'R', long = "dereference-recursive")]
    pub(super) dereference_recursive: bool,
    /// search only files that match GLOB (a file pattern)
    #[arg(long = "include", value_name = "GLOB")]
    pub(super) include: Vec<OsString>,
    /// skip files that match GLOB
    #[arg(long = "exclude", value_name = "GLOB")]
    pub(super) exclude: Vec<OsString>,
    /// skip files that match any file pattern from FILE
    #[arg(long = "exclude-from", value_name = "FILE")]
    pub(super) exclude_from: Vec<OsString>,
    /// skip directories that match GLOB
    #[arg(long = "exclude-dir", value_name = "GLOB")]
    pub(super) exclude_dir: Vec<OsString>,
    /// print only names of FILEs with no selected lines
    #[arg(short = 'L', long = "files-without-match")]
    pub(super) files_without_match: bool,
    /// print only names of FILEs with selected lines
    #[arg(short = 'l', long = "files-with-matches")]
    pub(super) files_with_matches: bool,
    /// print only a count of selected lines per FILE
    #[arg(short = 'c', long = "count")]
    pub(super) count: bool,
    /// print 0 byte after FILE name
    #[arg(short = 'Z', long = "null")]
    pub(super) null: bool,
    /// a data line ends in 0 byte, not newline
    #[arg(short = 'z', long = "null-data")]
    pub(super) null_data: bool,
    /// make tabs line up (if needed)
    #[arg(short = 'T', long = "initial-tab")]
    pub(super) initial_tab: bool,
    /// print NUM lines of leading context
    #[arg(short = 'B', long = "before-context", value_name = "NUM")]
    pub(super) before: Option<OsString>,
    /// print NUM lines of trailing context
    #[arg(short = 'A', long = "after-context", value_name = "NUM")]
    pub(super) after: Option<OsString>,
    /// print NUM lines of output context
    #[arg(short = 'C', long = "context", value_name = "NUM")]
    pub(super) context: Option<OsString>,
    /// print SEP on line between matches with context
    #[arg(long = "group-separator", value_name = "SEP")]
    pub(super) group_separator: Option<OsString>,
    /// do not print separator for matches with context
    #[arg(long = "no-group-separator")]
    pub(super) no_group_separator: bool,
    /// use markers to highlight the matching strings (never done here); WHEN is 'always',
    /// 'never', or 'auto'
    #[arg(long = "color", alias = "colour", value_name = "WHEN", num_args = 0..=1, default_missing_value = "auto")]
    pub(super) color: Option<String>,
    /// do not strip CR characters at EOL (no effect here)
    #[arg(short = 'U', long = "binary")]
    pub(super) binary: bool,
    pub(super) operands: Vec<OsString>,
}

/// GNU grep prints its Usage line between a usage error's message and the Try line.
pub(super) fn with_usage_line(stop: Stop) -> Stop {
    let usage = USAGE.trim_end();
    match stop {
        Stop::Usage(msg) => Stop::Usage(format!("{msg}\n{usage}")),
        Stop::UsageWith(msg, status) => Stop::UsageWith(format!("{msg}\n{usage}"), status),
        other => other,
    }
}

/// Rewrites GNU's `-NUM` (same as `--context=NUM`) into `-C NUM`, leaving option values alone.
pub(super) fn expand_context_digits(args: &[OsString]) -> Vec<OsString> {
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

pub(super) fn parse_num(v: &OsStr) -> Option<u64> {
    let s = std::str::from_utf8(v.as_bytes()).ok()?;
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    // GNU saturates huge values.
    Some(s.parse::<u64>().unwrap_or(u64::MAX))
}

#[derive(Clone, Copy, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)]
pub(super) enum Binary {
    Binary,
    Text,
    WithoutMatch,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Lines,
    Count,
    FilesWith,
    FilesWithout,
    Quiet,
}

/// Everything the search needs, validated.
pub(super) struct Opts {
    pub(super) invert: bool,
    pub(super) mode: Mode,
    pub(super) max: u64,
    pub(super) before: usize,
    pub(super) after: usize,
    pub(super) line_number: bool,
    pub(super) byte_offset: bool,
    pub(super) only_matching: bool,
    pub(super) null: bool,
    /// The line terminator: `\n`, or NUL with `-z`.
    pub(super) eol: u8,
    /// `-T`: a tab after the prefix.
    pub(super) initial_tab: bool,
    pub(super) binary: Binary,
    pub(super) separator: Option<Vec<u8>>,
    pub(super) no_messages: bool,
    pub(super) recursive: bool,
    pub(super) deref: bool,
    pub(super) skip_dirs: bool,
    pub(super) skip_devices: bool,
    pub(super) include: Vec<Vec<u8>>,
    pub(super) exclude: Vec<Vec<u8>>,
    pub(super) exclude_dir: Vec<Vec<u8>>,
    pub(super) label: Vec<u8>,
}

impl Opts {
    pub(super) fn context(&self) -> bool {
        self.before > 0 || self.after > 0
    }
    pub(super) fn need_lines(&self) -> bool {
        self.line_number || self.context()
    }
}
