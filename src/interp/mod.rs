//! The interpreter: walks the AST of one input — script → and-or lists → pipelines → simple
//! commands with their redirections — on a [`ShellState`], against the shared [`Runtime`].
//!
//! A lone command runs on the session's own state, and its directives (`cd`, variables,
//! `exit`, `undo`) apply to it. A pipeline stage runs in a thread of its own on a clone of the
//! state, and is expanded there ([`pipeline`]): the same code path
//! ([`Interp::run_simple`]'s two halves) runs both.
//!
//! Layer: above `exec` (which runs one handler) and the syntax (`shell`), below `session`
//! (which owns the state, the runtime and the line's transaction).

mod directives;
mod pipeline;
mod redirect;
mod runtime;
mod simple;
mod state;

use std::sync::atomic::Ordering;

pub use runtime::{Config, ErrorMode};
pub(crate) use runtime::{LineState, Runtime};
pub use state::PATH;
pub(crate) use state::ShellState;

use crate::exec::{Env, Out, StreamSink};
use crate::expand::{ExpandCtx, ExpandError};
use crate::io::{Stream, human_ms};
use crate::shell::ast::{AndOr, AndOrOp, Pipeline, Script};
use redirect::Fds;
use simple::Wiring;

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
    /// Runs a script's and-or lists in order until one exits or the input is aborted.
    pub(crate) fn run_script(&self, state: &mut ShellState, script: &Script, out: &dyn StreamSink) {
        for item in &script.items {
            if state.exit.is_some() || self.line.aborted() {
                break;
            }
            self.run_and_or(state, item, out);
        }
    }

    fn run_and_or(&self, state: &mut ShellState, list: &AndOr, out: &dyn StreamSink) {
        let status = self.run_pipeline(state, &list.first, list.line, out);
        state.set_status(status);
        for (op, pipeline) in &list.rest {
            if state.exit.is_some() || self.line.aborted() {
                return;
            }
            let run = match op {
                AndOrOp::And => state.last_status == 0,
                AndOrOp::Or => state.last_status != 0,
            };
            if run {
                let status = self.run_pipeline(state, pipeline, list.line, out);
                state.set_status(status);
            }
        }
    }

    fn run_pipeline(
        &self,
        state: &mut ShellState,
        pipeline: &Pipeline,
        line: usize,
        out: &dyn StreamSink,
    ) -> i32 {
        let rt = self.rt;
        let n = pipeline.commands.len();
        let max = rt.config.policy.limits.pipeline_len;
        if n > max {
            rt.limit_hit("pipeline_len", max as u64);
            let msg = format!("pipeline too long: {n} commands (the limit is {max})\n");
            self.shell_error(out, line, msg.as_bytes());
            self.line.abort();
            return 2;
        }
        let status = if n == 1 {
            match pipeline.commands.first() {
                Some(cmd) => {
                    let fds = Fds::new(Out::Stream(Stream::Stdout));
                    let wiring = Wiring {
                        pipe_in: None,
                        pipe_out: None,
                        stage: false,
                    };
                    self.run_simple(state, cmd, fds, wiring, line, out)
                }
                None => 0,
            }
        } else {
            self.run_stages(state, pipeline, line, out)
        };
        if rt.guard().expired() {
            // The line's deadline: like `timeout`, status 124; the rest of the line is skipped.
            if !self.line.timed_out.swap(true, Ordering::Relaxed) {
                let ms = self.line.deadline_ms;
                rt.limit_hit("deadline_ms", ms);
                let msg = format!(
                    "time limit of {} for one command line exceeded; the command was stopped\n",
                    human_ms(ms)
                );
                self.shell_error(out, line, msg.as_bytes());
            }
            self.line.abort();
            return 124;
        }
        if pipeline.negated {
            i32::from(status == 0)
        } else {
            status
        }
    }

    /// Writes a diagnostic with the shell's prefix for the current mode.
    fn shell_error(&self, out: &dyn StreamSink, line: usize, msg: &[u8]) {
        out.write(Stream::Stderr, &self.rt.prefixed(line, msg));
    }

    /// What a handler may read, for the executor.
    fn env<'s>(&'s self, state: &'s ShellState) -> Env<'s> {
        let rt = self.rt;
        Env {
            sandbox: &rt.sandbox,
            cwd: &state.cwd,
            identity: &rt.config.identity,
            stdout_is_tty: rt.config.stdout_is_tty,
            walk_depth: rt.config.policy.limits.walk_depth,
            denied: &rt.denied,
        }
    }

    fn expand_ctx<'s>(&'s self, state: &'s ShellState) -> ExpandCtx<'s> {
        let limits = &self.rt.config.policy.limits;
        ExpandCtx {
            vars: &state.vars,
            last_status: state.last_status,
            cwd: &state.cwd,
            fs: &self.rt.sandbox,
            max_brace: limits.brace_fields,
            max_glob: limits.glob_matches,
        }
    }

    fn expansion_failed(&self, e: &ExpandError, line: usize, out: &dyn StreamSink) -> i32 {
        self.shell_error(out, line, e.message.as_bytes());
        // Where a non-interactive bash would exit (`${X:?}`, a bad substitution), trumansh
        // stops the rest of this input but keeps the session; in a pipeline stage only the
        // stage's subshell exits, as in bash.
        if e.fatal && !self.stage {
            self.line.abort();
        }
        e.status
    }
}
