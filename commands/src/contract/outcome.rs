//! What a handler returns: its output, its status, and the changes it asks for.
//!
//! A handler never changes anything itself. It returns an [`Outcome`]: an ordered list of
//! [`Step`]s (stdout bytes, stderr bytes, filesystem [`Effect`]s, shell [`Directive`]s) and a
//! status. The executor replays the steps
//! in order, so `rm -v a missing b 2>&1` interleaves exactly as GNU's does, and it applies each
//! [`Effect`] only after checking it against the sandbox and policy. When applying an effect
//! fails (the parent vanished, quota, read-only), the executor prints the effect's
//! `on_err` context followed by `: ` and the error text, and raises the status to
//! `fail_status` — the same line GNU prints when its syscall fails.

use std::path::PathBuf;
use std::time::SystemTime;

/// The result of one command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    pub steps: Vec<Step>,
    pub status: i32,
}

/// One ordered piece of a command's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Bytes for stdout.
    Out(Vec<u8>),
    /// Bytes for stderr, printed as they are (`ls: cannot access ...`).
    Err(Vec<u8>),
    /// A shell builtin's diagnostic without the shell's prefix, e.g. `cd: x: No such file or
    /// directory\n`. The executor prefixes each line the way bash does in the current mode
    /// (`bash: `, `bash: line 3: `, `script.sh: line 3: `).
    ShellErr(Vec<u8>),
    /// A change to the filesystem, for the executor to check, apply and journal.
    Effect(Effect),
    /// A change to the shell itself (cwd, variables, exit, undo), for the interpreter to
    /// apply once the command is done — never from a pipeline stage, which is a subshell.
    Directive(Directive),
}

/// A change a handler asks the executor to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effect {
    pub op: Op,
    /// Written to stdout once the effect has been applied (`mkdir -v`, `rm -v`).
    pub on_ok: Option<Vec<u8>>,
    /// The GNU context for a failure, e.g. `mkdir: cannot create directory 'a'`; the executor
    /// appends `: <strerror>\n`. `None`: failures are silent (`rm -f` style).
    pub on_err: Option<String>,
    /// The status the command ends with when this effect fails (usually 1).
    pub fail_status: i32,
}

impl Effect {
    /// An effect that prints `on_err: <strerror>` and sets status 1 if it fails.
    pub fn new(op: Op, on_err: impl Into<String>) -> Self {
        Effect {
            op,
            on_ok: None,
            on_err: Some(on_err.into()),
            fail_status: 1,
        }
    }
    /// Sets the message written to stdout once applied.
    #[must_use]
    pub fn on_ok(mut self, msg: impl Into<Vec<u8>>) -> Self {
        self.on_ok = Some(msg.into());
        self
    }
}

/// What a builtin asks of the shell itself. The interpreter applies directives after the
/// command has run, in its own state; a pipeline stage (a subshell in bash) drops them.
/// Nothing here touches the filesystem, so nothing here is journaled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Directive {
    /// Changes the session's logical cwd (and `PWD`/`OLDPWD`, as bash's `cd` does) to `path`,
    /// taken as it is: `cd` gives a normalised path, except into a removed directory, where
    /// bash keeps the path as typed (`/a/b/..`).
    SetCwd { path: PathBuf },
    /// Sets a shell variable; `value: None` only changes the export flag (`export X`).
    SetVar {
        name: String,
        value: Option<String>,
        export: bool,
    },
    /// Removes a shell variable (or, when there is no variable by that name, a function).
    UnsetVar { name: String },
    /// Stops exporting a variable (`export -n`).
    Unexport { name: String },
    /// Removes a shell function (`unset -f`).
    UnsetFunction { name: String },
    /// Sets an indexed array to these elements, indexed from 0 (`read -a`, `mapfile`).
    SetArray { name: String, values: Vec<String> },
    /// `mapfile`: assigns `lines` to the indexed array `name` from index `origin` (the
    /// array is cleared first when `origin` is `None`); with a callback, runs `TEXT INDEX
    /// 'LINE'` before assigning every `quantum`-th line.
    MapLines {
        name: String,
        lines: Vec<String>,
        origin: Option<i64>,
        callback: Option<(String, u64)>,
    },
    /// Ends the session with this status once the current line is done (`None`: the shell's
    /// `$?`, which a handler does not see: `exit` without an operand).
    Exit { status: Option<i32> },
    /// `undo`: reverts the last `count` command lines that changed files (the interpreter
    /// asks the journal, and prints what was reverted).
    Undo { count: usize },
}

/// The filesystem changes the executor knows how to check, apply and journal. Paths are
/// virtual absolute paths, as given to [`crate::FsView`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// `mkdir`: creates one directory. `exist_ok`: an existing directory is not an error
    /// (`mkdir -p`). `mode`: permission bits to set after creation (`mkdir -m`).
    CreateDir {
        path: PathBuf,
        mode: Option<u32>,
        exist_ok: bool,
    },
    /// Creates or truncates a regular file and writes `data` (or appends it). Never follows a
    /// final-component symlink that leads out; never writes through a hard link to an inode
    /// shared with a file outside the sandbox.
    WriteFile {
        path: PathBuf,
        data: Vec<u8>,
        append: bool,
    },
    /// `touch`: sets times, creating an empty file when `create` and it does not exist.
    /// `None` leaves that time unchanged.
    Touch {
        path: PathBuf,
        atime: Option<SystemTime>,
        mtime: Option<SystemTime>,
        create: bool,
    },
    /// `rm`: moves the object (a link itself, never its target) to the trash.
    Trash { path: PathBuf },
    /// `mv`: renames within the sandbox.
    Rename { from: PathBuf, to: PathBuf },
    /// `cp`: copies one regular file's bytes into `to` (created or truncated, following a
    /// final link of `to` as a write does), or, with `links_as_links`, a symlink as a new link
    /// with the same target. `preserve`: mode and times too (`cp -p`, `-a`). Directories are
    /// created with `CreateDir` and filled with one `Copy` per entry.
    Copy {
        from: PathBuf,
        to: PathBuf,
        links_as_links: bool,
        preserve: bool,
    },
    /// `chmod`, `mkdir -m`: sets permission bits.
    SetMode { path: PathBuf, mode: u32 },
    /// `ln -s`: creates a symbolic link at `path` holding `target` as given (never following
    /// a final link of `path`; `EEXIST` when anything is there: `ln -f` trashes it first). A
    /// target that leads out is stored but stays dangling for the agent.
    Symlink { path: PathBuf, target: PathBuf },
    /// `ln`: makes `to` a new name for the object `from` names (`from`'s final link is not
    /// followed, as `ln -P`; a directory is refused with `EPERM`). `EEXIST` when `to` exists.
    HardLink { from: PathBuf, to: PathBuf },
    /// `truncate`: sets a regular file's length to `len` (cut, or extended with zeros),
    /// creating it empty first when `create` and it does not exist.
    Truncate {
        path: PathBuf,
        len: u64,
        create: bool,
    },
}

impl Outcome {
    /// An empty outcome with status 0.
    pub fn ok() -> Self {
        Outcome::default()
    }
    /// An outcome with only a status.
    pub fn status(status: i32) -> Self {
        Outcome {
            steps: Vec::new(),
            status,
        }
    }
    /// Appends stdout bytes (merged with a preceding stdout step).
    pub fn out(&mut self, bytes: impl AsRef<[u8]>) -> &mut Self {
        let bytes = bytes.as_ref();
        if bytes.is_empty() {
            return self;
        }
        if let Some(Step::Out(prev)) = self.steps.last_mut() {
            prev.extend_from_slice(bytes);
        } else {
            self.steps.push(Step::Out(bytes.to_vec()));
        }
        self
    }
    /// Appends stderr bytes (merged with a preceding stderr step).
    pub fn err(&mut self, bytes: impl AsRef<[u8]>) -> &mut Self {
        let bytes = bytes.as_ref();
        if bytes.is_empty() {
            return self;
        }
        if let Some(Step::Err(prev)) = self.steps.last_mut() {
            prev.extend_from_slice(bytes);
        } else {
            self.steps.push(Step::Err(bytes.to_vec()));
        }
        self
    }
    /// Appends a builtin diagnostic line (the shell's prefix is added by the executor).
    pub fn shell_err(&mut self, line: impl AsRef<[u8]>) -> &mut Self {
        self.steps.push(Step::ShellErr(line.as_ref().to_vec()));
        self
    }
    /// Appends an effect.
    pub fn effect(&mut self, effect: Effect) -> &mut Self {
        self.steps.push(Step::Effect(effect));
        self
    }
    /// Appends a directive to the shell.
    pub fn directive(&mut self, directive: Directive) -> &mut Self {
        self.steps.push(Step::Directive(directive));
        self
    }
    /// Sets the status.
    #[must_use]
    pub fn with_status(mut self, status: i32) -> Self {
        self.status = status;
        self
    }
    /// How many output bytes the outcome holds (stdout and stderr).
    pub fn buffered_len(&self) -> usize {
        self.steps
            .iter()
            .map(|s| match s {
                Step::Out(b) | Step::Err(b) | Step::ShellErr(b) => b.len(),
                Step::Effect(_) | Step::Directive(_) => 0,
            })
            .sum()
    }
    /// All stdout bytes, concatenated (for tests and simple callers).
    pub fn stdout(&self) -> Vec<u8> {
        self.steps
            .iter()
            .filter_map(|s| match s {
                Step::Out(b) => Some(b.as_slice()),
                _ => None,
            })
            .flatten()
            .copied()
            .collect()
    }
    /// All stderr bytes, concatenated, builtin diagnostics without prefix.
    pub fn stderr(&self) -> Vec<u8> {
        self.steps
            .iter()
            .filter_map(|s| match s {
                Step::Err(b) | Step::ShellErr(b) => Some(b.as_slice()),
                _ => None,
            })
            .flatten()
            .copied()
            .collect()
    }
    /// The effects, in order.
    pub fn effects(&self) -> impl Iterator<Item = &Effect> {
        self.steps.iter().filter_map(|s| match s {
            Step::Effect(e) => Some(e),
            _ => None,
        })
    }
    /// The directives to the shell, in order.
    pub fn directives(&self) -> impl Iterator<Item = &Directive> {
        self.steps.iter().filter_map(|s| match s {
            Step::Directive(d) => Some(d),
            _ => None,
        })
    }
}
