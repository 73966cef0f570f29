//! GNU byte and line filters: they read files or stdin and write stdout (`tee`, `sort -o` and
//! `uniq OUTPUT` also write a file through an effect).

pub mod awk;
pub mod cat;
pub mod cut;
pub mod headtail;
pub mod sort;
pub mod tee;
pub mod tr;
pub mod uniq;
pub mod wc;
