//! Driving a trumansh session from Rust: `cargo run --example library -- DIR` runs a few
//! lines in a sandbox on DIR (a copy of `fixtures/trees/basic` shows the same as README.md).

use std::path::PathBuf;

use trumansh::{Config, Request, Session};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root: PathBuf = std::env::args_os()
        .nth(1)
        .map_or_else(|| PathBuf::from("/tmp/trumansh-demo"), PathBuf::from);
    let mut config = Config::new(root);
    config.sandbox.mount_point = Some("/home/user".into());
    let mut session = Session::new(config)?;
    for line in [
        "cd src && ls",
        "cat ../../../etc/passwd",
        "echo hi > new.txt",
    ] {
        let out = session.run(line);
        print!("$ {line}\n{}", String::from_utf8_lossy(&out.stdout));
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        println!(
            "-> exit {}, cwd {}, {:?}, effects {:?}",
            out.status,
            out.cwd.display(),
            out.duration,
            out.effects
        );
    }
    let out = session.run_with(&Request {
        stdin: Some(b"b\na\n"),
        ..Request::new(b"sort")
    });
    print!(
        "$ sort  (stdin: b, a)\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = session.run("undo");
    print!("$ undo\n{}", String::from_utf8_lossy(&out.stdout));
    Ok(())
}
