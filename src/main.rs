//! The `trumansh` binary: parses the command line and starts a front end (line mode, REPL,
//! `-c`, a script file, `--json`, or the MCP server `mcp`), or runs one of the owner's
//! subcommands (`trash`, `log`) on the host.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand};
use trumansh::frontend::{self, OnSyntaxError};
use trumansh::mcp::ServeError;
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
/// `mcp` serves the shell to an MCP host. A script file literally named `trash`, `log` or
/// `mcp` must be given as `./trash`.
#[derive(Debug, Parser)]
#[command(name = "trumansh", version)]
struct Cli {
    /// The sandbox directory (default: the current directory).
    #[arg(long, value_name = "DIR", default_value = ".", global = true)]
    root: PathBuf,
    /// The path the agent sees the root at (default: the root's real absolute path; `/` gives
    /// a fully virtual view).
    #[arg(long, value_name = "PATH", global = true)]
    mount_point: Option<PathBuf>,
    /// Where trash, journal, history and the audit log are kept (default: `.trash/` in the
    /// root, invisible to the agent).
    #[arg(long, value_name = "DIR", global = true)]
    state_dir: Option<PathBuf>,
    /// The owner's policy file (TOML): hidden and read-only paths, denied commands, undo,
    /// atomic lines, limits.
    #[arg(long, value_name = "FILE", global = true)]
    policy: Option<PathBuf>,
    /// Roll back every line that fails (also `atomic = true` in the policy file).
    #[arg(long, global = true)]
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
    subcommand: Option<Sub>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Sub {
    #[command(flatten)]
    Owner(OwnerCommand),
    /// Serve the shell to an MCP host (Model Context Protocol) on stdin/stdout.
    ///
    /// The tools: `bash` (described by the `--describe` text), `undo` (unless the policy
    /// disables it) and `trash_list` (unless it denies `rm`). One shell session for the
    /// connection: the cwd and variables persist from call to call; after `exit` the next
    /// call starts a fresh session. Takes --root, --mount-point, --state-dir, --policy and
    /// --atomic. Ends at the end of stdin.
    Mcp,
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
    match &cli.subcommand {
        Some(Sub::Owner(command)) => {
            check_subcommand_args(&cli, "the owner's subcommands (trash, log)", true);
            return run_owner(&cli, command);
        }
        Some(Sub::Mcp) => {
            check_subcommand_args(&cli, "the mcp subcommand", false);
            return run_mcp(&cli);
        }
        None => {}
    }
    let policy = match load_policy(&cli) {
        Ok(p) => p,
        Err(code) => return code,
    };
    if cli.describe {
        return match describe_text(&cli, &policy) {
            Ok(text) => {
                let _ = std::io::stdout().write_all(text.as_bytes());
                ExitCode::SUCCESS
            }
            Err(code) => code,
        };
    }
    let mut config = session_config(&cli, policy);
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

/// The command names that exist (before the policy denies any).
fn command_names() -> Vec<&'static str> {
    CommandName::ALL.iter().map(|c| c.as_str()).collect()
}

/// The policy the options give: `--policy`'s file (or the default), `--atomic`, checked
/// against the commands that exist. An error is reported, and its exit status returned.
fn load_policy(cli: &Cli) -> Result<Policy, ExitCode> {
    let mut policy = match &cli.policy {
        Some(path) => Policy::load(path).map_err(|e| fail(2, &e))?,
        None => Policy::default(),
    };
    if cli.atomic {
        policy.atomic = true;
    }
    if let Err(e) = policy.validate(&command_names()) {
        return Err(match &cli.policy {
            Some(path) => fail(2, &format!("{}: {e}", path.display())),
            None => fail(2, &e),
        });
    }
    Ok(policy)
}

/// The `--describe` text for the options' mount point (the root's real path by default).
fn describe_text(cli: &Cli, policy: &Policy) -> Result<String, ExitCode> {
    let mount = match &cli.mount_point {
        Some(m) if m.is_absolute() => normalize_lexically(m),
        Some(m) => {
            return Err(fail(
                2,
                &format!("mount point must be absolute: {}", m.display()),
            ));
        }
        None => std::fs::canonicalize(&cli.root)
            .map_err(|e| fail(2, &format!("cannot open root {}: {e}", cli.root.display())))?,
    };
    Ok(policy::describe(
        policy,
        &command_names(),
        &mount.to_string_lossy(),
    ))
}

/// The session settings the options give: root, mount point, state directory, policy.
fn session_config(cli: &Cli, policy: Policy) -> Config {
    let mut config = Config::new(&cli.root);
    config.sandbox.mount_point.clone_from(&cli.mount_point);
    config.sandbox.state_dir.clone_from(&cli.state_dir);
    config.policy = policy;
    config
}

/// `trumansh mcp`: the MCP server on stdin/stdout until the end of stdin.
fn run_mcp(cli: &Cli) -> ExitCode {
    let policy = match load_policy(cli) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let describe = match describe_text(cli, &policy) {
        Ok(text) => text,
        Err(code) => return code,
    };
    let mut config = session_config(cli, policy);
    config.error_mode = ErrorMode::Script {
        name: "bash".into(),
    };
    config.stdout_is_tty = false;
    match trumansh::mcp::serve_stdio(config, describe, report_recovery) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e @ ServeError::Setup(_)) => fail(2, &e.to_string()),
        Err(e @ ServeError::Server(_)) => fail(1, &format!("mcp: {e}")),
    }
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

/// A subcommand takes only the options that make sense for it: the owner's take `--root` and
/// `--state-dir` (`owner`), `mcp` takes those and the session's settings (`--mount-point`,
/// `--policy`, `--atomic`). Anything else is a usage error (status 2). (clap's
/// `args_conflicts_with_subcommands` would do this, but it also stops recognising a
/// subcommand after any option, `--root` included, so `trumansh --root DIR log` would run a
/// script file named `log`.)
fn check_subcommand_args(cli: &Cli, what: &str, owner: bool) {
    let not_taken = [
        ("-c <SCRIPT>", cli.command.is_some()),
        ("[FILE]", cli.file.is_some()),
        ("--json", cli.json),
        ("--describe", cli.describe),
        ("--mount-point <PATH>", owner && cli.mount_point.is_some()),
        ("--policy <FILE>", owner && cli.policy.is_some()),
        ("--atomic", owner && cli.atomic),
    ];
    if let Some((name, _)) = not_taken.iter().find(|(_, given)| *given) {
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                format!("the argument '{name}' cannot be used with {what}"),
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
