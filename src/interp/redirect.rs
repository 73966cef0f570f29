//! Redirections, opened in order before the command runs (as bash: `> f` creates or
//! truncates `f` even if the command then fails or is not found), and a command's stdin.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::sync::mpsc;

use trumansh_commands::{Op, Stdin, normalize_lexical};

use super::Interp;
use super::state::ShellState;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::api::AppliedEffect;
use crate::audit::Audit;
use crate::exec::{FileTarget, LineInput, Out, PipeReader, StreamSink, apply_effect, audit_effect};
use crate::expand;
use crate::io::Stream;
use crate::shell::{self, ast::RedirKind, ast::SimpleCommand, ast::Word};

/// A command's stdin before it runs.
pub(super) enum Input {
    /// Whatever the pipeline gives: the previous stage's output, or empty.
    Inherit,
    /// A here-document, a here-string, `< /dev/null`.
    Bytes(Vec<u8>),
    /// A `<` file, read as a stream.
    File(cap_std::fs::File),
}

/// The fds of one command.
pub(super) struct Fds {
    pub stdin: Input,
    pub out: Out,
    pub err: Out,
    /// The files its redirections opened, recorded in the audit log when the command is
    /// done (dropped).
    pub opened: Vec<Opened>,
}

impl Fds {
    /// Nothing redirected yet: stdin inherited, stdout to `out`, stderr to the session's.
    pub(super) fn new(out: Out) -> Self {
        Fds {
            stdin: Input::Inherit,
            out,
            err: Out::Stream(Stream::Stderr),
            opened: Vec::new(),
        }
    }
}

/// A file a redirection created or truncated: its `effect` event is written to the audit log
/// once its command is done (when this is dropped), with the bytes the command wrote to it.
/// The truncation itself is journaled before it happens.
pub(super) struct Opened {
    target: FileTarget,
    append: bool,
    audit: Arc<Audit>,
}

impl Drop for Opened {
    fn drop(&mut self) {
        audit_effect(
            &self.audit,
            &AppliedEffect::Write {
                path: self.target.path.clone(),
                bytes: self.target.written.load(Ordering::Relaxed),
                append: self.append,
            },
        );
    }
}

impl Interp<'_> {
    /// Opens a command's redirections in order. On failure prints bash's message and returns
    /// the status (1), and the command does not run.
    pub(super) fn open_redirections(
        &self,
        state: &mut ShellState,
        cmd: &SimpleCommand,
        fds: &mut Fds,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Result<(), i32> {
        for r in &cmd.redirects {
            let fd = r.fd;
            match &r.kind {
                RedirKind::Out(w)
                | RedirKind::Append(w)
                | RedirKind::OutErr(w)
                | RedirKind::AppendOutErr(w) => {
                    let append =
                        matches!(r.kind, RedirKind::Append(_) | RedirKind::AppendOutErr(_));
                    let target = self.redirect_target(state, w, line, streams)?;
                    // `/dev/stdout`, `/dev/stderr` (and `/dev/fd/1`, `/dev/fd/2`) are the
                    // command's fd 1 or 2 as they are now: `> /dev/stderr` is `>&2`.
                    let target = match fd_path(state, &target) {
                        Some(1) => fds.out.clone(),
                        Some(2) => fds.err.clone(),
                        _ => self.open_output(
                            state,
                            &target,
                            append,
                            &mut fds.opened,
                            (line, streams),
                        )?,
                    };
                    match (&r.kind, fd.unwrap_or(1)) {
                        (RedirKind::OutErr(_) | RedirKind::AppendOutErr(_), _) => {
                            fds.out = target.clone();
                            fds.err = target;
                        }
                        (_, 1) => fds.out = target,
                        (_, 2) => fds.err = target,
                        _ => {} // other fds: opened (and created) but unused
                    }
                }
                RedirKind::DupOut(src) => {
                    let from = match src {
                        1 => Some(fds.out.clone()),
                        2 => Some(fds.err.clone()),
                        _ => None,
                    };
                    let Some(from) = from else {
                        let msg = format!("{src}: Bad file descriptor\n");
                        self.shell_error(streams, line, msg.as_bytes());
                        return Err(1);
                    };
                    match fd.unwrap_or(1) {
                        1 => fds.out = from,
                        2 => fds.err = from,
                        _ => {}
                    }
                }
                RedirKind::DupIn(src) => {
                    if *src != 0 {
                        let msg = format!("{src}: Bad file descriptor\n");
                        self.shell_error(streams, line, msg.as_bytes());
                        return Err(1);
                    }
                }
                RedirKind::Close => match fd.unwrap_or(1) {
                    1 => fds.out = Out::Null,
                    2 => fds.err = Out::Null,
                    0 => fds.stdin = Input::Bytes(Vec::new()),
                    _ => {}
                },
                RedirKind::In(w) => {
                    let target = self.redirect_target(state, w, line, streams)?;
                    // `< /dev/stdin` (`/dev/fd/0`) keeps the stdin the command has.
                    if !matches!(fd_path(state, &target), Some(0)) {
                        let path = state.resolve(&target);
                        let input = if target.as_bytes() == b"/dev/null" {
                            Ok(Input::Bytes(Vec::new()))
                        } else {
                            self.rt.sandbox.open_file(&path).map(Input::File)
                        };
                        match input {
                            Ok(input) => {
                                if fd.unwrap_or(0) == 0 {
                                    fds.stdin = input;
                                }
                            }
                            Err(e) => {
                                let mut msg = target.as_bytes().to_vec();
                                msg.extend_from_slice(b": ");
                                msg.extend_from_slice(e.strerror().as_bytes());
                                self.shell_error(streams, line, &msg);
                                return Err(1);
                            }
                        }
                    }
                }
                RedirKind::HereDoc { body, expand } => {
                    let data = if *expand {
                        self.expand_body(body, state, line, streams)?
                    } else {
                        literal_text(body)
                    };
                    if fd.unwrap_or(0) == 0 {
                        fds.stdin = Input::Bytes(data);
                    }
                }
                RedirKind::HereString(w) => {
                    let mut data = self.expand_body(w, state, line, streams)?;
                    data.push(b'\n');
                    if fd.unwrap_or(0) == 0 {
                        fds.stdin = Input::Bytes(data);
                    }
                }
            }
        }
        Ok(())
    }

    /// Expands a here-document's body or a here-string's word, without splitting; what it
    /// assigns (`${X:=v}`) stays, also when it fails.
    fn expand_body(
        &self,
        word: &Word,
        state: &mut ShellState,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Result<Vec<u8>, i32> {
        let mut assigned = Vec::new();
        let data = expand::expand_word_nosplit(word, &self.expand_ctx(state), &mut assigned);
        state.apply_assigned(assigned);
        data.map_err(|e| self.expansion_failed(&e, line, streams))
    }

    /// Expands a redirection's word to exactly one path.
    fn redirect_target(
        &self,
        state: &mut ShellState,
        word: &shell::ast::Word,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Result<OsString, i32> {
        let mut assigned = Vec::new();
        let fields = expand::expand_word(word, &self.expand_ctx(state), &mut assigned);
        state.apply_assigned(assigned);
        match fields {
            Ok(mut f) if f.len() == 1 => Ok(f.remove(0)),
            Ok(_) => {
                let mut msg = source_text(word);
                msg.extend_from_slice(b": ambiguous redirect");
                self.shell_error(streams, line, &msg);
                Err(1)
            }
            Err(e) => Err(self.expansion_failed(&e, line, streams)),
        }
    }

    /// Opens an output redirection: `/dev/null`, or a file created/truncated now (and kept
    /// in `opened` for the audit log).
    fn open_output(
        &self,
        state: &mut ShellState,
        target: &OsString,
        append: bool,
        opened: &mut Vec<Opened>,
        (line, streams): (usize, &dyn StreamSink),
    ) -> Result<Out, i32> {
        if target.as_bytes() == b"/dev/null" {
            return Ok(Out::Null);
        }
        let path = state.resolve(target);
        // Opening is a change of its own (`> f` truncates even if the command then fails),
        // journaled like any other; the command's output is then appended.
        let open = Op::WriteFile {
            path: path.clone(),
            data: Vec::new(),
            append,
        };
        // Audited when the command is done, with the bytes it wrote ([`Opened`]).
        let applied = apply_effect(&self.rt.sandbox, &self.rt.journal, &open, false)
            .and_then(|targets| targets.first);
        match applied {
            Ok(loc) => {
                let target = FileTarget {
                    path,
                    loc,
                    written: Arc::default(),
                };
                opened.push(Opened {
                    target: target.clone(),
                    append,
                    audit: Arc::clone(&self.rt.audit),
                });
                Ok(Out::File(target))
            }
            Err(e) => {
                let mut msg = target.as_bytes().to_vec();
                msg.extend_from_slice(b": ");
                msg.extend_from_slice(e.strerror().as_bytes());
                self.shell_error(streams, line, &msg);
                Err(1)
            }
        }
    }
}

/// The fd a device path names: `/dev/stdin`, `/dev/stdout`, `/dev/stderr` and
/// `/dev/fd/0`..`2` (however written: `/dev//stdout`), as Linux's links to the process's fds.
fn fd_path(state: &ShellState, target: &OsString) -> Option<u8> {
    let path = normalize_lexical(&state.resolve(target));
    let name = path.strip_prefix("/dev").ok()?;
    ["stdin", "stdout", "stderr"]
        .iter()
        .position(|n| name == std::path::Path::new(n))
        .or_else(|| {
            let fd = name.strip_prefix("fd").ok()?;
            ["0", "1", "2"]
                .iter()
                .position(|n| fd == std::path::Path::new(n))
        })
        .map(|i| i as u8)
}

/// The text of a here-document body whose delimiter was quoted (no expansion).
fn literal_text(word: &shell::ast::Word) -> Vec<u8> {
    source_text(word)
}

/// The literal bytes of a word's parts, without expanding anything (for messages).
fn source_text(word: &shell::ast::Word) -> Vec<u8> {
    use shell::ast::WordPart;
    fn walk(parts: &[WordPart], out: &mut Vec<u8>) {
        for p in parts {
            match p {
                WordPart::Literal(b) | WordPart::Quoted(b) => out.extend_from_slice(b),
                WordPart::DoubleQuoted(inner) => walk(inner, out),
                WordPart::Param(p) => {
                    out.push(b'$');
                    out.extend_from_slice(p.name.as_bytes());
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(&word.parts, &mut out);
    out
}

/// A command's stdin: its redirection, else the pipe from the previous stage, else the
/// request's stdin, else empty.
pub(super) fn stdin_of(
    input: Input,
    pipe: Option<mpsc::Receiver<Vec<u8>>>,
    line: Option<&LineInput>,
) -> Stdin {
    match input {
        Input::Bytes(b) => Stdin::bytes(b),
        Input::File(f) => Stdin::stream(Box::new(f)),
        Input::Inherit => match (pipe, line) {
            (Some(rx), _) => Stdin::stream(Box::new(PipeReader::new(rx))),
            (None, Some(line)) => Stdin::stream(Box::new(line.clone())),
            (None, None) => Stdin::empty(),
        },
    }
}
