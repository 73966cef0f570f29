//! How a command name resolves, for `type` and `which`: bash's keywords, trumansh's builtins,
//! and where each emulated utility appears in the fixed `PATH`.

use crate::CommandName;

/// Bash 5.2's reserved words (`compgen -k`).
pub const KEYWORDS: &[&str] = &[
    "!", "[[", "]]", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for",
    "function", "if", "in", "select", "then", "time", "until", "while", "{", "}",
];

pub fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

/// The builtins the interpreter runs itself (they change its control flow, scopes or
/// options, or run shell text), in name order.
pub const SHELL_BUILTINS: &[&str] = &[
    ".", ":", "alias", "bash", "break", "builtin", "caller", "command", "compgen", "continue",
    "declare", "dirs", "eval", "exec", "getopts", "hash", "let", "local", "popd", "pushd",
    "readonly", "return", "set", "sh", "shift", "shopt", "source", "times", "trap", "typeset",
    "umask", "unalias", "wait",
];

/// Whether bash has a builtin of that name that trumansh runs (a handler's, or the
/// interpreter's own). `bash` and `sh` are programs in bash, run here as child shells.
pub fn is_builtin_name(name: &str, denied: &[CommandName]) -> bool {
    builtin(name, denied).is_some()
        || SHELL_BUILTINS.contains(&name) && !matches!(name, "bash" | "sh")
}

/// The builtin of that name, if trumansh has it.
pub fn builtin(name: &str, denied: &[CommandName]) -> Option<CommandName> {
    name.parse::<CommandName>()
        .ok()
        .filter(|c| c.is_builtin() && !denied.contains(c))
}

/// Every path under which the program appears, in `PATH` order: its `/usr/bin/x` and, since
/// `/bin` is a link to `/usr/bin` on a merged-/usr system, `/bin/x` as well.
pub fn program_paths(name: &str, denied: &[CommandName]) -> Vec<String> {
    // `bash` and `sh` run as child shells of the interpreter: programs, as in bash.
    if matches!(name, "bash" | "sh") {
        return vec![format!("/usr/bin/{name}"), format!("/bin/{name}")];
    }
    let Some(path) = name
        .parse::<CommandName>()
        .ok()
        .filter(|c| !denied.contains(c))
        .and_then(CommandName::program_path)
    else {
        return Vec::new();
    };
    let mut v = vec![path.clone()];
    if let Some(rest) = path.strip_prefix("/usr/bin/") {
        v.push(format!("/bin/{rest}"));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(program_paths("ls", &[]), ["/usr/bin/ls", "/bin/ls"]);
        assert!(program_paths("cd", &[]).is_empty());
        assert!(program_paths("grep-nope", &[]).is_empty());
        assert!(builtin("cd", &[]).is_some() && builtin("ls", &[]).is_none());
        assert!(is_keyword("[[") && !is_keyword("["));
    }
}
