//! The `trumansh` binary: parses the command line and starts a front end.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use trumansh::frontend::{self, OnSyntaxError};
use trumansh::{Config, ErrorMode, Session};

/// An emulated bash for AI agents: every command runs in-process against one sandbox
/// directory, nothing is spawned, nothing outside the directory exists, and rm only moves to
/// a trash.
#[derive(Debug, Parser)]
#[command(name = "trumansh", version)]
struct Cli {
    /// The sandbox directory (default: the current directory).
    #[arg(long, value_name = "DIR", default_value = ".")]
    root: PathBuf,
    /// The path the agent sees the root at (default: the root's real absolute path; `/` gives
    /// a fully virtual view).
    #[arg(long, value_name = "PATH")]
    mount_point: Option<PathBuf>,
    /// Where trash, journal and history are kept (default: `.trash/` in the root, invisible
    /// to the agent).
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// Run this script, as `bash -c`.
    #[arg(short = 'c', value_name = "SCRIPT")]
    command: Option<String>,
    /// Run this script file (a host path), as `bash FILE`.
    file: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut config = Config::new(&cli.root);
    config.sandbox.mount_point.clone_from(&cli.mount_point);
    config.sandbox.state_dir.clone_from(&cli.state_dir);
    let stdin_tty = std::io::stdin().is_terminal();
    let interactive = cli.command.is_none() && cli.file.is_none() && stdin_tty;
    config.stdout_is_tty = std::io::stdout().is_terminal();
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
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "trumansh: {e}");
            return ExitCode::from(2);
        }
    };
    let status = if let Some(script) = &cli.command {
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
