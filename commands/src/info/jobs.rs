//! `jobs`, bash's builtin: a background job of the emulated shell runs to completion before
//! the next command, so there is never an active job to list; a jobspec names none.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::{Ctx, Outcome};

pub const USAGE: &str = "jobs [-lnprs] [jobspec ...] or jobs -x command [args]";

/// The text of `help jobs`.
pub fn help() -> String {
    "jobs: jobs [-lnprs] [jobspec ...] or jobs -x command [args]
    Display status of jobs.
    
    Lists the active jobs.  JOBSPEC restricts output to that job.
    Without options, the status of all active jobs is displayed.
    
    Options:
      -l\tlists process IDs in addition to the normal information
      -n\tlists only processes that have changed status since the last
    \t\tnotification
      -p\tlists process IDs only
      -r\trestrict output to running jobs
      -s\trestrict output to stopped jobs
    
    If -x is supplied, COMMAND is run after all job specifications that
    appear in ARGS have been replaced with the process ID of that job's
    process group leader.
    
    Exit Status:
    Returns success unless an invalid option is given or an error occurs.
    If -x is used, returns the exit status of COMMAND.
"
    .to_string()
}

pub fn run(args: &[OsString], _ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut o = Outcome::ok();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let b = a.as_bytes();
        if b == b"--" {
            i += 1;
            break;
        }
        if b == b"--help" {
            return Err(Stop::Help);
        }
        if b.len() < 2 || !b.starts_with(b"-") {
            break;
        }
        for &c in b.get(1..).unwrap_or_default() {
            match c {
                b'l' | b'n' | b'p' | b'r' | b's' => {}
                // `-x command`: no job to substitute, and nothing to run it through here.
                b'x' => return Ok(o),
                _ => {
                    return Err(Stop::Usage(format!("-{}: invalid option", char::from(c))));
                }
            }
        }
        i += 1;
    }
    for spec in args.get(i..).unwrap_or_default() {
        o.shell_err(format!("jobs: {}: no such job\n", spec.to_string_lossy()));
        o.status = 1;
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Jobs;
    use crate::testing::world::{World, text};

    #[test]
    fn no_jobs() {
        let w = World::empty();
        assert_eq!(text(&w.run(Jobs, &[])), (String::new(), String::new(), 0));
        assert_eq!(text(&w.run(Jobs, &["-l"])).2, 0);
        assert_eq!(text(&w.run(Jobs, &["%1"])).2, 1);
        assert_eq!(text(&w.run(Jobs, &["-Z"])).2, 2);
    }
}
