//! trumansh: an emulated bash for AI agents. Every command runs in-process against one
//! sandbox directory; nothing is ever spawned.
//!
//! See `docs/ARCHITECTURE.md` for the data flow.
//!
//! ```no_run
//! use trumansh::{Config, Session};
//!
//! let mut session = Session::new(Config::new("fixtures/trees/basic")).expect("root opens");
//! let out = session.run("mkdir -p notes && echo hi > notes/a.txt && cat notes/a.txt");
//! assert_eq!(out.stdout, b"hi\n");
//! ```

pub mod frontend;
pub mod sandbox;
pub mod session;
pub mod shell;
pub mod state;
pub mod transcript;

pub use session::{Captured, Config, ErrorMode, RunResult, Session, Sink, Stream};
