//! What every handler is given and returns: the [`Ctx`](ctx::Ctx) (the view of the sandbox,
//! cwd, variables, stdin), the [`FsView`](fsview::FsView) it reads through, and the
//! [`Outcome`](outcome::Outcome) of steps and effects it hands back. No GNU knowledge here.

pub mod ctx;
pub mod fsview;
pub mod outcome;
