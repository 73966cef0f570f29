//! The integration tests: one crate, so `cargo test` links one binary against trumansh and its
//! dependencies (rmcp, tokio, cap-std) instead of one per file. Each module below opens with a
//! `//!` saying what it proves; the comment beside it says what a new test should go there.
//! Run one module with `cargo test --test it MODULE::` (e.g. `cargo test --test it escape::`).
//!
//! Nothing here may set process-wide state (the environment, the current directory, the
//! umask): the modules' tests run on threads of one process. A test that needs its own
//! process spawns the binary (`env!("CARGO_BIN_EXE_trumansh")`), as `cli`, `mcp`, `protocol`,
//! `readme`, `repl`, `undo` and `undo_safety` do.

/// The `trumansh::Session` API and what its `Outcome` reports; a new library-level behaviour.
mod api;
/// The audit log's bounds: cut records, counted refusals, rotation, its share of the quota,
/// `log --tail`; a new kind of record.
mod audit;
/// Syntax errors fed alone to real bash and to trumansh; a new syntax error or end-of-file case.
mod bash_syntax;
/// The binary's front ends (line mode, `-c`, scripts, owner subcommands, `replay`); a new flag.
mod cli;
/// Commands that hold input (sort's spilled runs, uniq/tail/cut/tr on one long line) under
/// `prlimit --as`; a new command that holds or streams its input.
mod command_memory;
/// Helpers shared by several modules (tree snapshots, a piped child process); no tests.
mod common;
/// Random edits compared by GNU `diff` and by trumansh's; a new output style or option.
mod diff_random;
/// Containment: every way out of the sandbox answers like a missing path; a new escape route.
mod escape;
/// The command crate's rule: no handler uses another handler; a new family's shared module.
mod families;
/// grep's bounds: long and many patterns in linear time, the deadline polled; a new grep bound.
mod grep_bounds;
/// The runtime's layering (no module uses a higher layer); a new module gets its layer here.
mod layers;
/// Limits and the owner's policy (deadline, caps, quotas, hidden/read-only paths); a new limit.
mod limits;
/// `trumansh mcp` over raw JSON-RPC lines; a new MCP tool or transport behaviour.
mod mcp;
/// Memory the agent can drive, under `prlimit --as`: caps end the line, never the session; a
/// new growth path the agent controls.
mod memory;
/// Property test: no input line panics, hangs or breaks the session; a line that once did.
mod no_panic;
/// Property test: random paths never leak or change the outside; a new path component kind.
mod path_containment;
/// The `--json` lines protocol against its schema; a new request or response field.
mod protocol;
/// TOCTOU races: a name swapped to a link out while commands run; a new racing command.
mod race;
/// README.md and docs/PROTOCOL.md examples run as printed; nothing (edit the docs instead).
mod readme;
/// The interactive REPL through a real pty; a new key binding or prompt behaviour.
mod repl;
/// `-c`, a script FILE and stdin against real bash: what ends the shell, `$-`, `BASH_SOURCE`,
/// the names of errors in functions; a new difference between the three.
mod script_modes;
/// The agent racing itself through pipeline stages past the hidden and read-only checks.
mod self_race;
/// Fifos, sockets and devices in the tree, against real bash on it; a new command's answer to one.
mod special_files;
/// Pipelines stream through bounded pipes; a new streaming stage.
mod streaming;
/// `fixtures/transcripts/**` replayed and checked against real bash; add a transcript, not a test.
mod transcripts;
/// `undo`, `--atomic`, crash recovery and faults; a new state-changing command's journaling.
mod undo;
/// Undo that never destroys: changed-since checks, concurrent and killed undos, forged
/// journals, the policy, the shared quota, rm on a full disk, the history's bounds; a new
/// attack on the journal or the revert.
mod undo_safety;
