//! What a host asks a session to run ([`Request`]) and what it gets back ([`Outcome`],
//! [`Report`]): the output, the status, the cwd after the line, whether output was truncated,
//! how long it took, and the effects the line applied to the sandbox.

use std::path::{Path, PathBuf};
use std::time::Duration;

use trumansh_commands::Op;

/// How many applied effects a report lists; the rest are counted in `effects_omitted`.
pub const MAX_EFFECTS: usize = 1000;

/// One input to run, with what a front end may attach to it.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The command line(s): one complete input, as typed.
    pub input: &'a [u8],
    /// The number of its first line, for bash's `line N:` diagnostics.
    pub first_line: usize,
    /// What the line's commands read when they have no pipe or redirection of their own (as
    /// `printf DATA | bash -c INPUT`): read once, the first command reading it consumes it.
    /// `None`: an empty stdin.
    pub stdin: Option<&'a [u8]>,
    /// A deadline for this line, shorter than the policy's (never longer: the policy's
    /// `deadline_ms` is the owner's maximum).
    pub timeout: Option<Duration>,
}

impl<'a> Request<'a> {
    /// A request for `input` at line 1, with an empty stdin and the policy's deadline.
    pub fn new(input: &'a [u8]) -> Self {
        Request {
            input,
            first_line: 1,
            stdin: None,
            timeout: None,
        }
    }
}

/// A change the line applied to the sandbox, in the order applied. Paths are the agent's
/// (absolute, under the mount point).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppliedEffect {
    /// A directory was created.
    CreateDir { path: PathBuf },
    /// A file was created or truncated and written (`append`: appended to), `bytes` long.
    Write {
        path: PathBuf,
        bytes: u64,
        append: bool,
    },
    /// Times were set (and the file created if it did not exist).
    Touch { path: PathBuf },
    /// Moved to the trash (`rm`).
    Trash { path: PathBuf },
    /// Renamed (`mv`).
    Rename { from: PathBuf, to: PathBuf },
    /// Copied (`cp`; one per file or link).
    Copy { from: PathBuf, to: PathBuf },
    /// Permission bits were set.
    SetMode { path: PathBuf, mode: u32 },
    /// A symbolic link holding `target` was created (`ln -s`).
    Symlink { path: PathBuf, target: PathBuf },
    /// `to` was made a new name of `from` (`ln`).
    HardLink { from: PathBuf, to: PathBuf },
    /// A file's length was set to `len` (`truncate`).
    Truncate { path: PathBuf, len: u64 },
    /// `undo` reverted an earlier line.
    Undo { line: String, changes: usize },
}

impl AppliedEffect {
    /// The effect of a filesystem operation.
    pub(crate) fn of(op: &Op) -> AppliedEffect {
        match op {
            Op::CreateDir { path, .. } => AppliedEffect::CreateDir { path: path.clone() },
            Op::WriteFile { path, data, append } => AppliedEffect::Write {
                path: path.clone(),
                bytes: data.len() as u64,
                append: *append,
            },
            Op::Touch { path, .. } => AppliedEffect::Touch { path: path.clone() },
            Op::Trash { path } => AppliedEffect::Trash { path: path.clone() },
            Op::Rename { from, to } => AppliedEffect::Rename {
                from: from.clone(),
                to: to.clone(),
            },
            Op::Copy { from, to, .. } => AppliedEffect::Copy {
                from: from.clone(),
                to: to.clone(),
            },
            Op::SetMode { path, mode } => AppliedEffect::SetMode {
                path: path.clone(),
                mode: *mode,
            },
            Op::Symlink { path, target } => AppliedEffect::Symlink {
                path: path.clone(),
                target: target.clone(),
            },
            Op::HardLink { from, to } => AppliedEffect::HardLink {
                from: from.clone(),
                to: to.clone(),
            },
            Op::Truncate { path, len, .. } => AppliedEffect::Truncate {
                path: path.clone(),
                len: *len,
            },
        }
    }

    /// Its name, as the audit log and the JSON protocol write it.
    pub fn op(&self) -> &'static str {
        match self {
            AppliedEffect::CreateDir { .. } => "create_dir",
            AppliedEffect::Write { append: true, .. } => "append",
            AppliedEffect::Write { .. } => "write",
            AppliedEffect::Touch { .. } => "touch",
            AppliedEffect::Trash { .. } => "trash",
            AppliedEffect::Rename { .. } => "rename",
            AppliedEffect::Copy { .. } => "copy",
            AppliedEffect::SetMode { .. } => "set_mode",
            AppliedEffect::Symlink { .. } => "symlink",
            AppliedEffect::HardLink { .. } => "hard_link",
            AppliedEffect::Truncate { .. } => "truncate",
            AppliedEffect::Undo { .. } => "undo",
        }
    }

    /// The path it changed (the source of a rename or copy).
    pub fn path(&self) -> Option<&Path> {
        match self {
            AppliedEffect::CreateDir { path }
            | AppliedEffect::Write { path, .. }
            | AppliedEffect::Touch { path }
            | AppliedEffect::Trash { path }
            | AppliedEffect::SetMode { path, .. }
            | AppliedEffect::Symlink { path, .. }
            | AppliedEffect::Truncate { path, .. } => Some(path),
            AppliedEffect::Rename { from, .. }
            | AppliedEffect::Copy { from, .. }
            | AppliedEffect::HardLink { from, .. } => Some(from),
            AppliedEffect::Undo { .. } => None,
        }
    }
}

/// What running a line did, apart from its output (which went to the sink).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// `$?` after the line.
    pub status: i32,
    /// `Some(status)` when the line ran `exit`: the session is over.
    pub exit: Option<i32>,
    /// The logical cwd after the line.
    pub cwd: PathBuf,
    /// Whether stdout or stderr passed its cap and the rest was dropped.
    pub truncated: bool,
    /// Whether the line hit its deadline (status 124).
    pub timed_out: bool,
    /// Wall-clock time the line took.
    pub duration: Duration,
    /// The changes applied, in order (failed ones are not listed); the first
    /// [`MAX_EFFECTS`].
    pub effects: Vec<AppliedEffect>,
    /// How many more changes were applied than `effects` lists.
    pub effects_omitted: usize,
    /// How many of them an atomic rollback undid (0: the line's changes stand).
    pub rolled_back: usize,
}

/// The result of [`Session::run`](crate::Session::run): the output, and the [`Report`] (which
/// it dereferences to: `outcome.status`, `outcome.cwd`, `outcome.effects`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub report: Report,
}

impl std::ops::Deref for Outcome {
    type Target = Report;

    fn deref(&self) -> &Report {
        &self.report
    }
}
