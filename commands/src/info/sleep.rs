//! `sleep`, GNU coreutils: waits, in short naps, until the time is up or the line's deadline
//! passes (then the line ends with status 124, as any command past the deadline).

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::time::{Duration, Instant};

use super::system::interval_seconds as seconds;
use crate::Stop;
use crate::support::args::parse_args;
use crate::support::quote::quote;
use crate::{Ctx, Outcome};

/// Pause for NUMBER seconds.  SUFFIX may be 's' for seconds (the default),
/// 'm' for minutes, 'h' for hours or 'd' for days.  NUMBER need not be an
/// integer.  Given two or more arguments, pause for the amount of time
/// specified by the sum of their values.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "sleep NUMBER[SUFFIX]...\n  or:  sleep OPTION")]
pub struct SleepArgs {
    #[arg(allow_hyphen_values = false)]
    intervals: Vec<OsString>,
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<SleepArgs>(args)?;
    if a.intervals.is_empty() {
        return Err(Stop::Usage("missing operand".into()));
    }
    let mut total = 0.0f64;
    let mut bad = Outcome::status(1);
    for i in &a.intervals {
        match seconds(i.as_bytes()) {
            Some(s) => total += s,
            None => {
                bad.err(format!("sleep: invalid time interval {}\n", quote(i)));
            }
        }
    }
    if !bad.steps.is_empty() {
        bad.err("Try 'sleep --help' for more information.\n");
        return Ok(bad);
    }
    let start = Instant::now();
    let total = if total.is_finite() {
        Duration::try_from_secs_f64(total).unwrap_or(Duration::MAX)
    } else {
        Duration::MAX
    };
    let nap = Duration::from_millis(20);
    let o = Outcome::ok();
    // Without a runtime (a unit test's world) nothing could stop an endless sleep.
    if ctx.spill.is_none() && total > Duration::from_secs(1) {
        return Ok(o);
    }
    loop {
        let left = total.saturating_sub(start.elapsed());
        if left.is_zero() || ctx.expired() {
            return Ok(o);
        }
        std::thread::sleep(left.min(nap));
    }
}

#[cfg(test)]
mod tests {
    use super::super::system::interval_seconds as seconds;
    use crate::CommandName::Sleep;
    use crate::testing::world::{World, text};

    #[test]
    fn intervals_as_gnu() {
        assert_eq!(seconds(b"1"), Some(1.0));
        assert_eq!(seconds(b".5s"), Some(0.5));
        assert_eq!(seconds(b"2m"), Some(120.0));
        assert_eq!(seconds(b"1.5h"), Some(5400.0));
        assert_eq!(seconds(b"1d"), Some(86400.0));
        assert_eq!(seconds(b"1e1"), Some(10.0));
        assert_eq!(seconds(b"inf"), Some(f64::INFINITY));
        assert_eq!(seconds(b"x"), None);
        assert_eq!(seconds(b"1y"), None);
        assert_eq!(seconds(b""), None);
    }

    #[test]
    fn errors_as_gnu() {
        let w = World::empty();
        assert_eq!(
            text(&w.run(Sleep, &[])),
            (
                String::new(),
                "sleep: missing operand\nTry 'sleep --help' for more information.\n".into(),
                1
            )
        );
        assert_eq!(
            text(&w.run(Sleep, &["x", "1y"])),
            (
                String::new(),
                "sleep: invalid time interval 'x'\nsleep: invalid time interval '1y'\nTry 'sleep --help' for more information.\n".into(),
                1
            )
        );
        assert_eq!(text(&w.run(Sleep, &["0.01", "0"])).2, 0);
    }
}
