//! GNU byte and line filters: they read files or stdin and write stdout (`tee`, `sort -o` and
//! `uniq OUTPUT` also write a file through an effect).

pub mod awk;
pub mod cat;
pub mod column;
pub mod comm;
pub mod cut;
pub mod expand;
pub mod expr;
pub mod fold;
pub mod headtail;
pub mod join;
pub mod jq;
pub mod lines;
pub mod nl;
pub mod paste;
pub mod rev;
pub mod sed;
pub mod seq;
pub mod shuf;
pub mod sort;
pub mod split;
pub mod tabstops;
pub mod tac;
pub mod tee;
pub mod tr;
pub mod unexpand;
pub mod uniq;
pub mod wc;
pub mod yes;
