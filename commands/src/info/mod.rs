//! Facts about the (emulated) world and about names: `date`, `basename`, `dirname`, `which`.

pub mod basename;
pub mod date;
pub mod dirname;
pub mod which;
