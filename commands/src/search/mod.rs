//! Searching the tree and its contents: GNU `grep`, GNU `find` and GNU `xargs`.

pub mod find;
pub mod grep;
pub mod xargs;
