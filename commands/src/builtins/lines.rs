//! What `mapfile` and `readarray` (one builtin under two names) share: the whole command.
//! Lines are read one byte at a time from stdin, so that `-n COUNT` leaves the rest to the
//! next command, and assigned by the shell with [`Directive::MapLines`] (which also runs
//! the `-C` callback between lines).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::BuiltinGetopt;
use crate::support::cnum::legal_number;
use crate::support::ident::is_identifier;
use crate::{ByteReader, Ctx, Directive, FsError, Outcome};

/// Reads one line up to `delim` (kept), or what is left at the end; `None` when nothing is.
fn line(stdin: &mut ByteReader<'_>, delim: u8) -> Result<Option<Vec<u8>>, FsError> {
    let mut out = Vec::new();
    loop {
        match stdin.next_byte() {
            Ok(None) => return Ok((!out.is_empty()).then_some(out)),
            Ok(Some(b)) => {
                out.push(b);
                if b == delim {
                    return Ok(Some(out));
                }
            }
            Err(e) => return Err(FsError::from_io(&e)),
        }
    }
}

/// A count option's value: a whole number from 0 to `u32::MAX` (`min` 1 for `-c`).
fn count(v: &[u8], min: i64, what: &str) -> Result<u64, Stop> {
    legal_number(v)
        .filter(|&n| n >= min && u32::try_from(n).is_ok())
        .and_then(|n| u64::try_from(n).ok())
        .ok_or_else(|| Stop::FailWith(format!("{}: invalid {what}", String::from_utf8_lossy(v)), 1))
}

/// `mapfile`/`readarray [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd]
/// [-C callback] [-c quantum] [array]`.
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut delim = b'\n';
    let mut fd = 0;
    let mut max_lines = 0;
    let mut skip = 0;
    let mut chop = false;
    let mut origin = None;
    let mut callback = None;
    let mut quantum = 5000;
    let mut getopt = BuiltinGetopt::new(args, "d:u:n:O:tC:c:s:");
    for opt in getopt.by_ref() {
        let (c, value) = opt?;
        let v = value.map(OsStr::as_bytes).unwrap_or_default();
        match c {
            b'd' => delim = v.first().copied().unwrap_or(0),
            b'u' => fd = ctx.input_fd(v).map_err(|m| Stop::FailWith(m, 1))?,
            b'n' => max_lines = count(v, 0, "line count")?,
            b'O' => origin = Some(count(v, 0, "array origin")?),
            b's' => skip = count(v, 0, "line count")?,
            b'c' => quantum = count(v, 1, "callback quantum")?,
            b'C' => callback = Some(String::from_utf8_lossy(v).into_owned()),
            _ => chop = true,
        }
    }
    let name = match getopt.operands().first() {
        None => "MAPFILE".to_string(),
        Some(n) if n.is_empty() => {
            return Err(Stop::FailWith("empty array variable name".into(), 2));
        }
        Some(n) => String::from_utf8_lossy(n.as_bytes()).into_owned(),
    };
    if !is_identifier(&name) {
        return Err(Stop::FailWith(
            format!("`{name}': not a valid identifier"),
            1,
        ));
    }
    if ctx
        .vars
        .var(&name)
        .is_some_and(|v| matches!(v.array, Some(crate::Array::Assoc(_))))
    {
        return Err(Stop::FailWith(format!("{name}: not an indexed array"), 1));
    }
    let mut stdin = ctx.input(fd).unwrap_or(ctx.stdin).bytes_reader();
    let mut read = || line(&mut stdin, delim).map_err(|e| Stop::FailWith(format!("{e}"), 1));
    for _ in 0..skip {
        if read()?.is_none() {
            break;
        }
    }
    let mut values = Vec::new();
    while max_lines == 0 || (values.len() as u64) < max_lines {
        let Some(mut l) = read()? else {
            break;
        };
        // A shell variable ends at its first NUL byte.
        if let Some(nul) = l.iter().position(|&b| b == 0) {
            l.truncate(nul);
        }
        if chop && l.last() == Some(&delim) {
            l.pop();
        }
        values.push(String::from_utf8_lossy(&l).into_owned());
    }
    let mut o = Outcome::ok();
    o.directive(Directive::MapLines {
        name,
        lines: values,
        origin: origin.map(|n| i64::try_from(n).unwrap_or(i64::MAX)),
        callback: callback.map(|c| (c, quantum)),
    });
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::{Mapfile, Readarray};
    use crate::testing::world::{World, directives, text};
    use crate::{Directive, Stdin};

    fn array(name: &str, values: &[&str]) -> Directive {
        Directive::MapLines {
            name: name.into(),
            lines: values.iter().map(|v| (*v).to_string()).collect(),
            origin: None,
            callback: None,
        }
    }

    #[test]
    fn lines_into_an_array() {
        let w = World::empty().stdin(b"a\nb\n\nc");
        assert_eq!(
            directives(&w.run(Mapfile, &[])),
            [array("MAPFILE", &["a\n", "b\n", "\n", "c"])]
        );
        assert_eq!(
            directives(&w.run(Readarray, &["-t", "x"])),
            [array("x", &["a", "b", "", "c"])]
        );
        assert_eq!(
            directives(&w.run(Mapfile, &["-t", "-s", "1", "-n", "2", "x"])),
            [array("x", &["b", ""])]
        );
        let w = World::empty().stdin(b"a,b\0c,d");
        assert_eq!(
            directives(&w.run(Mapfile, &["-d", ",", "-t", "x"])),
            [array("x", &["a", "b", "d"])]
        );
    }

    #[test]
    fn leaves_the_rest_of_stdin() {
        let w = World::empty();
        let stdin = Stdin::bytes(&b"1\n2\n3\n"[..]);
        let o = w.run_on(Mapfile, &["-n", "1", "x"], &stdin);
        assert_eq!(directives(&o), [array("x", &["1\n"])]);
        assert_eq!(stdin.read_all().unwrap_or_default(), b"2\n3\n");
    }

    #[test]
    fn origin_callback_and_bad_fds() {
        let w = World::empty().stdin(b"a\nb\n");
        assert_eq!(
            directives(&w.run(Mapfile, &["-O", "3", "-C", "f", "-c", "2", "x"])),
            [Directive::MapLines {
                name: "x".into(),
                lines: vec!["a\n".into(), "b\n".into()],
                origin: Some(3),
                callback: Some(("f".into(), 2)),
            }]
        );
        assert_eq!(
            text(&w.run(Mapfile, &["-u", "3", "x"])),
            (
                String::new(),
                "mapfile: 3: invalid file descriptor: Bad file descriptor\n".into(),
                1
            )
        );
        assert_eq!(
            text(&w.run(Readarray, &["-c", "0", "x"])).1,
            "readarray: 0: invalid callback quantum\n"
        );
    }

    #[test]
    fn refuses_bad_origins() {
        let w = World::empty();
        assert_eq!(
            text(&w.run(Readarray, &["-O", "x"])).1,
            "readarray: x: invalid array origin\n"
        );
    }
}
