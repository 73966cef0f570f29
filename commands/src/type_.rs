//! Placeholder: replaced by the real handler.

use std::ffi::OsString;

use crate::{Ctx, Outcome};

pub fn run(_args: &[OsString], _ctx: &Ctx) -> Outcome {
    let mut o = Outcome::status(2);
    o.err("type_: not implemented yet\n");
    o
}
