//! Any bytes parsed, then every word of every simple command expanded (words, assignment
//! values, redirection targets) against a small real tree seen through the `Sandbox`, as the
//! session does. Must never panic.
#![no_main]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use trumansh::expand::{ExpandCtx, expand_word, expand_word_nosplit, expand_words};
use trumansh::sandbox::{Sandbox, SandboxConfig};
use trumansh::shell::ast::RedirKind;
use trumansh::shell::parse_at_eof;
use trumansh_commands::Vars;

const MOUNT: &str = "/home/user";

struct Fixture {
    _dir: tempfile::TempDir,
    sandbox: Sandbox,
    vars: Vars,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let r = dir.path();
        let setup = || -> std::io::Result<()> {
            fs::create_dir_all(r.join("dir/sub"))?;
            fs::create_dir_all(r.join("other"))?;
            for f in [
                "a.txt",
                "b.txt",
                ".hidden",
                "sp ace",
                "[x]",
                "-n",
                "dir/x.txt",
                "dir/sub/y",
            ] {
                fs::write(r.join(f), b"x\n")?;
            }
            symlink("dir", r.join("linkdir"))?;
            symlink(".", r.join("rootlink"))?;
            symlink("loop", r.join("loop"))?;
            symlink("/etc", r.join("out"))?;
            Ok(())
        };
        setup().unwrap_or_else(|e| panic!("fixture: {e}"));
        let mut cfg = SandboxConfig::new(r);
        cfg.mount_point = Some(MOUNT.into());
        let sandbox = Sandbox::open(&cfg).unwrap_or_else(|e| panic!("sandbox: {e}"));
        let mut vars = Vars::default();
        for (k, v) in [
            ("HOME", MOUNT),
            ("PWD", MOUNT),
            ("IFS", " \t\n"),
            ("E", ""),
            ("S", "a  b\tc"),
            ("G", "*.txt"),
            ("P", "x:y::z:"),
            ("X", "dir/*"),
        ] {
            vars.set(k, v.to_string(), true);
        }
        Fixture {
            _dir: dir,
            sandbox,
            vars,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    if data.len() > 4096 {
        return;
    }
    let Ok(parsed) = parse_at_eof(data, 1) else {
        return;
    };
    let f = fixture();
    let ctx = ExpandCtx {
        vars: &f.vars,
        last_status: 1,
        cwd: Path::new(MOUNT),
        fs: &f.sandbox,
        max_brace: 10_000,
        max_glob: 10_000,
    };
    for item in &parsed.script.items {
        let pipelines = std::iter::once(&item.first).chain(item.rest.iter().map(|(_, p)| p));
        for pipeline in pipelines {
            for cmd in &pipeline.commands {
                let mut assigned = Vec::new();
                for a in &cmd.assignments {
                    let _ = expand_word_nosplit(&a.value, &ctx, &mut assigned);
                }
                let _ = expand_words(&cmd.words, &ctx, &mut assigned);
                for r in &cmd.redirects {
                    match &r.kind {
                        RedirKind::Out(w)
                        | RedirKind::Append(w)
                        | RedirKind::In(w)
                        | RedirKind::OutErr(w)
                        | RedirKind::AppendOutErr(w) => {
                            let _ = expand_word(w, &ctx, &mut assigned);
                        }
                        RedirKind::HereDoc { body, .. } | RedirKind::HereString(body) => {
                            let _ = expand_word_nosplit(body, &ctx, &mut assigned);
                        }
                        RedirKind::DupOut(_) | RedirKind::DupIn(_) | RedirKind::Close => {}
                    }
                }
            }
        }
    }
});
