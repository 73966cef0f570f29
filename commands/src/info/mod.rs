//! Facts about the (emulated) world and about names: `date`, `basename`, `dirname`, `which`,
//! the machine and its users (`uname`, `nproc`, `hostname`, `whoami`, `id`, `groups`), the
//! environment (`printenv`, `env`, which runs a command in a changed one); `system.rs` holds the machine's fixed facts.

pub mod basename;
pub mod clear;
pub mod date;
pub mod dirname;
pub mod env;
pub mod factor;
pub mod history;
pub mod hostname;
pub mod id;
pub mod jobs;
pub mod kill;
pub mod less;
pub mod more;
pub mod nproc;
pub mod numfmt;
mod pager;
pub mod printenv;
pub mod ps;
pub mod sleep;
mod system;
mod terminfo;
pub mod timeout;
pub mod tput;
pub mod uname;
pub mod uptime;
pub mod which;
pub mod whoami;
