//! `uname`, GNU coreutils: the emulated machine's fixed facts
//! ([`super::system`]); the node name is the session's host name.

use std::ffi::OsString;

use super::system::{KERNEL_NAME, KERNEL_RELEASE, KERNEL_VERSION, MACHINE, OPERATING_SYSTEM};
use crate::Stop;
use crate::support::args::parse_args;
use crate::support::quote::quote;
use crate::{Ctx, Outcome};

/// Print certain system information.  With no OPTION, same as -s.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "uname [OPTION]...")]
pub struct UnameArgs {
    /// print all information, in the following order,
    /// except omit -p and -i if unknown:
    #[arg(short = 'a', long = "all")]
    all: bool,
    /// print the kernel name
    #[arg(short = 's', long = "kernel-name")]
    kernel_name: bool,
    /// print the network node hostname
    #[arg(short = 'n', long = "nodename")]
    nodename: bool,
    /// print the kernel release
    #[arg(short = 'r', long = "kernel-release")]
    kernel_release: bool,
    /// print the kernel version
    #[arg(short = 'v', long = "kernel-version")]
    kernel_version: bool,
    /// print the machine hardware name
    #[arg(short = 'm', long = "machine")]
    machine: bool,
    /// print the processor type (non-portable)
    #[arg(short = 'p', long = "processor")]
    processor: bool,
    /// print the hardware platform (non-portable)
    #[arg(short = 'i', long = "hardware-platform")]
    platform: bool,
    /// print the operating system
    #[arg(short = 'o', long = "operating-system")]
    os: bool,
    operands: Vec<OsString>,
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<UnameArgs>(args)?;
    if let Some(extra) = a.operands.first() {
        return Err(Stop::Usage(format!("extra operand {}", quote(extra))));
    }
    let none = !(a.all
        || a.kernel_name
        || a.nodename
        || a.kernel_release
        || a.kernel_version
        || a.machine
        || a.processor
        || a.platform
        || a.os);
    let host = ctx.identity.hostname.as_str();
    // -p and -i are "unknown" here: -a leaves them out, as GNU does.
    let fields = [
        (a.all || a.kernel_name || none, KERNEL_NAME),
        (a.all || a.nodename, host),
        (a.all || a.kernel_release, KERNEL_RELEASE),
        (a.all || a.kernel_version, KERNEL_VERSION),
        (a.all || a.machine, MACHINE),
        (a.processor, "unknown"),
        (a.platform, "unknown"),
        (a.all || a.os, OPERATING_SYSTEM),
    ];
    let shown: Vec<&str> = fields
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, v)| *v)
        .collect();
    let mut o = Outcome::ok();
    o.out(format!("{}\n", shown.join(" ")));
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Uname;
    use crate::testing::world::{World, text};

    fn out(c: crate::CommandName, args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(c, args))
    }

    #[test]
    fn fields_in_gnu_order() {
        assert_eq!(out(Uname, &[]).0, "Linux\n");
        assert_eq!(
            out(Uname, &["-a"]).0,
            "Linux sandbox 6.1.0-28-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22) x86_64 GNU/Linux\n"
        );
        assert_eq!(out(Uname, &["-mrs"]).0, "Linux 6.1.0-28-amd64 x86_64\n");
        assert_eq!(out(Uname, &["-pio"]).0, "unknown unknown GNU/Linux\n");
        assert_eq!(
            out(Uname, &["x"]),
            (
                String::new(),
                "uname: extra operand 'x'\nTry 'uname --help' for more information.\n".into(),
                1
            )
        );
    }
}
