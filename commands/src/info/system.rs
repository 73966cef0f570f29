//! The fixed facts of the emulated machine, the same in every session and never the host's:
//! what `uname`, `nproc` and `id` show (the user and host names are the session's
//! [`crate::Identity`]).

use crate::Identity;

/// `uname -s`.
pub const KERNEL_NAME: &str = "Linux";
/// `uname -r`.
pub const KERNEL_RELEASE: &str = "6.1.0-28-amd64";
/// `uname -v`.
pub const KERNEL_VERSION: &str = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22)";
/// `uname -m`.
pub const MACHINE: &str = "x86_64";
/// `uname -o`.
pub const OPERATING_SYSTEM: &str = "GNU/Linux";
/// `nproc`.
pub const PROCESSORS: u64 = 4;

/// A user account of the emulated machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub name: String,
    pub uid: u32,
    pub group: String,
    pub gid: u32,
}

/// The accounts the machine knows: the session's user, `root` and `nobody`.
pub fn accounts(id: &Identity) -> Vec<Account> {
    let mut all = vec![Account {
        name: id.user.clone(),
        uid: id.uid,
        group: id.group.clone(),
        gid: id.gid,
    }];
    for (name, uid, group) in [("root", 0, "root"), ("nobody", 65534, "nogroup")] {
        if all.iter().all(|a| a.name != name && a.uid != uid) {
            all.push(Account {
                name: name.into(),
                uid,
                group: group.into(),
                gid: uid,
            });
        }
    }
    all
}

/// The account a `USER` operand names (a name, or a number as `id` takes it).
pub fn account(id: &Identity, user: &[u8]) -> Option<Account> {
    let all = accounts(id);
    let text = std::str::from_utf8(user).ok()?;
    if let Some(a) = all.iter().find(|a| a.name == text) {
        return Some(a.clone());
    }
    let uid: u32 = text.strip_prefix('+').unwrap_or(text).parse().ok()?;
    all.into_iter().find(|a| a.uid == uid)
}

/// The shell's process id as `$$` shows it (the interpreter's `SHELL_PID`).
pub const SHELL_PID: u32 = 4242;
/// Its parent's (`$PPID`).
pub const PARENT_PID: u32 = 4241;
/// The process id `ps` shows for itself.
pub const PS_PID: u32 = 4243;
/// The shell's terminal, as `ps` shows it.
pub const TTY: &str = "pts/0";

/// A time of the session's zone, broken down.
pub fn local(ctx: &crate::Ctx, t: std::time::SystemTime) -> crate::support::datetime::Tm {
    use crate::support::datetime::{broken_down, session_zone, to_epoch};
    let (secs, nsec) = to_epoch(t);
    broken_down(secs, nsec, &session_zone(ctx))
}

/// Seconds since the machine booted ([`crate::Identity::booted`]).
pub fn up_seconds(ctx: &crate::Ctx) -> u64 {
    ctx.now
        .duration_since(ctx.identity.booted)
        .map_or(0, |d| d.as_secs())
}
