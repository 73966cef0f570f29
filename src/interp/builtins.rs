//! The builtins the interpreter runs itself: those that change its control flow (`break`,
//! `continue`, `return`), its scopes and options (`local`, `declare`, `shift`, `set`,
//! `shopt`), or run shell text (`eval`, `source`, `bash`/`sh`, `command`, `builtin`), with
//! bash's messages.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;

use trumansh_commands::{CommandName, FsView};

use super::state::ShellState;
use super::{Cx, Flow, Interp, Io};
use crate::exec::{Emitter, StreamSink};
use crate::shell::ParseError;

/// The interpreter's builtins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Builtin {
    Colon,
    Break,
    Continue,
    Return,
    Local,
    Declare,
    Typeset,
    Readonly,
    Shift,
    Set,
    Shopt,
    Eval,
    Source,
    Let,
    Shell,
    /// `sh`: a child shell in POSIX mode.
    Sh,
    /// `export -f`: the `export` handler for everything else.
    ExportFunctions,
    Command,
    /// `builtin NAME`.
    Direct,
    Exec,
    Wait,
    Trap,
    Getopts,
    Alias,
    Unalias,
    Hash,
    Umask,
    Times,
    Caller,
    Dirs,
    Pushd,
    Popd,
    Compgen,
}

impl Builtin {
    pub(super) fn lookup(name: &str) -> Option<Builtin> {
        Some(match name {
            ":" => Builtin::Colon,
            "break" => Builtin::Break,
            "continue" => Builtin::Continue,
            "return" => Builtin::Return,
            "local" => Builtin::Local,
            "declare" => Builtin::Declare,
            "typeset" => Builtin::Typeset,
            "readonly" => Builtin::Readonly,
            "shift" => Builtin::Shift,
            "set" => Builtin::Set,
            "shopt" => Builtin::Shopt,
            "eval" => Builtin::Eval,
            "source" | "." => Builtin::Source,
            "let" => Builtin::Let,
            "bash" => Builtin::Shell,
            "sh" => Builtin::Sh,
            "command" => Builtin::Command,
            "builtin" => Builtin::Direct,
            "exec" => Builtin::Exec,
            "wait" => Builtin::Wait,
            "trap" => Builtin::Trap,
            "getopts" => Builtin::Getopts,
            "alias" => Builtin::Alias,
            "unalias" => Builtin::Unalias,
            "hash" => Builtin::Hash,
            "umask" => Builtin::Umask,
            "times" => Builtin::Times,
            "caller" => Builtin::Caller,
            "dirs" => Builtin::Dirs,
            "pushd" => Builtin::Pushd,
            "popd" => Builtin::Popd,
            "compgen" => Builtin::Compgen,
            _ => return None,
        })
    }

    /// POSIX's special builtins (of those the interpreter runs): in POSIX mode their usage
    /// errors end the shell and the assignments before them stay.
    pub(super) fn is_special(self) -> bool {
        matches!(
            self,
            Builtin::Colon
                | Builtin::Break
                | Builtin::Continue
                | Builtin::Return
                | Builtin::Readonly
                | Builtin::Shift
                | Builtin::Set
                | Builtin::Eval
                | Builtin::Source
                | Builtin::Exec
                | Builtin::Trap
        )
    }
}

pub(super) use super::options::option_on;
use super::options::{flag_option, set_option, set_options, set_shopt, shopt_options};

/// `caller [N]`: where the running function (or `source`d file) was called from, `LINE FILE`;
/// with N, the call N levels up, `LINE FUNCTION FILE`. Status 1 when there is no such call.
fn caller(state: &ShellState, args: &[String], said: &mut Said) {
    let stack = super::host::call_stack(state);
    let Some(n) = args.first() else {
        match stack.first() {
            Some(level) => {
                let file = stack.get(1).map_or("NULL", |l| l.file.as_str());
                said.out
                    .extend_from_slice(format!("{} {file}\n", level.line).as_bytes());
            }
            None => said.status = 1,
        }
        return;
    };
    let Ok(n) = n.trim().parse::<usize>() else {
        said.err(&format!("caller: {n}: invalid number"), 2);
        said.err_raw
            .extend_from_slice(b"caller: usage: caller [expr]\n");
        return;
    };
    match (stack.get(n), stack.get(n + 1)) {
        (Some(level), Some(up)) => said
            .out
            .extend_from_slice(format!("{} {} {}\n", level.line, up.name, up.file).as_bytes()),
        _ => said.status = 1,
    }
}

/// Whether a name is a valid variable name.
pub(super) fn is_name(s: &str) -> bool {
    let b = s.as_bytes();
    b.first()
        .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
        && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
}

/// The conditions `trap` knows, as bash names them (`trap -l`, `trap -p`).
pub(super) const SIGNALS: &[(&str, u32)] = &[
    ("EXIT", 0),
    ("HUP", 1),
    ("INT", 2),
    ("QUIT", 3),
    ("ILL", 4),
    ("TRAP", 5),
    ("ABRT", 6),
    ("BUS", 7),
    ("FPE", 8),
    ("KILL", 9),
    ("USR1", 10),
    ("SEGV", 11),
    ("USR2", 12),
    ("PIPE", 13),
    ("ALRM", 14),
    ("TERM", 15),
    ("CHLD", 17),
    ("CONT", 18),
    ("STOP", 19),
    ("TSTP", 20),
    ("TTIN", 21),
    ("TTOU", 22),
];

/// A condition's canonical name (`0`, `exit`, `SIGINT`, `int` → `EXIT`, `INT`), if known.
fn signal_name(spec: &str) -> Option<String> {
    let up = spec.to_ascii_uppercase();
    if ["ERR", "DEBUG", "RETURN"].contains(&up.as_str()) {
        return Some(up);
    }
    let bare = up.strip_prefix("SIG").unwrap_or(&up);
    if let Ok(n) = spec.parse::<u32>() {
        return SIGNALS
            .iter()
            .find(|(_, k)| *k == n)
            .map(|(s, _)| (*s).to_string());
    }
    SIGNALS
        .iter()
        .find(|(s, _)| *s == bare)
        .map(|(s, _)| (*s).to_string())
}

/// How `trap -p` shows a condition (`SIGINT`, `EXIT`).
fn shown_signal(name: &str) -> String {
    if ["EXIT", "ERR", "DEBUG", "RETURN"].contains(&name) {
        name.to_string()
    } else {
        format!("SIG{name}")
    }
}

/// `trap [-lp] [[action] condition ...]`.
fn trap(state: &mut ShellState, args: &[String], said: &mut Said) {
    let mut rest = args;
    let mut print = false;
    while let Some(a) = rest.first() {
        match a.as_str() {
            "-p" => print = true,
            "-l" => {
                for (name, n) in SIGNALS.iter().skip(1) {
                    said.out
                        .extend_from_slice(format!("{n:2}) SIG{name}\n").as_bytes());
                }
                return;
            }
            "--" => {
                rest = rest.get(1..).unwrap_or_default();
                break;
            }
            s if s.starts_with('-') && s.len() > 1 => {
                said.err(&format!("trap: {s}: invalid option"), 2);
                said.err
                    .extend_from_slice(b"trap: usage: trap [-lp] [[arg] signal_spec ...]\n");
                return;
            }
            _ => break,
        }
        rest = rest.get(1..).unwrap_or_default();
    }
    if print || rest.is_empty() {
        let wanted: Vec<String> = rest.iter().filter_map(|r| signal_name(r)).collect();
        // bash's order: EXIT and the signals by number, then DEBUG, ERR, RETURN.
        let rank = |n: &str| {
            SIGNALS.iter().find(|(s, _)| *s == n).map_or(
                100 + u32::from(n.as_bytes().first().copied().unwrap_or(0)),
                |(_, k)| *k,
            )
        };
        let mut traps: Vec<(&String, &String)> = state.traps.iter().collect();
        traps.sort_by_key(|(n, _)| rank(n));
        for (name, cmd) in traps {
            if wanted.is_empty() || wanted.contains(name) {
                let q = trumansh_commands::quote(cmd);
                said.out
                    .extend_from_slice(format!("trap -- {q} {}\n", shown_signal(name)).as_bytes());
            }
        }
        return;
    }
    // `trap CONDITION` alone (a number or `-`) resets; else the first word is the action.
    let (action, conditions) = match rest {
        [only] => (None, std::slice::from_ref(only)),
        [first, more @ ..] if first == "-" => (None, more),
        [first, more @ ..] => (Some(first.clone()), more),
        [] => return,
    };
    for c in conditions {
        match signal_name(c) {
            Some(name) => {
                let traps = Arc::make_mut(&mut state.traps);
                match &action {
                    Some(a) => {
                        traps.insert(name, a.clone());
                    }
                    None => {
                        traps.remove(&name);
                    }
                }
            }
            None => said.err(&format!("trap: {c}: invalid signal specification"), 1),
        }
    }
}

/// `getopts OPTSTRING NAME [ARGS]`: the next option of the positional parameters (or
/// ARGS), as bash: `OPTIND`, `OPTARG`, and a hidden place inside a bundle (`-abc`).
fn getopts(state: &mut ShellState, args: &[String], said: &mut Said) {
    let (Some(spec), Some(name)) = (args.first(), args.get(1)) else {
        said.err("getopts: usage: getopts optstring name [arg ...]", 2);
        return;
    };
    if !is_name(name) {
        said.err(&format!("getopts: `{name}': not a valid identifier"), 1);
        return;
    }
    let params: Vec<String> = if args.len() > 2 {
        args.get(2..).unwrap_or_default().to_vec()
    } else {
        state.positional.as_ref().clone()
    };
    let silent = spec.starts_with(':');
    let spec = spec.strip_prefix(':').unwrap_or(spec);
    let optind: usize = state
        .vars
        .get("OPTIND")
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(1)
        .max(1);
    // Where in a bundle the last call stopped (bash keeps it hidden; reset with OPTIND).
    let mut pos = state
        .getopts_pos
        .filter(|(i, _)| *i == optind)
        .map_or(1, |(_, p)| p);
    let finish = |state: &mut ShellState, optind: usize, value: &str| {
        state.vars.set("OPTIND", optind.to_string(), false);
        state.vars.set(name, value.to_string(), false);
    };
    let Some(arg) = params.get(optind - 1) else {
        state.getopts_pos = None;
        finish(state, optind, "?");
        said.status = 1;
        return;
    };
    if arg == "--" {
        state.getopts_pos = None;
        finish(state, optind + 1, "?");
        said.status = 1;
        return;
    }
    if !arg.starts_with('-') || arg == "-" {
        state.getopts_pos = None;
        finish(state, optind, "?");
        said.status = 1;
        return;
    }
    let bytes = arg.as_bytes();
    let Some(&c) = bytes.get(pos) else {
        state.getopts_pos = None;
        finish(state, optind + 1, "?");
        said.status = 1;
        return;
    };
    pos += 1;
    let at_end = pos >= bytes.len();
    let spec_pos = spec.bytes().position(|s| s == c && c != b':');
    let takes_arg = spec_pos.is_some_and(|p| spec.as_bytes().get(p + 1) == Some(&b':'));
    let opt = char::from(c).to_string();
    let (next_ind, next_pos) = if at_end {
        (optind + 1, None)
    } else {
        (optind, Some(pos))
    };
    match spec_pos {
        None => {
            if silent {
                state.vars.set("OPTARG", opt.clone(), false);
            } else {
                state.vars.unset("OPTARG");
                said.err_arg0
                    .extend_from_slice(format!("illegal option -- {opt}\n").as_bytes());
            }
            state.getopts_pos = next_pos.map(|p| (next_ind, p));
            finish(state, next_ind, "?");
        }
        Some(_) if takes_arg => {
            if !at_end {
                let value =
                    String::from_utf8_lossy(bytes.get(pos..).unwrap_or_default()).into_owned();
                state.vars.set("OPTARG", value, false);
                state.getopts_pos = None;
                finish(state, optind + 1, &opt);
            } else if let Some(value) = params.get(optind) {
                state.vars.set("OPTARG", value.clone(), false);
                state.getopts_pos = None;
                finish(state, optind + 2, &opt);
            } else {
                state.getopts_pos = None;
                if silent {
                    state.vars.set("OPTARG", opt.clone(), false);
                    finish(state, optind + 1, ":");
                } else {
                    state.vars.unset("OPTARG");
                    said.err_arg0.extend_from_slice(
                        format!("option requires an argument -- {opt}\n").as_bytes(),
                    );
                    finish(state, optind + 1, "?");
                }
            }
        }
        Some(_) => {
            state.vars.unset("OPTARG");
            state.getopts_pos = next_pos.map(|p| (next_ind, p));
            finish(state, next_ind, &opt);
        }
    }
}

/// `PWD` and `OLDPWD` after the cwd changed.
fn set_pwd(state: &mut ShellState, old: &std::path::Path) {
    state
        .vars
        .set("OLDPWD", old.to_string_lossy().into_owned(), false);
    let now = state.cwd.to_string_lossy().into_owned();
    state.vars.set("PWD", now, false);
}

/// `alias [-p] [name[=value] ...]`: defines and lists aliases (expanded by the parser, with
/// `shopt -s expand_aliases`, from the next complete command on). `-p` lists them all first.
fn alias(state: &mut ShellState, args: &[String], said: &mut Said) {
    let mut list_all = false;
    let mut rest = args;
    while let Some((first, tail)) = rest.split_first() {
        match first.as_str() {
            "-p" => list_all = true,
            "--" => {
                rest = tail;
                break;
            }
            o if o.starts_with('-') && o.len() > 1 => {
                said.err(&format!("alias: {o}: invalid option"), 2);
                said.err("alias: usage: alias [-p] [name[=value] ... ]", 2);
                return;
            }
            _ => break,
        }
        rest = tail;
    }
    let names: Vec<&String> = rest.iter().collect();
    let show = |said: &mut Said, n: &str, v: &str| {
        said.out.extend_from_slice(alias_line(n, v).as_bytes());
    };
    if names.is_empty() || list_all {
        for (n, v) in state.aliases.iter() {
            show(said, n, v);
        }
    }
    for a in names {
        match a.split_once('=') {
            Some((n, v)) => {
                Arc::make_mut(&mut state.aliases).insert(n.to_string(), v.to_string());
            }
            None => match state.aliases.get(a.as_str()) {
                Some(v) => {
                    let v = v.clone();
                    show(said, a, &v);
                }
                None => said.err(&format!("alias: {a}: not found"), 1),
            },
        }
    }
}

/// An alias as `alias` and `command -v` print it: `alias NAME='VALUE'`.
pub(super) fn alias_line(n: &str, v: &str) -> String {
    let dash = if n.starts_with('-') { "-- " } else { "" };
    format!("alias {dash}{n}='{}'\n", v.replace('\'', "'\\''"))
}

/// The alias a name is, where aliases are expanded (`shopt -s expand_aliases`): `type`
/// and `command -v` name it first.
pub(super) fn alias_of<'s>(state: &'s ShellState, name: &str) -> Option<&'s str> {
    if !state.opts.expand_aliases {
        return None;
    }
    state.aliases.get(name).map(String::as_str)
}

/// `unalias [-a] name ...`.
fn unalias(state: &mut ShellState, args: &[String], said: &mut Said) {
    if args.is_empty() {
        said.err("unalias: usage: unalias [-a] name [name ...]", 2);
        return;
    }
    for a in args {
        if a == "-a" {
            state.aliases = Arc::default();
        } else if state.aliases.contains_key(a.as_str()) {
            Arc::make_mut(&mut state.aliases).remove(a.as_str());
        } else {
            said.err(&format!("unalias: {a}: not found"), 1);
        }
    }
}

/// `umask [-p] [-S] [mode]`: the mask is kept and shown (files are created with the
/// sandbox's modes).
fn umask(state: &mut ShellState, args: &[String], said: &mut Said) {
    let symbolic = args.iter().any(|a| a == "-S");
    let print = args.iter().any(|a| a == "-p");
    let mode = args.iter().find(|a| !a.starts_with('-'));
    if let Some(m) = mode {
        match u32::from_str_radix(m, 8) {
            Ok(v) if v <= 0o777 => state.umask = v,
            _ => said.err(&format!("umask: {m}: octal number out of range"), 1),
        }
    } else {
        let m = state.umask;
        let line = if symbolic {
            let part = |shift: u32| {
                let bits = !(m >> shift) & 7;
                let mut p = String::new();
                for (b, c) in [(4, 'r'), (2, 'w'), (1, 'x')] {
                    if bits & b != 0 {
                        p.push(c);
                    }
                }
                p
            };
            format!("u={},g={},o={}", part(6), part(3), part(0))
        } else if print {
            format!("umask {m:04o}")
        } else {
            format!("{m:04o}")
        };
        said.out.extend_from_slice(line.as_bytes());
        said.out.push(b'\n');
    }
}

/// The attributes `declare` turns on or off.
#[derive(Default)]
struct Attrs {
    export: bool,
    readonly: bool,
    indexed: bool,
    assoc: bool,
    integer: bool,
    lower: bool,
    upper: bool,
    nameref: bool,
}

/// `declare -f`/`-F` (and `export -f`'s listing): the functions named, or all of them
/// (only the exported ones with `exported`), as bash prints them; 1 when a name is not a
/// function (without a word).
fn print_functions(
    state: &ShellState,
    operands: &[String],
    names_only: bool,
    print: bool,
    exported: bool,
    out: &mut Vec<u8>,
) -> i32 {
    let all = operands.is_empty();
    let names: Vec<String> = if all {
        state
            .functions
            .keys()
            .filter(|n| !exported || state.exported_functions.contains(*n))
            .cloned()
            .collect()
    } else {
        operands.to_vec()
    };
    let mut status = 0;
    for n in names {
        let Some(def) = state.functions.get(&n) else {
            status = 1;
            continue;
        };
        let x = if state.exported_functions.contains(&n) {
            "x"
        } else {
            ""
        };
        if names_only {
            // `declare -F f` names it; `declare -F` and `declare -pF f` list declarations.
            let text = if all || print {
                format!("declare -f{x} {n}\n")
            } else {
                format!("{n}\n")
            };
            out.extend_from_slice(text.as_bytes());
        } else {
            out.extend_from_slice(&crate::shell::print::function_text(def));
            out.push(b'\n');
            if all && !x.is_empty() {
                out.extend_from_slice(format!("declare -fx {n}\n").as_bytes());
            }
        }
    }
    status
}

/// `export -f [-n] [-p] [name ...]`: marks functions exported (or not, `-n`), or lists the
/// exported ones. The interpreter answers it: the `export` handler cannot see functions.
fn export_functions(state: &mut ShellState, args: &[String], said: &mut Said) {
    let mut unexport = false;
    let mut names = Vec::new();
    let mut opts_done = false;
    for a in args {
        if !opts_done && a.starts_with('-') && a.len() > 1 {
            if a == "--" {
                opts_done = true;
            } else {
                unexport |= a.contains('n');
            }
            continue;
        }
        opts_done = true;
        names.push(a.clone());
    }
    if names.is_empty() {
        said.status = print_functions(state, &[], false, false, true, &mut said.out);
        return;
    }
    for n in &names {
        if !state.export_function(n, !unexport) {
            said.err(&format!("export: {n}: not a function"), 1);
        }
    }
}

/// A variable as `declare -p` prints it.
/// bash's reserved words.
pub(super) fn is_keyword(name: &str) -> bool {
    [
        "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
        "function", "{", "}", "[[", "]]", "!", "in", "select", "time", "coproc",
    ]
    .contains(&name)
}

fn declare_line(name: &str, v: &trumansh_commands::Var) -> String {
    use trumansh_commands::Array;
    let mut flags = String::new();
    match &v.array {
        Some(Array::Indexed(_)) => flags.push('a'),
        Some(Array::Assoc(_)) => flags.push('A'),
        None => {}
    }
    if v.integer {
        flags.push('i');
    }
    if v.nameref {
        flags.push('n');
    }
    if v.case == Some(false) {
        flags.push('l');
    }
    if v.readonly {
        flags.push('r');
    }
    if v.case == Some(true) {
        flags.push('u');
    }
    if v.exported {
        flags.push('x');
    }
    let flags = if flags.is_empty() {
        "--".to_string()
    } else {
        format!("-{flags}")
    };
    match &v.array {
        Some(Array::Indexed(m)) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, x)| format!("[{k}]={}", declare_quote(x)))
                .collect();
            format!("declare {flags} {name}=({})\n", items.join(" "))
        }
        Some(Array::Assoc(m)) => {
            let mut items = String::new();
            for (k, x) in m {
                let _ = write!(items, "[{}]={} ", declare_key(k), declare_quote(x));
            }
            format!("declare {flags} {name}=({items})\n")
        }
        None => match &v.value {
            Some(val) => format!("declare {flags} {name}={}\n", declare_quote(val)),
            None => format!("declare {flags} {name}\n"),
        },
    }
}

/// A value as `declare -p` quotes it: `$'...'` when it holds a non-printable byte, else
/// in double quotes (bash's `ansic_shouldquote`, `ansic_quote`, `sh_double_quote`).
fn declare_quote(v: &str) -> String {
    if v.bytes().any(|c| !(0x20..0x7f).contains(&c)) {
        return trumansh_commands::ansic_if_needed(v);
    }
    let mut out = String::from("\"");
    for c in v.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// An associative array's key as `declare -p` shows it: as it is, unless it holds a shell
/// metacharacter (then quoted as a value is).
fn declare_key(k: &str) -> String {
    let metas = k
        .bytes()
        .any(|c| !(0x20..0x7f).contains(&c) || b" \t\n'\"\\|&;()<>!{}*[?]^$`".contains(&c))
        || k.starts_with(['~', '#']);
    if metas {
        declare_quote(k)
    } else {
        k.to_string()
    }
}

/// What a builtin prints and its status.
#[derive(Default)]
struct Said {
    out: Vec<u8>,
    err: Vec<u8>,
    /// Diagnostics with `$0: ` as their prefix (getopts'), not the shell's.
    err_arg0: Vec<u8>,
    /// Diagnostics bash prints without any prefix (`hash: hash table empty`).
    err_raw: Vec<u8>,
    status: i32,
}

impl Said {
    fn err(&mut self, msg: &str, status: i32) {
        self.err.extend_from_slice(msg.as_bytes());
        if !msg.ends_with('\n') {
            self.err.push(b'\n');
        }
        self.status = status;
    }
}

impl Interp<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_builtin(
        &self,
        state: &mut ShellState,
        b: Builtin,
        args: &[OsString],
        io: &Io,
        cx: Cx,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Flow {
        let args: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let mut said = Said::default();
        let mut flow = Flow::Normal;
        match b {
            Builtin::Colon => {}
            Builtin::Wait => said.status = wait(state, &args, &mut said),
            Builtin::Break | Builtin::Continue => {
                let name = if b == Builtin::Break {
                    "break"
                } else {
                    "continue"
                };
                match args.first().map(|a| a.parse::<i64>()) {
                    Some(Err(_)) => {
                        // A fatal error for a non-interactive bash: the shell exits with 128.
                        said.err(
                            &format!(
                                "{name}: {}: numeric argument required",
                                args.first().map_or("", String::as_str)
                            ),
                            128,
                        );
                        let done = self.finish(state, &said, io, line, streams);
                        self.fatal(state, 128);
                        return done;
                    }
                    Some(Ok(n)) if n < 1 => {
                        said.err(&format!("{name}: {n}: loop count out of range"), 1);
                        if state.loop_depth > 0 {
                            flow = Flow::Break(state.loop_depth);
                        }
                    }
                    n => {
                        let n = n.and_then(Result::ok).unwrap_or(1);
                        if state.loop_depth == 0 {
                            said.err(
                                &format!(
                                    "{name}: only meaningful in a `for', `while', or `until' loop"
                                ),
                                0,
                            );
                        } else {
                            let n = usize::try_from(n)
                                .unwrap_or(usize::MAX)
                                .min(state.loop_depth);
                            flow = if b == Builtin::Break {
                                Flow::Break(n)
                            } else {
                                Flow::Continue(n)
                            };
                        }
                    }
                }
            }
            Builtin::Return => {
                if state.frames.is_empty() && state.sourcing == 0 {
                    if let Some(a) = args.first().filter(|a| a.parse::<i64>().is_err()) {
                        said.err(&format!("return: {a}: numeric argument required"), 2);
                    }
                    said.err(
                        "return: can only `return' from a function or sourced script",
                        2,
                    );
                } else {
                    match args.first() {
                        None => said.status = state.last_status,
                        Some(a) => match a.parse::<i64>() {
                            Ok(n) => said.status = (n & 0xff) as i32,
                            Err(_) => {
                                said.err(&format!("return: {a}: numeric argument required"), 2);
                            }
                        },
                    }
                    flow = Flow::Return;
                }
            }
            Builtin::Local => {
                if state.frames.is_empty() {
                    said.err("local: can only be used in a function", 1);
                } else {
                    Self::declare(state, "local", &args, true, &mut said);
                }
            }
            Builtin::Declare | Builtin::Typeset => {
                let local = !state.frames.is_empty();
                let name = if b == Builtin::Typeset {
                    "typeset"
                } else {
                    "declare"
                };
                Self::declare(state, name, &args, local, &mut said);
            }
            Builtin::Readonly => Self::declare(state, "readonly", &args, false, &mut said),
            Builtin::Shift => {
                let n = match args.first() {
                    None => Ok(1),
                    Some(a) => a.parse::<i64>().map_err(|_| a.clone()),
                };
                match n {
                    Err(a) => said.err(&format!("shift: {a}: numeric argument required"), 1),
                    Ok(n) if n < 0 => said.err(&format!("shift: {n}: shift count out of range"), 1),
                    Ok(n) => {
                        let n = usize::try_from(n).unwrap_or(usize::MAX);
                        if n > state.positional.len() {
                            if state.opts.posix {
                                said.err(&format!("shift: {n}: shift count out of range"), 1);
                            }
                            said.status = 1;
                        } else {
                            let rest = state.positional.get(n..).unwrap_or_default().to_vec();
                            state.positional = Arc::new(rest);
                        }
                    }
                }
            }
            Builtin::Set => Self::set(state, &args, &mut said),
            Builtin::Shopt => Self::shopt(state, &args, &mut said),
            Builtin::Let => {
                if args.is_empty() {
                    said.err("let: expression expected", 1);
                } else {
                    let mut last = 0;
                    for a in &args {
                        let value = super::host::arith_command(state, a, "let");
                        self.flush_warnings(state, line, streams);
                        match value {
                            Ok(v) => last = v,
                            Err(e) => {
                                let status = self.expansion_failed(state, &e, (line, io), streams);
                                state.set_status(status);
                                return Flow::Normal;
                            }
                        }
                    }
                    said.status = i32::from(last == 0);
                }
            }
            Builtin::Eval => {
                let text = args.join(" ");
                if text.trim().is_empty() {
                    said.status = 0;
                } else {
                    return self.run_text(
                        state,
                        text.as_bytes(),
                        "eval",
                        line,
                        io,
                        cx,
                        streams,
                        Mode::Eval,
                    );
                }
            }
            Builtin::Source => {
                let Some(file) = args.first() else {
                    said.err(".: filename argument required", 2);
                    said.err
                        .extend_from_slice(b".: usage: . filename [arguments]\n");
                    return self.finish(state, &said, io, line, streams);
                };
                let path = state.resolve(&OsString::from(file));
                match self.rt.sandbox.read(&path) {
                    Ok(text) => {
                        let saved = (args.len() > 1).then(|| {
                            std::mem::replace(
                                &mut state.positional,
                                Arc::new(args.get(1..).unwrap_or_default().to_vec()),
                            )
                        });
                        let name = state.script_name.replace(Arc::from(file.as_str()));
                        state.source_files.push(Arc::from(file.as_str()));
                        state.source_lines.push(line);
                        state.sourcing += 1;
                        let flow =
                            self.run_text(state, &text, file, line, io, cx, streams, Mode::Source);
                        state.sourcing -= 1;
                        state.source_files.pop();
                        state.source_lines.pop();
                        state.script_name = name;
                        if let Some(p) = saved {
                            state.positional = p;
                        }
                        return match flow {
                            Flow::Return => Flow::Normal,
                            f => f,
                        };
                    }
                    Err(e) => {
                        said.err(&format!("{file}: {}", e.strerror()), 1);
                        if state.opts.posix {
                            // POSIX mode: a file `.` cannot read ends the shell.
                            let done = self.finish(state, &said, io, line, streams);
                            self.fatal(state, 1);
                            return done;
                        }
                    }
                }
            }
            Builtin::Shell => return self.child_shell(state, &args, false, io, line, streams),
            Builtin::Sh => return self.child_shell(state, &args, true, io, line, streams),
            Builtin::ExportFunctions => export_functions(state, &args, &mut said),
            Builtin::Trap => trap(state, &args, &mut said),
            Builtin::Getopts => getopts(state, &args, &mut said),
            Builtin::Alias => alias(state, &args, &mut said),
            Builtin::Unalias => unalias(state, &args, &mut said),
            Builtin::Hash => {
                // Nothing is ever looked up in PATH: the table stays empty.
                if args.is_empty() {
                    said.err_raw.extend_from_slice(b"hash: hash table empty\n");
                } else {
                    for a in args.iter().filter(|a| !a.starts_with('-')) {
                        if self.lookup(state, &OsString::from(a)).is_none() {
                            said.err(&format!("hash: {a}: not found"), 1);
                        }
                    }
                }
            }
            Builtin::Umask => umask(state, &args, &mut said),
            Builtin::Compgen => {
                let a = super::complete::compgen(
                    state,
                    &self.rt.sandbox,
                    (&self.rt.config.identity, &self.rt.denied),
                    &args,
                );
                said.out = a.out;
                said.status = a.status;
                if let Some(e) = a.err {
                    said.err(&e, a.status);
                    if a.usage {
                        said.err_raw
                            .extend_from_slice(super::complete::Answer::usage_text().as_bytes());
                    }
                }
            }
            Builtin::Times => {
                said.out
                    .extend_from_slice(b"0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n");
            }
            Builtin::Caller => caller(state, &args, &mut said),
            Builtin::Dirs | Builtin::Pushd | Builtin::Popd => {
                self.dir_stack(state, b, &args, &mut said);
            }
            Builtin::Command | Builtin::Direct => {
                return self.command_builtin(state, b, &args, io, cx, line, streams);
            }
            Builtin::Exec => {
                if !args.is_empty() {
                    let words: Vec<OsString> = args.iter().map(OsString::from).collect();
                    let flow = self.run_words(state, &words, io, cx, line, streams, false);
                    state.exit = Some(state.last_status);
                    return flow;
                }
                // `exec >f 3<g`: the redirections stay, for the rest of this shell.
                state.pending_exec = Some(io.clone());
            }
        }
        let flow2 = self.finish(state, &said, io, line, streams);
        if flow == Flow::Normal { flow2 } else { flow }
    }

    /// `dirs`, `pushd`, `popd`: the directory stack (its top is the cwd).
    fn dir_stack(&self, state: &mut ShellState, b: Builtin, args: &[String], said: &mut Said) {
        let home = state.vars.get("HOME").unwrap_or_default().to_string();
        let shown = |p: &std::path::Path| {
            let t = p.to_string_lossy().into_owned();
            match t.strip_prefix(&home) {
                Some(rest) if !home.is_empty() && (rest.is_empty() || rest.starts_with('/')) => {
                    format!("~{rest}")
                }
                _ => t,
            }
        };
        let print = |state: &ShellState, said: &mut Said, verbose: bool| {
            let mut all = vec![state.cwd.clone()];
            all.extend(state.dir_stack.iter().rev().cloned());
            if verbose {
                for (i, d) in all.iter().enumerate() {
                    said.out
                        .extend_from_slice(format!("{i:2}  {}\n", shown(d)).as_bytes());
                }
            } else {
                let line: Vec<String> = all.iter().map(|d| shown(d)).collect();
                said.out.extend_from_slice(line.join(" ").as_bytes());
                said.out.push(b'\n');
            }
        };
        match b {
            Builtin::Dirs => {
                if args.iter().any(|a| a == "-c") {
                    state.dir_stack.clear();
                } else {
                    print(state, said, args.iter().any(|a| a == "-v"));
                }
            }
            Builtin::Pushd => {
                let target = match args.first() {
                    Some(d) => state.resolve(&OsString::from(d)),
                    None => {
                        if let Some(d) = state.dir_stack.pop() {
                            d
                        } else {
                            said.err("pushd: no other directory", 1);
                            return;
                        }
                    }
                };
                let target = trumansh_commands::normalize_lexical(&target);
                match FsView::stat(&self.rt.sandbox, &target, true) {
                    Ok(m) if m.is_dir() => {
                        let old = std::mem::replace(&mut state.cwd, target);
                        state.dir_stack.push(old.clone());
                        set_pwd(state, &old);
                        print(state, said, false);
                    }
                    Ok(_) => said.err(
                        &format!(
                            "pushd: {}: Not a directory",
                            args.first().map_or("", String::as_str)
                        ),
                        1,
                    ),
                    Err(e) => said.err(
                        &format!(
                            "pushd: {}: {}",
                            args.first().map_or("", String::as_str),
                            e.strerror()
                        ),
                        1,
                    ),
                }
            }
            _ => match state.dir_stack.pop() {
                Some(d) => {
                    let old = std::mem::replace(&mut state.cwd, d);
                    set_pwd(state, &old);
                    print(state, said, false);
                }
                None => said.err("popd: directory stack empty", 1),
            },
        }
    }

    /// Prints what a builtin said; sets its status.
    fn finish(
        &self,
        state: &mut ShellState,
        said: &Said,
        io: &Io,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Flow {
        let rt = self.rt;
        let emitter = Emitter::new(
            &rt.sandbox,
            &rt.journal,
            self.prefix(state, line),
            io.out.clone(),
            io.err.clone(),
            streams,
        );
        if !said.out.is_empty() {
            emitter.write(&io.out, &said.out);
        }
        for l in said.err.split_inclusive(|&b| b == b'\n') {
            // A builtin's usage line has no shell prefix (bash's `builtin_usage`).
            if l.windows(9).any(|w| w == b": usage: ") {
                emitter.write(&io.err, l);
            } else {
                emitter.shell_err(l);
            }
        }
        if !said.err_raw.is_empty() {
            emitter.write(&io.err, &said.err_raw);
        }
        for l in said.err_arg0.split_inclusive(|&b| b == b'\n') {
            let mut text = format!("{}: ", state.arg0).into_bytes();
            text.extend_from_slice(l);
            emitter.write(&io.err, &text);
        }
        state.set_status(said.status);
        Flow::Normal
    }

    /// `local`, `declare`, `typeset`, `readonly`.
    fn declare(state: &mut ShellState, name: &str, args: &[String], local: bool, said: &mut Said) {
        let mut on = Attrs::default();
        let mut off = Attrs::default();
        let mut print = false;
        let mut global = false;
        let mut functions = false;
        let mut names_only = false;
        let mut operands = Vec::new();
        let mut opts_done = false;
        if name == "readonly" {
            on.readonly = true;
        }
        for a in args {
            if !opts_done && (a.starts_with('-') || a.starts_with('+')) && a.len() > 1 {
                if a == "--" {
                    opts_done = true;
                    continue;
                }
                let set = if a.starts_with('-') {
                    &mut on
                } else {
                    &mut off
                };
                for c in a.bytes().skip(1) {
                    match c {
                        b'x' => set.export = true,
                        b'r' => set.readonly = true,
                        b'a' => set.indexed = true,
                        b'A' => set.assoc = true,
                        b'p' => print = true,
                        b'g' => global = true,
                        b'f' => functions = true,
                        b'F' => {
                            functions = true;
                            names_only = true;
                        }
                        b'i' => set.integer = true,
                        b'l' => set.lower = true,
                        b'u' => set.upper = true,
                        b'n' => set.nameref = true,
                        b't' | b'I' => {}
                        _ => {
                            said.err(&format!("{name}: -{}: invalid option", char::from(c)), 2);
                            let usage = match name {
                                "local" => "local: usage: local [option] name[=value] ...",
                                "readonly" => {
                                    "readonly: usage: readonly [-aAf] [name[=value] ...] or readonly -p"
                                }
                                "typeset" => {
                                    "typeset: usage: typeset [-aAfFgiIlnrtux] name[=value] ... or typeset -p [-aAfFilnrtux] [name ...]"
                                }
                                _ => {
                                    "declare: usage: declare [-aAfFgiIlnrtux] [name[=value] ...] or declare -p [-aAfFilnrtux] [name ...]"
                                }
                            };
                            said.err.extend_from_slice(usage.as_bytes());
                            said.err.push(b'\n');
                            return;
                        }
                    }
                }
                continue;
            }
            opts_done = true;
            operands.push(a.clone());
        }
        let arrays = std::mem::take(&mut state.decl_arrays);
        if functions {
            if !operands.is_empty() && (on.export || off.export) {
                // `declare -fx f` exports a function; `declare +fx f` leaves it as it is
                // (bash).
                for n in &operands {
                    let known = if on.export {
                        state.export_function(n, true)
                    } else {
                        state.functions.contains_key(n)
                    };
                    if !known {
                        said.status = 1;
                    }
                }
                return;
            }
            said.status = print_functions(
                state,
                &operands,
                names_only,
                print,
                on.export,
                &mut said.out,
            );
            return;
        }
        if print || (operands.is_empty() && name != "local") {
            let listing_all = operands.is_empty();
            let names: Vec<String> = if listing_all {
                state
                    .vars
                    .iter()
                    .filter(|(_, v)| name != "readonly" || v.readonly)
                    .map(|(n, _)| n.to_string())
                    .collect()
            } else {
                operands.clone()
            };
            for n in names {
                match state.vars.var(&n) {
                    Some(v) => said.out.extend_from_slice(declare_line(&n, v).as_bytes()),
                    None => said.err(&format!("{name}: {n}: not found"), 1),
                }
            }
            return;
        }
        for op in operands {
            let (var, value, append) = match op.find('=') {
                Some(i) => {
                    let (n, v) = op.split_at(i);
                    let v = v.get(1..).unwrap_or_default().to_string();
                    match n.strip_suffix('+') {
                        Some(n) => (n.to_string(), Some(v), true),
                        None => (n.to_string(), Some(v), false),
                    }
                }
                None => (op.clone(), None, false),
            };
            if !is_name(&var) {
                said.err(&format!("{name}: `{op}': not a valid identifier"), 1);
                continue;
            }
            let readonly = state.vars.var(&var).is_some_and(|v| v.readonly);
            if readonly && local && !global {
                // A readonly variable cannot be shadowed by a local.
                said.err(&format!("{name}: {var}: readonly variable"), 1);
                continue;
            }
            let fresh = local && !global && state.make_local(&var);
            // A new local starts unset (with no value given); elsewhere a declared name keeps
            // its value.
            let pending_array = arrays.iter().any(|(n, ..)| n == &var);
            if value.is_none() && !pending_array && (fresh || state.vars.var(&var).is_none()) {
                state.vars.declare(&var);
            } else if fresh {
                state.vars.put(&var, None);
            }
            if on.nameref {
                // `declare -n ref=var`: the value is the name referred to, kept as it is.
                if let Some(v) = &value {
                    if !v.is_empty() && !is_name(v) {
                        said.err(
                            &format!("{name}: `{v}': invalid variable name for name reference"),
                            1,
                        );
                        continue;
                    }
                    if v == &var {
                        said.err(
                            &format!("{name}: {var}: nameref variable self references not allowed"),
                            1,
                        );
                        continue;
                    }
                }
                let entry = state.vars.entry(&var);
                entry.nameref = true;
                if let Some(v) = value.clone() {
                    entry.value = Some(v);
                }
                continue;
            }
            // The attributes come first: they shape the value assigned with them.
            if on.integer || on.lower || on.upper || off.integer || off.lower || off.upper {
                let v = state.vars.entry(&var);
                if on.integer {
                    v.integer = true;
                }
                if off.integer {
                    v.integer = false;
                }
                if on.upper {
                    v.case = Some(true);
                } else if on.lower {
                    v.case = Some(false);
                }
                if off.lower || off.upper {
                    v.case = None;
                }
            }
            if state.vars.var(&var).is_some_and(|v| v.readonly)
                && (value.is_some() || arrays.iter().any(|(n, ..)| n == &var))
            {
                // `readonly X=...` names no builtin; `declare`, `typeset`, `local` do.
                if name == "readonly" {
                    said.err(&format!("{var}: readonly variable"), 1);
                } else {
                    said.err(&format!("{name}: {var}: readonly variable"), 1);
                }
                continue;
            }
            let pending = arrays.iter().find(|(n, ..)| n == &var);
            let result = match (pending, value) {
                (Some((_, items, app)), _) => {
                    super::host::assign_array(state, &var, items.clone(), *app, on.assoc)
                }
                (None, Some(text)) => {
                    let v: String = if append {
                        let mut old = state.vars.get(&var).unwrap_or_default().to_string();
                        old.push_str(&text);
                        old
                    } else {
                        text
                    };
                    if on.indexed || on.assoc {
                        super::host::assign_array(
                            state,
                            &var,
                            vec![(on.assoc.then(|| "0".to_string()), v)],
                            false,
                            on.assoc,
                        )
                    } else {
                        super::host::assign(state, &var, v)
                    }
                }
                (None, None) => Ok(()),
            };
            if let Err(msg) = result {
                said.err(&msg, 1);
                continue;
            }
            let v = state.vars.entry(&var);
            if (on.indexed || on.assoc) && v.array.is_none() {
                v.array = Some(if on.assoc {
                    trumansh_commands::Array::Assoc(std::collections::BTreeMap::default())
                } else {
                    let mut m = std::collections::BTreeMap::new();
                    if let Some(s) = v.value.take() {
                        m.insert(0, s);
                    }
                    trumansh_commands::Array::Indexed(m)
                });
            }
            if on.export {
                v.exported = true;
            }
            if off.export {
                v.exported = false;
            }
            if on.readonly {
                v.readonly = true;
            }
        }
    }

    /// `set`: options, positional parameters, the listing.
    fn set(state: &mut ShellState, args: &[String], said: &mut Said) {
        if args.is_empty() {
            for (n, v) in state.vars.iter() {
                if let Some(val) = &v.value {
                    let q = trumansh_commands::quote_if_needed(val);
                    said.out.extend_from_slice(format!("{n}={q}\n").as_bytes());
                }
            }
            // Then every function, as `declare -f` prints it (not in POSIX mode).
            for def in state.functions.values().filter(|_| !state.opts.posix) {
                said.out
                    .extend_from_slice(&crate::shell::print::function_text(def));
                said.out.push(b'\n');
            }
            return;
        }
        let mut i = 0;
        while let Some(a) = args.get(i) {
            let bytes = a.as_bytes();
            match bytes.first() {
                Some(b'-' | b'+') if bytes.len() > 1 || a == "-" => {
                    let on = bytes.first() == Some(&b'-');
                    if a == "--" {
                        state.positional = Arc::new(args.get(i + 1..).unwrap_or_default().to_vec());
                        return;
                    }
                    if a == "-" {
                        state.opts.xtrace = false;
                        if args.len() > i + 1 {
                            state.positional =
                                Arc::new(args.get(i + 1..).unwrap_or_default().to_vec());
                        }
                        return;
                    }
                    for &c in bytes.get(1..).unwrap_or_default() {
                        if c == b'o' {
                            i += 1;
                            match args.get(i) {
                                Some(optname) => {
                                    if !set_option(state, optname, on) {
                                        said.err(
                                            &format!("set: {optname}: invalid option name"),
                                            2,
                                        );
                                        return;
                                    }
                                }
                                None => {
                                    for (n, v) in set_options(state) {
                                        if on {
                                            let state_text = if v { "on" } else { "off" };
                                            said.out.extend_from_slice(
                                                format!("{n:<15}\t{state_text}\n").as_bytes(),
                                            );
                                        } else {
                                            let sign = if v { '-' } else { '+' };
                                            said.out.extend_from_slice(
                                                format!("set {sign}o {n}\n").as_bytes(),
                                            );
                                        }
                                    }
                                }
                            }
                            continue;
                        }
                        if let Some(optname) = flag_option(c) {
                            set_option(state, optname, on);
                        } else {
                            let sign = if on { '-' } else { '+' };
                            said.err(&format!("set: {sign}{}: invalid option", char::from(c)), 2);
                            said.err.extend_from_slice(b"set: usage: set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]\n");
                            return;
                        }
                    }
                }
                _ => {
                    state.positional = Arc::new(args.get(i..).unwrap_or_default().to_vec());
                    return;
                }
            }
            i += 1;
        }
    }

    /// `shopt [-pqsu] [-o] [optname ...]`: sets, unsets, lists or tests the `shopt` options
    /// (the `set -o` ones with `-o`).
    fn shopt(state: &mut ShellState, args: &[String], said: &mut Said) {
        let (mut set, mut unset, mut quiet, mut print, mut o_mode) =
            (false, false, false, false, false);
        let mut names = args;
        while let Some((a, rest)) = names.split_first() {
            if a == "--" {
                names = rest;
                break;
            }
            if !a.starts_with('-') || a.len() < 2 {
                break;
            }
            for c in a.chars().skip(1) {
                match c {
                    's' => set = true,
                    'u' => unset = true,
                    'q' => quiet = true,
                    'p' => print = true,
                    'o' => o_mode = true,
                    _ => {
                        said.err(&format!("shopt: -{c}: invalid option"), 2);
                        said.err("shopt: usage: shopt [-pqsu] [-o] [optname ...]", 2);
                        return;
                    }
                }
            }
            names = rest;
        }
        if set && unset {
            said.err(
                "shopt: cannot set and unset shell options simultaneously",
                1,
            );
            return;
        }
        let unknown = if o_mode {
            "invalid option name"
        } else {
            "invalid shell option name"
        };
        if (set || unset) && !names.is_empty() {
            for n in names {
                let known = if o_mode {
                    set_option(state, n, set)
                } else {
                    set_shopt(state, n, set)
                };
                if !known {
                    said.err(&format!("shopt: {n}: {unknown}"), 1);
                }
            }
            return;
        }
        let all = if o_mode {
            set_options(state)
        } else {
            shopt_options(state)
        };
        let mut list = Vec::new();
        if names.is_empty() {
            // `-s`/`-u` alone: only the options on/off.
            list.extend(all.iter().filter(|(_, v)| !(set && !v || unset && *v)));
        } else {
            for n in names {
                match all.iter().find(|(k, _)| k == n) {
                    Some(o) => list.push(o),
                    None => said.err(&format!("shopt: {n}: {unknown}"), 1),
                }
            }
        }
        let mut any_off = false;
        for &(k, v) in list {
            any_off |= !v;
            if quiet {
                continue;
            }
            let line = match (print, o_mode) {
                (true, true) => format!("set {}o {k}\n", if v { '-' } else { '+' }),
                (true, false) => format!("shopt {} {k}\n", if v { "-s" } else { "-u" }),
                _ => format!("{k:<15}\t{}\n", if v { "on" } else { "off" }),
            };
            said.out.extend_from_slice(line.as_bytes());
        }
        if any_off && !names.is_empty() && said.status == 0 {
            said.status = 1;
        }
    }

    /// `command NAME ARGS` (no function), `command -v NAME`; `builtin NAME ARGS`.
    #[allow(clippy::too_many_arguments)]
    fn command_builtin(
        &self,
        state: &mut ShellState,
        b: Builtin,
        args: &[String],
        io: &Io,
        cx: Cx,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Flow {
        let mut said = Said::default();
        let mut rest = args;
        if b == Builtin::Command {
            let mut verbose = None;
            while let Some(a) = rest.first() {
                match a.as_str() {
                    "-v" => verbose = Some(false),
                    "-V" => verbose = Some(true),
                    "-p" => {}
                    "--" => {
                        rest = rest.get(1..).unwrap_or_default();
                        break;
                    }
                    _ => break,
                }
                rest = rest.get(1..).unwrap_or_default();
            }
            if let Some(long) = verbose {
                let mut missing = 0;
                for n in rest {
                    let kind = if let Some(v) = alias_of(state, n) {
                        let line = alias_line(n, v);
                        Some((
                            line.trim_end().to_string(),
                            format!("{n} is aliased to `{v}'"),
                        ))
                    } else if matches!(n.as_str(), "bash" | "sh") {
                        let p = format!("/usr/bin/{n}");
                        Some((p.clone(), format!("{n} is {p}")))
                    } else if let Some(def) = state.functions.get(n) {
                        let text = crate::shell::print::function_text(def);
                        Some((
                            n.clone(),
                            format!("{n} is a function\n{}", String::from_utf8_lossy(&text)),
                        ))
                    } else if Builtin::lookup(n).is_some() {
                        Some((n.clone(), format!("{n} is a shell builtin")))
                    } else if let Some(c) = n
                        .parse::<CommandName>()
                        .ok()
                        .filter(|c| !self.rt.denied.contains(c))
                    {
                        if c.is_builtin() {
                            Some((n.clone(), format!("{n} is a shell builtin")))
                        } else {
                            let p = c.program_path().unwrap_or_default();
                            Some((p.clone(), format!("{n} is {p}")))
                        }
                    } else if is_keyword(n) {
                        Some((n.clone(), format!("{n} is a shell keyword")))
                    } else {
                        None
                    };
                    if let Some((short, text)) = kind {
                        let l = if long { text } else { short };
                        said.out.extend_from_slice(l.as_bytes());
                        said.out.push(b'\n');
                    } else {
                        if long {
                            said.err(&format!("command: {n}: not found"), 1);
                        }
                        missing += 1;
                    }
                }
                // Status 1 only when none was found.
                said.status = i32::from(!rest.is_empty() && missing == rest.len());
                return self.finish(state, &said, io, line, streams);
            }
        }
        if rest.is_empty() {
            return self.finish(state, &said, io, line, streams);
        }
        if b == Builtin::Direct {
            let name = rest.first().map_or("", String::as_str);
            let is_builtin = Builtin::lookup(name).is_some()
                || name
                    .parse::<CommandName>()
                    .is_ok_and(trumansh_commands::CommandName::is_builtin);
            if !is_builtin {
                said.err(&format!("builtin: {name}: not a shell builtin"), 1);
                return self.finish(state, &said, io, line, streams);
            }
        }
        let words: Vec<OsString> = rest.iter().map(OsString::from).collect();
        self.run_words(state, &words, io, cx, line, streams, false)
    }

    /// Runs already-expanded words as a command (`command`, `builtin`, `exec`); functions
    /// only when `functions`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_words(
        &self,
        state: &mut ShellState,
        words: &[OsString],
        io: &Io,
        cx: Cx,
        line: usize,
        streams: &dyn StreamSink,
        functions: bool,
    ) -> Flow {
        use super::simple::{Prepared, Target};
        let Some(name) = words.first() else {
            return Flow::Normal;
        };
        let mut target = self.lookup(state, name);
        if !functions && matches!(target, Some(Target::Function(_))) {
            target = name.to_str().and_then(|t| {
                Builtin::lookup(t).map(Target::Builtin).or_else(|| {
                    t.parse::<CommandName>()
                        .ok()
                        .filter(|c| !self.rt.denied.contains(c))
                        .map(Target::Handler)
                })
            });
        }
        let prepared = if let Some(target) = target {
            Prepared::Run {
                target,
                args: words.get(1..).unwrap_or_default().to_vec(),
                assigns: Vec::new(),
                fds: super::redirect::Fds::new(io.clone()),
                line,
            }
        } else {
            let mut m = self.prefix(state, line);
            m.extend_from_slice(name.as_bytes());
            m.extend_from_slice(b": command not found\n");
            Prepared::NotFound {
                message: m,
                status: 127,
                err: io.err.clone(),
            }
        };
        self.run_prepared(state, prepared, cx, streams)
    }

    /// Parses and runs shell text in the current shell (`eval`, `source`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_text(
        &self,
        state: &mut ShellState,
        text: &[u8],
        what: &str,
        line: usize,
        io: &Io,
        cx: Cx,
        streams: &dyn StreamSink,
        mode: Mode,
    ) -> Flow {
        let max = self.rt.config.policy.limits.source_depth;
        if state.source_depth >= max {
            self.limit(
                state,
                streams,
                line,
                "source_depth",
                max as u64,
                "nested source, eval and shell levels",
            );
            return Flow::Normal;
        }
        let first = if mode == Mode::Eval { line } else { 1 };
        state.source_depth += 1;
        state.set_status(0);
        let (flow, error) = self.read_and_run(state, text, first, streams, |state, script| {
            self.run_list(state, script, io, cx, streams)
        });
        state.source_depth -= 1;
        let Some(e) = error else {
            return flow;
        };
        let (message, l) = match e {
            ParseError::Syntax { message, line } | ParseError::Unsupported { message, line } => {
                (message, line)
            }
            ParseError::Incomplete { message } => (message, first),
        };
        let l = if message == "syntax error: unexpected end of file" {
            first + text.split(|&b| b == b'\n').count()
        } else {
            l
        };
        let mut head = if mode == Mode::Eval {
            // `bash: eval: line N: ` (the shell's name, then eval's own line).
            let mut p = self.prefix(state, line);
            let keep = p.iter().position(|&b| b == b':').map_or(p.len(), |i| i + 2);
            p.truncate(keep);
            p.extend_from_slice(format!("eval: line {l}: ").as_bytes());
            p
        } else {
            format!("{what}: line {l}: ").into_bytes()
        };
        let mut msg = head.clone();
        msg.extend_from_slice(message.as_bytes());
        msg.push(b'\n');
        if message.starts_with("syntax error near") {
            let src = text
                .split(|&b| b == b'\n')
                .nth(l.saturating_sub(first))
                .unwrap_or_default();
            head.push(b'`');
            head.extend_from_slice(src);
            head.extend_from_slice(b"'\n");
            msg.extend_from_slice(&head);
        }
        self.write_out(&io.err, &msg, streams);
        state.set_status(2);
        Flow::Normal
    }

    /// `bash FILE ARGS`, `bash -c TEXT [ARG0 ARGS]`, `sh ...`: a child shell, in process.
    pub(super) fn child_shell(
        &self,
        state: &mut ShellState,
        args: &[String],
        posix: bool,
        io: &Io,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Flow {
        let mut said = Said::default();
        let me = if posix { "sh" } else { "bash" };
        let mut opts: Vec<(String, bool)> = Vec::new();
        let mut command = None;
        let mut i = 0;
        while let Some(a) = args.get(i) {
            if a == "--" {
                i += 1;
                break;
            }
            if a == "-c" {
                i += 1;
                if let Some(t) = args.get(i) {
                    command = Some(t.clone());
                } else {
                    said.err(&format!("{me}: -c: option requires an argument"), 2);
                    return self.finish_plain(state, &said, io, streams);
                }
                i += 1;
                break;
            }
            if a == "-o" || a == "+o" {
                if let Some(n) = args.get(i + 1) {
                    opts.push((n.clone(), a == "-o"));
                }
                i += 2;
                continue;
            }
            if (a.starts_with('-') || a.starts_with('+')) && a.len() > 1 {
                for c in a.bytes().skip(1) {
                    if let Some(n) = flag_option(c) {
                        opts.push((n.to_string(), a.starts_with('-')));
                    } else if c == b'c' {
                        command = Some(String::new());
                    }
                }
                i += 1;
                continue;
            }
            break;
        }
        let rest: Vec<String> = args.get(i..).unwrap_or_default().to_vec();
        let reads = match (&command, rest.first()) {
            (Some(t), _) if !t.is_empty() => "c",
            (_, Some(_)) => "",
            _ => "s",
        };
        let (text, zero, params, script_name) = match command {
            Some(t) if !t.is_empty() => {
                let zero = rest.first().cloned().unwrap_or_else(|| me.into());
                (
                    t.into_bytes(),
                    zero.clone(),
                    rest.get(1..).unwrap_or_default().to_vec(),
                    zero,
                )
            }
            _ => {
                if let Some(file) = rest.first() {
                    let path = state.resolve(&OsString::from(file));
                    match self.rt.sandbox.read(&path) {
                        Ok(t) => (
                            t,
                            file.clone(),
                            rest.get(1..).unwrap_or_default().to_vec(),
                            file.clone(),
                        ),
                        Err(e) => {
                            said.err(&format!("{me}: {file}: {}", e.strerror()), 127);
                            return self.finish_plain(state, &said, io, streams);
                        }
                    }
                } else {
                    // `bash` with no file reads its script from stdin.
                    let stdin = io.stdin.stdin();
                    let text = stdin.read_all().unwrap_or_default();
                    (text, me.into(), Vec::new(), me.into())
                }
            }
        };
        let mut child = state.child(zero, params, &self.rt.config.identity);
        child.script_name = Some(Arc::from(script_name.as_str()));
        if reads.is_empty() {
            child.source_files.push(Arc::from(script_name.as_str()));
        }
        child.reads = reads;
        if posix {
            set_option(&mut child, "posix", true);
        }
        for (n, on) in opts {
            set_option(&mut child, &n, on);
        }
        self.run_child(state, child, &text, line, io, streams)
    }

    /// Runs a script in a child shell; the parent gets its status.
    pub(super) fn run_child(
        &self,
        state: &mut ShellState,
        mut child: ShellState,
        text: &[u8],
        line: usize,
        io: &Io,
        streams: &dyn StreamSink,
    ) -> Flow {
        let max = self.rt.config.policy.limits.source_depth;
        if child.source_depth > max {
            self.limit(
                state,
                streams,
                line,
                "source_depth",
                max as u64,
                "nested source, eval and shell levels",
            );
            return Flow::Normal;
        }
        // A script runs one complete command at a time, as bash reads it: a syntax error
        // ends the script there, after what came before ran.
        let this = Interp {
            stage: false,
            ..*self
        };
        let (_, error) = this.read_and_run(&mut child, text, 1, streams, |child, script| {
            this.run_list(child, script, io, Cx::default(), streams)
        });
        if let Some(e) = error {
            let (message, l) = match e {
                ParseError::Syntax { message, line }
                | ParseError::Unsupported { message, line } => (message, line),
                ParseError::Incomplete { message } => (message, 1),
            };
            if child.exit.is_none() {
                // End of file is the line after the last (a last line without its newline
                // counts).
                let l = if message == "syntax error: unexpected end of file" {
                    let newlines = text.split(|&b| b == b'\n').count() - 1;
                    newlines + 1 + usize::from(!text.is_empty() && !text.ends_with(b"\n"))
                } else {
                    l
                };
                // A `-c` string's syntax errors name it: `bash: -c: line 1: `.
                let syntax = |msg: &[u8]| {
                    if child.reads == "c" {
                        let mut m = format!("{}: -c: line {l}: ", child.arg0).into_bytes();
                        m.extend_from_slice(msg);
                        if !m.ends_with(b"\n") {
                            m.push(b'\n');
                        }
                        self.write_out(&io.err, &m, streams);
                    } else {
                        self.shell_error(&child, &io.err, streams, l, msg);
                    }
                };
                syntax(message.as_bytes());
                if message.starts_with("syntax error near") {
                    let src = text
                        .split(|&b| b == b'\n')
                        .nth(l.saturating_sub(1))
                        .unwrap_or_default();
                    let mut echo = b"`".to_vec();
                    echo.extend_from_slice(src);
                    echo.push(b'\'');
                    syntax(&echo);
                }
                child.exit = Some(2);
            }
        }
        self.exit_trap(&mut child, io, streams);
        let status = child.exit.unwrap_or(child.last_status);
        state.set_status(status);
        Flow::Normal
    }

    /// Runs a trap's command (`EXIT`, `ERR`), keeping `$?`; traps do not nest.
    pub(super) fn run_trap(
        &self,
        state: &mut ShellState,
        name: &str,
        io: &Io,
        streams: &dyn StreamSink,
    ) {
        if state.in_trap {
            return;
        }
        let Some(cmd) = state.traps.get(name).cloned() else {
            return;
        };
        if cmd.is_empty() {
            return;
        }
        let status = state.last_status;
        let exit = state.exit.take();
        state.in_trap = true;
        let line = state.lineno.max(1);
        let _ = self.read_and_run(state, cmd.as_bytes(), line, streams, |state, script| {
            self.run_list(state, script, io, Cx::default(), streams)
        });
        state.in_trap = false;
        // `exit` in an EXIT trap sets the status; elsewhere `$?` is kept.
        state.exit = match (exit, state.exit) {
            (Some(_), Some(new)) => Some(new),
            (e, n) => e.or(n),
        };
        state.set_status(status);
    }

    /// The EXIT trap of a shell that ends (once).
    pub(crate) fn exit_trap(&self, state: &mut ShellState, io: &Io, streams: &dyn StreamSink) {
        if !state.proc_out.is_empty() {
            self.run_proc_outs(state, true, streams);
        }
        if state.traps.contains_key("EXIT") {
            self.run_trap(state, "EXIT", io, streams);
            std::sync::Arc::make_mut(&mut state.traps).remove("EXIT");
        }
    }

    fn finish_plain(
        &self,
        state: &mut ShellState,
        said: &Said,
        io: &Io,
        streams: &dyn StreamSink,
    ) -> Flow {
        self.write_out(&io.err, &said.err, streams);
        state.set_status(said.status);
        Flow::Normal
    }
}

/// `wait [-fn] [-p var] [id ...]`: every job has finished already (nothing runs
/// concurrently), so `wait` only answers with the status of the last ID named (0 for none).
/// As bash: `wait -n` takes a job out of the job table; a pid's status stays known until a
/// `wait` without IDs.
fn wait(state: &mut ShellState, args: &[String], said: &mut Said) -> i32 {
    let mut ids = args.iter().peekable();
    let mut var = None;
    let mut any = false;
    while let Some(a) = ids.next_if(|a| a.starts_with('-') && a.len() > 1) {
        if a == "--" {
            break;
        }
        for c in a.chars().skip(1) {
            match c {
                'n' => any = true,
                'f' => {}
                'p' => var = ids.next().cloned(),
                _ => {
                    said.err(&format!("wait: -{c}: invalid option"), 2);
                    said.err("wait: usage: wait [-fn] [-p var] [id ...]", 2);
                    return 2;
                }
            }
        }
    }
    let ids: Vec<&String> = ids.collect();
    if ids.is_empty() && !any {
        state.jobs.clear();
        return 0;
    }
    // The job table: the jobs not yet waited for by number.
    let table: Vec<usize> = (0..state.jobs.len())
        .filter(|&i| state.jobs.get(i).is_some_and(|j| j.2))
        .collect();
    let mut status = 127;
    let found = |state: &mut ShellState, at: Option<usize>, status: &mut i32| {
        if let Some(job) = at.and_then(|i| state.jobs.get_mut(i)) {
            // `wait -n` takes a job out of the table.
            job.2 &= !any;
            *status = job.1;
            if let Some(v) = &var {
                state.vars.set(v, job.0.to_string(), false);
            }
        }
    };
    if ids.is_empty() {
        // `wait -n`: the next job to finish; none left: 127.
        found(state, table.first().copied(), &mut status);
        return status;
    }
    for id in ids {
        status = 127;
        let at = if let Some(spec) = id.strip_prefix('%') {
            let at = match spec {
                "" | "%" | "+" => table.last().copied(),
                "-" => table.iter().rev().nth(1).copied(),
                n => n
                    .parse::<usize>()
                    .ok()
                    .and_then(|n| n.checked_sub(1))
                    .and_then(|i| table.get(i).copied()),
            }
            .filter(|&i| state.jobs.get(i).is_some_and(|j| j.2));
            if at.is_none() {
                said.err(&format!("wait: {id}: no such job"), 127);
            }
            at
        } else if let Ok(pid) = id.parse::<u32>() {
            let at = state.jobs.iter().rposition(|j| j.0 == pid);
            if at.is_none() {
                said.err(
                    &format!("wait: pid {pid} is not a child of this shell"),
                    127,
                );
            }
            at
        } else {
            said.err(&format!("wait: `{id}': not a pid or valid job spec"), 1);
            status = 1;
            continue;
        };
        found(state, at, &mut status);
    }
    status
}

/// How shell text runs in the current shell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Eval,
    Source,
}

#[cfg(test)]
mod tests {
    use super::Builtin;

    #[test]
    fn the_commands_crate_knows_the_interpreters_builtins() {
        for name in trumansh_commands::SHELL_BUILTINS {
            assert!(Builtin::lookup(name).is_some(), "{name}");
        }
        let mut sorted = trumansh_commands::SHELL_BUILTINS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, trumansh_commands::SHELL_BUILTINS);
    }
}
