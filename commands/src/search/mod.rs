//! Searching the tree and its contents: GNU `grep` and GNU `find`.

pub mod find;
pub mod grep;
