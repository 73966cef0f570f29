//! Expansion's view of the interpreter: parameters (special ones included), assignments,
//! command substitution (run on a copy of the state, its output captured) and arithmetic.

use std::sync::Arc;

use super::state::{SHELL_PID, ShellState};
use super::{Cx, Interp, Io};
use crate::exec::{Capture, Out, StreamSink};
use crate::expand::arith::{self, ArithEnv, Subscript};
use crate::expand::{self, ExpandCtx, ExpandError};
use crate::shell::ast::Script;

/// The expansion host of one command.
pub(super) struct Host<'i, 's> {
    pub interp: &'i Interp<'i>,
    pub state: &'s mut ShellState,
    pub io: &'s Io,
    pub streams: &'s dyn StreamSink,
    pub line: usize,
}

impl Interp<'_> {
    /// Runs `f` with an expansion context on `state`.
    pub(super) fn with_expand<T>(
        &self,
        state: &mut ShellState,
        io: &Io,
        line: usize,
        streams: &dyn StreamSink,
        f: impl FnOnce(&mut ExpandCtx) -> T,
    ) -> T {
        let limits = &self.rt.config.policy.limits;
        let cwd = state.cwd.clone();
        let noglob = state.opts.noglob;
        let mut host = Host {
            interp: self,
            state,
            io,
            streams,
            line,
        };
        let mut ctx = ExpandCtx {
            host: &mut host,
            cwd: &cwd,
            fs: &self.rt.sandbox,
            max_brace: limits.brace_fields,
            max_glob: limits.glob_matches,
            noglob,
        };
        f(&mut ctx)
    }

    /// `$(...)`: the list runs on a copy of the state, its stdout captured; `$?` becomes its
    /// status.
    pub(super) fn command_subst(
        &self,
        state: &mut ShellState,
        script: &Script,
        io: &Io,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Result<Vec<u8>, ExpandError> {
        let limits = &self.rt.config.policy.limits;
        if state.subst_depth >= limits.subst_depth {
            self.limit(
                state,
                streams,
                line,
                "subst_depth",
                limits.subst_depth as u64,
                "nested command substitutions",
            );
            return Err(ExpandError::fatal(String::new()));
        }
        let capture = Arc::new(Capture::new(limits.var_bytes));
        let mut sub = state.subshell();
        sub.subst_depth += 1;
        if !sub.opts.inherit_errexit {
            sub.opts.errexit = false;
        }
        let sub_io = Io {
            stdin: io.stdin.clone(),
            out: Out::Capture(Arc::clone(&capture)),
            err: io.err.clone(),
        };
        let this = Interp {
            stage: false,
            ..*self
        };
        this.run_list(&mut sub, script, &sub_io, Cx::default(), streams);
        let status = sub.exit.unwrap_or(sub.last_status);
        state.set_status(status);
        state.random.set(sub.random.get());
        if capture.overflow.load(std::sync::atomic::Ordering::Relaxed) {
            self.limit(
                state,
                streams,
                line,
                "var_bytes",
                limits.var_bytes as u64,
                "bytes of command substitution output",
            );
            return Err(ExpandError::fatal(String::new()));
        }
        let mut bytes = capture.take();
        if bytes.contains(&0) {
            bytes.retain(|&b| b != 0);
            self.shell_error(
                state,
                streams,
                line,
                b"warning: command substitution: ignored null byte in input\n",
            );
        }
        Ok(bytes)
    }

    /// Evaluates arithmetic text on `state`'s variables.
    pub(super) fn arith(&self, state: &mut ShellState, text: &str) -> Result<i64, ExpandError> {
        let mut env = Vars { state };
        arith::eval(text, &mut env).map_err(|e| ExpandError {
            message: e.message,
            status: 1,
            fatal: true,
        })
    }
}

/// Arithmetic's view of the variables.
struct Vars<'s> {
    state: &'s mut ShellState,
}

impl ArithEnv for Vars<'_> {
    fn get(&mut self, name: &str, sub: Subscript<'_>) -> Option<String> {
        match sub {
            Subscript::None => param(self.state, name),
            Subscript::Index(0) => param(self.state, name),
            Subscript::Index(_) | Subscript::Key(_) => None,
        }
    }
    fn set(&mut self, name: &str, _sub: Subscript<'_>, value: i64) -> Result<(), String> {
        assign(self.state, name, value.to_string())
    }
    fn is_assoc(&self, _name: &str) -> bool {
        false
    }
}

/// Assigns a variable as an assignment statement does.
pub(super) fn assign(state: &mut ShellState, name: &str, value: String) -> Result<(), String> {
    let export = state.opts.allexport;
    state.vars.set(name, value, export);
    Ok(())
}

/// A parameter's value (`None`: unset).
pub(super) fn param(state: &ShellState, name: &str) -> Option<String> {
    let b = name.as_bytes();
    match b {
        b"?" => Some(state.last_status.to_string()),
        b"#" => Some(state.positional.len().to_string()),
        b"$" => Some(SHELL_PID.to_string()),
        b"!" => state.last_bg.map(|p| p.to_string()),
        b"-" => Some(state.flags()),
        b"0" => Some(state.arg0.clone()),
        b"@" | b"*" => None,
        [b'1'..=b'9', ..] if b.iter().all(u8::is_ascii_digit) => {
            let n: usize = name.parse().ok()?;
            state.positional.get(n - 1).cloned()
        }
        b"LINENO" => Some(state.lineno.to_string()),
        b"RANDOM" => Some(state.next_random().to_string()),
        b"SECONDS" => Some(state.started.elapsed().as_secs().to_string()),
        b"FUNCNAME" => state.frames.last().map(|f| f.name.clone()),
        b"PIPESTATUS" => state.pipestatus.first().map(i32::to_string),
        b"BASH_SUBSHELL" => Some(state.subshell.to_string()),
        b"BASHPID" => Some(SHELL_PID.to_string()),
        b"SHELLOPTS" => Some(shellopts(state)),
        _ => state.vars.get(name).map(str::to_string),
    }
}

/// `$SHELLOPTS`.
fn shellopts(state: &ShellState) -> String {
    let o = &state.opts;
    let mut names = vec!["braceexpand"];
    if o.errexit {
        names.push("errexit");
    }
    names.push("hashall");
    if o.noglob {
        names.push("noglob");
    }
    if o.nounset {
        names.push("nounset");
    }
    if o.pipefail {
        names.push("pipefail");
    }
    if o.xtrace {
        names.push("xtrace");
    }
    names.sort_unstable();
    names.join(":")
}

impl expand::Host for Host<'_, '_> {
    fn param(&self, name: &str) -> Option<String> {
        param(self.state, name)
    }
    fn positional(&self) -> Vec<String> {
        self.state.positional.as_ref().clone()
    }
    fn assign(&mut self, name: &str, value: String) -> Result<(), String> {
        assign(self.state, name, value)
    }
    fn command_subst(&mut self, script: &Script) -> Result<Vec<u8>, ExpandError> {
        self.interp
            .command_subst(self.state, script, self.io, self.line, self.streams)
    }
    fn arith(&mut self, text: &str) -> Result<i64, ExpandError> {
        self.interp.arith(self.state, text)
    }
    fn nounset(&self) -> bool {
        self.state.opts.nounset
    }
    fn names_with_prefix(&self, prefix: &str) -> Vec<String> {
        // The set variables and the dynamic ones `param` answers for, as bash lists them.
        let dynamic = "BASHPID BASH_SUBSHELL LINENO RANDOM SECONDS SHELLOPTS".split(' ');
        let set = self.state.vars.iter().filter(|(_, v)| v.value.is_some());
        let mut names: Vec<String> = (set.map(|(n, _)| n).chain(dynamic))
            .filter(|n| n.starts_with(prefix))
            .map(str::to_string)
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }
    fn attributes(&self, name: &str) -> String {
        let exported = self.state.vars.var(name).is_some_and(|v| v.exported);
        if exported { "x".into() } else { String::new() }
    }
}
