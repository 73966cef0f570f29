//! GNU diffutils 3.8: `diff` (a folder: options and files, the comparison, the output
//! formats) and `cmp`.

pub mod cmp;
pub mod diff;
