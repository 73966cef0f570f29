//! Session transcripts: the format (this file: header, steps, rendering, parsing), recording
//! ([`record`]) and replaying ([`replay`]).
//!
//! Steps are split as line mode splits its input ([`Chunks`], in `frontend::chunks`: an open
//! quote, a pending here-document or a trailing `|` waits for the next line), so that a
//! replayed transcript runs its steps exactly as an agent's pipe fed them.
//!
//! # The transcript format, version 1
//!
//! A transcript is bytes (non-UTF-8 output stays as it was), one item per line, and shows what
//! a terminal would have shown. `docs/TRANSCRIPTS.md` is the reference; in short:
//!
//! ```text
//! # trumansh transcript v1 mount-point=/home/user errors=script:bash lines=stream
//! $ cat > notes.txt <<'EOF'
//! > remember $HOME
//! > EOF
//! $ # a comment is a step too
//! $ echo -e '$x\n[y]'; echo -n 'no newline'; ls nope
//! \$x
//! \[y]
//! no newline
//! [no newline]
//! [stderr] ls: cannot access 'nope': No such file or directory
//! [exit 2]
//! ```
//!
//! - The optional first line is the [`Header`]: `# trumansh transcript v1` and space-separated
//!   `key=value` settings (`mount-point`, `errors`, `lines`, `stdout`, `tree`), values
//!   percent-encoded. `tree=NAME` names the fixture tree the transcript is meant to replay on
//!   (`fixtures/trees/NAME` in this repository); a session never writes it, `trumansh replay`
//!   ignores it (the tree is its `--root`), and the transcript tests replay on `basic` when it
//!   is absent.
//! - Each step is one complete input as [`Chunks`] yields it (blank and comment-only inputs
//!   included, so line numbers can be reconstructed): its first line as `$ LINE` (`$` alone
//!   for an empty line), each further line as `> LINE` (`>` alone when empty). A `> ` line
//!   belongs to the command exactly as long as [`shell::parse`] says the command is
//!   incomplete; after a complete command it is output.
//! - `[stdin] LINE` lines give the stdin of the step, for front ends whose requests carry one.
//! - The output in the order written: stdout as is, except that a line starting with `$`, `[`
//!   or `\` gets a leading `\`; each stderr line as `[stderr] LINE` (`[stderr]` alone when
//!   empty). Then `[exit N]` when the status is not 0 (not after a blank or comment-only step,
//!   which runs nothing).
//! - `[no newline]` after a line says that the input, stdin, stdout or stderr it ends did not
//!   end with a newline.
//!
//! [`Recorder`] writes a transcript as a session runs (`trumansh --record FILE`), [`parse`]
//! reads one back (never panicking, whatever the bytes), [`replay_steps`] runs its steps again
//! and renders what they do now, and [`diff`] shows the difference; `crate::cli::replay` puts these
//! together for `trumansh replay` and the transcript tests.

use std::fmt;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use crate::io::Stream;
use crate::session::{Config, ErrorMode, Reads, Session};

mod record;
mod replay;

/// Line mode's chunking, at its old path.
pub use crate::frontend::chunks::{Chunk, Chunks, is_incomplete};
pub use record::{Recorded, Recorder, Tee};
pub use replay::{Replay, diff, replay_each, replay_steps};

/// Everything written to `stream`, in order.
fn joined(events: &[(Stream, Vec<u8>)], stream: Stream) -> Vec<u8> {
    events
        .iter()
        .filter(|(s, _)| *s == stream)
        .flat_map(|(_, b)| b.iter().copied())
        .collect()
}

/// Appends to the last event when it is of the same stream.
fn push_event(events: &mut Vec<(Stream, Vec<u8>)>, stream: Stream, bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    match events.last_mut() {
        Some((s, b)) if *s == stream => b.extend_from_slice(bytes),
        _ => events.push((stream, bytes.to_vec())),
    }
}

/// How a transcript's steps are numbered, as the front end that ran them numbered lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LineNumbers {
    /// One input stream: line numbers go on across steps (line mode, `-c`, a script file, the
    /// REPL).
    #[default]
    Stream,
    /// Each step is its own input, starting at line 1 (the JSON-lines and MCP front ends).
    Each,
}

/// The first line of a transcript without its settings.
pub const MAGIC: &str = "# trumansh transcript v1";
const MAGIC_ANY_VERSION: &str = "# trumansh transcript";

/// The settings a transcript was recorded with: what a replay needs to run its steps the same
/// way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Where the agent saw the root (`mount-point=`).
    pub mount_point: PathBuf,
    /// bash's diagnostic prefix (`errors=script:NAME` or `errors=interactive`).
    pub errors: ErrorMode,
    /// `lines=stream` or `lines=each`.
    pub lines: LineNumbers,
    /// Where the session read its commands: `reads=command` (`-c`) or `reads=file` (a script
    /// file), whose errors that end a non-interactive bash end the session; written only then
    /// (the default is standard input, an agent's session).
    pub reads: Reads,
    /// Whether the session's stdout was a terminal (`stdout=terminal`; `ls` prints columns).
    /// Written only when true.
    pub stdout_is_tty: bool,
    /// The fixture tree to replay on (`tree=NAME`, one directory name): read by the transcript
    /// tests, which default to `basic`; not used by a replay, which is given its tree. Written
    /// only when set; a recording session never sets it.
    pub tree: Option<String>,
}

impl Default for Header {
    /// What a transcript without a header is replayed with: mounted at `/home/user`, errors
    /// as `bash: line N: `, line numbers as one stream, stdout not a terminal.
    fn default() -> Self {
        Header {
            mount_point: PathBuf::from("/home/user"),
            errors: ErrorMode::Script {
                name: "bash".into(),
            },
            lines: LineNumbers::Stream,
            reads: Reads::Stdin,
            stdout_is_tty: false,
            tree: None,
        }
    }
}

impl Header {
    /// The header of a running session: its mount point, error mode and terminal.
    pub fn for_session(session: &Session, lines: LineNumbers) -> Header {
        Header {
            mount_point: session.sandbox().mount_point().to_path_buf(),
            errors: session.config().error_mode.clone(),
            lines,
            reads: session.config().reads,
            stdout_is_tty: session.config().stdout_is_tty,
            tree: None,
        }
    }

    /// Sets up a session's configuration as the header says (mount point, error mode,
    /// terminal).
    pub fn configure(&self, config: &mut Config) {
        config.sandbox.mount_point = Some(self.mount_point.clone());
        config.error_mode = self.errors.clone();
        config.reads = self.reads;
        config.stdout_is_tty = self.stdout_is_tty;
    }

    /// The header line, with its newline.
    pub fn render(&self) -> Vec<u8> {
        let mut out = MAGIC.as_bytes().to_vec();
        out.extend_from_slice(b" mount-point=");
        percent_encode(&mut out, self.mount_point.as_os_str().as_bytes());
        out.extend_from_slice(b" errors=");
        match &self.errors {
            ErrorMode::Interactive => out.extend_from_slice(b"interactive"),
            ErrorMode::Script { name } => {
                out.extend_from_slice(b"script:");
                percent_encode(&mut out, name.as_bytes());
            }
        }
        out.extend_from_slice(match self.lines {
            LineNumbers::Stream => b" lines=stream",
            LineNumbers::Each => b" lines=each",
        });
        match self.reads {
            Reads::Stdin => {}
            Reads::Command => out.extend_from_slice(b" reads=command"),
            Reads::File => out.extend_from_slice(b" reads=file"),
        }
        if self.stdout_is_tty {
            out.extend_from_slice(b" stdout=terminal");
        }
        if let Some(tree) = &self.tree {
            out.extend_from_slice(b" tree=");
            percent_encode(&mut out, tree.as_bytes());
        }
        out.push(b'\n');
        out
    }

    /// Parses a header line (without its newline). Settings left out keep their defaults.
    pub fn parse(line: &[u8]) -> Result<Header, String> {
        let Some(rest) = line.strip_prefix(MAGIC.as_bytes()) else {
            return Err(if line.starts_with(MAGIC_ANY_VERSION.as_bytes()) {
                format!(
                    "unsupported transcript version: `{}` (this trumansh reads v1)",
                    String::from_utf8_lossy(line)
                )
            } else {
                format!("not a transcript header (`{MAGIC} ...`)")
            });
        };
        if !rest.is_empty() && !rest.starts_with(b" ") {
            return Err(format!(
                "unsupported transcript version: `{}` (this trumansh reads v1)",
                String::from_utf8_lossy(line)
            ));
        }
        let mut header = Header::default();
        let mut seen: Vec<&[u8]> = Vec::new();
        for setting in rest.split(|&b| b == b' ').filter(|s| !s.is_empty()) {
            let shown = String::from_utf8_lossy(setting);
            let Some(eq) = setting.iter().position(|&b| b == b'=') else {
                return Err(format!("header setting without `=`: `{shown}`"));
            };
            let (key, value) = (&setting[..eq], &setting[eq + 1..]);
            if seen.contains(&key) {
                return Err(format!("header setting given twice: `{shown}`"));
            }
            seen.push(key);
            let value = percent_decode(value)
                .ok_or_else(|| format!("bad percent-encoding in header setting `{shown}`"))?;
            match key {
                b"mount-point" => {
                    if !value.starts_with(b"/") {
                        return Err(format!("mount-point must be absolute: `{shown}`"));
                    }
                    header.mount_point = PathBuf::from(std::ffi::OsString::from_vec(value));
                }
                b"errors" => {
                    header.errors = if value == b"interactive" {
                        ErrorMode::Interactive
                    } else if let Some(name) = value.strip_prefix(b"script:") {
                        let name = String::from_utf8(name.to_vec())
                            .map_err(|_| format!("the script name in `{shown}` is not UTF-8"))?;
                        ErrorMode::Script { name }
                    } else {
                        return Err(format!(
                            "errors must be `interactive` or `script:NAME`: `{shown}`"
                        ));
                    };
                }
                b"lines" => {
                    header.lines = match value.as_slice() {
                        b"stream" => LineNumbers::Stream,
                        b"each" => LineNumbers::Each,
                        _ => return Err(format!("lines must be `stream` or `each`: `{shown}`")),
                    };
                }
                b"reads" => {
                    header.reads = match value.as_slice() {
                        b"stdin" => Reads::Stdin,
                        b"command" => Reads::Command,
                        b"file" => Reads::File,
                        _ => {
                            return Err(format!(
                                "reads must be `stdin`, `command` or `file`: `{shown}`"
                            ));
                        }
                    };
                }
                b"stdout" => {
                    header.stdout_is_tty = match value.as_slice() {
                        b"terminal" => true,
                        b"pipe" => false,
                        _ => {
                            return Err(format!("stdout must be `terminal` or `pipe`: `{shown}`"));
                        }
                    };
                }
                b"tree" => {
                    let name = String::from_utf8(value)
                        .ok()
                        .filter(|n| !n.is_empty() && n != "." && n != ".." && !n.contains('/'));
                    let Some(name) = name else {
                        return Err(format!("tree must be one directory name: `{shown}`"));
                    };
                    header.tree = Some(name);
                }
                _ => return Err(format!("unknown header setting: `{shown}`")),
            }
        }
        Ok(header)
    }
}

/// Percent-encodes every byte outside printable ASCII, space and `%` included.
fn percent_encode(out: &mut Vec<u8>, bytes: &[u8]) {
    for &b in bytes {
        if b.is_ascii_graphic() && b != b'%' {
            out.push(b);
        } else {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        }
    }
}

fn percent_decode(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

/// One step of a transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The input, as the session was given it (lines with their newlines).
    pub input: Vec<u8>,
    /// The number of the input's first line (from the header's [`LineNumbers`]).
    pub first_line: usize,
    /// The step's stdin, when the front end gave one.
    pub stdin: Option<Vec<u8>>,
    /// What was written, in order (consecutive pieces of one stream joined).
    pub output: Vec<(Stream, Vec<u8>)>,
    /// The status (`[exit N]`; 0 when absent).
    pub status: i32,
}

impl Step {
    /// Everything written to `stream`.
    pub fn bytes(&self, stream: Stream) -> Vec<u8> {
        joined(&self.output, stream)
    }

    /// Whether the input holds only comments and blank lines.
    pub fn is_comment_only(&self) -> bool {
        is_comment_only(&self.input)
    }
}

/// A parsed transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transcript {
    pub header: Option<Header>,
    pub steps: Vec<Step>,
}

impl Transcript {
    /// The header, or what a transcript without one is replayed with.
    pub fn settings(&self) -> Header {
        self.header.clone().unwrap_or_default()
    }

    /// The inputs of every step, concatenated: the script the transcript ran.
    pub fn script(&self) -> Vec<u8> {
        self.steps.iter().flat_map(|s| s.input.clone()).collect()
    }

    /// Renders the transcript in its canonical form.
    pub fn render(&self) -> Vec<u8> {
        let mut out = self.header.as_ref().map(Header::render).unwrap_or_default();
        for step in &self.steps {
            render_step(
                &mut out,
                &step.input,
                step.stdin.as_deref(),
                &step.output,
                step.status,
            );
        }
        out
    }
}

/// Writes `bytes` as lines, the first with `first` before it and the others with `rest` (a
/// space between a prefix and a non-empty line), then `[no newline]` if `bytes` does not end
/// with a newline. Without prefixes (stdout), a line that could be taken for a command or a
/// marker (starting with `$`, `[` or `\`) gets a `\` before it.
fn put_lines(out: &mut Vec<u8>, bytes: &[u8], prefixes: Option<(&[u8], &[u8])>) {
    let (body, newline) = match bytes.strip_suffix(b"\n") {
        Some(body) => (body, true),
        None => (bytes, false),
    };
    for (i, line) in body.split(|&b| b == b'\n').enumerate() {
        match prefixes {
            Some((first, rest)) => {
                out.extend_from_slice(if i == 0 { first } else { rest });
                if !line.is_empty() {
                    out.push(b' ');
                }
            }
            None if matches!(line.first(), Some(b'$' | b'[' | b'\\')) => out.push(b'\\'),
            None => {}
        }
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    if !newline {
        out.extend_from_slice(NO_NEWLINE);
        out.push(b'\n');
    }
}

const NO_NEWLINE: &[u8] = b"[no newline]";

/// Renders one step: its input, its stdin (if any), what it wrote in order, its status.
pub fn render_step(
    out: &mut Vec<u8>,
    input: &[u8],
    stdin: Option<&[u8]>,
    events: &[(Stream, Vec<u8>)],
    status: i32,
) {
    put_lines(out, input, Some((b"$", b">")));
    if let Some(stdin) = stdin {
        put_lines(out, stdin, Some((b"[stdin]", b"[stdin]")));
    }
    for (stream, bytes) in events {
        if bytes.is_empty() {
            continue;
        }
        match stream {
            Stream::Stdout => put_lines(out, bytes, None),
            Stream::Stderr => put_lines(out, bytes, Some((b"[stderr]", b"[stderr]"))),
        }
    }
    // A blank or comment-only step runs nothing: `$?` stays as it was, and showing it again
    // would read as if the comment had failed.
    if status != 0 && !is_comment_only(input) {
        out.extend_from_slice(format!("[exit {status}]\n").as_bytes());
    }
}

/// Whether an input holds only comments and blank lines.
pub fn is_comment_only(chunk: &[u8]) -> bool {
    chunk.split(|&b| b == b'\n').all(|l| {
        let t = l.trim_ascii_start();
        t.is_empty() || t.starts_with(b"#")
    })
}

/// A transcript that cannot be read: the line (from 1) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for FormatError {}

/// The text after a prefix (`$`, `>`, `[stdin]`, `[stderr]`): the line alone is an empty line,
/// otherwise one space separates it.
fn after_prefix<'a>(line: &'a [u8], prefix: &[u8]) -> Option<&'a [u8]> {
    let rest = line.strip_prefix(prefix)?;
    if rest.is_empty() {
        Some(rest)
    } else {
        rest.strip_prefix(b" ")
    }
}

/// What the previous line of a step's output was, for `[no newline]` and `[exit N]`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    Nothing,
    Content,
    NoNewline,
    Exit,
}

/// Parses a transcript. Never panics, whatever the bytes.
pub fn parse(bytes: &[u8]) -> Result<Transcript, FormatError> {
    let lines: Vec<&[u8]> = bytes
        .split_inclusive(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\n").unwrap_or(l))
        .collect();
    let err = |i: usize, message: String| FormatError {
        line: i + 1,
        message,
    };
    let mut i = 0;
    let mut transcript = Transcript::default();
    if let Some(first) = lines.first()
        && first.starts_with(MAGIC_ANY_VERSION.as_bytes())
    {
        transcript.header = Some(Header::parse(first).map_err(|m| err(0, m))?);
        i = 1;
    }
    let numbering = transcript.settings().lines;
    let mut next_line = 1usize;
    while i < lines.len() {
        let Some(first) = lines[i].strip_prefix(b"$") else {
            return Err(err(
                i,
                format!(
                    "expected a command (`$ ...`), found `{}`",
                    String::from_utf8_lossy(lines[i])
                ),
            ));
        };
        let first_line = match numbering {
            LineNumbers::Stream => next_line,
            LineNumbers::Each => 1,
        };
        let mut input = first.strip_prefix(b" ").unwrap_or(first).to_vec();
        input.push(b'\n');
        let mut input_lines = 1usize;
        i += 1;
        while i < lines.len() && is_incomplete(&input, first_line) {
            let Some(more) = after_prefix(lines[i], b">") else {
                break;
            };
            input.extend_from_slice(more);
            input.push(b'\n');
            input_lines += 1;
            i += 1;
        }
        if lines.get(i) == Some(&NO_NEWLINE) {
            input.pop();
            i += 1;
        }
        next_line = next_line.saturating_add(input_lines);

        let mut stdin: Option<Vec<u8>> = None;
        while let Some(text) = lines.get(i).and_then(|l| after_prefix(l, b"[stdin]")) {
            let buf = stdin.get_or_insert_with(Vec::new);
            buf.extend_from_slice(text);
            buf.push(b'\n');
            i += 1;
        }
        if let Some(buf) = &mut stdin
            && lines.get(i) == Some(&NO_NEWLINE)
        {
            buf.pop();
            i += 1;
        }

        let mut output: Vec<(Stream, Vec<u8>)> = Vec::new();
        let mut status = 0;
        let mut last = Last::Nothing;
        while i < lines.len() {
            let line = lines[i];
            if line.starts_with(b"$") {
                break;
            }
            if last == Last::Exit {
                return Err(err(
                    i,
                    format!(
                        "unexpected line after `[exit N]`: `{}`",
                        String::from_utf8_lossy(line)
                    ),
                ));
            }
            if line == NO_NEWLINE {
                if last != Last::Content {
                    return Err(err(i, "`[no newline]` must follow a line".into()));
                }
                if let Some((_, bytes)) = output.last_mut() {
                    bytes.pop();
                    if bytes.is_empty() {
                        output.pop();
                    }
                }
                last = Last::NoNewline;
            } else if let Some(text) = after_prefix(line, b"[stderr]") {
                push_event(&mut output, Stream::Stderr, text);
                push_event(&mut output, Stream::Stderr, b"\n");
                last = Last::Content;
            } else if let Some(n) = line
                .strip_prefix(b"[exit ")
                .and_then(|r| r.strip_suffix(b"]"))
            {
                status = std::str::from_utf8(n)
                    .ok()
                    .and_then(|n| n.parse::<i32>().ok())
                    .ok_or_else(|| {
                        err(
                            i,
                            format!("bad status: `{}`", String::from_utf8_lossy(line)),
                        )
                    })?;
                last = Last::Exit;
            } else if line.starts_with(b"[stdin]") {
                return Err(err(
                    i,
                    "`[stdin]` must come before the step's output".into(),
                ));
            } else if line.starts_with(b"[") {
                return Err(err(
                    i,
                    format!(
                        "unknown marker: `{}` (an output line starting with `[` is written `\\[`)",
                        String::from_utf8_lossy(line)
                    ),
                ));
            } else {
                let text = line.strip_prefix(b"\\").unwrap_or(line);
                push_event(&mut output, Stream::Stdout, text);
                push_event(&mut output, Stream::Stdout, b"\n");
                last = Last::Content;
            }
            i += 1;
        }
        transcript.steps.push(Step {
            input,
            first_line,
            stdin,
            output,
            status,
        });
    }
    Ok(transcript)
}

/// How a front end that runs each request as its own input (`lines=each`: JSON lines, MCP)
/// records a request: with a final newline when it has none, since a request is a complete
/// input and running it with or without one is the same (except after a trailing backslash,
/// which a newline would turn into a line continuation: that input is kept as is).
pub fn request_input(input: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if input.is_empty() || input.ends_with(b"\n") || input.ends_with(b"\\") {
        std::borrow::Cow::Borrowed(input)
    } else {
        let mut with = input.to_vec();
        with.push(b'\n');
        std::borrow::Cow::Owned(with)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::io::{self, Write};
    use std::path::Path;

    use super::replay::for_display;
    use super::*;
    use crate::io::Sink;

    fn ev(events: &[(Stream, &[u8])]) -> Vec<(Stream, Vec<u8>)> {
        events.iter().map(|(s, b)| (*s, b.to_vec())).collect()
    }

    fn step(input: &[u8], stdin: Option<&[u8]>, output: &[(Stream, &[u8])], status: i32) -> Step {
        Step {
            input: input.to_vec(),
            first_line: 0,
            stdin: stdin.map(<[u8]>::to_vec),
            output: ev(output),
            status,
        }
    }

    /// A transcript whose line numbers are filled in as parsing does.
    fn numbered(header: Option<Header>, mut steps: Vec<Step>) -> Transcript {
        let each = header
            .as_ref()
            .is_some_and(|h| h.lines == LineNumbers::Each);
        let mut next = 1;
        for s in &mut steps {
            s.first_line = if each { 1 } else { next };
            next += s.input.split(|&b| b == b'\n').count() - usize::from(s.input.ends_with(b"\n"));
        }
        Transcript { header, steps }
    }

    fn round_trip(t: &Transcript) -> Vec<u8> {
        let bytes = t.render();
        let back = parse(&bytes).unwrap_or_else(|e| panic!("{e}\n{}", for_display(&bytes)));
        assert_eq!(&back, t, "{}", for_display(&bytes));
        assert_eq!(back.render(), bytes);
        bytes
    }

    use Stream::{Stderr, Stdout};

    #[test]
    fn escapes_and_markers() {
        let t = numbered(
            Some(Header::default()),
            vec![step(
                b"printf x\n",
                None,
                &[
                    (
                        Stdout,
                        b"$ not a command\n[stderr] not stderr\n\\ backslash\n> plain\n",
                    ),
                    (Stderr, b"real\n\nerr"),
                    (Stdout, b"no newline"),
                ],
                3,
            )],
        );
        let bytes = round_trip(&t);
        assert_eq!(
            String::from_utf8_lossy(&bytes),
            "# trumansh transcript v1 mount-point=/home/user errors=script:bash lines=stream\n\
             $ printf x\n\
             \\$ not a command\n\
             \\[stderr] not stderr\n\
             \\\\ backslash\n\
             > plain\n\
             [stderr] real\n\
             [stderr]\n\
             [stderr] err\n\
             [no newline]\n\
             no newline\n\
             [no newline]\n\
             [exit 3]\n"
        );
    }

    #[test]
    fn inputs_continuations_and_stdin() {
        let t = numbered(
            None,
            vec![
                step(b"# a comment\n", None, &[], 0),
                step(b"\n", None, &[], 0),
                step(
                    b"cat <<EOF\n> quoted\n\nEOF\n",
                    None,
                    &[(Stdout, b"> quoted\n\n")],
                    0,
                ),
                step(b"echo '\n$x\n'\n", None, &[(Stdout, b"\n$x\n\n")], 0),
                step(b"cat\n", Some(b"a\n\n[b]\n"), &[(Stdout, b"> after\n")], 0),
                step(b"cat\n", Some(b"no newline"), &[], 0),
                step(b"cat\n", Some(b""), &[], 1),
                step(b"echo \"open", None, &[(Stderr, b"bash: error\n")], 2),
            ],
        );
        let bytes = round_trip(&t);
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            text.starts_with("$ # a comment\n$\n$ cat <<EOF\n> > quoted\n>\n> EOF\n> quoted\n\n"),
            "{text}"
        );
        assert!(text.contains("$ echo '\n> $x\n> '\n\n\\$x\n\n"), "{text}");
        assert!(
            text.contains("$ cat\n[stdin] a\n[stdin]\n[stdin] [b]\n> after\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "[stdin] no newline\n[no newline]\n$ cat\n[stdin]\n[no newline]\n[exit 1]\n"
            ),
            "{text}"
        );
        assert!(
            text.ends_with("$ echo \"open\n[no newline]\n[stderr] bash: error\n[exit 2]\n"),
            "{text}"
        );
        let parsed = parse(&bytes).unwrap_or_default();
        let lines: Vec<usize> = parsed.steps.iter().map(|s| s.first_line).collect();
        assert_eq!(lines, [1, 2, 3, 7, 10, 11, 12, 13]);
        assert_eq!(parsed.script(), t.script());
    }

    #[test]
    fn non_utf8_bytes_stay_as_they_are() {
        let t = numbered(
            Some(Header {
                lines: LineNumbers::Each,
                ..Header::default()
            }),
            vec![
                step(b"printf '\\377'\n", None, &[(Stdout, b"\xff\xfe\n\x80")], 0),
                step(b"echo \xe9\n", None, &[(Stderr, b"\xc3(\n")], 1),
            ],
        );
        let bytes = round_trip(&t);
        assert!(bytes.windows(3).any(|w| w == b"\xff\xfe\n"));
        assert_eq!(parse(&bytes).unwrap_or_default().steps[1].first_line, 1);
    }

    #[test]
    fn headers_round_trip_with_percent_encoding() {
        for header in [
            Header::default(),
            Header {
                mount_point: PathBuf::from("/a dir/100%/é"),
                errors: ErrorMode::Script {
                    name: "./my script.sh".into(),
                },
                lines: LineNumbers::Each,
                reads: Reads::File,
                stdout_is_tty: true,
                tree: None,
            },
            Header {
                errors: ErrorMode::Interactive,
                ..Header::default()
            },
            Header {
                reads: Reads::Command,
                ..Header::default()
            },
        ] {
            let line = header.render();
            assert!(line.is_ascii(), "{line:?}");
            let line = line.strip_suffix(b"\n").unwrap_or(&line);
            assert_eq!(
                line.split(|&b| b == b' ').count() - 1,
                6 + usize::from(header.stdout_is_tty) + usize::from(header.reads != Reads::Stdin)
            );
            assert_eq!(Header::parse(line), Ok(header));
        }
        let h = Header::parse(b"# trumansh transcript v1 mount-point=/a%20b errors=script:x%3Ay")
            .unwrap_or_default();
        assert_eq!(h.mount_point, Path::new("/a b"));
        assert_eq!(h.errors, ErrorMode::Script { name: "x:y".into() });
        assert_eq!(
            Header::parse(b"# trumansh transcript v1"),
            Ok(Header::default())
        );
    }

    #[test]
    fn the_tree_setting_is_one_name_written_last_and_only_when_set() {
        let header = Header {
            tree: Some("my tree".into()),
            ..Header::default()
        };
        let line = header.render();
        assert_eq!(
            line,
            b"# trumansh transcript v1 mount-point=/home/user errors=script:bash lines=stream \
              tree=my%20tree\n"
        );
        assert_eq!(Header::parse(&line[..line.len() - 1]), Ok(header));
        assert_eq!(Header::default().tree, None);
        for bad in ["tree=", "tree=a/b", "tree=..", "tree=.", "tree=%FF"] {
            let line = format!("{MAGIC} {bad}");
            let err = Header::parse(line.as_bytes()).unwrap_err();
            assert!(
                err.contains("tree must be one directory name"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn bad_transcripts_are_errors_with_a_line_number() {
        let cases: &[(&[u8], usize, &str)] = &[
            (
                b"# trumansh transcript v2\n",
                1,
                "unsupported transcript version",
            ),
            (
                b"# trumansh transcript v1 lines=sideways\n",
                1,
                "lines must be",
            ),
            (b"# trumansh transcript v1 mount-point=rel\n", 1, "absolute"),
            (
                b"# trumansh transcript v1 color=red\n",
                1,
                "unknown header setting",
            ),
            (
                b"# trumansh transcript v1 lines=each lines=each\n",
                1,
                "twice",
            ),
            (b"# trumansh transcript v1 mount-point=/%zz\n", 1, "percent"),
            (b"# trumansh transcript v1 errors\n", 1, "without `=`"),
            (b"hello\n", 1, "expected a command"),
            (b"$ true\n[exit x]\n", 2, "bad status"),
            (b"$ true\n[exit 1]\nout\n", 3, "after `[exit N]`"),
            (b"$ true\nout\n[stdin] x\n", 3, "before the step's output"),
            (b"$ true\n[bogus]\n", 2, "unknown marker"),
            (b"$ true\n[exit 1]\n[no newline]\n", 3, "after `[exit N]`"),
            (b"$ true\nx\n[no newline]\n[no newline]\n", 4, "must follow"),
        ];
        for (bytes, line, message) in cases {
            match parse(bytes) {
                Err(e) => {
                    assert_eq!(e.line, *line, "{e}");
                    assert!(e.message.contains(message), "{e}");
                }
                Ok(t) => panic!("{:?} parsed: {t:?}", String::from_utf8_lossy(bytes)),
            }
        }
        assert_eq!(parse(b""), Ok(Transcript::default()));
    }

    #[test]
    fn a_continuation_after_a_complete_command_is_output() {
        let t = parse(b"$ echo a\n> b\n$ echo 'a\n> b'\n").unwrap_or_default();
        assert_eq!(t.steps[0].input, b"echo a\n");
        assert_eq!(t.steps[0].output, ev(&[(Stdout, b"> b\n")]));
        assert_eq!(t.steps[1].input, b"echo 'a\nb'\n");
        assert_eq!(t.steps[1].first_line, 2);
    }

    #[test]
    fn diffs_name_both_sides_and_show_bad_bytes() {
        assert_eq!(diff(b"a\n", b"a\n", "t"), None);
        let d = diff(b"$ x\nold\xff\n", b"$ x\nnew\n", "t.transcript").unwrap_or_default();
        assert!(d.starts_with("--- t.transcript\n+++ replay\n"), "{d}");
        assert!(d.contains("-old\\xFF\n+new\n"), "{d}");
    }

    #[test]
    fn the_recorder_writes_each_step_and_stops_quietly_on_a_write_error() {
        use std::sync::{Arc, Mutex};
        #[derive(Clone)]
        struct Limited(Arc<Mutex<Vec<u8>>>, usize);
        impl Write for Limited {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                let mut v = self.0.lock().map_err(|_| io::Error::other("poisoned"))?;
                if v.len() + buf.len() > self.1 {
                    return Err(io::Error::other("disk full"));
                }
                v.extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let shared = Arc::new(Mutex::new(Vec::new()));
        let mut rec = Recorder::new(
            Box::new(Limited(Arc::clone(&shared), 120)),
            "mem",
            &Header::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mut out = Recorded::default();
        out.write(Stdout, b"hi\n");
        rec.step(b"echo hi\n", None, &out, 0);
        assert!(rec.is_recording());
        rec.step(b"echo this one does not fit in the file\n", None, &out, 0);
        assert!(!rec.is_recording());
        rec.step(b"echo hi\n", None, &out, 0);
        let bytes = shared.lock().map(|v| v.clone()).unwrap_or_default();
        let t = parse(&bytes).unwrap_or_default();
        assert_eq!(t.header, Some(Header::default()));
        assert_eq!(t.steps.len(), 1);
    }

    #[test]
    fn the_tee_passes_on_and_records() {
        let mut inner = Recorded::default();
        let mut rec = Recorded::default();
        let mut tee = Tee::new(&mut inner, &mut rec);
        tee.write(Stdout, b"a");
        tee.write(Stdout, b"");
        tee.write(Stdout, b"b\n");
        tee.write(Stderr, b"e\n");
        assert_eq!(inner, rec);
        assert_eq!(rec.events, ev(&[(Stdout, b"ab\n"), (Stderr, b"e\n")]));
        assert_eq!(rec.bytes(Stdout), b"ab\n");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Any bytes: parsing never panics, and what parses renders to something that parses
        /// to the same transcript.
        #[test]
        fn parsing_any_bytes_never_panics(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::prelude::any::<u8>(),
                    proptest::sample::select(b"$>[]\\\n '\"<|#".to_vec()),
                ],
                0..200,
            ),
            with_header in proptest::prelude::any::<bool>(),
        ) {
            let mut input = if with_header { b"# trumansh transcript v1\n".to_vec() } else { Vec::new() };
            input.extend_from_slice(&bytes);
            if let Ok(t) = parse(&input) {
                let again = t.render();
                proptest::prop_assert_eq!(parse(&again), Ok(t));
            }
        }

        /// Any steps rendered parse back to the same steps, and render to the same bytes.
        #[test]
        fn rendered_steps_round_trip(
            steps in proptest::collection::vec(
                (
                    proptest::collection::vec(proptest::prelude::any::<u8>(), 0..30),
                    proptest::option::of(proptest::collection::vec(proptest::prelude::any::<u8>(), 0..20)),
                    proptest::collection::vec(
                        (proptest::prelude::any::<bool>(), proptest::collection::vec(proptest::prelude::any::<u8>(), 1..30)),
                        0..4,
                    ),
                    0..300i32,
                ),
                0..5,
            ),
        ) {
            // Inputs as the chunker makes them: complete commands with their newline.
            let mut t = Transcript { header: Some(Header { lines: LineNumbers::Each, ..Header::default() }), steps: Vec::new() };
            for (input, stdin, output, status) in steps {
                let mut text = b"echo '".to_vec();
                text.extend(input.into_iter().filter(|&b| b != b'\'' && b != b'\n'));
                text.extend_from_slice(b"'\n");
                let mut events = Vec::new();
                for (err, bytes) in output {
                    push_event(&mut events, if err { Stderr } else { Stdout }, &bytes);
                }
                t.steps.push(Step { input: text, first_line: 1, stdin, output: events, status });
            }
            let bytes = t.render();
            let back = parse(&bytes);
            proptest::prop_assert_eq!(back.as_ref().map(Transcript::render), Ok(bytes.clone()));
            proptest::prop_assert_eq!(back, Ok(t));
        }

        /// The chunker hands over every byte of its input, in order.
        #[test]
        fn chunks_concatenate_to_the_input(bytes in proptest::collection::vec(
            proptest::sample::select(b"ab \n'\"<|&\\#EOF".to_vec()), 0..120)) {
            let joined: Vec<u8> = Chunks::new(bytes.as_slice()).flat_map(|c| c.text).collect();
            proptest::prop_assert_eq!(joined, bytes);
        }
    }
}
