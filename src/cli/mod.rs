//! The command line of the `trumansh` binary: parses it and starts a front end (line mode,
//! REPL, `-c`, a script file, `--json`, or the MCP server `mcp`), or runs one of the owner's
//! subcommands (`trash`, `log`, `replay`; [`owner`], [`replay`]) on the host.

pub mod owner;
pub mod replay;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand};
use trumansh_commands::{CommandName, normalize_lexical};

use crate::frontend::mcp::ServeError;
use crate::frontend::{self, OnSyntaxError};
use crate::policy::{self, Policy};
use crate::sandbox::{Sandbox, SandboxConfig};
use crate::session::{Config, ErrorMode, Reads, Session};
use crate::transcript::{self, Header, LineNumbers, Recorder};
use owner::{LogOptions, OwnerError, RestoreOptions};
use replay::ReplayOptions;

/// An emulated bash for AI agents: every command runs in-process against one sandbox
/// directory, nothing is spawned, nothing outside the directory exists, and rm only moves to
/// a trash.
///
/// The owner's subcommands (`trash`, `log`, `replay`) run on the host and are not visible to
/// the agent. `mcp` serves the shell to an MCP host. A script file literally named `trash`,
/// `log`, `replay` or `mcp` must be given as `./trash`.
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
    /// Record the session as a transcript in FILE (created or truncated; each command is
    /// written with its output as soon as it has run). Replay it with `trumansh replay FILE`;
    /// the format is in docs/TRANSCRIPTS.md. Keep FILE outside the root: the agent would see it.
    #[arg(long, value_name = "FILE", global = true)]
    record: Option<PathBuf>,
    /// Run this script file (a host path), as `bash FILE`. With `-c`, the script's `$0`, as
    /// in `bash -c SCRIPT NAME`.
    file: Option<PathBuf>,
    /// The script's arguments: `$1`, `$2`, ... (`bash FILE ARGS`, `bash -c SCRIPT NAME ARGS`).
    #[arg(
        value_name = "ARGS",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    args: Vec<String>,
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
    /// call starts a fresh session. Ends at the end of stdin. docs/MCP.md has the details.
    Mcp(McpArgs),
}

/// The session's settings `trumansh mcp` takes after `mcp` (also before it, as for the line
/// mode; `--root` and `--state-dir` go anywhere).
#[derive(Debug, Args)]
struct McpArgs {
    /// The path the agent sees the root at (default: the root's real absolute path; `/` gives
    /// a fully virtual view).
    #[arg(long, value_name = "PATH")]
    mount_point: Option<PathBuf>,
    /// The owner's policy file (TOML): hidden and read-only paths, denied commands, undo,
    /// atomic lines, limits.
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// Roll back every line that fails (also `atomic = true` in the policy file).
    #[arg(long)]
    atomic: bool,
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
    /// Replay a transcript on a fresh copy of the root and show what changed in its output.
    #[command(long_about = REPLAY_ABOUT)]
    Replay(ReplayArgs),
}

const REPLAY_ABOUT: &str = "\
Replay a transcript on a fresh copy of the root and show what changed in its output.

The root (--root, default: the current directory) is copied into a new temporary directory
(links as links, modes and times kept, the state directory .trash left out) and a session is
started there with the transcript's settings. Every command of the transcript is run again;
if the output is the same, the exit status is 0 and nothing is printed on stdout; if it
changed, a unified diff (--- FILE, +++ replay) is printed and the status is 1. Status 2: the
transcript cannot be read, or the root cannot be copied.

A transcript (written by `trumansh --record FILE`) looks like what a terminal shows:

  # trumansh transcript v1 mount-point=/home/user errors=script:bash lines=stream
  $ cat > notes.txt <<'EOF'
  > remember $HOME
  > EOF
  $ ls notes.txt nope
  notes.txt
  [stderr] ls: cannot access 'nope': No such file or directory
  [exit 2]

`$ ` starts a command, `> ` continues it while it is incomplete, output follows as written
(a stdout line starting with $, [ or \\ gets a leading \\), stderr lines are marked
`[stderr] `, `[no newline]` ends output without a final newline, `[exit N]` gives a non-zero
status. The full format: docs/TRANSCRIPTS.md.";

#[derive(Debug, Args)]
struct ReplayArgs {
    /// The transcript.
    #[arg(value_name = "FILE")]
    transcript: PathBuf,
    /// The agent's path of the root (default: the transcript's `mount-point`, or /home/user).
    #[arg(long, value_name = "PATH")]
    mount_point: Option<PathBuf>,
    /// The owner's policy file to run the session under (default: the default policy).
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
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

/// The binary's `main`: parses the process's arguments and runs what they ask for, on a
/// thread with the interpreter's stack (each line then runs on it, with no thread of its own).
pub fn main() -> ExitCode {
    crate::interp::on_own_thread("trumansh", run).unwrap_or(ExitCode::FAILURE)
}

fn run() -> ExitCode {
    let cli = Cli::parse();
    match &cli.subcommand {
        Some(Sub::Owner(command)) => {
            check_owner_args(&cli, command);
            if let OwnerCommand::Replay(args) = command {
                return run_replay(&cli, args);
            }
            return run_owner(&cli, command);
        }
        Some(Sub::Mcp(args)) => {
            check_mcp_args(&cli);
            return run_mcp(&cli, args);
        }
        None => {}
    }
    let policy = match load_policy(cli.policy.as_deref(), cli.atomic) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let mount_point = cli.mount_point.as_deref();
    if cli.describe {
        return match describe_text(&cli.root, mount_point, &policy) {
            Ok(text) => {
                let _ = std::io::stdout().write_all(text.as_bytes());
                ExitCode::SUCCESS
            }
            Err(code) => code,
        };
    }
    let mut config = session_config(&cli, mount_point, policy);
    let stdin_tty = std::io::stdin().is_terminal();
    let interactive = cli.command.is_none() && cli.file.is_none() && stdin_tty && !cli.json;
    config.stdout_is_tty = std::io::stdout().is_terminal() && !cli.json;
    config.reads = if cli.json {
        Reads::Stdin
    } else if cli.command.is_some() {
        Reads::Command
    } else if cli.file.is_some() {
        Reads::File
    } else {
        Reads::Stdin
    };
    config.args.clone_from(&cli.args);
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
    let lines = if cli.json {
        LineNumbers::Each
    } else {
        LineNumbers::Stream
    };
    let mut recorder = match &cli.record {
        Some(path) => match Recorder::create(path, &Header::for_session(&session, lines)) {
            Ok(r) => Some(r),
            Err(e) => {
                return fail(
                    2,
                    &format!("{}: {}", path.display(), policy::io_message(&e)),
                );
            }
        },
        None => None,
    };
    let status = if cli.json {
        let stdin = std::io::stdin();
        let mut stdout = std::io::stdout();
        frontend::json::run_json_lines(
            &mut session,
            stdin.lock(),
            &mut stdout,
            |request, recorded, status| {
                if let Some(r) = recorder.as_mut() {
                    let input = transcript::request_input(&request.command);
                    r.step(&input, request.stdin.as_deref(), recorded, status);
                }
            },
        )
    } else if let Some(script) = &cli.command {
        frontend::run_lines(
            &mut session,
            script.as_bytes(),
            OnSyntaxError::Abort,
            recorder.as_mut(),
        )
    } else if let Some(file) = &cli.file {
        // The script is the owner's file on the host, not a path in the sandbox.
        // Read as it runs, through a bounded reader (an over-long line is never held whole).
        if let Ok(f) = std::fs::File::open(file) {
            frontend::run_lines(
                &mut session,
                std::io::BufReader::with_capacity(1 << 16, f),
                OnSyntaxError::Abort,
                recorder.as_mut(),
            )
        } else {
            let _ = writeln!(
                std::io::stderr(),
                "trumansh: {}: No such file or directory",
                file.display()
            );
            127
        }
    } else if interactive {
        frontend::run_repl(session, recorder)
    } else {
        let stdin = std::io::stdin();
        frontend::run_lines(
            &mut session,
            stdin.lock(),
            OnSyntaxError::Continue,
            recorder.as_mut(),
        )
    };
    ExitCode::from((status & 0xff) as u8)
}

/// The policy file (or the default policy), with `--atomic`, checked against the commands
/// that exist; or the exit status of a clear error.
fn load_policy(path: Option<&Path>, atomic: bool) -> Result<Policy, ExitCode> {
    // The handlers, and the interpreter's own builtins (`declare`, `source`, `bash`, ...).
    let names: Vec<&str> = CommandName::ALL
        .iter()
        .map(|c| c.as_str())
        .chain(trumansh_commands::SHELL_BUILTINS.iter().copied())
        .collect();
    let mut policy = match path {
        Some(path) => Policy::load(path).map_err(|e| fail(2, &e))?,
        None => Policy::default(),
    };
    if atomic {
        policy.atomic = true;
    }
    if let Err(e) = policy.validate(&names) {
        return Err(match path {
            Some(path) => fail(2, &format!("{}: {e}", path.display())),
            None => fail(2, &e),
        });
    }
    Ok(policy)
}

/// The `--describe` text for a mount point (by default the root's real path).
fn describe_text(
    root: &Path,
    mount_point: Option<&Path>,
    policy: &Policy,
) -> Result<String, ExitCode> {
    let mount = match mount_point {
        Some(m) if m.is_absolute() => normalize_lexical(m),
        Some(m) => {
            return Err(fail(
                2,
                &format!("mount point must be absolute: {}", m.display()),
            ));
        }
        None => std::fs::canonicalize(root)
            .map_err(|e| fail(2, &format!("cannot open root {}: {e}", root.display())))?,
    };
    // The handlers, and the interpreter's own builtins (`declare`, `source`, `bash`, ...).
    let names: Vec<&str> = CommandName::ALL
        .iter()
        .map(|c| c.as_str())
        .chain(trumansh_commands::SHELL_BUILTINS.iter().copied())
        .collect();
    Ok(policy::describe(policy, &names, &mount.to_string_lossy()))
}

/// A session's settings: the root and state directory of the options, this mount point and
/// policy (the line mode's and the MCP server's).
fn session_config(cli: &Cli, mount_point: Option<&Path>, policy: Policy) -> Config {
    let mut config = Config::new(&cli.root);
    config.sandbox.mount_point = mount_point.map(Path::to_path_buf);
    config.sandbox.state_dir.clone_from(&cli.state_dir);
    config.policy = policy;
    config
}

/// `trumansh mcp`: the MCP server on stdin/stdout until the end of stdin. Its options may
/// come after `mcp` or before it.
fn run_mcp(cli: &Cli, args: &McpArgs) -> ExitCode {
    let policy_path = args.policy.as_deref().or(cli.policy.as_deref());
    let policy = match load_policy(policy_path, args.atomic || cli.atomic) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let mount_point = args.mount_point.as_deref().or(cli.mount_point.as_deref());
    let describe = match describe_text(&cli.root, mount_point, &policy) {
        Ok(text) => text,
        Err(code) => return code,
    };
    let mut config = session_config(cli, mount_point, policy);
    config.error_mode = ErrorMode::Script {
        name: "bash".into(),
    };
    config.stdout_is_tty = false;
    match frontend::mcp::serve_stdio(config, describe, report_recovery, cli.record.clone()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e @ ServeError::Setup(_)) => fail(2, &e.to_string()),
        Err(e @ ServeError::Server(_)) => fail(1, &format!("mcp: {e}")),
    }
}

/// `mcp` takes the session's settings and `--record`, not a script, `--json` or `--describe`
/// (status 2).
fn check_mcp_args(cli: &Cli) {
    let not_taken = [
        ("-c <SCRIPT>", cli.command.is_some()),
        ("[FILE]", cli.file.is_some()),
        ("--json", cli.json),
        ("--describe", cli.describe),
    ];
    if let Some((name, _)) = not_taken.iter().find(|(_, given)| *given) {
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                format!("the argument '{name}' cannot be used with mcp"),
            )
            .exit();
    }
}

/// `trumansh replay FILE`: 0 when the output did not change, 1 (and the diff on stdout) when
/// it did, 2 when the transcript or the root cannot be read.
fn run_replay(cli: &Cli, args: &ReplayArgs) -> ExitCode {
    let name = args.transcript.display().to_string();
    let bytes = match std::fs::read(&args.transcript) {
        Ok(b) => b,
        Err(e) => return fail(2, &format!("replay: {name}: {}", policy::io_message(&e))),
    };
    let parsed = match transcript::parse(&bytes) {
        Ok(t) => t,
        Err(e) => return fail(2, &format!("replay: {name}: {e}")),
    };
    let policy = match load_policy(args.policy.as_deref().or(cli.policy.as_deref()), false) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let options = ReplayOptions {
        mount_point: args.mount_point.clone().or_else(|| cli.mount_point.clone()),
        policy,
    };
    let replayed = match replay::replay_tree(&parsed, &cli.root, &options) {
        Ok(r) => r,
        Err(e) => return fail(2, &format!("replay: {e}")),
    };
    let steps = format!(
        "{} step{}",
        replayed.steps,
        if replayed.steps == 1 { "" } else { "s" }
    );
    match replayed.diff(&name) {
        None => {
            let _ = writeln!(std::io::stderr(), "replay: {steps}, no change");
            ExitCode::SUCCESS
        }
        Some(diff) => {
            let _ = std::io::stdout().write_all(diff.as_bytes());
            let _ = writeln!(
                std::io::stderr(),
                "replay: {steps}, {} changed",
                replayed.changed
            );
            ExitCode::from(1)
        }
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
        let what = if r.finished {
            "finished the interrupted revert of"
        } else {
            "rolled back the interrupted line"
        };
        let _ = writeln!(
            err,
            "trumansh: recovered from a crash: {what} `{}` ({} change{})",
            owner::sanitize(line),
            r.changes,
            if r.changes == 1 { "" } else { "s" }
        );
        for s in &r.skipped {
            let shown = s.path.to_string_lossy();
            let _ = writeln!(
                err,
                "trumansh: recovery: {}",
                owner::sanitize(&s.message(&shown))
            );
        }
        for e in &r.errors {
            let _ = writeln!(err, "trumansh: recovery: {}", owner::sanitize(e));
        }
    }
}

/// The owner's subcommands take only `--root` and `--state-dir` (`replay`: `--root`,
/// `--mount-point` and `--policy`): anything else that starts a session is a usage error
/// (status 2). (clap's `args_conflicts_with_subcommands` would do this, but it also stops
/// recognising a subcommand after any option, `--root` included, so `trumansh --root DIR log`
/// would run a script file named `log`.)
fn check_owner_args(cli: &Cli, command: &OwnerCommand) {
    let replay = matches!(command, OwnerCommand::Replay(_));
    let session_args = [
        ("-c <SCRIPT>", cli.command.is_some()),
        ("[FILE]", cli.file.is_some()),
        ("--mount-point <PATH>", cli.mount_point.is_some() && !replay),
        ("--policy <FILE>", cli.policy.is_some() && !replay),
        ("--state-dir <DIR>", cli.state_dir.is_some() && replay),
        ("--atomic", cli.atomic),
        ("--describe", cli.describe),
        ("--record <FILE>", cli.record.is_some()),
    ];
    if let Some((name, _)) = session_args.iter().find(|(_, given)| *given) {
        let message = if replay {
            format!("the argument '{name}' cannot be used with replay")
        } else {
            format!(
                "the argument '{name}' cannot be used with the owner's subcommands (trash, log)"
            )
        };
        Cli::command()
            .error(clap::error::ErrorKind::ArgumentConflict, message)
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
            // Streamed to stdout as it is read: a big log is never held in memory.
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            let result = owner::write_log(&sandbox, &options, &mut out).map(|unreadable| {
                if unreadable > 0 {
                    let _ = writeln!(
                        std::io::stderr(),
                        "trumansh: log: {unreadable} unreadable line{} skipped",
                        if unreadable == 1 { "" } else { "s" }
                    );
                }
                String::new()
            });
            let _ = out.flush();
            ("log", result)
        }
        OwnerCommand::Replay(_) => return ExitCode::from(2),
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
