//! The interpreter: walks the AST of one input — lists → and-or chains → pipelines →
//! commands (simple, compound, function definitions) — on a [`ShellState`], against the
//! shared [`Runtime`].
//!
//! Control flow (`break`, `continue`, `return`) travels up as a [`Flow`]; `exit` and the
//! end of the input (a limit, the deadline, a fatal expansion error) are flags every loop
//! checks. A subshell, a `$(...)` and each pipeline stage run on a copy of the state
//! ([`ShellState::subshell`]), so nothing they change reaches the shell that made them.
//!
//! Layer: above `exec` (which runs one handler) and the syntax (`shell`), below `session`
//! (which owns the state, the runtime and the line's transaction).

mod builtins;
mod complete;
mod compound;
mod directives;
mod host;
mod options;
mod pipeline;
mod redirect;
mod runner;
mod runtime;
mod simple;
mod state;

use std::sync::atomic::Ordering;

pub(crate) use complete::command_names;
pub use runtime::{Config, ErrorMode, Reads};
pub(crate) use runtime::{LineState, Runtime};
pub use state::PATH;
pub(crate) use state::ShellState;

use crate::exec::{Env, StreamSink};
use crate::expand::{Ends, ExpandError};
use crate::io::{Stream, human_ms};
use crate::shell::ast::{AndOr, AndOrOp, Command, Pipeline, Script};
use redirect::Fds;
pub(crate) use redirect::Io;

/// The stack the interpreter runs a line on: deep enough for the nesting the limits allow
/// (each function call or `$(...)` level takes some KiB, several times more in a debug
/// build). Only the pages a line touches are ever committed.
pub(crate) const INTERP_STACK: usize = 512 << 20;

thread_local! {
    /// The interpreter thread's stack: where it starts (an address near its base) and how
    /// much of it the interpreter may use.
    static STACK: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
}

/// Records the current thread's stack for [`stack_left`]: called first thing on a thread
/// the interpreter runs on, with the size it was given.
pub(crate) fn mark_stack(size: usize) {
    let here = 0u8;
    let base = std::ptr::addr_of!(here) as usize;
    // A margin for what runs below the check (a handler, the expansion of one word).
    STACK.with(|s| s.set((base, size.saturating_sub(4 << 20))));
}

/// Whether the interpreter may go one level deeper on this thread's stack.
pub(crate) fn stack_left() -> bool {
    let here = 0u8;
    let now = std::ptr::addr_of!(here) as usize;
    STACK.with(|s| {
        let (base, budget) = s.get();
        // An address that is not below the base by less than the whole stack is not on it
        // (a sanitizer keeps locals elsewhere): nothing to go by.
        match base.checked_sub(now) {
            _ if base == 0 => true,
            Some(used) => used < budget || used > budget.saturating_add(8 << 20),
            None => true,
        }
    })
}

thread_local! {
    /// Whether this thread was made by [`on_own_thread`] with the interpreter's stack: lines
    /// then run on it directly, with no thread of their own.
    static INTERP_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The sizes tried for a thread with the interpreter's stack, largest first: where a thread
/// that large cannot be made (an address-space limit, a sanitizer), smaller ones still run.
const STACK_SIZES: [usize; 3] = [INTERP_STACK, 64 << 20, 16 << 20];

/// Runs `f` — a whole session: a front end's loop — on a thread of its own with the
/// interpreter's stack, so that each line it runs is run there directly rather than on a
/// thread made for it (which would map and unmap the stack, and hand its output across, once
/// a line). Runs `f` here if no such thread can be made; then each line gets a thread.
/// `None` only if `f` could not be had back from a thread that failed to start.
pub(crate) fn on_own_thread<T: Send>(name: &str, f: impl FnOnce() -> T + Send) -> Option<T> {
    let slot = std::sync::Mutex::new(Some(f));
    for size in STACK_SIZES {
        let ran = std::thread::scope(|scope| {
            let spawned = std::thread::Builder::new()
                .name(name.into())
                .stack_size(size)
                .spawn_scoped(scope, || run_marked(size, &slot));
            spawned.map(std::thread::ScopedJoinHandle::join)
        });
        match ran {
            Ok(Ok(Some(result))) => return Some(result),
            // It panicked: the panic goes on here, as it would have without the thread.
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Ok(Ok(None)) | Err(_) => {}
        }
    }
    let f = slot.into_inner().ok()??;
    Some(f())
}

/// The start of a thread made with the interpreter's stack of `size`: marks it as such, then
/// runs what `slot` holds (`None`: another attempt took it).
fn run_marked<T>(size: usize, slot: &std::sync::Mutex<Option<impl FnOnce() -> T>>) -> Option<T> {
    mark_stack(size);
    INTERP_THREAD.with(|t| t.set(true));
    let f = slot.lock().ok()?.take()?;
    Some(f())
}

/// [`on_own_thread`] for a thread that outlives its caller (the MCP server's session thread).
pub(crate) fn spawn_own_thread<T: Send + 'static>(
    name: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<Option<T>>> {
    let slot = std::sync::Arc::new(std::sync::Mutex::new(Some(f)));
    let mut error = None;
    for size in STACK_SIZES {
        let taken = std::sync::Arc::clone(&slot);
        let spawned = std::thread::Builder::new()
            .name(name.into())
            .stack_size(size)
            .spawn(move || run_marked(size, &taken));
        match spawned {
            Ok(handle) => return Ok(handle),
            Err(e) => error = Some(e),
        }
    }
    Err(error.unwrap_or_else(|| std::io::Error::other("no thread")))
}

/// What a line writes, when it runs on the session's own thread: straight to the sink.
struct Direct<'a>(std::cell::RefCell<&'a mut dyn crate::io::Sink>);

impl StreamSink for Direct<'_> {
    fn write(&self, stream: Stream, bytes: &[u8]) {
        if let Ok(mut sink) = self.0.try_borrow_mut() {
            sink.write(stream, bytes);
        }
    }
}

/// Runs `f` with the interpreter's stack, its output going to `sink` as it comes; `None` if
/// it could not run to the end (it panicked). On a thread made by [`on_own_thread`] that is
/// here; elsewhere (a library caller's thread) on a thread made for it, then smaller ones,
/// then the caller's own stack (checked against what is left of it).
pub(crate) fn on_interp_stack<T: Send, F: FnOnce(&dyn StreamSink) -> T + Send>(
    sink: &mut dyn crate::io::Sink,
    f: F,
) -> Option<T> {
    if INTERP_THREAD.with(std::cell::Cell::get) {
        let direct = Direct(std::cell::RefCell::new(sink));
        return std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&direct))).ok();
    }
    let slot = std::sync::Mutex::new(Some(f));
    for size in STACK_SIZES {
        let (tx, rx) = std::sync::mpsc::channel::<(Stream, Vec<u8>)>();
        let ran = std::thread::scope(|scope| {
            let spawned = std::thread::Builder::new()
                .name("trumansh-line".into())
                .stack_size(size)
                .spawn_scoped(scope, || {
                    mark_stack(size);
                    let f = slot.lock().ok()?.take()?;
                    let streams = crate::exec::ChannelSink(tx);
                    Some(f(&streams))
                });
            let Ok(handle) = spawned else {
                return Err(());
            };
            for (stream, bytes) in rx {
                sink.write(stream, &bytes);
            }
            Ok(handle.join().ok().flatten())
        });
        if let Ok(result) = ran {
            return result;
        }
    }
    // No thread at all: here, on the caller's stack (checked against what is left of it).
    let f = slot.into_inner().ok()??;
    let (tx, rx) = std::sync::mpsc::channel::<(Stream, Vec<u8>)>();
    let result = f(&crate::exec::ChannelSink(tx));
    for (stream, bytes) in rx.try_iter() {
        sink.write(stream, &bytes);
    }
    Some(result)
}

/// How a command ended, besides its status (which is in [`ShellState::last_status`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Normal,
    /// `break N`: N more loops to leave.
    Break(usize),
    /// `continue N`.
    Continue(usize),
    /// `return`: leave the function (or sourced file).
    Return,
}

/// How a command is run: in a condition (where `set -e` does not apply).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Cx {
    pub cond: bool,
}

/// The walker: the runtime and the line it runs, shared by reference with every stage.
#[derive(Clone, Copy)]
pub(crate) struct Interp<'a> {
    pub rt: &'a Runtime,
    pub line: &'a LineState,
    /// Running a pipeline stage (a subshell in bash): what would end a non-interactive
    /// shell (`${X:?}`, a bad substitution) ends the stage only.
    pub stage: bool,
}

impl Interp<'_> {
    /// Runs a script's lists in order until one exits or the input is aborted.
    pub(crate) fn run_script(&self, state: &mut ShellState, script: &Script, out: &dyn StreamSink) {
        let mut io = Io::terminal(self.line.stdin.as_ref());
        if let Some(kept) = state.exec_io.take() {
            io = self.reopen(state, kept, io, out);
            state.exec_io = Some(io.clone());
        }
        let flow = self.run_list(state, script, &io, Cx::default(), out);
        let _ = flow;
        if !state.proc_out.is_empty() {
            self.run_proc_outs(state, true, out);
        }
        if let Some(status) = state.exit {
            // The trap sees the status the shell exits with.
            state.set_status(status);
            self.exit_trap(state, &io, out);
        }
    }

    /// Reads shell text one complete command at a time, as bash reads a script, `eval` and
    /// `source` text and a `-c` string: each command is parsed with the options the ones
    /// before left (`shopt -s extglob`, `shopt -s expand_aliases`, `alias`), then `run`.
    /// Stops at `exit`, at a flow that leaves the text (`return`), or at a syntax error,
    /// given back after what came before it ran.
    pub(crate) fn read_and_run(
        &self,
        state: &mut ShellState,
        text: &[u8],
        first_line: usize,
        out: &dyn StreamSink,
        mut run: impl FnMut(&mut ShellState, &Script) -> Flow,
    ) -> (Flow, Option<crate::shell::ParseError>) {
        let mut reader = crate::shell::Reader::new(text, first_line);
        loop {
            if self.stopped(state) {
                return (Flow::Normal, None);
            }
            let aliases = state
                .opts
                .expand_aliases
                .then(|| std::sync::Arc::clone(&state.aliases));
            let opts = crate::shell::ParseOpts {
                extglob: state.opts.extglob,
                aliases: aliases.as_deref(),
            };
            match reader.next_command(opts) {
                None => return (Flow::Normal, None),
                Some(Ok(parsed)) => {
                    for w in &parsed.warnings {
                        self.session_error(state, out, w.line, w.message.as_bytes());
                    }
                    let flow = run(state, &parsed.script);
                    if flow != Flow::Normal {
                        return (flow, None);
                    }
                }
                Some(Err(e)) => return (Flow::Normal, Some(e)),
            }
        }
    }

    /// Whether the shell must stop running commands: `exit`, or the input was aborted.
    fn stopped(&self, state: &ShellState) -> bool {
        state.exit.is_some() || self.line.aborted()
    }

    /// Runs a list; stops at the first non-normal flow.
    pub(crate) fn run_list(
        &self,
        state: &mut ShellState,
        list: &Script,
        io: &Io,
        cx: Cx,
        out: &dyn StreamSink,
    ) -> Flow {
        // `exec >f` changes the fds of the rest of the list (of the session, at top level).
        let mut own: Option<Io> = None;
        for item in &list.items {
            if self.stopped(state) {
                break;
            }
            let flow = self.run_and_or(state, item, own.as_ref().unwrap_or(io), cx, out);
            if let Some(new) = state.pending_exec.take() {
                if state.nesting == 0 && !state.nested() && !self.stage {
                    state.exec_io = Some(new.clone());
                }
                own = Some(new);
            }
            if flow != Flow::Normal {
                return flow;
            }
        }
        Flow::Normal
    }

    fn run_and_or(
        &self,
        state: &mut ShellState,
        list: &AndOr,
        io: &Io,
        cx: Cx,
        out: &dyn StreamSink,
    ) -> Flow {
        let chained = list.rest.len();
        let sub_cx = Cx {
            cond: cx.cond || chained > 0,
        };
        let flow = self.run_pipeline(state, &list.first, list.line, io, sub_cx, out);
        if flow != Flow::Normal {
            return flow;
        }
        let mut negated = list.first.negated;
        for (k, (op, pipeline)) in list.rest.iter().enumerate() {
            if self.stopped(state) {
                return Flow::Normal;
            }
            let run = match op {
                AndOrOp::And => state.last_status == 0,
                AndOrOp::Or => state.last_status != 0,
            };
            if run {
                let c = Cx {
                    cond: cx.cond || k + 1 < chained,
                };
                let flow = self.run_pipeline(state, pipeline, list.line, io, c, out);
                if flow != Flow::Normal {
                    return flow;
                }
                negated = pipeline.negated;
                if k + 1 == chained && !cx.cond && !negated {
                    self.errexit(state, io, out);
                }
            }
        }
        if chained == 0 && !cx.cond && !negated {
            self.errexit(state, io, out);
        }
        if list.background {
            // `&`: the job ran to completion already (nothing runs concurrently); `$!` names it.
            let pid = state.new_job();
            state.job_done(pid, state.last_status);
            state.set_status(0);
        }
        Flow::Normal
    }

    /// A failed command outside a condition: the ERR trap, then `set -e` ends the shell (a
    /// nested one), or the rest of the input.
    fn errexit(&self, state: &mut ShellState, io: &Io, out: &dyn StreamSink) {
        if state.last_status != 0 && state.traps.contains_key("ERR") {
            self.run_trap(state, "ERR", io, out);
        }
        if state.opts.errexit && state.last_status != 0 && state.exit.is_none() {
            self.exit_shell(state, state.last_status);
        }
    }

    /// An error that ends a non-interactive bash (`set -e`, `${X?}`, `set -u`): a script
    /// (`-c`, a file) ends with `status`, as bash's; in an agent's session (line mode, JSON,
    /// MCP) only the rest of the input is dropped, as [`Interp::fatal`] does.
    fn exit_shell(&self, state: &mut ShellState, status: i32) {
        if !state.nested() && !self.stage && self.rt.config.reads != Reads::Stdin {
            state.exit = Some(status);
        } else {
            self.fatal(state, status);
        }
    }

    /// An error that abandons the command line in a non-interactive bash: a nested shell
    /// (or a pipeline stage) exits with `status`; at the top, the rest of the input is
    /// dropped and the session goes on.
    pub(super) fn fatal(&self, state: &mut ShellState, status: i32) {
        if state.nested() || self.stage {
            state.exit = Some(status);
        } else {
            self.line.abort();
        }
    }

    fn run_pipeline(
        &self,
        state: &mut ShellState,
        pipeline: &Pipeline,
        line: usize,
        io: &Io,
        cx: Cx,
        out: &dyn StreamSink,
    ) -> Flow {
        let Some(posix) = pipeline.time else {
            return self.run_pipeline_untimed(state, pipeline, line, io, cx, out);
        };
        // `time`: real time, and the CPU time the shell spent meanwhile.
        let started = std::time::Instant::now();
        let cpu = || {
            let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
            std::time::Duration::new(
                u64::try_from(t.tv_sec).unwrap_or(0),
                u32::try_from(t.tv_nsec).unwrap_or(0),
            )
        };
        let cpu0 = cpu();
        let flow = self.run_pipeline_untimed(state, pipeline, line, io, cx, out);
        let real = started.elapsed();
        let user = cpu().saturating_sub(cpu0);
        let format = if posix {
            Some("real %2R\nuser %2U\nsys %2S".to_string())
        } else {
            host::param(state, "TIMEFORMAT")
        };
        let format = format.unwrap_or_else(|| "\nreal\t%3lR\nuser\t%3lU\nsys\t%3lS".into());
        match time_report(&format, real, user, std::time::Duration::ZERO) {
            Ok(text) if !format.is_empty() => self.write_out(&io.err, text.as_bytes(), out),
            Ok(_) => {}
            Err(c) => {
                let msg = format!("TIMEFORMAT: `{c}': invalid format character");
                self.shell_error(state, &io.err, out, line, msg.as_bytes());
            }
        }
        flow
    }

    fn run_pipeline_untimed(
        &self,
        state: &mut ShellState,
        pipeline: &Pipeline,
        line: usize,
        io: &Io,
        cx: Cx,
        out: &dyn StreamSink,
    ) -> Flow {
        let rt = self.rt;
        let n = pipeline.commands.len();
        let max = rt.config.policy.limits.pipeline_len;
        if n > max {
            rt.limit_hit("pipeline_len", max as u64);
            let msg = format!("pipeline too long: {n} commands (the limit is {max})\n");
            self.session_error(state, out, line, msg.as_bytes());
            self.line.abort();
            state.set_status(2);
            return Flow::Normal;
        }
        let cx = Cx {
            cond: cx.cond || pipeline.negated,
        };
        let mut flow = Flow::Normal;
        let status = if n == 1 {
            match pipeline.commands.first() {
                Some(cmd) => {
                    flow = self.run_command(state, cmd, io, cx, out);
                    let s = state.last_status;
                    state.pipestatus = vec![s];
                    s
                }
                None => 0,
            }
        } else {
            let statuses = self.run_stages(state, pipeline, line, io, out);
            let status = if state.opts.pipefail {
                statuses
                    .iter()
                    .rev()
                    .find(|&&s| s != 0)
                    .copied()
                    .unwrap_or(0)
            } else {
                statuses.last().copied().unwrap_or(0)
            };
            state.pipestatus = statuses;
            status
        };
        if rt.guard().expired() {
            self.deadline(state, line, out);
            return Flow::Normal;
        }
        state.set_status(if pipeline.negated {
            i32::from(status == 0)
        } else {
            status
        });
        flow
    }

    /// The line's deadline: like `timeout`, status 124; the rest of the line is skipped. A
    /// cancellation (Ctrl-C, an MCP client's) stops it the same way, status 130.
    fn deadline(&self, state: &mut ShellState, line: usize, out: &dyn StreamSink) {
        if !self.rt.guard().line_expired() && crate::limits::child_expired() {
            // Only the deadline of a command run by `timeout`: that command ends (as if
            // killed), silently; `timeout` reports 124 and the line goes on.
            state.exit = Some(124);
            state.set_status(124);
            return;
        }
        let cancelled = self.rt.guard().cancelled();
        let heap = self.rt.guard().heap_hit();
        if !self.line.timed_out.swap(true, Ordering::Relaxed) {
            let msg = if heap {
                let cap = self.rt.guard().heap_cap();
                self.rt.limit_hit("heap_bytes", cap);
                format!(
                    "memory limit of {} for one command line exceeded; the command was stopped\n",
                    crate::io::human_bytes(cap)
                )
            } else if cancelled {
                self.rt.audit().event("cancelled", crate::audit::fields([]));
                "the command was cancelled\n".to_string()
            } else {
                let ms = self.line.deadline_ms;
                self.rt.limit_hit("deadline_ms", ms);
                format!(
                    "time limit of {} for one command line exceeded; the command was stopped\n",
                    human_ms(ms)
                )
            };
            self.session_error(state, out, line, msg.as_bytes());
        }
        self.line.abort();
        state.set_status(match (heap, cancelled) {
            (true, _) => 1,
            (_, true) => 130,
            _ => 124,
        });
    }

    /// Runs one command of a pipeline (or alone) on `state`.
    pub(crate) fn run_command(
        &self,
        state: &mut ShellState,
        cmd: &Command,
        io: &Io,
        cx: Cx,
        out: &dyn StreamSink,
    ) -> Flow {
        if !self.tick(state, cmd_line(cmd), out) {
            return Flow::Normal;
        }
        match cmd {
            Command::Simple(simple) => {
                let fds = Fds::new(io.clone());
                let prepared = self.prepare(state, simple, fds, out);
                self.run_prepared(state, prepared, cx, out)
            }
            Command::Compound(c, redirects) => {
                let line = compound_line(c).unwrap_or(state.lineno);
                let mut fds = Fds::new(io.clone());
                if let Err(status) = self.open_redirections(state, redirects, &mut fds, line, out) {
                    state.set_status(status);
                    return Flow::Normal;
                }
                state.nesting += 1;
                let flow = self.run_compound(state, c, &fds.io, cx, out);
                state.nesting -= 1;
                drop(fds);
                if !state.proc_out.is_empty() {
                    // `{ ...; } > >(list)`: the list's input is complete now.
                    self.run_proc_outs(state, false, out);
                }
                flow
            }
            Command::Function(def) => {
                std::sync::Arc::make_mut(&mut state.functions)
                    .insert(def.name.clone(), std::sync::Arc::clone(def));
                // Its `BASH_SOURCE`: the file being read; bash names a `-c` string
                // `environment` and its standard input `main`.
                let file = match state.source_files.last() {
                    Some(f) => std::sync::Arc::clone(f),
                    None if state.reads == "c" => std::sync::Arc::from("environment"),
                    None => std::sync::Arc::from("main"),
                };
                std::sync::Arc::make_mut(&mut state.function_files).insert(def.name.clone(), file);
                state.set_status(0);
                Flow::Normal
            }
        }
    }

    /// Counts a command against the line's limit and checks the deadline and the cancel
    /// flag; false: stop (the line is aborted).
    fn tick(&self, state: &mut ShellState, line: usize, out: &dyn StreamSink) -> bool {
        if self.line.aborted() || !self.in_time(state, line, out) {
            return false;
        }
        if !stack_left() {
            // Nesting the counters allow but the stack cannot hold (deep recursion through
            // nested compound commands): one line, as a limit.
            self.limit(
                state,
                out,
                line,
                "call_depth",
                self.rt.config.policy.limits.call_depth as u64,
                "nested calls and commands (the stack is full)",
            );
            return false;
        }
        if self.rt.journal.over_changes() {
            let max = self.rt.config.policy.limits.changes;
            self.limit(state, out, line, "changes", max, "changes to the tree");
            return false;
        }
        let n = self.line.commands.fetch_add(1, Ordering::Relaxed) + 1;
        let max = self.rt.config.policy.limits.commands;
        if n > max {
            self.limit(state, out, line, "commands", max, "commands run");
            return false;
        }
        true
    }

    /// Whether the line may go on: false (reported once) past its deadline or when cancelled.
    fn in_time(&self, state: &mut ShellState, line: usize, out: &dyn StreamSink) -> bool {
        if self.rt.guard().expired() {
            self.deadline(state, line, out);
            return false;
        }
        true
    }

    /// A per-line counter passed its limit: one line, status 2, the rest of the input
    /// skipped.
    pub(crate) fn limit(
        &self,
        state: &mut ShellState,
        out: &dyn StreamSink,
        line: usize,
        key: &str,
        max: u64,
        what: &str,
    ) {
        if !self.line.limited.swap(true, Ordering::Relaxed) {
            self.rt.limit_hit(key, max);
            let msg = format!(
                "limit reached: more than {max} {what} in one command line (limits.{key}); the rest was skipped\n"
            );
            self.session_error(state, out, line, msg.as_bytes());
        }
        self.line.abort();
        state.set_status(2);
    }

    /// The prefix of a diagnostic on `line`: as bash's, `bash: ` in an interactive shell;
    /// else the file being read (`BASH_SOURCE[0]`: the running function's, else the
    /// `source`d file's or the script's), or `$0`.
    fn prefix(&self, state: &ShellState, line: usize) -> Vec<u8> {
        if matches!(self.rt.config.error_mode, ErrorMode::Interactive) && !state.child {
            return self.rt.prefix(line);
        }
        let stack = host::call_stack(state);
        let name = match stack.first() {
            Some(level) if !level.file.is_empty() => level.file.as_str(),
            _ => state.script_name.as_deref().unwrap_or(&state.arg0),
        };
        runtime::line_prefix(name, line)
    }

    /// Writes the shell's own bytes (a trace, a report) to one of a command's outputs.
    pub(crate) fn write_out(
        &self,
        target: &crate::exec::Out,
        bytes: &[u8],
        streams: &dyn StreamSink,
    ) {
        let rt = self.rt;
        let emitter = crate::exec::Emitter::new(
            &rt.sandbox,
            &rt.journal,
            Vec::new(),
            crate::exec::Out::Null,
            crate::exec::Out::Null,
            streams,
        );
        emitter.write(target, bytes);
    }

    /// A diagnostic with the shell's prefix for the current mode, ending in a newline.
    fn diagnostic(&self, state: &ShellState, line: usize, msg: &[u8]) -> Vec<u8> {
        let mut text = self.prefix(state, line);
        text.extend_from_slice(msg);
        if !text.ends_with(b"\n") {
            text.push(b'\n');
        }
        text
    }

    /// Writes one of the shell's own errors to the stderr of the command at hand (`err`), as
    /// bash does: `{ : ${x?}; } 2>/dev/null` shows nothing.
    fn shell_error(
        &self,
        state: &ShellState,
        err: &crate::exec::Out,
        out: &dyn StreamSink,
        line: usize,
        msg: &[u8],
    ) {
        self.write_out(err, &self.diagnostic(state, line, msg), out);
    }

    /// Writes a diagnostic to the session's stderr, whatever the command's stderr is: the
    /// sandbox's own notices (a limit, the deadline) and the parser's warnings.
    fn session_error(&self, state: &ShellState, out: &dyn StreamSink, line: usize, msg: &[u8]) {
        out.write(Stream::Stderr, &self.diagnostic(state, line, msg));
    }

    /// What a handler may read, for the executor.
    fn env<'s>(&'s self, state: &'s ShellState) -> Env<'s> {
        let rt = self.rt;
        Env {
            sandbox: &rt.sandbox,
            fs: &rt.sandbox,
            cwd: &state.cwd,
            identity: &rt.config.identity,
            stdout_is_tty: rt.config.stdout_is_tty,
            walk_depth: rt.config.policy.limits.walk_depth,
            denied: &rt.denied,
            inputs: &[],
            shellopts: "",
            runner: None,
            program: None,
        }
    }

    /// A failed expansion: its message; where a non-interactive bash would exit (`${X:?}`,
    /// a bad substitution, `set -u`), the shell (a nested one) or the rest of this input
    /// stops, the session goes on.
    fn expansion_failed(
        &self,
        state: &mut ShellState,
        e: &ExpandError,
        (line, io): (usize, &Io),
        out: &dyn StreamSink,
    ) -> i32 {
        if !e.message.is_empty() {
            self.shell_error(state, &io.err, out, line, e.message.as_bytes());
        }
        match e.ends {
            Ends::Command => {}
            Ends::Line => self.fatal(state, e.status),
            Ends::Shell => {
                // A `-c` shell itself (not a subshell of it) exits 127, as bash's.
                let top = state.reads == "c" && state.subshell == 0 && !self.stage;
                self.exit_shell(state, if top { 127 } else { e.status });
            }
        }
        e.status
    }
}

/// The line a command starts on.
fn cmd_line(cmd: &Command) -> usize {
    match cmd {
        Command::Simple(s) => s.line,
        Command::Compound(c, _) => compound_line(c).unwrap_or(0),
        Command::Function(f) => f.line,
    }
}

/// The line of a compound command, where it is recorded.
fn compound_line(c: &crate::shell::ast::Compound) -> Option<usize> {
    use crate::shell::ast::Compound;
    match c {
        Compound::For { line, .. }
        | Compound::ArithFor { line, .. }
        | Compound::Case { line, .. }
        | Compound::Arith { line, .. }
        | Compound::Cond { line, .. } => Some(*line),
        Compound::Brace(s) | Compound::Subshell(s) => s.items.first().map(|i| i.line),
        Compound::If { branches, .. } => branches
            .first()
            .and_then(|(c, _)| c.items.first())
            .map(|i| i.line),
        Compound::While { cond, .. } => cond.items.first().map(|i| i.line),
    }
}

/// The report of `time` in a `TIMEFORMAT`: `%[p][l]R`, `U`, `S` (real, user, system
/// seconds, `p` digits after the point, at most 3, `l` as `XmY.YYYs`), `%P` (CPU
/// percentage), `%%`; a newline after. `Err`: bash's invalid format character.
fn time_report(
    format: &str,
    real: std::time::Duration,
    user: std::time::Duration,
    sys: std::time::Duration,
) -> Result<String, char> {
    use std::fmt::Write as _;
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.next_if_eq(&'%').is_some() {
            out.push('%');
            continue;
        }
        let mut precision = 3usize;
        if let Some(d) = chars.next_if(char::is_ascii_digit) {
            precision = d.to_digit(10).map_or(3, |d| d as usize).min(3);
        }
        let long = chars.next_if_eq(&'l').is_some();
        let value = match chars.next() {
            Some('R') => real,
            Some('U') => user,
            Some('S') => sys,
            Some('P') => {
                let r = real.as_secs_f64();
                let pct = if r > 0.0 {
                    (user + sys).as_secs_f64() / r * 100.0
                } else {
                    0.0
                };
                let _ = write!(out, "{pct:.2}");
                continue;
            }
            Some(other) => return Err(other),
            None => return Err('%'),
        };
        let micros = value.as_micros();
        let secs = micros / 1_000_000;
        let frac = micros % 1_000_000;
        let frac = frac / 10u128.pow(6 - precision as u32);
        let (mins, secs) = if long {
            (Some(secs / 60), secs % 60)
        } else {
            (None, secs)
        };
        if let Some(m) = mins {
            let _ = write!(out, "{m}m");
        }
        out.push_str(&secs.to_string());
        if precision > 0 {
            let _ = write!(out, ".{frac:0precision$}");
        }
        if long {
            out.push('s');
        }
    }
    out.push('\n');
    Ok(out)
}
