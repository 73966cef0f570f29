//! A simple command, alone or as a pipeline stage — one code path: expand its words and
//! assignments, open its redirections ([`super::redirect`]), look it up, run the handler
//! through an [`Emitter`], then apply its directives to the state it ran on.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::sync::mpsc::{Receiver, SyncSender};

use trumansh_commands::{CommandName, FsView, Vars};

use super::Interp;
use super::redirect::{Fds, stdin_of};
use super::state::ShellState;
use crate::audit::fields;
use crate::exec::{Emitter, Out, StreamSink, audit_command, run_command};
use crate::expand;
use crate::shell::ast::SimpleCommand;

/// A command whose words, assignments and redirections are done, ready to run.
pub(super) enum Prepared {
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

/// How a command is connected: alone on the session's state, or a stage of a pipeline.
pub(super) struct Wiring {
    /// The pipe from the previous stage.
    pub pipe_in: Option<Receiver<Vec<u8>>>,
    /// The pipe to the next stage.
    pub pipe_out: Option<SyncSender<Vec<u8>>>,
    /// A pipeline stage (a subshell in bash): `undo` there is dropped, as are, with the
    /// stage's state, its `cd`, variables and `exit`.
    pub stage: bool,
}

impl Interp<'_> {
    /// Runs a simple command on `state`, with its output to `fds`' defaults.
    pub(super) fn run_simple(
        &self,
        state: &mut ShellState,
        cmd: &SimpleCommand,
        fds: Fds,
        wiring: Wiring,
        line: usize,
        streams: &dyn StreamSink,
    ) -> i32 {
        let prepared = self.prepare(state, cmd, fds, line, streams);
        self.run_prepared(state, prepared, wiring, line, streams)
    }

    /// Runs a prepared command: the handler's steps go through an [`Emitter`] as they come;
    /// then its directives are applied to `state`.
    pub(super) fn run_prepared(
        &self,
        state: &mut ShellState,
        prepared: Prepared,
        wiring: Wiring,
        line: usize,
        streams: &dyn StreamSink,
    ) -> i32 {
        let rt = self.rt;
        let prefix = rt.prefix(line);
        match prepared {
            Prepared::Done(status) => status,
            Prepared::NotFound {
                message,
                status,
                err,
            } => {
                let mut emitter =
                    Emitter::new(&rt.sandbox, &rt.journal, prefix, Out::Null, err, streams);
                emitter.next = wiring.pipe_out;
                emitter.write(&emitter.err.clone(), &message);
                status
            }
            Prepared::Run {
                command,
                args,
                vars,
                fds,
            } => {
                let (status, directives, out, err) = {
                    let mut emitter = Emitter::new(
                        &rt.sandbox,
                        &rt.journal,
                        prefix.clone(),
                        fds.out,
                        fds.err,
                        streams,
                    );
                    emitter.next = wiring.pipe_out;
                    let stdin = stdin_of(fds.stdin, wiring.pipe_in, self.line.stdin.as_ref());
                    let env = self.env(state);
                    let vars = vars.as_ref().unwrap_or(&state.vars);
                    let status = run_command(&env, command, &args, vars, &stdin, &emitter);
                    let directives = emitter.directives.take();
                    (status, directives, emitter.out.clone(), emitter.err.clone())
                };
                // Changes to the shell itself, now that the command is done with it.
                let mut messages = Vec::new();
                let mut status = status;
                for directive in directives {
                    if let Some(said) = self.apply_directive(state, &directive, wiring.stage) {
                        status = said.status;
                        messages.extend(said.out.into_iter().map(|m| (false, m)));
                        messages.extend(said.err.into_iter().map(|m| (true, m)));
                    }
                }
                if !messages.is_empty() {
                    let emitter = Emitter::new(&rt.sandbox, &rt.journal, prefix, out, err, streams);
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

    /// Expands a command's words and assignments and opens its redirections, in bash's
    /// order; what is left is to run it.
    pub(super) fn prepare(
        &self,
        state: &mut ShellState,
        cmd: &SimpleCommand,
        mut fds: Fds,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Prepared {
        // 1. Words.
        let mut assigned = Vec::new();
        let words = match expand::expand_words(&cmd.words, &self.expand_ctx(state), &mut assigned) {
            Ok(w) => w,
            Err(e) => {
                state.apply_assigned(assigned);
                return Prepared::Done(self.expansion_failed(&e, line, streams));
            }
        };
        state.apply_assigned(std::mem::take(&mut assigned));
        // 2. Assignments (values: no splitting, no globbing).
        let mut values = Vec::new();
        for a in &cmd.assignments {
            match expand::expand_word_nosplit(&a.value, &self.expand_ctx(state), &mut assigned) {
                Ok(v) => values.push((a.name.clone(), String::from_utf8_lossy(&v).into_owned())),
                Err(e) => {
                    state.apply_assigned(assigned);
                    return Prepared::Done(self.expansion_failed(&e, line, streams));
                }
            }
        }
        state.apply_assigned(std::mem::take(&mut assigned));
        // The command that will run is logged now, before any change it causes (its
        // redirections' first).
        let parsed = words
            .first()
            .and_then(|name| name.to_str()?.parse::<CommandName>().ok());
        if let Some(c) = parsed.filter(|c| !self.rt.denied.contains(c)) {
            audit_command(
                self.rt.audit(),
                c,
                words.get(1..).unwrap_or_default(),
                &state.cwd,
            );
        }
        // 3. Redirections, in order, before the command runs (as bash: `> f` truncates even if
        // the command then fails or is not found).
        if let Err(status) = self.open_redirections(state, cmd, &mut fds, line, streams) {
            return Prepared::Done(status);
        }
        let Some(name) = words.first() else {
            // Assignments alone set shell variables (a pipeline stage's own copy of them).
            for (name, value) in values {
                state.vars.set(&name, value, false);
            }
            return Prepared::Done(0);
        };
        if let Some(c) = parsed
            && self.rt.denied.contains(&c)
        {
            self.rt
                .audit()
                .event("denied", fields([("command", c.as_str().into())]));
        }
        let Some(command) = parsed.filter(|c| !self.rt.denied.contains(c)) else {
            let msg = self.not_found_message(state, name);
            let status = if msg.ends_with(b": Is a directory\n") {
                126
            } else {
                127
            };
            return Prepared::NotFound {
                message: self.rt.prefixed(line, &msg),
                status,
                err: fds.err,
            };
        };
        // Prefix assignments are visible to this command only.
        let vars = (!values.is_empty()).then(|| {
            let mut v = state.vars.clone();
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
    fn not_found_message(&self, state: &ShellState, name: &OsString) -> Vec<u8> {
        let mut msg = name.as_bytes().to_vec();
        if name.as_bytes().contains(&b'/') {
            let path = state.resolve(name);
            match self.rt.sandbox.stat(&path, true) {
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
}
