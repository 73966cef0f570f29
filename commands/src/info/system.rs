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

/// Linux's signal names 1..=31, without `SIG`.
const NAMES: [&str; 31] = [
    "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2",
    "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG",
    "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
];

/// A signal's name (without `SIG`), `None` for numbers with none.
pub fn signal_name(n: i64) -> Option<String> {
    match n {
        1..=31 => NAMES
            .get(usize::try_from(n - 1).ok()?)
            .map(|s| (*s).to_string()),
        34 => Some("RTMIN".into()),
        35..=49 => Some(format!("RTMIN+{}", n - 34)),
        50..=63 => Some(format!("RTMAX-{}", 64 - n)),
        64 => Some("RTMAX".into()),
        _ => None,
    }
}

/// A signal spec (`9`, `KILL`, `SIGkill`), as bash decodes it for `kill`.
pub fn signal_number(spec: &str) -> Option<i64> {
    if let Ok(n) = spec.parse::<i64>() {
        return (n == 0 || signal_name(n).is_some()).then_some(n);
    }
    let upper = spec.to_ascii_uppercase();
    let bare = upper.strip_prefix("SIG").unwrap_or(&upper);
    (1..=64).find(|&n| signal_name(n).as_deref() == Some(bare))
}

/// One `NUMBER[SUFFIX]` in seconds (C's `strtod` in the C locale: decimal, hexadecimal,
/// `inf`); `None`: not a valid interval.
pub fn interval_seconds(arg: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(arg).ok()?;
    let (num, mult) = match text.as_bytes().last()? {
        b's' => (text.get(..text.len() - 1)?, 1.0),
        b'm' => (text.get(..text.len() - 1)?, 60.0),
        b'h' => (text.get(..text.len() - 1)?, 3600.0),
        b'd' => (text.get(..text.len() - 1)?, 86400.0),
        _ => (text, 1.0),
    };
    let lower = num.to_ascii_lowercase();
    let lower = lower.trim_start();
    let unsigned = lower.strip_prefix('+').unwrap_or(lower);
    let value = if matches!(unsigned, "inf" | "infinity") {
        f64::INFINITY
    } else if let Some(hex) = unsigned.strip_prefix("0x") {
        f64::from(u32::from_str_radix(hex, 16).ok()?)
    } else if unsigned.is_empty()
        || !unsigned
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'-' | b'+'))
        || unsigned.starts_with('-')
    {
        return None;
    } else {
        unsigned.parse::<f64>().ok()?
    };
    (value >= 0.0 && !value.is_nan()).then_some(value * mult)
}
