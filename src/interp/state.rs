//! The shell's own state: cwd, variables, `$?`, a pending `exit`. Cloning it is how a
//! pipeline stage (and later a subshell or a `$(...)`) gets a state of its own, whose changes
//! never reach the session.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use trumansh_commands::{Identity, Vars, resolve_against};

/// The fixed `PATH` the agent sees.
pub const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// What a command can change about the shell it runs in.
#[derive(Debug, Clone)]
pub(crate) struct ShellState {
    /// The logical cwd.
    pub cwd: PathBuf,
    pub vars: Vars,
    /// `$?`.
    pub last_status: i32,
    /// Set by `exit`: the session stops running the input.
    pub exit: Option<i32>,
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
        vars.set("IFS", " \t\n".into(), false);
        vars.set("?", "0".into(), false);
        ShellState {
            cwd: home.to_path_buf(),
            vars,
            last_status: 0,
            exit: None,
        }
    }

    /// Sets `$?`.
    pub fn set_status(&mut self, status: i32) {
        self.last_status = status;
        self.vars.set("?", status.to_string(), false);
    }

    /// Variables an expansion assigned (`${X:=v}`).
    pub fn apply_assigned(&mut self, assigned: Vec<(String, String)>) {
        for (name, value) in assigned {
            self.vars.set(&name, value, false);
        }
    }

    /// An operand against the cwd.
    pub fn resolve(&self, operand: &OsString) -> PathBuf {
        resolve_against(&self.cwd, operand)
    }
}
