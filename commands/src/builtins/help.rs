//! `help [-dms] [pattern ...]`, bash's builtin: trumansh's own short texts (generated from
//! each builtin's argument definition), never bash's.

use std::ffi::OsString;
use std::fmt::Write as _;

use crate::Stop;
use crate::support::args::{builtin_help_of, parse_builtin};
use crate::{CommandName, Ctx, Outcome};

pub const USAGE: &str = "help [-dms] [pattern ...]";

/// Display information about builtin commands.
///
/// Shows a summary of the builtin commands matching PATTERN (a prefix or a glob); with no
/// PATTERN, lists every builtin and command trumansh provides.
#[derive(clap::Parser, Debug)]
pub struct HelpArgs {
    /// output a short description of each topic
    #[arg(short = 'd')]
    description: bool,
    /// display usage in a pseudo-manpage format
    #[arg(short = 'm')]
    manpage: bool,
    /// output only a short usage synopsis for each topic
    #[arg(short = 's')]
    synopsis: bool,
    patterns: Vec<OsString>,
}

pub fn help() -> String {
    builtin_help_of::<HelpArgs>("help", USAGE)
}

/// The builtins with help topics (from the command table, in name order): name, usage, full
/// text.
fn topics() -> Vec<(&'static str, &'static str, String)> {
    let mut all: Vec<_> = CommandName::ALL
        .iter()
        .filter_map(|c| c.help_topic().map(|t| (c.as_str(), t.usage, (t.help)())))
        .chain(
            SHELL_TOPICS
                .iter()
                .map(|&(n, u, s, b)| (n, u, shell_text(n, u, s, b))),
        )
        .collect();
    all.sort_by_key(|t| t.0);
    all
}

/// The topics of what the interpreter runs itself (its builtins and compound commands): name,
/// usage (bash's synopsis), summary, and trumansh's own description.
const SHELL_TOPICS: &[(&str, &str, &str, &str)] = &[
    (
        ".",
        ". filename [arguments]",
        "Execute commands from a file in the current shell.",
        "Reads and runs FILENAME in the current shell; ARGUMENTS become the positional parameters while it runs. The status is the last command's.",
    ),
    (":", ":", "Null command.", "Does nothing; the status is 0."),
    (
        "alias",
        "alias [-p] [name[=value] ... ]",
        "Define or display aliases.",
        "Defines NAME as an alias for VALUE, or prints the aliases named (all with -p or no NAME). Aliases are expanded only with `shopt -s expand_aliases', as in a non-interactive bash.",
    ),
    (
        "break",
        "break [n]",
        "Exit for, while, or until loops.",
        "Leaves the innermost loop, or N enclosing loops.",
    ),
    (
        "builtin",
        "builtin [shell-builtin [arg ...]]",
        "Execute shell builtins.",
        "Runs the builtin SHELL-BUILTIN with ARGs, even where a function of that name exists.",
    ),
    (
        "caller",
        "caller [expr]",
        "Return the context of the current subroutine call.",
        "Without EXPR, prints the line and file the running function was called from; with EXPR, the line, function and file of the call EXPR levels up the stack. Status 1 when there is no such call.",
    ),
    (
        "case",
        "case WORD in [PATTERN [| PATTERN]...) COMMANDS ;;]... esac",
        "Execute commands based on pattern matching.",
        "Runs the COMMANDS of the first PATTERN that matches WORD; `;&' goes on into the next arm, `;;&' tests the next patterns.",
    ),
    (
        "command",
        "command [-pVv] command [arg ...]",
        "Execute a simple command or display information about commands.",
        "Runs COMMAND with ARGs, skipping functions; with -v or -V, tells what COMMAND is instead.",
    ),
    (
        "continue",
        "continue [n]",
        "Resume for, while, or until loops.",
        "Goes on with the next iteration of the innermost loop, or of the N-th enclosing loop.",
    ),
    (
        "declare",
        "declare [-aAfFgiIlnrtux] [name[=value] ...] or declare -p [-aAfFilnrtux] [name ...]",
        "Set variable values and attributes.",
        "Declares variables and gives them attributes: -a indexed array, -A associative array, -i integer, -l and -u lower and upper case, -n name reference, -r read-only, -x exported, -g global inside a function. -p prints variables as declarations; -f and -F print functions.",
    ),
    (
        "dirs",
        "dirs [-clpv] [+N] [-N]",
        "Display directory stack.",
        "Prints the directory stack kept by pushd and popd; -c clears it, -v numbers it, -l shows full paths.",
    ),
    (
        "eval",
        "eval [arg ...]",
        "Execute arguments as a shell command.",
        "Joins the ARGs with spaces and runs the result as shell input in the current shell.",
    ),
    (
        "exec",
        "exec [-cl] [-a name] [command [argument ...]] [redirection ...]",
        "Replace the shell with the given command.",
        "With only redirections, applies them to the current shell for the commands that follow. trumansh replaces nothing: with a COMMAND, it runs it and the shell ends with its status.",
    ),
    (
        "for",
        "for NAME [in WORDS ... ] ; do COMMANDS; done",
        "Execute commands for each member in a list.",
        "Runs COMMANDS once for each word of WORDS (the positional parameters without `in'), with NAME set to it. The arithmetic form is `for (( exp1; exp2; exp3 ))'.",
    ),
    (
        "function",
        "function name { COMMANDS ; } or name () { COMMANDS ; }",
        "Define shell function.",
        "Defines NAME as a function; its arguments are the positional parameters while it runs, and `local' and `return' work inside it.",
    ),
    (
        "getopts",
        "getopts optstring name [arg ...]",
        "Parse option arguments.",
        "Reads the next option of the positional parameters (or ARGs) into NAME, as described by OPTSTRING; OPTARG and OPTIND follow it.",
    ),
    (
        "hash",
        "hash [-lr] [-p pathname] [-dt] [name ...]",
        "Remember or display program locations.",
        "Remembers where each NAME is found, or lists what is remembered; -r forgets everything.",
    ),
    (
        "if",
        "if COMMANDS; then COMMANDS; [ elif COMMANDS; then COMMANDS; ]... [ else COMMANDS; ] fi",
        "Execute commands based on conditional.",
        "Runs the branch of the first condition whose status is 0, or the `else' branch.",
    ),
    (
        "let",
        "let arg [arg ...]",
        "Evaluate arithmetic expressions.",
        "Evaluates each ARG as an arithmetic expression; the status is 1 when the last one is 0, else 0.",
    ),
    (
        "compgen",
        "compgen [-abcdefgjksuv] [-o option] [-A action] [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [word]",
        "Display possible completions depending on the options.",
        "Prints the words that complete WORD: -a aliases, -b builtins, -c commands (aliases, reserved words, functions, builtins and the programs trumansh emulates), -d directories, -f files, -k reserved words, -v variables, -e exported variables, -A ACTION, -W WORDLIST, -G GLOBPAT; -X drops the matches of FILTERPAT (keeps them with a leading `!'), -P and -S add a prefix and suffix. -F and -C generate nothing outside programmable completion. The status is 1 when nothing matches.",
    ),
    (
        "local",
        "local [option] name[=value] ...",
        "Define local variables.",
        "Creates variables visible only in the function and what it calls; takes the options of `declare'.",
    ),
    (
        "popd",
        "popd [-n] [+N | -N]",
        "Remove directories from stack.",
        "Removes the top directory of the stack (or entry N) and changes to the new top.",
    ),
    (
        "pushd",
        "pushd [-n] [+N | -N | dir]",
        "Add directories to stack.",
        "Puts DIR on the directory stack and changes to it, or rotates the stack.",
    ),
    (
        "readonly",
        "readonly [-aAf] [name[=value] ...] or readonly -p",
        "Mark shell variables as unchangeable.",
        "Makes each NAME read-only; -p lists the read-only variables.",
    ),
    (
        "return",
        "return [n]",
        "Return from a shell function.",
        "Ends a function (or a sourced file) with status N, or the last command's status.",
    ),
    (
        "set",
        "set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]",
        "Set or unset values of shell options and positional parameters.",
        "Turns options on with -, off with +: -e errexit, -u nounset, -x xtrace, -f noglob, -C noclobber, -a allexport, -o pipefail. ARGs become the positional parameters. Without arguments, prints the variables and functions.",
    ),
    (
        "shift",
        "shift [n]",
        "Shift positional parameters.",
        "Drops the first N positional parameters (1 by default).",
    ),
    (
        "shopt",
        "shopt [-pqsu] [-o] [optname ...]",
        "Set and unset shell options.",
        "Turns shell options on (-s) or off (-u), or prints them; -q only sets the status. Among them: nullglob, failglob, dotglob, globstar, extglob, nocasematch, lastpipe, expand_aliases.",
    ),
    (
        "source",
        "source filename [arguments]",
        "Execute commands from a file in the current shell.",
        "Reads and runs FILENAME in the current shell; ARGUMENTS become the positional parameters while it runs.",
    ),
    (
        "times",
        "times",
        "Display process times.",
        "Prints the user and system times used by the shell and by its children.",
    ),
    (
        "trap",
        "trap [-lp] [[arg] signal_spec ...]",
        "Trap signals and other events.",
        "Runs ARG when the shell exits (EXIT) or a command fails (ERR); -p prints the traps, -l lists the signal names.",
    ),
    (
        "typeset",
        "typeset [-aAfFgiIlnrtux] name[=value] ... or typeset -p [-aAfFilnrtux] [name ...]",
        "Set variable values and attributes.",
        "A synonym of `declare'.",
    ),
    (
        "umask",
        "umask [-p] [-S] [mode]",
        "Display or set file mode mask.",
        "Sets the mask of the permissions new files do not get, or prints it (-S symbolically).",
    ),
    (
        "unalias",
        "unalias [-a] name [name ...]",
        "Remove each NAME from the list of defined aliases.",
        "Removes the aliases named, or all of them with -a.",
    ),
    (
        "until",
        "until COMMANDS; do COMMANDS-2; done",
        "Execute commands as long as a test does not succeed.",
        "Runs COMMANDS-2 as long as COMMANDS has a non-zero status.",
    ),
    (
        "wait",
        "wait [-fn] [-p var] [id ...]",
        "Wait for job completion and return exit status.",
        "Returns the status of the job ID. In trumansh a job started with `&' has already finished when the next command runs.",
    ),
    (
        "while",
        "while COMMANDS; do COMMANDS-2; done",
        "Execute commands as long as a test succeeds.",
        "Runs COMMANDS-2 as long as COMMANDS has status 0.",
    ),
    (
        "(( ... ))",
        "(( expression ))",
        "Evaluate arithmetic expression.",
        "Evaluates EXPRESSION; the status is 0 when it is not 0.",
    ),
    (
        "[[ ... ]]",
        "[[ expression ]]",
        "Execute conditional command.",
        "Tests EXPRESSION, made of the operators of `test' with && || ! ( ), `==' and `!=' matching a pattern, and `=~' matching an extended regular expression (groups in BASH_REMATCH).",
    ),
    (
        "{ ... }",
        "{ COMMANDS ; }",
        "Group commands as a unit.",
        "Runs COMMANDS in the current shell, as one command (one redirection for all).",
    ),
];

/// The full text of a shell topic, shaped as the handlers' texts.
fn shell_text(name: &str, usage: &str, summary: &str, body: &str) -> String {
    format!("{name}: {usage}\n    {summary}\n    \n    {body}\n")
}

/// A minimal glob (`*`, `?`), enough for help patterns.
fn glob(p: &[u8], s: &[u8]) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some((b'*', rest)) => (0..=s.len()).any(|i| glob(rest, &s[i..])),
        Some((b'?', rest)) => !s.is_empty() && glob(rest, &s[1..]),
        Some((c, rest)) => s.first() == Some(c) && glob(rest, &s[1..]),
    }
}

fn overview(denied: &[CommandName]) -> String {
    let mut s = String::from(concat!(
        "trumansh ",
        env!("CARGO_PKG_VERSION"),
        ", an emulated bash.\n"
    ));
    s.push_str("Type `help name' to find out more about the builtin `name'.\n");
    s.push_str("Use `COMMAND --help' for the options of the other commands.\n\n");
    let names = |builtin: bool| {
        CommandName::ALL
            .iter()
            .filter(|c| c.is_builtin() == builtin && !denied.contains(c))
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let shell: Vec<&str> = SHELL_TOPICS
        .iter()
        .map(|t| t.0)
        .filter(|n| n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '.' || c == ':'))
        .filter(|n| !matches!(*n, "case" | "for" | "function" | "if" | "until" | "while"))
        .collect();
    let _ = writeln!(s, "Builtins: {}", names(true));
    let _ = writeln!(s, "Shell builtins: {}", shell.join(" "));
    let _ = writeln!(s, "Commands: {}\n", names(false));
    s.push_str(
        "The bash language works as in bash 5.2: pipes, redirections, quoting, expansions,\n\
         `if', `case', loops, functions, `$(...)', arithmetic, `[[ ]]', arrays and scripts.\n\
         Nothing is spawned: a job started with `&' runs to its end first.\n",
    );
    s
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_builtin::<HelpArgs>(args)?;
    let mut o = Outcome::ok();
    if a.patterns.is_empty() {
        o.out(overview(ctx.denied));
        return Ok(o);
    }
    let topics: Vec<_> = topics()
        .into_iter()
        .filter(|(name, _, _)| {
            name.parse::<CommandName>()
                .map_or(true, |c| ctx.available(c))
        })
        .collect();
    let mut status = 0;
    for pat in &a.patterns {
        let pat = pat.to_string_lossy();
        // bash's `glob_pattern_p`: `*`, `?`, or a `[` with a `]` after it.
        let is_glob = pat.contains(['*', '?'])
            || pat
                .find('[')
                .is_some_and(|i| pat.get(i + 1..).is_some_and(|r| r.contains(']')));
        if is_glob {
            o.out(format!("Shell commands matching keyword `{pat}'\n\n"));
        }
        // bash looks for exact (or glob) matches first, and for prefixes only when there is
        // none: `help read` is not `help readarray`.
        let mut hits: Vec<_> = topics
            .iter()
            .filter(|(name, _, _)| {
                *name == pat.as_ref() || (is_glob && glob(pat.as_bytes(), name.as_bytes()))
            })
            .collect();
        if hits.is_empty() && !is_glob {
            hits = topics
                .iter()
                .filter(|(name, _, _)| name.starts_with(pat.as_ref()))
                .collect();
        }
        if hits.is_empty() {
            o.shell_err(format!(
                "{}: no help topics match `{pat}'.  Try `help help' or `man -k {pat}' or `info {pat}'.\n",
                ctx.name,
            ));
            status = 1;
            continue;
        }
        for (name, usage, text) in hits {
            let summary = text
                .lines()
                .nth(1)
                .map(str::trim)
                .unwrap_or_default()
                .to_string();
            if a.synopsis {
                o.out(format!("{name}: {usage}\n"));
            } else if a.description {
                o.out(format!("{name} - {summary}\n"));
            } else if a.manpage {
                o.out(format!(
                    "NAME\n    {name} - {summary}\n\nSYNOPSIS\n    {usage}\n\nDESCRIPTION\n"
                ));
                for line in text.lines().skip(1) {
                    o.out(format!("{line}\n"));
                }
                o.out("\n");
            } else {
                o.out(text);
            }
        }
    }
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {

    use crate::testing::world::{World, text};

    fn help(args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(crate::CommandName::Help, args))
    }

    #[test]
    fn overview_lists_every_command() {
        let (out, _, status) = help(&[]);
        assert_eq!(status, 0);
        for c in crate::CommandName::ALL {
            assert!(out.contains(c.as_str()), "{c}");
        }
        assert!(out.contains("Shell builtins: . : alias break builtin caller command"));
    }

    #[test]
    fn topics() {
        let (out, _, status) = help(&["cd"]);
        assert!(out.starts_with(
            "cd: cd [-L|[-P [-e]] [-@]] [dir]\n    Change the shell working directory.\n"
        ));
        assert!(out.contains("      -P\t"));
        assert_eq!(status, 0);
        // `help -s` / `help -d` lines have bash's shape.
        assert_eq!(
            help(&["-s", "cd", "echo"]).0,
            "cd: cd [-L|[-P [-e]] [-@]] [dir]\necho: echo [-neE] [arg ...]\n"
        );
        assert_eq!(
            help(&["-d", "cd"]).0,
            "cd - Change the shell working directory.\n"
        );
        assert_eq!(
            help(&["-s", "e"]).0,
            "echo: echo [-neE] [arg ...]\neval: eval [arg ...]\nexec: exec [-cl] [-a name] [command [argument ...]] [redirection ...]\nexit: exit [n]\nexport: export [-fn] [name[=value] ...] or export -p\n"
        );
        // The interpreter's builtins and compound commands have topics too.
        assert_eq!(
            help(&["-s", "eval", "[["]).0,
            "eval: eval [arg ...]\n[[ ... ]]: [[ expression ]]\n"
        );
        assert_eq!(
            help(&["-d", "while"]).0,
            "while - Execute commands as long as a test succeeds.\n"
        );
        assert!(
            help(&["shift"])
                .0
                .starts_with("shift: shift [n]\n    Shift positional")
        );
        // An exact name wins over the prefix matches (bash 5.2: `help -s read`).
        assert_eq!(
            help(&["-s", "read"]).0,
            format!("read: {}\n", crate::builtins::read::USAGE)
        );
        assert_eq!(
            help(&["-s", "rea"]).0,
            format!(
                "read: {}\nreadarray: {}\nreadonly: readonly [-aAf] [name[=value] ...] or readonly -p\n",
                crate::builtins::read::USAGE,
                crate::builtins::readarray::USAGE
            )
        );
    }

    #[test]
    fn unknown_topic_as_bash() {
        assert_eq!(
            help(&["foo"]),
            (
                String::new(),
                "help: no help topics match `foo'.  Try `help help' or `man -k foo' or `info foo'.\n".into(),
                1
            )
        );
        assert_eq!(
            help(&["zz*"]),
            (
                "Shell commands matching keyword `zz*'\n\n".into(),
                "help: no help topics match `zz*'.  Try `help help' or `man -k zz*' or `info zz*'.\n".into(),
                1
            )
        );
        assert_eq!(
            help(&["-x"]).1,
            "help: -x: invalid option\nhelp: usage: help [-dms] [pattern ...]\n"
        );
    }
}
