//! Running one prepared command: its output and effects as they are produced.
//!
//! A handler returns an [`Outcome`](trumansh_commands::Outcome), and may hand over large
//! output before it returns ([`Ctx::flush`](trumansh_commands::Ctx::flush) →
//! [`Spill`]). Both go through an [`Emitter`], which writes each step to the command's
//! stdout/stderr targets (the session's streams, the next pipeline stage, a file, nothing),
//! applies each filesystem effect through the sandbox and journals it, and keeps the effects
//! that change the session (`cd`, variables, `exit`) for the session to apply.
//!
//! The stages of a multi-command pipeline run in threads joined by bounded pipes, as bash's
//! run concurrently: `cat big.txt | head -n 1` holds a few chunks, not the file, and when
//! `head` is done its pipe closes and `cat` stops (as on `SIGPIPE`).

use std::cell::{Cell, RefCell};
use std::io::Read;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, SyncSender};
use std::time::SystemTime;

use trumansh_commands::{
    CommandName, Ctx, Effect, FsError, FsView, Identity, Op, Spill, Stdin, Step, Vars,
};

use crate::sandbox::Sandbox;
use crate::session::{Sink, Stream};
use crate::state::{self, JournalRecord};

/// How many chunks a pipe between two stages holds before the writer waits.
pub(crate) const PIPE_CHUNKS: usize = 16;

/// Where one of a command's output fds points.
#[derive(Debug, Clone)]
pub(crate) enum Out {
    /// The session's stdout or stderr.
    Stream(Stream),
    /// Into the next pipeline stage.
    NextStage,
    /// Appended to a file (a redirection already opened and truncated it).
    File(PathBuf),
    Null,
}

/// Where [`Out::Stream`] bytes go.
pub(crate) trait StreamSink {
    fn write(&self, stream: Stream, bytes: &[u8]);
}

/// Straight to the front end's sink (a command run on the session's own thread).
pub(crate) struct DirectSink<'a>(pub RefCell<&'a mut dyn Sink>);

impl StreamSink for DirectSink<'_> {
    fn write(&self, stream: Stream, bytes: &[u8]) {
        if let Ok(mut sink) = self.0.try_borrow_mut() {
            sink.write(stream, bytes);
        }
    }
}

/// To the session's thread, which writes to the sink (a pipeline stage's thread).
pub(crate) struct ChannelSink(pub Sender<(Stream, Vec<u8>)>);

impl StreamSink for ChannelSink {
    fn write(&self, stream: Stream, bytes: &[u8]) {
        let _ = self.0.send((stream, bytes.to_vec()));
    }
}

/// The read end of a pipe between two stages.
pub(crate) struct PipeReader {
    rx: Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    pos: usize,
}

impl PipeReader {
    pub(crate) fn new(rx: Receiver<Vec<u8>>) -> Self {
        PipeReader {
            rx,
            chunk: Vec::new(),
            pos: 0,
        }
    }
}

impl Read for PipeReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.pos >= self.chunk.len() {
            match self.rx.recv() {
                Ok(chunk) => {
                    self.chunk = chunk;
                    self.pos = 0;
                }
                // The writer is done: end of file.
                Err(_) => return Ok(0),
            }
        }
        let avail = self.chunk.get(self.pos..).unwrap_or_default();
        let n = avail.len().min(buf.len());
        buf.get_mut(..n)
            .unwrap_or_default()
            .copy_from_slice(avail.get(..n).unwrap_or_default());
        self.pos += n;
        Ok(n)
    }
}

/// What a command may read and who it is, shared by every stage of a pipeline.
pub(crate) struct Env<'a> {
    pub sandbox: &'a Sandbox,
    pub cwd: &'a std::path::Path,
    pub vars: &'a Vars,
    pub identity: &'a Identity,
    pub txn: u64,
    /// Whether the session's stdout is a terminal.
    pub stdout_is_tty: bool,
}

/// Writes a command's steps to its targets and applies its effects, in order.
pub(crate) struct Emitter<'a> {
    pub sandbox: &'a Sandbox,
    pub txn: u64,
    /// The shell's prefix for builtin diagnostics (`bash: line 3: `).
    pub prefix: Vec<u8>,
    pub out: Out,
    pub err: Out,
    /// The pipe to the next stage, for [`Out::NextStage`].
    pub next: Option<SyncSender<Vec<u8>>>,
    pub streams: &'a dyn StreamSink,
    /// The status of the first effect that failed.
    pub failed: Cell<Option<i32>>,
    /// Effects on the session itself, for the session to apply (or drop, in a subshell).
    pub session_effects: RefCell<Vec<Effect>>,
    /// The next stage stopped reading.
    pub closed: Cell<bool>,
}

impl<'a> Emitter<'a> {
    pub(crate) fn new(
        sandbox: &'a Sandbox,
        txn: u64,
        prefix: Vec<u8>,
        out: Out,
        err: Out,
        streams: &'a dyn StreamSink,
    ) -> Self {
        Emitter {
            sandbox,
            txn,
            prefix,
            out,
            err,
            next: None,
            streams,
            failed: Cell::new(None),
            session_effects: RefCell::new(Vec::new()),
            closed: Cell::new(false),
        }
    }

    /// Sends bytes to a target.
    pub(crate) fn write(&self, target: &Out, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        match target {
            Out::Stream(s) => self.streams.write(*s, bytes),
            Out::NextStage => match &self.next {
                Some(tx) => {
                    if tx.send(bytes.to_vec()).is_err() {
                        self.closed.set(true);
                    }
                }
                None => self.closed.set(true),
            },
            Out::Null => {}
            Out::File(path) => {
                if let Ok(loc) = self.sandbox.resolve_write_target(path) {
                    // The redirection was opened (and checked) before the command ran.
                    let _ = self.sandbox.write_at(&loc, bytes, true);
                }
            }
        }
    }

    /// A builtin diagnostic with the shell's prefix.
    pub(crate) fn shell_err(&self, msg: &[u8]) {
        let mut text = self.prefix.clone();
        text.extend_from_slice(msg);
        if !text.ends_with(b"\n") {
            text.push(b'\n');
        }
        self.write(&self.err, &text);
    }

    /// Replays one step.
    pub(crate) fn step(&self, step: Step) {
        match step {
            Step::Out(bytes) => self.write(&self.out, &bytes),
            Step::Err(bytes) => self.write(&self.err, &bytes),
            Step::ShellErr(bytes) => self.shell_err(&bytes),
            Step::Effect(effect) => {
                if is_session_effect(&effect.op) {
                    self.session_effects.borrow_mut().push(effect);
                    return;
                }
                match apply_fs_effect(self.sandbox, self.txn, &effect.op) {
                    Ok(()) => {
                        if let Some(ok) = &effect.on_ok {
                            self.write(&self.out, ok);
                        }
                    }
                    Err(fail) => {
                        if let Some(ctx_msg) = &effect.on_err {
                            let msg = format!("{ctx_msg}: {}\n", fail.strerror());
                            self.write(&self.err, msg.as_bytes());
                        }
                        if self.failed.get().is_none() {
                            self.failed.set(Some(effect.fail_status));
                        }
                    }
                }
            }
        }
    }

    /// The command's status: its own, or the first failed effect's when it claimed success.
    pub(crate) fn status(&self, handler_status: i32) -> i32 {
        if handler_status == 0 {
            self.failed.get().unwrap_or(0)
        } else {
            handler_status
        }
    }
}

impl Spill for Emitter<'_> {
    fn spill(&self, steps: Vec<Step>) {
        for step in steps {
            self.step(step);
        }
    }
    fn closed(&self) -> bool {
        self.closed.get()
    }
}

/// Runs a handler with its output flowing through `emitter`; returns its status.
pub(crate) fn run_command(
    env: &Env,
    command: CommandName,
    args: &[std::ffi::OsString],
    vars: &Vars,
    stdin: &Stdin,
    emitter: &Emitter,
) -> i32 {
    let ctx = Ctx {
        fs: env.sandbox,
        cwd: env.cwd,
        mount_point: env.sandbox.mount_point(),
        vars,
        stdin,
        now: SystemTime::now(),
        identity: env.identity,
        stdout_is_tty: env.stdout_is_tty && matches!(emitter.out, Out::Stream(Stream::Stdout)),
        spill: Some(emitter),
    };
    let outcome = trumansh_commands::run(command, args, &ctx);
    let status = outcome.status;
    for step in outcome.steps {
        emitter.step(step);
    }
    emitter.status(status)
}

/// Effects on the session rather than the filesystem.
fn is_session_effect(op: &Op) -> bool {
    matches!(
        op,
        Op::SetCwd { .. } | Op::SetVar { .. } | Op::UnsetVar { .. } | Op::Exit { .. }
    )
}

/// Checks and applies one filesystem effect through the sandbox, then journals it.
pub(crate) fn apply_fs_effect(sandbox: &Sandbox, txn: u64, op: &Op) -> Result<(), FsError> {
    type Applied = (
        &'static str,
        PathBuf,
        Option<PathBuf>,
        Option<serde_json::Value>,
    );
    let (op_name, path, to, undo): Applied = match op {
        Op::SetCwd { .. } | Op::SetVar { .. } | Op::UnsetVar { .. } | Op::Exit { .. } => {
            return Ok(());
        }
        Op::CreateDir {
            path,
            mode,
            exist_ok,
        } => {
            match sandbox.create_dir(path, *mode) {
                Ok(()) => {}
                Err(FsError::AlreadyExists)
                    if *exist_ok && sandbox.stat(path, true).is_ok_and(|m| m.is_dir()) =>
                {
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
            ("create_dir", path.clone(), None, None)
        }
        Op::WriteFile { path, data, append } => {
            let loc = sandbox.resolve_write_target(path)?;
            let existed = sandbox.write_probe(&loc)?;
            sandbox.write_at(&loc, data, *append)?;
            let undo = existed.map(|(len, _)| serde_json::json!({ "previous_len": len }));
            (
                if *append { "append" } else { "write" },
                path.clone(),
                None,
                undo,
            )
        }
        Op::Touch {
            path,
            atime,
            mtime,
            create,
        } => {
            let created = sandbox.touch(path, *atime, *mtime, *create, SystemTime::now())?;
            let undo = Some(serde_json::json!({ "created": created }));
            ("touch", path.clone(), None, undo)
        }
        Op::Trash { path } => {
            let id = state::trash(sandbox, path)?;
            (
                "trash",
                path.clone(),
                None,
                Some(serde_json::json!({ "trash_id": id })),
            )
        }
        Op::Rename { from, to } => {
            sandbox.rename(from, to)?;
            ("rename", from.clone(), Some(to.clone()), None)
        }
        Op::Copy {
            from,
            to,
            links_as_links,
            preserve,
        } => {
            sandbox.copy(from, to, *links_as_links, *preserve)?;
            ("copy", from.clone(), Some(to.clone()), None)
        }
        Op::SetMode { path, mode } => {
            let old = sandbox.stat(path, true)?.perm;
            sandbox.set_mode(path, *mode)?;
            (
                "set_mode",
                path.clone(),
                None,
                Some(serde_json::json!({ "previous_mode": old })),
            )
        }
    };
    let p = path.to_string_lossy();
    let t = to.as_ref().map(|t| t.to_string_lossy().into_owned());
    state::journal(
        sandbox,
        &JournalRecord {
            txn,
            op: op_name,
            path: &p,
            to: t.as_deref(),
            undo,
            time: state::timestamp(),
        },
    );
    Ok(())
}
