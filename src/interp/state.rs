//! The shell's own state: cwd, variables, functions, positional parameters, options, `$?`,
//! a pending `exit`. Cloning it is how a pipeline stage, a subshell and a `$(...)` get a state
//! of their own, whose changes never reach the shell that made them (as bash's fork); the
//! large parts (functions, positional parameters) are shared until written.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use trumansh_commands::{Identity, Var, Vars, resolve_against};

use crate::shell::ast::{FunctionDef, Script};

/// An output process substitution `>(list)` waiting for its input.
#[derive(Clone)]
pub(crate) struct ProcOut {
    /// Its `$!`.
    pub pid: u32,
    pub fd: u32,
    pub capture: Arc<crate::exec::Capture>,
    pub script: Arc<Script>,
    /// The fds the list runs with: the shell's when it was expanded.
    pub io: super::Io,
}

impl std::fmt::Debug for ProcOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcOut")
            .field("fd", &self.fd)
            .finish_non_exhaustive()
    }
}

/// How many finished jobs the shell remembers for `wait`.
pub const MAX_JOBS: usize = 1024;

/// The fixed `PATH` the agent sees.
pub const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The shell's process id as the agent sees it (`$$`): fixed, never the host's.
pub const SHELL_PID: u32 = 4242;
/// `$PPID`.
pub const PARENT_PID: u32 = 4241;

/// `set -o` and `shopt` options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Options {
    pub errexit: bool,
    pub nounset: bool,
    pub pipefail: bool,
    pub xtrace: bool,
    pub noglob: bool,
    pub noclobber: bool,
    pub allexport: bool,
    pub nullglob: bool,
    pub failglob: bool,
    pub dotglob: bool,
    pub globstar: bool,
    pub extglob: bool,
    pub nocasematch: bool,
    pub lastpipe: bool,
    pub expand_aliases: bool,
    pub inherit_errexit: bool,
    /// On by default (bash 5.2): pathname expansion never matches `.` and `..`.
    pub globskipdots: bool,
    /// bash's POSIX mode (`sh`, `set -o posix`).
    pub posix: bool,
    /// The other `set -o` and `shopt` options: bit `i` set when option `i` of its table
    /// differs from its default (see `options.rs`).
    pub other_set: u64,
    pub other_shopt: u64,
}

/// A function call in progress: what its `local`s shadowed, and the caller's positional
/// parameters, put back when it returns.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    pub name: String,
    pub saved: Vec<(String, Option<Var>)>,
    pub positional: Arc<Vec<String>>,
    pub loop_depth: usize,
    /// The line it was called from (`BASH_LINENO`).
    pub line: usize,
    /// How many files were being read (`source_files`) when it was called: where it sits
    /// among them in the call stack.
    pub sources: usize,
}

/// An array a declaration builtin's `NAME=(...)` argument gives: the name, the items (with
/// their subscripts when written), whether it appends.
pub(crate) type DeclArray = (String, Vec<(Option<String>, String)>, bool);

/// What a command can change about the shell it runs in.
#[derive(Debug, Clone)]
pub(crate) struct ShellState {
    /// The logical cwd.
    pub cwd: PathBuf,
    pub vars: Vars,
    /// `$?`.
    pub last_status: i32,
    /// Set by `exit`: the shell stops running.
    pub exit: Option<i32>,
    pub functions: Arc<BTreeMap<String, Arc<FunctionDef>>>,
    /// The functions `export -f` marked: child shells get them.
    pub exported_functions: Arc<std::collections::BTreeSet<String>>,
    /// `$1`, `$2`, ...
    pub positional: Arc<Vec<String>>,
    /// `$0`.
    pub arg0: String,
    /// The script being run (`bash x.sh`, `source x.sh`): diagnostics name it instead of the
    /// session's `bash`.
    pub script_name: Option<Arc<str>>,
    /// The files being read (the script, then the files `source`d from it), innermost last:
    /// `BASH_SOURCE`.
    pub source_files: Vec<Arc<str>>,
    /// The lines the `source`s in progress were run from (`BASH_LINENO`).
    pub source_lines: Vec<usize>,
    /// The file each function was defined in (`BASH_SOURCE` inside it).
    pub function_files: Arc<BTreeMap<String, Arc<str>>>,
    /// Function calls in progress, innermost last.
    pub frames: Vec<Frame>,
    /// Loops in progress in the current function (or at top level).
    pub loop_depth: usize,
    pub opts: Options,
    /// `PIPESTATUS`.
    pub pipestatus: Vec<i32>,
    /// `$BASH_SUBSHELL`: subshells (and `$(...)`) this state is nested in; an `exit` or a
    /// `set -e` failure there ends only that subshell.
    pub subshell: usize,
    /// A child shell (`bash x.sh`, `sh -c`): `exit` and errexit end it, not the session.
    pub child: bool,
    /// How this shell reads its commands, as `$-` ends: `s` (stdin: the session, `bash <
    /// x`), `c` (`bash -c`), nothing (a script file).
    pub reads: &'static str,
    /// Messages arithmetic printed while it went on (`a[@]: bad array subscript`), shown
    /// once the expansion or command is done.
    pub warnings: Vec<String>,
    /// `source`/`eval`/child shells nested here.
    pub source_depth: usize,
    /// `$(...)` nested here.
    pub subst_depth: usize,
    /// `$!`.
    pub last_bg: Option<u32>,
    /// The finished jobs (`&`, process substitutions) for `wait`: process id, status, and
    /// whether it is still in the job table (not yet waited for by job number); the most
    /// recent [`MAX_JOBS`].
    pub jobs: Vec<(u32, i32, bool)>,
    /// The line of the command being run (`$LINENO`).
    pub lineno: usize,
    /// `$RANDOM`'s state.
    pub random: std::cell::Cell<u64>,
    /// When the shell started (`$SECONDS`).
    pub started: std::time::Instant,
    /// In a sourced file (`return` ends it).
    pub sourcing: usize,
    /// `trap`: the command for each condition (`EXIT`, `ERR`, signals), by name.
    pub traps: Arc<BTreeMap<String, String>>,
    /// A trap's command is running (traps do not nest).
    pub in_trap: bool,
    /// `exec`'s redirections, for the list it ran in to take up.
    pub pending_exec: Option<super::Io>,
    /// The fds `exec` gave the top level, for the next lines (files reopened for appending,
    /// each line journaling its own writes).
    pub exec_io: Option<super::Io>,
    /// The outputs of this command's `<(...)`, by the fd number of their `/dev/fd/N` path.
    pub proc_fds: Vec<(u32, Arc<Vec<u8>>)>,
    /// `>(list)` of the command being run: what the command writes to `/dev/fd/N` is
    /// captured, and the list reads it once the command is done.
    pub(crate) proc_out: Vec<ProcOut>,
    /// `alias`es (kept and listed; not expanded, as in a non-interactive bash).
    pub aliases: Arc<BTreeMap<String, String>>,
    /// `umask`.
    pub umask: u32,
    /// `pushd`'s stack, below the cwd (its top last).
    pub dir_stack: Vec<PathBuf>,
    /// Compound commands and function calls being run (`undo` refuses to run inside one).
    pub nesting: usize,
    /// `getopts`: the argument and the byte inside it where the last call stopped.
    pub getopts_pos: Option<(usize, usize)>,
    /// The arrays of a declaration builtin's `NAME=(...)` arguments, for it to assign.
    pub decl_arrays: Vec<DeclArray>,
    /// The policy's `var_bytes` and `array_elements`.
    pub max_var_bytes: usize,
    pub max_array_elements: usize,
    /// The policy's `array_bytes`, and for each array a bound on its values' bytes that
    /// never falls short (each store adds to it; past the cap it is counted again exactly).
    pub max_array_bytes: usize,
    pub array_bytes: std::collections::HashMap<String, usize>,
}

impl ShellState {
    /// A login shell's state in `home` (the mount point).
    pub fn new(home: &Path, identity: &Identity) -> Self {
        let mut vars = Vars::default();
        let home_text = home.to_string_lossy().into_owned();
        vars.set("HOME", home_text.clone(), true);
        vars.set("PWD", home_text, true);
        vars.export("OLDPWD");
        vars.set("USER", identity.user.clone(), true);
        vars.set("LOGNAME", identity.user.clone(), true);
        vars.set("HOSTNAME", identity.hostname.clone(), false);
        vars.set("PATH", PATH.into(), true);
        vars.set("SHELL", "/bin/bash".into(), true);
        vars.set("SHLVL", "1".into(), true);
        vars.set("IFS", " \t\n".into(), false);
        default_vars(&mut vars, identity);
        ShellState::fresh(home.to_path_buf(), vars)
    }

    /// A shell that has just started in `cwd` with these variables.
    fn fresh(cwd: PathBuf, vars: Vars) -> Self {
        ShellState {
            cwd,
            vars,
            last_status: 0,
            exit: None,
            functions: Arc::default(),
            exported_functions: Arc::default(),
            positional: Arc::default(),
            arg0: "bash".into(),
            script_name: None,
            source_files: Vec::new(),
            source_lines: Vec::new(),
            function_files: Arc::default(),
            frames: Vec::new(),
            loop_depth: 0,
            opts: Options {
                globskipdots: true,
                ..Options::default()
            },
            pipestatus: vec![0],
            subshell: 0,
            child: false,
            source_depth: 0,
            subst_depth: 0,
            last_bg: None,
            jobs: Vec::new(),
            lineno: 0,
            random: std::cell::Cell::new(0x2545_f491_4f6c_dd1d),
            started: std::time::Instant::now(),
            sourcing: 0,
            traps: Arc::default(),
            in_trap: false,
            getopts_pos: None,
            aliases: Arc::default(),
            umask: 0o022,
            dir_stack: Vec::new(),
            pending_exec: None,
            exec_io: None,
            proc_fds: Vec::new(),
            proc_out: Vec::new(),
            reads: "s",
            warnings: Vec::new(),
            nesting: 0,
            decl_arrays: Vec::new(),
            max_var_bytes: usize::MAX,
            max_array_elements: usize::MAX,
            max_array_bytes: usize::MAX,
            array_bytes: std::collections::HashMap::new(),
        }
    }

    /// The state a child shell starts with (`bash x.sh`, `sh -c`, `./x.sh`): the exported
    /// variables only, no functions, default options, its own `$0` and arguments.
    pub fn child(&self, name: String, params: Vec<String>, identity: &Identity) -> Self {
        let mut vars = Vars::default();
        for (name, var) in self.vars.iter() {
            if var.exported {
                vars.put(name, Some(var.clone()));
            }
        }
        vars.set("IFS", " \t\n".into(), false);
        // One level deeper than the exported `SHLVL` (1 when there is none), as bash counts.
        let level = vars
            .get("SHLVL")
            .and_then(|v| v.trim().parse::<i64>().ok())
            .unwrap_or(0);
        vars.set("SHLVL", level.saturating_add(1).to_string(), true);
        default_vars(&mut vars, identity);
        let mut child = ShellState::fresh(self.cwd.clone(), vars);
        // Exported functions go to child shells (bash passes them in the environment).
        if !self.exported_functions.is_empty() {
            let fns = Arc::make_mut(&mut child.functions);
            for name in self.exported_functions.iter() {
                if let Some(def) = self.functions.get(name) {
                    fns.insert(name.clone(), Arc::clone(def));
                }
            }
            child.exported_functions = Arc::clone(&self.exported_functions);
        }
        child.positional = Arc::new(params);
        child.arg0 = name;
        child.subshell = self.subshell;
        child.child = true;
        child.source_depth = self.source_depth + 1;
        child.subst_depth = self.subst_depth;
        child.random = std::cell::Cell::new(self.random.get() ^ 0x9e37_79b9_7f4a_7c15);
        child.max_var_bytes = self.max_var_bytes;
        child.max_array_elements = self.max_array_elements;
        child.max_array_bytes = self.max_array_bytes;
        child.array_bytes.clone_from(&self.array_bytes);
        child
    }

    /// A subshell's copy (`( )`, `$(...)`, a pipeline stage).
    pub fn subshell(&self) -> Self {
        let mut sub = self.clone();
        sub.subshell += 1;
        // The parent runs its own `>(...)` lists.
        sub.proc_out.clear();
        // A subshell starts with the traps reset, except the ignored ones (bash).
        if !sub.traps.is_empty() {
            let kept: BTreeMap<String, String> = sub
                .traps
                .iter()
                .filter(|(_, cmd)| cmd.is_empty())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            sub.traps = Arc::new(kept);
        }
        sub
    }

    /// A new job's process id, now `$!`.
    pub fn new_job(&mut self) -> u32 {
        let pid = self
            .last_bg
            .map_or(SHELL_PID + 1, |p| p.wrapping_add(1).max(SHELL_PID + 1));
        self.last_bg = Some(pid);
        pid
    }

    /// A job is done with this status.
    pub fn job_done(&mut self, pid: u32, status: i32) {
        if self.jobs.len() >= MAX_JOBS {
            self.jobs.remove(0);
        }
        self.jobs.push((pid, status, true));
    }

    /// Removes a function (`unset -f`): its export goes with it.
    pub fn remove_function(&mut self, name: &str) {
        if self.functions.contains_key(name) {
            Arc::make_mut(&mut self.functions).remove(name);
        }
        if self.exported_functions.contains(name) {
            Arc::make_mut(&mut self.exported_functions).remove(name);
        }
    }

    /// Marks a function exported or not; false when there is no such function.
    pub fn export_function(&mut self, name: &str, on: bool) -> bool {
        if !self.functions.contains_key(name) {
            return false;
        }
        if on != self.exported_functions.contains(name) {
            let set = Arc::make_mut(&mut self.exported_functions);
            if on {
                set.insert(name.to_string());
            } else {
                set.remove(name);
            }
        }
        true
    }

    /// Sets `$?`.
    pub fn set_status(&mut self, status: i32) {
        self.last_status = status;
    }

    /// An operand against the cwd.
    pub fn resolve(&self, operand: &OsString) -> PathBuf {
        resolve_against(&self.cwd, operand)
    }

    /// Whether an `exit` (or errexit) ends this shell rather than the session's input.
    pub fn nested(&self) -> bool {
        self.subshell > 0 || self.child
    }

    /// `$-`: the single-letter options that are on.
    pub fn flags(&self) -> String {
        super::options::flags(self)
    }

    /// `$RANDOM`: 0..32767, deterministic for the session.
    pub fn next_random(&self) -> u32 {
        let mut x = self.random.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.random.set(x);
        ((x >> 33) & 0x7fff) as u32
    }

    /// Declares `name` local to the innermost function (saving what it shadows once);
    /// true when it was not local there yet.
    pub fn make_local(&mut self, name: &str) -> bool {
        let Some(frame) = self.frames.last_mut() else {
            return false;
        };
        if frame.saved.iter().any(|(n, _)| n == name) {
            return false;
        }
        let old = self.vars.var(name).cloned();
        frame.saved.push((name.to_string(), old));
        true
    }
}

/// The variables bash sets in every shell.
fn default_vars(vars: &mut Vars, identity: &Identity) {
    vars.set("BASH", "/bin/bash".into(), false);
    vars.set("BASH_VERSION", "5.2.15(1)-release".into(), false);
    let info = vars.entry("BASH_VERSINFO");
    info.value = None;
    info.array = Some(trumansh_commands::Array::Indexed(
        ["5", "2", "15", "1", "release", "x86_64-pc-linux-gnu"]
            .into_iter()
            .zip(0..)
            .map(|(v, i)| (i, v.to_string()))
            .collect(),
    ));
    info.readonly = true;
    vars.set("UID", identity.uid.to_string(), false);
    vars.set("EUID", identity.uid.to_string(), false);
    vars.set("PPID", PARENT_PID.to_string(), false);
    vars.set("PS4", "+ ".into(), false);
    vars.set("OPTIND", "1".into(), false);
    vars.set("HOSTTYPE", "x86_64".into(), false);
    vars.set("OSTYPE", "linux-gnu".into(), false);
    vars.set("MACHTYPE", "x86_64-pc-linux-gnu".into(), false);
}
