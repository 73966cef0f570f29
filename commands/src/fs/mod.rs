//! GNU coreutils that change or list the tree: they read through the view and describe every
//! change as an effect.

mod canon;
pub mod chmod;
pub mod cp;
pub mod df;
pub mod du;
pub mod install;
pub mod ln;
pub mod ls;
pub mod mkdir;
pub mod mktemp;
pub mod mv;
pub mod readlink;
pub mod realpath;
pub mod rm;
pub mod rmdir;
pub mod stat;
mod target;
pub mod touch;
pub mod tree;
pub mod truncate;
