//! One shell session: the virtual cwd, the variables, `$?`, and the executor that runs parsed
//! input against the sandbox.
//!
//! The executor walks the AST: lists and and-or chains by status, pipelines stage by stage
//! (each stage's stdout is the next one's stdin), simple commands by expanding their words,
//! opening their redirections, calling the handler, and replaying the handler's steps in order:
//! bytes go to the stage's stdout/stderr targets, effects are checked and applied through the
//! sandbox and journaled. Handlers never see the session's own input: a command with no pipe
//! or redirection reads an empty stdin (DESIGN.md decision 10).

use std::cell::RefCell;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use trumansh_commands::{
    CommandName, Directive, FsView, Identity, Op, Stdin, Vars, resolve_against,
};

use crate::api::{AppliedEffect, Outcome, Report, Request};
use crate::audit::{fields, text};
use crate::exec::{
    ChannelSink, DirectSink, Emitter, Env, LineInput, Out, PIPE_CHUNKS, PipeReader,
    apply_fs_effect, run_command,
};
pub use crate::io::{Captured, Sink, Stream};
use crate::io::{human_bytes, human_ms};
use crate::policy::Policy;
use crate::sandbox::{Sandbox, SandboxConfig, SetupError, normalize_lexically};
use crate::shell::ast::{AndOr, AndOrOp, Pipeline, RedirKind, Script, SimpleCommand};
use crate::shell::{self, ExpandCtx, ExpandError, ParseError};
use crate::txn::journal::{Journal, Reverted};

/// The fixed `PATH` the agent sees.
pub const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// How diagnostics are prefixed, as bash does in each mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorMode {
    /// Interactive: `bash: cd: x: No such file or directory`.
    Interactive,
    /// Non-interactive (stdin, `-c`, a script file): `NAME: line N: cd: x: ...`, where NAME
    /// is `bash` or the script's name.
    Script { name: String },
}

/// Session settings.
#[derive(Debug, Clone)]
pub struct Config {
    pub sandbox: SandboxConfig,
    pub error_mode: ErrorMode,
    pub identity: Identity,
    /// Whether handlers see stdout as a terminal (ls columns).
    pub stdout_is_tty: bool,
    /// The owner's rules: hidden and read-only paths, denied commands, undo, atomic lines,
    /// and every limit.
    pub policy: Policy,
}

impl Config {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Config {
            sandbox: SandboxConfig::new(root),
            error_mode: ErrorMode::Script {
                name: "bash".into(),
            },
            identity: Identity::default(),
            stdout_is_tty: false,
            policy: Policy::default(),
        }
    }
}

/// A shell session on one sandbox.
pub struct Session {
    sandbox: Sandbox,
    cwd: PathBuf,
    vars: Vars,
    last_status: i32,
    exit: Option<i32>,
    config: Config,
    /// The journal of transactions (one per input line that changes files).
    journal: Journal,
    /// Commands the policy denies (`undo` too, when the policy disables it).
    denied: Vec<CommandName>,
    /// What the start rolled back for sessions that crashed mid-line.
    recovered: Vec<Reverted>,
    /// Set by a fatal expansion error or a limit: the rest of the current input is skipped.
    abort_input: bool,
    /// The current line's deadline was reported.
    timed_out: bool,
    /// The current line's deadline, in milliseconds (the policy's, or a request's shorter one).
    deadline_ms: u64,
    /// The current line's stdin (a request's), shared by the commands that read it.
    line_stdin: Option<LineInput>,
    /// The current line's output passed a cap.
    truncated: bool,
    /// How many changes the current line's atomic rollback undid.
    rolled_back: usize,
}

/// A command's stdin before it runs.
enum Input {
    /// Whatever the pipeline gives: the previous stage's output, or empty.
    Inherit,
    /// A here-document, a here-string, `< /dev/null`.
    Bytes(Vec<u8>),
    /// A `<` file, read as a stream.
    File(cap_std::fs::File),
}

/// The fds of one command.
struct Fds {
    stdin: Input,
    out: Out,
    err: Out,
}

/// A command whose words, assignments and redirections are done, ready to run.
enum Prepared {
    /// Run this handler (with these variables, when prefix assignments made a copy).
    Run {
        command: CommandName,
        args: Vec<OsString>,
        vars: Option<Vars>,
        fds: Fds,
    },
    /// Not a command: this message (already prefixed) on stderr, and this status.
    NotFound {
        message: Vec<u8>,
        status: i32,
        err: Out,
    },
    /// Nothing to run (assignments only, or an expansion/redirection that failed).
    Done(i32),
}

impl Session {
    /// Opens the sandbox and starts a session in its root.
    pub fn new(mut config: Config) -> Result<Self, SetupError> {
        let limits = &config.policy.limits;
        config.sandbox.read_cap = config.sandbox.read_cap.min(limits.read_bytes);
        config.sandbox.write_quota_bytes = limits.write_quota_bytes;
        config.sandbox.file_quota = limits.file_quota;
        if config.sandbox.rules.is_none() {
            let rules = config.policy.rules().map_err(SetupError)?;
            if !rules.is_empty() {
                config.sandbox.rules = Some(std::sync::Arc::new(rules));
            }
        }
        let mut sandbox = Sandbox::open(&config.sandbox)?;
        sandbox
            .guard_mut()
            .set_output_caps(limits.stdout_bytes, limits.stderr_bytes);
        let mut denied: Vec<CommandName> = config
            .policy
            .deny_commands
            .iter()
            .filter_map(|n| n.parse().ok())
            .collect();
        if !config.policy.undo {
            denied.push(CommandName::Undo);
        }
        sandbox.audit().event(
            "session",
            fields([
                ("root", text(sandbox.root_host().as_os_str().as_bytes())),
                (
                    "mount_point",
                    text(sandbox.mount_point().as_os_str().as_bytes()),
                ),
                ("policy", config.policy.to_string().into()),
            ]),
        );
        let (journal, recovered) = Journal::open(
            &sandbox,
            config.policy.limits.undo_history,
            config.policy.journal,
        );
        let mount = sandbox.mount_point().to_path_buf();
        let deadline_ms = config.policy.limits.deadline_ms;
        let mut vars = Vars::default();
        let home = mount.to_string_lossy().into_owned();
        vars.set("HOME", home.clone(), true);
        vars.set("PWD", home, true);
        vars.export("OLDPWD");
        vars.set("USER", config.identity.user.clone(), true);
        vars.set("LOGNAME", config.identity.user.clone(), true);
        vars.set("HOSTNAME", config.identity.hostname.clone(), false);
        vars.set("PATH", PATH.into(), true);
        vars.set("SHELL", "/bin/bash".into(), true);
        vars.set("IFS", " \t\n".into(), false);
        vars.set("?", "0".into(), false);
        Ok(Session {
            sandbox,
            cwd: mount,
            vars,
            last_status: 0,
            exit: None,
            config,
            journal,
            denied,
            recovered,
            abort_input: false,
            timed_out: false,
            deadline_ms,
            line_stdin: None,
            truncated: false,
            rolled_back: 0,
        })
    }

    /// The logical cwd.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The sandbox (read-only view and the owner's facts).
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// The shell variables.
    pub fn vars(&self) -> &Vars {
        &self.vars
    }

    /// `$?`.
    pub fn last_status(&self) -> i32 {
        self.last_status
    }

    /// Whether `exit` has run, and with what status.
    pub fn exit_status(&self) -> Option<i32> {
        self.exit
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// What the start rolled back: lines that sessions which crashed had left half done.
    pub fn recovered(&self) -> &[Reverted] {
        &self.recovered
    }

    /// Reverts the last `n` lines that changed files (the owner's or the agent's `undo`).
    pub fn undo(&mut self, n: usize) -> Vec<Reverted> {
        self.journal.undo(&self.sandbox, n)
    }

    /// Runs one complete input (a line, or several lines holding one command, such as a
    /// here-document) and returns its output and report.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let mut session = trumansh::Session::new(trumansh::Config::new(dir.path()))?;
    /// let out = session.run("echo hi > a.txt; cat a.txt nope");
    /// assert_eq!(out.stdout, b"hi\n");
    /// assert_eq!(out.stderr, b"cat: nope: No such file or directory\n");
    /// assert_eq!(out.status, 1);
    /// assert_eq!(out.effects.len(), 1); // the write of a.txt
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run(&mut self, input: impl AsRef<[u8]>) -> Outcome {
        self.run_with(&Request::new(input.as_ref()))
    }

    /// Runs a request (input, stdin, deadline) and returns its output and report.
    pub fn run_with(&mut self, request: &Request) -> Outcome {
        let mut sink = Captured::default();
        let report = self.execute(request, &mut sink);
        Outcome {
            stdout: sink.stdout,
            stderr: sink.stderr,
            report,
        }
    }

    /// Runs a request, streaming its output to `sink` as it is produced, and reports what it
    /// did. The line is one transaction.
    pub fn execute(&mut self, request: &Request, sink: &mut dyn Sink) -> Report {
        let started = std::time::Instant::now();
        let policy_ms = self.config.policy.limits.deadline_ms;
        self.deadline_ms = match request.timeout {
            Some(t) => {
                let ms = u64::try_from(t.as_millis()).unwrap_or(u64::MAX).max(1);
                if policy_ms == 0 {
                    ms
                } else {
                    ms.min(policy_ms)
                }
            }
            None => policy_ms,
        };
        self.line_stdin = request.stdin.map(LineInput::new);
        self.truncated = false;
        self.rolled_back = 0;
        self.timed_out = false;
        let status = self.parse_and_run(request.input, request.first_line, sink);
        self.line_stdin = None;
        let (effects, effects_omitted) = self.journal.take_applied();
        Report {
            status,
            exit: self.exit,
            cwd: self.cwd.clone(),
            truncated: self.truncated,
            timed_out: self.timed_out,
            duration: started.elapsed(),
            effects,
            effects_omitted,
            rolled_back: self.rolled_back,
        }
    }

    /// Parses and runs an input whose first line is `first_line`, streaming output to
    /// `sink`. An unfinished input (open quote, pending here-document) is reported as bash
    /// reports it at end of file. Returns `$?`.
    pub fn run_input(&mut self, input: &[u8], first_line: usize, sink: &mut dyn Sink) -> i32 {
        let request = Request {
            first_line,
            ..Request::new(input)
        };
        self.execute(&request, sink).status
    }

    fn parse_and_run(&mut self, input: &[u8], first_line: usize, sink: &mut dyn Sink) -> i32 {
        self.sandbox.audit().new_line(input);
        let max = self.config.policy.limits.line_bytes;
        if input.len() > max {
            self.limit_hit("line_bytes", max as u64);
            let msg = format!(
                "input too long: {} bytes (the limit for one command line is {})\n",
                input.len(),
                human_bytes(max as u64)
            );
            self.shell_error(sink, first_line, msg.as_bytes());
            self.set_status(2);
            return 2;
        }
        match shell::parse_at_eof(input, first_line) {
            Ok(parsed) => {
                for w in &parsed.warnings {
                    self.shell_error(sink, w.line, w.message.as_bytes());
                }
                self.run_line(&parsed.script, input, first_line, sink)
            }
            Err(ParseError::Incomplete { message }) => {
                // End of input inside a command. An open quote names what it was looking for
                // (on the command's first line); a trailing operator is bash's "unexpected end
                // of file", reported on the line after the last one.
                if message.is_empty() {
                    let lines =
                        input.split(|&b| b == b'\n').count() - usize::from(input.ends_with(b"\n"));
                    let line = first_line + lines;
                    self.shell_error(sink, line, b"syntax error: unexpected end of file\n");
                } else {
                    self.shell_error(sink, first_line, message.as_bytes());
                }
                self.set_status(2);
                2
            }
            Err(ParseError::Syntax { message, line }) => {
                self.shell_error(sink, line, message.as_bytes());
                if matches!(self.config.error_mode, ErrorMode::Script { .. })
                    && message.starts_with("syntax error near")
                {
                    // Non-interactive bash echoes the line holding an unexpected token.
                    let text = nth_line(input, line.saturating_sub(first_line));
                    let mut echo = b"`".to_vec();
                    echo.extend_from_slice(text);
                    echo.extend_from_slice(b"'");
                    self.shell_error(sink, line, &echo);
                }
                self.set_status(2);
                2
            }
            Err(ParseError::Unsupported { message, line }) => {
                self.shell_error(sink, line, message.as_bytes());
                self.set_status(2);
                2
            }
        }
    }

    /// Runs a parsed script as one transaction.
    pub fn run_script(&mut self, script: &Script, sink: &mut dyn Sink) -> i32 {
        self.deadline_ms = self.config.policy.limits.deadline_ms;
        self.run_line(script, b"", 1, sink)
    }

    /// One transaction: the line's deadline and output caps start, its commands run, then
    /// it is committed — or rolled back (`--atomic`) when it failed.
    fn run_line(
        &mut self,
        script: &Script,
        text: &[u8],
        first_line: usize,
        sink: &mut dyn Sink,
    ) -> i32 {
        self.journal.begin_line(text);
        // Another process may have changed the tree since the last line: resolve afresh.
        self.sandbox.tree_changed();
        self.sandbox
            .guard()
            .start_line(std::time::Duration::from_millis(self.deadline_ms));
        self.abort_input = false;
        self.timed_out = false;
        for item in &script.items {
            if self.exit.is_some() || self.abort_input {
                break;
            }
            self.run_and_or(item, sink);
        }
        self.sandbox.guard().clear_deadline();
        let last_line = first_line + text.trim_ascii_end().split(|&b| b == b'\n').count() - 1;
        for stream in [Stream::Stdout, Stream::Stderr] {
            if let Some(cap) = self.sandbox.guard().truncated(stream) {
                let name = if stream == Stream::Stdout {
                    "stdout"
                } else {
                    "stderr"
                };
                self.truncated = true;
                self.limit_hit(&format!("{name}_bytes"), cap);
                let msg = format!(
                    "output truncated: {name} passed {} for one command line; the rest was dropped\n",
                    human_bytes(cap)
                );
                self.shell_error(sink, last_line, msg.as_bytes());
            }
        }
        let rollback =
            self.config.policy.atomic && (self.last_status != 0 || self.journal.line_failed());
        if let Some(reverted) = self
            .journal
            .end_line(&self.sandbox, self.last_status, rollback)
            && reverted.changes > 0
        {
            self.rolled_back = reverted.changes;
            let s = if reverted.changes == 1 { "" } else { "s" };
            let msg = format!(
                "the line failed and was rolled back ({} change{s} undone)\n",
                reverted.changes
            );
            self.shell_error(sink, last_line, msg.as_bytes());
        }
        self.last_status
    }

    /// Audits a limit that was hit.
    fn limit_hit(&self, limit: &str, value: u64) {
        self.sandbox.audit().event(
            "limit",
            fields([("limit", limit.into()), ("value", value.into())]),
        );
    }

    fn set_status(&mut self, status: i32) {
        self.last_status = status;
        self.vars.set("?", status.to_string(), false);
    }

    /// Writes a diagnostic with the shell's prefix for the current mode.
    fn shell_error(&self, sink: &mut dyn Sink, line: usize, msg: &[u8]) {
        sink.write(Stream::Stderr, &self.prefixed(line, msg));
    }

    fn prefixed(&self, line: usize, msg: &[u8]) -> Vec<u8> {
        let mut out = self.prefix(line);
        out.extend_from_slice(msg);
        if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        out
    }

    /// The shell's prefix for a diagnostic on `line`, as bash writes it in this mode.
    fn prefix(&self, line: usize) -> Vec<u8> {
        match &self.config.error_mode {
            ErrorMode::Interactive => b"bash: ".to_vec(),
            ErrorMode::Script { name } => format!("{name}: line {line}: ").into_bytes(),
        }
    }

    fn run_and_or(&mut self, list: &AndOr, sink: &mut dyn Sink) {
        let status = self.run_pipeline(&list.first, list.line, sink);
        self.set_status(status);
        for (op, pipeline) in &list.rest {
            if self.exit.is_some() || self.abort_input {
                return;
            }
            let run = match op {
                AndOrOp::And => self.last_status == 0,
                AndOrOp::Or => self.last_status != 0,
            };
            if run {
                let status = self.run_pipeline(pipeline, list.line, sink);
                self.set_status(status);
            }
        }
    }

    fn run_pipeline(&mut self, pipeline: &Pipeline, line: usize, sink: &mut dyn Sink) -> i32 {
        let n = pipeline.commands.len();
        let max = self.config.policy.limits.pipeline_len;
        if n > max {
            self.limit_hit("pipeline_len", max as u64);
            let msg = format!("pipeline too long: {n} commands (the limit is {max})\n");
            self.shell_error(sink, line, msg.as_bytes());
            self.abort_input = true;
            return 2;
        }
        let status = if n == 1 {
            match pipeline.commands.first() {
                Some(cmd) => self.run_single(cmd, line, sink),
                None => 0,
            }
        } else {
            self.run_stages(pipeline, line, sink)
        };
        if self.sandbox.guard().expired() {
            // The line's deadline: like `timeout`, status 124; the rest of the line is skipped.
            if !self.timed_out {
                self.timed_out = true;
                let ms = self.deadline_ms;
                self.limit_hit("deadline_ms", ms);
                let msg = format!(
                    "time limit of {} for one command line exceeded; the command was stopped\n",
                    human_ms(ms)
                );
                self.shell_error(sink, line, msg.as_bytes());
            }
            self.abort_input = true;
            return 124;
        }
        if pipeline.negated {
            i32::from(status == 0)
        } else {
            status
        }
    }

    /// One command on the session's thread: it may change the session (`cd`, `export`).
    fn run_single(&mut self, cmd: &SimpleCommand, line: usize, sink: &mut dyn Sink) -> i32 {
        let fds = Fds {
            stdin: Input::Inherit,
            out: Out::Stream(Stream::Stdout),
            err: Out::Stream(Stream::Stderr),
        };
        let prefix = self.prefix(line);
        match self.prepare(cmd, fds, false, line, sink) {
            Prepared::Done(status) => status,
            Prepared::NotFound {
                message,
                status,
                err,
            } => {
                let streams = DirectSink(RefCell::new(sink));
                let emitter = Emitter::new(
                    &self.sandbox,
                    &self.journal,
                    prefix,
                    Out::Null,
                    err,
                    &streams,
                );
                emitter.write(&emitter.err.clone(), &message);
                status
            }
            Prepared::Run {
                command,
                args,
                vars,
                fds,
            } => {
                let (status, deferred, out, err) = {
                    let streams = DirectSink(RefCell::new(&mut *sink));
                    let emitter = Emitter::new(
                        &self.sandbox,
                        &self.journal,
                        prefix.clone(),
                        fds.out,
                        fds.err,
                        &streams,
                    );
                    let stdin = stdin_of(fds.stdin, None, self.line_stdin.as_ref());
                    let env = self.env();
                    let vars = vars.as_ref().unwrap_or(&self.vars);
                    let status = run_command(&env, command, &args, vars, &stdin, &emitter);
                    let deferred = emitter.directives.take();
                    (status, deferred, emitter.out.clone(), emitter.err.clone())
                };
                // Effects on the session itself, now that the command is done with it.
                let mut messages = Vec::new();
                let mut status = status;
                for directive in deferred {
                    if let Some(said) = self.apply_directive(&directive) {
                        status = said.status;
                        messages.extend(said.out.into_iter().map(|m| (false, m)));
                        messages.extend(said.err.into_iter().map(|m| (true, m)));
                    }
                }
                if !messages.is_empty() {
                    let streams = DirectSink(RefCell::new(sink));
                    let emitter =
                        Emitter::new(&self.sandbox, &self.journal, prefix, out, err, &streams);
                    for (is_err, m) in messages {
                        if is_err {
                            emitter.shell_err(&m);
                        } else {
                            emitter.write(&emitter.out.clone(), &m);
                        }
                    }
                }
                status
            }
        }
    }

    /// A pipeline of several commands: each stage runs in its own thread (a subshell in
    /// bash: `cd`, variables and `exit` there do not reach the session), joined to the next
    /// by a bounded pipe; the session's thread writes what reaches the terminal streams.
    fn run_stages(&mut self, pipeline: &Pipeline, line: usize, sink: &mut dyn Sink) -> i32 {
        let n = pipeline.commands.len();
        let mut prepared = Vec::with_capacity(n);
        for (i, cmd) in pipeline.commands.iter().enumerate() {
            let fds = Fds {
                stdin: Input::Inherit,
                out: if i + 1 < n {
                    Out::NextStage
                } else {
                    Out::Stream(Stream::Stdout)
                },
                err: Out::Stream(Stream::Stderr),
            };
            prepared.push(self.prepare(cmd, fds, true, line, sink));
            if self.exit.is_some() || self.abort_input {
                break;
            }
        }
        let prefix = self.prefix(line);
        let env = self.env();
        let (main_tx, main_rx) = mpsc::channel::<(Stream, Vec<u8>)>();
        let mut pipes_in: Vec<Option<mpsc::Receiver<Vec<u8>>>> = vec![None];
        let mut pipes_out: Vec<Option<mpsc::SyncSender<Vec<u8>>>> = Vec::new();
        for _ in 1..prepared.len() {
            let (tx, rx) = mpsc::sync_channel(PIPE_CHUNKS);
            pipes_out.push(Some(tx));
            pipes_in.push(Some(rx));
        }
        pipes_out.push(None);
        let mut statuses = Vec::new();
        std::thread::scope(|scope| {
            let mut handles = Vec::new();
            for ((stage, rx), tx) in prepared.into_iter().zip(pipes_in).zip(pipes_out) {
                let main_tx = main_tx.clone();
                let prefix = prefix.clone();
                let env = &env;
                handles.push(scope.spawn(move || run_stage(env, stage, rx, tx, main_tx, prefix)));
            }
            drop(main_tx);
            for (stream, bytes) in main_rx {
                sink.write(stream, &bytes);
            }
            for h in handles {
                statuses.push(h.join().unwrap_or(2));
            }
        });
        statuses.last().copied().unwrap_or(0)
    }

    /// What commands may read, for the executor.
    fn env(&self) -> Env<'_> {
        Env {
            sandbox: &self.sandbox,
            cwd: &self.cwd,
            vars: &self.vars,
            identity: &self.config.identity,
            journal: &self.journal,
            stdout_is_tty: self.config.stdout_is_tty,
            walk_depth: self.config.policy.limits.walk_depth,
            denied: &self.denied,
            stdin: self.line_stdin.as_ref(),
        }
    }

    fn expand_ctx(&self) -> ExpandCtx<'_> {
        ExpandCtx {
            vars: &self.vars,
            last_status: self.last_status,
            cwd: &self.cwd,
            fs: &self.sandbox,
            max_brace: self.config.policy.limits.brace_fields,
            max_glob: self.config.policy.limits.glob_matches,
        }
    }

    fn apply_assigned(&mut self, assigned: Vec<(String, String)>) {
        for (name, value) in assigned {
            self.vars.set(&name, value, false);
        }
    }

    fn expansion_failed(&mut self, e: &ExpandError, line: usize, sink: &mut dyn Sink) -> i32 {
        self.shell_error(sink, line, e.message.as_bytes());
        // Where a non-interactive bash would exit (`${X:?}`, a bad substitution), trumansh
        // stops the rest of this input but keeps the session.
        if e.fatal {
            self.abort_input = true;
        }
        e.status
    }

    /// Expands a command's words and assignments and opens its redirections, in bash's
    /// order; what is left is to run it.
    fn prepare(
        &mut self,
        cmd: &SimpleCommand,
        mut fds: Fds,
        subshell: bool,
        line: usize,
        sink: &mut dyn Sink,
    ) -> Prepared {
        // 1. Words.
        let mut assigned = Vec::new();
        let words = match shell::expand_words(&cmd.words, &self.expand_ctx(), &mut assigned) {
            Ok(w) => w,
            Err(e) => {
                self.apply_assigned(assigned);
                return Prepared::Done(self.expansion_failed(&e, line, sink));
            }
        };
        self.apply_assigned(std::mem::take(&mut assigned));
        // 2. Assignments (values: no splitting, no globbing).
        let mut values = Vec::new();
        for a in &cmd.assignments {
            match shell::expand_word_nosplit(&a.value, &self.expand_ctx(), &mut assigned) {
                Ok(v) => values.push((a.name.clone(), String::from_utf8_lossy(&v).into_owned())),
                Err(e) => {
                    self.apply_assigned(assigned);
                    return Prepared::Done(self.expansion_failed(&e, line, sink));
                }
            }
        }
        self.apply_assigned(std::mem::take(&mut assigned));
        // 3. Redirections, in order, before the command runs (as bash: `> f` truncates even if
        // the command then fails or is not found).
        if let Err(status) = self.open_redirections(cmd, &mut fds, line, sink) {
            return Prepared::Done(status);
        }
        let Some(name) = words.first() else {
            // Assignments alone set shell variables.
            if !subshell {
                for (name, value) in values {
                    self.vars.set(&name, value, false);
                }
            }
            return Prepared::Done(0);
        };
        let parsed = name.to_str().and_then(|s| s.parse::<CommandName>().ok());
        if let Some(c) = parsed
            && self.denied.contains(&c)
        {
            self.sandbox
                .audit()
                .event("denied", fields([("command", c.as_str().into())]));
        }
        let Some(command) = parsed.filter(|c| !self.denied.contains(c)) else {
            let msg = self.not_found_message(name);
            let status = if msg.ends_with(b": Is a directory\n") {
                126
            } else {
                127
            };
            return Prepared::NotFound {
                message: self.prefixed(line, &msg),
                status,
                err: fds.err,
            };
        };
        // Prefix assignments are visible to this command only.
        let vars = (!values.is_empty()).then(|| {
            let mut v = self.vars.clone();
            for (name, value) in values {
                v.set(&name, value, true);
            }
            v
        });
        Prepared::Run {
            command,
            args: words.get(1..).unwrap_or_default().to_vec(),
            vars,
            fds,
        }
    }

    /// bash's answer for a name that is not a known command.
    fn not_found_message(&self, name: &OsString) -> Vec<u8> {
        let mut msg = name.as_bytes().to_vec();
        if name.as_bytes().contains(&b'/') {
            let path = self.resolve(name);
            match self.sandbox.stat(&path, true) {
                Ok(m) if m.is_dir() => msg.extend_from_slice(b": Is a directory\n"),
                // An existing file cannot be run: nothing is ever spawned.
                Ok(_) => msg.extend_from_slice(b": command not found\n"),
                Err(e) => {
                    msg.extend_from_slice(b": ");
                    msg.extend_from_slice(e.strerror().as_bytes());
                    msg.push(b'\n');
                }
            }
        } else {
            msg.extend_from_slice(b": command not found\n");
        }
        msg
    }

    fn resolve(&self, operand: &OsString) -> PathBuf {
        resolve_against(&self.cwd, operand)
    }

    /// Opens a command's redirections in order. On failure prints bash's message and returns
    /// the status (1), and the command does not run.
    fn open_redirections(
        &mut self,
        cmd: &SimpleCommand,
        fds: &mut Fds,
        line: usize,
        sink: &mut dyn Sink,
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
                    let target = self.redirect_target(w, line, sink)?;
                    let target = self.open_output(&target, append, line, sink)?;
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
                        self.shell_error(sink, line, msg.as_bytes());
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
                        self.shell_error(sink, line, msg.as_bytes());
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
                    let target = self.redirect_target(w, line, sink)?;
                    // `< /dev/stdin` keeps the stdin the command has.
                    if target.as_bytes() != b"/dev/stdin" {
                        let path = self.resolve(&target);
                        let input = if target.as_bytes() == b"/dev/null" {
                            Ok(Input::Bytes(Vec::new()))
                        } else {
                            self.sandbox.open_file(&path).map(Input::File)
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
                                self.shell_error(sink, line, &msg);
                                return Err(1);
                            }
                        }
                    }
                }
                RedirKind::HereDoc { body, expand } => {
                    let mut assigned = Vec::new();
                    let data = if *expand {
                        match shell::expand_word_nosplit(body, &self.expand_ctx(), &mut assigned) {
                            Ok(d) => d,
                            Err(e) => {
                                self.apply_assigned(assigned);
                                return Err(self.expansion_failed(&e, line, sink));
                            }
                        }
                    } else {
                        literal_text(body)
                    };
                    self.apply_assigned(assigned);
                    if fd.unwrap_or(0) == 0 {
                        fds.stdin = Input::Bytes(data);
                    }
                }
                RedirKind::HereString(w) => {
                    let mut assigned = Vec::new();
                    let mut data =
                        match shell::expand_word_nosplit(w, &self.expand_ctx(), &mut assigned) {
                            Ok(d) => d,
                            Err(e) => {
                                self.apply_assigned(assigned);
                                return Err(self.expansion_failed(&e, line, sink));
                            }
                        };
                    self.apply_assigned(assigned);
                    data.push(b'\n');
                    if fd.unwrap_or(0) == 0 {
                        fds.stdin = Input::Bytes(data);
                    }
                }
            }
        }
        Ok(())
    }

    /// Expands a redirection's word to exactly one path.
    fn redirect_target(
        &mut self,
        word: &shell::ast::Word,
        line: usize,
        sink: &mut dyn Sink,
    ) -> Result<OsString, i32> {
        let mut assigned = Vec::new();
        let fields = shell::expand_word(word, &self.expand_ctx(), &mut assigned);
        self.apply_assigned(assigned);
        match fields {
            Ok(mut f) if f.len() == 1 => Ok(f.remove(0)),
            Ok(_) => {
                let mut msg = source_text(word);
                msg.extend_from_slice(b": ambiguous redirect");
                self.shell_error(sink, line, &msg);
                Err(1)
            }
            Err(e) => Err(self.expansion_failed(&e, line, sink)),
        }
    }

    /// Opens an output redirection: the device paths, or a file created/truncated now.
    fn open_output(
        &mut self,
        target: &OsString,
        append: bool,
        line: usize,
        sink: &mut dyn Sink,
    ) -> Result<Out, i32> {
        match target.as_bytes() {
            b"/dev/null" => return Ok(Out::Null),
            b"/dev/stdout" => return Ok(Out::Stream(Stream::Stdout)),
            b"/dev/stderr" => return Ok(Out::Stream(Stream::Stderr)),
            _ => {}
        }
        let path = self.resolve(target);
        // Opening is a change of its own (`> f` truncates even if the command then fails),
        // journaled like any other; the command's output is then appended.
        let open = Op::WriteFile {
            path: path.clone(),
            data: Vec::new(),
            append,
        };
        match apply_fs_effect(&self.sandbox, &self.journal, &open) {
            Ok(()) => Ok(Out::File(path)),
            Err(e) => {
                let mut msg = target.as_bytes().to_vec();
                msg.extend_from_slice(b": ");
                msg.extend_from_slice(e.strerror().as_bytes());
                self.shell_error(sink, line, &msg);
                Err(1)
            }
        }
    }

    /// Applies a directive to the shell itself (`cd`, variables, `exit`, `undo`).
    fn apply_directive(&mut self, directive: &Directive) -> Option<Said> {
        match directive {
            Directive::SetCwd { path } => {
                let old = std::mem::replace(&mut self.cwd, normalize_lexically(path));
                self.vars
                    .set("OLDPWD", old.to_string_lossy().into_owned(), false);
                self.vars
                    .set("PWD", self.cwd.to_string_lossy().into_owned(), false);
            }
            Directive::SetVar {
                name,
                value,
                export,
            } => match value {
                Some(v) => self.vars.set(name, v.clone(), *export),
                None => self.vars.export(name),
            },
            Directive::UnsetVar { name } => self.vars.unset(name),
            Directive::Exit { status } => self.exit = Some(*status),
            Directive::Undo { count } => return Some(self.run_undo(*count)),
        }
        None
    }

    /// The `undo` builtin: reverts, and says what it reverted.
    fn run_undo(&mut self, count: usize) -> Said {
        let reverted = self.undo(count);
        for r in &reverted {
            self.journal.applied(AppliedEffect::Undo {
                line: r.line.clone(),
                changes: r.changes,
            });
        }
        let mut said = Said::default();
        if reverted.is_empty() {
            said.err.push(b"undo: nothing to undo\n".to_vec());
            said.status = 1;
            return said;
        }
        for r in &reverted {
            let s = if r.changes == 1 { "" } else { "s" };
            let mut line = b"undone: ".to_vec();
            line.extend_from_slice(
                r.line
                    .trim_end_matches('\n')
                    .replace('\n', "\\n")
                    .as_bytes(),
            );
            line.extend_from_slice(format!(" ({} change{s})\n", r.changes).as_bytes());
            said.out.push(line);
            for e in &r.errors {
                said.err
                    .push(format!("undo: could not revert {e}\n").into_bytes());
                said.status = 1;
            }
        }
        said
    }
}

/// What a directive has to say (`undo`'s report) and the status it gives.
#[derive(Default)]
struct Said {
    out: Vec<Vec<u8>>,
    err: Vec<Vec<u8>>,
    status: i32,
}

/// Runs one stage of a pipeline on its own thread.
fn run_stage(
    env: &Env,
    stage: Prepared,
    rx: Option<mpsc::Receiver<Vec<u8>>>,
    tx: Option<mpsc::SyncSender<Vec<u8>>>,
    main_tx: mpsc::Sender<(Stream, Vec<u8>)>,
    prefix: Vec<u8>,
) -> i32 {
    let streams = ChannelSink(main_tx);
    match stage {
        Prepared::Done(status) => status,
        Prepared::NotFound {
            message,
            status,
            err,
        } => {
            let mut emitter =
                Emitter::new(env.sandbox, env.journal, prefix, Out::Null, err, &streams);
            emitter.next = tx;
            emitter.write(&emitter.err.clone(), &message);
            status
        }
        Prepared::Run {
            command,
            args,
            vars,
            fds,
        } => {
            let mut emitter =
                Emitter::new(env.sandbox, env.journal, prefix, fds.out, fds.err, &streams);
            emitter.next = tx;
            let stdin = stdin_of(fds.stdin, rx, env.stdin);
            let vars = vars.as_ref().unwrap_or(env.vars);
            // `cd`, variables and `exit` in a subshell stage do not reach the session.
            run_command(env, command, &args, vars, &stdin, &emitter)
        }
    }
}

/// A command's stdin: its redirection, else the pipe from the previous stage, else the
/// request's stdin, else empty.
fn stdin_of(
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

/// The `n`th line (0-based) of an input, without its newline.
fn nth_line(input: &[u8], n: usize) -> &[u8] {
    input.split(|&b| b == b'\n').nth(n).unwrap_or(b"")
}
