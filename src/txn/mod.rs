//! Transactions over the sandbox: the journal of inverses (undo, `--atomic` rollback, crash
//! recovery) and the trash that every removal and overwrite goes to.
//!
//! Layer: above `sandbox`, below `exec`.

pub mod journal;
mod json;
mod record;
pub mod reserve;
mod revert;
pub mod trash;
