//! GNU coreutils that change or list the tree: they read through the view and describe every
//! change as an effect.

pub mod chmod;
pub mod cp;
pub mod df;
pub mod du;
pub mod ls;
pub mod mkdir;
pub mod mv;
pub mod rm;
mod target;
pub mod touch;
pub mod tree;
