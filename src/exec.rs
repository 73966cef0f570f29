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
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use trumansh_commands::{
    CommandName, Ctx, Directive, FsError, FsView, Identity, Op, Spill, Stdin, Step, Vars,
};

use crate::api::AppliedEffect;
use crate::audit::{Audit, fields};
use crate::io::Stream;
use crate::sandbox::{Sandbox, Targets, unique_name};
use crate::txn::journal::{Journal, Plan};
use crate::txn::trash;

/// How many chunks a pipe between two stages holds before the writer waits.
pub(crate) const PIPE_CHUNKS: usize = 16;

/// Where one of a command's output fds points.
#[derive(Debug, Clone)]
pub(crate) enum Out {
    /// The session's stdout or stderr.
    Stream(Stream),
    /// Into the next pipeline stage.
    Pipe(SyncSender<Vec<u8>>),
    /// Into a command substitution's buffer.
    Capture(Arc<Capture>),
    /// Appended to a file (a redirection already opened and truncated it).
    File(FileTarget),
    Null,
}

/// A file a redirection opened: where the command's bytes go, and how many went there (its
/// duplicates, `2>&1`, count in the same total).
#[derive(Debug, Clone)]
pub(crate) struct FileTarget {
    pub path: PathBuf,
    /// The file the redirection's open left open: every write goes through it, as through bash's file
    /// descriptor (a rename or truncation of the path later in the line is seen as bash
    /// sees it).
    pub file: Arc<std::fs::File>,
    pub written: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

/// The output of a command substitution, collected up to a cap.
#[derive(Debug)]
pub(crate) struct Capture {
    pub bytes: Mutex<Vec<u8>>,
    pub cap: usize,
    /// More than `cap` bytes were written (the rest was dropped).
    pub overflow: AtomicBool,
}

impl Capture {
    pub(crate) fn new(cap: usize) -> Self {
        Capture {
            bytes: Mutex::new(Vec::new()),
            cap,
            overflow: AtomicBool::new(false),
        }
    }
    /// Appends; false when the cap is reached (the writer should stop).
    pub(crate) fn push(&self, data: &[u8]) -> bool {
        let Ok(mut buf) = self.bytes.lock() else {
            return false;
        };
        let room = self.cap.saturating_sub(buf.len());
        if data.len() > room {
            buf.extend_from_slice(data.get(..room).unwrap_or_default());
            self.overflow.store(true, Ordering::Relaxed);
            return false;
        }
        buf.extend_from_slice(data);
        true
    }
    pub(crate) fn take(&self) -> Vec<u8> {
        self.bytes
            .lock()
            .map(|mut b| std::mem::take(&mut *b))
            .unwrap_or_default()
    }
}

/// Where [`Out::Stream`] bytes go.
pub(crate) trait StreamSink {
    fn write(&self, stream: Stream, bytes: &[u8]);
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
    /// The line's deadline and cancel flag: a reader never waits past them.
    guard: Arc<crate::limits::Guard>,
}

impl PipeReader {
    pub(crate) fn new(rx: Receiver<Vec<u8>>, guard: Arc<crate::limits::Guard>) -> Self {
        PipeReader {
            rx,
            chunk: Vec::new(),
            pos: 0,
            guard,
        }
    }
}

impl Read for PipeReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.pos >= self.chunk.len() {
            match self.rx.recv_timeout(std::time::Duration::from_millis(50)) {
                Ok(chunk) => {
                    self.chunk = chunk;
                    self.pos = 0;
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if self.guard.expired() {
                        return Err(std::io::Error::from(std::io::ErrorKind::TimedOut));
                    }
                }
                // The writer is done: end of file.
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return Ok(0),
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

/// The stdin a request gave the line: shared by its commands, consumed as they read it.
#[derive(Clone)]
pub(crate) struct LineInput(std::sync::Arc<std::sync::Mutex<std::io::Cursor<Vec<u8>>>>);

impl LineInput {
    pub(crate) fn new(bytes: &[u8]) -> Self {
        LineInput(std::sync::Arc::new(std::sync::Mutex::new(
            std::io::Cursor::new(bytes.to_vec()),
        )))
    }
}

impl Read for LineInput {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.0.lock() {
            Ok(mut cursor) => cursor.read(buf),
            Err(_) => Ok(0),
        }
    }
}

/// What a command may read and who it is, shared by every stage of a pipeline.
pub(crate) struct Env<'a> {
    pub sandbox: &'a Sandbox,
    /// What the handler reads through: the sandbox, or a view adding `/dev/fd/N` of the
    /// command's process substitutions.
    pub fs: &'a dyn FsView,
    pub cwd: &'a std::path::Path,
    pub identity: &'a Identity,
    /// Whether the session's stdout is a terminal.
    pub stdout_is_tty: bool,
    /// The policy's walk depth.
    pub walk_depth: usize,
    /// Commands the policy denies.
    pub denied: &'a [CommandName],
    /// The input fds above 2 (`read -u`, `mapfile -u`).
    pub inputs: &'a [(u32, Stdin)],
    /// `$SHELLOPTS` (`test -o`).
    pub shellopts: &'a str,
    /// Runs the command lines a command starts (`xargs`, `find -exec`, awk's `system()`).
    pub runner: Option<&'a dyn trumansh_commands::Runner>,
    /// The handler runs as its program (`/usr/bin/printf`, under `xargs`).
    pub program: Option<&'a str>,
}

/// Writes a command's steps to its targets and applies its effects, in order.
pub(crate) struct Emitter<'a> {
    pub sandbox: &'a Sandbox,
    pub journal: &'a Journal,
    /// The shell's prefix for builtin diagnostics (`bash: line 3: `).
    pub prefix: Vec<u8>,
    pub out: Out,
    pub err: Out,
    pub streams: &'a dyn StreamSink,
    /// The status of the first effect that failed.
    pub failed: Cell<Option<i32>>,
    /// Effects on the session itself, for the session to apply (or drop, in a subshell).
    /// The command's directives to the shell, for the caller to apply (or drop, in a
    /// pipeline stage) once the command is done.
    pub directives: RefCell<Vec<Directive>>,
    /// The next stage stopped reading (or the line's deadline or stdout cap was reached).
    pub closed: Cell<bool>,
    /// A write to a redirected file failed (reported once).
    pub write_failed: Cell<bool>,
    /// The command being run, for its write-error message.
    pub command: Cell<Option<CommandName>>,
    /// The `/dev/fd/N` of the command's `>(list)`s and their inputs.
    pub proc_out: Vec<(PathBuf, Arc<Capture>)>,
    /// How often the handler asked whether its output is closed ([`Spill::closed`]).
    polls: Cell<u32>,
}

impl<'a> Emitter<'a> {
    pub(crate) fn new(
        sandbox: &'a Sandbox,
        journal: &'a Journal,
        prefix: Vec<u8>,
        out: Out,
        err: Out,
        streams: &'a dyn StreamSink,
    ) -> Self {
        Emitter {
            sandbox,
            journal,
            prefix,
            out,
            err,
            streams,
            failed: Cell::new(None),
            directives: RefCell::new(Vec::new()),
            closed: Cell::new(false),
            write_failed: Cell::new(false),
            command: Cell::new(None),
            proc_out: Vec::new(),
            polls: Cell::new(0),
        }
    }

    /// Sends bytes to a target.
    pub(crate) fn write(&self, target: &Out, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if self.sandbox.guard().expired() {
            // Past the deadline: the command's output is dropped and it is told to stop.
            self.closed.set(true);
            return;
        }
        match target {
            Out::Stream(s) => {
                let n = self.sandbox.guard().admit(*s, bytes.len());
                if n > 0 {
                    self.streams.write(*s, bytes.get(..n).unwrap_or_default());
                }
                if n < bytes.len() && *s == Stream::Stdout {
                    // The line's stdout cap: stop the command, as a closed pipe would.
                    self.closed.set(true);
                }
            }
            Out::Pipe(tx) => {
                if tx.send(bytes.to_vec()).is_err() {
                    self.closed.set(true);
                }
            }
            Out::Capture(c) => {
                if !c.push(bytes) {
                    self.closed.set(true);
                }
            }
            Out::Null => {}
            Out::File(target) => {
                // The redirection was opened (checked and journaled) before the command ran.
                let path = &target.path;
                let written = self.sandbox.write_to(&target.file, bytes);
                // Counted, and what the file's open left renewed (even when the write failed
                // part-way: it may have changed the file).
                self.journal.wrote(
                    path,
                    if written.is_ok() {
                        bytes.len() as u64
                    } else {
                        0
                    },
                );
                if written.is_ok() {
                    target
                        .written
                        .fetch_add(bytes.len() as u64, std::sync::atomic::Ordering::Relaxed);
                }
                if let Err(e) = written {
                    self.closed.set(true);
                    if !self.write_failed.replace(true) {
                        if self.failed.get().is_none() {
                            self.failed.set(Some(1));
                        }
                        // As bash's builtins and GNU's tools say it.
                        let msg = format!("write error: {}\n", e.strerror());
                        match self.command.get() {
                            Some(c) if c.is_builtin() => {
                                self.shell_err(format!("{c}: {msg}").as_bytes());
                            }
                            Some(c) => self.write(&self.err, format!("{c}: {msg}").as_bytes()),
                            None => self.shell_err(msg.as_bytes()),
                        }
                    }
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
            Step::Directive(d) => self.directives.borrow_mut().push(d),
            Step::Effect(effect) if self.write_proc_out(&effect.op) => {}
            Step::Effect(effect) => match apply_fs_effect(self.sandbox, self.journal, &effect.op) {
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
            },
        }
    }

    /// A write to a `>(list)`'s `/dev/fd/N` goes into the list's input.
    fn write_proc_out(&self, op: &Op) -> bool {
        let Op::WriteFile { path, data, .. } = op else {
            return false;
        };
        match self.proc_out.iter().find(|(p, _)| p == path) {
            Some((_, capture)) => {
                capture.push(data);
                true
            }
            None => false,
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
    /// Also true once the line's deadline has passed (looked at every 64th call: handlers
    /// ask once per line of input), so that a command that loops without writing (`awk
    /// 'BEGIN{while(1);}'`, `sed -n ':a;N;ba'`) stops at the deadline.
    fn closed(&self) -> bool {
        if self.closed.get() {
            return true;
        }
        let n = self.polls.get().wrapping_add(1);
        self.polls.set(n);
        if n.is_multiple_of(64) && self.sandbox.guard().expired() {
            self.closed.set(true);
        }
        self.closed.get()
    }
    fn expired(&self) -> bool {
        self.sandbox.guard().expired()
    }
    fn scratch(
        &self,
    ) -> Option<Result<Box<dyn trumansh_commands::ScratchFile + '_>, trumansh_commands::FsError>>
    {
        Some(self.sandbox.scratch().map(|f| Box::new(f) as _))
    }
    fn hold_bytes(&self) -> Option<u64> {
        Some(self.sandbox.hold_bytes())
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
    emitter.command.set(Some(command));
    let usage = || {
        let u = env.sandbox.usage();
        let guard = env.sandbox.guard();
        trumansh_commands::DiskUsage {
            used_bytes: u.bytes,
            quota_bytes: guard.quota_bytes,
            files: u.entries,
            file_quota: guard.file_quota,
        }
    };
    let ctx = Ctx {
        name: command,
        fs: env.fs,
        cwd: env.cwd,
        mount_point: env.sandbox.mount_point(),
        vars,
        stdin,
        now: SystemTime::now(),
        identity: env.identity,
        stdout_is_tty: env.stdout_is_tty && matches!(emitter.out, Out::Stream(Stream::Stdout)),
        spill: Some(emitter),
        walk_depth: env.walk_depth,
        denied: env.denied,
        inputs: env.inputs,
        shellopts: env.shellopts,
        runner: env.runner,
        usage: Some(&usage),
        program: env.program,
    };
    let outcome = trumansh_commands::run(command, args, &ctx);
    let status = outcome.status;
    for step in outcome.steps {
        emitter.step(step);
    }
    emitter.status(status)
}

/// Runs `f` with the context a handler would get (for the interpreter's own tests, `[[ ]]`,
/// which share the handlers' operators).
pub(crate) fn with_ctx<T>(env: &Env, vars: &Vars, f: impl FnOnce(&Ctx) -> T) -> T {
    let stdin = Stdin::empty();
    let ctx = Ctx {
        name: CommandName::Test,
        fs: env.fs,
        cwd: env.cwd,
        mount_point: env.sandbox.mount_point(),
        vars,
        stdin: &stdin,
        now: SystemTime::now(),
        identity: env.identity,
        stdout_is_tty: false,
        spill: None,
        walk_depth: env.walk_depth,
        denied: env.denied,
        inputs: &[],
        shellopts: env.shellopts,
        runner: None,
        usage: None,
        program: None,
    };
    f(&ctx)
}

/// Logs a command's `command` event (its argv and cwd) in the audit log: before its
/// redirections are opened, so that it comes before every effect it causes.
pub(crate) fn audit_command(
    audit: &Audit,
    command: CommandName,
    args: &[std::ffi::OsString],
    cwd: &std::path::Path,
) {
    let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    audit.command(command.as_str(), &args, cwd.as_os_str().as_bytes());
}

/// Checks and applies one filesystem effect through the sandbox: its inverse is journaled and
/// it is audited first (write-ahead), then it is applied.
pub(crate) fn apply_fs_effect(
    sandbox: &Sandbox,
    journal: &Journal,
    op: &Op,
) -> Result<(), FsError> {
    apply_effect(sandbox, journal, op, true).map(drop)
}

/// [`apply_fs_effect`]; with `audit_now` false the caller records the effect itself once it
/// is complete (a redirection's write, with the bytes its command wrote); a failure is
/// recorded at once either way.
pub(crate) fn apply_effect(
    sandbox: &Sandbox,
    journal: &Journal,
    op: &Op,
    audit_now: bool,
) -> Result<Option<Arc<std::fs::File>>, FsError> {
    let effect = AppliedEffect::of(op);
    sandbox.guard().check()?;
    let name = effect.op();
    // One change at a time, in the journal's order; resolved once: what is journaled is
    // what is changed.
    let _turn = journal.changing();
    let targets = sandbox.targets(op);
    let pending = journal.before(sandbox, op, &targets, name)?;
    if audit_now {
        audit_effect(sandbox.audit(), &effect);
    }
    let result = apply_planned(sandbox, op, &targets, &pending.plan);
    // What the change left (or what a failed one left), for every later revert to check.
    let file = result.as_ref().ok().and_then(Option::as_ref);
    journal.after(sandbox, op, &pending, result.is_ok(), file);
    if let Err(e) = &result {
        if !audit_now {
            audit_effect(sandbox.audit(), &effect);
        }
        sandbox.audit().event(
            "failed",
            fields([("op", name.into()), ("error", e.strerror().into())]),
        );
    } else {
        journal.applied(effect);
    }
    result
}

/// Writes an `effect` event: the change, its path (and destination, or bytes written).
pub(crate) fn audit_effect(audit: &Audit, effect: &AppliedEffect) {
    use crate::audit::Field;
    let path = effect.path().map(|p| p.as_os_str().as_bytes());
    let other = match effect {
        AppliedEffect::Rename { to, .. }
        | AppliedEffect::Copy { to, .. }
        | AppliedEffect::HardLink { to, .. } => {
            Some(("to", Field::Path(to.as_os_str().as_bytes())))
        }
        AppliedEffect::Symlink { target, .. } => {
            Some(("target", Field::Path(target.as_os_str().as_bytes())))
        }
        AppliedEffect::Truncate { len, .. } => Some(("len", Field::Number(*len))),
        AppliedEffect::Write { bytes, .. } => Some(("bytes", Field::Number(*bytes))),
        _ => None,
    };
    audit.effect(effect.op(), path, other);
}

/// Applies an effect whose inverse is recorded; a write gives back its file, still open.
fn apply_planned(
    sandbox: &Sandbox,
    op: &Op,
    targets: &Targets,
    plan: &Plan,
) -> Result<Option<Arc<std::fs::File>>, FsError> {
    let loc = targets.first()?;
    let done = match op {
        Op::CreateDir {
            path,
            mode,
            exist_ok,
        } => match sandbox.create_dir_at(loc, *mode) {
            Err(FsError::AlreadyExists)
                if *exist_ok && sandbox.stat(path, true).is_ok_and(|m| m.is_dir()) =>
            {
                Ok(())
            }
            r => r,
        },
        Op::WriteFile { data, append, .. } => {
            return sandbox
                .open_write(loc, &mut &data[..], *append, plan.target)
                .map(Some);
        }
        Op::Touch {
            atime,
            mtime,
            create,
            ..
        } => sandbox
            .touch_at(loc, *atime, *mtime, *create, SystemTime::now())
            .map(drop),
        Op::Trash { path } => {
            let id = plan.trash_id.clone().unwrap_or_else(|| unique_name("t"));
            trash::trash_at(sandbox, loc, path, &id)
        }
        Op::Rename { .. } => {
            let to = targets.second()?;
            if let Some((stashed, blob)) = &plan.stash {
                sandbox.stash(stashed, blob)?;
                let r = sandbox.rename_at(loc, to);
                if r.is_err() {
                    // Put back what was moved aside: a failed rename changes nothing.
                    let _ = sandbox.unstash(blob, stashed);
                }
                r
            } else {
                sandbox.rename_at(loc, to)
            }
        }
        Op::Copy { preserve, .. } => sandbox.copy_at(loc, targets.second()?, *preserve),
        Op::SetMode { mode, .. } => sandbox.set_mode_at(loc, *mode),
        Op::Symlink { target, .. } => sandbox.symlink_at(loc, target),
        Op::HardLink { .. } => sandbox.hard_link_at(loc, targets.second()?),
        Op::Truncate { len, create, .. } => sandbox.truncate_at(loc, *len, *create),
    };
    done.map(|()| None)
}
