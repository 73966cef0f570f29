//! What bash offers to complete: the names `compgen` prints and the REPL's tab completion
//! shows, from one place. Command names come in bash's order (aliases, reserved words,
//! functions, builtins, then the programs on the path); the programs are the ones trumansh
//! emulates (`/usr/bin/NAME`), never the host's.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use trumansh_commands::{CommandName, FsView, Identity, SHELL_BUILTINS, fnmatch};

use super::state::ShellState;

/// bash's reserved words, in the order `compgen -k` lists them.
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc",
];

/// The builtins trumansh runs (the interpreter's and the handlers'), sorted as bash's table.
pub(crate) fn builtin_names(denied: &[CommandName]) -> Vec<String> {
    let mut names: Vec<String> = SHELL_BUILTINS
        .iter()
        .filter(|n| !matches!(**n, "bash" | "sh"))
        .map(|n| (*n).to_string())
        .chain(
            CommandName::ALL
                .iter()
                .filter(|c| c.is_builtin() && !denied.contains(c))
                .map(|c| c.as_str().to_string()),
        )
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The programs on the path: every emulated program and the child shells, once for each
/// directory of `PATH` that holds them (`/usr/bin`, and `/bin` which links to it).
fn program_names(state: &ShellState, denied: &[CommandName]) -> Vec<String> {
    let mut names: Vec<String> = CommandName::ALL
        .iter()
        .filter(|c| c.program_path().is_some() && !denied.contains(c))
        .map(|c| c.as_str().to_string())
        .chain(["bash".to_string(), "sh".to_string()])
        .collect();
    names.sort_unstable();
    names.dedup();
    let path = state.vars.get("PATH").unwrap_or_default();
    let dirs = path
        .split(':')
        .filter(|d| matches!(d.trim_end_matches('/'), "/usr/bin" | "/bin"))
        .count();
    let mut out = Vec::with_capacity(names.len() * dirs);
    for _ in 0..dirs {
        out.extend(names.iter().cloned());
    }
    out
}

/// Every command name, in the order `compgen -c` prints them (a name may come more than once:
/// `echo` is a builtin and a program).
pub(crate) fn command_names(state: &ShellState, denied: &[CommandName]) -> Vec<String> {
    let mut out: Vec<String> = state.aliases.keys().cloned().collect();
    out.extend(KEYWORDS.iter().map(|k| (*k).to_string()));
    out.extend(state.functions.keys().cloned());
    out.extend(builtin_names(denied));
    out.extend(program_names(state, denied));
    out
}

/// What `compgen` was asked for.
#[derive(Default)]
struct Request {
    actions: Vec<Action>,
    words: Option<String>,
    glob: Option<String>,
    filter: Option<String>,
    prefix: String,
    suffix: String,
    word: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    Alias,
    ArrayVar,
    Builtin,
    Command,
    Directory,
    Export,
    File,
    Function,
    Group,
    Keyword,
    Setopt,
    Shopt,
    Signal,
    User,
    Variable,
    /// Actions with nothing to offer here (jobs, services, bindings, hostnames...).
    Nothing,
}

fn action_named(name: &str) -> Option<Action> {
    Some(match name {
        "alias" => Action::Alias,
        "arrayvar" => Action::ArrayVar,
        "builtin" | "enabled" => Action::Builtin,
        "command" => Action::Command,
        "directory" => Action::Directory,
        "export" => Action::Export,
        "file" => Action::File,
        "function" => Action::Function,
        "group" => Action::Group,
        "keyword" => Action::Keyword,
        "setopt" => Action::Setopt,
        "shopt" => Action::Shopt,
        "signal" => Action::Signal,
        "user" => Action::User,
        "variable" => Action::Variable,
        "binding" | "disabled" | "helptopic" | "hostname" | "job" | "running" | "service"
        | "stopped" => Action::Nothing,
        _ => return None,
    })
}

const USAGE: &str = "compgen: usage: compgen [-abcdefgjksuv] [-o option] [-A action] [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [word]\n";

/// `compgen`'s answer: (stdout, stderr without the shell's prefix, status).
pub(crate) struct Answer {
    pub out: Vec<u8>,
    pub err: Option<String>,
    pub usage: bool,
    pub status: i32,
}

/// Runs `compgen ARGS`.
pub(crate) fn compgen(
    state: &ShellState,
    fs: &dyn FsView,
    who: (&Identity, &[CommandName]),
    args: &[String],
) -> Answer {
    let fail = |msg: String, usage: bool| Answer {
        out: Vec::new(),
        err: Some(msg),
        usage,
        status: 2,
    };
    let mut req = Request::default();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if a == "--" {
            break;
        }
        let Some(flags) = a.strip_prefix('-').filter(|f| !f.is_empty()) else {
            i -= 1;
            break;
        };
        for (k, f) in flags.char_indices() {
            let simple = match f {
                'a' => Some(Action::Alias),
                'b' => Some(Action::Builtin),
                'c' => Some(Action::Command),
                'd' => Some(Action::Directory),
                'e' => Some(Action::Export),
                'f' => Some(Action::File),
                'g' => Some(Action::Group),
                'k' => Some(Action::Keyword),
                'u' => Some(Action::User),
                'v' => Some(Action::Variable),
                'j' | 's' => Some(Action::Nothing),
                _ => None,
            };
            if let Some(act) = simple {
                req.actions.push(act);
                continue;
            }
            if !matches!(f, 'o' | 'A' | 'G' | 'W' | 'F' | 'C' | 'X' | 'P' | 'S') {
                return fail(format!("compgen: -{f}: invalid option"), true);
            }
            // An option with an argument: the rest of this word, or the next word.
            let rest = flags.get(k + f.len_utf8()..).unwrap_or_default();
            let value = if rest.is_empty() {
                let Some(v) = args.get(i) else {
                    return fail(format!("compgen: -{f}: option requires an argument"), true);
                };
                i += 1;
                v.clone()
            } else {
                rest.to_string()
            };
            match f {
                'A' => match action_named(&value) {
                    Some(act) => req.actions.push(act),
                    None => return fail(format!("compgen: {value}: invalid action name"), false),
                },
                'o' => {
                    if !matches!(
                        value.as_str(),
                        "bashdefault"
                            | "default"
                            | "dirnames"
                            | "filenames"
                            | "noquote"
                            | "nosort"
                            | "nospace"
                            | "plusdirs"
                    ) {
                        return fail(format!("compgen: {value}: invalid option name"), false);
                    }
                    if value == "dirnames" || value == "plusdirs" {
                        req.actions.push(Action::Directory);
                    }
                }
                'G' => req.glob = Some(value),
                'W' => req.words = Some(value),
                'X' => req.filter = Some(value),
                'P' => req.prefix = value,
                'S' => req.suffix = value,
                // `-F`/`-C` run a function or command to generate: nothing is generated
                // outside programmable completion.
                _ => {}
            }
            break;
        }
    }
    if let Some(w) = args.get(i) {
        req.word.clone_from(w);
    }
    let found = generate(state, fs, who, &req);
    let mut out = Vec::new();
    for name in &found {
        out.extend_from_slice(req.prefix.as_bytes());
        out.extend_from_slice(name);
        out.extend_from_slice(req.suffix.as_bytes());
        out.push(b'\n');
    }
    let asked = !req.actions.is_empty() || req.words.is_some() || req.glob.is_some();
    Answer {
        status: i32::from(found.is_empty() && asked),
        out,
        err: None,
        usage: false,
    }
}

impl Answer {
    /// bash's usage line, printed after an option error.
    pub(crate) fn usage_text() -> &'static str {
        USAGE
    }
}

fn generate(
    state: &ShellState,
    fs: &dyn FsView,
    (identity, denied): (&Identity, &[CommandName]),
    req: &Request,
) -> Vec<Vec<u8>> {
    let word = req.word.as_bytes();
    let mut found: Vec<Vec<u8>> = Vec::new();
    for act in &req.actions {
        let mut add = |names: Vec<String>| {
            found.extend(
                names
                    .into_iter()
                    .map(String::into_bytes)
                    .filter(|n| n.starts_with(word)),
            );
        };
        match act {
            Action::Alias => add(state.aliases.keys().cloned().collect()),
            Action::ArrayVar => add(state
                .vars
                .iter()
                .filter(|(_, v)| v.array.is_some())
                .map(|(n, _)| n.to_string())
                .collect()),
            Action::Builtin => add(builtin_names(denied)),
            Action::Command => add(command_names(state, denied)),
            Action::Export => add(state
                .vars
                .iter()
                .filter(|(_, v)| v.exported && v.value.is_some())
                .map(|(n, _)| n.to_string())
                .collect()),
            Action::Function => add(state.functions.keys().cloned().collect()),
            Action::Group => add(vec![identity.group.clone()]),
            Action::User => add(vec![identity.user.clone()]),
            Action::Keyword => add(KEYWORDS.iter().map(|k| (*k).to_string()).collect()),
            Action::Setopt => add(super::options::set_options(state)
                .into_iter()
                .map(|(n, _)| n.to_string())
                .collect()),
            Action::Shopt => add(super::options::shopt_options(state)
                .into_iter()
                .map(|(n, _)| n.to_string())
                .collect()),
            Action::Signal => add(super::builtins::SIGNALS
                .iter()
                .map(|(s, n)| {
                    if *n == 0 {
                        (*s).to_string()
                    } else {
                        format!("SIG{s}")
                    }
                })
                .collect()),
            Action::Variable => add(state.vars.iter().map(|(n, _)| n.to_string()).collect()),
            Action::Directory | Action::File => {
                found.extend(files(state, fs, word, *act == Action::Directory));
            }
            Action::Nothing => {}
        }
    }
    if let Some(words) = &req.words {
        let ifs = state.vars.get("IFS").unwrap_or(" \t\n").as_bytes().to_vec();
        found.extend(
            words
                .as_bytes()
                .split(|b| ifs.contains(b))
                .filter(|w| !w.is_empty() && w.starts_with(word))
                .map(<[u8]>::to_vec),
        );
    }
    if let Some(pat) = &req.glob {
        found.extend(
            files(state, fs, b"", false)
                .into_iter()
                .filter(|n| fnmatch(pat.as_bytes(), n, false)),
        );
    }
    if let Some(filter) = &req.filter {
        let (negate, pat) = match filter.strip_prefix('!') {
            Some(p) => (true, p),
            None => (false, filter.as_str()),
        };
        found.retain(|n| fnmatch(pat.as_bytes(), n, false) == negate);
    }
    found
}

/// The names in the directory `word` points into that start with its last component, in
/// the directory's order, the directory part kept (bash's filename generation: dot files
/// too; only what readline shows hides them).
fn files(state: &ShellState, fs: &dyn FsView, word: &[u8], dirs_only: bool) -> Vec<Vec<u8>> {
    let (dir_part, base) = match word.iter().rposition(|&b| b == b'/') {
        Some(i) => word.split_at(i + 1),
        None => (&b""[..], word),
    };
    let dir = if dir_part.is_empty() {
        state.cwd.clone()
    } else {
        state.resolve(&std::ffi::OsStr::from_bytes(dir_part).to_os_string())
    };
    let Ok(entries) = fs.read_dir(&dir) else {
        return Vec::new();
    };
    entries
        .into_iter()
        .filter(|e| e.name.as_bytes().starts_with(base))
        .filter(|e| {
            !dirs_only
                || fs
                    .stat(&dir.join(Path::new(&e.name)), true)
                    .is_ok_and(|m| m.is_dir())
        })
        .map(|e| {
            let mut n = dir_part.to_vec();
            n.extend_from_slice(e.name.as_bytes());
            n
        })
        .collect()
}
