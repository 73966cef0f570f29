//! What a handler is given: the view of the sandbox, the virtual cwd, the shell variables,
//! its stdin, and the few facts about the world it may show (time, user names).

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::FsView;

/// One shell variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Var {
    /// `None`: declared (`export X`) but never given a value, which bash keeps apart from
    /// an empty value (`declare -x X` vs `declare -x X=""`, `${X-unset}`).
    pub value: Option<String>,
    pub exported: bool,
}

/// The session's shell variables (never the host's environment).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vars {
    map: BTreeMap<String, Var>,
}

impl Vars {
    /// The value of a variable, if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.map.get(name).and_then(|v| v.value.as_deref())
    }
    /// The variable with its export flag.
    pub fn var(&self, name: &str) -> Option<&Var> {
        self.map.get(name)
    }
    /// Sets a value, keeping the export flag of an existing variable (and setting it when
    /// `export`).
    pub fn set(&mut self, name: &str, value: String, export: bool) {
        let exported = export || self.map.get(name).is_some_and(|v| v.exported);
        self.map.insert(
            name.to_string(),
            Var {
                value: Some(value),
                exported,
            },
        );
    }
    /// Marks a variable exported, declaring it without a value if it does not exist (bash
    /// shows `declare -x X`).
    pub fn export(&mut self, name: &str) {
        match self.map.get_mut(name) {
            Some(v) => v.exported = true,
            None => {
                self.map.insert(
                    name.to_string(),
                    Var {
                        value: None,
                        exported: true,
                    },
                );
            }
        }
    }
    /// Removes a variable.
    pub fn unset(&mut self, name: &str) {
        self.map.remove(name);
    }
    /// All variables in name order (C locale).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Var)> {
        self.map.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// The names the sandbox shows for its owner: plausible, never the host's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub user: String,
    pub group: String,
    pub uid: u32,
    pub gid: u32,
    pub hostname: String,
}

impl Default for Identity {
    fn default() -> Self {
        Identity {
            user: "user".into(),
            group: "user".into(),
            uid: 1000,
            gid: 1000,
            hostname: "sandbox".into(),
        }
    }
}

/// Everything a handler may look at.
pub struct Ctx<'a> {
    /// The read-only, contained view of the sandbox.
    pub fs: &'a dyn FsView,
    /// The logical virtual cwd (absolute, normalised; may contain links, as bash's `$PWD`).
    pub cwd: &'a Path,
    /// The agent's view of the sandbox root (`/` or a path like `/home/user`).
    pub mount_point: &'a Path,
    /// The shell variables.
    pub vars: &'a Vars,
    /// The command's stdin: the previous pipeline stage's output, a `<` file, a here-document,
    /// or empty — never the session's own input.
    pub stdin: &'a [u8],
    /// The time the command runs at.
    pub now: SystemTime,
    /// The user and host names to show.
    pub identity: &'a Identity,
    /// Whether stdout is a terminal (ls columns), as `isatty(1)`.
    pub stdout_is_tty: bool,
}

impl Ctx<'_> {
    /// Joins an operand with the cwd, as the kernel does with a relative path (see
    /// [`resolve_against`]).
    pub fn resolve(&self, operand: impl AsRef<OsStr>) -> PathBuf {
        resolve_against(self.cwd, operand.as_ref())
    }
    /// `$HOME`, or the mount point when unset.
    pub fn home(&self) -> PathBuf {
        self.vars
            .get("HOME")
            .map_or_else(|| self.mount_point.to_path_buf(), PathBuf::from)
    }
}

/// Joins an operand with a directory as the kernel does with a relative path: no
/// normalisation, so `link/..` is resolved physically by the view. An empty operand gives an
/// empty path, which the view answers with ENOENT, as the kernel does for `cat ''`.
pub fn resolve_against(cwd: &Path, operand: &OsStr) -> PathBuf {
    let p = Path::new(operand);
    if p.as_os_str().is_empty() {
        PathBuf::new()
    } else if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}
