//! Test doubles: [`memfs`], an in-memory [`FsView`](crate::FsView) (public, for the runtime's
//! tests too), and `world`, the harness that runs a handler against one.

pub mod memfs;
#[cfg(test)]
pub mod world;
