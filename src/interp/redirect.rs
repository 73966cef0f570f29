//! Redirections, opened in order before the command runs (as bash: `> f` creates or
//! truncates `f` even if the command then fails or is not found), and a command's stdin.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::sync::Mutex;

use trumansh_commands::{Op, Stdin, normalize_lexical};

use super::Interp;
use super::state::ShellState;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::api::AppliedEffect;
use crate::audit::Audit;
use crate::exec::{FileTarget, LineInput, Out, StreamSink, apply_effect, audit_effect};
use crate::expand;
use crate::io::Stream;
use crate::shell::{self, ast::RedirKind, ast::Redirect, ast::Word};

/// A command's stdin: nothing, or an input shared by every command that reads it in turn
/// (the commands of a `while read` loop, of `{ ...; } < f`), consumed as a file descriptor.
#[derive(Clone, Default)]
pub(crate) enum Input {
    #[default]
    Empty,
    Shared(Arc<SharedInput>),
}

/// An input several commands read one after the other.
pub(crate) struct SharedInput {
    reader: Mutex<Box<dyn Read + Send>>,
    /// What the last reader read ahead but did not use: read first.
    back: Mutex<Vec<u8>>,
}

impl Input {
    pub(crate) fn reader(reader: Box<dyn Read + Send>) -> Self {
        Input::Shared(Arc::new(SharedInput {
            reader: Mutex::new(reader),
            back: Mutex::new(Vec::new()),
        }))
    }
    /// A file a redirection opened: read through a buffer (the commands sharing it read
    /// from the buffer, so nothing read ahead is lost), not one system call per byte.
    pub(crate) fn file(f: impl Read + Send + 'static) -> Self {
        Input::reader(Box::new(std::io::BufReader::with_capacity(64 * 1024, f)))
    }
    pub(crate) fn bytes(data: Vec<u8>) -> Self {
        Input::reader(Box::new(std::io::Cursor::new(data)))
    }
    /// The handler's view of it.
    pub(crate) fn stdin(&self) -> Stdin {
        match self {
            Input::Empty => Stdin::empty(),
            Input::Shared(s) => Stdin::stream(Box::new(SharedReader(Arc::clone(s)))),
        }
    }
    /// After a command: what it read ahead and left is read first by the next.
    pub(crate) fn give_back(&self, stdin: &Stdin) {
        let left = stdin.take_pushback();
        if left.is_empty() {
            return;
        }
        if let Input::Shared(s) = self
            && let Ok(mut back) = s.back.lock()
        {
            let mut rest = left;
            rest.append(&mut back);
            *back = rest;
        }
    }
}

struct SharedReader(Arc<SharedInput>);

impl Read for SharedReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Ok(mut back) = self.0.back.lock()
            && !back.is_empty()
        {
            let n = back.len().min(buf.len());
            buf.get_mut(..n)
                .unwrap_or_default()
                .copy_from_slice(back.get(..n).unwrap_or_default());
            back.drain(..n);
            return Ok(n);
        }
        match self.0.reader.lock() {
            Ok(mut r) => r.read(buf),
            Err(_) => Ok(0),
        }
    }
}

/// The open fds a command runs with: what it inherits, changed by its redirections.
#[derive(Clone)]
pub(crate) struct Io {
    pub stdin: Input,
    pub out: Out,
    pub err: Out,
    /// Fds 3 to 9 (`3>f`, `exec 4<f`): for output, or for input.
    pub extra: Vec<(u32, Fd)>,
}

impl std::fmt::Debug for Io {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Io")
            .field("out", &self.out)
            .field("err", &self.err)
            .field(
                "extra",
                &self.extra.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// What an fd above 2 is open on.
#[derive(Clone)]
pub(crate) enum Fd {
    Out(Out),
    In(Input),
}

impl Io {
    /// An output fd (1, 2, or 3 to 9); `None`: not open for output.
    pub(crate) fn output(&self, fd: u32) -> Option<Out> {
        match fd {
            1 => Some(self.out.clone()),
            2 => Some(self.err.clone()),
            n => self
                .extra
                .iter()
                .find(|(k, _)| *k == n)
                .and_then(|(_, f)| match f {
                    Fd::Out(o) => Some(o.clone()),
                    Fd::In(_) => None,
                }),
        }
    }
    /// An input fd (0, or 3 to 9).
    pub(crate) fn input(&self, fd: u32) -> Option<Input> {
        match fd {
            0 => Some(self.stdin.clone()),
            n => self
                .extra
                .iter()
                .find(|(k, _)| *k == n)
                .and_then(|(_, f)| match f {
                    Fd::In(i) => Some(i.clone()),
                    Fd::Out(_) => None,
                }),
        }
    }
    /// Points an output fd somewhere.
    pub(crate) fn set_output(&mut self, fd: u32, out: Out) {
        match fd {
            0 => {}
            1 => self.out = out,
            2 => self.err = out,
            n => self.set_extra(n, Some(Fd::Out(out))),
        }
    }
    /// Points an input fd somewhere.
    pub(crate) fn set_input(&mut self, fd: u32, input: Input) {
        match fd {
            0 => self.stdin = input,
            1 | 2 => {}
            n => self.set_extra(n, Some(Fd::In(input))),
        }
    }
    /// Closes an fd.
    pub(crate) fn close(&mut self, fd: u32) {
        match fd {
            0 => self.stdin = Input::Empty,
            1 => self.out = Out::Null,
            2 => self.err = Out::Null,
            n => self.set_extra(n, None),
        }
    }
    fn set_extra(&mut self, fd: u32, to: Option<Fd>) {
        self.extra.retain(|(k, _)| *k != fd);
        if let Some(f) = to {
            self.extra.push((fd, f));
        }
    }
}

impl Io {
    /// The session's own: an empty (or the request's) stdin, stdout and stderr.
    pub(crate) fn terminal(line: Option<&LineInput>) -> Self {
        Io {
            stdin: line.map_or(Input::Empty, |l| Input::reader(Box::new(l.clone()))),
            out: Out::Stream(Stream::Stdout),
            err: Out::Stream(Stream::Stderr),
            extra: Vec::new(),
        }
    }
}

/// The fds of one command: its [`Io`], and the files its redirections opened.
pub(super) struct Fds {
    pub io: Io,
    /// The files its redirections opened, recorded in the audit log when the command is
    /// done (dropped).
    pub opened: Vec<Opened>,
}

impl Fds {
    pub(super) fn new(io: Io) -> Self {
        Fds {
            io,
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
        redirects: &[Redirect],
        fds: &mut Fds,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Result<(), i32> {
        // Expansions in the targets run with the fds the command had before.
        let base = fds.io.clone();
        for r in redirects {
            let fd = r.fd;
            match &r.kind {
                RedirKind::Out(w)
                | RedirKind::Clobber(w)
                | RedirKind::Append(w)
                | RedirKind::OutErr(w)
                | RedirKind::AppendOutErr(w) => {
                    let append =
                        matches!(r.kind, RedirKind::Append(_) | RedirKind::AppendOutErr(_));
                    let target = self.redirect_target(state, w, &base, line, streams)?;
                    // `/dev/stdout`, `/dev/stderr` (and `/dev/fd/1`, `/dev/fd/2`) are the
                    // command's fd 1 or 2 as they are now: `> /dev/stderr` is `>&2`.
                    // `set -C`: `>` and `&>` do not overwrite an existing regular file.
                    let guarded = matches!(r.kind, RedirKind::Out(_) | RedirKind::OutErr(_));
                    if guarded
                        && state.opts.noclobber
                        && trumansh_commands::FsView::stat(
                            &self.rt.sandbox,
                            &state.resolve(&target),
                            true,
                        )
                        .is_ok_and(|m| m.is_file())
                    {
                        let mut msg = target.as_bytes().to_vec();
                        msg.extend_from_slice(b": cannot overwrite existing file");
                        self.shell_error(state, &fds.io.err, streams, line, &msg);
                        return Err(1);
                    }
                    let target = match fd_path(state, &target) {
                        Some(1) => fds.io.out.clone(),
                        Some(2) => fds.io.err.clone(),
                        _ => self.open_output(
                            state,
                            &target,
                            append,
                            &mut fds.opened,
                            (line, &fds.io.err, streams),
                        )?,
                    };
                    match (&r.kind, fd.unwrap_or(1)) {
                        (RedirKind::OutErr(_) | RedirKind::AppendOutErr(_), _) => {
                            fds.io.out = target.clone();
                            fds.io.err = target;
                        }
                        (_, n) => fds.io.set_output(n, target),
                    }
                }
                RedirKind::DupOut(src) => {
                    let Some(from) = fds.io.output(*src) else {
                        let msg = format!("{src}: Bad file descriptor\n");
                        self.shell_error(state, &fds.io.err, streams, line, msg.as_bytes());
                        return Err(1);
                    };
                    fds.io.set_output(fd.unwrap_or(1), from);
                }
                RedirKind::DupIn(src) => {
                    let Some(from) = fds.io.input(*src) else {
                        let msg = format!("{src}: Bad file descriptor\n");
                        self.shell_error(state, &fds.io.err, streams, line, msg.as_bytes());
                        return Err(1);
                    };
                    fds.io.set_input(fd.unwrap_or(0), from);
                }
                RedirKind::Close => fds.io.close(fd.unwrap_or(1)),
                RedirKind::In(w) => {
                    let target = self.redirect_target(state, w, &base, line, streams)?;
                    // `< /dev/stdin` (`/dev/fd/0`) keeps the stdin the command has.
                    let proc_fd = std::str::from_utf8(target.as_bytes())
                        .ok()
                        .and_then(|t| t.strip_prefix("/dev/fd/"))
                        .and_then(|n| n.parse::<u32>().ok())
                        .and_then(|n| state.proc_fds.iter().find(|(k, _)| *k == n))
                        .map(|(_, b)| Arc::clone(b));
                    if let Some(bytes) = proc_fd {
                        // `< <(list)`: the list's output.
                        fds.io
                            .set_input(fd.unwrap_or(0), Input::bytes(bytes.as_ref().clone()));
                    } else if !matches!(fd_path(state, &target), Some(0)) {
                        let path = state.resolve(&target);
                        let input = if target.as_bytes() == b"/dev/null" {
                            Ok(Input::Empty)
                        } else {
                            self.rt.sandbox.open_file(&path).map(Input::file)
                        };
                        match input {
                            Ok(input) => fds.io.set_input(fd.unwrap_or(0), input),
                            Err(e) => {
                                let mut msg = target.as_bytes().to_vec();
                                msg.extend_from_slice(b": ");
                                msg.extend_from_slice(e.strerror().as_bytes());
                                self.shell_error(state, &fds.io.err, streams, line, &msg);
                                return Err(1);
                            }
                        }
                    }
                }
                RedirKind::HereDoc { body, expand, .. } => {
                    let data = if *expand {
                        self.expand_body(body, state, &base, line, streams)?
                    } else {
                        literal_text(body)
                    };
                    fds.io.set_input(fd.unwrap_or(0), Input::bytes(data));
                }
                RedirKind::ReadWrite(w) => {
                    // `<>`: opened for reading (and created if missing) on the fd.
                    let target = self.redirect_target(state, w, &base, line, streams)?;
                    let path = state.resolve(&target);
                    if trumansh_commands::FsView::stat(&self.rt.sandbox, &path, true).is_err() {
                        let mut opened = Vec::new();
                        self.open_output(
                            state,
                            &target,
                            true,
                            &mut opened,
                            (line, &fds.io.err, streams),
                        )?;
                        fds.opened.extend(opened);
                    }
                    if fd.unwrap_or(0) == 0 {
                        match self.rt.sandbox.open_file(&path) {
                            Ok(f) => fds.io.stdin = Input::file(f),
                            Err(e) => {
                                let mut msg = target.as_bytes().to_vec();
                                msg.extend_from_slice(b": ");
                                msg.extend_from_slice(e.strerror().as_bytes());
                                self.shell_error(state, &fds.io.err, streams, line, &msg);
                                return Err(1);
                            }
                        }
                    }
                }
                RedirKind::HereString(w) => {
                    let mut data = self.expand_body(w, state, &base, line, streams)?;
                    data.push(b'\n');
                    fds.io.set_input(fd.unwrap_or(0), Input::bytes(data));
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
        io: &Io,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Result<Vec<u8>, i32> {
        let data = self.with_expand(state, io, line, streams, |ctx| {
            expand::expand_word_nosplit(word, ctx)
        });
        data.map_err(|e| self.expansion_failed(state, &e, (line, io), streams))
    }

    /// Expands a redirection's word to exactly one path.
    fn redirect_target(
        &self,
        state: &mut ShellState,
        word: &shell::ast::Word,
        io: &Io,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Result<OsString, i32> {
        let fields = self.with_expand(state, io, line, streams, |ctx| {
            expand::expand_word(word, ctx)
        });
        match fields {
            Ok(mut f) if f.len() == 1 => Ok(f.remove(0)),
            Ok(_) => {
                let mut msg = source_text(word);
                msg.extend_from_slice(b": ambiguous redirect");
                self.shell_error(state, &io.err, streams, line, &msg);
                Err(1)
            }
            Err(e) => Err(self.expansion_failed(state, &e, (line, io), streams)),
        }
    }

    /// The fds `exec` gave the top level, for a new line: each file it writes to is opened
    /// again for appending (a change of this line, journaled), the rest kept; what no longer
    /// opens goes back to the terminal's.
    pub(super) fn reopen(
        &self,
        state: &mut ShellState,
        kept: Io,
        terminal: Io,
        streams: &dyn StreamSink,
    ) -> Io {
        let mut opened = Vec::new();
        // A file that cannot be opened again is reported where the shell's errors go.
        let report = terminal.err.clone();
        let mut again = |this: &Self, state: &mut ShellState, out: Out, default: Out| match out {
            Out::File(t) => this
                .open_output(
                    state,
                    &t.path.clone().into_os_string(),
                    true,
                    &mut opened,
                    (state.lineno, &report, streams),
                )
                .unwrap_or(default),
            Out::Stream(s) => Out::Stream(s),
            Out::Null => Out::Null,
            Out::Pipe(_) | Out::Capture(_) => default,
        };
        let out = again(self, state, kept.out, terminal.out);
        let err = again(self, state, kept.err, terminal.err);
        let mut extra = Vec::new();
        for (fd, f) in kept.extra {
            match f {
                Fd::Out(o) => extra.push((fd, Fd::Out(again(self, state, o, Out::Null)))),
                Fd::In(i) => extra.push((fd, Fd::In(i))),
            }
        }
        drop(opened);
        Io {
            stdin: kept.stdin,
            out,
            err,
            extra,
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
        (line, err, streams): (usize, &Out, &dyn StreamSink),
    ) -> Result<Out, i32> {
        if target.as_bytes() == b"/dev/null" {
            return Ok(Out::Null);
        }
        let path = state.resolve(target);
        if let Some(p) = state.proc_out.iter().find(|p| proc_path(p.fd) == path) {
            // `> >(list)`: into the list's input.
            return Ok(Out::Capture(Arc::clone(&p.capture)));
        }
        // Opening is a change of its own (`> f` truncates even if the command then fails),
        // journaled like any other; the command's output is then appended.
        let open = Op::WriteFile {
            path: path.clone(),
            data: Vec::new(),
            append,
        };
        // Audited when the command is done, with the bytes it wrote ([`Opened`]).
        let applied = apply_effect(&self.rt.sandbox, &self.rt.journal, &open, false)
            .and_then(|file| file.ok_or(trumansh_commands::FsError::Io));
        match applied {
            Ok(file) => {
                let target = FileTarget {
                    path,
                    file,
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
                self.shell_error(state, err, streams, line, &msg);
                Err(1)
            }
        }
    }
}

/// The fd a device path names: `/dev/stdin`, `/dev/stdout`, `/dev/stderr` and
/// `/dev/fd/0`..`2` (however written: `/dev//stdout`), as Linux's links to the process's fds.
fn fd_path(state: &ShellState, target: &OsString) -> Option<u8> {
    // Normalizing only drops components: a path with no `dev` in it cannot name one.
    let dev = |b: &[u8]| memchr::memmem::find(b, b"dev").is_some();
    let relative = !target.as_bytes().starts_with(b"/");
    if !dev(target.as_bytes()) && (!relative || !dev(state.cwd.as_os_str().as_bytes())) {
        return None;
    }
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
                WordPart::CommandSubst(_) => out.extend_from_slice(b"$(...)"),
                WordPart::Arith(_) => out.extend_from_slice(b"$((...))"),
                WordPart::ProcessSubst { .. } => out.extend_from_slice(b"<(...)"),
            }
        }
    }
    let mut out = Vec::new();
    walk(&word.parts, &mut out);
    out
}

/// Where a process substitution's fd is seen: `/dev/fd/N`.
pub(crate) fn proc_path(fd: u32) -> std::path::PathBuf {
    std::path::PathBuf::from(format!("/dev/fd/{fd}"))
}
