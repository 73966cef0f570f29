//! trumansh: an emulated bash for AI agents. Every command runs in-process against one
//! sandbox directory; nothing is ever spawned.
//!
//! See `docs/ARCHITECTURE.md` for the data flow.
//!
//! The library API for Rust hosts: a [`Session`] is one shell (cwd, variables, `$?`) on one
//! sandbox directory; [`Session::run`] runs one complete input and returns an [`Outcome`]:
//! stdout and stderr bytes, the status, the cwd after the line, whether output was truncated
//! or the deadline hit, the time taken, and the changes applied ([`AppliedEffect`]).
//! [`Session::run_with`] takes a [`Request`] (stdin for the line, a shorter deadline);
//! [`Session::execute`] streams the output to a [`Sink`] instead of keeping it.
//!
//! ```
//! use trumansh::{AppliedEffect, Config, Request, Session};
//!
//! let dir = tempfile::tempdir()?;
//! let mut config = Config::new(dir.path());
//! config.sandbox.mount_point = Some("/home/user".into());
//! let mut session = Session::new(config)?;
//! let out = session.run("mkdir -p notes && echo hi > notes/a.txt && cd notes && cat a.txt");
//! assert_eq!(out.stdout, b"hi\n");
//! assert_eq!(session.cwd(), std::path::Path::new("/home/user/notes"));
//! assert_eq!(out.effects.len(), 2); // mkdir notes, write notes/a.txt
//! assert!(matches!(&out.effects[1], AppliedEffect::Write { bytes: 3, .. }));
//! let out = session.run("cat /etc/passwd");
//! assert_eq!(out.stderr, b"cat: /etc/passwd: No such file or directory\n");
//! assert_eq!(out.status, 1);
//! let out = session.run_with(&Request { stdin: Some(b"b\na\n"), ..Request::new(b"sort") });
//! assert_eq!(out.stdout, b"a\nb\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The layers, each using only those below it (pinned by `tests/it/layers.rs`):
//
//   cli, frontend   main.rs, cli/ (args, owner, replay), frontend/ (line, repl, chunks,
//                   json, mcp), transcript/
//   session         Session: the public API, one transaction per line
//   interp          walks the AST: lists, pipelines, simple commands, redirections
//   expand, exec    word expansion (words -> fields); running one handler: the Emitter,
//                   pipes, effects applied and journaled
//   txn             journal (undo, rollback, recovery), trash
//   sandbox         containment
//   base            limits, policy, audit, io, api (Request, Report, AppliedEffect)
//
// `shell` (the syntax: lexer, parser, AST) uses nothing of the runtime.

mod api;
pub mod audit;
pub mod cli;
mod exec;
pub mod expand;
pub mod frontend;
mod interp;
pub mod io;
pub mod limits;
pub mod policy;
pub mod sandbox;
pub mod session;
pub mod shell;
pub mod transcript;
pub mod txn;

pub use api::{AppliedEffect, MAX_EFFECTS, Outcome, Report, Request};
pub use io::{Captured, Sink, Stream};
pub use session::{Config, ErrorMode, Reads, Session};

// The front ends and the owner's tools at their old public paths.
pub use cli::{owner, replay};
pub use frontend::json as protocol;
pub use frontend::mcp;
/// The journal, at its old path.
pub use txn::journal;
/// The trash, at its old path (`trumansh::state::trash`).
pub use txn::trash as state;
