//! trumansh: an emulated bash for AI agents. Every command runs in-process against one
//! sandbox directory; nothing is ever spawned.
//!
//! See `docs/ARCHITECTURE.md` for the data flow.
//!
//! ```
//! use trumansh::{Config, Session};
//!
//! let dir = tempfile::tempdir()?;
//! let mut config = Config::new(dir.path());
//! config.sandbox.mount_point = Some("/home/user".into());
//! let mut session = Session::new(config)?;
//! let out = session.run("mkdir -p notes && echo hi > notes/a.txt && cd notes && cat a.txt");
//! assert_eq!(out.stdout, b"hi\n");
//! assert_eq!(session.cwd(), std::path::Path::new("/home/user/notes"));
//! let out = session.run("cat /etc/passwd");
//! assert_eq!(out.stderr, b"cat: /etc/passwd: No such file or directory\n");
//! assert_eq!(out.status, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod audit;
mod exec;
pub mod frontend;
pub mod journal;
pub mod owner;
pub mod policy;
pub mod replay;
pub mod sandbox;
pub mod session;
pub mod shell;
pub mod state;
pub mod transcript;

pub use session::{Captured, Config, ErrorMode, RunResult, Session, Sink, Stream};
