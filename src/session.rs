//! One shell session: the public API, and one transaction per input line.
//!
//! A [`Session`] owns the shared runtime (sandbox, journal, limits, audit, settings), the
//! shell's state (cwd, variables, `$?`) and the state of the line being run. It parses an
//! input, starts the line's deadline and output caps, hands the AST to the interpreter
//! (`crate::interp`), then reports the caps that were passed and commits the line — or rolls
//! it back (`--atomic`) when it failed. Handlers never see the session's own input: a command
//! with no pipe or redirection reads an empty stdin (DESIGN.md decision 10).

use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

use trumansh_commands::CommandName;

use crate::api::{Outcome, Report, Request};
use crate::audit::{Audit, Budget, fields, text};
use crate::exec::LineInput;
pub use crate::interp::{Config, ErrorMode, PATH, Reads};
use crate::interp::{Interp, LineState, Runtime, ShellState};
use crate::io::human_bytes;
pub use crate::io::{Captured, Sink, Stream};
use crate::limits::Guard;
use crate::sandbox::{Sandbox, SetupError, unique_name};
use crate::shell::ParseError;
use crate::shell::ast::Script;
use crate::txn::journal::{Journal, Reverted};

/// A shell session on one sandbox: the public API, and one transaction per input line.
///
/// It owns the three lifetimes of state: the shared [`Runtime`] (sandbox, journal, limits,
/// audit, settings — borrowed by every pipeline stage), the cloneable [`ShellState`] (cwd,
/// variables, `$?`, `exit`) and the [`LineState`] of the line being run.
pub struct Session {
    rt: Runtime,
    state: ShellState,
    line: LineState,
    /// What the start rolled back for sessions that crashed mid-line.
    recovered: Vec<Reverted>,
    /// The last input stopped at a syntax error (bash stops reading a script there).
    syntax_error: bool,
}

/// What a line runs: text read one complete command at a time, or a script parsed before.
#[derive(Clone, Copy)]
enum Source<'s> {
    Text(&'s [u8]),
    Script(&'s Script),
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
                config.sandbox.rules = Some(Arc::new(rules));
            }
        }
        // The runtime owns the limits and the audit log; the sandbox is given a share of
        // each, to check the limits and to record its refusals.
        let mut guard = Guard::new(config.sandbox.write_quota_bytes, config.sandbox.file_quota);
        guard.set_output_caps(limits.stdout_bytes, limits.stderr_bytes);
        guard.set_heap_cap(limits.heap_bytes);
        let guard = Arc::new(guard);
        let mut sandbox = Sandbox::open_with(&config.sandbox, Arc::clone(&guard))?;
        let budget = Budget {
            bytes: limits.audit_bytes,
            segments: limits.audit_segments,
        };
        let audit = Arc::new(
            Audit::open(sandbox.state_dir(), &unique_name("s"))
                .with_budget(budget.under_quota(limits.write_quota_bytes))
                .counted_by(Arc::clone(&guard)),
        );
        sandbox.record_in(Arc::clone(&audit));
        let mut denied: Vec<CommandName> = config
            .policy
            .deny_commands
            .iter()
            .filter_map(|n| n.parse().ok())
            .collect();
        if !config.policy.undo {
            denied.push(CommandName::Undo);
        }
        audit.event(
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
            config.policy.limits.undo_bytes,
            config.policy.journal,
        );
        journal.set_max_changes(config.policy.limits.changes);
        let mut state = ShellState::new(sandbox.mount_point(), &config.identity);
        state.max_var_bytes = config.policy.limits.var_bytes;
        if let ErrorMode::Script { name } = &config.error_mode {
            // `$0`: the script's name (`bash` for stdin and `-c`).
            state.arg0.clone_from(name);
        }
        if !config.args.is_empty() {
            state.positional = Arc::new(config.args.clone());
        }
        match config.reads {
            Reads::Stdin => {}
            Reads::Command => state.reads = "c",
            Reads::File => {
                state.reads = "";
                // `BASH_SOURCE`: the script, at its own level and in its functions.
                state.source_files.push(Arc::from(state.arg0.as_str()));
            }
        }
        state.max_array_elements = config.policy.limits.array_elements;
        state.max_array_bytes = config.policy.limits.array_bytes;
        let line = LineState {
            deadline_ms: config.policy.limits.deadline_ms,
            ..LineState::default()
        };
        Ok(Session {
            rt: Runtime {
                sandbox,
                guard,
                audit,
                journal,
                config,
                denied,
            },
            state,
            line,
            recovered,
            syntax_error: false,
        })
    }

    /// Whether the last input stopped at a syntax error (or a construct this shell does not
    /// support): a script stops there, as bash's does.
    pub fn syntax_error(&self) -> bool {
        self.syntax_error
    }

    /// The options the shell's syntax depends on now, for a front end to know where an
    /// input ends: `extglob`, and the aliases when they are expanded.
    pub fn parse_settings(
        &self,
    ) -> (
        bool,
        Option<Arc<std::collections::BTreeMap<String, String>>>,
    ) {
        (
            self.state.opts.extglob,
            self.state
                .opts
                .expand_aliases
                .then(|| Arc::clone(&self.state.aliases)),
        )
    }

    /// The logical cwd.
    pub fn cwd(&self) -> &Path {
        &self.state.cwd
    }

    /// The sandbox (read-only view and the owner's facts).
    pub fn sandbox(&self) -> &Sandbox {
        &self.rt.sandbox
    }

    /// The shell variables.
    /// The command names bash would complete `prefix` to, in `compgen -c`'s order without
    /// repeats: aliases, reserved words, functions, builtins, programs.
    pub fn command_completions(&self, prefix: &str) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        crate::interp::command_names(&self.state, &self.rt.denied)
            .into_iter()
            .filter(|n| n.starts_with(prefix) && seen.insert(n.clone()))
            .collect()
    }

    pub fn vars(&self) -> &trumansh_commands::Vars {
        &self.state.vars
    }

    /// `$?`.
    pub fn last_status(&self) -> i32 {
        self.state.last_status
    }

    /// A flag that stops the running line when set (from any thread): the REPL sets it on
    /// Ctrl-C, the MCP server on a client's cancellation. The line ends as at its deadline,
    /// with `the command was cancelled` and status 130; the session goes on.
    pub fn cancel_flag(&self) -> Arc<std::sync::atomic::AtomicBool> {
        self.rt.guard().cancel_flag()
    }

    /// Has the audit log written in batches rather than once a line (see
    /// [`crate::audit::Audit::batch`]); the front end must call `sync` on what this gives
    /// before it waits for input, and `batch(false)` when it is done.
    pub(crate) fn batch_log(&self) -> Arc<crate::audit::Audit> {
        self.rt.audit.batch(true);
        Arc::clone(&self.rt.audit)
    }

    /// Whether `exit` has run, and with what status.
    pub fn exit_status(&self) -> Option<i32> {
        self.state.exit
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.rt.config
    }

    /// What the start rolled back: lines that sessions which crashed had left half done.
    pub fn recovered(&self) -> &[Reverted] {
        &self.recovered
    }

    /// Reverts the last `n` lines that changed files (the owner's or the agent's `undo`).
    pub fn undo(&mut self, n: usize) -> Vec<Reverted> {
        self.rt.journal.undo(&self.rt.sandbox, n)
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
        let policy_ms = self.rt.config.policy.limits.deadline_ms;
        self.line.deadline_ms = match request.timeout {
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
        self.line.stdin = request.stdin.map(LineInput::new);
        self.line.truncated = false;
        self.line.rolled_back = 0;
        self.line.start();
        let status = self.parse_and_run(request.input, request.first_line, sink);
        // A line that did not parse logged records too.
        self.rt.audit().flush();
        self.line.stdin = None;
        let (effects, effects_omitted) = self.rt.journal.take_applied();
        Report {
            status,
            exit: self.state.exit,
            cwd: self.state.cwd.clone(),
            truncated: self.line.truncated,
            timed_out: self.line.timed_out() && !self.rt.guard().heap_hit(),
            duration: started.elapsed(),
            effects,
            effects_omitted,
            rolled_back: self.line.rolled_back,
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
        self.rt.audit().new_line(input);
        if input.len() > self.rt.config.policy.limits.line_bytes {
            return self.input_too_long(input.len() as u64, first_line, sink);
        }
        self.syntax_error = false;
        self.run_line(Source::Text(input), input, first_line, sink)
    }

    /// Refuses an input of `len` bytes, longer than the policy's `line_bytes` (a front end
    /// that dropped it while reading calls this instead of running it): one line, `$?` 2.
    pub fn input_too_long(&mut self, len: u64, first_line: usize, sink: &mut dyn Sink) -> i32 {
        let max = self.rt.config.policy.limits.line_bytes;
        self.rt.limit_hit("line_bytes", max as u64);
        let msg = format!(
            "input too long: {len} bytes (the limit for one command line is {})\n",
            human_bytes(max as u64)
        );
        self.shell_error(sink, first_line, msg.as_bytes());
        self.state.set_status(2);
        2
    }

    /// Reports the syntax error that stopped an input (after what came before it ran), as
    /// bash does; `$?` is 2.
    fn report_parse_error(
        &mut self,
        error: ParseError,
        input: &[u8],
        first_line: usize,
        sink: &mut dyn Sink,
    ) {
        self.syntax_error = !matches!(error, ParseError::Unsupported { .. });
        self.state.set_status(2);
        // End of input inside a command is reported on the line after the last one (a last
        // line without its newline counts).
        let after_last = || {
            first_line
                + memchr::memchr_iter(b'\n', input).count()
                + usize::from(!input.is_empty() && !input.ends_with(b"\n"))
        };
        match error {
            ParseError::Incomplete { message } | ParseError::Syntax { message, .. }
                if message.is_empty() || message == UNEXPECTED_EOF =>
            {
                self.syntax_message(sink, after_last(), format!("{UNEXPECTED_EOF}\n").as_bytes());
            }
            ParseError::Incomplete { message } => {
                // An open quote names what it was looking for, on the command's first line.
                self.syntax_message(sink, first_line, message.as_bytes());
            }
            ParseError::Syntax { message, line } => {
                self.syntax_message(sink, line, message.as_bytes());
                if matches!(self.rt.config.error_mode, ErrorMode::Script { .. })
                    && message.starts_with("syntax error near")
                {
                    // Non-interactive bash echoes the line holding an unexpected token.
                    let text = nth_line(input, line.saturating_sub(first_line));
                    let mut echo = b"`".to_vec();
                    echo.extend_from_slice(text);
                    echo.extend_from_slice(b"'");
                    self.syntax_message(sink, line, &echo);
                }
            }
            ParseError::Unsupported { message, line } => {
                self.syntax_message(sink, line, message.as_bytes());
            }
        }
    }

    /// Runs a parsed script as one transaction.
    pub fn run_script(&mut self, script: &Script, sink: &mut dyn Sink) -> i32 {
        self.line.deadline_ms = self.rt.config.policy.limits.deadline_ms;
        self.run_line(Source::Script(script), b"", 1, sink)
    }

    /// One transaction: the line's deadline and output caps start, its commands run, then
    /// it is committed — or rolled back (`--atomic`) when it failed. Text is read one
    /// complete command at a time; a syntax error stops it, and is given back to report.
    fn run_line(
        &mut self,
        source: Source<'_>,
        text: &[u8],
        first_line: usize,
        sink: &mut dyn Sink,
    ) -> i32 {
        let rt = &self.rt;
        let error: Option<ParseError>;
        rt.journal.begin_line(text);
        rt.guard()
            .start_line(std::time::Duration::from_millis(self.line.deadline_ms));
        self.line.start();
        {
            let interp = Interp {
                rt,
                line: &self.line,
                stage: false,
            };
            let state = &mut self.state;
            let ran = crate::interp::on_interp_stack(sink, |streams| match source {
                Source::Script(script) => {
                    interp.run_script(state, script, streams);
                    None
                }
                Source::Text(text) => {
                    interp
                        .read_and_run(state, text, first_line, streams, |state, script| {
                            interp.run_script(state, script, streams);
                            crate::interp::Flow::Normal
                        })
                        .1
                }
            });
            error = ran.clone().flatten();
            if ran.is_none() {
                let msg = rt.prefixed(first_line, b"the line could not be run to its end\n");
                sink.write(Stream::Stderr, &msg);
                self.state.set_status(2);
            }
        }
        if let Some(e) = error {
            self.report_parse_error(e, text, first_line, sink);
        }
        let rt = &self.rt;
        rt.guard().clear_deadline();
        let last_line = first_line + text.trim_ascii_end().split(|&b| b == b'\n').count() - 1;
        for stream in [Stream::Stdout, Stream::Stderr] {
            if let Some(cap) = rt.guard().truncated(stream) {
                let name = if stream == Stream::Stdout {
                    "stdout"
                } else {
                    "stderr"
                };
                self.line.truncated = true;
                rt.limit_hit(&format!("{name}_bytes"), cap);
                let msg = format!(
                    "output truncated: {name} passed {} for one command line; the rest was dropped\n",
                    human_bytes(cap)
                );
                sink.write(Stream::Stderr, &rt.prefixed(last_line, msg.as_bytes()));
            }
        }
        let status = self.state.last_status;
        let rollback = rt.config.policy.atomic && (status != 0 || rt.journal.line_failed());
        if let Some(reverted) = rt.journal.end_line(&rt.sandbox, status, rollback) {
            if reverted.changes > 0 {
                self.line.rolled_back = reverted.changes;
                let s = if reverted.changes == 1 { "" } else { "s" };
                let msg = format!(
                    "the line failed and was rolled back ({} change{s} undone)\n",
                    reverted.changes
                );
                sink.write(Stream::Stderr, &rt.prefixed(last_line, msg.as_bytes()));
            }
            // What another process changed meanwhile is left as it is, and said so.
            for skipped in &reverted.skipped {
                let path = skipped.path.to_string_lossy();
                let shown = match skipped.path.strip_prefix(&self.state.cwd) {
                    Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy(),
                    _ => path,
                };
                let msg = format!("rollback: {}\n", skipped.message(&shown));
                sink.write(Stream::Stderr, &rt.prefixed(last_line, msg.as_bytes()));
            }
        }
        rt.audit().flush();
        status
    }

    /// The end of the session's input (end of a script, of stdin, of `-c`, the REPL's
    /// Ctrl-D): runs the `EXIT` trap, if one is set, as a line of its own.
    pub fn finish(&mut self, sink: &mut dyn Sink) {
        if self.state.exit.is_some() {
            return;
        }
        let Some(action) = self.state.traps.get("EXIT").cloned() else {
            return;
        };
        Arc::make_mut(&mut self.state.traps).remove("EXIT");
        self.line.deadline_ms = self.rt.config.policy.limits.deadline_ms;
        // The shell ends with the status it had before the trap, unless the trap exits.
        let status = self.state.last_status;
        self.run_line(Source::Text(action.as_bytes()), action.as_bytes(), 1, sink);
        if self.state.exit.is_none() {
            self.state.set_status(status);
        }
    }

    /// Writes a diagnostic with the shell's prefix for the current mode.
    fn shell_error(&self, sink: &mut dyn Sink, line: usize, msg: &[u8]) {
        sink.write(Stream::Stderr, &self.rt.prefixed(line, msg));
    }

    /// Writes a syntax error: bash names a `-c` string's (`bash: -c: line 1: `).
    fn syntax_message(&self, sink: &mut dyn Sink, line: usize, msg: &[u8]) {
        if self.rt.config.reads != Reads::Command {
            return self.shell_error(sink, line, msg);
        }
        let mut out = format!("{}: -c: line {line}: ", self.state.arg0).into_bytes();
        out.extend_from_slice(msg);
        if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        sink.write(Stream::Stderr, &out);
    }
}

/// bash's message for an input that ends inside a command.
const UNEXPECTED_EOF: &str = "syntax error: unexpected end of file";

/// The `n`th line (0-based) of an input, without its newline.
fn nth_line(input: &[u8], n: usize) -> &[u8] {
    input.split(|&b| b == b'\n').nth(n).unwrap_or(b"")
}
