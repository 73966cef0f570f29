//! `mktemp [-dqu] [-p DIR] [-t] [--suffix=SUFF] [TEMPLATE]`, GNU coreutils 9.1. The X's are
//! filled from a per-session deterministic source (the command's clock, the template and an
//! attempt counter, mixed), never the host's randomness; a name that exists in the view is
//! skipped. The file is made empty with mode 0600 ([`Op::WriteFile`], [`Op::SetMode`]), a
//! directory with 0700 ([`Op::CreateDir`]).
//!
//! The default directory is `$TMPDIR`, else `/tmp` when it is a directory in the view; when
//! it is not (the mount point is not `/`, so `/tmp` lies outside the sandbox), the sandbox's
//! own `tmp` directory under the mount point, created on first use.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::time::UNIX_EPOCH;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::paths::join_display;
use crate::{Ctx, Effect, FsError, Op, Outcome, quote};

const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/// How many names are tried before giving up (`EEXIST`).
const ATTEMPTS: u64 = 1000;

/// Create a temporary file or directory, safely, and print its name.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "mktemp [OPTION]... [TEMPLATE]")]
pub struct MktempArgs {
    /// create a directory, not a file
    #[arg(short = 'd', long = "directory")]
    directory: bool,
    /// do not create anything; merely print a name (unsafe)
    #[arg(short = 'u', long = "dry-run")]
    dry_run: bool,
    /// suppress diagnostics about file/dir-creation failure
    #[arg(short = 'q', long = "quiet")]
    quiet: bool,
    /// append SUFF to TEMPLATE; SUFF must not contain a slash
    #[arg(long = "suffix", value_name = "SUFF")]
    suffix: Option<OsString>,
    /// interpret TEMPLATE relative to DIR; if DIR is not specified, use $TMPDIR if set, else
    /// /tmp
    #[arg(long = "tmpdir", value_name = "DIR", num_args = 0..=1, default_missing_value = "")]
    tmpdir: Option<OsString>,
    /// the short form of --tmpdir (its DIR required)
    #[arg(short = 'p', value_name = "DIR")]
    p: Option<OsString>,
    /// interpret TEMPLATE as a single file name component, relative to a directory: $TMPDIR,
    /// if set; else the directory specified via -p; else /tmp [deprecated]
    #[arg(short = 't')]
    t: bool,
    templates: Vec<OsString>,
}

/// splitmix64: a well-mixed 64-bit value from a seed.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The default directory: `$TMPDIR`, else `/tmp` in the view, else the sandbox's own.
fn default_dir(ctx: &Ctx) -> (OsString, bool) {
    if let Some(t) = ctx.vars.get("TMPDIR").filter(|t| !t.is_empty()) {
        return (OsString::from(t), false);
    }
    if ctx
        .fs
        .stat(std::path::Path::new("/tmp"), true)
        .is_ok_and(|m| m.is_dir())
    {
        return (OsString::from("/tmp"), false);
    }
    let own = ctx.mount_point.join("tmp");
    let missing = ctx.fs.stat(&own, false).is_err();
    (own.into_os_string(), missing)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let mut a = parse_args::<MktempArgs>(args)?;
    if a.p.is_some() {
        a.tmpdir = a.p.take();
    }
    if a.templates.len() > 1 {
        return Err(Stop::Usage("too many templates".into()));
    }
    let given = a.templates.first().cloned();
    let use_dir = a.t || a.tmpdir.is_some() || given.is_none();
    let mut template = given.unwrap_or_else(|| OsString::from("tmp.XXXXXXXXXX"));
    if let Some(s) = &a.suffix {
        if s.as_bytes().contains(&b'/') {
            return Err(Stop::Fail(format!(
                "invalid suffix {}, contains directory separator",
                quote(s)
            )));
        }
        if !template.as_bytes().ends_with(b"X") {
            return Err(Stop::Fail(format!(
                "with --suffix, template {} must end in X",
                quote(&template)
            )));
        }
        template.push(s);
    }
    let tb = template.as_bytes().to_vec();
    // The X's: the last run of them; what follows is the suffix.
    let end = tb.iter().rposition(|&c| c == b'X').map_or(0, |i| i + 1);
    let start = tb
        .get(..end)
        .and_then(|h| h.iter().rposition(|&c| c != b'X'))
        .map_or(0, |i| i + 1);
    if end - start < 3 {
        return Err(Stop::Fail(format!(
            "too few X's in template {}",
            quote(&template)
        )));
    }
    let mut create_own = false;
    let shown_template: OsString = if use_dir {
        if a.t && tb.contains(&b'/') {
            return Err(Stop::Fail(format!(
                "invalid template, {}, contains directory separator",
                quote(&template)
            )));
        }
        if !a.t && tb.starts_with(b"/") {
            return Err(Stop::Fail(format!(
                "invalid template, {}; with --tmpdir, it may not be absolute",
                quote(&template)
            )));
        }
        let env = ctx.vars.get("TMPDIR").filter(|t| !t.is_empty());
        let dir = match (&a.tmpdir, env) {
            (_, Some(t)) if a.t => OsString::from(t),
            (Some(p), _) if !p.is_empty() => p.clone(),
            _ => {
                let (d, missing) = default_dir(ctx);
                create_own = missing;
                d
            }
        };
        join_display(&dir, &template)
    } else {
        template.clone()
    };
    let sb = shown_template.as_bytes();
    let off = sb.len() - tb.len();
    let nanos = ctx
        .now
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let seed = sb.iter().fold(nanos, |h, &c| mix(h ^ u64::from(c)));
    let mut name = sb.to_vec();
    let mut found = false;
    for attempt in 0..ATTEMPTS {
        let mut r = mix(seed ^ attempt);
        for i in (off + start)..(off + end) {
            if let (Some(slot), Some(&c)) = (name.get_mut(i), CHARS.get((r % 62) as usize)) {
                *slot = c;
            }
            r /= 62;
            if r < 62 {
                r = mix(r ^ (i as u64) ^ seed);
            }
        }
        let path = ctx.resolve(OsStr::from_bytes(&name));
        if create_own
            || ctx
                .fs
                .stat(&path, false)
                .is_err_and(|e| e == FsError::NotFound)
        {
            found = true;
            break;
        }
    }
    let name = OsString::from(OsStr::from_bytes(&name));
    let what = if a.directory { "directory" } else { "file" };
    let cannot = format!(
        "mktemp: failed to create {what} via template {}",
        quote(&shown_template)
    );
    let fail = |e: FsError| {
        let mut o = Outcome::status(1);
        if !a.quiet {
            o.err(format!("{cannot}: {e}\n"));
        }
        Ok(o)
    };
    if !found {
        return fail(FsError::AlreadyExists);
    }
    let mut o = Outcome::ok();
    if a.dry_run {
        o.out([name.as_bytes(), b"\n"].concat());
        return Ok(o);
    }
    let path = ctx.resolve(&name);
    if create_own {
        if let Some(dir) = path.parent() {
            o.effect(Effect::new(
                Op::CreateDir {
                    path: dir.to_path_buf(),
                    mode: None,
                    exist_ok: true,
                },
                cannot.clone(),
            ));
        }
    } else if let Some(parent) = crate::support::paths::parent_of(&path) {
        match ctx.fs.stat(&parent, true) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return fail(FsError::NotADirectory),
            Err(e) => return fail(e),
        }
    }
    let mut e = if a.directory {
        Effect::new(
            Op::CreateDir {
                path: path.clone(),
                mode: Some(0o700),
                exist_ok: false,
            },
            cannot.clone(),
        )
    } else {
        Effect::new(
            Op::WriteFile {
                path: path.clone(),
                data: Vec::new(),
                append: false,
            },
            cannot.clone(),
        )
    };
    if a.quiet {
        e.on_err = None;
    }
    o.effect(e);
    if !a.directory {
        o.effect(Effect::new(
            Op::SetMode {
                path: PathBuf::from(&path),
                mode: 0o600,
            },
            cannot,
        ));
    }
    o.out([name.as_bytes(), b"\n"].concat());
    Ok(o)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::CommandName::Mktemp;
    use crate::Op;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text};

    fn world() -> World {
        World::new(MemFs::rooted("/").dir("/s/d").dir("/tmp").file("/s/f", b"")).mount("/")
    }

    fn err(s: &str) -> (String, String, i32) {
        (String::new(), s.to_string(), 1)
    }

    #[test]
    fn names_and_effects() {
        let w = world();
        let o = w.run(Mktemp, &[]);
        let (out, _, st) = text(&o);
        assert_eq!(st, 0);
        assert!(out.starts_with("/tmp/tmp."), "{out}");
        assert!(out.starts_with("/tmp/tmp.") && out.len() == "/tmp/tmp.XXXXXXXXXX\n".len());
        assert!(!out.contains('X'));
        let path = PathBuf::from(out.trim_end());
        assert_eq!(
            ops(&o),
            [
                Op::WriteFile {
                    path: path.clone(),
                    data: vec![],
                    append: false
                },
                Op::SetMode { path, mode: 0o600 }
            ]
        );
        // Deterministic for one clock and template.
        assert_eq!(text(&w.run(Mktemp, &[])), text(&o));
        let (out, _, _) = text(&w.run(Mktemp, &["-p", "d", "fooXXX", "--suffix=.txt"]));
        assert!(
            out.starts_with("d/foo") && out.ends_with(".txt\n") && out.len() == 13,
            "{out}"
        );
        let o = w.run(Mktemp, &["-d", "xXXXX"]);
        let (out, _, _) = text(&o);
        assert_eq!(
            ops(&o),
            [Op::CreateDir {
                path: PathBuf::from("/s").join(out.trim_end()),
                mode: Some(0o700),
                exist_ok: false
            }]
        );
        assert!(ops(&w.run(Mktemp, &["-u"])).is_empty());
        let tw = World::new(MemFs::rooted("/s").dir("/s/d")).var("TMPDIR", "/s/d", true);
        let (out, _, _) = text(&tw.run(Mktemp, &["-t", "-p", "/nope", "aXXX"]));
        assert!(out.starts_with("/s/d/a"), "{out}");
    }

    #[test]
    fn sandbox_tmp_when_tmp_is_outside() {
        let w = World::new(MemFs::rooted("/s"));
        let o = w.run(Mktemp, &["-d"]);
        let (out, _, _) = text(&o);
        assert!(out.starts_with("/s/tmp/tmp."), "{out}");
        assert_eq!(
            ops(&o).first(),
            Some(&Op::CreateDir {
                path: PathBuf::from("/s/tmp"),
                mode: None,
                exist_ok: true
            })
        );
    }

    #[test]
    fn errors_as_gnu() {
        let w = world();
        assert_eq!(
            text(&w.run(Mktemp, &["XX"])),
            err("mktemp: too few X's in template 'XX'\n")
        );
        assert_eq!(
            text(&w.run(Mktemp, &["--suffix=.x", "fooX"])),
            err("mktemp: too few X's in template 'fooX.x'\n")
        );
        assert_eq!(
            text(&w.run(Mktemp, &["--suffix=.x", "fooXXXy"])),
            err("mktemp: with --suffix, template 'fooXXXy' must end in X\n")
        );
        assert_eq!(
            text(&w.run(Mktemp, &["--suffix=/x", "fXXX"])),
            err("mktemp: invalid suffix '/x', contains directory separator\n")
        );
        assert_eq!(
            text(&w.run(Mktemp, &["a", "b"])),
            err("mktemp: too many templates\nTry 'mktemp --help' for more information.\n")
        );
        assert_eq!(
            text(&w.run(Mktemp, &["-t", "/abs/XXX"])),
            err("mktemp: invalid template, '/abs/XXX', contains directory separator\n")
        );
        assert_eq!(
            text(&w.run(Mktemp, &["-p", "d", "/abs/XXX"])),
            err("mktemp: invalid template, '/abs/XXX'; with --tmpdir, it may not be absolute\n")
        );
        assert_eq!(
            text(&w.run(Mktemp, &["nod/fXXX"])),
            err(
                "mktemp: failed to create file via template 'nod/fXXX': No such file or directory\n"
            )
        );
        assert_eq!(
            text(&w.run(Mktemp, &["-d", "-p", "nod", "fXXX"])),
            err(
                "mktemp: failed to create directory via template 'nod/fXXX': No such file or directory\n"
            )
        );
        assert_eq!(
            text(&w.run(Mktemp, &["-q", "nod/fXXX"])),
            (String::new(), String::new(), 1)
        );
    }
}
