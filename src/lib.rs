//! trumansh: an emulated bash for AI agents. Every command runs in-process against one
//! sandbox directory; nothing is ever spawned.
//!
//! See `docs/ARCHITECTURE.md` for the data flow.

pub mod shell;
