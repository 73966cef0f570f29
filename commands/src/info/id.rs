//! `id` and `groups`, GNU coreutils: the accounts of the emulated machine
//! ([`super::system`]): the session's user, `root` and `nobody`, each in its own group.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use super::system::{Account, account};
use crate::Stop;
use crate::support::args::parse_args;
use crate::support::quote::quote;
use crate::{CommandName, Ctx, Outcome};

/// Print user and group information for each specified USER,
/// or (when USER omitted) for the current process.
///
/// Without any OPTION, print some useful set of identified information.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "id [OPTION]... [USER]...")]
pub struct IdArgs {
    /// ignore, for compatibility with other versions
    #[arg(short = 'a')]
    all: bool,
    /// print only the security context of the process
    #[arg(short = 'Z', long = "context")]
    context: bool,
    /// print only the effective group ID
    #[arg(short = 'g', long = "group")]
    group: bool,
    /// print all group IDs
    #[arg(short = 'G', long = "groups")]
    groups: bool,
    /// print a name instead of a number, for -ugG
    #[arg(short = 'n', long = "name")]
    name: bool,
    /// print the real ID instead of the effective ID, with -ugG
    #[arg(short = 'r', long = "real")]
    real: bool,
    /// print only the effective user ID
    #[arg(short = 'u', long = "user")]
    user: bool,
    /// delimit entries with NUL characters, not whitespace;
    /// not permitted in default format
    #[arg(short = 'z', long = "zero")]
    zero: bool,
    users: Vec<OsString>,
}

/// Print group memberships for each USERNAME or, if no USERNAME is specified, for
/// the current process (which may differ if the groups database has changed).
#[derive(clap::Parser, Debug)]
#[command(override_usage = "groups [OPTION]... [USERNAME]...")]
pub struct GroupsArgs {
    users: Vec<OsString>,
}

/// The accounts named by the operands (the session's user when there is none), and a
/// `'x': no such user` line for each unknown one.
fn lookup(users: &[OsString], ctx: &Ctx, o: &mut Outcome) -> Vec<(Option<Vec<u8>>, Account)> {
    if users.is_empty() {
        let me = account(ctx.identity, ctx.identity.user.as_bytes());
        return me.map(|a| (None, a)).into_iter().collect();
    }
    let mut found = Vec::new();
    for u in users {
        if let Some(a) = account(ctx.identity, u.as_bytes()) {
            found.push((Some(u.as_bytes().to_vec()), a));
        } else {
            let name = if ctx.name == CommandName::Groups {
                "groups"
            } else {
                "id"
            };
            o.err(format!("{name}: {}: no such user\n", quote(u)));
            o.status = 1;
        }
    }
    found
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    if ctx.name == CommandName::Groups {
        return groups(args, ctx);
    }
    let a = parse_args::<IdArgs>(args)?;
    let _ = a.all;
    if a.context {
        return Err(Stop::Fail(
            "--context (-Z) works only on an SELinux-enabled kernel".into(),
        ));
    }
    let only = usize::from(a.user) + usize::from(a.group) + usize::from(a.groups);
    if only > 1 {
        return Err(Stop::Fail(
            "cannot print \"only\" of more than one choice".into(),
        ));
    }
    if only == 0 && (a.name || a.real) {
        return Err(Stop::Fail(
            "cannot print only names or real IDs in default format".into(),
        ));
    }
    if only == 0 && a.zero {
        return Err(Stop::Fail(
            "option --zero not permitted in default format".into(),
        ));
    }
    let mut o = Outcome::ok();
    let end = if a.zero { "\0" } else { "\n" };
    for (_, acc) in lookup(&a.users, ctx, &mut o) {
        let line = if a.user {
            if a.name {
                acc.name.clone()
            } else {
                acc.uid.to_string()
            }
        } else if a.group || a.groups {
            if a.name {
                acc.group.clone()
            } else {
                acc.gid.to_string()
            }
        } else {
            format!(
                "uid={}({}) gid={}({}) groups={}({})",
                acc.uid, acc.name, acc.gid, acc.group, acc.gid, acc.group
            )
        };
        o.out(format!("{line}{end}"));
    }
    Ok(o)
}

fn groups(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<GroupsArgs>(args)?;
    let mut o = Outcome::ok();
    for (named, acc) in lookup(&a.users, ctx, &mut o) {
        match named {
            Some(n) => {
                o.out(&n);
                o.out(format!(" : {}\n", acc.group));
            }
            None => {
                o.out(format!("{}\n", acc.group));
            }
        }
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::{Groups, Id};
    use crate::testing::world::{World, text};

    fn out(c: crate::CommandName, args: &[&str]) -> (String, String, i32) {
        text(&World::empty().run(c, args))
    }

    #[test]
    fn the_default_format_and_the_only_ones() {
        // Shapes as GNU coreutils 9.1 `id` prints them for root here.
        assert_eq!(
            out(Id, &[]).0,
            "uid=1000(user) gid=1000(user) groups=1000(user)\n"
        );
        assert_eq!(
            out(Id, &["root", "nobody"]).0,
            "uid=0(root) gid=0(root) groups=0(root)\nuid=65534(nobody) gid=65534(nogroup) groups=65534(nogroup)\n"
        );
        assert_eq!(out(Id, &["-u"]).0, "1000\n");
        assert_eq!(out(Id, &["-un"]).0, "user\n");
        assert_eq!(out(Id, &["-Gn"]).0, "user\n");
        assert_eq!(out(Id, &["-uz"]).0, "1000\0");
        assert_eq!(out(Id, &["-u", "0"]).0, "0\n");
    }

    #[test]
    fn errors_as_gnu() {
        assert_eq!(
            out(Id, &["-ug"]),
            (
                String::new(),
                "id: cannot print \"only\" of more than one choice\n".into(),
                1
            )
        );
        assert_eq!(
            out(Id, &["-n"]).1,
            "id: cannot print only names or real IDs in default format\n"
        );
        assert_eq!(
            out(Id, &["-z"]).1,
            "id: option --zero not permitted in default format\n"
        );
        assert_eq!(
            out(Id, &["-u", "root", "x"]),
            ("0\n".into(), "id: 'x': no such user\n".into(), 1)
        );
    }

    #[test]
    fn groups_of_users() {
        assert_eq!(out(Groups, &[]).0, "user\n");
        assert_eq!(
            out(Groups, &["nosuch", "root"]),
            (
                "root : root\n".into(),
                "groups: 'nosuch': no such user\n".into(),
                1
            )
        );
    }
}
