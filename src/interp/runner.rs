//! The command lines a handler starts (`xargs`, `find -exec`, awk's `system()` and pipes),
//! run through the interpreter: the one path by which a command runs another. A program and
//! its arguments run as `execvp` would (a handler as its program, `bash`/`sh` and scripts as
//! child shells; never a function or a builtin without a program); a shell line runs as
//! `sh -c LINE`. Each runs on a copy of the shell's state (a child process in bash), in the
//! same line: the same transaction, deadline, caps and audit log.

use std::ffi::OsString;
use std::sync::Arc;

use trumansh_commands::{CommandName, RunRequest, RunResult, RunWhat, Runner};

use super::builtins::Builtin;
use super::redirect::{Fds, Input, Io};
use super::simple::{Prepared, Target};
use super::state::ShellState;
use super::{Cx, Interp, stack_left};
use crate::exec::{Capture, Out, StreamSink, audit_command};

/// [`Runner`] for one handler run: what it needs of the interpreter, borrowed for the run.
pub(super) struct LineRunner<'a> {
    pub interp: Interp<'a>,
    pub state: &'a ShellState,
    /// The calling command's fds: the started command's stdout and stderr go where the
    /// caller's go.
    pub io: &'a Io,
    pub line: usize,
    pub streams: &'a dyn StreamSink,
}

impl Runner for LineRunner<'_> {
    fn run(&self, req: RunRequest) -> RunResult {
        self.run_limited(req, None)
    }

    fn run_until(&self, req: RunRequest, limit: std::time::Duration) -> RunResult {
        self.run_limited(req, Some(limit))
    }
}

impl LineRunner<'_> {
    /// Runs a request, under its own deadline when `limit` is given (`timeout`).
    fn run_limited(&self, req: RunRequest, limit: Option<std::time::Duration>) -> RunResult {
        let rt = self.interp.rt;
        let limits = &rt.config.policy.limits;
        let mut sub = self.state.subshell();
        if self.state.subst_depth >= limits.subst_depth || !stack_left() {
            self.interp.limit(
                &mut sub,
                self.streams,
                self.line,
                "subst_depth",
                limits.subst_depth as u64,
                "nested commands",
            );
            return RunResult {
                status: 126,
                stop: true,
                ..RunResult::default()
            };
        }
        sub.subst_depth += 1;
        if let Some(dir) = req.cwd {
            sub.cwd = dir.to_path_buf();
            sub.vars
                .set("PWD", dir.to_string_lossy().into_owned(), false);
        }
        if let Some(env) = req.env {
            if env.clear {
                let exported: Vec<String> = sub
                    .vars
                    .iter()
                    .filter(|(_, v)| v.exported)
                    .map(|(k, _)| k.to_string())
                    .collect();
                for name in exported {
                    sub.vars.unset(&name);
                }
            }
            for name in &env.unset {
                sub.vars.unset(name);
            }
            for (name, value) in &env.set {
                sub.vars.set(name, value.clone(), true);
            }
        }
        let capture = req
            .capture
            .then(|| Arc::new(Capture::new(limits.var_bytes)));
        let io = Io {
            stdin: if req.inherit_stdin {
                self.io.stdin.clone()
            } else {
                Input::bytes(req.stdin.map(<[u8]>::to_vec).unwrap_or_default())
            },
            out: capture
                .as_ref()
                .map_or_else(|| self.io.out.clone(), |c| Out::Capture(Arc::clone(c))),
            err: self.io.err.clone(),
            extra: Vec::new(),
        };
        let this = self.interp;
        let mut not_found = false;
        // `timeout`: the command stops at its own deadline; the rest of the line does not.
        let deadline = limit
            .and_then(|d| std::time::Instant::now().checked_add(d))
            .map(crate::limits::ChildDeadline::enter);
        match req.what {
            RunWhat::Argv(argv) => {
                if let Some(target) = argv.first().and_then(|n| self.target(&sub, n)) {
                    if let Target::Program(c, _) = &target {
                        audit_command(rt.audit(), *c, argv.get(1..).unwrap_or_default(), &sub.cwd);
                    }
                    let prepared = Prepared::Run {
                        target,
                        args: argv.get(1..).unwrap_or_default().to_vec(),
                        assigns: Vec::new(),
                        fds: Fds::new(io),
                        line: self.line,
                    };
                    this.run_prepared(&mut sub, prepared, Cx::default(), self.streams);
                } else {
                    not_found = true;
                    sub.set_status(127);
                }
            }
            RunWhat::Shell(text) => {
                // `sh -c LINE`: the child shell takes the words after its name.
                let words = ["-c".to_string(), String::from_utf8_lossy(text).into_owned()];
                this.child_shell(&mut sub, &words, true, &io, self.line, self.streams);
            }
        }
        drop(deadline);
        let status = sub.exit.unwrap_or(sub.last_status);
        RunResult {
            status,
            stdout: capture.map(|c| c.take()).unwrap_or_default(),
            not_found,
            stop: this.line.aborted() || rt.sandbox.guard().expired(),
        }
    }
}

impl LineRunner<'_> {
    /// What `execvp` would run for this name: `None` when it finds nothing.
    fn target(&self, state: &ShellState, name: &OsString) -> Option<Target> {
        let text = name.to_str()?;
        if text.contains('/') {
            return self.interp.path_target(state, name).ok();
        }
        match Builtin::lookup(text) {
            Some(b @ (Builtin::Shell | Builtin::Sh)) => return Some(Target::Builtin(b)),
            Some(_) => return None,
            None => {}
        }
        text.parse::<CommandName>()
            .ok()
            .filter(|c| c.program_path().is_some() && !self.interp.rt.denied.contains(c))
            .map(|c| Target::Program(c, text.to_string()))
    }
}
