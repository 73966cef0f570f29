//! The `trumansh` binary: parses the command line and starts a front end, or runs one of the
//! owner's subcommands (`trash`, `log`) on the host.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand};
use trumansh::frontend::{self, OnSyntaxError};
use trumansh::owner::{self, LogOptions, OwnerError, RestoreOptions};
use trumansh::policy::{self, Policy};
use trumansh::sandbox::{Sandbox, SandboxConfig, normalize_lexically};
use trumansh::{Config, ErrorMode, Session};
use trumansh_commands::CommandName;

/// An emulated bash for AI agents: every command runs in-process against one sandbox
/// directory, nothing is spawned, nothing outside the directory exists, and rm only moves to
/// a trash.
///
/// The owner's subcommands (`trash`, `log`) run on the host and are not visible to the agent.
/// A script file literally named `trash` or `log` must be given as `./trash`.
#[derive(Debug, Parser)]
#[command(name = "trumansh", version)]
struct Cli {
    /// The sandbox directory (default: the current directory).
    #[arg(long, value_name = "DIR", default_value = ".", global = true)]
    root: PathBuf,
    /// The path the agent sees the root at (default: the root's real absolute path; `/` gives
    /// a fully virtual view).
    #[arg(long, value_name = "PATH")]
    mount_point: Option<PathBuf>,
    /// Where trash, journal, history and the audit log are kept (default: `.trash/` in the
    /// root, invisible to the agent).
    #[arg(long, value_name = "DIR", global = true)]
    state_dir: Option<PathBuf>,
    /// The owner's policy file (TOML): hidden and read-only paths, denied commands, undo,
    /// atomic lines, limits.
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// Roll back every line that fails (also `atomic = true` in the policy file).
    #[arg(long)]
    atomic: bool,
    /// Print a paragraph describing this shell for the agent's system prompt, and exit.
    #[arg(long)]
    describe: bool,
    /// Speak the JSON-lines protocol on stdin/stdout: one request object per line
    /// (`{"id":1,"command":"ls"}`), one response object per line (docs/PROTOCOL.md).
    #[arg(long, conflicts_with_all = ["command", "file"])]
    json: bool,
    /// Run this script, as `bash -c`.
    #[arg(short = 'c', value_name = "SCRIPT")]
    command: Option<String>,
    /// Run this script file (a host path), as `bash FILE`.
    file: Option<PathBuf>,
    #[command(subcommand)]
    owner: Option<OwnerCommand>,
}

/// The owner's subcommands.
#[derive(Debug, Subcommand)]
enum OwnerCommand {
    /// List, restore or purge what the agent removed.
    Trash {
        #[command(subcommand)]
        action: TrashCommand,
    },
    /// Show the audit log: what the agent ran and changed, and what was refused and why.
    Log(LogArgs),
}

#[derive(Debug, Subcommand)]
enum TrashCommand {
    /// One row per entry, oldest first: id, time (UTC), size in bytes, kind, original path.
    List {
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Put an entry back where it was (or at --to); never overwrites.
    Restore {
        /// An entry id, or its original path (the agent's path, or relative to the root, or
        /// an absolute host path in the root): the newest entry with that path.
        #[arg(value_name = "ID|PATH")]
        target: String,
        /// Restore here instead: relative to the root, or an absolute host path in the root.
        #[arg(long, value_name = "PATH")]
        to: Option<PathBuf>,
    },
    /// Delete entries for good.
    Purge {
        /// Only entries older than this: 90s, 30m, 12h, 7d, 2w (default: every entry).
        #[arg(long, value_name = "DURATION", value_parser = owner::parse_duration)]
        older_than: Option<u64>,
        /// Show what would be purged; delete nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

#[derive(Debug, Args)]
struct LogArgs {
    /// Print the raw JSON lines.
    #[arg(long)]
    json: bool,
    /// Only the last N events (after filtering).
    #[arg(long, value_name = "N")]
    tail: Option<usize>,
    /// Only this session (its id, the short form shown, or a prefix of the id).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Only these events (repeat, or separate with commas): line, command, effect, refused...
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    event: Vec<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(command) = &cli.owner {
        check_owner_args(&cli);
        return run_owner(&cli, command);
    }
    let names: Vec<&str> = CommandName::ALL.iter().map(|c| c.as_str()).collect();
    let mut policy = match &cli.policy {
        Some(path) => match Policy::load(path) {
            Ok(p) => p,
            Err(e) => return fail(2, &e),
        },
        None => Policy::default(),
    };
    if cli.atomic {
        policy.atomic = true;
    }
    if let Err(e) = policy.validate(&names) {
        return match &cli.policy {
            Some(path) => fail(2, &format!("{}: {e}", path.display())),
            None => fail(2, &e),
        };
    }
    if cli.describe {
        let mount = match &cli.mount_point {
            Some(m) if m.is_absolute() => normalize_lexically(m),
            Some(m) => {
                return fail(2, &format!("mount point must be absolute: {}", m.display()));
            }
            None => match std::fs::canonicalize(&cli.root) {
                Ok(p) => p,
                Err(e) => {
                    return fail(2, &format!("cannot open root {}: {e}", cli.root.display()));
                }
            },
        };
        let text = policy::describe(&policy, &names, &mount.to_string_lossy());
        let _ = std::io::stdout().write_all(text.as_bytes());
        return ExitCode::SUCCESS;
    }
    let mut config = Config::new(&cli.root);
    config.sandbox.mount_point.clone_from(&cli.mount_point);
    config.sandbox.state_dir.clone_from(&cli.state_dir);
    config.policy = policy;
    let stdin_tty = std::io::stdin().is_terminal();
    let interactive = cli.command.is_none() && cli.file.is_none() && stdin_tty && !cli.json;
    config.stdout_is_tty = std::io::stdout().is_terminal() && !cli.json;
    config.error_mode = match &cli.file {
        Some(f) => ErrorMode::Script {
            name: f.to_string_lossy().into_owned(),
        },
        None if interactive => ErrorMode::Interactive,
        None => ErrorMode::Script {
            name: "bash".into(),
        },
    };
    let mut session = match Session::new(config) {
        Ok(s) => s,
        Err(e) => return fail(2, &e.to_string()),
    };
    report_recovery(&session);
    let status = if cli.json {
        let stdin = std::io::stdin();
        let mut stdout = std::io::stdout();
        trumansh::protocol::run_json_lines(&mut session, stdin.lock(), &mut stdout, |_, _, _| {})
    } else if let Some(script) = &cli.command {
        frontend::run_lines(&mut session, script.as_bytes(), OnSyntaxError::Abort)
    } else if let Some(file) = &cli.file {
        // The script is the owner's file on the host, not a path in the sandbox.
        if let Ok(text) = std::fs::read(file) {
            frontend::run_lines(&mut session, text.as_slice(), OnSyntaxError::Abort)
        } else {
            let _ = writeln!(
                std::io::stderr(),
                "trumansh: {}: No such file or directory",
                file.display()
            );
            127
        }
    } else if interactive {
        frontend::run_repl(session)
    } else {
        let stdin = std::io::stdin();
        frontend::run_lines(&mut session, stdin.lock(), OnSyntaxError::Continue)
    };
    ExitCode::from((status & 0xff) as u8)
}

/// `trumansh: MESSAGE` on stderr, and the exit status.
fn fail(status: u8, message: &str) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "trumansh: {message}");
    ExitCode::from(status)
}

/// Tells the owner what the start rolled back for sessions that crashed mid-line.
fn report_recovery(session: &Session) {
    let mut err = std::io::stderr().lock();
    for r in session.recovered() {
        let line = r.line.strip_suffix('\n').unwrap_or(&r.line);
        let _ = writeln!(
            err,
            "trumansh: recovered from a crash: rolled back the interrupted line `{}` ({} change{})",
            owner::sanitize(line),
            r.changes,
            if r.changes == 1 { "" } else { "s" }
        );
        for e in &r.errors {
            let _ = writeln!(err, "trumansh: recovery: {}", owner::sanitize(e));
        }
    }
}

/// The owner's subcommands take only `--root` and `--state-dir`: anything that starts a
/// session is a usage error (status 2). (clap's `args_conflicts_with_subcommands` would do
/// this, but it also stops recognising a subcommand after any option, `--root` included, so
/// `trumansh --root DIR log` would run a script file named `log`.)
fn check_owner_args(cli: &Cli) {
    let session_args = [
        ("-c <SCRIPT>", cli.command.is_some()),
        ("[FILE]", cli.file.is_some()),
        ("--mount-point <PATH>", cli.mount_point.is_some()),
        ("--policy <FILE>", cli.policy.is_some()),
        ("--atomic", cli.atomic),
        ("--describe", cli.describe),
    ];
    if let Some((name, _)) = session_args.iter().find(|(_, given)| *given) {
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                format!(
                    "the argument '{name}' cannot be used with the owner's subcommands (trash, log)"
                ),
            )
            .exit();
    }
}

/// Runs an owner's subcommand on the sandbox's state directory.
fn run_owner(cli: &Cli, command: &OwnerCommand) -> ExitCode {
    let mut config = SandboxConfig::new(&cli.root);
    config.state_dir.clone_from(&cli.state_dir);
    let sandbox = match Sandbox::open(&config) {
        Ok(s) => s,
        Err(e) => return fail(2, &e.to_string()),
    };
    let (name, result) = match command {
        OwnerCommand::Trash { action } => match action {
            TrashCommand::List { json } => (
                "trash list",
                owner::trash_entries(&sandbox).map(|e| owner::format_trash_list(&e, *json)),
            ),
            TrashCommand::Restore { target, to } => {
                let options = RestoreOptions {
                    to: to.clone(),
                    root_arg: Some(cli.root.clone()),
                    state_in_root: cli.state_dir.is_none(),
                };
                (
                    "trash restore",
                    owner::trash_restore(&sandbox, target, &options)
                        .map(|r| format!("restored {} to {}\n", r.id, owner::sanitize_path(&r.to))),
                )
            }
            TrashCommand::Purge {
                older_than,
                dry_run,
            } => ("trash purge", purge(&sandbox, *older_than, *dry_run)),
        },
        OwnerCommand::Log(args) => {
            let options = LogOptions {
                json: args.json,
                tail: args.tail,
                session: args.session.clone(),
                events: args.event.clone(),
            };
            let result = owner::read_log(&sandbox, &options).map(|out| {
                if out.unreadable > 0 {
                    let _ = writeln!(
                        std::io::stderr(),
                        "trumansh: log: {} unreadable line{} skipped",
                        out.unreadable,
                        if out.unreadable == 1 { "" } else { "s" }
                    );
                }
                out.text
            });
            ("log", result)
        }
    };
    match result {
        Ok(text) => {
            let _ = std::io::stdout().write_all(text.as_bytes());
            ExitCode::SUCCESS
        }
        Err(OwnerError { message, status }) => fail(status, &format!("{name}: {message}")),
    }
}

/// `trash purge`: the report, or an error when some entries could not be removed.
fn purge(sandbox: &Sandbox, older_than: Option<u64>, dry_run: bool) -> Result<String, OwnerError> {
    let purged = owner::trash_purge(sandbox, older_than, dry_run, owner::now_secs())?;
    let summary = owner::count_entries(purged.entries.len(), purged.bytes);
    let text = if dry_run {
        let table = owner::format_trash_list(&purged.entries, false);
        format!("{table}would purge {summary}\n")
    } else {
        format!("purged {summary}\n")
    };
    if purged.errors.is_empty() {
        Ok(text)
    } else {
        let _ = std::io::stdout().write_all(text.as_bytes());
        Err(OwnerError {
            message: purged
                .errors
                .iter()
                .map(|e| owner::sanitize(e))
                .collect::<Vec<_>>()
                .join("; "),
            status: 1,
        })
    }
}
