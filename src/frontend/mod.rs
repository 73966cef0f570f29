//! The ways an agent's input reaches a session: line mode (stdin that is not a terminal,
//! `-c`, a script file; [`line`]), the interactive REPL ([`repl`]), the JSON-lines protocol
//! (`--json`; [`json`]) and the MCP server (`trumansh mcp`; [`mcp`]).
//!
//! Each can record the session as a transcript (`crate::transcript::Recorder`): each complete
//! input is written with its output as soon as it has run.

mod backpressure;
pub mod chunks;
pub mod json;
mod line;
pub mod mcp;
mod repl;

pub use line::{OnSyntaxError, StdSink, run_lines};
pub use repl::{prompt, run_repl};
