//! `hostname` (net-tools): the session's host name, which the agent cannot change.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::{Ctx, Outcome};

/// net-tools' usage text, printed for `-h` and for an unknown option.
const USAGE: &str = "Usage: hostname [-b] {hostname|-F file}         set host name (from file)
       hostname [-a|-A|-d|-f|-i|-I|-s|-y]       display formatted name
       hostname                                 display host name

       {yp,nis,}domainname {nisdomain|-F file}  set NIS domain name (from file)
       {yp,nis,}domainname                      display NIS domain name

       dnsdomainname                            display dns domain name

       hostname -V|--version|-h|--help          print info and exit

Program name:
       {yp,nis,}domainname=hostname -y
       dnsdomainname=hostname -d

Program options:
    -a, --alias            alias names
    -A, --all-fqdns        all long host names (FQDNs)
    -b, --boot             set default hostname if none available
    -d, --domain           DNS domain name
    -f, --fqdn, --long     long host name (FQDN)
    -F, --file             read host name or NIS domain name from given file
    -i, --ip-address       addresses for the host name
    -I, --all-ip-addresses all addresses for the host
    -s, --short            short host name
    -y, --yp, --nis        NIS/YP domain name

Description:
   This command can get or set the host name or the NIS domain name. You can
   also get the DNS domain or the FQDN (fully qualified domain name).
   Unless you are using bind or NIS for host lookups you can change the
   FQDN (Fully Qualified Domain Name) and the DNS domain name (which is
   part of the FQDN) in the /etc/hosts file.
";

/// The address the emulated host name resolves to (`/etc/hosts` on Debian).
const ADDRESS: &str = "127.0.1.1";
/// The emulated machine's one network address.
const ALL_ADDRESSES: &str = "10.0.2.15";

#[allow(clippy::unnecessary_wraps)] // the command table's handler signature
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let host = ctx.identity.hostname.as_str();
    let mut o = Outcome::ok();
    let mut what = 'n';
    for a in args {
        let b = a.as_bytes();
        match b {
            b"-h" | b"--help" => {
                o.out(USAGE);
                return Ok(o.with_status(255));
            }
            b"-V" | b"--version" => {
                o.out("hostname 3.23\n");
                return Ok(o);
            }
            b"-s" | b"--short" => what = 's',
            b"-f" | b"--fqdn" | b"--long" | b"-A" | b"--all-fqdns" => what = 'f',
            b"-d" | b"--domain" | b"-y" | b"--yp" | b"--nis" | b"-a" | b"--alias" => what = 'd',
            b"-i" | b"--ip-address" => what = 'i',
            b"-I" | b"--all-ip-addresses" => what = 'I',
            _ if b.starts_with(b"-") && b.len() > 1 => {
                let c = b.get(1).copied().unwrap_or(b'-');
                o.err(format!("hostname: invalid option -- '{}'\n", char::from(c)));
                o.out(USAGE);
                return Ok(o.with_status(255));
            }
            _ => {
                o.err("hostname: you must be root to change the host name\n");
                return Ok(o.with_status(1));
            }
        }
    }
    let line = match what {
        's' => host.split('.').next().unwrap_or(host).to_string(),
        'd' => String::new(),
        'i' => ADDRESS.to_string(),
        'I' => format!("{ALL_ADDRESSES} "),
        _ => host.to_string(),
    };
    o.out(format!("{line}\n"));
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Hostname;
    use crate::testing::world::{World, text};

    #[test]
    fn the_session_host() {
        let w = World::empty();
        assert_eq!(text(&w.run(Hostname, &[])).0, "sandbox\n");
        assert_eq!(text(&w.run(Hostname, &["-s"])).0, "sandbox\n");
        assert_eq!(text(&w.run(Hostname, &["-d"])).0, "\n");
        assert_eq!(
            text(&w.run(Hostname, &["newname"])),
            (
                String::new(),
                "hostname: you must be root to change the host name\n".into(),
                1
            )
        );
        assert_eq!(text(&w.run(Hostname, &["-x"])).2, 255);
    }
}
