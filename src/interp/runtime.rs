//! What a line runs against, shared (`&`) by the session's thread and every pipeline stage:
//! the sandbox, the journal, the settings; and the state of the line being run.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use trumansh_commands::{CommandName, Identity};

use crate::audit::{Audit, fields};
use crate::exec::LineInput;
use crate::limits::Guard;
use crate::policy::Policy;
use crate::sandbox::{Sandbox, SandboxConfig};
use crate::txn::journal::Journal;

/// How diagnostics are prefixed, as bash does in each mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorMode {
    /// Interactive: `bash: cd: x: No such file or directory`.
    Interactive,
    /// Non-interactive (stdin, `-c`, a script file): `NAME: line N: cd: x: ...`, where NAME
    /// is `bash` or the script's name.
    Script { name: String },
}

/// Where the session's commands come from, as bash's `$-` tells (`s`, `c`, neither).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reads {
    /// Line mode, `--json`, MCP, the REPL: an agent's session, which survives an error that
    /// would end a non-interactive bash (`set -e`, `${X?}`, `set -u`): only the rest of the
    /// input is skipped.
    #[default]
    Stdin,
    /// `-c STRING`: such an error ends the shell, as in `bash -c` (status 127 for an
    /// expansion error, as bash's).
    Command,
    /// A script file: such an error ends the script, as in `bash FILE`; `BASH_SOURCE` names
    /// the file.
    File,
}

/// Session settings.
#[derive(Debug, Clone)]
pub struct Config {
    pub sandbox: SandboxConfig,
    pub error_mode: ErrorMode,
    /// Where the commands come from.
    pub reads: Reads,
    /// The positional parameters (`$1`, ...): a script's arguments.
    pub args: Vec<String>,
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
            reads: Reads::Stdin,
            args: Vec::new(),
            identity: Identity::default(),
            stdout_is_tty: false,
            policy: Policy::default(),
        }
    }
}

/// The shared runtime of a session: one per session, borrowed by every stage thread. It owns
/// the limits and the audit log; the sandbox is given a share of both, to check and to
/// record its refusals.
pub(crate) struct Runtime {
    pub sandbox: Sandbox,
    /// The line's deadline, output caps, quotas and injected faults.
    pub guard: Arc<Guard>,
    /// The owner's audit log.
    pub audit: Arc<Audit>,
    /// The journal of transactions (one per input line that changes files).
    pub journal: Journal,
    pub config: Config,
    /// Commands the policy denies (`undo` too, when the policy disables it).
    pub denied: Vec<CommandName>,
}

impl Runtime {
    /// The line's deadline, output caps and quotas.
    pub fn guard(&self) -> &Guard {
        &self.guard
    }

    /// The owner's audit log.
    pub fn audit(&self) -> &Audit {
        &self.audit
    }

    /// Audits a limit that was hit.
    pub fn limit_hit(&self, limit: &str, value: u64) {
        self.audit().event(
            "limit",
            fields([("limit", limit.into()), ("value", value.into())]),
        );
    }

    /// The shell's prefix for a diagnostic on `line`, as bash writes it in this mode.
    pub fn prefix(&self, line: usize) -> Vec<u8> {
        match &self.config.error_mode {
            ErrorMode::Interactive => b"bash: ".to_vec(),
            ErrorMode::Script { name } => line_prefix(name, line),
        }
    }

    /// A diagnostic with the shell's prefix, ending with a newline.
    pub fn prefixed(&self, line: usize, msg: &[u8]) -> Vec<u8> {
        let mut out = self.prefix(line);
        out.extend_from_slice(msg);
        if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        out
    }
}

/// The state of the input line being run (one transaction), reset by the session at its
/// start. The flags are atomics: pipeline stages set them from their threads.
#[derive(Default)]
pub(crate) struct LineState {
    /// The line's deadline, in milliseconds (the policy's, or a request's shorter one).
    pub deadline_ms: u64,
    /// Set by a fatal expansion error or a limit: the rest of the input is skipped.
    pub abort: AtomicBool,
    /// The line's deadline was reported.
    pub timed_out: AtomicBool,
    /// A per-line counter's limit was reported.
    pub limited: AtomicBool,
    /// Commands run by the line (its stages too).
    pub commands: AtomicU64,
    /// Loop iterations of the line.
    pub iterations: AtomicU64,
    /// Pipeline stages running now (their threads).
    pub stages: std::sync::atomic::AtomicUsize,
    /// The line's stdin (a request's), shared by the commands that read it.
    pub stdin: Option<LineInput>,
    /// The line's output passed a cap.
    pub truncated: bool,
    /// How many changes the line's atomic rollback undid.
    pub rolled_back: usize,
}

impl LineState {
    pub fn aborted(&self) -> bool {
        self.abort.load(Ordering::Relaxed)
    }

    pub fn abort(&self) {
        self.abort.store(true, Ordering::Relaxed);
    }

    pub fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Relaxed)
    }

    /// A line starts: no abort, no timeout reported yet.
    pub fn start(&self) {
        self.abort.store(false, Ordering::Relaxed);
        self.timed_out.store(false, Ordering::Relaxed);
        self.limited.store(false, Ordering::Relaxed);
        self.commands.store(0, Ordering::Relaxed);
        self.iterations.store(0, Ordering::Relaxed);
    }
}

/// `NAME: line N: `, the prefix of a script's diagnostics (made for every command that
/// might report one: without the formatter).
pub(crate) fn line_prefix(name: &str, line: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len() + 16);
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b": line ");
    out.extend_from_slice(itoa::Buffer::new().format(line).as_bytes());
    out.extend_from_slice(b": ");
    out
}
